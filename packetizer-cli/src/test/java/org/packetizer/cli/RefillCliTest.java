package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
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
    // the generic bitcode compiled for AVX-512 by the command line: the rule reads --target-features (which become the
    // packet function's attributes), not the function's own generic features
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=auto",
        "--target-cpu", "skylake-avx512", "--target-features", "+avx512f,+avx512vl,+avx2,+avx,+fma", "--remarks", "-o",
        out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill (--refill=auto) at the loop at %"), r.err());
    assertTrue(r.err().contains("--refill=auto: the driver runs epochs of 2048·W elements"), r.err());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(out)) {
      assertEquals("+avx512f,+avx512vl,+avx2,+avx,+fma",
          m.function("mandelbrot_map").orElseThrow().stringAttribute("target-features").orElse(""));
    }
    // the generic bitcode retargeted by --target-cpu alone: the rule reads the features the CPU implies (its own
    // attribute keeps the bitcode's baseline features), the AVX-512 route (vpexpand) on znver4, the AVX2 one on haswell
    for (String cpu : List.of("znver4", "haswell")) {
      r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "16", "--array-driver", "--refill=auto",
          "--target-cpu", cpu, "--remarks", "-S", "-o", dir.resolve(cpu + ".ll").toString());
      assertEquals(0, r.code(), r.err());
      assertTrue(r.err().contains("lane refill (--refill=auto) at the loop at %"), cpu + ": " + r.err());
      assertTrue(r.err().contains(cpu.equals("znver4") ? "a paired trial" : "a trial of three timed chunks"), cpu + ": " + r.err());
      String ll = java.nio.file.Files.readString(dir.resolve(cpu + ".ll"));
      assertEquals(cpu.equals("znver4"), ll.contains("llvm.x86.avx512.mask.expand"), cpu);
    }
    // an AVX-only CPU: still the plain driver
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=auto",
        "--target-cpu", "ivybridge", "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto)") && r.err().contains("the target has neither AVX-512 nor AVX2"), r.err());
    // and --target-features naming neither AVX-512 nor AVX2 keeps the plain driver for a function compiled for AVX-512
    r = Cli.run(in512.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--array-driver", "--refill=auto",
        "--target-cpu", "x86-64-v2", "--target-features", "+sse4.2,+sse4.1,+ssse3", "--remarks", "-o", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto)") && r.err().contains("the target has neither AVX-512 nor AVX2"), r.err());
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
   * Scalable packets (vscale × W lanes, the count known only at run time): {@code --refill} builds the scalable refill
   * driver (SVE compact, cntp, splice for the 64-bit element indices at W = 4; on RISC-V V vcompress and vcpop at W = 2,
   * 4, 8); what it is not built for — on SVE a width other than 2 or 4, on RVV one above 8, a function without SVE or V,
   * another target, an interleave count — is refused with an error naming the way out and nothing is written;
   * {@code --refill=auto} keeps the scalable plain driver and says why (on SVE and on RVV); with the vector length given
   * the fixed-length refill driver is built.
   */
  /**
   * The refill rule's registers and latencies for the bundled strhash (generic bitcode: target-cpu x86-64, baseline
   * features) retargeted by {@code --target-cpu} alone (eighteenth round): the AVX-512 CPUs give 32 vector registers,
   * haswell 16; Intel's 10-cycle vpmulld makes the FNV recurrence 11 cycles and the refill body two chains, znver4's
   * 3-cycle one keeps one chain (its decision as before).
   */
  @Test
  void aTargetCpuAloneGivesTheRefillRuleItsRegistersAndLatencies() throws Exception {
    Path in = Cli.bundled(dir, "strhash");
    Path out = dir.resolve("strhash.o");
    for (String[] c : List.of(new String[] {"sapphirerapids", "32", "11.0", "2"}, new String[] {"skylake-avx512", "32", "11.0", "2"},
        new String[] {"znver4", "32", "4.0", "1"}, new String[] {"haswell", "16", "11.0", "2"})) {
      Cli.Run r = Cli.run(in.toString(), "-f", "strhash", "--params", "uvv", "-w", "8", "--array-driver", "--refill", "--target-cpu", c[0],
          "--remarks", "-o", out.toString());
      assertEquals(0, r.code(), r.err());
      String note = r.err().lines().filter(x -> x.contains("interleave count") && x.contains("recurrence latency")).findFirst()
          .orElseThrow(() -> new AssertionError(c[0] + ": " + r.err()));
      assertTrue(note.contains("of " + c[1] + " vector registers at IC 2"), c[0] + ": " + note);
      assertTrue(note.contains("recurrence latency " + c[2] + " cycles"), c[0] + ": " + note);
      assertTrue(note.endsWith("-> IC " + c[3]) || note.contains("-> IC " + c[3] + " "), c[0] + ": " + note);
      assertTrue(r.err().contains(c[3].equals("1") ? "interleave count 1 (8 elements" : "interleave count 2 (16 elements"), c[0]);
    }
  }

  @Test
  void scalableDriversBuildRefillAndRefuseWhatIsNotSupported() throws Exception {
    Path in = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("s.ll");
    Cli.Run r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "4", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--array-driver", "--refill", "--remarks", "-S", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill (--refill) at the loop at %") && r.err().contains("vscale x 4 lanes (the vector length"
        + " read at run time)") && r.err().contains("SVE compact"), r::toString);
    String ir = java.nio.file.Files.readString(out);
    assertTrue(ir.contains("define void @mandelbrot_map(") && ir.contains("@llvm.aarch64.sve.compact.nxv4i32")
        && ir.contains("@llvm.aarch64.sve.splice.nxv2i64") && ir.contains("@llvm.aarch64.sve.cntp.nxv4i1")
        && !ir.contains("@llvm.get.active.lane.mask.nxv4i1.i64(i64 %i, i64 %n)"), ir);
    // not supported: refused, nothing written
    String[][] refused = {
        {"8", "aarch64-linux-gnu", "+sve", "it is built for widths 2 and 4 (-w 8 given)"},
        {"16", "riscv64-linux-gnu", "+v", "on RISC-V V it is built for widths 2, 4 and 8 (-w 16 given)"},
        {"4", "aarch64-linux-gnu", "+neon", "is not compiled with +sve"}};
    for (String[] c : refused) {
      Path o = dir.resolve("refused-" + c[0] + c[2] + ".ll");
      r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", c[0], "--target-triple", c[1], "--target-features",
          c[2], "--scalable", "--array-driver", "--refill", "--remarks", "-S", "-o", o.toString());
      assertNotEquals(0, r.code(), r::toString);
      assertTrue(r.err().contains("lane refill (--refill) for scalable packets (--scalable): ") && r.err().contains(c[3])
          && r.err().contains("mandelbrot"), r::toString);
      assertFalse(java.nio.file.Files.exists(o), "nothing written");
    }
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "4", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--array-driver", "--refill", "--interleave", "2", "--remarks", "-S", "-o",
        dir.resolve("ic.ll").toString());
    assertNotEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("it runs one set of lanes (--interleave 2 given"), r::toString);
    // RISC-V V: vcompress (one per value at its own width: the 64-bit index of W = 8 is one register group) and vcpop
    Path rv = dir.resolve("rv.ll");
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--target-triple", "riscv64-linux-gnu",
        "--target-features", "+v", "--scalable", "--array-driver", "--refill", "--remarks", "-S", "-o", rv.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill (--refill) at the loop at %") && r.err().contains("vscale x 8 lanes")
        && r.err().contains("RVV vcompress, the count by vcpop"), r::toString);
    ir = java.nio.file.Files.readString(rv);
    assertTrue(ir.contains("define void @mandelbrot_map(") && ir.contains("@llvm.experimental.vector.compress.nxv8i64")
        && ir.contains("@llvm.experimental.vector.compress.nxv8f32") && ir.contains("@llvm.riscv.vcpop.nxv8i1.i64")
        && !ir.contains("aarch64"), ir);
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "8", "--target-triple", "riscv64-linux-gnu",
        "--target-features", "+v", "--scalable", "--array-driver", "--refill=auto", "--remarks", "-S", "-o", rv.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto): ") && r.err().contains("not timed on RISC-V V hardware"),
        r::toString);
    assertFalse(java.nio.file.Files.readString(rv).contains("vector.compress"), "the plain scalable driver");
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "4", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--array-driver", "--refill=auto", "--remarks", "-S", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill not chosen (--refill=auto): the rule chooses refill only where it was measured"),
        r::toString);
    ir = java.nio.file.Files.readString(out);
    assertTrue(ir.contains("define void @mandelbrot_map(") && ir.contains("@llvm.get.active.lane.mask.nxv4i1.i64")
        && !ir.contains("sve.compact"), ir);
    // with the vector length given, the fixed-length refill driver is built (SVE compact)
    Path fixed = dir.resolve("f.ll");
    r = Cli.run(in.toString(), "-f", "mandelbrot", "--params", "vvu", "-w", "16", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--vector-bits", "512", "--array-driver", "--refill", "--remarks", "-S", "-o", fixed.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill (--refill) at the loop at %") && r.err().contains("SVE compact, 512-bit"), r::toString);
  }

  /** A scalable function whose refill cannot be built (no loop) gets the plain scalable driver with a remark. */
  @Test
  void scalableRefillOfAFunctionWithoutLoopKeepsThePlainDriver() throws Exception {
    Path src = dir.resolve("k.ll");
    java.nio.file.Files.writeString(src, """
        target triple = "aarch64-unknown-linux-gnu"
        define float @axpy(float %x, float %y) #0 {
          %m = fmul float %x, 2.5
          %r = fadd float %m, %y
          ret float %r
        }
        attributes #0 = { "target-features"="+sve" }
        """);
    Path out = dir.resolve("k.out.ll");
    Cli.Run r = Cli.run(src.toString(), "-f", "axpy", "--params", "vv", "-w", "4", "--scalable", "--array-driver", "--refill",
        "--remarks", "-S", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("lane refill not used (--refill): ") && r.err().contains("plain scalable driver"), r::toString);
    String ir = java.nio.file.Files.readString(out);
    assertTrue(ir.contains("define void @axpy_map(") && ir.contains("@llvm.get.active.lane.mask.nxv4i1.i64"), ir);
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
