package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Issue 16's code-growth goal under {@link PacketizerOptions.Optimize#SIZE}: the packet functions of
 * {@code beyond/optimize_size.c} (bundled clang -O2; Black-Scholes, binomial and sine/cosine shaped, in
 * the bit-exact mode), with the module's functions they call counted once, as the benchmark's asm
 * column counts them ({@link MachineCode#count}), are at most 2.5 times the scalar function's machine
 * instructions at W8 (haswell) and W16 (znver4). Optimized for speed the same functions are 3 to 8
 * times (the glibc-exact helpers); the test fails with {@code Optimize.SPEED}.
 */
class OptimizeForSizeGrowthTest {
  static LlvmModule compile(LlvmContext ctx, String resource) throws IOException {
    Path dir = Files.createTempDirectory("packetizer-size-");
    try (InputStream in = OptimizeForSizeGrowthTest.class.getResourceAsStream("/beyond/" + resource)) {
      assertNotNull(in, resource);
      Files.writeString(dir.resolve(resource), new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    BundledClang.locate().compileToBitcode(dir, Path.of(resource), Path.of("out.bc"), List.of("-O2", "-nostdlibinc"));
    LlvmModule m = ctx.load(Files.readAllBytes(dir.resolve("out.bc")), resource);
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) Files.delete(p);
    }
    Files.delete(dir);
    return m;
  }

  /** Machine instructions of {@code fn} and of its packet function (with the functions it calls) optimized for {@code o}. */
  static int[] counts(String fn, int w, String cpu, PacketizerOptions.Optimize o) throws IOException {
    return counts("optimize_size.c", fn, "vvv", w, cpu, o);
  }

  /** {@link #counts(String, int, String, PacketizerOptions.Optimize)} for {@code fn} of {@code resource} with parameter kinds {@code params}. */
  static int[] counts(String resource, String fn, String params, int w, String cpu, PacketizerOptions.Optimize o) throws IOException {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, resource)) {
      for (var f : m.functions()) {
        if (f.isDeclaration()) continue;
        f.removeStringAttribute("target-features");
        f.setStringAttribute("target-cpu", cpu);
      }
      String simd = fn + "_simd" + w;
      new Packetizer(PacketizerOptions.builder().width(w).params(params).targetCpu(cpu)
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).optimize(o).build()).run(m, fn, simd);
      String asm = MachineCode.assembly(m, cpu);
      Map<String, Integer> n = MachineCode.count(asm, List.of(fn, simd));
      assertTrue(n.get(fn) > 0 && n.get(simd) > 0, asm);
      return new int[] {n.get(fn), n.get(simd)};
    }
  }

  /**
   * Every function meets the 2.5 goal under SIZE (W8: price 78 / 35, tree 61 / 33, ray 63 / 31; for speed
   * 428, 520 and 406) and is smaller than under SPEED. ray, whose scalar body is little more than its
   * libm calls, needs its sine and cosine of one argument in one lane loop (two loops: 85, 2.74 times).
   */
  @Test
  void sizeModeMeetsTheCodeGrowthGoal() throws IOException {
    for (String wc : List.of("8:haswell", "16:znver4")) {
      int w = Integer.parseInt(wc.split(":")[0]);
      String cpu = wc.split(":")[1];
      for (String fn : List.of("price", "tree", "ray")) {
        int[] size = counts(fn, w, cpu, PacketizerOptions.Optimize.SIZE);
        int[] speed = counts(fn, w, cpu, PacketizerOptions.Optimize.SPEED);
        String what = wc + " " + fn + ": " + size[1] + " machine instructions with the functions it calls optimized for size, " + speed[1]
            + " for speed, vs " + size[0] + " scalar";
        assertTrue(size[1] < speed[1], what);
        assertTrue(size[1] <= 2.5 * size[0], what);
      }
    }
  }

  /**
   * Functions whose packetized body stays above the goal whatever route their loads take (the stencil and
   * the byte loop of {@code beyond/size_lanes.c}, the benchmark's stencil and strhash shapes: W4/SSE4.2
   * 3.45 and 2.93 before, W16 8.65 and 11.04) meet it under SIZE at W4 (x86-64-v2), W8 (haswell) and W16
   * (znver4): their packet functions become a loop over the lanes running the scalar code
   * ({@code ScalarLanes}). Fails with {@code -Dpacketizer.sizeScalarLanes=false}.
   */
  @Test
  void overBudgetFunctionsMeetTheGoalAtEveryWidth() throws IOException {
    for (String wc : List.of("4:x86-64-v2", "8:haswell", "16:znver4")) {
      int w = Integer.parseInt(wc.split(":")[0]);
      String cpu = wc.split(":")[1];
      for (String fn : List.of("grid9", "fnv_bytes", "byte_classes")) {
        int[] size = counts("size_lanes.c", fn, "uvv", w, cpu, PacketizerOptions.Optimize.SIZE);
        int[] speed = counts("size_lanes.c", fn, "uvv", w, cpu, PacketizerOptions.Optimize.SPEED);
        String what = wc + " " + fn + ": " + size[1] + " machine instructions optimized for size, " + speed[1] + " for speed, vs "
            + size[0] + " scalar";
        assertTrue(speed[1] > 2.5 * speed[0], "the case no longer tests the rule: " + what);
        assertTrue(size[1] <= 2.5 * size[0], what);
      }
    }
  }
}
