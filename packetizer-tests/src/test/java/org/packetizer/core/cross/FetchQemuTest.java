package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.check.CrossTarget;

/**
 * bin/fetch-qemu.sh (called by bin/install-test-deps.sh): reads the package index of a Debian mirror
 * (here a local HTTP server serving a made-up qemu-user), checks the .deb's SHA256 against it, unpacks
 * the two emulators into the cache directory, does nothing on a second run, and exits 0 saying why when
 * the mirror cannot be reached or the checksum differs (the tests then use the system's qemu).
 */
class FetchQemuTest {
  static Path script() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("bin/fetch-qemu.sh"))) p = p.getParent();
    assertNotNull(p, "bin/fetch-qemu.sh not found above " + Path.of("").toAbsolutePath());
    return p.resolve("bin/fetch-qemu.sh");
  }

  record Run(int code, String err) { }

  static Run run(Path cache, String mirror) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", script().toString()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("PACKETIZER_CACHE", cache.toString());
    env.put("PACKETIZER_DEBIAN_MIRROR", mirror);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out);
  }

  static void requireTools() {
    for (String t : List.of("dpkg-deb", "xz", "sha256sum")) {
      boolean found = false;
      for (String d : System.getenv("PATH").split(":")) found |= Files.isExecutable(Path.of(d, t));
      if (!found) {
        String msg = "SKIPPED LOUDLY: " + t + " is missing (fetch-qemu.sh needs dpkg-deb, xz, sha256sum)";
        System.err.println(msg);
        Assumptions.abort(msg);
      }
    }
  }

  /** A made-up qemu-user .deb whose two programs say "version 99.1.0". */
  static byte[] fakeDeb(Path dir) throws Exception {
    Path root = dir.resolve("pkg");
    Files.createDirectories(root.resolve("DEBIAN"));
    Files.createDirectories(root.resolve("usr/bin"));
    Files.writeString(root.resolve("DEBIAN/control"), "Package: qemu-user\nVersion: 1:99.1.0-1\nArchitecture: amd64\n"
        + "Maintainer: test <t@example.org>\nDescription: test\n");
    for (String q : List.of("qemu-aarch64", "qemu-riscv64", "qemu-arm")) {
      Path f = root.resolve("usr/bin").resolve(q);
      Files.writeString(f, "#!/bin/sh\necho '" + q + " version 99.1.0 (test)'\n");
      f.toFile().setExecutable(true);
    }
    Process p = new ProcessBuilder("dpkg-deb", "--root-owner-group", "-b", root.toString(), dir.resolve("q.deb").toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    return Files.readAllBytes(dir.resolve("q.deb"));
  }

  static byte[] xz(String text) throws Exception {
    Process p = new ProcessBuilder("xz", "-c").start();
    p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    byte[] b = p.getInputStream().readAllBytes();
    assertEquals(0, p.waitFor());
    return b;
  }

  static HttpServer serve(Map<String, byte[]> files) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.createContext("/", ex -> {
      byte[] b = files.get(ex.getRequestURI().getPath());
      if (b == null) {
        ex.sendResponseHeaders(404, -1);
      } else {
        ex.sendResponseHeaders(200, b.length);
        ex.getResponseBody().write(b);
      }
      ex.close();
    });
    s.start();
    return s;
  }

  static String index(String sha) {
    return "Package: qemu-system-x86\nVersion: 1:99.1.0-1\nFilename: pool/main/q/qemu/other.deb\nSHA256: 00\n\n"
        + "Package: qemu-user\nVersion: 1:99.1.0-1\nFilename: pool/main/q/qemu/qemu-user_99.1.0-1_amd64.deb\nSHA256: " + sha + "\n\n"
        + "Package: qemu-utils\nVersion: 1:99.1.0-1\nFilename: pool/main/q/qemu/utils.deb\nSHA256: 00\n";
  }

  @Test
  void fetchesVerifiesUnpacksAndThenStaysOffline(@TempDir Path dir) throws Exception {
    requireTools();
    Assumptions.assumeTrue("x86_64".equals(System.getProperty("os.arch")) || "amd64".equals(System.getProperty("os.arch")));
    byte[] deb = fakeDeb(dir);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(deb));
    HttpServer s = serve(Map.of("/debian/dists/bookworm-backports/main/binary-amd64/Packages.xz", xz(index(sha)),
        "/debian/pool/main/q/qemu/qemu-user_99.1.0-1_amd64.deb", deb));
    Path cache = dir.resolve("cache");
    String mirror = "http://127.0.0.1:" + s.getAddress().getPort() + "/debian";
    try {
      Run r = run(cache, mirror);
      assertEquals(0, r.code(), r.err());
      Path bin = cache.resolve("qemu-99.1.0");
      assertTrue(Files.isExecutable(bin.resolve("qemu-aarch64")) && Files.isExecutable(bin.resolve("qemu-riscv64")), r::err);
      assertFalse(Files.exists(bin.resolve("qemu-arm")), "only the two emulators the tests use are unpacked");
      assertEquals("1:99.1.0-1", Files.readString(cache.resolve("qemu-99.1.0/COMPLETE")).strip());
      assertTrue(r.err().contains("version 99.1.0"), r::err);
    } finally {
      s.stop(0);
    }
    // idempotent: a complete cache is used without the network (the server is gone)
    Run again = run(cache, mirror);
    assertEquals(0, again.code());
    assertEquals("", again.err().strip());
  }

  @Test
  void aWrongChecksumIsNotUsed(@TempDir Path dir) throws Exception {
    requireTools();
    byte[] deb = fakeDeb(dir);
    HttpServer s = serve(Map.of("/debian/dists/bookworm-backports/main/binary-amd64/Packages.xz", xz(index("ab".repeat(32))),
        "/debian/pool/main/q/qemu/qemu-user_99.1.0-1_amd64.deb", deb));
    Path cache = dir.resolve("cache");
    try {
      Run r = run(cache, "http://127.0.0.1:" + s.getAddress().getPort() + "/debian");
      assertEquals(0, r.code(), r.err());
      assertTrue(r.err().contains("SHA256") && r.err().contains("not used") && r.err().contains("system's qemu"), r::err);
      assertFalse(Files.exists(cache.resolve("qemu-99.1.0")), r::err);
    } finally {
      s.stop(0);
    }
  }

  @Test
  void offlineFallsBackToTheSystemQemuSayingWhy(@TempDir Path dir) throws Exception {
    requireTools();
    Run r = run(dir.resolve("cache"), "http://127.0.0.1:9/debian");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("cannot download") && r.err().contains("system's qemu"), r::err);
  }

  /** With a QEMU fetched (bin/install-test-deps.sh ran), the cross targets use it and say which one. */
  @Test
  void crossTargetsPreferTheFetchedQemu() {
    CrossTarget t = CrossTarget.rvv(256);
    if (t.oldQemu().isPresent() || t.missing().isPresent()) {
      String msg = "SKIPPED LOUDLY: no QEMU 8 or newer here: " + t.oldQemu().orElse(t.missing().orElse(""));
      System.err.println(msg);
      Assumptions.abort(msg);
    }
    assertTrue(t.qemuDescription().startsWith("qemu-riscv64 ") && t.qemuDescription().contains(t.qemuPath().getFileName().toString()),
        t::qemuDescription);
  }
}
