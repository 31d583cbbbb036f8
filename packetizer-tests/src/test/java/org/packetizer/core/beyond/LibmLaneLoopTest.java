package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Math functions no back end here has a vector instruction for ({@code beyond/libm_lanes.c}, plain
 * {@code -O1}/{@code -O2} with {@code -fno-math-errno}, so clang writes {@code llvm.exp.f32}): the
 * packet code calls the scalar function once per lane in a loop, and the machine code does not grow
 * with W (the back end's own lowering of {@code llvm.exp.v16f32} is 16 unrolled calls with their
 * extracts, inserts and spills). Differential at W=4, 8, 16, unmasked and masked (bit-identical: the
 * same libm on every lane).
 */
class LibmLaneLoopTest {
  static final ValueDomain POSITIVE = ValueDomain.floats(0.01, 50.0);

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("org.packetizer.core.beyond.AtomicsTest#widthsAndLevels")
  void agreesWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "libm_lanes.c", opt, "-fno-math-errno")) {
      checkBoth(m, "growth", w, "vvv", 10 + w, ParamSpec.varying(POSITIVE), ParamSpec.varying(POSITIVE),
          ParamSpec.varying(ValueDomain.floats(-4.0, 4.0)));
      checkBoth(m, "dgrowth", w, "vv", 20 + w, ParamSpec.varying(ValueDomain.floats(-5.0, 5.0)),
          ParamSpec.varying(ValueDomain.floats(-5.0, 5.0)));
      checkBoth(m, "rot", w, "vvv", 30 + w, ParamSpec.varying(ValueDomain.floats(-10.0, 10.0)),
          ParamSpec.varying(ValueDomain.floats(-1.0, 1.0)), ParamSpec.varying(ValueDomain.floats(-1.0, 1.0)));
    }
  }

  /** As {@link AtomicsTest#checkBoth}, with the bit-exact vector math (the scalar libm on every lane). */
  static void checkBoth(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      new Packetizer(options(w, kinds).masked(masked).verifyEachPhase(true).build()).run(m, fn, simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult r = c.runMany(AtomicsTest.RUNS, seed + (masked ? 1000 : 0));
        assertTrue(r.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + r.report() + "\n" + m.function(simd).orElseThrow().print());
        assertTrue(r.lanesCompared() > 0);
      }
    }
  }

  static PacketizerOptions.Builder options(int w, String kinds) {
    return PacketizerOptions.builder().width(w).params(kinds).vectorMath(PacketizerOptions.VectorMath.INTRINSICS);
  }

  /**
   * Machine code at W16 (znver4) and W8 (haswell): each math call site is one call instruction in the
   * packet function's code (a loop), and the packet function is at most 2.5 times the scalar one in machine
   * instructions (the issue's code-growth goal); before, 16 {@code expf} calls per site at W16.
   */
  @Test
  void machineCodeDoesNotGrowWithWidth() {
    for (String[] t : List.of(new String[] {"16", "znver4"}, new String[] {"8", "haswell"})) {
      int w = Integer.parseInt(t[0]);
      String cpu = t[1];
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "libm_lanes.c", "-O2", "-fno-math-errno")) {
        new Packetizer(options(w, "vvv").targetCpu(cpu).build()).run(m, "growth", "growth_v");
        for (var f : m.functions()) {
          if (f.isDeclaration()) continue;
          f.removeStringAttribute("target-features");
          f.setStringAttribute("target-cpu", cpu);
        }
        String asm = HalfTest.assembly(m, cpu);
        String scalar = TableLookupTest.function(asm, "growth");
        String whole = TableLookupTest.function(asm, "growth_v");
        // up to the function's end: the expf and logf helpers (issue 16's glibc-exact route) follow it
        int end = whole.indexOf(".Lfunc_end");
        String packet = end >= 0 ? whole.substring(0, end) : whole;
        // four call sites (expf, powf, logf, exp2f), one call instruction each (powf, exp2f: in its loop;
        // expf, logf: the glibc-exact helper's; the back end may call through a register it loaded the address into)
        assertEquals(4, TableLookupTest.count(packet, "callq\t"), () -> cpu + packet);
        long s = instructions(scalar);
        long p = instructions(packet);
        assertTrue(p <= 2.5 * s, () -> cpu + " W" + w + ": " + p + " machine instructions vs " + s + " scalar" + packet);
      }
    }
  }

  /** Instruction lines of one function's assembly (labels, directives and comments not counted). */
  static long instructions(String body) {
    return body.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith(".") && !l.startsWith("#") && !l.endsWith(":")
        && !l.contains(":") ).count();
  }
}
