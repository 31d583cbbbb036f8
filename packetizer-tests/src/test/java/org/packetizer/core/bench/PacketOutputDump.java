package org.packetizer.core.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;

/**
 * A tool, not a test (run by {@code bin/dump-packets DIR}): writes the whole packetized module of every
 * testdata and benchmark kernel at W4, W8 and W16 in the configurations the tests and the benchmark use
 * (generic x86-64; haswell with integer masks; the benchmark's per-width CPUs and knobs; libmvec and the
 * exact helpers for kernels with math calls), and of the scaling study's generated functions, one {@code .ll} file each
 * (the exception text where packetization refuses). Two dumps of two builds compared with
 * {@code diff -r} show whether a change altered any emitted code (docs/performance.md, packetization time).
 */
public final class PacketOutputDump {
  private static final String HASWELL = "+avx,+avx2,+fma,+bmi,+bmi2,+f16c,+popcnt,+sse4.2,+lzcnt,+movbe";

  private PacketOutputDump() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("--compare")) System.exit(DumpCompare.run(Path.of(args[1]), Path.of(args[2])));
    Path out = Path.of(args.length > 0 ? args[0] : "packet-dump");
    Files.createDirectories(out);
    Manifest manifest = Manifest.load();
    int n = 0;
    for (Manifest.Entry e : manifest.kernels()) {
      for (int w : new int[] {4, 8, 16}) {
        dumpKernel(out, manifest, e, w, "generic", null, PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e)));
        dumpKernel(out, manifest, e, w, "haswell-intmasks", "haswell", PacketizerOptions.builder().width(w)
            .params(KernelChecks.paramKinds(e)).integerMasks(IntegerMasks.ALWAYS));
        String cpu = switch (w) { case 4 -> Isa.SSE42.cpu(); case 8 -> Isa.AVX2.cpu(); default -> Isa.AVX512_SKX.cpu(); };
        dumpKernel(out, manifest, e, w, "bench-" + cpu, cpu, PacketizerOptions.builder().width(w).params(e.signature())
            .memoryStrategy(KernelBench.MEMORY).integerMasks(KernelBench.INT_MASKS).skipThreshold(KernelBench.SKIP_THRESHOLD));
        if (e.mathCalls()) {
          dumpKernel(out, manifest, e, w, "libmvec-" + cpu, cpu, PacketizerOptions.builder().width(w).params(e.signature())
              .vectorMath(PacketizerOptions.VectorMath.LIBMVEC));
          // the glibc-exact helpers (expf, logf, powf, exp2f, log2f, sinf, cosf, fmodf ...; their guard, shared cold pieces)
          dumpKernel(out, manifest, e, w, "exact-" + cpu, cpu, PacketizerOptions.builder().width(w).params(e.signature())
              .vectorMath(PacketizerOptions.VectorMath.INTRINSICS));
        }
        n++;
      }
    }
    BundledClang clang = BundledClang.locate();
    for (String kind : ScalingBench.KINDS) {
      dumpGenerated(out, clang, kind, ScalingBench.generate(12, 7 + kind.hashCode(), List.of(kind)));
    }
    dumpGenerated(out, clang, "mix", ScalingBench.generate(60, 7, ScalingBench.DEFAULT_MIX));
    System.out.println("dumped " + n + " kernel/width pairs and " + (ScalingBench.KINDS.size() + 1) + " generated functions to " + out);
  }

  private static void dumpKernel(Path out, Manifest manifest, Manifest.Entry e, int w, String config, String cpu,
      PacketizerOptions.Builder options) throws Exception {
    String text;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      if (cpu != null) {
        for (Function f : m.functions()) {
          if (f.isDeclaration()) continue;
          f.setStringAttribute("target-cpu", cpu);
          if (cpu.equals("haswell") && config.startsWith("haswell")) f.setStringAttribute("target-features", HASWELL);
          else f.removeStringAttribute("target-features");
        }
      }
      try {
        new Packetizer(options.build()).run(m, e.function(), e.function() + "_simd" + w);
        text = m.toIr();
      } catch (PacketizationException ex) {
        text = "refused: " + ex.getMessage() + "\n";
      }
    }
    Files.writeString(out.resolve(e.name() + "." + config + ".w" + w + ".ll"), text);
  }

  private static void dumpGenerated(Path out, BundledClang clang, String name, String c) throws Exception {
    byte[] bc = clang.compileToBitcode(c, "scaling.c", BundledClang.KERNEL_FLAGS);
    for (int w : new int[] {4, 8, 16}) {
      String text;
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
        try {
          new Packetizer(PacketizerOptions.builder().width(w).params("vvu").build()).run(m, "big", "big_simd" + w);
          text = m.toIr();
        } catch (PacketizationException ex) {
          text = "refused: " + ex.getMessage() + "\n";
        }
      }
      Files.writeString(out.resolve("scaling-" + name + ".w" + w + ".ll"), text);
    }
  }
}
