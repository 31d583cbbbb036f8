package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.Manifest;

/**
 * Array drivers through the Java API (issue 17 §1): {@code PacketizerOptions.arrayDriver}, the
 * result's {@code driverFunction()}, JIT-compiled and called through the platform's C calling
 * convention (java.lang.foreign downcalls, not our trampolines), for every n from 0 to 3W+1; the
 * refusals leave the module unchanged.
 */
class ArrayDriverJitTest {
  static final Linker C = Linker.nativeLinker();

  @ParameterizedTest(name = "W={0} masked={1} loop wrapper={2}")
  @CsvSource({"4,false,false", "8,false,false", "16,false,false", "8,true,false", "16,false,true", "16,true,true"})
  void mandelbrotDriverMatchesTheScalarFunction(int w, boolean masked, boolean loop) throws Throwable {
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require("mandelbrot");
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      PacketizerOptions.Builder o = PacketizerOptions.builder().width(w).params("vvu").masked(masked)
          .verifyEachPhase(true).arrayDriver("map_*").remarks(remarks::add);
      // a width above the hardware width served by a loop wrapper around a 4-wide function (thesis 4.6)
      if (loop) o.wrapperMode(WrapperMode.LOOP).hardwareWidth(4);
      PacketizationResult r = new Packetizer(o.build()).run(m, "mandelbrot", "mandel_v" + w);
      if (loop) assertTrue(m.function("mandel_v" + w + ".n4").isPresent() && m.function("map_mandelbrot.n4").isEmpty());
      assertEquals("map_mandelbrot", r.driverFunction().orElseThrow());
      assertEquals("void map_mandelbrot(const float *x0, const float *y0, int32_t maxIter, int32_t *out, size_t n);",
          r.driver().orElseThrow().cDeclaration());
      // the automatic interleave count (issue 16) may run two W-lane chains per step (InterleaveTest)
      String maskedFn = r.driver().orElseThrow().maskedFunction();
      assertTrue(maskedFn.equals("mandel_v" + w + ".x2.masked") || maskedFn.equals(masked ? "mandel_v" + w : "mandel_v" + w + ".masked"), maskedFn);
      assertTrue(remarks.stream().anyMatch(x -> x.message().startsWith("array driver void map_mandelbrot(")), remarks.toString());
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("map_mandelbrot")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("mandelbrot")),
            FunctionDescriptor.of(JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_INT));
        Random rnd = new Random(17 + w);
        for (int n = 0; n <= 3 * w + 1; n++) {
          MemorySegment x = arena.allocate(JAVA_FLOAT, Math.max(1, n));
          MemorySegment y = arena.allocate(JAVA_FLOAT, Math.max(1, n));
          // guard elements after the n outputs must stay untouched
          MemorySegment out = arena.allocate(JAVA_INT, n + w);
          out.fill((byte) 0x5a);
          for (int i = 0; i < n; i++) {
            x.setAtIndex(JAVA_FLOAT, i, -2 + 3 * rnd.nextFloat());
            y.setAtIndex(JAVA_FLOAT, i, -1.5f + 3 * rnd.nextFloat());
          }
          driver.invokeExact(x, y, 150, out, (long) n);
          for (int i = 0; i < n; i++) {
            int want = (int) scalar.invokeExact(x.getAtIndex(JAVA_FLOAT, i), y.getAtIndex(JAVA_FLOAT, i), 150);
            assertEquals(want, out.getAtIndex(JAVA_INT, i), "n=" + n + " element " + i);
          }
          for (int i = n; i < n + w; i++) assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i), "n=" + n + ": guard " + i);
        }
      }
    }
  }

  static final String LINEAR = """
      define double @lin(double %x, i64 %i, ptr %base) {
      entry:
        %p = getelementptr double, ptr %base, i64 %i
        %v = load double, ptr %p
        %f = sitofp i64 %i to double
        %m = fmul double %x, %f
        %s = fadd double %m, %v
        ret double %s
      }
      """;

  @Test
  void linearIndexAndLinearPointerGiveElementIItsValue() throws Throwable {
    int w = 8;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(LINEAR, "lin.ll")) {
      // %i linear step -3 (element k sees i0 - 3k), %base linear step 8 bytes (element k sees base0 + 8k)
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vln3l8").arrayDriver(true).build())
          .run(m, "lin", "lin_v8");
      assertEquals("void lin_map(const double *x, int64_t i, void *base, double *out, size_t n);", r.driver().orElseThrow().cDeclaration());
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("lin_map")),
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("lin")),
            FunctionDescriptor.of(JAVA_DOUBLE, JAVA_DOUBLE, JAVA_LONG, ADDRESS));
        MemorySegment table = arena.allocate(JAVA_DOUBLE, 400);
        for (int i = 0; i < 400; i++) table.setAtIndex(JAVA_DOUBLE, i, i * 1.5 - 7);
        for (int n = 0; n <= 3 * w + 1; n++) {
          MemorySegment x = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
          MemorySegment out = arena.allocate(JAVA_DOUBLE, Math.max(1, n));
          for (int i = 0; i < n; i++) x.setAtIndex(JAVA_DOUBLE, i, i * 0.75 - 3);
          long i0 = 150;
          MemorySegment base0 = table.asSlice(8 * 20);
          driver.invokeExact(x, i0, base0, out, (long) n);
          for (int k = 0; k < n; k++) {
            double want = (double) scalar.invokeExact(x.getAtIndex(JAVA_DOUBLE, k), i0 - 3L * k, base0.asSlice(8L * k));
            assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(out.getAtIndex(JAVA_DOUBLE, k)),
                "n=" + n + " element " + k);
          }
        }
      }
    }
  }

  static final String SOA = """
      define void @scale(ptr %p, float %s) {
      entry:
        %v = load float, ptr %p
        %d = fmul float %v, %s
        store float %d, ptr %p
        ret void
      }
      define float @taken(float %x) {
      entry:
        ret float %x
      }
      define float @taken_map(float %x) {
      entry:
        ret float %x
      }
      """;

  @Test
  void refusalsNameTheProblemAndLeaveTheModuleUnchanged() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(SOA, "soa.ll")) {
      String before = m.toIr();
      PacketizationException e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(8).params("su").arrayDriver(true).build()).run(m, "scale", "scale_v8"));
      assertEquals(PacketizationException.Kind.UNSUPPORTED, e.kind());
      assertTrue(e.getMessage().contains("@scale") && e.getMessage().contains("struct-of-arrays pointer parameter %p (#0)"),
          e.getMessage());
      assertEquals(before, m.toIr());
      e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(8).params("v").arrayDriver("*_map").build()).run(m, "taken", "taken_v8"));
      assertEquals(PacketizationException.Kind.INVALID_INPUT, e.kind());
      assertTrue(e.getMessage().contains("@taken_map is already used"), e.getMessage());
      assertEquals(before, m.toIr());
    }
  }
}
