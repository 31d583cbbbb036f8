package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The values an input may take. Edge values (0, -0.0, the range ends, ±1 when inside the range) are
 * drawn with a raised probability unless turned off; NaN and ±infinity only when asked.
 */
public sealed interface ValueDomain {

  /** Integers in {@code [min, max]}, clipped to the parameter type's range. */
  record Ints(long min, long max, boolean edges) implements ValueDomain {
    public Ints {
      if (min > max) throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
    }
    public Ints withoutEdges() { return new Ints(min, max, false); }
  }

  /** Floating-point values in {@code [min, max]}, optionally with NaN and ±infinity among the edges. */
  record Floats(double min, double max, boolean edges, boolean nan, boolean infinity) implements ValueDomain {
    public Floats {
      if (!(min <= max)) throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
    }
    public Floats withNaN() { return new Floats(min, max, edges, true, infinity); }
    public Floats withInfinity() { return new Floats(min, max, edges, nan, true); }
    /** NaN and ±infinity. */
    public Floats withSpecials() { return new Floats(min, max, edges, true, true); }
    public Floats withoutEdges() { return new Floats(min, max, false, nan, infinity); }
  }

  static Ints ints(long min, long max) { return new Ints(min, max, true); }

  static Floats floats(double min, double max) { return new Floats(min, max, true, false, false); }

  /** Default: [-1000, 1000] (clipped to the type), [0, 1] for {@code i1}; edges on, no NaN or infinity. */
  static ValueDomain defaultFor(ScalarKind kind, int bits) {
    return switch (kind) {
      case FLOAT, DOUBLE, HALF -> floats(-1000, 1000);
      case BOOL -> ints(0, 1);
      default -> ints(-1000, 1000);
    };
  }

  /** The edge values for a parameter of this kind (normalized as {@link Values#normalize} does). */
  default List<Object> edgeValues(ScalarKind kind, int bits) {
    List<Object> out = new ArrayList<>();
    switch (this) {
      case Ints i -> {
        if (!i.edges()) break;
        long lo = Math.max(i.min(), Values.minOf(kind, bits));
        long hi = Math.min(i.max(), Values.maxOf(kind, bits));
        for (long v : new long[] {0, lo, hi, 1, -1}) {
          if (v >= lo && v <= hi) addDistinct(out, Values.normalize(kind, bits, v));
        }
      }
      case Floats f -> {
        if (f.edges()) {
          for (double v : new double[] {0.0, -0.0, f.min(), f.max(), 1.0, -1.0}) {
            if (v >= f.min() && v <= f.max()) addDistinct(out, Values.normalize(kind, bits, v));
          }
        }
        if (f.nan()) addDistinct(out, Values.normalize(kind, bits, Double.NaN));
        if (f.infinity()) {
          addDistinct(out, Values.normalize(kind, bits, Double.POSITIVE_INFINITY));
          addDistinct(out, Values.normalize(kind, bits, Double.NEGATIVE_INFINITY));
        }
      }
    }
    return out;
  }

  /** A value from the domain: an edge value one time in five (when there are any), else from the range. */
  default Object sample(ScalarKind kind, int bits, RandomGenerator rnd) {
    List<Object> edges = edgeValues(kind, bits);
    if (!edges.isEmpty() && rnd.nextInt(5) == 0) return edges.get(rnd.nextInt(edges.size()));
    return sampleRange(kind, bits, rnd);
  }

  /** A value drawn from the range only (no edge bias); integral values are favoured now and then. */
  default Object sampleRange(ScalarKind kind, int bits, RandomGenerator rnd) {
    return switch (this) {
      case Ints i -> {
        long lo = Math.max(i.min(), Values.minOf(kind, bits));
        long hi = Math.min(i.max(), Values.maxOf(kind, bits));
        long v;
        if (lo == Long.MIN_VALUE && hi == Long.MAX_VALUE) v = rnd.nextLong();
        else if (hi < Long.MAX_VALUE) v = rnd.nextLong(lo, hi + 1);
        else v = rnd.nextLong(lo - 1, hi) + 1;
        yield Values.normalize(kind, bits, v);
      }
      case Floats f -> {
        double v;
        if (f.min() == f.max()) v = f.min();
        else if (rnd.nextInt(8) == 0) v = Math.rint(rnd.nextDouble(f.min(), f.max()));
        else v = rnd.nextDouble(f.min(), Math.nextUp(f.max()));
        yield Values.normalize(kind, bits, Math.max(f.min(), Math.min(f.max(), v)));
      }
    };
  }

  private static void addDistinct(List<Object> out, Object v) {
    if (!out.contains(v)) out.add(v);
  }
}
