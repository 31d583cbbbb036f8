package org.packetizer.core.jit;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;

/** The JIT: compiling copies of modules, calling through trampolines, symbols, targets, lifecycle. */
class JitTest {

  private static LlvmModule parse(LlvmContext ctx, String ir) { return ctx.parseIr(ir, "jit-test.ll"); }

  @Test
  void scalarFloatAddFromText() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define float @add(float %a, float %b) {
               %s = fadd float %a, %b
               ret float %s
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      JitFunction add = jit.function("add");
      assertEquals(3.75f, (Float) add.call(1.5f, 2.25f));
      assertEquals(new JitType.F32(), add.returnType());
      assertEquals(List.of(new JitType.F32(), new JitType.F32()), add.paramTypes());
      assertNotEquals(0L, jit.lookup("add"));
      assertSame(add, jit.function("add"), "trampolines are built once");

      // the raw interface: slots of ARG_SLOT bytes, result memory
      try (Arena a = Arena.ofConfined()) {
        MemorySegment args = a.allocate(add.argsSize());
        MemorySegment res = a.allocate(add.resultSize());
        args.set(ValueLayout.JAVA_FLOAT, 0, -1f);
        args.set(ValueLayout.JAVA_FLOAT, Jit.ARG_SLOT, 0.25f);
        add.invoke(args, res);
        assertEquals(-0.75f, res.get(ValueLayout.JAVA_FLOAT, 0));
      }
    }
  }

  @Test
  void vectorParametersAndResults() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define <8 x float> @vmul(<8 x float> %a, <8 x float> %b) {
               %p = fmul <8 x float> %a, %b
               ret <8 x float> %p
             }
             define <4 x i32> @vaddi(<4 x i32> %a, <4 x i32> %b) {
               %s = add <4 x i32> %a, %b
               ret <4 x i32> %s
             }
             define <16 x double> @vneg(<16 x double> %a) {
               %n = fneg <16 x double> %a
               ret <16 x double> %n
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      float[] a = {1, 2, 3, 4, 5, 6, 7, 8};
      float[] b = {0.5f, -1, 2, 0, 10, 1e30f, -0f, 3};
      float[] p = (float[]) jit.function("vmul").call(a, b);
      for (int i = 0; i < 8; i++) assertEquals(a[i] * b[i], p[i], "lane " + i);

      int[] s = (int[]) jit.function("vaddi").call(new int[] {1, -2, Integer.MAX_VALUE, 7}, new int[] {10, 2, 1, -7});
      assertArrayEquals(new int[] {11, 0, Integer.MIN_VALUE, 0}, s);

      double[] d = new double[16];
      for (int i = 0; i < 16; i++) d[i] = i * 1.5 - 4;
      double[] nd = (double[]) jit.function("vneg").call((Object) d);
      for (int i = 0; i < 16; i++) assertEquals(-d[i], nd[i]);
    }
  }

  @Test
  void maskParametersAndResultsTravelAsBytes() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define <4 x i32> @blend(<4 x i1> %m, <4 x i32> %a, <4 x i32> %b) {
               %r = select <4 x i1> %m, <4 x i32> %a, <4 x i32> %b
               ret <4 x i32> %r
             }
             define <4 x i1> @less(<4 x float> %a, <4 x float> %b) {
               %c = fcmp olt <4 x float> %a, %b
               ret <4 x i1> %c
             }
             define i1 @notb(i1 %x) {
               %y = xor i1 %x, true
               ret i1 %y
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      JitFunction blend = jit.function("blend");
      assertEquals(new JitType.Vector(new JitType.Bool(), 4), blend.paramTypes().get(0));
      assertEquals(4, blend.paramTypes().get(0).size(), "one byte per lane");
      int[] r = (int[]) blend.call(new boolean[] {true, false, false, true}, new int[] {1, 2, 3, 4}, new int[] {-1, -2, -3, -4});
      assertArrayEquals(new int[] {1, -2, -3, 4}, r);

      // bytes with garbage upper bits: the trampoline truncs, only bit 0 counts
      try (Arena a = Arena.ofConfined()) {
        MemorySegment args = a.allocate(blend.argsSize());
        MemorySegment res = a.allocate(blend.resultSize());
        args.asSlice(0, 4).copyFrom(MemorySegment.ofArray(new byte[] {(byte) 0xFE, 1, 3, 0}));
        for (int k = 0; k < 4; k++) {
          args.set(ValueLayout.JAVA_INT, Jit.ARG_SLOT + 4L * k, k + 1);
          args.set(ValueLayout.JAVA_INT, 2L * Jit.ARG_SLOT + 4L * k, -(k + 1));
        }
        blend.invoke(args, res);
        assertArrayEquals(new int[] {-1, 2, 3, -4}, res.toArray(ValueLayout.JAVA_INT));
      }

      boolean[] lt = (boolean[]) jit.function("less").call(new float[] {1, 2, 3, Float.NaN}, new float[] {2, 2, 1, 0});
      assertArrayEquals(new boolean[] {true, false, false, false}, lt);
      assertEquals(Boolean.FALSE, jit.function("notb").call(true));
      assertEquals(Boolean.TRUE, jit.function("notb").call(false));
    }
  }

  @Test
  void structReturnsAndIntegerWidths() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             %Color = type { float, float, float }
             define %Color @gray(float %v) {
               %a = insertvalue %Color poison, float %v, 0
               %b = insertvalue %Color %a, float %v, 1
               %c = insertvalue %Color %b, float 1.0, 2
               ret %Color %c
             }
             define { i8, i64 } @pair(i8 signext %a, i16 zeroext %b, i64 %c) {
               %w = zext i16 %b to i64
               %s = add i64 %w, %c
               %x = insertvalue { i8, i64 } poison, i8 %a, 0
               %y = insertvalue { i8, i64 } %x, i64 %s, 1
               ret { i8, i64 } %y
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      JitFunction gray = jit.function("gray");
      assertEquals(12, gray.resultSize());
      assertArrayEquals(new Object[] {0.5f, 0.5f, 1.0f}, (Object[]) gray.call(0.5f));
      JitFunction pair = jit.function("pair");
      assertEquals(16, pair.resultSize());
      assertArrayEquals(new Object[] {(byte) -3, 65535L + 5}, (Object[]) pair.call(-3, 0xFFFF, 5L));
    }
  }

  @Test
  void libmCallsLink() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             declare float @sinf(float)
             declare double @exp(double)
             define float @s(float %x) {
               %r = call float @sinf(float %x)
               ret float %r
             }
             define double @e(double %x) {
               %r = call double @exp(double %x)
               ret double %r
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      JitFunction s = jit.function("s");
      for (float x : new float[] {0f, 0.5f, 1f, -2.5f, 3.14159f}) {
        assertEquals((float) Math.sin(x), (Float) s.call(x), Math.ulp((float) Math.sin(x)) * 2, "sinf(" + x + ")");
      }
      assertEquals(Math.exp(1.25), (Double) jit.function("e").call(1.25), 1e-15);
    }
  }

  @Test
  void libmvecVectorMathLinksWhenPresent() {
    Assumptions.assumeTrue(Jit.libmvecAvailable(), "libmvec.so.1 not present");
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             declare <4 x float> @_ZGVbN4v_sinf(<4 x float>)
             define <4 x float> @vsin(<4 x float> %x) {
               %r = call <4 x float> @_ZGVbN4v_sinf(<4 x float> %x)
               ret <4 x float> %r
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      float[] x = {0f, 0.5f, 1f, -2f};
      float[] r = (float[]) jit.function("vsin").call((Object) x);
      for (int i = 0; i < 4; i++) assertEquals((float) Math.sin(x[i]), r[i], 1e-6f, "lane " + i);
    }
  }

  @Test
  void unknownSymbolsGiveClearErrors() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define internal i32 @hidden(i32 %x) {
               ret i32 %x
             }
             define i32 @visible(i32 %x) {
               %r = call i32 @hidden(i32 %x)
               ret i32 %r
             }
             define i32 @varargs(i32 %x, ...) {
               ret i32 %x
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      LlvmException e = assertThrows(LlvmException.class, () -> jit.lookup("no_such_function"));
      assertTrue(e.getMessage().contains("no_such_function"), e.getMessage());
      LlvmException f = assertThrows(LlvmException.class, () -> jit.function("no_such_function"));
      assertTrue(f.getMessage().contains("@no_such_function") && f.getMessage().contains("visible"), f.getMessage());
      LlvmException h = assertThrows(LlvmException.class, () -> jit.function("hidden"));
      assertTrue(h.getMessage().contains("internal linkage"), h.getMessage());
      LlvmException v = assertThrows(LlvmException.class, () -> jit.function("varargs"));
      assertTrue(v.getMessage().contains("variadic"), v.getMessage());
      assertEquals(7, jit.function("visible").call(7));
    }
  }

  @Test
  void undefinedExternalIsReportedAtLookup() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             declare void @missing_callback(i32)
             define void @calls(i32 %x) {
               call void @missing_callback(i32 %x)
               ret void
             }
             """);
         Jit jit = Jit.host()) {
      jit.addModule(m);
      LlvmException e = assertThrows(LlvmException.class, () -> jit.function("calls"));
      assertTrue(e.getMessage().contains("missing_callback"), e.getMessage());
    }
  }

  @Test
  void callersModuleIsUnchangedAndStillUsable() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define i32 @twice(i32 %x) #0 {
               %r = shl i32 %x, 1
               ret i32 %r
             }
             attributes #0 = { "target-cpu"="x86-64" }
             """)) {
      byte[] before = m.toBitcode();
      String irBefore = m.toIr();
      try (Jit jit = Jit.host()) {
        jit.addModule(m);
        jit.addModule(parse(ctx, "define i32 @other() {\n ret i32 1\n}\n"));
        assertEquals(42, jit.function("twice").call(21));
      }
      try (Jit jit = Jit.forTarget("x86-64", "")) {
        jit.addModule(m, "haswell", "+avx2");
        assertEquals(8, jit.function("twice").call(4));
      }
      assertArrayEquals(before, m.toBitcode(), "bitcode unchanged");
      assertEquals(irBefore, m.toIr());
      assertTrue(m.function("twice").orElseThrow().stringAttribute("target-cpu").orElseThrow().equals("x86-64"));
      // still usable: extend it and JIT it again
      m.addFunction("declared_later", ctx.functionType(ctx.voidType(), List.of(), false));
      assertTrue(m.verify().isEmpty());
      try (Jit jit = Jit.host()) {
        jit.addModule(m);
        assertEquals(-6, jit.function("twice").call(-3));
      }
    }
  }

  @Test
  void lowerCpuStillRunsWideVectors() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define <16 x float> @fma16(<16 x float> %a, <16 x float> %b, <16 x float> %c) #0 {
               %p = fmul <16 x float> %a, %b
               %s = fadd <16 x float> %p, %c
               ret <16 x float> %s
             }
             attributes #0 = { "target-cpu"="znver4" "target-features"="+avx512f" }
             """);
         Jit jit = Jit.forTarget("x86-64", "-avx,-avx2,-avx512f")) {
      assertEquals("x86-64", jit.cpu());
      // The function asks for AVX-512 through its attributes; retargeted to plain x86-64 (SSE2) it
      // must still compute the same thing (split into four <4 x float> operations).
      jit.addModuleRetargeted(m);
      float[] a = new float[16], b = new float[16], c = new float[16];
      for (int i = 0; i < 16; i++) {
        a[i] = i;
        b[i] = 0.5f * i - 2;
        c[i] = 100 - i;
      }
      float[] r = (float[]) jit.function("fma16").call(a, b, c);
      for (int i = 0; i < 16; i++) assertEquals(a[i] * b[i] + c[i], r[i], "lane " + i);
    }
  }

  private static final List<Integer> RECORDED = new ArrayList<>();

  static void record(int x) { RECORDED.add(x); }

  @Test
  void upcallSymbolsReceiveCalls() throws Exception {
    RECORDED.clear();
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             declare void @record(i32)
             define i32 @emit(i32 %x) {
               call void @record(i32 %x)
               %y = mul i32 %x, 3
               call void @record(i32 %y)
               ret i32 %y
             }
             """);
         Jit jit = Jit.host()) {
      var h = MethodHandles.lookup().findStatic(JitTest.class, "record", MethodType.methodType(void.class, int.class));
      MemorySegment stub = jit.defineUpcall("record", h, FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
      assertNotEquals(0L, stub.address());
      jit.addModule(m);
      assertEquals(15, jit.function("emit").call(5));
      assertEquals(List.of(5, 15), RECORDED);
      assertEquals(stub.address(), jit.lookup("record"));
    }
  }

  @Test
  void manyJitsCreatedAndClosed() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, """
             define <4 x float> @sq(<4 x float> %a) {
               %p = fmul <4 x float> %a, %a
               ret <4 x float> %p
             }
             """)) {
      for (int i = 0; i < 40; i++) {
        Jit jit = i % 2 == 0 ? Jit.host() : Jit.forTarget("x86-64", "");
        try (jit) {
          if (i % 4 < 2) { // sometimes compile and call, sometimes close an unused JIT
            float[] r = (float[]) jit.function(addAndName(jit, m)).call((Object) new float[] {i, 2, 3, 4});
            assertEquals((float) i * i, r[0]);
          }
        }
        assertTrue(jit.isClosed());
      }
    }
  }

  private static String addAndName(Jit jit, LlvmModule m) {
    jit.addModule(m);
    return "sq";
  }

  @Test
  void closedJitRefusesUse() {
    JitFunction f;
    Jit jit = Jit.host();
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, "define i64 @id(i64 %x) {\n ret i64 %x\n}\n")) {
      jit.addModule(m);
      f = jit.function("id");
      assertEquals(9L, f.call(9L));
    }
    jit.close();
    jit.close(); // idempotent
    assertThrows(IllegalStateException.class, () -> f.call(1L));
    assertThrows(IllegalStateException.class, () -> jit.lookup("id"));
  }

  @Test
  void argumentErrorsAreJavaExceptions() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = parse(ctx, "define <4 x i32> @v(<4 x i32> %x) {\n ret <4 x i32> %x\n}\n");
         Jit jit = Jit.host()) {
      jit.addModule(m);
      JitFunction v = jit.function("v");
      assertThrows(IllegalArgumentException.class, () -> v.call());
      assertThrows(IllegalArgumentException.class, () -> v.call((Object) new int[] {1, 2, 3}));
      try (Arena a = Arena.ofConfined()) {
        assertThrows(IllegalArgumentException.class, () -> v.invoke(a.allocate(8), a.allocate(16)));
      }
      assertEquals("[1, 2, 3, 4]", Arrays.toString((int[]) v.call((Object) new int[] {1, 2, 3, 4})));
    }
  }
}
