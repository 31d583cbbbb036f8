package org.packetizer.core.check;

import java.util.HexFormat;

/** Normalizing, printing and comparing scalar values of the differential check. */
public final class Values {
  private Values() {}

  /**
   * The canonical Java value for a scalar: Boolean for {@code i1}, Long (sign-extended from the
   * type's width) for integers and pointers, Float, Double. Accepts any Number (and Boolean).
   */
  public static Object normalize(ScalarKind kind, int bits, Object v) {
    if (v == null) throw new IllegalArgumentException("null value for " + kind);
    return switch (kind) {
      case BOOL -> v instanceof Boolean b ? b : (asNumber(v).longValue() & 1) != 0;
      case INT -> signExtend(v instanceof Boolean b ? (b ? 1 : 0) : asNumber(v).longValue(), bits);
      case FLOAT -> asNumber(v).floatValue();
      case HALF -> Float.float16ToFloat(Float.floatToFloat16(asNumber(v).floatValue()));
      case DOUBLE -> asNumber(v).doubleValue();
      case PTR -> asNumber(v).longValue();
      case BYTES -> throw new IllegalArgumentException("no scalar value for an opaque field");
    };
  }

  private static Number asNumber(Object v) {
    if (v instanceof Number n) return n;
    throw new IllegalArgumentException("expected a number, got " + v.getClass().getSimpleName() + " " + v);
  }

  static long signExtend(long v, int bits) { return bits >= 64 ? v : (v << (64 - bits)) >> (64 - bits); }

  static long minOf(ScalarKind kind, int bits) {
    if (kind == ScalarKind.BOOL) return 0;
    return bits >= 64 ? Long.MIN_VALUE : -(1L << (bits - 1));
  }

  static long maxOf(ScalarKind kind, int bits) {
    if (kind == ScalarKind.BOOL) return 1;
    return bits >= 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
  }

  /** A readable value: floats with their bit pattern, integers signed with hex for wide ones. */
  public static String format(ScalarKind kind, int bits, Object v) {
    Object n = normalize(kind, bits, v);
    return switch (kind) {
      case BOOL -> n.toString();
      case INT -> {
        long x = (Long) n;
        yield bits <= 8 || (x > -10 && x < 10) ? Long.toString(x)
            : x + " (0x" + Long.toHexString(bits >= 64 ? x : x & ((1L << bits) - 1)) + ")";
      }
      case FLOAT -> {
        float f = (Float) n;
        yield f + " (0x" + String.format("%08x", Float.floatToRawIntBits(f)) + ")";
      }
      case HALF -> {
        float f = (Float) n;
        yield f + " (0x" + String.format("%04x", Float.floatToFloat16(f) & 0xFFFF) + ")";
      }
      case DOUBLE -> {
        double d = (Double) n;
        yield d + " (0x" + String.format("%016x", Double.doubleToRawLongBits(d)) + ")";
      }
      case PTR -> "0x" + Long.toHexString((Long) n);
      case BYTES -> String.valueOf(v);
    };
  }

  /** Reads a scalar stored little-endian at {@code off} ({@code size} bytes) as a canonical value. */
  static Object read(ScalarKind kind, byte[] b, int off, int size) {
    long raw = 0;
    for (int i = Math.min(size, 8) - 1; i >= 0; i--) raw = (raw << 8) | (b[off + i] & 0xFF);
    return switch (kind) {
      case BOOL -> raw != 0;
      case INT -> signExtend(raw, size * 8);
      case FLOAT -> Float.intBitsToFloat((int) raw);
      case HALF -> Float.float16ToFloat((short) raw);
      case DOUBLE -> Double.longBitsToDouble(raw);
      case PTR -> raw;
      case BYTES -> null;
    };
  }

  /** Writes a scalar little-endian at {@code off} ({@code size} bytes). */
  static void write(ScalarKind kind, byte[] b, int off, int size, Object v) {
    long raw = switch (kind) {
      case BOOL -> (Boolean) normalize(kind, 1, v) ? 1 : 0;
      case INT, PTR -> (Long) normalize(kind, size * 8, v);
      case FLOAT -> Float.floatToRawIntBits((Float) normalize(kind, 32, v)) & 0xFFFFFFFFL;
      case DOUBLE -> Double.doubleToRawLongBits((Double) normalize(kind, 64, v));
      case HALF -> Float.floatToFloat16((Float) normalize(kind, 16, v)) & 0xFFFFL;
      case BYTES -> throw new IllegalArgumentException("opaque field");
    };
    for (int i = 0; i < size; i++) b[off + i] = (byte) (i < 8 ? raw >>> (8 * i) : 0);
  }

  /** The bytes as a value of the kind, for reports. */
  static String formatBytes(ScalarKind kind, byte[] b, int off, int size) {
    if (kind == ScalarKind.BYTES || (kind == ScalarKind.BOOL && (b[off] & 0xFE) != 0)) {
      return "bytes " + HexFormat.ofDelimiter(" ").formatHex(b, off, off + size);
    }
    return format(kind, kind == ScalarKind.BOOL ? 1 : size * 8, read(kind, b, off, size));
  }

  /**
   * The comparison rule: integers, pointers and opaque bytes exactly; floats and doubles bitwise equal,
   * or both NaN (any payload), or — when {@code ulps > 0} — at most {@code ulps} units in the last
   * place apart (+0 and -0 are 0 ULP apart; infinities only equal themselves).
   */
  static boolean same(ScalarKind kind, byte[] a, int ao, byte[] b, int bo, int size, long ulps) {
    boolean bytesEqual = java.util.Arrays.equals(a, ao, ao + size, b, bo, bo + size);
    if (bytesEqual) return true;
    if (kind == ScalarKind.FLOAT) {
      float x = (Float) read(kind, a, ao, size), y = (Float) read(kind, b, bo, size);
      if (Float.isNaN(x) && Float.isNaN(y)) return true;
      if (ulps <= 0 || Float.isNaN(x) || Float.isNaN(y) || Float.isInfinite(x) || Float.isInfinite(y)) return false;
      return Math.abs(ordered(Float.floatToRawIntBits(x)) - ordered(Float.floatToRawIntBits(y))) <= ulps;
    }
    if (kind == ScalarKind.HALF) {
      short x = (short) ((a[ao] & 0xFF) | (a[ao + 1] & 0xFF) << 8), y = (short) ((b[bo] & 0xFF) | (b[bo + 1] & 0xFF) << 8);
      boolean xn = Float.isNaN(Float.float16ToFloat(x)), yn = Float.isNaN(Float.float16ToFloat(y));
      if (xn && yn) return true;
      if (ulps <= 0 || xn || yn || Float.isInfinite(Float.float16ToFloat(x)) || Float.isInfinite(Float.float16ToFloat(y))) return false;
      return Math.abs(ordered((int) x) - ordered((int) y)) <= ulps;
    }
    if (kind == ScalarKind.DOUBLE) {
      double x = (Double) read(kind, a, ao, size), y = (Double) read(kind, b, bo, size);
      if (Double.isNaN(x) && Double.isNaN(y)) return true;
      if (ulps <= 0 || Double.isNaN(x) || Double.isNaN(y) || Double.isInfinite(x) || Double.isInfinite(y)) return false;
      long dx = ordered(Double.doubleToRawLongBits(x)), dy = ordered(Double.doubleToRawLongBits(y));
      long d = dx - dy;
      // overflow only for values of opposite sign far apart: certainly more than any sane bound
      if (((dx ^ dy) & (dx ^ d)) < 0) return false;
      return Math.abs(d) <= ulps;
    }
    return false;
  }

  /** Maps float bits to a signed integer whose order matches the float order (-0 and +0 both 0). */
  private static long ordered(int bits) { return bits >= 0 ? bits : (long) Integer.MIN_VALUE - bits; }

  private static long ordered(long bits) { return bits >= 0 ? bits : Long.MIN_VALUE - bits; }
}
