package org.packetizer.core.abi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/** Debian's gcc (for foreign callers), the host's CPU flags, and C callers built by both compilers. */
final class Toolchains {
  private Toolchains() {}

  /** The path of {@code gcc} (GCC 12 or newer on Debian), if installed. */
  static Optional<String> gcc() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "gcc");
      if (Files.isExecutable(p)) return Optional.of(p.toString());
    }
    return Optional.empty();
  }

  /**
   * Aborts the calling test (a loud skip on stderr naming {@code test}) when gcc is not installed: the foreign callers
   * need it, and bin/install-test-deps.sh installs it.
   */
  static void requireGcc(String test) {
    if (gcc().isPresent()) return;
    System.err.println("SKIPPED (LOUD): gcc is not installed; " + test + " did not run (bin/install-test-deps.sh installs it)");
    Assumptions.abort("gcc is not installed");
  }

  /**
   * Whether gcc is installed for the GCC-compiled caller of {@code test}, where the test also runs a clang-compiled one
   * (which runs either way); if not, says so loudly.
   */
  static boolean gccCaller(String test) {
    if (gcc().isPresent()) return true;
    System.err.println("SKIPPED (LOUD): gcc is not installed; the GCC-compiled caller of " + test + " did not run"
        + " (bin/install-test-deps.sh installs it)");
    return false;
  }

  /** Whether /proc/cpuinfo lists {@code flag} (e.g. avx512f). */
  static boolean hostHas(String flag) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("flags")) return Set.of(line.substring(line.indexOf(':') + 1).trim().split("\\s+")).contains(flag);
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /**
   * Builds the C caller {@code source} (in {@code dir}) twice, linked with {@code objects}: by GCC
   * ({@code caller_gcc}) and by the bundled clang, compiled to an object and linked by GCC's driver
   * ({@code caller_clang}). Fails the test if a step fails; returns the two executables' names.
   */
  static List<String> gccAndClangCallers(BundledClang clang, Path dir, String source, List<String> isa, List<String> objects) {
    List<String> gcc = new ArrayList<>(List.of(gcc().orElseThrow(), "-O2", "-Wall", source));
    gcc.addAll(isa);
    gcc.addAll(objects);
    gcc.addAll(List.of("-o", "caller_gcc", "-lm"));
    succeed(clang.run(gcc, dir));
    List<String> cc = new ArrayList<>(List.of("clang", "--target=x86_64-pc-linux-gnu", "-O2", "-c", source, "-o", "caller_clang.o"));
    cc.addAll(isa);
    succeed(clang.run(cc, dir));
    List<String> link = new ArrayList<>(List.of(gcc().orElseThrow(), "caller_clang.o"));
    link.addAll(objects);
    link.addAll(List.of("-o", "caller_clang", "-lm"));
    succeed(clang.run(link, dir));
    return List.of("caller_gcc", "caller_clang");
  }

  /**
   * The start of the exact-math caller tests (glibc-exact helpers called from C): skips (loudly) where the host has no
   * AVX2+FMA or no gcc ({@code test} names the skipped test), writes the kernel's and the caller's C sources (test
   * resources under vectormath/) into {@code dir}; returns whether the host has AVX-512 (the callers' W16 part).
   */
  static boolean exactMathCallerSetUp(String test, Path dir, String kernel, String caller) throws IOException {
    Assumptions.assumeTrue(hostHas("avx2") && hostHas("fma"), "SKIPPED (LOUD): the host has no AVX2+FMA");
    if (gcc().isEmpty()) {
      System.err.println("SKIPPED (LOUD): gcc is not installed; " + test + " did not run (bin/install-test-deps.sh installs it)");
      Assumptions.abort("gcc is not installed");
    }
    for (String source : List.of(kernel, caller)) Files.writeString(dir.resolve(source), FmodGccCallerTest.resource(source));
    return hostHas("avx512f");
  }

  /**
   * {@code llc -O2 -relocation-model=pic} of {@code dir/kernel<tag>.packet.bc} to an object ({@code type} "obj":
   * {@code kernel<tag>.o}) or to assembly ("asm": {@code kernel<tag>.s}); fails the test if llc fails; returns the output's name.
   */
  static String llcKernel(BundledClang clang, Path dir, String tag, String type) {
    String out = "kernel" + tag + (type.equals("obj") ? ".o" : ".s");
    succeed(clang.run(List.of("llc", "-O2", "-filetype=" + type, "-relocation-model=pic",
        dir.resolve("kernel" + tag + ".packet.bc").toString(), "-o", dir.resolve(out).toString()), dir));
    return out;
  }

  /**
   * The exact-math callers: {@code caller} built by GCC and by clang ({@link #gccAndClangCallers}) for AVX2+FMA, and
   * AVX-512 with {@code -DWIDE} where {@code wide}, linked with {@code objects}; runs each, fails the test unless it exits
   * 0, and returns each executable's standard output by its name (GCC's first).
   */
  static Map<String, String> runExactMathCallers(BundledClang clang, Path dir, String caller, boolean wide, List<String> objects) {
    List<String> isa = wide ? List.of("-mavx2", "-mfma", "-mavx512f", "-DWIDE") : List.of("-mavx2", "-mfma");
    Map<String, String> out = new LinkedHashMap<>();
    for (String exe : gccAndClangCallers(clang, dir, caller, isa, objects)) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      Assertions.assertEquals(0, r.exitCode(), exe + ": " + r.stdoutText() + r.stderr());
      out.put(exe, r.stdoutText());
    }
    return out;
  }

  private static void succeed(ProcessResult r) {
    if (r.exitCode() != 0) throw new AssertionError("exit " + r.exitCode() + ": " + r.stderr());
  }
}
