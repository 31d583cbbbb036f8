package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Masked packet variants (beyond-the-thesis §3) of every register-only and every memory kernel of the
 * manifest at widths 4, 8 and 16: a trailing {@code <W x i1>} mask, and inactive lanes do nothing.
 * The differential check runs the scalar function for the active lanes only and compares the active
 * lanes' results, every byte of every buffer (inactive lanes' memory must be unchanged) and the
 * {@code record()} calls (exactly the active lanes' calls). Masks: the manifest's sample packets with
 * alternating and single-lane masks, then random inputs with all mask patterns (all, none,
 * alternating, single, all-but-one, first half, random). Math as intrinsics, so that results compare
 * bit for bit (libmvec is checked elsewhere).
 */
class MaskedKernelsTest {
  static final int RANDOM_RUNS = Integer.getInteger("packetizer.test.runs", 12);

  @TestFactory
  Stream<DynamicTest> maskedKernels() {
    Manifest manifest = Manifest.load();
    java.util.regex.Pattern filter = java.util.regex.Pattern.compile(System.getProperty("packetizer.test.filter", ".*"));
    List<DynamicTest> tests = new ArrayList<>();
    for (Manifest.Entry e : manifest.kernels()) {
      if (!e.registerOnly() && !e.family().equals("memory")) continue;
      if (!filter.matcher(e.name()).matches() && !filter.matcher(e.family()).matches()) continue;
      for (int w : new int[] {4, 8, 16}) {
        tests.add(DynamicTest.dynamicTest(e.name() + " masked W=" + w, () -> check(manifest, e, w, IntegerMasks.NEVER)));
      }
      // the mask parameter and everything derived from it as integer vectors (AVX2's default)
      tests.add(DynamicTest.dynamicTest(e.name() + " masked W=8 integer masks", () -> check(manifest, e, 8, IntegerMasks.ALWAYS)));
      // every block that can be skipped when empty is
      tests.add(DynamicTest.dynamicTest(e.name() + " masked W=8 skip every block", () -> check(manifest, e, 8, IntegerMasks.NEVER, 0)));
    }
    return tests.stream();
  }

  static void check(Manifest manifest, Manifest.Entry e, int w, IntegerMasks intMasks) {
    check(manifest, e, w, intMasks, PacketizerOptions.Builder.DEFAULT_SKIP_THRESHOLD);
  }

  static void check(Manifest manifest, Manifest.Entry e, int w, IntegerMasks intMasks, int skipThreshold) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      String simd = e.function() + "_masked" + w;
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e))
          .masked(true).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).integerMasks(intMasks).skipThreshold(skipThreshold).verifyEachPhase(true).build())
          .run(m, e.function(), simd);
      assertEquals(e.params().size() + 1, m.function(simd).orElseThrow().paramCount());
      List<ParamSpec> specs = new ArrayList<>(KernelChecks.paramSpecs(e, m));
      specs.add(ParamSpec.mask());
      try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, simd, w).params(specs).build()) {
        for (Inputs in : KernelChecks.sampleInputs(e, w)) {
          for (boolean[] mask : List.of(alternating(w), allButOne(w, w / 2 + 1), single(w, w - 1))) {
            List<Object> args = new ArrayList<>(in.args());
            args.add(mask);
            Inputs masked = new Inputs(args, in.bufferSeed());
            CheckResult res = c.run(masked);
            assertTrue(res.passed(), () -> e + " masked W=" + w + " " + masked + ":\n" + res.report() + "\n" + r.summary());
          }
        }
        CheckResult res = c.runMany(RANDOM_RUNS, 0xBEEF + w);
        assertTrue(res.passed(), () -> e + " masked W=" + w + ":\n" + res.report() + "\n" + r.summary());
      }
    }
  }

  static boolean[] alternating(int w) {
    boolean[] m = new boolean[w];
    for (int k = 0; k < w; k += 2) m[k] = true;
    return m;
  }

  static boolean[] allButOne(int w, int off) {
    boolean[] m = new boolean[w];
    java.util.Arrays.fill(m, true);
    m[off % w] = false;
    return m;
  }

  static boolean[] single(int w, int on) {
    boolean[] m = new boolean[w];
    m[on] = true;
    return m;
  }
}
