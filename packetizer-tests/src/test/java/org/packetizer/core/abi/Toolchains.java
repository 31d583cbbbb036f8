package org.packetizer.core.abi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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

  private static void succeed(ProcessResult r) {
    if (r.exitCode() != 0) throw new AssertionError("exit " + r.exitCode() + ": " + r.stderr());
  }
}
