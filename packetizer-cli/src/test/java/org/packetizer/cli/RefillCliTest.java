package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/** Issue 17 §2 through the command: {@code --refill[=on|auto|off]} with {@code --array-driver}, its remark, usage errors. */
class RefillCliTest {
  @TempDir Path dir;

  @Test
  void refillAndAutoReportTheirDecision() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("m.bc");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill (--refill) at the loop at %"), r.err());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(out)) {
      assertTrue(m.function("mandelbrot_map").map(f -> !f.isDeclaration()).orElse(false));
      // the refill driver does not use the plain driver's masked variant; its pieces are inlined
      assertTrue(m.function("mandelbrot_simd8.masked").isEmpty());
      assertTrue(m.functions().stream().noneMatch(f -> f.name().contains("__packetizer")), "no helper functions left");
    }
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=auto",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto)") && r.err().contains("the target has neither AVX-512 nor AVX2"), r.err());
    // the same function compiled for AVX-512: the adaptive driver
    Path in512 = dir.resolve("m512.bc");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(in)) {
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-cpu", "skylake-avx512");
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-features", "+avx512f,+avx512vl,+avx2,+avx,+fma");
      m.write(in512);
    }
    r = Cli.run(in512.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=auto",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill (--refill=auto) at the loop at %"), r.err());
    assertTrue(r.err().contains("--refill=auto: the driver runs epochs of 2048·W elements"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill", "--refill-batch", "3",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("a refill round when 3 of 8 lanes are free"), r.err());
    // the default batch: W/2 (measured best, docs/performance.md "Refill batch")
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill", "--remarks", "-o",
        out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("a refill round when 4 of 8 lanes are free"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=off",
        "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertFalse(r.err().contains("lane refill"), r.err());
  }

  /**
   * Scalable packets (vscale × W lanes, the count known only at run time) have no refill driver: {@code --refill} is
   * refused with an error naming the way out and nothing is written; {@code --refill=auto} keeps the scalable plain driver
   * and says so.
   */
  @Test
  void scalableDriversRefuseRefillAndAutoKeepsThePlainOne() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("s.ll");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "4", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--array-driver", "--refill", "--remarks", "-S", "-o", out.toString());
    assertNotEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill (--refill) is not built for scalable packets (--scalable)")
        && r.err().contains("--vector-bits N") && r.err().contains("mandelbrot"), r::toString);
    assertFalse(java.nio.file.Files.exists(out), "nothing written");
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "4", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--array-driver", "--refill=auto", "--remarks", "-S", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto): scalable packets"), r::toString);
    String ir = java.nio.file.Files.readString(out);
    assertTrue(ir.contains("define void @mandelbrot_map(") && ir.contains("@llvm.get.active.lane.mask.nxv4i1.i64"), ir);
    // with the vector length given, the refill driver is built (SVE compact)
    Path fixed = dir.resolve("f.ll");
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "16", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--vector-bits", "512", "--array-driver", "--refill", "--remarks", "-S", "-o", fixed.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill (--refill) at the loop at %") && r.err().contains("SVE compact"), r::toString);
  }

  @Test
  void usageErrors() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--refill");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--refill needs --array-driver"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--array-driver", "--refill=sometimes");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--refill=sometimes: expected on, auto or off"), r.err());
    r = Cli.run(in.toString(), "-f", "mandelbrot", "-w", "8", "--array-driver", "--refill-batch", "2");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--refill-batch needs --refill or --refill=auto"), r.err());
    for (String bad : new String[] {"0", "9"}) {
      r = Cli.run(in.toString(), "-f", "mandelbrot", "-w", "8", "--array-driver", "--refill", "--refill-batch", bad);
      assertEquals(2, r.code());
      assertTrue(r.err().contains("--refill-batch=" + bad + ": expected 1 to the width 8"), r.err());
    }
  }
}
