package org.packetizer.core.driver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The lane-refill benchmark (bin/bench-refill; docs/performance.md): compiles the bundled escape-time
 * kernels (testdata-bitcode's mandelbrot.c, julia.c, spheretrace.c) and saxpy with the bundled clang
 * for {@code -march} (default the host's AVX-512 CPU as the benchmark picks it: znver4 on Zen 4, skylake-avx512 on Intel), packetizes each at W = 8 and 16 three times — plain driver
 * ({@code *_plainW}), {@code --refill} ({@code *_refillW}) and {@code --refill=auto} ({@code *_autoW}) —
 * emits one object with the bundled llc, links {@code driver/bench_refill.c} with GCC (or the bundled
 * clang) and runs it: all figures come from that one run. Not a test: it measures.
 */
public final class RefillBenchMain {
  private RefillBenchMain() {}

  record K(String name, String params) {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(".");
    // the host's AVX-512 CPU as the benchmark picks it (znver4 on Zen 4, skylake-avx512 on Intel's AVX-512 hosts)
    String march = org.packetizer.core.bench.Isa.avx512ForHost().cpu();
    int batch = 0;
    int ric = 0;
    int side = 256;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--root")) root = Path.of(args[++i]);
      else if (args[i].equals("--march")) march = args[++i];
      else if (args[i].equals("--refill-batch")) batch = Integer.parseInt(args[++i]);
      else if (args[i].equals("--refill-interleave")) ric = Integer.parseInt(args[++i]);
      else if (args[i].equals("--side")) side = Integer.parseInt(args[++i]);
      else throw new IllegalArgumentException("unknown argument " + args[i] + " (--march CPU, --refill-batch LANES,"
          + " --refill-interleave 0|1|2|4, --side S)");
    }
    int refillBatch = batch;
    int refillIc = ric;
    Path kernels = root.resolve("testdata-bitcode/src/main/c/kernels").toAbsolutePath();
    Path dir = Files.createTempDirectory("bench-refill");
    StringBuilder src = new StringBuilder();
    for (String f : List.of("mandelbrot.c", "julia.c", "spheretrace.c")) src.append("#include \"").append(kernels.resolve(f)).append("\"\n");
    src.append("float saxpy(float x, float y, float a) { return a * x + y; }\n");
    Files.writeString(dir.resolve("bench_kernels.c"), src);
    BundledClang clang = BundledClang.locate();
    List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
    flags.add("-march=" + march);
    clang.compileToBitcode(dir, Path.of("bench_kernels.c"), Path.of("k.bc"), flags);
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    List<K> ks = List.of(new K("mandelbrot", "vvu"), new K("julia", "vvuuu"), new K("march", "vvvvvv"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("k.bc"))) {
      for (int w : new int[] {8, 16}) {
        for (K k : ks) {
          for (String variant : List.of("plain", "refill", "auto")) {
            Refill mode = switch (variant) { case "refill" -> Refill.ON; case "auto" -> Refill.AUTO; default -> Refill.OFF; };
            PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k.params())
                .arrayDriver("*_" + variant + w).refill(mode).refillBatch(refillBatch)
                .interleave(mode == Refill.ON ? refillIc : 0)
                .remarks(x -> { if (x.message().contains("refill")) System.out.println("  [" + x.function() + " W=" + w + "] " + x.message()); })
                .build()).run(m, k.name(), k.name() + "_" + variant.charAt(0) + w);
            drivers.add(r.driver().orElseThrow());
          }
        }
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vvu").arrayDriver("*_auto" + w)
            .refill(Refill.AUTO)
            .remarks(x -> { if (x.message().contains("refill")) System.out.println("  [saxpy W=" + w + "] " + x.message()); })
            .build()).run(m, "saxpy", "saxpy_p" + w);
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("k.packet.bc"));
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    try (InputStream in = RefillBenchMain.class.getResourceAsStream("/driver/bench_refill.c")) {
      Files.writeString(dir.resolve("bench_refill.c"), new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    // every function at a 64-byte boundary: the saxpy driver and the hand-written loop both call saxpy_pW once per
    // packet, and where the packet functions before it happen to end moved the driver/hand ratio between 0.80 and
    // 1.23 with the same instructions (docs/performance.md "Code placement"); aligned, both loops see the same callee
    check(clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic", "-mcpu=" + march, "-align-all-functions=6",
        dir.resolve("k.packet.bc").toString(), "-o", dir.resolve("k.o").toString()), dir), "llc");
    String cc = Files.isExecutable(Path.of("/usr/bin/gcc")) ? "/usr/bin/gcc" : null;
    List<String> opts = List.of("-O2", "-DSIDE=" + side, "-std=c11", "-mavx2", "-mfma", "-mavx512f", "-mavx512vl", "bench_refill.c", "k.o", "-o", "bench");
    if (cc != null) {
      List<String> cmd = new ArrayList<>(List.of(cc));
      cmd.addAll(opts);
      check(clang.run(cmd, dir), "gcc");
    } else {
      clang.linkExecutable(List.of(dir.resolve("bench_refill.c"), dir.resolve("k.o")), dir.resolve("bench"),
          List.of("-O2", "-DSIDE=" + side, "-std=c11", "-mavx2", "-mfma", "-mavx512f", "-mavx512vl"));
    }
    System.out.println("bench-refill: -march=" + march + ", caller compiled by " + (cc != null ? "gcc" : "the bundled clang")
        + "; " + Files.readString(Path.of("/proc/loadavg")).strip() + " (load average)");
    ProcessResult r = clang.run(List.of(dir.resolve("bench").toString()), dir, null, Duration.ofMinutes(20));
    System.out.print(r.stdoutText());
    System.err.print(r.stderr());
    System.out.println("load average after: " + Files.readString(Path.of("/proc/loadavg")).strip());
    System.exit(r.exitCode());
  }

  private static void check(ProcessResult r, String what) throws IOException {
    if (r.exitCode() != 0) throw new IOException(what + " failed (exit " + r.exitCode() + "):\n" + r.stderr());
  }
}
