package org.packetizer.core.bench;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.SplittableRandom;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Type;

/** The scalar element types the benchmark feeds to and reads from kernels. */
enum ScalarType {
  F32(4, "float"), F64(8, "double"), I8(1, "int8_t"), I16(2, "int16_t"), I32(4, "int32_t"), I64(8, "int64_t");

  final int size;
  final String cType;

  ScalarType(int size, String cType) {
    this.size = size;
    this.cType = cType;
  }

  boolean isFloatingPoint() { return this == F32 || this == F64; }

  /** From a manifest type name ({@code float, double, i8, i16, i32, i64}). */
  static ScalarType ofManifest(String t) {
    return switch (t) {
      case "float" -> F32;
      case "double" -> F64;
      case "i8" -> I8;
      case "i16" -> I16;
      case "i32" -> I32;
      case "i64" -> I64;
      default -> throw new UnsupportedOperationException("no benchmark data for type " + t);
    };
  }

  /** From an LLVM type (struct leaves). */
  static ScalarType ofLlvm(Type t) {
    if (t.isFloat()) return F32;
    if (t.isDouble()) return F64;
    if (t.isInteger()) {
      return switch (t.intWidth()) {
        case 8 -> I8;
        case 16 -> I16;
        case 32 -> I32;
        case 64 -> I64;
        default -> throw new UnsupportedOperationException("no benchmark data for type " + t);
      };
    }
    throw new UnsupportedOperationException("no benchmark data for type " + t);
  }

  Type llvm(LlvmContext ctx) {
    return switch (this) {
      case F32 -> ctx.floatType();
      case F64 -> ctx.doubleType();
      case I8 -> ctx.i8();
      case I16 -> ctx.i16();
      case I32 -> ctx.i32();
      case I64 -> ctx.i64();
    };
  }

  /** Writes {@code v} (converted to this type) at byte offset {@code off}. */
  void write(MemorySegment s, long off, double v) {
    switch (this) {
      case F32 -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) v);
      case F64 -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, v);
      case I8 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) (long) v);
      case I16 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) (long) v);
      case I32 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) (long) v);
      case I64 -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, off, (long) v);
    }
  }

  /** Reads the value at byte offset {@code off} as a double. */
  double read(MemorySegment s, long off) {
    return switch (this) {
      case F32 -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
      case F64 -> s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off);
      case I8 -> s.get(ValueLayout.JAVA_BYTE, off);
      case I16 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off);
      case I32 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, off);
      case I64 -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
    };
  }

  /** A value in [lo, hi]: uniform for floating point, an inclusive integer for integers. */
  double random(SplittableRandom rnd, double lo, double hi) {
    if (isFloatingPoint()) {
      if (hi <= lo) return lo;
      double d = lo + rnd.nextDouble() * (hi - lo);
      return Math.min(hi, Math.max(lo, this == F32 ? (float) d : d));
    }
    long a = (long) Math.ceil(lo);
    long b = (long) Math.floor(hi);
    return b <= a ? a : a + rnd.nextLong(b - a + 1);
  }

  /** The floating-point value at {@code off} (NaN for integer types). */
  double real(MemorySegment a, long off) {
    return switch (this) {
      case F32 -> a.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
      case F64 -> a.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off);
      default -> Double.NaN;
    };
  }

  /**
   * The relative tolerance of the approximate vector math mode: a result may differ from the scalar
   * one by this fraction of the root mean square of the scalar results (of that output over all
   * elements). Per call glibc's libmvec is within 4 ULP (2^-21 relative for float); through a kernel
   * the errors add up and are amplified where results cancel ({@code 1 - trans} with {@code trans}
   * near 1) or a threshold decides a branch: hence relative to the output's typical size, not to each
   * value. 1e-4 is about 840 float ULP at that size; a wrong lane is off by the order of the value itself.
   */
  double approximateTolerance() {
    return this == F32 ? 1e-4 : this == F64 ? 1e-10 : 0;
  }

  /**
   * Whether the values at {@code ao} in {@code a} and {@code bo} in {@code b} agree: same bits, both
   * NaN, or (floating point, {@code ulps > 0}) at most {@code ulps} units in the last place apart.
   */
  boolean same(MemorySegment a, long ao, MemorySegment b, long bo, int ulps) {
    switch (this) {
      case F32 -> {
        int x = a.get(ValueLayout.JAVA_INT_UNALIGNED, ao);
        int y = b.get(ValueLayout.JAVA_INT_UNALIGNED, bo);
        if (x == y) return true;
        float fx = Float.intBitsToFloat(x), fy = Float.intBitsToFloat(y);
        if (Float.isNaN(fx) && Float.isNaN(fy)) return true;
        if (ulps <= 0 || Float.isNaN(fx) || Float.isNaN(fy) || Float.isInfinite(fx) || Float.isInfinite(fy)) return false;
        return Math.abs(ordered(x) - ordered(y)) <= ulps;
      }
      case F64 -> {
        long x = a.get(ValueLayout.JAVA_LONG_UNALIGNED, ao);
        long y = b.get(ValueLayout.JAVA_LONG_UNALIGNED, bo);
        if (x == y) return true;
        double dx = Double.longBitsToDouble(x), dy = Double.longBitsToDouble(y);
        if (Double.isNaN(dx) && Double.isNaN(dy)) return true;
        if (ulps <= 0 || Double.isNaN(dx) || Double.isNaN(dy) || Double.isInfinite(dx) || Double.isInfinite(dy)) return false;
        long ox = ordered(x), oy = ordered(y);
        if ((ox < 0) != (oy < 0)) return Math.abs(ox) <= ulps && Math.abs(oy) <= ulps - Math.abs(ox);
        return Math.abs(ox - oy) <= ulps;
      }
      default -> {
        return MemorySegment.mismatch(a, ao, ao + size, b, bo, bo + size) < 0;
      }
    }
  }

  /**
   * Distance in units in the last place between two finite floating-point values (Long.MAX_VALUE when
   * one is NaN or infinite, or for integer types when they differ; 0 when they agree).
   */
  long ulpDistance(MemorySegment a, long ao, MemorySegment b, long bo) {
    switch (this) {
      case F32 -> {
        float x = a.get(ValueLayout.JAVA_FLOAT_UNALIGNED, ao), y = b.get(ValueLayout.JAVA_FLOAT_UNALIGNED, bo);
        if (Float.isNaN(x) && Float.isNaN(y)) return 0;
        if (!Float.isFinite(x) || !Float.isFinite(y)) return Float.compare(x, y) == 0 ? 0 : Long.MAX_VALUE;
        return Math.abs(ordered(Float.floatToRawIntBits(x)) - ordered(Float.floatToRawIntBits(y)));
      }
      case F64 -> {
        double x = a.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, ao), y = b.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, bo);
        if (Double.isNaN(x) && Double.isNaN(y)) return 0;
        if (!Double.isFinite(x) || !Double.isFinite(y)) return Double.compare(x, y) == 0 ? 0 : Long.MAX_VALUE;
        try {
          return Math.abs(Math.subtractExact(ordered(Double.doubleToRawLongBits(x)), ordered(Double.doubleToRawLongBits(y))));
        } catch (ArithmeticException e) {
          return Long.MAX_VALUE;
        }
      }
      default -> {
        return same(a, ao, b, bo, 0) ? 0 : Long.MAX_VALUE;
      }
    }
  }

  /** Maps float bits to integers ordered like the floats (-0 and +0 both to 0). */
  private static long ordered(int bits) { return bits >= 0 ? bits : (long) Integer.MIN_VALUE - bits; }

  private static long ordered(long bits) { return bits >= 0 ? bits : Long.MIN_VALUE - bits; }

  /** The value at {@code off} for messages, with its bits for floating point. */
  String show(MemorySegment s, long off) {
    return switch (this) {
      case F32 -> {
        int bits = s.get(ValueLayout.JAVA_INT_UNALIGNED, off);
        yield String.format(Locale.ROOT, "%s (0x%08x)", Float.intBitsToFloat(bits), bits);
      }
      case F64 -> {
        long bits = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        yield String.format(Locale.ROOT, "%s (0x%016x)", Double.longBitsToDouble(bits), bits);
      }
      case I8 -> Byte.toString(s.get(ValueLayout.JAVA_BYTE, off));
      case I16 -> Short.toString(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
      case I32 -> Integer.toString(s.get(ValueLayout.JAVA_INT_UNALIGNED, off));
      case I64 -> Long.toString(s.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
    };
  }
}
