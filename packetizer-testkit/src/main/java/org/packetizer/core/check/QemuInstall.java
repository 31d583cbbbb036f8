package org.packetizer.core.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Which qemu-user program runs a cross target: the newest complete QEMU that {@code bin/fetch-qemu.sh}
 * unpacked into the cache directory ({@code ${PACKETIZER_CACHE:-${XDG_CACHE_HOME:-~/.cache}/packetizer}/qemu-VERSION/},
 * Debian bookworm-backports' static qemu-user), else the program on {@code PATH} (Debian 12's QEMU 7.2).
 * {@code -Dpacketizer.qemu.dir=DIR} (or {@code PACKETIZER_QEMU_DIR}) names a directory holding the
 * programs and wins over both.
 *
 * @param program  the program's name ({@code qemu-aarch64})
 * @param path     where it is
 * @param version  what {@code --version} says ({@code 10.0.2}); "unknown" when it does not say
 * @param fallbackReason why the fetched QEMU is not used (empty when it is, or a directory was named)
 */
public record QemuInstall(String program, Path path, String version, String fallbackReason) {
  private static final Map<String, Optional<QemuInstall>> FOUND = new ConcurrentHashMap<>();

  /** The qemu-user program to run, or empty when there is none. */
  public static Optional<QemuInstall> find(String program) {
    return FOUND.computeIfAbsent(program, QemuInstall::locate);
  }

  private static Optional<QemuInstall> locate(String program) {
    String named = System.getProperty("packetizer.qemu.dir", System.getenv("PACKETIZER_QEMU_DIR"));
    if (named != null && !named.isBlank()) {
      Path p = Path.of(named, program);
      if (Files.isExecutable(p)) return Optional.of(new QemuInstall(program, p, versionOf(p), ""));
    }
    Path cache = cacheDir();
    String reason;
    List<Path> dirs = List.of();
    try (Stream<Path> s = Files.isDirectory(cache) ? Files.list(cache) : Stream.empty()) {
      dirs = s.filter(d -> d.getFileName().toString().startsWith("qemu-") && Files.isRegularFile(d.resolve("COMPLETE"))
          && Files.isExecutable(d.resolve(program))).sorted(Comparator.comparing(QemuInstall::versionKey).reversed())
          .toList();
    } catch (IOException ignored) {
      // no cache
    }
    if (!dirs.isEmpty()) {
      Path p = dirs.getFirst().resolve(program);
      return Optional.of(new QemuInstall(program, p, versionOf(p), ""));
    }
    reason = "no QEMU fetched by bin/fetch-qemu.sh in " + cache + " (run bin/install-test-deps.sh; offline?)";
    Optional<Path> onPath = CrossTarget.onPath(program);
    return onPath.map(p -> new QemuInstall(program, p, versionOf(p), reason));
  }

  /** Where bin/fetch-qemu.sh unpacks QEMU. */
  static Path cacheDir() {
    String c = System.getenv("PACKETIZER_CACHE");
    if (c != null && !c.isBlank()) return Path.of(c);
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("packetizer");
  }

  private static String versionKey(Path dir) {
    // "qemu-10.0.2+ds-..." -> zero-padded numbers so that 10.0 sorts after 9.2
    String v = dir.getFileName().toString().substring(5);
    StringBuilder k = new StringBuilder();
    for (String part : v.split("[^0-9]+")) if (!part.isEmpty()) k.append(String.format("%08d.", Long.parseLong(part.length() > 8 ? part.substring(0, 8) : part)));
    return k.toString();
  }

  private static String versionOf(Path p) {
    try {
      Process pr = new ProcessBuilder(p.toString(), "--version").redirectErrorStream(true).start();
      String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      pr.waitFor(10, TimeUnit.SECONDS);
      // "qemu-aarch64 version 10.0.2 (Debian 1:10.0.2+ds-...)"
      var m = java.util.regex.Pattern.compile("version (\\S+)").matcher(out);
      return m.find() ? m.group(1) : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /** The major version, 0 when unknown. */
  public int major() {
    try {
      return Integer.parseInt(version.split("\\.")[0]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * Whether this QEMU has the RISC-V translator bug of QEMU 7.2 ({@code decode_save_opc: Assertion
   * 'ctx->insn_start != NULL'}) that aborts on some vector code, fixed in QEMU 8.
   */
  public boolean hasRvvTranslatorAssertion() { return major() < 8; }

  /** "qemu-riscv64 10.0.2 (~/.cache/packetizer/qemu-10.0.2/qemu-riscv64)". */
  public String describe() { return program + " " + version + " (" + displayPath() + ")"; }

  /** The path, the home directory written {@code ~}. */
  public String displayPath() {
    String home = System.getProperty("user.home");
    String p = path.toString();
    return home != null && !home.isEmpty() && !home.equals("/") && p.startsWith(home + "/") ? "~" + p.substring(home.length()) : p;
  }
}
