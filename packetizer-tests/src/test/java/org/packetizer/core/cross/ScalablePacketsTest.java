package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ScalableShim;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Scalable packets ({@code PacketizerOptions.scalable}): kernels packetized to {@code <vscale x 4 x T>}
 * with a predicate, compiled for SVE (vector-length agnostic) and RISC-V V, and checked under qemu at
 * several vector lengths (SVE 128, 256 and 512 bits: 4, 8 and 16 lanes; RVV VLEN 128 and 256: 8 and 16 lanes) through a
 * fixed-width shim ({@link ScalableShim}). Kernels that are not lane-wise must be refused with an
 * UNSUPPORTED error naming the instruction, the module unchanged.
 */
class ScalablePacketsTest {
  static final int W = 4;

  record Run(CrossTarget target, int vscale) {
    @Override public String toString() { return target.name() + " vscale=" + vscale; }
  }

  static List<Run> runs() {
    // RISC-V V: vscale = VLEN / 64 (VLEN 128: 8 lanes of <vscale x 4 x T>, VLEN 256: 16)
    return List.of(new Run(scalableSve(128), 1), new Run(scalableSve(256), 2), new Run(scalableSve(512), 4), new Run(scalableRvv(128), 2),
        new Run(scalableRvv(256), 4));
  }

  /** SVE without a fixed length at compile time (the scalable function is vector-length agnostic). */
  static CrossTarget scalableSve(int bits) {
    CrossTarget t = CrossTarget.sve(bits);
    return new CrossTarget(t.name(), new org.packetizer.core.api.TargetSpec(t.spec().triple(), "", "+neon,+sve", 0), t.qemu(),
        t.qemuCpu(), t.sysroot(), t.gcc(), t.clangTarget());
  }

  static CrossTarget scalableRvv(int bits) {
    CrossTarget t = CrossTarget.rvv(bits);
    return new CrossTarget(t.name(), new org.packetizer.core.api.TargetSpec(t.spec().triple(), "", "+v", 0), t.qemu(),
        t.qemuCpu(), t.sysroot(), t.gcc(), t.clangTarget());
  }

  @TestFactory
  Stream<DynamicTest> kernelsAsScalablePackets() {
    Manifest manifest = Manifest.load();
    boolean all = Boolean.getBoolean("packetizer.cross.all");
    List<DynamicTest> tests = new ArrayList<>();
    String f = System.getProperty("packetizer.test.filter");
    java.util.regex.Pattern filter = f == null ? null : java.util.regex.Pattern.compile(f);
    for (Manifest.Entry e : manifest.kernels()) {
      boolean picked = filter != null ? filter.matcher(e.name()).matches() : all || CrossTargetKernelTest.SLICE.contains(e.name());
      if (!picked) continue;
      tests.add(DynamicTest.dynamicTest(e.name(), () -> check(manifest, e)));
    }
    return tests.stream();
  }

  /** Counts of what happened over all kernels (printed by the last test). */
  static final Map<String, Integer> OUTCOMES = new TreeMap<>();

  static void check(Manifest manifest, Manifest.Entry e) {
    for (Run run : runs()) {
      run.target().missing().ifPresent(m -> {
        String msg = "SKIPPED LOUDLY: cannot run " + run.target().name() + " code here, missing " + m;
        System.err.println(msg);
        Assumptions.abort(msg);
      });
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
        run.target().spec().applyTo(m);
        String before = m.toIr();
        String simd = e.function() + "_vl";
        try {
          new Packetizer(PacketizerOptions.builder().width(W).params(KernelChecks.paramKinds(e)).scalable(true)
              .verifyEachPhase(true).build()).run(m, e.function(), simd);
        } catch (PacketizationException x) {
          assertEquals(PacketizationException.Kind.UNSUPPORTED, x.kind(), x::getMessage);
          assertTrue(x.getMessage().contains("scalable packets"), x::getMessage);
          assertEquals(before, m.toIr(), "a refused kernel leaves the module unchanged");
          synchronized (OUTCOMES) { OUTCOMES.merge("refused: " + reason(x.getMessage()), 1, Integer::sum); }
          System.err.println(e.name() + " " + run + ": " + x.getMessage().lines().findFirst().orElse(""));
          return;
        }
        Function f = m.function(simd).orElseThrow();
        assertTrue(f.functionType().toString().contains("<vscale x 4 x i1>"), f.functionType()::toString);
        int n = ScalableShim.build(m, simd, simd + ".shim", W, run.vscale());
        List<ParamSpec> specs = new ArrayList<>(KernelChecks.paramSpecs(e, m));
        specs.add(new ParamSpec.Mask());
        DifferentialCheck.Builder cb = DifferentialCheck.builder(m, e.function(), simd + ".shim", n).params(specs)
            .ulps(e.ulps()).crossTarget(run.target());
        CrossTargetKernelTest.recordIfCalled(m, cb);
        try (DifferentialCheck c = cb.build()) {
          CheckResult r = c.runMany(4, 0x5CA1AB1E + n);
          assertTrue(r.passed(), () -> e + " " + run + " on " + run.target().qemuDescription() + ":\n" + r.report());
        } catch (org.packetizer.core.check.EmulatedCrashException crash) {
          if (!crash.getMessage().contains(CrossTargetKernelTest.QEMU_RVV_ASSERTION) || run.target().oldQemu().isEmpty()) throw crash;
          // QEMU 10 could not be fetched (bin/fetch-qemu.sh) and QEMU 7.2 aborted in its own RISC-V translator
          String msg = "SKIPPED LOUDLY: " + e.name() + " " + run + ": qemu's RISC-V translator failed its own assertion"
              + " (a bug of QEMU 7.2); no verdict on the code. QEMU 10 was not available: " + run.target().oldQemu().get();
          System.err.println(msg);
          synchronized (OUTCOMES) { OUTCOMES.merge("no verdict (QEMU 7.2 RISC-V assertion)", 1, Integer::sum); }
          continue;
        }
        synchronized (OUTCOMES) { OUTCOMES.merge("passed", 1, Integer::sum); }
      }
    }
  }

  static String reason(String msg) {
    int i = msg.indexOf("scalable packets: ");
    String s = i < 0 ? msg : msg.substring(i + 18);
    int cut = s.indexOf(" (");
    return cut > 0 ? s.substring(0, cut) : s;
  }

  /**
   * Kernels refused before issue 18's second round, one per technique, all run at the four vector
   * lengths: lane numbers from llvm.stepvector (mem16: a linear pointer with step 8; mem08: lane 0 of a
   * linear index), per-lane private blocks sized vscale × W and per-lane loops for llvm.exp/llvm.pow
   * (binomial), scalable versions of callee packet functions (mem28), of the exact fmodf helper (call12),
   * per-lane loops for llvm.sin (call02).
   */
  @TestFactory
  Stream<DynamicTest> kernelsOnceRefusedNowRun() {
    Manifest manifest = Manifest.load();
    return Stream.of("mem16", "mem08", "binomial", "mem28", "call12", "call02").map(k -> DynamicTest.dynamicTest(k, () -> {
      Map<String, Integer> before;
      synchronized (OUTCOMES) { before = new TreeMap<>(OUTCOMES); }
      check(manifest, manifest.require(k));
      synchronized (OUTCOMES) {
        for (var e : OUTCOMES.entrySet()) {
          if (e.getKey().startsWith("refused")) {
            assertEquals(before.getOrDefault(e.getKey(), 0), e.getValue(), k + " is refused: " + e.getKey());
          }
        }
        assertTrue(OUTCOMES.getOrDefault("passed", 0) > before.getOrDefault("passed", 0), k + " ran at no vector length");
      }
    }));
  }

  @Test
  void mandelbrotRunsAtTwoVectorLengthsFromOneFunction() {
    check(Manifest.load(), Manifest.load().require("mandelbrot"));
  }

  @Test
  void spmdPacketWidthAndLaneIndexFollowVscale() {
    // pk_packet_width() is vscale × 4 lanes (a constant 4 would be silently wrong at any vector length but 128 bits),
    // pk_lane_index() is llvm.stepvector
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        declare i32 @pk_packet_width()
        declare i32 @pk_lane_index()
        define i32 @f(i32 %x) {
          %w = call i32 @pk_packet_width()
          %l = call i32 @pk_lane_index()
          %a = mul i32 %x, %w
          %r = add i32 %a, %l
          ret i32 %r
        }
        """, "f")) {
      scalableSve(512).spec().applyTo(m);
      new Packetizer(PacketizerOptions.builder().width(W).params("v").scalable(true).build()).run(m, "f", "f_vl");
      String ir = m.function("f_vl").orElseThrow().print();
      assertTrue(ir.contains("@llvm.vscale.i32()") && ir.contains("@llvm.stepvector.nxv4i32()"), ir);
      assertFalse(ir.contains("splat (i32 4)"), ir);
    }
  }

  @Test
  void scalarVectorsOfThePacketWidthAreRefused() {
    // an SLP-style <4 x float> of the scalar function itself: re-typed it would load and sum vscale × 4 floats
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        define float @f(float %x, ptr %p) {
          %v = load <4 x float>, ptr %p
          %s = call float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %v)
          %r = fadd float %x, %s
          ret float %r
        }
        declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
        """, "f")) {
      scalableSve(512).spec().applyTo(m);
      String before = m.toIr();
      PacketizationException x = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(W).params("vu").scalable(true).build()).run(m, "f", "f_vl"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, x.kind());
      assertTrue(x.getMessage().contains("vectors of 4 lanes itself") && x.getMessage().contains("load <4 x float>"), x::getMessage);
      assertEquals(before, m.toIr());
    }
  }

  @Test
  void laneNumbersAreRefusedNamingTheInstruction() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        declare float @g(float)
        define float @f(float %x) {
          %y = call float @g(float %x)
          ret float %y
        }
        """, "f")) {
      scalableSve(512).spec().applyTo(m);
      String before = m.toIr();
      PacketizationException x = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(W).params("v").scalable(true).build()).run(m, "f", "f_vl"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, x.kind());
      assertTrue(x.getMessage().contains("scalable packets") && x.getMessage().contains("lane"), x::getMessage);
      assertEquals(before, m.toIr());
    }
  }
}
