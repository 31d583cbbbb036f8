package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The modules' descriptors hold at run time: the packetize command runs from the module path
 * ({@code java -p ... -m org.packetizer.cli/...}), so every package one module uses of another is
 * exported to it and picocli may read the commands (a missing {@code exports} or {@code opens} is an
 * IllegalAccessError or a resolution failure here, never seen on the class path the scripts use).
 */
class ModulePathTest {
  @TempDir Path dir;

  /** The run-time module path: the test class path without the test classes and the test libraries. */
  private static String modulePath() {
    return Arrays.stream(Cli.classPath().split(File.pathSeparator))
        .filter(p -> !p.isBlank() && !p.contains("test-classes"))
        .filter(p -> !p.matches(".*(junit|jqwik|opentest4j|apiguardian|snakeyaml|surefire).*"))
        .collect(Collectors.joining(File.pathSeparator));
  }

  static final String ALL_NATIVE = "org.bytedeco.javacpp,org.bytedeco.llvm,org.packetizer.core,org.packetizer.jit,org.packetizer.testkit";

  private Cli.Run run(String... args) throws IOException, InterruptedException {
    return run(List.of("--enable-native-access=" + ALL_NATIVE), args);
  }

  private Cli.Run run(List<String> jvm, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Cli.javaExecutable(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-p", modulePath(), "--add-modules", "org.bytedeco.llvm.linux.x86_64,org.bytedeco.javacpp.linux.x86_64",
        "-m", "org.packetizer.cli/org.packetizer.cli.PacketizeCommand"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
    p.getOutputStream().close();
    var out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes());
    return new Cli.Run(p.waitFor(), out, new String(out), err);
  }

  @Test
  void thePacketizeCommandRunsFromTheModulePath() throws IOException, InterruptedException {
    Cli.Run version = run("--version");
    assertEquals(0, version.code(), version.toString());
    assertTrue(version.out().startsWith("packetize "), version.toString());
    Cli.copy(dir, "single.ll");
    Cli.Run r = run("single.ll", "-w", "4", "-S", "-o", "out.ll", "--remarks");
    assertEquals(0, r.code(), r.toString());
    assertTrue(Files.readString(dir.resolve("out.ll")).contains("define"), r.toString());
    assertFalse(r.err().contains("Exception") || r.err().contains("Error:"), r.toString());
  }

  /**
   * Issue 16: the ir layer's java.lang.foreign binding needs native access for org.packetizer.core.
   * Given it, the command runs without a warning.
   * Denied it (a module-path user who enabled only javacpp's modules, with
   * {@code --illegal-native-access=deny}), the command still works through javacpp's calls, writes the
   * same module, and says so once on standard error; never a crash.
   */
  @Test
  void withoutNativeAccessForCoreTheJavacppCallsAreUsedLoudly() throws IOException, InterruptedException {
    Cli.copy(dir, "single.ll");
    // (-Dpacketizer.ffm=true: the binding from the first call, not after 30,000 instructions)
    Cli.Run on = run(List.of("-Dpacketizer.ffm=true", "--enable-native-access=" + ALL_NATIVE), "single.ll", "-w", "8", "-S", "-o", "on.ll");
    assertEquals(0, on.code(), on.toString());
    assertFalse(on.err().contains("java.lang.foreign binding"), on.toString());
    Cli.Run off = run(List.of("-Dpacketizer.ffm=true", "--illegal-native-access=deny",
        "--enable-native-access=org.bytedeco.javacpp,org.bytedeco.llvm,org.packetizer.jit,org.packetizer.testkit"),
        "single.ll", "-w", "8", "-S", "-o", "off.ll");
    assertEquals(0, off.code(), off.toString());
    assertTrue(off.err().contains("the java.lang.foreign binding of libLLVM could not be set up"), off.toString());
    assertTrue(off.err().contains("using the javacpp (JNI) calls instead"), off.toString());
    assertEquals(Files.readString(dir.resolve("on.ll")), Files.readString(dir.resolve("off.ll")));
  }
}
