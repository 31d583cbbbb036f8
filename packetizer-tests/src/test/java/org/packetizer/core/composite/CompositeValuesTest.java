package org.packetizer.core.composite;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Vector values ({@code <N x T>}) and aggregates in registers inside scalar functions: every case of
 * {@code src/test/resources/composite/*.ll} packetized at W = 4, 8 and 16 (gathers and, for the
 * memory cases, the if-cascade too) and checked by differential execution, every lane.
 */
class CompositeValuesTest {
  static final int[] WIDTHS = {4, 8, 16};

  @TestFactory
  Stream<DynamicTest> cases() {
    List<DynamicTest> tests = new ArrayList<>();
    for (CompositeCases file : CompositeCases.all()) {
      for (CompositeCases.Case c : file.cases()) {
        for (int w : WIDTHS) {
          for (MemoryStrategy ms : MemoryStrategy.values()) {
            for (boolean prepare : new boolean[] {true, false}) {
              // the if-cascade only matters for memory; without the scalar clean-up the vector code reaches
              // the emitter exactly as written
              if (ms != MemoryStrategy.GATHER && (!prepare || !file.text().contains("ptr"))) continue;
              String name = file.file().getFileName() + " @" + c.function() + " W=" + w + " " + ms + (prepare ? "" : " unprepared");
              tests.add(DynamicTest.dynamicTest(name, () -> check(file, c, w, ms, prepare)));
            }
          }
          // masks as integer vectors (the default without AVX-512): repeated lane masks meet MaskDemotion
          tests.add(DynamicTest.dynamicTest(file.file().getFileName() + " @" + c.function() + " W=" + w + " integer masks",
              () -> check(file, c, w, MemoryStrategy.GATHER, true, IntegerMasks.ALWAYS)));
        }
      }
    }
    return tests.stream();
  }

  /**
   * The foreign path: C sources of the folder (small vector structs by value, GNU vector types, SSE
   * intrinsics) compiled by the bundled clang with plain {@code -O2} (SLP on) and {@code -O1}.
   */
  @TestFactory
  Stream<DynamicTest> compiledC() {
    List<DynamicTest> tests = new ArrayList<>();
    for (CompositeCases file : CompositeCases.all(".c")) {
      for (String opt : new String[] {"-O2", "-O1"}) {
        byte[][] bc = new byte[1][];
        for (CompositeCases.Case c : file.cases()) {
          for (int w : WIDTHS) {
            String name = file.file().getFileName() + " " + opt + " @" + c.function() + " W=" + w;
            tests.add(DynamicTest.dynamicTest(name, () -> {
              if (bc[0] == null) {
                bc[0] = BundledClang.locate().compileToBitcode(file.text(), file.file().getFileName().toString(), List.of(opt));
              }
              try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc[0], file.file().getFileName().toString())) {
                check(m, ctx, c, w, MemoryStrategy.GATHER, true);
              }
            }));
          }
        }
      }
    }
    return tests.stream();
  }

  static void check(CompositeCases file, CompositeCases.Case c, int w, MemoryStrategy ms, boolean prepare) {
    check(file, c, w, ms, prepare, IntegerMasks.NEVER);
  }

  static void check(CompositeCases file, CompositeCases.Case c, int w, MemoryStrategy ms, boolean prepare, IntegerMasks im) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(file.text(), file.file().getFileName().toString())) {
      check(m, ctx, c, w, ms, prepare, im);
    }
  }

  static void check(LlvmModule m, LlvmContext ctx, CompositeCases.Case c, int w, MemoryStrategy ms, boolean prepare) {
    check(m, ctx, c, w, ms, prepare, IntegerMasks.NEVER);
  }

  static void check(LlvmModule m, LlvmContext ctx, CompositeCases.Case c, int w, MemoryStrategy ms, boolean prepare, IntegerMasks im) {
      String packet = c.function() + "_simd";
      var opts = PacketizerOptions.builder().width(w).verifyEachPhase(true).memoryStrategy(ms)
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).integerMasks(im).prepareOptimize(prepare).params(CompositeCases.kinds(c)).build();
      new Packetizer(opts).run(m, c.function(), packet);
      try (DifferentialCheck check = DifferentialCheck.builder(m, c.function(), packet, w).params(CompositeCases.specs(c, ctx)).build()) {
        CheckResult r = check.runMany(60, 1234 + w);
        assertTrue(r.passed(), () -> r.report() + "\n" + m.toIr());
        assertTrue(r.lanesCompared() > 0, "no lane compared");
      }
  }

  static final String PROTOTYPE_IR = """
      define { <2 x float>, float } @norm(<2 x float> %xy, float %z, { float, i32 } %s) {
        %f = extractvalue { float, i32 } %s, 0
        %i = extractvalue { float, i32 } %s, 1
        %fi = sitofp i32 %i to float
        %k = fadd float %f, %fi
        %k0 = insertelement <2 x float> poison, float %k, i32 0
        %ks = shufflevector <2 x float> %k0, <2 x float> poison, <2 x i32> zeroinitializer
        %m = fmul <2 x float> %xy, %ks
        %zz = fmul float %z, %k
        %r0 = insertvalue { <2 x float>, float } poison, <2 x float> %m, 0
        %r = insertvalue { <2 x float>, float } %r0, float %zz, 1
        ret { <2 x float>, float } %r
      }
      declare { <8 x float>, <4 x float> } @norm_simd(<8 x float>, float, { float, i32 })
      declare { <8 x float>, <4 x float> } @norm_bad(<4 x float>, float, { float, i32 })
      """;

  /**
   * The thesis' declared-prototype rule with composite types: a parameter whose declared type is the
   * scalar type is uniform, one of the packet type ({@code <2 x float>} -> {@code <8 x float>}) varying;
   * the check infers the same kinds from the two signatures.
   */
  @org.junit.jupiter.api.Test
  void declaredPrototypeWithVectorsAndAggregates() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(PROTOTYPE_IR, "prototype.ll")) {
      var r = new Packetizer(PacketizerOptions.builder().width(4).verifyEachPhase(true).build()).run(m, "norm", "norm_simd");
      assertEquals(List.of(org.packetizer.core.api.ParamKind.VARYING, org.packetizer.core.api.ParamKind.UNIFORM,
          org.packetizer.core.api.ParamKind.UNIFORM), r.params());
      try (DifferentialCheck check = DifferentialCheck.builder(m, "norm", "norm_simd", 4).build()) {
        CheckResult res = check.runMany(50, 7);
        assertTrue(res.passed(), res::report);
      }
      byte[] before = m.toBitcode();
      var ex = assertThrows(org.packetizer.core.api.PacketizationException.class,
          () -> new Packetizer(PacketizerOptions.builder().width(4).build()).run(m, "norm", "norm_bad"));
      assertTrue(ex.getMessage().contains("it must be <8 x float> (varying) or <2 x float> (uniform)"), ex.getMessage());
      assertArrayEquals(before, m.toBitcode());
    }
  }

  /** Masked packet functions with vector and aggregate parameters and results; inactive lanes untouched. */
  @org.junit.jupiter.api.Test
  void maskedWithCompositeSignature() {
    for (int w : WIDTHS) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(PROTOTYPE_IR, "prototype.ll")) {
        new Packetizer(PacketizerOptions.builder().width(w).masked(true).verifyEachPhase(true).build()).run(m, "norm", "norm_m");
        try (DifferentialCheck check = DifferentialCheck.builder(m, "norm", "norm_m", w).build()) {
          CheckResult res = check.runMany(50, 11 + w);
          assertTrue(res.passed(), res::report);
        }
      }
    }
  }

  /** A hardware width below W: the loop wrapper cannot slice composite packets, AUTO packetizes directly. */
  @org.junit.jupiter.api.Test
  void wrapperFallsBackForCompositePackets() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(PROTOTYPE_IR, "prototype.ll")) {
      new Packetizer(PacketizerOptions.builder().width(16).hardwareWidth(4).verifyEachPhase(true).build()).run(m, "norm", "norm16");
      try (DifferentialCheck check = DifferentialCheck.builder(m, "norm", "norm16", 16).build()) {
        assertTrue(check.runMany(30, 3).passed());
      }
      byte[] before = m.toBitcode();
      var ex = assertThrows(org.packetizer.core.api.PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(16).hardwareWidth(4).wrapperMode(org.packetizer.core.api.WrapperMode.LOOP).build()).run(m, "norm", "norm16l"));
      assertTrue(ex.getMessage().contains("cannot slice varying vector or aggregate"), ex.getMessage());
      assertArrayEquals(before, m.toBitcode());
    }
  }

  /** The C form (cAbi) has no way to say "a struct of packets in registers": a clear refusal, module unchanged. */
  @org.junit.jupiter.api.Test
  void cAbiRefusesAggregateSignatures() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(PROTOTYPE_IR, "prototype.ll")) {
      m.setTargetTriple("x86_64-pc-linux-gnu");
      byte[] before = m.toBitcode();
      var ex = assertThrows(org.packetizer.core.api.PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(8).cAbi(true).build()).run(m, "norm", "norm_c"));
      assertEquals(org.packetizer.core.api.PacketizationException.Kind.UNSUPPORTED, ex.kind());
      assertTrue(ex.getMessage().contains("cannot express a packet function that takes or returns aggregates"), ex.getMessage());
      assertArrayEquals(before, m.toBitcode());
    }
  }
}
