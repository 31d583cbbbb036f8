package org.packetizer.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.Manifest;

/**
 * Measures a packet function against its scalar function in this process: two generated IR driver
 * loops over N elements, one calling the scalar function W times per step, the other calling the
 * packet function once per step (same inputs, results stored to memory), JIT-compiled for the host
 * CPU; the median of repeated runs of each.
 */
final class SpeedBench {
  private SpeedBench() {}

  static final String SCALAR_DRIVER = "packetize.demo.scalar_loop", PACKET_DRIVER = "packetize.demo.packet_loop";

  /**
   * @param elements      N (a multiple of the width)
   * @param scalarNanos   median time of the scalar loop
   * @param packetNanos   median time of the packet loop
   * @param differing     elements whose results differ (bitwise)
   * @param maxUlps       the largest difference in units in the last place among them (floating point)
   * @param inputs        how the inputs were chosen, for humans
   */
  record Outcome(long elements, int runs, long scalarNanos, long packetNanos, long differing, long maxUlps, String inputs,
      String cpu) {
    double speedup() { return (double) scalarNanos / packetNanos; }
  }

  /** Whether the kernel can be measured this way: scalar parameters only and a scalar result. */
  static boolean supports(Manifest.Entry e) {
    return !e.hasPointerParams() && !e.returnsVoid() && e.params().stream().allMatch(p -> layout(p.type()) != null)
        && layout(e.returns().type()) != null;
  }

  static Outcome run(LlvmModule module, Manifest.Entry e, String scalar, String packet, List<ParamKind> kinds, int width,
      boolean masked, long elements, int runs, long targetMillis) {
    String cpu = Llvm.hostCpuName(), features = Llvm.hostCpuFeatures();
    try (Jit jit = Jit.forTarget(cpu, features); LlvmContext ctx = LlvmContext.create()) {
      // both functions are compiled for this CPU (the bundled bitcode targets generic x86-64)
      jit.addModule(module, cpu, features);
      try (LlvmModule driver = ctx.parseIr(driverIr(e, scalar, packet, kinds, width, masked), "packetize-demo-driver.ll")) {
        jit.addModule(driver, cpu, features);
      }
      MethodHandle s = handle(jit.lookup(SCALAR_DRIVER)), p = handle(jit.lookup(PACKET_DRIVER));
      long n = elements;
      if (n <= 0) {
        // calibrate: about targetMillis for the scalar loop
        long probe = width * 1024L;
        long t;
        try (Arena a = Arena.ofConfined()) {
          Data d = new Data(a, e, kinds, probe);
          call(s, d); // compile and warm
          long t0 = System.nanoTime();
          call(s, d);
          t = Math.max(1, System.nanoTime() - t0);
        }
        n = (long) (probe * (targetMillis * 1e6 / t));
        n = Math.max(width * 256L, Math.min(n, 1L << 22));
      }
      n = (n + width - 1) / width * width;
      try (Arena a = Arena.ofConfined()) {
        Data d = new Data(a, e, kinds, n);
        MemorySegment scalarOut = d.out, packetOut = a.allocate(d.out.byteSize(), 64);
        long[] ts = new long[runs], tp = new long[runs];
        call(s, d);
        call(p, d.withOut(packetOut));
        for (int r = 0; r < runs; r++) {
          long t0 = System.nanoTime();
          call(s, d);
          long t1 = System.nanoTime();
          call(p, d.withOut(packetOut));
          long t2 = System.nanoTime();
          ts[r] = t1 - t0;
          tp[r] = t2 - t1;
        }
        long[] diff = compare(scalarOut, packetOut, e.returns().type(), n);
        return new Outcome(n, runs, median(ts), median(tp), diff[0], diff[1], d.description, cpu);
      }
    }
  }

  @SuppressWarnings("restricted")
  private static MethodHandle handle(long address) {
    return Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(address),
        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
  }

  private static void call(MethodHandle h, Data d) {
    try {
      h.invokeExact(d.argv, d.out, d.n);
    } catch (Throwable t) {
      throw new IllegalStateException("driver call failed: " + t, t);
    }
  }

  private static long median(long[] xs) {
    long[] c = xs.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  /** [elements differing bitwise, largest ulp distance]. */
  private static long[] compare(MemorySegment a, MemorySegment b, String type, long n) {
    long differing = 0, maxUlps = 0;
    ValueLayout l = layout(type);
    for (long i = 0; i < n; i++) {
      long off = i * l.byteSize();
      long x, y;
      switch (type) {
        case "float" -> {
          float fx = a.get(ValueLayout.JAVA_FLOAT, off), fy = b.get(ValueLayout.JAVA_FLOAT, off);
          if (Float.floatToRawIntBits(fx) == Float.floatToRawIntBits(fy) || (Float.isNaN(fx) && Float.isNaN(fy))) continue;
          differing++;
          maxUlps = Math.max(maxUlps, Math.abs((long) ordered(fx) - ordered(fy)));
          continue;
        }
        case "double" -> {
          double dx = a.get(ValueLayout.JAVA_DOUBLE, off), dy = b.get(ValueLayout.JAVA_DOUBLE, off);
          if (Double.doubleToRawLongBits(dx) == Double.doubleToRawLongBits(dy) || (Double.isNaN(dx) && Double.isNaN(dy))) continue;
          differing++;
          maxUlps = Math.max(maxUlps, Math.abs(ordered(dx) - ordered(dy)));
          continue;
        }
        default -> {
          x = readInt(a, l, off);
          y = readInt(b, l, off);
        }
      }
      if (x != y) differing++;
    }
    return new long[] {differing, maxUlps};
  }

  private static int ordered(float f) {
    int i = Float.floatToRawIntBits(f);
    return i < 0 ? Integer.MIN_VALUE - i : i;
  }

  private static long ordered(double d) {
    long i = Double.doubleToRawLongBits(d);
    return i < 0 ? Long.MIN_VALUE - i : i;
  }

  private static long readInt(MemorySegment s, ValueLayout l, long off) {
    return switch ((int) l.byteSize()) {
      case 1 -> s.get(ValueLayout.JAVA_BYTE, off);
      case 2 -> s.get(ValueLayout.JAVA_SHORT, off);
      case 4 -> s.get(ValueLayout.JAVA_INT, off);
      default -> s.get(ValueLayout.JAVA_LONG, off);
    };
  }

  static ValueLayout layout(String type) {
    return switch (type) {
      case "float" -> ValueLayout.JAVA_FLOAT;
      case "double" -> ValueLayout.JAVA_DOUBLE;
      case "i8" -> ValueLayout.JAVA_BYTE;
      case "i16" -> ValueLayout.JAVA_SHORT;
      case "i32" -> ValueLayout.JAVA_INT;
      case "i64" -> ValueLayout.JAVA_LONG;
      default -> null;
    };
  }

  /** The input arrays (one per parameter; uniform ones hold one value) and the output array. */
  private static final class Data {
    final MemorySegment argv;
    final MemorySegment out;
    final long n;
    final String description;

    private Data(MemorySegment argv, MemorySegment out, long n, String description) {
      this.argv = argv;
      this.out = out;
      this.n = n;
      this.description = description;
    }

    Data(Arena a, Manifest.Entry e, List<ParamKind> kinds, long n) {
      this.n = n;
      List<Manifest.Param> ps = e.params();
      this.argv = a.allocate(8L * Math.max(1, ps.size()), 8);
      this.out = a.allocate(n * layout(e.returns().type()).byteSize(), 64);
      SplittableRandom rnd = new SplittableRandom(7);
      List<String> desc = new ArrayList<>();
      // The first two varying floating-point parameters span a grid, like pixels of an image.
      List<Integer> grid = new ArrayList<>();
      for (int i = 0; i < ps.size() && grid.size() < 2; i++) {
        if (kinds.get(i) instanceof ParamKind.Varying && (ps.get(i).type().equals("float") || ps.get(i).type().equals("double"))) {
          grid.add(i);
        }
      }
      long side = grid.size() == 2 ? Math.max(1, (long) Math.ceil(Math.sqrt(n))) : n;
      if (grid.size() == 2) {
        desc.add(side + " x " + ((n + side - 1) / side) + " grid over " + ps.get(grid.get(0)).name() + " " + range(ps.get(grid.get(0)))
            + ", " + ps.get(grid.get(1)).name() + " " + range(ps.get(grid.get(1))));
      } else if (grid.size() == 1) {
        desc.add(ps.get(grid.get(0)).name() + " evenly over " + range(ps.get(grid.get(0))));
      }
      for (int i = 0; i < ps.size(); i++) {
        Manifest.Param p = ps.get(i);
        ValueLayout l = layout(p.type());
        ParamKind k = kinds.get(i);
        boolean uniform = k instanceof ParamKind.Uniform;
        long count = uniform ? 1 : n;
        MemorySegment arr = a.allocate(count * l.byteSize(), 64);
        argv.setAtIndex(ValueLayout.ADDRESS, i, arr);
        double lo = p.range() == null ? -1000 : p.lo(), hi = p.range() == null ? 1000 : p.hi();
        if (uniform) {
          double v = e.samples().isEmpty() || e.samples().get(0).get(i) == null ? (lo + hi) / 2 : e.samples().get(0).get(i).doubleValue();
          put(arr, l, p.type(), 0, v);
          desc.add(p.name() + " = " + CheckPlan.fmt(isInt(p.type()) ? Math.rint(v) : v));
        } else if (k instanceof ParamKind.Linear lin) {
          for (long j = 0; j < n; j++) put(arr, l, p.type(), j, Math.rint(lo) + j * lin.step());
          desc.add(p.name() + " counts up from " + CheckPlan.fmt(Math.rint(lo)));
        } else {
          int g = grid.indexOf(i);
          for (long j = 0; j < n; j++) {
            double v;
            if (g == 0) v = lo + (hi - lo) * ((j % side) + 0.5) / side;
            else if (g == 1) v = lo + (hi - lo) * ((j / side) + 0.5) / side;
            else v = isInt(p.type()) ? rnd.nextLong((long) Math.ceil(lo), (long) Math.floor(hi) + 1) : rnd.nextDouble(lo, hi);
            put(arr, l, p.type(), j, v);
          }
          if (g < 0) desc.add(p.name() + " random in " + range(p));
        }
      }
      this.description = String.join("; ", desc);
    }

    Data withOut(MemorySegment o) { return new Data(argv, o, n, description); }

    private static boolean isInt(String t) { return t.startsWith("i"); }

    private static String range(Manifest.Param p) {
      return p.range() == null ? "[-1000, 1000]" : "[" + CheckPlan.fmt(p.lo()) + ", " + CheckPlan.fmt(p.hi()) + "]";
    }

    private static void put(MemorySegment s, ValueLayout l, String type, long i, double v) {
      switch (type) {
        case "float" -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
        case "double" -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
        case "i8" -> s.setAtIndex(ValueLayout.JAVA_BYTE, i, (byte) (long) v);
        case "i16" -> s.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (long) v);
        case "i32" -> s.setAtIndex(ValueLayout.JAVA_INT, i, (int) (long) v);
        default -> s.setAtIndex(ValueLayout.JAVA_LONG, i, (long) v);
      }
    }
  }

  /** The two driver loops as textual IR (see the class comment). */
  static String driverIr(Manifest.Entry e, String scalar, String packet, List<ParamKind> kinds, int w, boolean masked) {
    List<Manifest.Param> ps = e.params();
    String rt = e.returns().type();
    StringBuilder sb = new StringBuilder();
    List<String> st = new ArrayList<>(), pt = new ArrayList<>();
    for (int j = 0; j < ps.size(); j++) {
      String t = ps.get(j).type();
      st.add(t);
      pt.add(kinds.get(j) instanceof ParamKind.Varying ? vec(w, t) : t);
    }
    if (masked) pt.add(vec(w, "i1"));
    sb.append("declare ").append(rt).append(" @\"").append(scalar).append("\"(").append(String.join(", ", st)).append(")\n");
    sb.append("declare ").append(vec(w, rt)).append(" @\"").append(packet).append("\"(").append(String.join(", ", pt)).append(")\n\n");
    for (boolean isPacket : new boolean[] {false, true}) {
      sb.append("define void @\"").append(isPacket ? PACKET_DRIVER : SCALAR_DRIVER).append("\"(ptr %argv, ptr %out, i64 %n) {\n");
      sb.append("entry:\n");
      for (int j = 0; j < ps.size(); j++) {
        String t = ps.get(j).type();
        sb.append(String.format(Locale.ROOT, "  %%g%d = getelementptr inbounds ptr, ptr %%argv, i64 %d%n", j, j));
        sb.append(String.format(Locale.ROOT, "  %%a%d = load ptr, ptr %%g%d, align 8%n", j, j));
        if (kinds.get(j) instanceof ParamKind.Uniform) {
          sb.append(String.format(Locale.ROOT, "  %%u%d = load %s, ptr %%a%d%n", j, t, j));
        }
      }
      sb.append("  %empty = icmp eq i64 %n, 0\n  br i1 %empty, label %exit, label %loop\n");
      sb.append("loop:\n  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n");
      if (isPacket) {
        List<String> args = new ArrayList<>();
        for (int j = 0; j < ps.size(); j++) {
          String t = ps.get(j).type();
          ParamKind k = kinds.get(j);
          if (k instanceof ParamKind.Uniform) {
            args.add(t + " %u" + j);
            continue;
          }
          sb.append(String.format(Locale.ROOT, "  %%p%d = getelementptr inbounds %s, ptr %%a%d, i64 %%i%n", j, t, j));
          String lt = k instanceof ParamKind.Varying ? vec(w, t) : t;
          sb.append(String.format(Locale.ROOT, "  %%v%d = load %s, ptr %%p%d, align %d%n", j, lt, j, layout(t).byteSize()));
          args.add(lt + " %v" + j);
        }
        if (masked) args.add(vec(w, "i1") + " <" + String.join(", ", java.util.Collections.nCopies(w, "i1 true")) + ">");
        sb.append(String.format(Locale.ROOT, "  %%r = call %s @\"%s\"(%s)%n", vec(w, rt), packet, String.join(", ", args)));
        sb.append(String.format(Locale.ROOT, "  %%o = getelementptr inbounds %s, ptr %%out, i64 %%i%n", rt));
        sb.append(String.format(Locale.ROOT, "  store %s %%r, ptr %%o, align %d%n", vec(w, rt), layout(rt).byteSize()));
      } else {
        for (int k = 0; k < w; k++) {
          sb.append(String.format(Locale.ROOT, "  %%i.%d = add i64 %%i, %d%n", k, k));
          List<String> args = new ArrayList<>();
          for (int j = 0; j < ps.size(); j++) {
            String t = ps.get(j).type();
            if (kinds.get(j) instanceof ParamKind.Uniform) {
              args.add(t + " %u" + j);
              continue;
            }
            sb.append(String.format(Locale.ROOT, "  %%p%d.%d = getelementptr inbounds %s, ptr %%a%d, i64 %%i.%d%n", j, k, t, j, k));
            sb.append(String.format(Locale.ROOT, "  %%v%d.%d = load %s, ptr %%p%d.%d%n", j, k, t, j, k));
            args.add(t + " %v" + j + "." + k);
          }
          sb.append(String.format(Locale.ROOT, "  %%r.%d = call %s @\"%s\"(%s)%n", k, rt, scalar, String.join(", ", args)));
          sb.append(String.format(Locale.ROOT, "  %%o.%d = getelementptr inbounds %s, ptr %%out, i64 %%i.%d%n", k, rt, k));
          sb.append(String.format(Locale.ROOT, "  store %s %%r.%d, ptr %%o.%d%n", rt, k, k));
        }
      }
      sb.append(String.format(Locale.ROOT, "  %%i.next = add i64 %%i, %d%n", w));
      sb.append("  %more = icmp ult i64 %i.next, %n\n  br i1 %more, label %loop, label %exit\n");
      sb.append("exit:\n  ret void\n}\n\n");
    }
    return sb.toString();
  }

  private static String vec(int w, String t) { return "<" + w + " x " + t + ">"; }
}
