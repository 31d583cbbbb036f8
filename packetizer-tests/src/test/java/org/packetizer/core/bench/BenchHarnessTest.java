package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.packetizer.core.bench.BenchBuffers.Loop;
import org.packetizer.core.bench.KernelPlan.Leaf;
import org.packetizer.core.bench.KernelPlan.SoaPointer;
import org.packetizer.core.bench.KernelPlan.StructLayout;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;

/** The benchmark's data handling without timing: layouts, comparisons, drivers, generated functions. */
class BenchHarnessTest {
  static final Manifest MANIFEST = Manifest.load();

  @Test
  void packetLayoutPutsLaneKOfLeafAtWTimesOffsetPlusKTimesSize() {
    StructLayout color = new StructLayout("{ float, float, float }", 12,
        List.of(new Leaf(0, ScalarType.F32), new Leaf(4, ScalarType.F32), new Leaf(8, ScalarType.F32)));
    // element 5 at W=4: block 1, lane 1; field .1 (offset 4): 1*4*12 + 4*4 + 1*4
    assertEquals(48 + 16 + 4, BenchBuffers.packetOffset(5, color.leaves().get(1), color, 4));
    assertEquals(0, BenchBuffers.packetOffset(0, color.leaves().get(0), color, 8));
    assertEquals(8 * 8 + 7 * 4, BenchBuffers.packetOffset(7, color.leaves().get(2), color, 8));
  }

  @Test
  void structLayoutsComeFromTheDataLayout() {
    Manifest.Entry shade = MANIFEST.require("shade");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(shade), shade.bitcode())) {
      KernelPlan plan = KernelPlan.of(shade, m);
      SoaPointer hit = (SoaPointer) plan.params().get(0);
      assertEquals(56, hit.pointee().size());
      assertEquals(14, hit.pointee().leaves().size());
      assertEquals(52, hit.pointee().leaves().get(13).offset());
      assertInstanceOf(KernelPlan.UniformPointer.class, plan.params().get(1));
      assertFalse(plan.returnsValue());
      assertEquals(1, plan.writtenObjects().size());
      String c = Drivers.cDriver(Drivers.SCALAR, plan, shade.file());
      assertTrue(c.contains("#include \"kernels/shading.c\""), c);
      assertTrue(c.contains("shade((void *)(p0 + i * 56), p1, (void *)(p2 + i * 12))"), c);
    }
  }

  @Test
  void uniformScalarsTakeTheFirstSample() {
    Manifest.Entry e = MANIFEST.require("mandelbrot");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(e), e.bitcode())) {
      KernelPlan plan = KernelPlan.of(e, m);
      assertEquals(100, ((KernelPlan.UniformScalar) plan.params().get(2)).value());
      String c = Drivers.cDriver(Drivers.AUTOVEC, plan, e.file());
      assertTrue(c.contains("out[i] = mandelbrot(p0[i], p1[i], p2);"), c);
    }
  }

  @Test
  void theComparisonFindsAWrongLaneInStructOfArraysMemory() {
    Manifest.Entry e = MANIFEST.require("fig417");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(e), e.bitcode());
         BenchBuffers buf = new BenchBuffers(KernelPlan.of(e, m), 64, 8, 1)) {
      for (Loop l : Loop.values()) buf.reset(l, 64);
      // untouched memory: the same objects in AoS and SoA form
      assertEquals(Optional.empty(), buf.compareWithScalar(Loop.PACKET, 64, 0));
      assertEquals(Optional.empty(), buf.compareWithScalar(Loop.AUTOVEC, 64, 0));
      // element 13 = block 1, lane 5; field .2 (offset 8) lives at 1*8*12 + 8*8 + 5*4
      MemorySegment soa = buf.memory(Loop.PACKET, 2);
      long at = 96 + 64 + 20;
      soa.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, soa.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at) + 1f);
      Optional<String> diff = buf.compareWithScalar(Loop.PACKET, 64, 4);
      assertTrue(diff.isPresent());
      assertTrue(diff.get().startsWith("1 value(s) of 64 elements differ by more than 4 ulps from the scalar loop's (at most "), diff.get());
      assertTrue(diff.get().contains("element 13 (lane 5): color field at offset 8"), diff.get());
      // only the first 8 elements compared: the difference is not among them
      assertEquals(Optional.empty(), buf.compareWithScalar(Loop.PACKET, 8, 0));
    }
  }

  @Test
  void coherentInputsAreTheRandomOnesReorderedAlongAZOrderCurve() {
    Manifest.Entry e = MANIFEST.require("mandelbrot");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(e), e.bitcode())) {
      KernelPlan plan = KernelPlan.of(e, m);
      int n = 4096;
      try (BenchBuffers random = new BenchBuffers(plan, n, 8, 3, false); BenchBuffers coherent = new BenchBuffers(plan, n, 8, 3, true)) {
        float[][] r = new float[2][], c = new float[2][];
        for (int k = 0; k < 2; k++) {
          r[k] = random.memory(Loop.SCALAR, k).asSlice(0, 4L * n).toArray(ValueLayout.JAVA_FLOAT);
          c[k] = coherent.memory(Loop.PACKET, k).asSlice(0, 4L * n).toArray(ValueLayout.JAVA_FLOAT);
        }
        // the same (x, y) pairs
        java.util.Set<Long> a = new java.util.HashSet<>(), b = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
          a.add((long) Float.floatToRawIntBits(r[0][i]) << 32 | (Float.floatToRawIntBits(r[1][i]) & 0xffffffffL));
          b.add((long) Float.floatToRawIntBits(c[0][i]) << 32 | (Float.floatToRawIntBits(c[1][i]) & 0xffffffffL));
        }
        assertEquals(a, b);
        // neighbours are close: mean distance between consecutive elements far below the random one
        assertTrue(meanStep(c) * 5 < meanStep(r), meanStep(c) + " vs " + meanStep(r));
        // the uniform maxIter is untouched
        assertEquals(100, coherent.memory(Loop.PACKET, 2).get(ValueLayout.JAVA_INT, 0));
      }
    }
  }

  private static double meanStep(float[][] xy) {
    double s = 0;
    for (int i = 1; i < xy[0].length; i++) s += Math.hypot(xy[0][i] - xy[0][i - 1], xy[1][i] - xy[1][i - 1]);
    return s / (xy[0].length - 1);
  }

  /**
   * The approximate vector math mode (--vector-math libmvec) compares floats within a tolerance relative
   * to the output's root mean square: a difference of a few dozen ULP passes, a wrong value does not.
   */
  @Test
  void approximateMathIsComparedRelativeToTheOutputsSize() {
    Manifest.Entry e = MANIFEST.require("fig417");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(e), e.bitcode());
         BenchBuffers buf = new BenchBuffers(KernelPlan.of(e, m), 64, 8, 1)) {
      for (Loop l : Loop.values()) buf.reset(l, 64);
      MemorySegment soa = buf.memory(Loop.PACKET, 2);
      long at = 96 + 64 + 20; // element 13 (lane 5), field at offset 8
      float v = soa.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at);
      float near = v;
      for (int i = 0; i < 30; i++) near = Math.nextUp(near);
      soa.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, near);
      assertTrue(buf.compareWithScalar(Loop.PACKET, 64, 4).isPresent(), "30 ULP apart: beyond the ULP bound");
      assertEquals(Optional.empty(), buf.compareWithScalar(Loop.PACKET, 64, 4, true));
      assertTrue(buf.worstRelative > 0 && buf.worstRelative <= 1e-4, () -> "" + buf.worstRelative);
      soa.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, v + 1000f);
      Optional<String> diff = buf.compareWithScalar(Loop.PACKET, 64, 4, true);
      assertTrue(diff.isPresent() && diff.get().contains("element 13 (lane 5)"), () -> diff.toString());
    }
  }

  @Test
  void resultsAreComparedWithinTheUlpBound() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment x = a.allocate(8), y = a.allocate(8);
      x.set(ValueLayout.JAVA_FLOAT, 0, 1.0f);
      y.set(ValueLayout.JAVA_FLOAT, 0, Math.nextUp(Math.nextUp(1.0f)));
      assertFalse(ScalarType.F32.same(x, 0, y, 0, 0));
      assertFalse(ScalarType.F32.same(x, 0, y, 0, 1));
      assertTrue(ScalarType.F32.same(x, 0, y, 0, 2));
      x.set(ValueLayout.JAVA_FLOAT, 0, -0.0f);
      y.set(ValueLayout.JAVA_FLOAT, 0, Float.MIN_VALUE);
      assertTrue(ScalarType.F32.same(x, 0, y, 0, 1));
      x.set(ValueLayout.JAVA_FLOAT, 0, Float.NaN);
      y.set(ValueLayout.JAVA_INT, 0, 0x7fc00001);
      assertTrue(ScalarType.F32.same(x, 0, y, 0, 0), "both NaN");
      x.set(ValueLayout.JAVA_INT, 0, 7);
      y.set(ValueLayout.JAVA_INT, 0, 8);
      assertFalse(ScalarType.I32.same(x, 0, y, 0, 4), "integers compare exactly");
      x.set(ValueLayout.JAVA_DOUBLE, 0, -Double.MIN_VALUE);
      y.set(ValueLayout.JAVA_DOUBLE, 0, Double.MIN_VALUE);
      assertTrue(ScalarType.F64.same(x, 0, y, 0, 2));
      assertFalse(ScalarType.F64.same(x, 0, y, 0, 1));
    }
  }

  @Test
  void goalsNameTheKernelsThatMissThem() {
    BenchOptions o = BenchOptions.defaults().withTargets(List.of(new BenchTarget(4, Isa.SSE42), new BenchTarget(8, Isa.AVX2)));
    List<KernelResult> rs = List.of(
        result("mandelbrot", 4, "SSE4.2", 10, 5, 2, 20, 60),   // 5x
        result("mandelbrot", 8, "AVX2", 10, 5, 1, 20, 60),     // 10x, 5x vs autovec
        result("checker", 4, "SSE4.2", 10, 5, 5, 20, 20),      // 2x
        result("fig23", 4, "SSE4.2", 10, 5, 10, 10, 10));      // thesis: not counted
    BenchReport r = new BenchReport(o, new BenchReport.Host("test", 1, "25", false, 0), rs,
        List.of(new KernelFailure("checker", 8, "AVX2", "mismatch", "differs")), List.of(), List.of(), 1);
    BenchReport.Geomean g4 = r.geomean(BenchReport.T4).orElseThrow();
    assertEquals(2, g4.kernels());
    assertEquals(Math.sqrt(5 * 2), g4.speedupVsScalar(), 1e-9);
    List<BenchReport.Goal> goals = r.goals();
    assertEquals(6, goals.size(), "issue 16's goals: W8 geomean, every kernel at W8, W16/W8, peers, not slower, code growth");
    assertEquals(List.of("checker: not measured"), goals.get(0).misses());
    assertTrue(goals.get(0).met(), "geomean at W8 is mandelbrot's 10x");
    assertFalse(goals.get(1).met(), "checker was not measured at W8");
    assertEquals(List.of("checker: not measured"), goals.get(1).misses());
    assertNull(goals.get(2).actual(), "no W16 target");
    assertTrue(goals.get(3).met(), "5x the auto-vectorizer at W8");
    assertFalse(goals.get(4).met());
    assertEquals(List.of("checker: W8/AVX2 not measured"), goals.get(4).misses());
    assertEquals(List.of("mandelbrot: W4/SSE4.2 3.00 (IR 3.00), W8/AVX2 3.00 (IR 3.00)"), goals.get(5).misses());
    assertTrue(r.table().contains("checker     W8/AVX2      -- not reported: mismatch"), r.table());
    assertTrue(r.svg().contains("<title>mandelbrot W8/AVX2: 10.00x vs scalar, autovec 2.00x</title>"), r.svg());
  }

  /**
   * The W16 goal follows the width probe: 10x over scalar where AVX-512 is full width, 1.25x the W8
   * figure where it is not (or the host has no probe result).
   */
  @Test
  void w16GoalFollowsTheWidthProbe() {
    BenchOptions o = BenchOptions.defaults().withTargets(List.of(new BenchTarget(8, Isa.AVX2), new BenchTarget(16, Isa.AVX512_ZNVER4)));
    // W8 6x, W16 9x: 1.5x the W8 figure (met by the 1.25 rule) but below 10x (missed when full width)
    List<KernelResult> rs = List.of(result("mandelbrot", 8, "AVX2", 12, 12, 2, 20, 20), result("mandelbrot", 16, "AVX-512", 18, 18, 2, 20, 20));
    WidthProbe.Result full = new WidthProbe.Result(0.5, 0.5, 2.0, true, "probe");
    WidthProbe.Result halves = new WidthProbe.Result(1.0, 0.5, 1.0, false, "probe");
    BenchReport.Host plain = new BenchReport.Host("test", 1, "25", false, 0);
    for (var c : List.of(java.util.Map.entry(java.util.Optional.of(full), false), java.util.Map.entry(java.util.Optional.of(halves), true),
        java.util.Map.entry(java.util.Optional.<WidthProbe.Result>empty(), true))) {
      BenchReport.Host h = c.getKey().map(p -> new BenchReport.Host("test", 1, "25", false, 0, p)).orElse(plain);
      BenchReport r = new BenchReport(o, h, rs, List.of(), List.of(), List.of(), 1);
      BenchReport.Goal g = r.goals().get(2);
      assertEquals(c.getValue(), g.met(), g.toString());
      if (c.getKey().map(WidthProbe.Result::fullWidth).orElse(false)) {
        assertEquals(BenchReport.GOAL_W16_FULL_WIDTH, g.required(), 0, g.toString());
        assertEquals(9.0, g.actual(), 1e-9);
        assertEquals(List.of("mandelbrot: 9.00x"), g.misses());
        assertTrue(g.goal().contains("full width: probe 2.00x"), g.goal());
        assertTrue(r.table().contains("=> full width"), r.table());
        assertTrue(r.json().contains("\"avx512_probe\""), r.json());
      } else {
        assertEquals(BenchReport.GOAL_W16_OVER_W8, g.required(), 0, g.toString());
        assertEquals(1.5, g.actual(), 1e-9);
      }
    }
  }

  /**
   * The W16 figure split into its two factors, per element: noise3's scalar loop 4x faster at W16
   * (compiled for the W16 CPU) and its packet loop 2x faster; mandelbrot's scalar loop the same at both
   * and its packet loop 1.5x faster. Over the two kernels the packet gain is sqrt(2 x 1.5), the scalar
   * gain sqrt(4 x 1) = 2, and their quotient is the W16 goal's figure; a kernel of another family
   * does not count, and noise3 is named as the kernel whose scalar loop moved.
   */
  @Test
  void w16FigureSplitsIntoThePacketAndTheScalarLoopsGains() {
    BenchOptions o = BenchOptions.defaults().withTargets(List.of(new BenchTarget(8, Isa.AVX2), new BenchTarget(16, Isa.AVX512_ZNVER4)));
    List<KernelResult> rs = List.of(result("noise3", 8, "AVX2", 100, 10, 8, 20, 20), result("noise3", 16, "AVX-512", 25, 10, 4, 20, 20),
        result("mandelbrot", 8, "AVX2", 60, 60, 6, 20, 20), result("mandelbrot", 16, "AVX-512", 60, 60, 4, 20, 20),
        result("fig3", 8, "AVX2", 10, 10, 1, 20, 20), result("fig3", 16, "AVX-512", 1, 10, 10, 20, 20));
    BenchReport.Host plain = new BenchReport.Host("test", 1, "25", false, 0);
    BenchReport r = new BenchReport(o, plain, rs, List.of(), List.of(), List.of(), 1);
    BenchReport.WidthSplit w = r.widthSplit().orElseThrow();
    assertEquals(2, w.kernels());
    assertEquals(Math.sqrt(2.0 * 1.5), w.packetGain(), 1e-9);
    assertEquals(2.0, w.scalarGain(), 1e-9);
    BenchReport.Goal g = r.goals().get(2);
    assertEquals(BenchReport.GOAL_W16_OVER_W8, g.required(), 0, g.toString());
    assertEquals(g.actual(), w.speedupRatio(), 1e-9);
    assertEquals(Math.sqrt(0.75), w.speedupRatio(), 1e-9);
    assertEquals(List.of("noise3: scalar 4.00x, packet 2.00x"), w.scalarMoved());
    assertTrue(r.table().contains("packet loop 1.73x faster, scalar loop 2.00x faster; the W16 figure is 1.73 / 2.00 = 0.87"), r.table());
    assertTrue(r.table().contains("scalar loop faster at W16: noise3: scalar 4.00x, packet 2.00x"), r.table());
    assertTrue(r.json().contains("\"w16_over_w8\""), r.json());
    // only one of the two targets measured: no split
    BenchReport only8 = new BenchReport(o, plain, rs.stream().filter(k -> k.width() == 8).toList(), List.of(), List.of(), List.of(), 1);
    assertTrue(only8.widthSplit().isEmpty());
    assertFalse(only8.table().contains("per element ("), only8.table());
  }

  /** The probe module is valid IR with both loops; on an AVX-512 host the probe runs and gives a positive ratio. */
  @Test
  void widthProbeRunsOnAvx512Hosts() {
    String ir = WidthProbe.ir();
    assertTrue(ir.contains("define float @probe_zmm") && ir.contains("define float @probe_ymm"), ir);
    try (var ctx = org.packetizer.core.ir.LlvmContext.create(); var m = ctx.parseIr(ir, "probe")) {
      assertTrue(m.verify().isEmpty(), () -> m.verify().orElse(""));
    }
    boolean avx512 = ("," + org.packetizer.core.ir.Llvm.hostCpuFeatures() + ",").contains(",+avx512f,");
    java.util.Optional<WidthProbe.Result> r = WidthProbe.run();
    assertEquals(avx512, r.isPresent(), "the probe runs exactly on AVX-512 hosts");
    r.ifPresent(p -> {
      assertTrue(p.ns512() > 0 && p.ns256() > 0 && p.ratio() > 0.3 && p.ratio() < 4, p.describe());
      assertEquals(p.ratio() >= WidthProbe.FULL_WIDTH_RATIO, p.fullWidth(), p.describe());
    });
  }

  private static KernelResult result(String k, int w, String isa, double s, double a, double p, int si, int pi) {
    return result(k, w, isa, s, a, p, si, pi, si, pi);
  }

  private static KernelResult result(String k, int w, String isa, double s, double a, double p, int si, int pi, int sm, int pm) {
    String family = k.startsWith("fig") ? "thesis" : "kernel";
    return new KernelResult(k, family, w, isa, "cpu", 1024, 3, s, a, p, s, a, p, 0, true, si, pi, sm, pm, 1, 0, 0, 0, 0, 0, 0, Double.NaN,
        false, 1, Double.NaN, Double.NaN, Double.NaN, Double.NaN, "");
  }

  /**
   * The code-growth goal is evaluated on machine instructions (per-lane loads raise the IR count of
   * a packet function while its machine code shrinks); the IR ratio is shown alongside.
   */
  @Test
  void codeGrowthGoalIsOnMachineInstructions() {
    BenchOptions o = BenchOptions.defaults().withTargets(List.of(new BenchTarget(8, Isa.AVX2)));
    // stencil: IR 50 -> 250 (5.00), machine code 100 -> 104 (1.04); mandelbrot: IR 20 -> 40 (2.00), machine code 30 -> 90 (3.00)
    List<KernelResult> rs = List.of(result("stencil", 8, "AVX2", 10, 5, 1, 50, 250, 100, 104),
        result("mandelbrot", 8, "AVX2", 10, 5, 1, 20, 40, 30, 90));
    BenchReport r = new BenchReport(o, new BenchReport.Host("test", 1, "25", false, 0), rs, List.of(), List.of(), List.of(), 1);
    BenchReport.Goal growth = r.goals().stream().filter(g -> g.goal().startsWith("code growth")).findFirst().orElseThrow();
    assertTrue(growth.goal().contains("machine instructions"), growth.goal());
    assertEquals(3.0, growth.actual(), 1e-9, "the largest machine-code ratio");
    assertFalse(growth.met());
    assertEquals(List.of("mandelbrot: W8/AVX2 3.00 (IR 2.00)"), growth.misses(), "stencil's IR ratio of 5 is not a miss");
    BenchReport.Geomean g = r.geomean(BenchReport.T8).orElseThrow();
    assertEquals(Math.sqrt(1.04 * 3.0), g.machineCodeGrowth(), 1e-9);
    assertEquals(Math.sqrt(5.0 * 2.0), g.codeGrowth(), 1e-9);
    String table = r.table();
    assertTrue(table.contains("50>250 (5.00)") && table.contains("100>104 (1.04)"), table);
    assertTrue(r.json().contains("\"machine_code_growth\" : 1.04"), r.json());
    // only stencil: met on machine code although its IR ratio is 5
    BenchReport s = new BenchReport(o, r.host(), rs.subList(0, 1), List.of(), List.of(), List.of(), 1);
    BenchReport.Goal g2 = s.goals().stream().filter(x -> x.goal().startsWith("code growth")).findFirst().orElseThrow();
    assertTrue(g2.met(), g2.toString());
    // not measured (0 machine instructions): a miss naming the kernel, never a pass
    BenchReport u = new BenchReport(o, r.host(), List.of(result("stencil", 8, "AVX2", 10, 5, 1, 50, 60, 0, 0)), List.of(), List.of(),
        List.of(), 1);
    BenchReport.Goal g3 = u.goals().stream().filter(x -> x.goal().startsWith("code growth")).findFirst().orElseThrow();
    assertFalse(g3.met());
    assertEquals(List.of("stencil: W8/AVX2 not measured (IR 1.20)"), g3.misses());
  }

  /** Labels, directives and comments are not instructions; only the named function's body counts. */
  @Test
  void machineInstructionCounterSkipsLabelsDirectivesAndComments() {
    String asm = String.join("\n",
        "\t.text",
        "\t.file\t\"k.ll\"",
        "\t.globl\tother                           # -- Begin function other",
        "other:                                  # @other",
        "\tretq",
        ".Lfunc_end0:",
        "\t.size\tother, .Lfunc_end0-other",
        "\t.globl\tk_simd8",
        "\t.p2align\t4, 0x90",
        "\t.type\tk_simd8,@function",
        "k_simd8:                                # @k_simd8",
        "\t.cfi_startproc",
        "# %bb.0:",
        "\tvmovups\t(%rdi), %ymm0",
        "\t# kill: def $edi killed $edi def $rdi",
        "",
        "\t.p2align\t4, 0x90",
        ".LBB1_1:                                # =>This Inner Loop Header: Depth=1",
        "\tvaddps\t%ymm0, %ymm0, %ymm0          # comment after an instruction",
        "\tdecl\t%esi",
        "\tjne\t.LBB1_1",
        "LBB1_3:                                  # a label without the ELF .L prefix (Mach-O style)",
        "# %bb.2:",
        "\tvzeroupper",
        "\tretq",
        ".Lfunc_end1:",
        "\t.size\tk_simd8, .Lfunc_end1-k_simd8",
        "\t.cfi_endproc");
    assertEquals(6, MachineCode.countInstructions(asm, "k_simd8"));
    assertEquals(1, MachineCode.countInstructions(asm, "other"));
    assertThrows(IllegalArgumentException.class, () -> MachineCode.countInstructions(asm, "k_simd"));
    assertEquals(List.of(), MachineCode.callees(asm, "k_simd8"), "jne .LBB1_1 is a local branch");
  }

  /** A function's count takes in the module's functions it calls, not library calls nor the other roots. */
  @Test
  void machineInstructionCountsIncludeTheModulesCallees() {
    String ir = "declare float @sinf(float)\n"
        + "define internal float @half(float %x) noinline {\n  %y = fmul float %x, 5.0e-01\n  %z = call float @sinf(float %y)\n"
        + "  %w = fadd float %z, %x\n  ret float %w\n}\n"
        + "define float @k(float %x) {\n  %y = fadd float %x, 1.0\n  ret float %y\n}\n"
        + "define float @k_simd(float %x) {\n  %a = call float @half(float %x)\n  %b = call float @k(float %a)\n"
        + "  %c = fmul float %b, %a\n  ret float %c\n}\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "callees")) {
      String asm = MachineCode.assembly(m, "haswell");
      assertTrue(MachineCode.callees(asm, "k_simd").contains("half"), asm);
      var counts = MachineCode.count(m, "haswell", List.of("k", "k_simd"));
      assertEquals(MachineCode.countInstructions(asm, "k"), counts.get("k"), asm);
      assertEquals(MachineCode.countInstructions(asm, "k_simd") + MachineCode.countInstructions(asm, "half"), counts.get("k_simd"),
          "k_simd plus half, without sinf (not defined) and k (a root)\n" + asm);
    }
  }

  /**
   * The counter on real compiler output: a tiny function compiled for haswell, counted against the
   * lines the bundled llc writes for it that start with a tab and a lower-case letter (how llc
   * prints an instruction; directives start with a dot).
   */
  @Test
  void machineInstructionCounterAgreesWithLlcOnACompiledFunction() throws Exception {
    String ir = "define i32 @sum3(i32 %a, i32 %b, i32 %c) {\n  %x = add i32 %a, %b\n  %y = mul i32 %x, %c\n  ret i32 %y\n}\n"
        + "define i32 @first(i32 %a) {\n  ret i32 %a\n}\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "tiny")) {
      String asm = MachineCode.assembly(m, "haswell");
      var counts = MachineCode.count(m, "haswell", List.of("sum3", "first"));
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("asmcount");
      java.nio.file.Path ll = dir.resolve("tiny.ll"), s = dir.resolve("tiny.s");
      java.nio.file.Files.writeString(ll, ir);
      var r = BundledClang.locate().run(List.of("llc", "-O3", "-mcpu=haswell", ll.toString(), "-o", s.toString()), null);
      assertEquals(0, r.exitCode(), r.stderr());
      String llc = java.nio.file.Files.readString(s);
      for (String f : List.of("sum3", "first")) {
        // independently: the mnemonics llc writes for the function (lines of a tab and a lower-case letter)
        String body = llc.substring(llc.indexOf("\n" + f + ":"), llc.indexOf(".size\t" + f + ","));
        List<String> llcOps = body.lines().filter(l -> l.matches("\t[a-z].*")).map(l -> l.strip().split("\\s+")[0]).toList();
        String ours = asm.substring(asm.indexOf("\n" + f + ":"), asm.indexOf(".size\t" + f + ","));
        List<String> ourOps = ours.lines().filter(l -> l.matches("\t[a-z].*")).map(l -> l.strip().split("\\s+")[0]).toList();
        assertEquals(llcOps, ourOps, f + ": compiled as llc -O3 compiles it\nllc:\n" + body + "\nours:\n" + ours);
        assertEquals(ourOps.size(), (int) counts.get(f), f + " in\n" + ours);
      }
      // sum3: an add (lea) and a multiply and a return; first: a move and a return
      assertEquals(3, counts.get("sum3"), asm);
      assertEquals(2, counts.get("first"), asm);
    }
  }

  @Test
  void targetsParse() {
    List<BenchTarget> ts = BenchTarget.parseList("4:sse4.2, 8:avx2,16:avx512@znver4");
    assertEquals(3, ts.size());
    assertEquals("x86-64-v2", ts.get(0).isa().cpu());
    assertEquals("haswell", ts.get(1).isa().cpu());
    assertEquals("znver4", ts.get(2).isa().cpu());
    assertEquals("W16/AVX-512", ts.get(2).label());
    assertEquals(ts, BenchTarget.parseList(String.join(",", ts.stream().map(BenchTarget::spec).toList())));
    assertThrows(IllegalArgumentException.class, () -> BenchTarget.parseList("8"));
    assertThrows(IllegalArgumentException.class, () -> BenchTarget.parseList("3:avx2"));
    assertThrows(IllegalArgumentException.class, () -> BenchTarget.parseList("8:neon"));
  }

  @Test
  void generatedScalingFunctionsCompileForEverySegmentKind() {
    BundledClang clang = BundledClang.locate();
    for (String kind : ScalingBench.KINDS) {
      String c = ScalingBench.generate(3, 5, List.of(kind));
      byte[] bc = clang.compileToBitcode(c, "gen_" + kind + ".c", BundledClang.KERNEL_FLAGS);
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, kind)) {
        assertTrue(m.function("big").orElseThrow().instructionCount() > 5, kind);
      }
    }
    assertEquals(ScalingBench.generate(20, 9, ScalingBench.DEFAULT_MIX), ScalingBench.generate(20, 9, ScalingBench.DEFAULT_MIX));
  }
}
