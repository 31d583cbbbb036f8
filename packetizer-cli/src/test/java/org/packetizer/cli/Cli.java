package org.packetizer.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;
import picocli.CommandLine;

/** Runs {@code packetize} in this JVM or as a process, with its streams captured. */
final class Cli {
  private Cli() {}

  /** What a run left behind: the exit code, standard output as bytes and text, standard error. */
  record Run(int code, byte[] stdout, String out, String err) {
    String all() { return out + err; }

    @Override public String toString() { return "exit " + code + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err; }
  }

  /** In this JVM through picocli, standard input empty. */
  static Run run(String... args) { return run(new byte[0], false, args); }

  static Run run(byte[] stdin, boolean stdoutIsTerminal, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter out = new StringWriter(), err = new StringWriter();
    PacketizeCommand cmd = new PacketizeCommand(new ByteArrayInputStream(stdin), bytes, stdoutIsTerminal, false);
    CommandLine cl = PacketizeCommand.commandLine(cmd);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    byte[] b = bytes.toByteArray();
    return new Run(code, b, out + new String(b, StandardCharsets.UTF_8), err.toString());
  }

  /** As a real process: java ... org.packetizer.cli.PacketizeCommand args, in {@code dir}. */
  static Run process(Path dir, byte[] stdin, List<String> extraPath, String... args) {
    // C1 only and the serial collector: these runs are short, and the machine is shared
    List<String> cmd = new ArrayList<>(List.of(javaExecutable(), "--enable-native-access=ALL-UNNAMED", "-Xss8m",
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", classPath(), "org.packetizer.cli.PacketizeCommand"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    if (!extraPath.isEmpty()) {
      pb.environment().put("PATH", String.join(java.io.File.pathSeparator, extraPath) + java.io.File.pathSeparator
          + System.getenv().getOrDefault("PATH", ""));
    }
    try {
      Process p = pb.start();
      try (var in = p.getOutputStream()) {
        in.write(stdin);
      }
      var out = readAsync(p.getInputStream());
      var err = readAsync(p.getErrorStream());
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("packetize " + String.join(" ", args) + " did not finish in 120 s");
      }
      byte[] o = out.get();
      return new Run(p.exitValue(), o, new String(o, StandardCharsets.UTF_8), new String(err.get(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  private static java.util.concurrent.Future<byte[]> readAsync(InputStream in) {
    var f = new java.util.concurrent.FutureTask<>(in::readAllBytes);
    Thread.ofPlatform().daemon().start(f);
    return f;
  }

  static String javaExecutable() {
    return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  /** The test class path (surefire hides it behind a manifest-only jar in java.class.path). */
  static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }

  // ---- fixtures ----

  /** Copies test resource {@code cli/NAME} into {@code dir}. */
  static Path copy(Path dir, String name) {
    try (InputStream in = Cli.class.getResourceAsStream("/cli/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource cli/" + name);
      Path p = dir.resolve(name);
      Files.write(p, in.readAllBytes());
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the bundled bitcode file holding kernel {@code kernel} into {@code dir} under its own name. */
  static Path bundled(Path dir, String kernel) {
    Manifest m = Manifest.load();
    Manifest.Entry e = m.require(kernel);
    Path p = dir.resolve(Path.of(e.bitcode()).getFileName().toString());
    try {
      Files.write(p, m.bitcode(e));
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return p;
  }

  /** Loads an output module and returns the verifier's complaint, if any, and its functions' text. */
  static Loaded load(byte[] bytes, String name) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bytes, name)) {
      List<String> defined = m.functions().stream().filter(f -> !f.isDeclaration()).map(f -> f.name()).toList();
      return new Loaded(m.verify(), defined, m.toIr());
    }
  }

  static Loaded load(Path p) {
    try {
      return load(Files.readAllBytes(p), p.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  record Loaded(Optional<String> verifierMessage, List<String> definedFunctions, String ir) {}
}
