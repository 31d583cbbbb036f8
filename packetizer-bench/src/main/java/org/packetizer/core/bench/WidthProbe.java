package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;

/**
 * Whether this host's AVX-512 datapath is full width, decided by measurement (issue 16: the W16 goal is
 * 10x where 512-bit operations run at the rate of 256-bit ones, 1.25x the W8 figure where they are
 * split in two halves, as on Zen 4).
 *
 * <p>Two loops of the same shape, JIT-compiled for the host CPU: {@value #CHAINS} independent
 * accumulators, each updated by one fused multiply-add and one add per iteration, on {@code <16 x float>}
 * ({@code zmm}) in one loop and on {@code <8 x float>} ({@code ymm}) in the other. With that many
 * independent chains both loops are bound by the vector units' throughput, not by latency. The
 * figure compared is lanes processed per second: {@code ratio = (16 / t512) / (8 / t256)}, best of
 * {@value #REPS} runs each (thread CPU time). A full-width datapath gives about 2, a double-pumped one
 * about 1; {@link #FULL_WIDTH_RATIO} decides (1.6, not nearer 2: a loaded host measured 1.9 on Zen 5 full width).
 *
 * <p>{@code -Dpacketizer.bench.avx512FullWidth=true|false} overrides the decision (the probe still runs
 * and is printed when the host has AVX-512).
 */
public final class WidthProbe {
  /** Lanes-per-second ratio (512-bit over 256-bit) from which the datapath counts as full width. */
  public static final double FULL_WIDTH_RATIO = 1.6;

  /** Independent accumulator chains per loop (FMA 4 + add 3 cycles of latency against 16 / 2 pipes = 8 cycles per operation kind: throughput-bound; 17 registers of AVX-512's 32). */
  static final int CHAINS = 16;

  static final int REPS = 7;

  /** Loop iterations per timed run (16 chains x 2 operations each): a few milliseconds. */
  static final long ITERATIONS = 1L << 20;

  /**
   * What the probe measured.
   *
   * @param ns512     nanoseconds per iteration of the 512-bit loop (best run)
   * @param ns256     nanoseconds per iteration of the 256-bit loop (best run)
   * @param ratio     lanes per second at 512 bits over lanes per second at 256 bits
   * @param fullWidth the decision (the override when given, else {@code ratio >= FULL_WIDTH_RATIO})
   * @param source    "probe" or "override"
   */
  @JsonPropertyOrder({"ns512", "ns256", "ratio", "full_width", "source"})
  public record Result(@JsonProperty("ns512") double ns512, @JsonProperty("ns256") double ns256, @JsonProperty("ratio") double ratio,
      @JsonProperty("full_width") boolean fullWidth, @JsonProperty("source") String source) {
    public String describe() {
      return String.format(Locale.ROOT, "AVX-512 width probe: %d independent FMA+add chains, %.3f ns per iteration on zmm, %.3f on ymm:"
          + " %.2fx the lanes per second of 256-bit code => %s (%s; full width from %.1fx)", CHAINS, ns512, ns256, ratio,
          fullWidth ? "full width" : "not full width (double-pumped)", source, FULL_WIDTH_RATIO);
    }
  }

  private WidthProbe() {}

  /** The probe's result on this host, or empty when the host has no AVX-512F (or the probe cannot run). */
  public static Optional<Result> run() {
    String features = "," + Llvm.hostCpuFeatures() + ",";
    if (!features.contains(",+avx512f,")) return Optional.empty();
    String override = System.getProperty("packetizer.bench.avx512FullWidth");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir(), "width-probe");
         Jit jit = Jit.forTarget(Llvm.hostCpuName(), Llvm.hostCpuFeatures())) {
      jit.addModule(m);
      MethodHandle p512 = handle(jit.lookup("probe_zmm")), p256 = handle(jit.lookup("probe_ymm"));
      long b512 = Long.MAX_VALUE, b256 = Long.MAX_VALUE;
      time(p512, 1 << 12);
      time(p256, 1 << 12);
      for (int i = 0; i < REPS; i++) {
        b512 = Math.min(b512, time(p512, ITERATIONS));
        b256 = Math.min(b256, time(p256, ITERATIONS));
      }
      double ns512 = (double) b512 / ITERATIONS, ns256 = (double) b256 / ITERATIONS;
      double ratio = (16 / ns512) / (8 / ns256);
      boolean full = override != null ? Boolean.parseBoolean(override) : ratio >= FULL_WIDTH_RATIO;
      return Optional.of(new Result(ns512, ns256, ratio, full, override != null ? "override" : "probe"));
    } catch (RuntimeException e) {
      if (override != null) return Optional.of(new Result(Double.NaN, Double.NaN, Double.NaN, Boolean.parseBoolean(override), "override"));
      return Optional.empty();
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

  private static long time(MethodHandle h, long n) {
    long c0 = THREADS.getCurrentThreadCpuTime();
    try {
      float r = (float) h.invokeExact(n, 1.0000001f);
      if (Float.isNaN(r)) throw new IllegalStateException("probe returned NaN");
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
    return THREADS.getCurrentThreadCpuTime() - c0;
  }

  @SuppressWarnings("restricted")
  private static MethodHandle handle(long address) {
    return Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(address),
        FunctionDescriptor.of(ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_FLOAT));
  }

  /** The probe module: {@code float probe_zmm(i64 n, float x)} and {@code probe_ymm}, the same loop at 16 and 8 lanes. */
  public static String ir() {
    StringBuilder sb = new StringBuilder();
    for (int w : new int[] {16, 8}) sb.append(loop(w == 16 ? "probe_zmm" : "probe_ymm", w));
    sb.append("declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)\n");
    sb.append("declare <8 x float> @llvm.fma.v8f32(<8 x float>, <8 x float>, <8 x float>)\n");
    sb.append("declare float @llvm.vector.reduce.fadd.v16f32(float, <16 x float>)\n");
    sb.append("declare float @llvm.vector.reduce.fadd.v8f32(float, <8 x float>)\n");
    sb.append("attributes #0 = { noinline nounwind \"min-legal-vector-width\"=\"512\" \"prefer-vector-width\"=\"512\" }\n");
    return sb.toString();
  }

  private static String loop(String name, int w) {
    String v = "<" + w + " x float>", s = "v" + w + "f32";
    StringBuilder sb = new StringBuilder();
    sb.append("define float @").append(name).append("(i64 %n, float %x) #0 {\n");
    sb.append("entry:\n  %xi = insertelement ").append(v).append(" poison, float %x, i64 0\n");
    sb.append("  %m = shufflevector ").append(v).append(" %xi, ").append(v).append(" poison, <").append(w).append(" x i32> zeroinitializer\n");
    sb.append("  br label %loop\nloop:\n  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n");
    for (int c = 0; c < CHAINS; c++) {
      sb.append("  %a").append(c).append(" = phi ").append(v).append(" [ %m, %entry ], [ %b").append(c).append(", %loop ]\n");
    }
    for (int c = 0; c < CHAINS; c++) {
      sb.append("  %f").append(c).append(" = call ").append(v).append(" @llvm.fma.").append(s).append("(").append(v).append(" %a").append(c)
          .append(", ").append(v).append(" %m, ").append(v).append(" %m)\n");
      sb.append("  %b").append(c).append(" = fsub ").append(v).append(" %f").append(c).append(", %m\n");
    }
    sb.append("  %i.next = add i64 %i, 1\n  %done = icmp eq i64 %i.next, %n\n  br i1 %done, label %exit, label %loop\nexit:\n");
    String acc = "%b0";
    for (int c = 1; c < CHAINS; c++) {
      sb.append("  %s").append(c).append(" = fadd ").append(v).append(" ").append(acc).append(", %b").append(c).append('\n');
      acc = "%s" + c;
    }
    sb.append("  %r = call float @llvm.vector.reduce.fadd.").append(s).append("(float 0.0, ").append(v).append(" ").append(acc).append(")\n");
    sb.append("  ret float %r\n}\n");
    return sb.toString();
  }
}
