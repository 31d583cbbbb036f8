package org.packetizer.core.toolchain;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.bytedeco.javacpp.Loader;

/**
 * The clang and LLVM programs that ship inside the {@code org.bytedeco:llvm} native jar
 * ({@code clang}, {@code llvm-stress}, {@code llvm-dis}, {@code llvm-as}, {@code lli}, {@code llc},
 * ...), made runnable.
 *
 * <p>javacpp extracts the programs into its cache folder ({@code ~/.javacpp/cache/...}), next to
 * {@code libLLVM.so} and {@code libclang-cpp.so}. The programs, however, ask the dynamic loader for
 * the versioned names ({@code libLLVM.so.20.1}, {@code libclang-cpp.so.20.1}) that the jar does not
 * carry. {@link #locate()} therefore creates those names as symbolic links in a private folder (one
 * per cache location, created atomically so that parallel JVMs never see a half-made folder) and
 * every program is started with that folder on {@code LD_LIBRARY_PATH}. The versioned names are read
 * from clang's own dynamic section, so a newer jar needs no code change.
 *
 * <p>Instances are immutable and thread-safe; the only static state is the lazily computed location.
 * All compilations target {@value #TARGET_TRIPLE} without {@code -march} (generic x86-64: SSE2), so
 * the bitcode is the same on every machine.
 */
public final class BundledClang {
  /** The triple every compilation targets. */
  public static final String TARGET_TRIPLE = "x86_64-pc-linux-gnu";

  /**
   * The flags the test kernels are compiled with (besides {@code --target}, {@code -emit-llvm -c}):
   * <ul>
   *   <li>{@code -O2}: the scalar input the packetizer sees in practice: mem2reg/SROA done, inlined,
   *       loops rotated, invariants hoisted, branches simplified;</li>
   *   <li>{@code -fno-vectorize -fno-slp-vectorize}: no vector code in the scalar input, vectorizing
   *       is our job;</li>
   *   <li>{@code -fno-unroll-loops}: loops stay loops (clang would otherwise unroll small loops at
   *       -O2), so kernels keep the loop shapes they were written to test and stay readable;</li>
   *   <li>{@code -ffp-contract=off}: no fused multiply-add, so scalar and packet code round alike and
   *       results can be compared bit for bit;</li>
   *   <li>{@code -fno-math-errno}: libm calls become LLVM intrinsics ({@code llvm.sin.f32},
   *       {@code llvm.sqrt.f32}, ...) without errno side effects, which is what vector math needs;</li>
   *   <li>{@code -fno-discard-value-names}: SSA values and blocks keep source-derived names
   *       ({@code %cmp}, {@code for.body}), which makes IR dumps and error messages readable;</li>
   *   <li>{@code -nostdlibinc}: no system headers, only clang's own (stdint.h, stddef.h, ...) from
   *       the jar; kernels declare the few libm functions they use themselves. The bitcode then
   *       cannot depend on the machine's libc headers;</li>
   *   <li>{@code -fno-ident}: no {@code llvm.ident} metadata naming the compiler build.</li>
   * </ul>
   * With these flags clang's output is a pure function of the source text and its relative path.
   */
  public static final List<String> KERNEL_FLAGS = List.of(
      "-O2", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops", "-ffp-contract=off",
      "-fno-math-errno", "-fno-discard-value-names", "-nostdlibinc", "-fno-ident");

  /** Longest a single program may run before it is killed. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

  /** Environment variables that would make clang's output depend on the caller's shell. */
  private static final List<String> SCRUBBED_ENV = List.of(
      "CCC_OVERRIDE_OPTIONS", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
      "OBJCPLUS_INCLUDE_PATH", "CLANG_CONFIG_FILE_SYSTEM_DIR", "CLANG_CONFIG_FILE_USER_DIR");

  private static final Pattern NEEDED_LIB = Pattern.compile("lib(LLVM|clang-cpp)\\.so\\.[0-9]+(\\.[0-9]+)*");

  private final Path binDir;
  private final Path clang;
  private final Path linkDir;

  private BundledClang(Path binDir, Path clang, Path linkDir) {
    this.binDir = binDir;
    this.clang = clang;
    this.linkDir = linkDir;
  }

  // ---------------------------------------------------------------------------------------------
  // locating

  /** Holds the lazily computed location (or why it could not be found); immutable once set. */
  private static final class Holder {
    static final Object LOCATION = find();

    private static Object find() {
      try {
        return doLocate();
      } catch (ToolchainException e) {
        return e;
      } catch (RuntimeException | LinkageError e) {
        return new ToolchainException("cannot locate the bundled clang: " + e, e);
      }
    }
  }

  /**
   * The bundled clang, extracted and runnable.
   *
   * @throws ToolchainException naming what is missing: the native LLVM jar, a program, a library or
   *                            a folder where the library links could be created
   */
  public static BundledClang locate() {
    Object o = Holder.LOCATION;
    if (o instanceof BundledClang c) return c;
    ToolchainException cause = (ToolchainException) o;
    throw new ToolchainException(cause.getMessage(), cause);
  }

  private static BundledClang doLocate() {
    String path;
    try {
      path = Loader.load(org.bytedeco.llvm.program.clang.class);
    } catch (RuntimeException | LinkageError e) {
      throw new ToolchainException("cannot extract the bundled clang: javacpp failed to load "
          + "org.bytedeco.llvm.program.clang (is org.bytedeco:llvm:<version>:linux-x86_64 on the class path?): " + e, e);
    }
    if (path == null) {
      throw new ToolchainException("cannot extract the bundled clang: Loader.load(org.bytedeco.llvm.program.clang) "
          + "returned null: the native jar org.bytedeco:llvm:<version>:" + Loader.getPlatform()
          + " is not on the class path (this platform: " + Loader.getPlatform() + ")");
    }
    Path clang = Path.of(path).toAbsolutePath();
    if (!Files.isExecutable(clang)) throw new ToolchainException("bundled clang at " + clang + " is missing or not executable");
    Path binDir = clang.getParent();
    Map<String, Path> links = neededLibraries(clang, binDir);
    Path linkDir = libraryLinkFolder(binDir, links);
    BundledClang bc = new BundledClang(binDir, clang, linkDir);
    ProcessResult version = bc.exec(List.of(clang.toString(), "--version"), null, null, Duration.ofMinutes(1));
    if (version.exitCode() != 0 || !version.stdoutText().contains("clang version")) {
      throw new ToolchainException("the bundled clang at " + clang + " does not run (library links in " + linkDir + ")",
          version.command(), version.exitCode(), version.stderr(), null);
    }
    return bc;
  }

  /** Versioned library name -> the unversioned library in the cache it must point to. */
  private static Map<String, Path> neededLibraries(Path clang, Path binDir) {
    Set<String> names = new LinkedHashSet<>();
    try {
      // DT_NEEDED entries are plain ASCII in .dynstr; ISO-8859-1 maps bytes 1:1 to chars.
      Matcher m = NEEDED_LIB.matcher(new String(Files.readAllBytes(clang), StandardCharsets.ISO_8859_1));
      while (m.find()) names.add(m.group());
    } catch (IOException e) {
      throw new ToolchainException("cannot read the bundled clang at " + clang + ": " + e.getMessage(), e);
    }
    if (names.isEmpty()) names.addAll(List.of("libLLVM.so.20.1", "libclang-cpp.so.20.1"));
    java.util.TreeMap<String, Path> out = new java.util.TreeMap<>();
    for (String n : names) {
      Path lib = binDir.resolve(n.substring(0, n.indexOf(".so") + 3));
      if (!Files.isRegularFile(lib)) {
        throw new ToolchainException("the bundled clang needs " + n + " but " + lib + " is missing from the javacpp cache");
      }
      out.put(n, lib);
    }
    return out;
  }

  /**
   * A folder holding {@code links} (versioned name -> library): inside the javacpp cache if it is
   * writable, else under java.io.tmpdir in a per-user folder. Made in a temporary folder and renamed
   * into place, so concurrent JVMs either see no folder or a complete one.
   */
  private static Path libraryLinkFolder(Path binDir, Map<String, Path> links) {
    String version = links.keySet().iterator().next().replaceFirst("^lib[^.]*\\.so\\.", "");
    String dirName = "packetizer-lib-" + version;
    List<String> problems = new ArrayList<>();
    // 1. beside the libraries, with relative link targets (the folder may be shared: it holds no data)
    try {
      return ensureLinkFolder(binDir, dirName, links, true);
    } catch (IOException | RuntimeException e) {
      problems.add(binDir.resolve(dirName) + ": " + e);
    }
    // 2. a private per-user folder under java.io.tmpdir, named after the cache location
    try {
      String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
      Path base = Path.of(System.getProperty("java.io.tmpdir")).resolve("packetizer-" + user);
      try {
        Files.createDirectories(base, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(base);
      }
      if (!Files.getOwner(base).getName().equals(System.getProperty("user.name"))) {
        throw new IOException(base + " belongs to " + Files.getOwner(base).getName());
      }
      String hash = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(binDir.toString().getBytes(StandardCharsets.UTF_8)), 0, 8);
      return ensureLinkFolder(base, dirName + "-" + hash, links, false);
    } catch (IOException | RuntimeException | java.security.NoSuchAlgorithmException e) {
      problems.add("java.io.tmpdir: " + e);
    }
    throw new ToolchainException("cannot create the links " + links.keySet() + " the bundled clang needs: "
        + String.join("; ", problems));
  }

  private static Path ensureLinkFolder(Path parent, String dirName, Map<String, Path> links, boolean relative)
      throws IOException {
    Path target = parent.resolve(dirName);
    if (isLinkFolder(target, links)) return target;
    Path tmp = Files.createTempDirectory(parent, "." + dirName + "-");
    try {
      for (var e : links.entrySet()) {
        Path to = relative ? Path.of("..").resolve(e.getValue().getFileName()) : e.getValue();
        Files.createSymbolicLink(tmp.resolve(e.getKey()), to);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException e) {
        // another JVM was faster; its folder is checked below
      } catch (IOException e) {
        if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) throw e;
      }
    } finally {
      deleteRecursively(tmp);
    }
    if (!isLinkFolder(target, links)) throw new IOException(target + " exists but does not hold the expected links");
    return target;
  }

  private static boolean isLinkFolder(Path dir, Map<String, Path> links) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return false;
    for (var e : links.entrySet()) {
      Path link = dir.resolve(e.getKey());
      try {
        if (!Files.isSymbolicLink(link) || !Files.isSameFile(link, e.getValue())) return false;
      } catch (IOException ex) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // where things are

  /** The clang executable in the javacpp cache. */
  public Path clangPath() { return clang; }

  /** The javacpp cache folder holding the programs and libLLVM.so. */
  public Path binDirectory() { return binDir; }

  /** The folder with the versioned library links; on LD_LIBRARY_PATH of every program started here. */
  public Path libraryLinkDirectory() { return linkDir; }

  /**
   * A bundled program by name ({@code "llvm-stress"}, {@code "llvm-dis"}, {@code "llvm-as"},
   * {@code "lli"}, {@code "llc"}, {@code "clang"}, ...). The LLVM programs are extracted on first use.
   *
   * @throws ToolchainException when the jar has no such program
   */
  public Path toolPath(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.contains("/") || name.startsWith(".")) throw new IllegalArgumentException("bad tool name: " + name);
    Path p = binDir.resolve(name);
    if (Files.isExecutable(p) && Files.isRegularFile(p)) return p;
    try {
      Loader.load(org.bytedeco.llvm.program.llvm.class); // extracts the llvm-* programs
    } catch (RuntimeException | LinkageError e) {
      throw new ToolchainException("cannot extract the bundled LLVM programs (looking for " + name + "): " + e, e);
    }
    if (Files.isExecutable(p) && Files.isRegularFile(p)) return p;
    throw new ToolchainException("the bundled LLVM has no program '" + name + "' in " + binDir);
  }

  // ---------------------------------------------------------------------------------------------
  // compiling

  /**
   * Compiles a C file to LLVM bitcode ({@code -emit-llvm -c}) for {@value #TARGET_TRIPLE}. A relative
   * {@code source} is taken relative to the JVM's working directory and so recorded in the module.
   *
   * @param flags e.g. {@link #KERNEL_FLAGS}
   * @throws ToolchainException with clang's diagnostics when compilation fails
   */
  public CompileResult compileToBitcode(Path source, Path output, List<String> flags) {
    return compileToBitcode(null, source, output, flags);
  }

  /**
   * Compiles in {@code workDir} (null: the JVM's working directory). Relative paths are resolved by
   * clang against {@code workDir}; the source path as given becomes the module's
   * {@code source_filename}, so pass a relative one for output that does not depend on where the
   * files live.
   */
  public CompileResult compileToBitcode(Path workDir, Path source, Path output, List<String> flags) {
    Path absOut = workDir != null && !output.isAbsolute() ? workDir.resolve(output) : output.toAbsolutePath();
    try {
      if (absOut.getParent() != null) Files.createDirectories(absOut.getParent());
    } catch (IOException e) {
      throw new ToolchainException("cannot create the output folder for " + absOut + ": " + e.getMessage(), e);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(clang.toString());
    cmd.add("--target=" + TARGET_TRIPLE);
    cmd.addAll(flags);
    cmd.addAll(List.of("-emit-llvm", "-c", source.toString(), "-o", output.toString()));
    ProcessResult r = exec(cmd, workDir, null, DEFAULT_TIMEOUT);
    if (r.exitCode() != 0) throw new ToolchainException("clang failed to compile " + source, cmd, r.exitCode(), r.stderr(), null);
    return new CompileResult(absOut, cmd, r.stderr());
  }

  /**
   * Compiles C source text to bitcode and returns it. The text is written to {@code fileName} in a
   * fresh temporary folder (so diagnostics and {@code source_filename} show that name) and the
   * folder is removed afterwards.
   *
   * @throws ToolchainException with clang's diagnostics when compilation fails
   */
  public byte[] compileToBitcode(String cSource, String fileName, List<String> flags) {
    Path rel = Path.of(fileName);
    if (rel.isAbsolute() || rel.normalize().startsWith("..")) throw new IllegalArgumentException("fileName must be relative: " + fileName);
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-clang-");
      Path src = dir.resolve(rel);
      if (src.getParent() != null) Files.createDirectories(src.getParent());
      Files.writeString(src, cSource, StandardCharsets.UTF_8);
      List<String> cmd = new ArrayList<>();
      cmd.add(clang.toString());
      cmd.add("--target=" + TARGET_TRIPLE);
      cmd.addAll(flags);
      cmd.addAll(List.of("-emit-llvm", "-c", rel.toString(), "-o", "-"));
      ProcessResult r = exec(cmd, dir, null, DEFAULT_TIMEOUT);
      if (r.exitCode() != 0) throw new ToolchainException("clang failed to compile " + fileName, cmd, r.exitCode(), r.stderr(), null);
      return r.stdout();
    } catch (IOException e) {
      throw new ToolchainException("cannot write " + fileName + " to a temporary folder: " + e.getMessage(), e);
    } finally {
      if (dir != null) deleteRecursively(dir);
    }
  }

  /**
   * Links bitcode, object or C files into an executable with the bundled clang driver (using the
   * bundled {@code ld.lld} when present, the system's libc and start files). Add e.g. {@code -lm}
   * or {@code -O2} in {@code flags}.
   *
   * @throws ToolchainException with clang's or the linker's diagnostics when linking fails
   */
  public CompileResult linkExecutable(List<Path> inputs, Path output, List<String> flags) {
    if (inputs.isEmpty()) throw new IllegalArgumentException("no inputs to link");
    Path absOut = output.toAbsolutePath();
    List<String> cmd = new ArrayList<>();
    cmd.add(clang.toString());
    cmd.add("--target=" + TARGET_TRIPLE);
    if (Files.isExecutable(binDir.resolve("ld.lld"))) cmd.add("-fuse-ld=lld");
    for (Path p : inputs) cmd.add(p.toAbsolutePath().toString());
    cmd.addAll(flags);
    cmd.addAll(List.of("-o", absOut.toString()));
    ProcessResult r = exec(cmd, null, null, DEFAULT_TIMEOUT);
    if (r.exitCode() != 0) throw new ToolchainException("clang failed to link " + output, cmd, r.exitCode(), r.stderr(), null);
    return new CompileResult(absOut, cmd, r.stderr());
  }

  // ---------------------------------------------------------------------------------------------
  // running

  /**
   * Runs a program with the bundled libraries on {@code LD_LIBRARY_PATH}. {@code args.get(0)} is a
   * bundled program's name ({@code "llvm-stress"}), or a path (anything with a '/'), or a name
   * looked up on {@code PATH}. A non-zero exit is reported in the result, not thrown.
   *
   * @param workDir the working directory, or null for the JVM's
   * @throws ToolchainException when the program cannot be started or exceeds {@link #DEFAULT_TIMEOUT}
   */
  public ProcessResult run(List<String> args, Path workDir) {
    return run(args, workDir, null, DEFAULT_TIMEOUT);
  }

  /** As {@link #run(List, Path)}, feeding {@code stdin} (may be null) and with a time limit. */
  public ProcessResult run(List<String> args, Path workDir, byte[] stdin, Duration timeout) {
    if (args.isEmpty()) throw new IllegalArgumentException("no program to run");
    List<String> cmd = new ArrayList<>(args);
    String prog = cmd.get(0);
    if (!prog.contains("/")) {
      Path bundled = binDir.resolve(prog);
      if (prog.equals("clang")) cmd.set(0, clang.toString());
      else if (Files.isRegularFile(bundled) && Files.isExecutable(bundled)) cmd.set(0, bundled.toString());
      else if (isLlvmProgramName(prog)) cmd.set(0, toolPath(prog).toString());
    }
    return exec(cmd, workDir, stdin, timeout);
  }

  private static boolean isLlvmProgramName(String name) {
    return name.startsWith("llvm-") || name.equals("lli") || name.equals("llc") || name.equals("dsymutil")
        || name.equals("sancov") || name.equals("sanstats") || name.equals("verify-uselistorder");
  }

  /** The environment additions every program gets: the library folders first on LD_LIBRARY_PATH. */
  public Map<String, String> environment() {
    String old = System.getenv("LD_LIBRARY_PATH");
    String path = linkDir + ":" + binDir + (old == null || old.isEmpty() ? "" : ":" + old);
    return Map.of("LD_LIBRARY_PATH", path);
  }

  private ProcessResult exec(List<String> cmd, Path workDir, byte[] stdin, Duration timeout) {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (workDir != null) pb.directory(workDir.toFile());
    Map<String, String> env = pb.environment();
    SCRUBBED_ENV.forEach(env::remove);
    env.putAll(environment());
    if (stdin == null) pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new ToolchainException("cannot start " + cmd.get(0) + ": " + e.getMessage(), cmd, -1, "", e);
    }
    Thread feeder = null;
    if (stdin != null) {
      feeder = Thread.ofVirtual().start(() -> {
        try (OutputStream os = p.getOutputStream()) {
          os.write(stdin);
        } catch (IOException ignored) {
          // the program closed its input early; its exit code tells the rest
        }
      });
    }
    StreamCollector out = new StreamCollector(p.getInputStream());
    StreamCollector err = new StreamCollector(p.getErrorStream());
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        throw new ToolchainException(cmd.get(0) + " did not finish within " + timeout, cmd, -1, err.text(), null);
      }
      if (feeder != null) feeder.join();
      return new ProcessResult(cmd, p.exitValue(), out.bytes(), err.text());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new ToolchainException("interrupted while running " + cmd.get(0), cmd, -1, "", e);
    }
  }

  /** Drains a stream on a virtual thread so that neither pipe can fill up and block the program. */
  private static final class StreamCollector {
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    private final Thread thread;

    StreamCollector(InputStream in) {
      thread = Thread.ofVirtual().start(() -> {
        try (in) {
          in.transferTo(buf);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }

    byte[] bytes() throws InterruptedException {
      thread.join();
      return buf.toByteArray();
    }

    String text() {
      try {
        thread.join(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return buf.toString(StandardCharsets.UTF_8);
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException e) {
      // best effort: a leftover temporary folder is harmless
    }
  }

  @Override
  public String toString() { return "BundledClang[" + clang + ", links in " + linkDir + "]"; }
}
