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
    return onceRefusedNowRun("mem16", "mem08", "binomial", "mem28", "call12", "call02");
  }

  /**
   * Struct-of-arrays parameters (issue 18, third round): blocks of vscale × W elements per field, the
   * offsets scaled by llvm.vscale, so the check's N-lane layout (N = vscale × W) is the packet function's.
   * Kernels with one or several fields (mem02, fig417), fields of mixed sizes (mem51: i32, float, double),
   * array fields (mem36, mem37), nested structs (integrate, shade: two struct-of-arrays parameters).
   * All were refused before ("parameter #i is a struct-of-arrays pointer").
   */
  @TestFactory
  Stream<DynamicTest> structOfArraysKernelsRun() {
    return onceRefusedNowRun("mem02", "fig417", "mem51", "mem36", "mem37", "integrate", "shade");
  }

  /**
   * Per-lane calls without a packet version (a memset through each lane's own pointer, mem35; of a private
   * array, mem24): a loop over the vscale × W lanes with the lane as a variable index. Both were refused
   * before ("extractelement reads one lane").
   */
  @TestFactory
  Stream<DynamicTest> perLaneCallKernelsRun() {
    return onceRefusedNowRun("mem24", "mem35");
  }

  static Stream<DynamicTest> onceRefusedNowRun(String... kernels) {
    Manifest manifest = Manifest.load();
    return Stream.of(kernels).map(k -> DynamicTest.dynamicTest(k, () -> {
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

  /**
   * A call of a user function that has no packet version (here a variadic one, defined in the module, with a
   * side effect through the lane's own pointer) runs once per active lane in a loop over the vscale × 4
   * lanes (extractelement/insertelement at the variable lane). Before, it was refused ("extractelement
   * reads one lane": the call was unrolled for lanes 0..3). Checked under qemu at the four vector lengths,
   * with a divergent branch so that the loop skips inactive lanes (their buffers must stay untouched).
   */
  @Test
  void perLaneCallsOfUserFunctionsLoopOverTheVscaleLanes() throws Exception {
    String c = """
        #include <stdarg.h>
        __attribute__((noinline)) float wsum(float *out, int n, ...) {
          va_list ap;
          va_start(ap, n);
          float s = 0.0f;
          for (int i = 0; i < n; i++) s += (float) va_arg(ap, double) * (float) (i + 1);
          va_end(ap);
          *out += s;
          return s * 0.5f;
        }
        float k(float a, float b, float *p) {
          if (a > b) return wsum(p, 2, a, b) + 1.0f;
          return b;
        }
        """;
    for (Run run : runs()) {
      run.target().missing().ifPresent(miss -> {
        String msg = "SKIPPED LOUDLY: cannot run " + run.target().name() + " code here, missing " + miss;
        System.err.println(msg);
        Assumptions.abort(msg);
      });
      org.packetizer.core.toolchain.BundledClang clang = org.packetizer.core.toolchain.BundledClang.locate();
      byte[] bc = clang.compileToBitcode(c, "k.c", List.of("--target=" + run.target().spec().triple(), "-O2"));
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "k.c")) {
        run.target().spec().applyTo(m);
        List<String> remarks = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(W).params("vvv").scalable(true).verifyEachPhase(true)
            .remarks(r -> remarks.add(r.toString())).build()).run(m, "k", "k_vl");
        assertTrue(remarks.stream().anyMatch(r -> r.contains("vscale × 4 lanes")), remarks::toString);
        int n = ScalableShim.build(m, "k_vl", "k_vl.shim", W, run.vscale());
        List<ParamSpec> specs = List.of(new ParamSpec.Varying(null), new ParamSpec.Varying(null),
            new ParamSpec.VaryingPtr(ctx.floatType(), 1, ParamSpec.Direction.INOUT, org.packetizer.core.check.BufferInit.random()),
            new ParamSpec.Mask());
        try (DifferentialCheck check = DifferentialCheck.builder(m, "k", "k_vl.shim", n).params(specs).crossTarget(run.target())
            .build()) {
          CheckResult r = check.runMany(4, 0xCA11 + n);
          assertTrue(r.passed(), () -> run + ":\n" + r.report());
          assertTrue(r.lanesCompared() > 0 && r.bytesCompared() > 0, r::report);
        }
      } catch (org.packetizer.core.check.EmulatedCrashException crash) {
        if (!crash.getMessage().contains(CrossTargetKernelTest.QEMU_RVV_ASSERTION) || run.target().oldQemu().isEmpty()) throw crash;
        System.err.println("SKIPPED LOUDLY: " + run + ": qemu's RISC-V translator failed its own assertion (a bug of QEMU 7.2);"
            + " QEMU 10 was not available: " + run.target().oldQemu().get());
      }
    }
  }

  @Test
  void constantLanesOfUnrolledPerLaneCodeAreRefusedNamingTheInstruction() {
    // an atomic read-modify-write through each lane's own pointer is unrolled per lane (lanes 0..3): lanes 4 and
    // up of a scalable packet would be left out, so it is refused, naming the lane
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        define i32 @f(ptr %p, i32 %x) {
          %y = atomicrmw add ptr %p, i32 %x seq_cst
          ret i32 %y
        }
        """, "f")) {
      scalableSve(512).spec().applyTo(m);
      String before = m.toIr();
      PacketizationException x = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(W).params("vv").scalable(true).build()).run(m, "f", "f_vl"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, x.kind());
      assertTrue(x.getMessage().contains("scalable packets")
          && x.getMessage().matches("(?s).*(insertelement writes|extractelement reads) lane \\d.*"), x::getMessage);
      assertEquals(before, m.toIr());
    }
  }

  @Test
  void shufflesWrittenForWLanesAreRefusedNamingTheShuffle() {
    // an atomic add of varying values to one uniform address: a prefix scan over the 4 lanes in log2(4) shuffle
    // steps, which has no meaning at another lane count: refused, naming the shuffle
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        define i32 @f(ptr %p, i32 %x) {
          %y = atomicrmw add ptr %p, i32 %x seq_cst
          ret i32 %y
        }
        """, "f")) {
      scalableSve(512).spec().applyTo(m);
      String before = m.toIr();
      PacketizationException x = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(W).params("uv").scalable(true).build()).run(m, "f", "f_vl"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, x.kind());
      assertTrue(x.getMessage().contains("written for 4 lanes moves lanes") && x.getMessage().contains("shufflevector"), x::getMessage);
      assertEquals(before, m.toIr());
    }
  }
}
