package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.packetizer.core.check.BufferInit;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The emulated differential check is an oracle: hand-written packet functions for AArch64 and RISC-V
 * that are right pass; one wrong lane, one write past a buffer's end (a canary) and one far past it
 * (a guard page: the launcher dies under qemu) fail with a report naming the lane, the buffer or the
 * signal. Pointers cross into the emulated process as arguments (translated to its copies of the
 * buffers) and the functions' writes come back.
 */
class CrossCheckOracleTest {
  static final String SCALAR_MUL = """
      define float @f(float %x) {
        %r = fmul float %x, 2.0
        ret float %r
      }
      """;

  static CheckResult runMul(CrossTarget t, String body) {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr(SCALAR_MUL + "define <4 x float> @f4(<4 x float> %x) {\n" + body + "\n}\n", "mul")) {
      t.spec().applyTo(m);
      try (DifferentialCheck c = DifferentialCheck.builder(m, "f", "f4", 4).crossTarget(t).build()) {
        assertTrue(c.crossTarget().isPresent());
        return c.runMany(3, 42);
      }
    }
  }

  @Test
  void rightPacketFunctionPassesOnEveryTarget() {
    for (CrossTarget t : CrossTarget.standard()) {
      if (t.missing().isPresent()) {
        System.err.println("SKIPPED LOUDLY: " + t.name() + ": missing " + t.missing().get());
        continue;
      }
      CheckResult r = runMul(t, "  %r = fmul <4 x float> %x, splat (float 2.0)\n  ret <4 x float> %r");
      assertTrue(r.passed(), () -> t + ": " + r.report());
      assertEquals(4 * 3, r.lanesCompared(), t.name());
    }
  }

  @Test
  void wrongLaneIsFound() {
    CrossTarget t = CrossTests.require(CrossTarget.neon());
    CheckResult r = runMul(t, """
          %r = fmul <4 x float> %x, splat (float 2.0)
          %e = extractelement <4 x float> %x, i32 2
          %w = fadd float %e, 1.0
          %r2 = insertelement <4 x float> %r, float %w, i32 2
          ret <4 x float> %r2""");
    assertFalse(r.passed(), "lane 2 computes x+1 instead of 2x");
    assertEquals(2, r.firstDifferingLane(), r::report);
  }

  /**
   * A fixed-width packet function whose only vector-length statement is its own {@code vscale_range}
   * (as ScalableShim's, or clang's -mrvv-vector-bits=256 without +zvl256b): RISC-V V passes a {@code
   * <16 x float>} in a register group sized from the function's minimum VLEN, so the trampoline calling
   * it must assume the same VLEN (issue 18: before, it assumed VLEN 128 and passed the second vector in other registers).
   */
  @Test
  void riscvVectorArgumentsCrossTheTrampolineAtTheCalleesVectorLength() {
    CrossTarget rvv = CrossTests.require(CrossTarget.rvv(256));
    CrossTarget t = new CrossTarget(rvv.name(), new org.packetizer.core.api.TargetSpec(rvv.spec().triple(), "", "+v", 0),
        rvv.qemu(), rvv.qemuCpu(), rvv.sysroot(), rvv.gcc(), rvv.clangTarget());
    // two vector arguments: at VLEN 128 the first takes v8-v11 and the second v12-v15, at 256 v8-v9 and v10-v11
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        define float @f(float %x, float %y) {
          %m = fmul float %x, 2.0
          %r = fadd float %m, %y
          ret float %r
        }
        define <16 x float> @f16(<16 x float> %x, <16 x float> %y) vscale_range(4,4) {
          %m = fmul <16 x float> %x, splat (float 2.0)
          %r = fadd <16 x float> %m, %y
          ret <16 x float> %r
        }
        """, "muladd16")) {
      t.spec().applyTo(m);
      assertEquals(4L << 32 | 4L, m.function("f16").orElseThrow().enumAttributeValue("vscale_range").orElseThrow());
      try (DifferentialCheck c = DifferentialCheck.builder(m, "f", "f16", 16).crossTarget(t).build()) {
        CheckResult r = c.runMany(3, 42);
        assertTrue(r.passed(), r::report);
        assertEquals(16 * 3, r.lanesCompared());
      }
    }
  }

  static final String SCALAR_STORE = """
      define void @g(ptr %p, i32 %v) {
        store i32 %v, ptr %p
        ret void
      }
      """;

  static CheckResult runStore(CrossTarget t, String body) {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr(SCALAR_STORE + "define void @g4(ptr %p, <4 x i32> %v) {\n" + body + "\n}\n", "store")) {
      t.spec().applyTo(m);
      // p is linear: lane k writes the k-th int of one buffer of 4
      ParamSpec p = new ParamSpec.LinearPtr(ctx.i32(), 4, 4, ParamSpec.Direction.INOUT, BufferInit.zero());
      try (DifferentialCheck c = DifferentialCheck.builder(m, "g", "g4", 4)
          .params(p, new ParamSpec.Varying(null)).crossTarget(t).build()) {
        return c.runMany(2, 7);
      }
    }
  }

  @Test
  void writesThroughPointersComeBack() {
    for (CrossTarget t : CrossTarget.standard()) {
      if (t.missing().isPresent()) continue;
      CheckResult r = runStore(t, "  store <4 x i32> %v, ptr %p, align 4\n  ret void");
      assertTrue(r.passed(), () -> t + ": " + r.report());
      assertTrue(r.bytesCompared() >= 16, r::report);
      // a packet function that writes nothing differs in every lane's bytes
      CheckResult none = runStore(t, "  ret void");
      assertFalse(none.passed(), t.name() + ": the writes of the emulated run must reach the comparison");
    }
  }

  @Test
  void writePastTheEndHitsACanary() {
    CrossTarget t = CrossTests.require(CrossTarget.sve(512));
    CheckResult r = runStore(t, """
          store <4 x i32> %v, ptr %p, align 4
          %q = getelementptr i32, ptr %p, i64 4
          store i32 0, ptr %q
          ret void""");
    assertFalse(r.passed(), "the fifth int is past the buffer");
    assertTrue(r.report().toLowerCase().contains("canar") || r.report().contains("out of bounds"), r::report);
  }

  /**
   * The launcher maps each region (buffer and canaries, under a page here) between two PROT_NONE pages,
   * so one 4 KiB page past the buffer is inside the trailing guard page. (An offset of 64 KiB, used
   * before, could land in another mapping of the emulated process and then not fault.)
   */
  @Test
  void writeIntoAGuardPageIsReportedAsACrash() {
    CrossTarget t = CrossTests.require(CrossTarget.rvv(256));
    RuntimeException e = assertThrows(RuntimeException.class, () -> runStore(t, """
          %q = getelementptr i8, ptr %p, i64 4096
          store i32 0, ptr %q
          ret void"""));
    assertTrue(e.getMessage().contains("SIGSEGV") && e.getMessage().contains("qemu-riscv64"), e::getMessage);
  }

  static final String SCALAR_RECORD = """
      declare void @record(i32)
      define void @g(i32 %x) {
        %c = icmp sgt i32 %x, 0
        br i1 %c, label %t, label %e
      t:
        call void @record(i32 %x)
        %y = mul i32 %x, 3
        call void @record(i32 %y)
        br label %e
      e:
        ret void
      }
      """;

  /**
   * A packet version of {@code @g} that makes each active lane's calls lane by lane, lanes in reverse
   * order and the first calls of all lanes before the second ones (an interleaving the host check
   * accepts), leaving out lane {@code skip}'s second call (-1: none).
   */
  static String packetRecord(int skip) {
    StringBuilder b = new StringBuilder("define void @g4(<4 x i32> %x) {\nentry:\n  br label %a3\n");
    for (int pass = 0; pass < 2; pass++) {
      for (int k = 3; k >= 0; k--) {
        String id = pass + "_" + k;
        String next = k > 0 ? "a" + (k - 1) + (pass == 0 ? "" : "_1") : pass == 0 ? "a3_1" : "done";
        b.append(pass == 0 ? "a" + k : "a" + k + "_1").append(":\n");
        b.append("  %x").append(id).append(" = extractelement <4 x i32> %x, i32 ").append(k).append('\n');
        b.append("  %c").append(id).append(" = icmp sgt i32 %x").append(id).append(", 0\n");
        b.append("  br i1 %c").append(id).append(", label %t").append(id).append(", label %").append(next).append('\n');
        b.append("t").append(id).append(":\n");
        if (pass == 0) b.append("  call void @record(i32 %x").append(id).append(")\n");
        else if (k != skip) b.append("  %y").append(id).append(" = mul i32 %x").append(id).append(", 3\n  call void @record(i32 %y")
            .append(id).append(")\n");
        b.append("  br label %").append(next).append('\n');
      }
    }
    return b.append("done:\n  ret void\n}\n").toString();
  }

  static CheckResult runRecord(CrossTarget t, int skip) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(SCALAR_RECORD + packetRecord(skip), "record")) {
      t.spec().applyTo(m);
      try (DifferentialCheck c = DifferentialCheck.builder(m, "g", "g4", 4).params(new ParamSpec.Varying(null))
          .recordCalls("record", java.lang.foreign.FunctionDescriptor.ofVoid(java.lang.foreign.ValueLayout.JAVA_INT))
          .crossTarget(t).build()) {
        return c.runMany(6, 11);
      }
    }
  }

  /**
   * record(int) under qemu: the launcher defines it and logs the calls in order; the logs are compared
   * as the host's upcall logs are (the same calls with the same arguments, as often; lanes' calls may
   * interleave). A lane's missing call is found on AArch64 and RISC-V alike, naming the call and the lane.
   */
  @Test
  void recordedCallsAreComparedUnderQemu() {
    for (CrossTarget t : java.util.List.of(CrossTarget.neon(), CrossTarget.rvv(256))) {
      if (t.missing().isPresent()) {
        System.err.println("SKIPPED LOUDLY: " + t.name() + ": missing " + t.missing().get());
        continue;
      }
      CheckResult right = runRecord(t, -1);
      assertTrue(right.passed(), () -> t + ": " + right.report());
      CheckResult wrong = runRecord(t, 1);
      assertFalse(wrong.passed(), t.name() + ": lane 1's second record() call is missing");
      // (lanes with equal inputs make equal calls: the report names all the lanes that made it, lane 1 among them)
      assertTrue(wrong.report().contains("external call record(") && wrong.report().matches("(?s).*by lanes \\[([0-9, ]*, )?1[],].*"),
          wrong::report);
    }
  }

  /** A check under qemu records nothing but void record(int) (the launcher's), and says so. */
  @Test
  void otherRecordedExternalsAreRefusedUnderQemu() {
    CrossTarget t = CrossTests.require(CrossTarget.neon());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(SCALAR_MUL
        + "define <4 x float> @f4(<4 x float> %x) {\n  %r = fmul <4 x float> %x, splat (float 2.0)\n  ret <4 x float> %r\n}\n", "mul")) {
      t.spec().applyTo(m);
      UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> DifferentialCheck.builder(m, "f", "f4", 4)
          .recordCalls("trace", java.lang.foreign.FunctionDescriptor.ofVoid(java.lang.foreign.ValueLayout.JAVA_INT)).crossTarget(t).build());
      assertTrue(e.getMessage().contains("record(int)"), e::getMessage);
    }
  }
}
