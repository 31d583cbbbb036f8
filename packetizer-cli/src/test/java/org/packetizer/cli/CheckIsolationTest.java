package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Issue #19: {@code --check} runs the checked code in a child process, so a segfault, an abort in
 * LLVM's code generator or a call that never returns becomes a clear error (exit 1, naming the call
 * that was running: function, lane, inputs) — the command itself keeps running (these tests run it in
 * the test's own JVM), and no {@code hs_err} file is left behind. Also the CLI side of the other
 * items: setjmp refused (exit 3), the static-helper kernel checked at W=4/8/16. C inputs are compiled
 * by the bundled clang at plain -O1/-O2.
 */
class CheckIsolationTest {
  @TempDir Path dir;

  /** The C inputs packetizer-tests' foreign-path tests use too: one copy, in that module (run from this module's folder). */
  private static final Path FOREIGN = Path.of("..", "packetizer-tests", "src", "test", "resources", "foreign");

  private Path compile(String resource, String opt) {
    Path shared = FOREIGN.resolve(resource);
    Path src;
    try {
      src = Files.exists(shared) ? Files.copy(shared, dir.resolve(resource)) : Cli.copy(dir, resource);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Path out = dir.resolve(resource.replace(".c", opt + ".bc"));
    BundledClang.locate().compileToBitcode(dir, src.getFileName(), out.getFileName(), List.of(opt));
    return out;
  }

  private static List<Path> hsErrFiles(Path... dirs) throws IOException {
    List<Path> out = new java.util.ArrayList<>();
    for (Path d : dirs) {
      try (Stream<Path> s = Files.list(d)) {
        s.filter(p -> p.getFileName().toString().startsWith("hs_err")).forEach(out::add);
      }
    }
    return out;
  }

  private static void noStackTrace(Cli.Run r) {
    assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace:\n" + r);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void aSegfaultInCheckedCodeIsAnErrorNotACrash(String opt) throws IOException {
    Path bc = compile("crashes.c", opt);
    for (int w : new int[] {4, 8, 16}) {
      Cli.Run r = Cli.run(bc.toString(), "-f", "crashy", "--params", "vu", "--buffer", "1=i32:in", "-w", Integer.toString(w),
          "--check", "-o", dir.resolve("out.bc").toString());
      assertEquals(ExitCodes.CHECK_MISMATCH, r.code(), r.toString());
      assertTrue(r.err().contains("check of @crashy_simd" + w + " against @crashy crashed (SIGSEGV"), r.toString());
      // the scalar lanes run first: the first lane with x > 900 is named with its inputs
      assertTrue(r.err().matches("(?s).*running: scalar @crashy lane \\d+ \\(arg0=9\\d\\d .*"), r.toString());
      assertTrue(r.err().contains("this one is fine"), r.toString());
      noStackTrace(r);
    }
    assertEquals(List.of(), hsErrFiles(dir, Path.of("").toAbsolutePath()), "no hs_err file left behind");
  }

  @Test
  void aCallThatNeverReturnsIsStoppedAndNamed() {
    long t0 = System.nanoTime();
    Cli.Run r = Cli.run(Cli.copy(dir, "forever.ll").toString(), "-w", "8", "--check", "--check-timeout", "2",
        "--range", "1:1", "-o", dir.resolve("out.bc").toString());
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(ExitCodes.CHECK_MISMATCH, r.code(), r.toString());
    assertTrue(r.err().contains("check of @count_to_zero_simd8 against @count_to_zero did not finish within 2 s"), r.toString());
    // odd inputs never reach 0: lane 0's scalar call is the one that hangs
    assertTrue(r.err().contains("running: scalar @count_to_zero lane 0 (x=1)"), r.toString());
    assertTrue(seconds < 60, seconds + " s");
    noStackTrace(r);
  }

  @Test
  void anAbortOfLlvmsCodeGeneratorIsAnError() throws IOException {
    Cli.Run r = Cli.run(Cli.copy(dir, "hipe.ll").toString(), "-w", "4", "--check", "-o", dir.resolve("out.bc").toString());
    assertEquals(ExitCodes.CHECK_MISMATCH, r.code(), r.toString());
    assertTrue(r.err().contains("crashed (LLVM ERROR: Can't generate HiPE prologue"), r.toString());
    assertTrue(r.err().contains("before the first call of checked code"), r.toString());
    assertEquals(List.of(), hsErrFiles(dir, Path.of("").toAbsolutePath()));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void setjmpIsRefusedNamingFunctionBlockAndInstruction(String opt) {
    Path bc = compile("setjmp.c", opt);
    for (String f : new String[] {"guarded", "guarded2", "forks"}) {
      Cli.Run r = Cli.run(bc.toString(), "-f", f, "-w", "8", "--check", "-o", dir.resolve("out.bc").toString());
      assertEquals(ExitCodes.UNSUPPORTED, r.code(), r.toString());
      assertTrue(r.err().contains("in function @" + f + ", block %"), r.toString());
      assertTrue(r.err().contains("returns twice"), r.toString());
      assertTrue(r.err().matches("(?s).*at: .*call i32 @(setjmp|_setjmp|vfork)\\(.*"), r.toString());
      assertFalse(Files.exists(dir.resolve("out.bc")), "nothing written");
      noStackTrace(r);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void staticHelperCalledEightTimesIsCheckedThroughTheCli(String opt) {
    Path bc = compile("noise.c", opt);
    for (int w : new int[] {4, 8, 16}) {
      Cli.Run r = Cli.run(bc.toString(), "-f", "mix8", "-w", Integer.toString(w), "--check=40", "--range", "-60:60",
          "-o", dir.resolve("out.bc").toString());
      assertEquals(0, r.code(), r.toString());
      assertTrue(r.err().contains("8 vector calls"), r.toString());
      assertTrue(r.err().contains("check @mix8_simd" + w + " against @mix8: 40 runs, " + 40 * w + " lanes"), r.toString());
    }
  }
}
