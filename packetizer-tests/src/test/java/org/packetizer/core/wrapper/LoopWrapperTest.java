package org.packetizer.core.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.check.BufferInit;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.toolchain.Manifest;

/**
 * Differential tests of wrapper generation (thesis 4.6): the S-wide function, built as a LOOP over
 * the N-wide one or DIRECTly at S, against the scalar function, for S = 8..64 over N = 4 and 8, with
 * every parameter kind, divergent control, per-lane trip counts and masks. Plus the error cases.
 */
class LoopWrapperTest {
  static final ValueDomain SMALL = ValueDomain.floats(-2, 2);

  static String kernelsIr() {
    try (InputStream in = LoopWrapperTest.class.getResourceAsStream("/wrapper/kernels.ll")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The JIT target that matches a hardware width. */
  static String[] target(int n) {
    return n == 4 ? new String[] {"x86-64", "+sse4.2"} : new String[] {"haswell", "+avx2"};
  }

  /**
   * (S, N, mode): LOOP over every N &lt; S; DIRECT (which does not depend on N) at S = 8 and 64 on the
   * 4-wide target and S = 16 and 32 on the 8-wide one.
   */
  static Stream<Arguments> configs() {
    List<Arguments> out = new ArrayList<>();
    for (int s : new int[] {8, 16, 32, 64}) {
      for (int n : new int[] {4, 8}) if (n < s) out.add(Arguments.of(s, n, WrapperMode.LOOP));
      out.add(Arguments.of(s, s == 8 || s == 64 ? 4 : 8, WrapperMode.DIRECT));
    }
    return out.stream();
  }

  record Kernel(String name, String letters, List<ParamSpec> specs) {}

  static List<Kernel> kernels(LlvmContext ctx, int s) {
    Type f32 = ctx.floatType();
    Type color = ctx.structType(List.of(f32, f32, f32), false);
    BufferInit init = BufferInit.from(ValueDomain.floats(-1, 1));
    return List.of(
        new Kernel("mix", "vvul3", List.of(ParamSpec.varying(SMALL), ParamSpec.varying(SMALL),
            ParamSpec.uniform(ValueDomain.ints(0, 25)), ParamSpec.linear(3, ValueDomain.ints(-1000, 1000)))),
        new Kernel("color", "vvs", List.of(ParamSpec.varying(SMALL), ParamSpec.varying(SMALL),
            ParamSpec.soaPtr(color, 2, Direction.INOUT, init))),
        new Kernel("vptr", "vv", List.of(ParamSpec.varyingPtr(f32, 2, Direction.INOUT, init), ParamSpec.varying(SMALL))),
        new Kernel("lptr", "l4uv", List.of(ParamSpec.linearPtr(f32, s, 4, Direction.OUT), ParamSpec.uniformPtr(f32, 8,
            Direction.IN, init), ParamSpec.varying(ValueDomain.ints(90, 110)))));
  }

  @ParameterizedTest(name = "S={0} N={1} {2}")
  @MethodSource("configs")
  void agreesWithScalar(int s, int n, WrapperMode mode) {
    String[] t = target(n);
    for (boolean masked : new boolean[] {false, true}) {
      for (int ki = 0; ki < 4; ki++) {
        if (masked && ki >= 2) continue; // masks: the loop kernel and the struct-of-arrays one (skipped calls, copies)
        // one module per kernel, so that each check's JIT compiles only that kernel's functions
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
          Kernel k = kernels(ctx, s).get(ki);
          List<Remark> remarks = new ArrayList<>();
          PacketizerOptions o = PacketizerOptions.builder().width(s).params(k.letters()).masked(masked).hardwareWidth(n)
              .wrapperMode(mode).remarks(remarks::add).build();
          PacketizationResult r = new Packetizer(o).run(m, k.name(), k.name() + "_simd");
          assertEquals(s, r.width());
          assertEquals(mode == WrapperMode.LOOP, m.function(k.name() + "_simd.n" + n).isPresent(), k.name());
          assertEquals(mode == WrapperMode.LOOP, remarks.stream().anyMatch(x -> x.kind() == Remark.Kind.NOTE
              && x.message().contains("hardware width " + n)));
          for (Function f : m.functions()) {
            if (!f.isDeclaration() && !f.name().startsWith(k.name())) f.delete();
          }
          List<ParamSpec> specs = new ArrayList<>(k.specs());
          if (masked) specs.add(ParamSpec.mask());
          try (DifferentialCheck c = DifferentialCheck.builder(m, k.name(), k.name() + "_simd", s).params(specs)
              .target(t[0], t[1]).build()) {
            CheckResult res = c.runMany(s >= 32 ? 8 : 15, 7 + s + n);
            assertTrue(res.passed(), () -> k.name() + " S=" + s + " N=" + n + " " + mode + (masked ? " masked" : "") + ":\n"
                + res.report());
          }
        }
      }
    }
  }

  /**
   * The testdata kernels (real clang output, compiled for generic x86-64, so detection gives N = 4):
   * Mandelbrot (per-lane trip counts, uniform limit, int result), Fig 4.14 (nested loops, a Color
   * result through a struct-of-arrays pointer) and Fig 4.17 (divergent store into a struct-of-arrays
   * Color).
   */
  @ParameterizedTest(name = "{0} S={1}")
  @MethodSource("testdataConfigs")
  void testdataKernels(String kernel, int s) {
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require(kernel);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      String fn = e.function();
      String letters = String.join("", e.params().stream().map(Manifest.Param::letters).toList());
      assertEquals(4, HardwareWidth.forFunction(m.function(fn).orElseThrow()));
      new Packetizer(PacketizerOptions.builder().width(s).params(letters).wrapperMode(WrapperMode.LOOP).build())
          .run(m, fn, fn + "_simd");
      assertTrue(m.function(fn + "_simd.n4").isPresent());
      List<ParamSpec> specs = new ArrayList<>();
      Type f32 = ctx.floatType();
      for (Manifest.Param p : e.params()) {
        if (p.isSoa()) {
          boolean out = "out".equals(p.direction());
          specs.add(ParamSpec.soaPtr(ctx.structType(List.of(f32, f32, f32), false), p.count(),
              out ? Direction.OUT : Direction.INOUT, BufferInit.from(ValueDomain.floats(-1, 1))));
        } else {
          ValueDomain d = p.type().equals("float") ? ValueDomain.floats(p.lo(), p.hi())
              : ValueDomain.ints((long) p.lo(), (long) Math.min(p.hi(), 60));
          specs.add(p.isUniform() ? ParamSpec.uniform(d) : ParamSpec.varying(d));
        }
      }
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, fn + "_simd", s).params(specs).build()) {
        CheckResult res = c.runMany(20, 99);
        assertTrue(res.passed(), res::report);
      }
    }
  }

  static Stream<Arguments> testdataConfigs() {
    return Stream.of(Arguments.of("mandelbrot", 16), Arguments.of("fig414", 64), Arguments.of("fig417", 32));
  }

  // ---- error cases and rules ----

  @Test
  void widthNotAMultipleOfTheHardwareWidth() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
      String before = m.toIr();
      for (WrapperMode mode : new WrapperMode[] {WrapperMode.LOOP, WrapperMode.AUTO}) {
        Packetizer p = new Packetizer(PacketizerOptions.builder().width(16).params("vvul").hardwareWidth(6).wrapperMode(mode).build());
        PacketizationException ex = assertThrows(PacketizationException.class, () -> p.run(m, "mix", "mix_simd"));
        assertEquals(PacketizationException.Kind.INVALID_INPUT, ex.kind());
        assertTrue(ex.getMessage().contains("16 is not a multiple of the hardware width 6"), ex.getMessage());
        assertEquals(before, m.toIr());
      }
      // DIRECT does not use the hardware width
      new Packetizer(PacketizerOptions.builder().width(16).params("vvul").hardwareWidth(6).wrapperMode(WrapperMode.DIRECT).build())
          .run(m, "mix", "mix_simd");
      assertTrue(m.function("mix_simd").isPresent());
    }
  }

  @Test
  void soaParameterWithDynamicOffsetsIsRejectedInLoopMode() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
      String before = m.toIr();
      Packetizer loop = new Packetizer(PacketizerOptions.builder().width(16).params("suv").hardwareWidth(4)
          .wrapperMode(WrapperMode.LOOP).build());
      PacketizationException ex = assertThrows(PacketizationException.class, () -> loop.run(m, "dyn", "dyn_simd"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, ex.kind());
      assertTrue(ex.getMessage().contains("%c"), ex.getMessage());
      assertTrue(ex.getMessage().contains("--wrapper direct"), ex.getMessage());
      assertTrue(ex.getMessage().contains("%i"), ex.getMessage());
      assertEquals(before, m.toIr());

      // AUTO (at S/N = 8, where it would consider LOOP) falls back to DIRECT, which handles it
      new Packetizer(PacketizerOptions.builder().width(32).params("suv").hardwareWidth(4).build()).run(m, "dyn", "dyn_simd");
      assertFalse(m.function("dyn_simd.n4").isPresent());
      Type f32 = ctx.floatType();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "dyn", "dyn_simd", 32)
          .params(ParamSpec.soaPtr(ctx.structType(List.of(f32, f32, f32), false), 3, Direction.INOUT,
              BufferInit.from(ValueDomain.floats(-1, 1))), ParamSpec.uniform(ValueDomain.ints(0, 2)), ParamSpec.varying(SMALL))
          .build()) {
        CheckResult res = c.runMany(20, 5);
        assertTrue(res.passed(), res::report);
      }
    }
  }

  @Test
  void soaParameterPassedToACallee() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
      new Packetizer(PacketizerOptions.builder().width(16).params("vs").hardwareWidth(4).wrapperMode(WrapperMode.LOOP).build())
          .run(m, "viacall", "viacall_simd");
      assertTrue(m.function("viacall_simd.n4").isPresent());
      Type f32 = ctx.floatType();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "viacall", "viacall_simd", 16).params(ParamSpec.varying(SMALL),
          ParamSpec.soaPtr(ctx.structType(List.of(f32, f32, f32), false), 1, Direction.INOUT, BufferInit.from(SMALL)))
          .target("x86-64", "+sse4.2").build()) {
        CheckResult res = c.runMany(15, 21);
        assertTrue(res.passed(), res::report);
      }
    }
  }

  @Test
  void autoLoopsOnlyOverDivergentLoopsFromEightCalls() {
    assertEquals(WrapperMode.AUTO, PacketizerOptions.builder().build().wrapperMode());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
      // a divergent loop at S/N = 8: LOOP
      new Packetizer(PacketizerOptions.builder().width(32).params("vvul3").hardwareWidth(4).build()).run(m, "mix", "mix32");
      assertTrue(m.function("mix32.n4").isPresent());
      // the same at S/N = 4: DIRECT
      new Packetizer(PacketizerOptions.builder().width(32).params("vvul3").hardwareWidth(8).build()).run(m, "mix", "mix32b");
      assertFalse(m.function("mix32b.n8").isPresent());
      // no loop at S/N = 16: DIRECT, and the N-wide function AUTO tried is gone again
      List<String> before = m.functions().stream().map(Function::name).toList();
      new Packetizer(PacketizerOptions.builder().width(64).params("vvs").hardwareWidth(4).build()).run(m, "color", "color64");
      List<String> after = new ArrayList<>(m.functions().stream().map(Function::name).toList());
      after.removeAll(before);
      assertTrue(after.stream().allMatch(n -> n.equals("color64") || n.startsWith("llvm.")), after.toString());
      try (DifferentialCheck c = DifferentialCheck.builder(m, "mix", "mix32", 32).params(kernels(ctx, 32).get(0).specs())
          .target("x86-64", "+sse4.2").build()) {
        CheckResult res = c.runMany(10, 11);
        assertTrue(res.passed(), res::report);
      }
    }
  }

  @Test
  void widthsUpToTheHardwareWidthAreUnchanged() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(kernelsIr(), "kernels.ll")) {
      for (int s : new int[] {4, 8}) {
        new Packetizer(PacketizerOptions.builder().width(s).params("vvul").hardwareWidth(8).wrapperMode(WrapperMode.LOOP).build())
            .run(m, "mix", "mix" + s);
        assertTrue(m.function("mix" + s).isPresent());
        assertFalse(m.functions().stream().anyMatch(f -> f.name().startsWith("mix" + s + ".n")));
      }
    }
  }

  @Test
  void detectionFromTargetOptionsAndDeclaredPrototype() {
    String ir = kernelsIr() + """

        declare <16 x float> @mix_simd(<16 x float>, <16 x float>, i32, i32)
        define <16 x float> @user(<16 x float> %a) {
          %r = call <16 x float> @mix_simd(<16 x float> %a, <16 x float> %a, i32 3, i32 0)
          ret <16 x float> %r
        }
        """;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "kernels.ll")) {
      // the prototype says v, v, u, u; the options only give the target
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(16).targetCpu("haswell").targetFeatures("+avx2")
          .wrapperMode(WrapperMode.LOOP).build()).run(m, "mix", "mix_simd");
      assertEquals(List.of(ParamKind.VARYING, ParamKind.VARYING, ParamKind.UNIFORM, ParamKind.UNIFORM), r.params());
      Function w = m.function("mix_simd").orElseThrow();
      assertFalse(w.isDeclaration());
      assertTrue(m.function("mix_simd.n8").isPresent());
      try (DifferentialCheck c = DifferentialCheck.builder(m, "mix", "mix_simd", 16).params(ParamSpec.varying(SMALL),
          ParamSpec.varying(SMALL), ParamSpec.uniform(ValueDomain.ints(0, 20)), ParamSpec.uniform(ValueDomain.ints(-50, 50)))
          .build()) {
        CheckResult res = c.runMany(30, 3);
        assertTrue(res.passed(), res::report);
      }
    }
  }
}
