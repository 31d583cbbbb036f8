package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packetize command as a real process ({@code java ... org.packetizer.cli.PacketizeCommand}):
 * exit codes through {@code System.exit}, real standard streams, pipes, PATH, and a check that never
 * finishes. Each case starts a JVM, so several situations share one run where they can.
 */
class PacketizeProcessTest {
  @TempDir Path dir;

  private static void noStackTrace(Cli.Run r) {
    assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace:\n" + r);
  }

  @Test
  void version() {
    Cli.Run r = Cli.process(dir, new byte[0], List.of(), "--version");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("packetize " + VersionProvider.version() + "\nLLVM 20."), r.out());
  }

  @Test
  void standardInputToStandardOutputInAPipe() throws IOException {
    byte[] ir = Files.readAllBytes(Cli.copy(dir, "single.ll"));
    Cli.Run r = Cli.process(dir, ir, List.of(), "-", "-w", "4", "-S", "-o", "-");
    assertEquals(0, r.code(), r.toString());
    Cli.Loaded m = Cli.load(r.stdout(), "stdout");
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    assertEquals(List.of("absdiff", "absdiff_simd4"), m.definedFunctions());
    assertTrue(r.err().contains("<stdin>: @absdiff -> @absdiff_simd4 (width 4, params vv)"), r.err());
  }

  @Test
  void errorsAreMessagesWithExitCodesNotStackTraces() {
    Cli.copy(dir, "invoke.ll");
    Cli.copy(dir, "syntax_error.ll");
    Cli.copy(dir, "single.ll");
    Cli.Run r = Cli.process(dir, new byte[0], List.of(), "-o", "out/", "missing.bc", "syntax_error.ll", "invoke.ll", "single.ll");
    assertEquals(ExitCodes.UNSUPPORTED, r.code(), "the worst of 2, 2, 3, 0:\n" + r);
    assertTrue(r.err().contains("packetize: missing.bc: error: no such file"), r.err());
    assertTrue(r.err().contains("packetize: syntax_error.ll:4:3: error: expected value token"), r.err());
    assertTrue(r.err().contains("packetize: invoke.ll: error: in function @guarded, block %entry: exception handling"), r.err());
    assertTrue(r.err().contains("4 inputs, 1 done, 3 failed"), r.err());
    assertTrue(Files.exists(dir.resolve("out/single.packet.bc")));
    noStackTrace(r);
    Cli.Run usage = Cli.process(dir, new byte[0], List.of(), "single.ll", "-w", "3");
    assertEquals(ExitCodes.USAGE_OR_INPUT, usage.code(), usage.toString());
    assertTrue(usage.err().contains("invalid width 3"), usage.err());
  }

  @Test
  void checkFailuresExitOneIncludingCallsThatNeverReturn() {
    Cli.copy(dir, "stateful.ll");
    Cli.copy(dir, "forever.ll");
    long t0 = System.nanoTime();
    Cli.Run r = Cli.process(dir, new byte[0], List.of(), "--check", "--check-timeout", "2", "-o", "out/", "stateful.ll", "forever.ll");
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(ExitCodes.CHECK_MISMATCH, r.code(), r.toString());
    assertTrue(r.err().contains("check failed: @next_id_simd8 differs from @next_id (first differing lane 0"), r.err());
    assertTrue(r.err().contains("check of @count_to_zero_simd8 against @count_to_zero did not finish within 2 s"), r.err());
    assertTrue(seconds < 90, "the process ended although a JIT-compiled call never returns (" + seconds + " s)");
    noStackTrace(r);
  }

  @Test
  void dotRendersSvgWhenGraphvizIsOnPathAndBatchesDrawNoProgressBarInPipes() throws IOException {
    // a stand-in for Graphviz's dot: writes a tiny SVG where -o says
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path dot = bin.resolve("dot");
    Files.writeString(dot, """
        #!/bin/sh
        out=""
        while [ $# -gt 0 ]; do
          if [ "$1" = "-o" ]; then out="$2"; shift; fi
          shift
        done
        printf '<svg xmlns="http://www.w3.org/2000/svg"/>\\n' > "$out"
        """);
    Files.setPosixFilePermissions(dot, PosixFilePermissions.fromString("rwxr-xr-x"));
    Cli.copy(dir, "single.ll");
    Cli.copy(dir, "stateful.ll");
    Cli.Run good = Cli.process(dir, new byte[0], List.of(bin.toString()), "--dot", "cfg", "-o", "out/", "-j", "2", "-q",
        "single.ll", "stateful.ll");
    assertEquals(0, good.code(), good.toString());
    for (String f : List.of("single.absdiff.scalar", "single.absdiff_simd8.packet", "stateful.next_id.scalar",
        "stateful.next_id_simd8.packet")) {
      assertTrue(Files.readString(dir.resolve("cfg/" + f + ".dot")).startsWith("digraph"), f);
      assertTrue(Files.readString(dir.resolve("cfg/" + f + ".svg")).startsWith("<svg"), f + ".svg from the dot on PATH");
    }
    // stateful.ll's counter is a cross-lane race: -q keeps that warning, and nothing else
    String rest = good.err().replaceAll("(?m)^packetize: stateful\\.ll: warning: in function @next_id, block %entry: cross-lane race on @calls:.*\\R  at: .*\\R?", "");
    assertTrue(good.err().contains("cross-lane race on @calls"), good.err());
    assertEquals("", rest, "-q: nothing but errors and warnings, and no progress bar when stderr is a pipe");
  }
}
