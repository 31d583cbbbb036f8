package org.packetizer.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The CI slice of the fuzzer: a fixed seed, a few dozen llvm-stress functions and a dozen generated C
 * functions at widths 4, 8 and 16 (about a minute). Longer runs: {@code bin/fuzz --seed S --cases N}.
 * {@code -Dpacketizer.fuzz.cases=N} and {@code -Dpacketizer.fuzz.ccases=N} change the slice's sizes.
 */
class FuzzSliceTest {
  static final int STRESS = Integer.getInteger("packetizer.fuzz.cases", 100);
  static final int C = Integer.getInteger("packetizer.fuzz.ccases", 16);

  @Test
  void llvmStressFixedSeed() throws Exception {
    Path out = Files.createDirectories(Path.of("target/fuzz-slice"));
    FuzzMain.Summary s = FuzzMain.run(20261121L, 0, STRESS, "stress", new int[] {4, 8, 16}, 6, 16, out, false, System.out);
    System.out.println(s.report());
    assertTrue(s.failed.isEmpty(), s::report);
  }

  @Test
  void generatedCFixedSeed() throws Exception {
    Path out = Files.createDirectories(Path.of("target/fuzz-slice"));
    FuzzMain.Summary s = FuzzMain.run(20261121L, 0, C, "c", new int[] {4, 8, 16}, 6, 16, out, false, System.out);
    System.out.println(s.report());
    assertTrue(s.failed.isEmpty(), s::report);
    assertTrue(s.all.stream().filter(o -> o.status() == FuzzRunner.Status.PASSED).count() >= s.all.size() * 3 / 4,
        () -> "most generated C functions should packetize and pass:\n" + s.report());
  }
}
