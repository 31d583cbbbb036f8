package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The guard's probe of the exact sinf/cosf compares the linked libm with constants (issue 16, code
 * growth: no copy of the fast path for the probe). A wrong constant would not give wrong results (the
 * guard would send every lane to libm) but would silently switch the vector code off, so:
 * <ul>
 *   <li>the fused build's tables are this host's libm bits (FFM calls of sinf and cosf), and the plain
 *       build's are its bits with {@code GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA} (a C program built
 *       by the bundled clang);</li>
 *   <li>the guard verifies at the first call: a counting stand-in for sinf (the test hook) is called
 *       once per probe and never for the 10,000 in-range lanes after it (W8, haswell).</li>
 * </ul>
 */
class ExactTrigProbeTableTest {
  static final Linker C = Linker.nativeLinker();
  @TempDir Path dir;

  @Test
  void fusedTablesAreTheLinkedLibmsBits() throws Throwable {
    Assumptions.assumeTrue(ExactTrigTest.hostRuns("haswell"), "SKIPPED (LOUD): no FMA+AVX2, glibc runs its plain build here");
    MethodHandle sin = C.downcallHandle(C.defaultLookup().find("sinf").orElseThrow(), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
    MethodHandle cos = C.downcallHandle(C.defaultLookup().find("cosf").orElseThrow(), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
    for (int i = 0; i < ExactTrig.PROBES.length; i++) {
      float x = ExactTrig.PROBES[i];
      assertEquals(ExactTrig.SIN_FUSED[i], Float.floatToRawIntBits((float) sin.invokeExact(x)), "sinf(" + Float.toHexString(x) + ")");
      assertEquals(ExactTrig.COS_FUSED[i], Float.floatToRawIntBits((float) cos.invokeExact(x)), "cosf(" + Float.toHexString(x) + ")");
    }
  }

  @Test
  void plainTablesAreThePlainBuildsBits() throws Exception {
    StringBuilder c = new StringBuilder("float sinf(float); float cosf(float); int printf(const char *, ...);\n");
    c.append("static volatile unsigned p[] = {");
    for (int i = 0; i < ExactTrig.PROBES.length; i++) c.append(i > 0 ? ", " : "").append(Float.floatToRawIntBits(ExactTrig.PROBES[i])).append("u");
    c.append("};\nstatic unsigned b(float f) { union { float f; unsigned u; } v; v.f = f; return v.u; }\n");
    c.append("int main(void) { for (int i = 0; i < ").append(ExactTrig.PROBES.length).append("; i++) { union { unsigned u; float f; } v; v.u = p[i];\n");
    c.append("  printf(\"%u %u\\n\", b(sinf(v.f)), b(cosf(v.f))); } return 0; }\n");
    Files.writeString(dir.resolve("probe.c"), c);
    BundledClang clang = BundledClang.locate();
    ProcessResult cc = clang.run(List.of("clang", "-O0", "-fno-builtin", "probe.c", "-o", "probe", "-lm"), dir);
    assertEquals(0, cc.exitCode(), cc.stderr());
    ProcessBuilder pb = new ProcessBuilder(dir.resolve("probe").toString()).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2,-FMA");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), out);
    String[] lines = out.strip().split("\n");
    assertEquals(ExactTrig.PROBES.length, lines.length, out);
    for (int i = 0; i < lines.length; i++) {
      String[] v = lines[i].strip().split(" ");
      String x = Float.toHexString(ExactTrig.PROBES[i]);
      assertEquals(ExactTrig.SIN_PLAIN[i], (int) Long.parseLong(v[0]), "plain sinf(" + x + ")");
      assertEquals(ExactTrig.COS_PLAIN[i], (int) Long.parseLong(v[1]), "plain cosf(" + x + ")");
    }
  }

  @Test
  void theGuardVerifiesAndOnlyTheProbesCallLibm() throws Throwable {
    Assumptions.assumeTrue(ExactTrigTest.hostRuns("haswell"), "SKIPPED (LOUD): this host cannot run code for haswell");
    byte[] bc = BundledClang.locate().compileToBitcode(ExactTrigTest.SOURCE, "trig.c", List.of("-O2", "-march=haswell", "-nostdlibinc"));
    String counting = """
        @calls = global i64 0
        declare float @sinf(float)
        define float @counting_sinf(float %x) {
          %n = atomicrmw add ptr @calls, i64 1 monotonic
          %r = call float @sinf(float %x)
          ret float %r
        }
        """;
    String key = LibmGuard.HOOK_PREFIX + "sinf";
    String was = System.setProperty(key, "counting_sinf");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "trig.c")) {
      try {
        new Packetizer(PacketizerOptions.builder().width(8).params("v").arrayDriver("*_map").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
            .build()).run(m, "t_sin", "t_sin_v");
      } finally {
        if (was == null) System.clearProperty(key);
        else System.setProperty(key, was);
      }
      try (LlvmModule f = ctx.parseIr(counting, "counting.ll")) {
        f.setTargetTriple(m.targetTriple());
        f.setDataLayout(m.dataLayoutString());
        m.link(f);
      }
      int n = 10_000;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MemorySegment in = arena.allocate(4L * n, 64), got = arena.allocate(4L * n, 64);
        java.util.Random r = new java.util.Random(5);
        for (int i = 0; i < n; i++) in.setAtIndex(JAVA_FLOAT, i, (float) (r.nextDouble() * 200 - 100));
        FunctionDescriptor fd = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        C.downcallHandle(MemorySegment.ofAddress(jit.lookup("t_sin_map")), fd).invokeExact(in, got, (long) n);
        long calls = MemorySegment.ofAddress(jit.lookup("calls")).reinterpret(8).get(JAVA_LONG, 0);
        assertEquals(ExactTrig.PROBES.length, calls, "libm calls: the probes only, then the vector code for every lane");
        MethodHandle sin = C.downcallHandle(C.defaultLookup().find("sinf").orElseThrow(), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
        for (int i = 0; i < n; i++) {
          float x = in.getAtIndex(JAVA_FLOAT, i);
          assertEquals(Float.floatToRawIntBits((float) sin.invokeExact(x)), Float.floatToRawIntBits(got.getAtIndex(JAVA_FLOAT, i)), "sinf(" + x + ")");
        }
      }
    }
  }
}
