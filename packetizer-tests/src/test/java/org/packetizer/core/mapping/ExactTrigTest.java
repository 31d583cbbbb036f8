package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The bit-exact vector sinf and cosf ({@link ExactTrig}, issue 16) in the default bit-exact mode,
 * through the JIT, against glibc's scalar functions on this machine, bit for bit.
 *
 * <ul>
 *   <li>{@link #millionsOfInputsAreGlibcsBits}: C compiled by the bundled clang at plain -O2 (sinf and
 *       cosf alone, a sine and cosine of one argument that clang fuses into sincosf, and a divergent
 *       branch whose two sides call them under partial masks), packetized with array drivers at W4
 *       (x86-64-v2, where the route is not taken and libm runs per lane, and haswell), W8 (haswell) and
 *       W16 (x86-64-v4); two million inputs per kernel
 *       (random bit patterns, random values in [-130, 130]) and the boundaries (multiples of pi/4 and
 *       neighbours, 2^-12, 0.75, 120, subnormals, zeros, infinities, NaN payloads), with a remainder
 *       so that the driver's last packet is masked; the reference is the scalar code compiled from the
 *       same source calling glibc.</li>
 *   <li>{@link #differentialWithGuardPages}: the project's differential check (scalar function once
 *       per lane vs packet function, every written byte, buffers between guard pages), masked.</li>
 *   <li>{@link #aDifferentLibmSwitchesTheVectorCodeOff}: the module's sinf replaced after packetizing
 *       by a "libm" that differs from glibc's on one probe input only (its SSE2 build would): the
 *       guard must notice and every lane must then get that libm's bits.</li>
 * </ul>
 */
class ExactTrigTest {
  static final Linker C = Linker.nativeLinker();

  static final String SOURCE = """
      float sinf(float);
      float cosf(float);
      float t_sin(float x) { return sinf(x); }
      float t_cos(float x) { return cosf(x); }
      float t_sc(float x) { return sinf(x) * 0.5f - cosf(x); }
      float t_branch(float x) { return x < 1.0f ? sinf(x * 3.0f) : cosf(x) + 2.0f; }
      void p_sc(float *p) { float a = p[0]; p[0] = sinf(a); p[1] = cosf(a); }
      void r_sin(const float *x, float *o, long n) { for (long i = 0; i < n; i++) o[i] = t_sin(x[i]); }
      void r_cos(const float *x, float *o, long n) { for (long i = 0; i < n; i++) o[i] = t_cos(x[i]); }
      void r_sc(const float *x, float *o, long n) { for (long i = 0; i < n; i++) o[i] = t_sc(x[i]); }
      void r_branch(const float *x, float *o, long n) { for (long i = 0; i < n; i++) o[i] = t_branch(x[i]); }
      """;

  static final List<String> KERNELS = List.of("sin", "cos", "sc", "branch");

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>(List.of(Arguments.of(4, "x86-64-v2"), Arguments.of(4, "haswell"), Arguments.of(8, "haswell")));
    a.add(Arguments.of(16, "x86-64-v4"));
    return a.stream();
  }

  static boolean hostRuns(String march) {
    String flags = cpuFlags();
    return switch (march) {
      case "haswell" -> flags.contains(" avx2") && flags.contains(" fma");
      case "x86-64-v4" -> flags.contains(" avx512f") && flags.contains(" avx512vl") && flags.contains(" avx512bw");
      default -> true;
    };
  }

  static String cpuFlags() {
    try {
      return " " + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/cpuinfo")).replace('\n', ' ') + " ";
    } catch (java.io.IOException e) {
      return "";
    }
  }

  /** The inputs: boundaries first, then random bit patterns and random values in [-130, 130]. */
  static float[] inputs(int randoms, long seed) {
    List<Float> b = new ArrayList<>();
    for (int q = -160; q <= 160; q++) {
      float m = (float) (q * (Math.PI / 4));
      for (int d = -2; d <= 2; d++) b.add(Float.intBitsToFloat(Float.floatToRawIntBits(m) + d));
    }
    int[] sp = {0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000, 0x39800000, 0x397fffff, 0x3f400000, 0x3f3fffff, 0x42f00000, 0x42efffff,
        0xc2f00000, 0xc2efffff, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001, 0x7fc12345,
        0x4b000000, 0x5f000000, 0x3f490fdb, 0x3fc90fdb, 0x38000000, 0x33800000};
    for (int v : sp) b.add(Float.intBitsToFloat(v));
    for (float p : ExactTrig.PROBES) b.add(p);
    Random r = new Random(seed);
    float[] x = new float[b.size() + 2 * randoms + 3]; // + 3: the driver's last packet is partial
    int k = 0;
    for (float v : b) x[k++] = v;
    while (k < x.length) {
      x[k++] = Float.intBitsToFloat(r.nextInt());
      if (k < x.length) x[k++] = (float) (r.nextDouble() * 260 - 130);
    }
    return x;
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void millionsOfInputsAreGlibcsBits(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): this host cannot run code for " + march);
    byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, "trig.c", List.of("-O2", "-march=" + march, "-nostdlibinc"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "trig.c")) {
      for (String k : KERNELS) {
        List<Remark> rem = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).params("v").arrayDriver("*_map").verifyEachPhase(true)
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).remarks(rem::add).build()).run(m, "t_" + k, "t_" + k + "_v" + w);
        long exact = rem.stream().filter(x -> x.kind() == Remark.Kind.VECTORIZED_CALL && x.message().contains("glibc's")).count();
        // without FMA and AVX2 in the target the route is not taken (ExactTrig.worthwhile): libm per lane
        int calls = k.equals("sc") || k.equals("branch") ? 2 : 1;
        assertEquals(march.equals("x86-64-v2") ? 0 : calls, exact, k + ": " + rem);
        assertTrue(rem.stream().noneMatch(x -> x.kind() == Remark.Kind.SCALARIZED_CALL), rem.toString());
      }
      float[] x = inputs(1_000_000, 16L * w + march.length());
      int n = x.length;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MemorySegment in = arena.allocate(4L * n, 64), got = arena.allocate(4L * n, 64), want = arena.allocate(4L * n, 64);
        MemorySegment.copy(x, 0, in, JAVA_FLOAT, 0, n);
        FunctionDescriptor fd = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        List<String> failures = new ArrayList<>();
        for (String k : KERNELS) {
          MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("t_" + k + "_map")), fd);
          MethodHandle ref = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("r_" + k)), fd);
          driver.invokeExact(in, got, (long) n);
          ref.invokeExact(in, want, (long) n);
          int bad = 0;
          for (int i = 0; i < n; i++) {
            int g = got.getAtIndex(JAVA_INT, i), e = want.getAtIndex(JAVA_INT, i);
            if (g != e && bad++ < 8) {
              failures.add(String.format("t_%s(%a = 0x%08x): glibc %a, packet %a", k, x[i], Float.floatToRawIntBits(x[i]),
                  Float.intBitsToFloat(e), Float.intBitsToFloat(g)));
            }
          }
          if (bad > 0) failures.add("t_" + k + ": " + bad + " of " + n + " differ");
        }
        assertTrue(failures.isEmpty(), "W=" + w + " " + march + ":\n" + String.join("\n", failures));
      }
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void differentialWithGuardPages(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): this host cannot run code for " + march);
    byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, "trig.c", List.of("-O2", "-march=" + march, "-nostdlibinc"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "trig.c")) {
      new Packetizer(PacketizerOptions.builder().width(w).params("v").masked(true).vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
          .build()).run(m, "t_branch", "t_branch_v");
      new Packetizer(PacketizerOptions.builder().width(w).params("v").masked(true).vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
          .build()).run(m, "p_sc", "p_sc_v");
      try (DifferentialCheck c = DifferentialCheck.builder(m, "t_branch", "t_branch_v", w)
          .params(ParamSpec.varying(), ParamSpec.mask()).build()) {
        CheckResult r = c.runMany(400, 5 + w);
        assertTrue(r.passed(), r.report());
      }
      try (DifferentialCheck c = DifferentialCheck.builder(m, "p_sc", "p_sc_v", w)
          .params(ParamSpec.varyingPtr(ctx.floatType(), 2, ParamSpec.Direction.INOUT), ParamSpec.mask()).build()) {
        CheckResult r = c.runMany(400, 9 + w);
        assertTrue(r.passed(), r.report());
      }
    }
  }

  /**
   * A "libm" whose sinf differs from glibc's on one probe input (0x1.1475b6p+4, where glibc's FMA and
   * SSE2 builds differ for cosf) and is glibc's (through sincosf) elsewhere: linked into the module
   * after packetizing, so that the scalar code and the helper's libm calls both reach it. The guard
   * must find the difference at the first call and send every active lane to it.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void aDifferentLibmSwitchesTheVectorCodeOff(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): this host cannot run code for " + march);
    byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, "trig.c", List.of("-O2", "-march=" + march, "-nostdlibinc"));
    String fake = """
        declare void @sincosf(float, ptr, ptr)
        define float @sinf(float %x) {
          %s = alloca float
          %c = alloca float
          call void @sincosf(float %x, ptr %s, ptr %c)
          %v = load float, ptr %s
          %probe = fcmp oeq float %x, 0x4031475B60000000
          %b = bitcast float %v to i32
          %b1 = xor i32 %b, 1
          %f = bitcast i32 %b1 to float
          %r = select i1 %probe, float %f, float %v
          ret float %r
        }
        """;
    // for x86-64-v2, the SSE2 build's helper on request: on this host glibc runs its FMA build, so its guard fails at once
    String was = System.setProperty("packetizer.exactTrigSse2", "true");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "trig.c")) {
      List<Remark> rem = new ArrayList<>();
      try {
        new Packetizer(PacketizerOptions.builder().width(w).params("v").arrayDriver("*_map").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
            .remarks(rem::add).build()).run(m, "t_sin", "t_sin_v");
      } finally {
        if (was == null) System.clearProperty("packetizer.exactTrigSse2");
        else System.setProperty("packetizer.exactTrigSse2", was);
      }
      assertTrue(rem.stream().anyMatch(x -> x.message().contains("glibc's")), rem.toString());
      try (LlvmModule f = ctx.parseIr(fake, "fake.ll")) {
        f.setTargetTriple(m.targetTriple());
        f.setDataLayout(m.dataLayoutString());
        m.link(f);
      }
      float[] x = inputs(20_000, 3);
      int n = x.length;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MemorySegment in = arena.allocate(4L * n, 64), got = arena.allocate(4L * n, 64), want = arena.allocate(4L * n, 64);
        MemorySegment.copy(x, 0, in, JAVA_FLOAT, 0, n);
        FunctionDescriptor fd = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        C.downcallHandle(MemorySegment.ofAddress(jit.lookup("t_sin_map")), fd).invokeExact(in, got, (long) n);
        C.downcallHandle(MemorySegment.ofAddress(jit.lookup("r_sin")), fd).invokeExact(in, want, (long) n);
        int bad = 0, probeSeen = 0;
        String first = null;
        for (int i = 0; i < n; i++) {
          int g = got.getAtIndex(JAVA_INT, i), e = want.getAtIndex(JAVA_INT, i);
          if (x[i] == 0x1.1475b6p+4f) probeSeen++;
          if (g != e && bad++ == 0) first = String.format("sinf(%a): this libm %a, packet %a", x[i], Float.intBitsToFloat(e), Float.intBitsToFloat(g));
        }
        assertTrue(probeSeen > 0);
        assertEquals(0, bad, "W=" + w + " " + march + ": the vector code stayed on with a different libm; first: " + first);
      }
    }
  }
}
