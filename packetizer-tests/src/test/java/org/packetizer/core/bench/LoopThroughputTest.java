package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.bench.LoopThroughput.Estimate;
import org.packetizer.core.bench.LoopThroughput.Loop;
import org.packetizer.core.toolchain.BundledClang;

/** {@link LoopThroughput}: loop extraction from llc listings and the bundled llvm-mca's verdicts. */
class LoopThroughputTest {
  /** Two functions; f has an outer loop around an inner loop whose body spans two blocks. */
  static final String ASM = String.join("\n",
      "\t.text",
      "g:                                      # @g",
      ".LBB0_1:                                # %loop",
      "                                        # =>This Inner Loop Header: Depth=1",
      "\tvaddps\t%ymm0, %ymm1, %ymm1",
      "\tjne\t.LBB0_1",
      "\tretq",
      ".Lfunc_end0:",
      "f:                                      # @f",
      "# %bb.0:                                # %entry",
      "\txorl\t%eax, %eax",
      ".LBB1_2:                                # %outer",
      "                                        # =>This Loop Header: Depth=1",
      "                                        #     Child Loop BB1_3 Depth 2",
      "\tvmovaps\t(%rdi), %zmm2",
      "\t.p2align\t4",
      ".LBB1_3:                                # %inner",
      "                                        #   Parent Loop BB1_2 Depth=1",
      "                                        # =>  This Inner Loop Header: Depth=2",
      "\tvmulps\t%zmm2, %zmm0, %zmm3          # a comment",
      "\ttestl\t%ecx, %ecx",
      "\tje\t.LBB1_5",
      "# %bb.4:                                # %then",
      "                                        #   in Loop: Header=BB1_3 Depth=2",
      "\tvaddps\t%zmm3, %zmm1, %zmm1",
      ".LBB1_5:                                # %latch",
      "\tdecl\t%ecx",
      "\tjne\t.LBB1_3",
      "# %bb.6:",
      "\tdecl\t%eax",
      "\tjne\t.LBB1_2",
      "\tretq",
      ".Lfunc_end1:",
      "");

  @Test
  void innermostLoopIsTheHeaderUpToTheJumpBackAcrossBlocks() {
    List<Loop> loops = LoopThroughput.innermostLoops(ASM, "f");
    assertEquals(1, loops.size(), "only the inner loop of f, not its outer loop nor g's loop");
    Loop inner = loops.get(0);
    assertEquals(".LBB1_3", inner.label());
    assertEquals("%inner", inner.block());
    assertEquals(List.of("vmulps\t%zmm2, %zmm0, %zmm3", "testl\t%ecx, %ecx", "je\t.LBB1_5",
        "vaddps\t%zmm3, %zmm1, %zmm1", "decl\t%ecx", "jne\t.LBB1_3"), inner.instructions());
    assertEquals(List.of("vaddps\t%ymm0, %ymm1, %ymm1", "jne\t.LBB0_1"),
        LoopThroughput.innermostLoops(ASM, "g").get(0).instructions());
    assertThrows(IllegalArgumentException.class, () -> LoopThroughput.innermostLoops(ASM, "h"));
    assertEquals(0, inner.calls());
    assertEquals(1, new Loop(".L", "", List.of("vmulps\t%zmm0, %zmm1, %zmm1", "callq\texpf_v16", "jne\t.L")).calls());
  }

  @Test
  void interleaveCountComesFromTheInlinedPacketFunctionsName() {
    assertEquals(2, LoopThroughput.interleave("\tjne .LBB19_2  # %binomial_simd16.x2.exit", 16));
    assertEquals(1, LoopThroughput.interleave("\tjne .LBB19_2  # %binomial_simd16.exit", 16));
    assertEquals(1, LoopThroughput.interleave("\tjne .LBB19_2  # %binomial_simd8.x2.exit", 16));
  }

  @Test
  void theReportsBusiestResourceIsReadByItsColumn() {
    String report = String.join("\n",
        "Iterations:        10",
        "Instructions:      120",
        "Total Cycles:      45",
        "Total uOps:        120",
        "",
        "Block RThroughput: 4.0",
        "",
        "Resources:",
        "[0]   - PortA",
        "[1]   - PortB",
        "[2.0] - PortC",
        "[2.1] - PortC",
        "[3]   - PortD",
        "",
        "Resource pressure per iteration:",
        "[0]    [1]    [2.0]  [2.1]  [3]",
        " -     3.75   1.50   0.25   2.00",
        "");
    Estimate e = LoopThroughput.parse(report, 10);
    assertEquals(new Estimate(12, 4.5, 4.0, "PortB", 3.75), e);
  }

  /** Four independent multiplies per iteration, at 256 or 512 bits. */
  static Loop multiplies(String reg) {
    return new Loop(".LBB0_1", "%loop", List.of(
        "vmulps\t%" + reg + "0, %" + reg + "1, %" + reg + "2",
        "vmulps\t%" + reg + "0, %" + reg + "3, %" + reg + "4",
        "vmulps\t%" + reg + "0, %" + reg + "5, %" + reg + "6",
        "vmulps\t%" + reg + "0, %" + reg + "7, %" + reg + "8",
        "decl\t%ecx", "jne\t.LBB0_1"));
  }

  @Test
  void aZmmMultiplyTakesTwiceAYmmMultiplysPipeTimeOnZen4ButNotOnAFullWidthCore() {
    BundledClang clang = BundledClang.locate();
    Estimate zen4Zmm = LoopThroughput.estimate(clang, multiplies("zmm"), "znver4", 100);
    Estimate zen4Ymm = LoopThroughput.estimate(clang, multiplies("ymm"), "znver4", 100);
    assertEquals(6, zen4Zmm.instructions());
    assertTrue(zen4Zmm.busiestResource().startsWith("Zn4FP"), zen4Zmm.toString());
    assertEquals(2 * zen4Ymm.blockThroughput(), zen4Zmm.blockThroughput(), 1e-9,
        "double-pumped: 16 lanes cost what two 8-lane multiplies cost: " + zen4Zmm + " vs " + zen4Ymm);
    assertEquals(2 * zen4Ymm.busiestPressure(), zen4Zmm.busiestPressure(), 1e-9);
    Estimate skxZmm = LoopThroughput.estimate(clang, multiplies("zmm"), "skylake-avx512", 100);
    Estimate skxYmm = LoopThroughput.estimate(clang, multiplies("ymm"), "skylake-avx512", 100);
    assertTrue(skxZmm.blockThroughput() < 2 * skxYmm.blockThroughput(),
        "a full-width core runs 16 lanes in less than two 8-lane multiplies' time: " + skxZmm + " vs " + skxYmm);
    assertTrue(zen4Zmm.cyclesPerIteration() >= zen4Zmm.blockThroughput() - 1e-9, zen4Zmm.toString());
  }
}
