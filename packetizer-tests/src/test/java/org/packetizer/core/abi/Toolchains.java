package org.packetizer.core.abi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/** Debian's gcc (for foreign callers) and the host's CPU flags. */
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
}
