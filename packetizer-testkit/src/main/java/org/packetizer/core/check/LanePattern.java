package org.packetizer.core.check;

import java.util.function.Supplier;

/** How the W lane values of a varying input relate: patterns that make branches agree or diverge. */
public enum LanePattern {
  /** Every lane the same value (a uniform branch in a varying disguise). */
  ALL_EQUAL,
  /** Pairwise different values where the domain allows. */
  ALL_DIFFERENT,
  /** Two values a, b, a, b, ... */
  ALTERNATING,
  /** Each lane drawn independently. */
  INDEPENDENT;

  /** The lane values, drawing fresh values from {@code sample}. */
  public Object[] lanes(int width, Supplier<Object> sample) {
    Object[] out = new Object[width];
    switch (this) {
      case ALL_EQUAL -> java.util.Arrays.fill(out, sample.get());
      case ALTERNATING -> {
        Object a = sample.get();
        Object b = sample.get();
        for (int i = 0; i < 8 && b.equals(a); i++) b = sample.get();
        for (int k = 0; k < width; k++) out[k] = k % 2 == 0 ? a : b;
      }
      case ALL_DIFFERENT -> {
        for (int k = 0; k < width; k++) {
          Object v = sample.get();
          for (int tries = 0; tries < 16 && contains(out, k, v); tries++) v = sample.get();
          out[k] = v;
        }
      }
      case INDEPENDENT -> {
        for (int k = 0; k < width; k++) out[k] = sample.get();
      }
    }
    return out;
  }

  private static boolean contains(Object[] a, int n, Object v) {
    for (int i = 0; i < n; i++) if (a[i].equals(v)) return true;
    return false;
  }
}
