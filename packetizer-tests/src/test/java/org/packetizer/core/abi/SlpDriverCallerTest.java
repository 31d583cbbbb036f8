package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Dynamic variants on clang's SLP-merged loads through an array driver (issue 16, eighteenth round): a
 * bilinear texture fetch ({@code driver/bilinear_kernels.c}) compiled by the bundled clang at plain
 * {@code -O2}, where the SLP vectorizer merges each texture row's two texels into one {@code <2 x float>}
 * load, packetized with an array driver ({@code uvv}), emitted by the bundled {@code llc} and called from a
 * C program in its own translation unit ({@code driver/bilinear_caller.c}) compiled by the bundled clang and
 * by GCC: random texels, magnified rows (one texel or two per packet), rows at 1:1 (consecutive texels, one
 * ending at the texture's last texel), minified rows and a column (per-lane gathers), alternating
 * neighbours and rows; every n from 0 to 3W+1 (the masked tail) and long rows; every element compared bit
 * for bit with the scalar function; the texture and the inputs end at a PROT_NONE page. The default knobs
 * on AVX2 (W8) and AVX-512 (W16), the two-valued variant forced on AVX2 (the pointers' route over both
 * roots), and {@code -Dpacketizer.dynamicVariants.vectors=false} (no variant: the gathers of before).
 */
class SlpDriverCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} {1} vectors={2} twoValued={3}")
  @CsvSource({"8, haswell, true, auto", "8, haswell, true, true", "16, skylake-avx512, true, auto", "16, znver4, true, auto",
      "16, skylake-avx512, false, auto"})
  void separatelyCompiledCallersMatchTheScalarFunction(int w, String cpu, String vectors, String two) throws Exception {
    boolean avx512 = cpu.contains("avx512") || cpu.equals("znver4");
    if (avx512) Assumptions.assumeTrue(AosDriverCallerTest.hostHas("+avx512f"), "SKIPPED (LOUD): the host has no AVX-512; the AVX-512 drivers did not run");
    else Assumptions.assumeTrue(AosDriverCallerTest.hostHas("+avx2"), "SKIPPED (LOUD): the host has no AVX2; the AVX2 drivers did not run");
    List<String> remarks = new ArrayList<>();
    List<String> outputs = TwoValuedDriverCallerTest.runDrivers(dir, w, cpu, "-O2", "bilinear_kernels.c", "bilinear_caller.c", List.of("bilinear"),
        new String[] {"packetizer.dynamicVariants.vectors", vectors, "packetizer.dynamicVariants.twoValued", two}, remarks);
    // one group of both rows' <2 x float> loads, with the two-valued variant
    // where the knob or AVX-512's narrow offsets give it; none with the knob off
    long groups = remarks.stream().filter(x -> x.startsWith("dynamic variants for the 2 loads") && x.contains("1 other root(s) on the same base (4 elements")).count();
    long withTwo = remarks.stream().filter(x -> x.startsWith("dynamic variants for the 2 loads") && x.contains("two values (each active lane")).count();
    if (vectors.equals("false")) {
      assertEquals(0, groups, () -> String.join("\n", remarks));
      assertTrue(remarks.stream().anyMatch(x -> x.contains("load of <2 x float> from varying addresses became one gather per element")), () -> String.join("\n", remarks));
    } else {
      assertEquals(1, groups, () -> String.join("\n", remarks));
      assertEquals(avx512 || two.equals("true") ? groups : 0, withTwo, () -> String.join("\n", remarks));
    }
    for (String out : outputs) assertTrue(out.contains("W=" + w + ": " + 10 * 3 * (3 * w + 3) + " driver calls checked, 0 differences"), out);
  }
}
