package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Issue 17 §1 through the command: {@code --array-driver[=PATTERN]} adds the drivers, {@code --header
 * FILE} declares them in plain C (the header compiles with the bundled clang as C with -Wall -Werror
 * and as C++), and the usage errors are clear.
 */
class ArrayDriverCliTest {
  @TempDir Path dir;

  @Test
  void driversAndHeader() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("m.packet.bc");
    Path header = dir.resolve("mandel.h");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver=*_over",
        "--header", header.toString(), "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("array driver: void mandelbrot_over(const float *x0, const float *y0, int32_t maxIter,"
        + " int32_t *out, size_t n);"), r.err());
    String h = Files.readString(header);
    assertTrue(h.contains("void mandelbrot_over(const float *x0, const float *y0, int32_t maxIter, int32_t *out, size_t n);"), h);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(out)) {
      assertTrue(m.function("mandelbrot_over").map(f -> !f.isDeclaration()).orElse(false));
      assertTrue(m.function("mandelbrot_simd8.masked").isPresent());
    }
    // the header is plain C and C++: a translation unit using it compiles without warnings
    Files.writeString(dir.resolve("use.c"), "#include \"mandel.h\"\nvoid use(const float *x, const float *y, int32_t *o,"
        + " size_t n) { mandelbrot_over(x, y, 100, o, n); }\n");
    BundledClang clang = BundledClang.locate();
    clang.compileToBitcode(dir, Path.of("use.c"), Path.of("use.bc"), List.of("-O1", "-std=c11", "-Wall", "-Werror"));
    Files.copy(dir.resolve("use.c"), dir.resolve("use.cpp"));
    clang.compileToBitcode(dir, Path.of("use.cpp"), Path.of("usecpp.bc"), List.of("-O1", "-Wall", "-Werror"));
  }

  @Test
  void usageErrors() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--header", dir.resolve("x.h").toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--header needs --array-driver"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--array-driver=bad name");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--array-driver=bad name: expected a function name pattern"), r.err());
    assertFalse(Files.exists(dir.resolve("x.h")));
  }

  @Test
  void interleaveOption() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("m2.packet.bc");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--interleave", "2",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("interleave count 2 (16 elements per step as 2 chains of 8 lanes), forced by the interleave option"),
        r.err());
    assertTrue(r.err().contains("full packets call @mandelbrot_simd8.x2 (2 x 8 lanes), the remainder one masked"
        + " @mandelbrot_simd8.x2.masked"), r.err());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(out)) {
      assertTrue(m.function("mandelbrot_simd8.x2").isPresent() && m.function("mandelbrot_simd8.x2.masked").isPresent());
      assertTrue(m.function("mandelbrot_simd8.masked").isEmpty());
    }
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--interleave", "1",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("interleave count 1 (8 elements per step as one chain of 8 lanes), forced"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "--array-driver", "--interleave", "3");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--interleave=3: expected auto, 1, 2 or 4"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "--interleave", "2");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--interleave needs --array-driver"), r.err());
    // the refill driver interleaves too: two independent refill states per step
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill", "--interleave", "2",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("2 independent sets of 8 lanes, each with its own refill state"), r.err());
    assertTrue(r.err().contains("refill body: interleave count 2 (16 elements per step as 2 chains of 8 lanes), forced"), r.err());
  }
}
