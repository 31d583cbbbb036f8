package org.packetizer.core.beyond;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;

/**
 * {@code half} ({@code _Float16}) as a varying type: {@code <W x half>} arithmetic, compares, fpext and
 * fptrunc, integer conversions, vector loads, stores and gathers ({@code beyond/half.c}, plain
 * {@code -O1}/{@code -O2}). Before: "parameter 0 of type half cannot be varying".
 *
 * <p>Run on the host with {@code -march=x86-64-v3}: F16C converts, the back end promotes the
 * arithmetic to float (this host, znver4, has no AVX-512 FP16). Without F16C the back end promotes
 * through libgcc's {@code __extendhfsf2}/{@code __truncsfhf2}, which the JIT does not link: that target
 * and AVX-512 FP16 (native {@code vdivph}, {@code vfmadd231ph}) are compiled to assembly, not run.
 */
class HalfTest {
  static final ValueDomain HALVES = new ValueDomain.Floats(-70000, 70000, true, true, true); // beyond half's range: infinities
  static final ValueDomain SMALL = ValueDomain.floats(-300, 300);

  static void assumeF16c() {
    assumeTrue(Llvm.hostCpuFeatures().contains("+f16c"),
        "SKIPPED LOUDLY: the host has no F16C, needed to run the x86-64-v3 code of this test (found: " + Llvm.hostCpuFeatures() + ")");
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("org.packetizer.core.beyond.AtomicsTest#widthsAndLevels")
  void halfArithmeticComparesConversionsAndMemory(int w, String opt) {
    assumeF16c();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "half.c", opt, "-march=x86-64-v3")) {
      AtomicsTest.checkBoth(m, "hmix", w, "vv", 10 + w, ParamSpec.varying(SMALL), ParamSpec.varying(SMALL));
      AtomicsTest.checkBoth(m, "hconv", w, "vv", 20 + w, ParamSpec.varying(HALVES), ParamSpec.varying(ValueDomain.floats(-1e5, 1e5)));
      AtomicsTest.checkBoth(m, "hcmp", w, "vv", 30 + w, ParamSpec.varying(HALVES), ParamSpec.varying(HALVES));
      AtomicsTest.checkBoth(m, "hfromint", w, "v", 40 + w, ParamSpec.varying(ValueDomain.ints(-100000, 100000)));
      AtomicsTest.checkBoth(m, "hbuf", w, "uul", 50 + w, ParamSpec.uniformPtr(ctx.halfType(), 16, Direction.INOUT),
          ParamSpec.uniformPtr(ctx.halfType(), 16, Direction.IN), ParamSpec.linear(1, ValueDomain.ints(0, 0)));
      assertTrue(m.function("hmix_v" + w).orElseThrow().print().contains("<" + w + " x half>"));
    }
  }

  /** Targets that promote half through libcalls (no F16C) or compute it natively (AVX-512 FP16) compile. */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void otherTargetsCompile(int w) {
    for (String march : new String[] {"x86-64", "sapphirerapids"}) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "half.c", "-O2", "-march=" + march)) {
        new Packetizer(PacketizerOptions.builder().width(w).params("vv").verifyEachPhase(true).build()).run(m, "hmix", "hmix_v" + w);
        String asm = assembly(m, march);
        if (march.equals("x86-64")) assertTrue(asm.contains("__extendhfsf2"), "promoted through libgcc");
        else assertTrue(asm.contains("vdivph") && asm.contains("vfmadd231ph"), "native FP16 vector divide and fused multiply-add");
      }
    }
  }

  static String assembly(LlvmModule m, String cpu) {
    try (TargetMachine tm = TargetMachine.create(Llvm.hostTriple(), cpu, "")) {
      BytePointer err = new BytePointer((org.bytedeco.javacpp.Pointer) null);
      LLVMMemoryBufferRef buf = new LLVMMemoryBufferRef();
      if (LLVMTargetMachineEmitToMemoryBuffer(tm.ref(), m.ref(), LLVMAssemblyFile, err, buf) != 0) {
        String msg = err.getString();
        LLVMDisposeMessage(err);
        fail("codegen for " + cpu + " failed: " + msg);
      }
      try {
        byte[] text = new byte[(int) LLVMGetBufferSize(buf)];
        LLVMGetBufferStart(buf).get(text);
        return new String(text, java.nio.charset.StandardCharsets.UTF_8);
      } finally {
        LLVMDisposeMemoryBuffer(buf);
      }
    }
  }
}
