package org.packetizer.core.jit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * A context-free description of a parameter or return type of a JIT-called function, with its
 * memory representation in a trampoline argument slot or result buffer (little-endian, unaligned):
 *
 * <ul>
 *   <li>{@link Bool} ({@code i1}): one byte, 0 or 1;
 *   <li>{@link Int}: 1, 2, 4 or 8 bytes; {@link F16}, {@link F32}, {@link F64}; {@link Ptr}: an 8-byte address;
 *   <li>{@link Vector}: its elements back to back; a vector of {@code i1} (a mask) is one byte per
 *       lane, not LLVM's bit-packed in-memory form;
 *   <li>{@link Struct} and {@link Array}: LLVM's in-memory layout under the JIT's data layout (offsets
 *       and sizes given); an {@code i1} field is one byte; vectors of {@code i1} are not allowed inside.
 * </ul>
 */
public sealed interface JitType {
  /** Bytes in the slot or result buffer. */
  long size();

  record Void() implements JitType {
    @Override public long size() { return 0; }
    @Override public String toString() { return "void"; }
  }

  record Bool() implements JitType {
    @Override public long size() { return 1; }
    @Override public String toString() { return "i1"; }
  }

  record Int(int bits) implements JitType {
    public Int {
      if (bits != 8 && bits != 16 && bits != 32 && bits != 64) throw new IllegalArgumentException("i" + bits);
    }
    @Override public long size() { return bits / 8; }
    @Override public String toString() { return "i" + bits; }
  }

  /** {@code half}: 2 bytes; Java values are Numbers (written rounded to binary16), read back as Float. */
  record F16() implements JitType {
    @Override public long size() { return 2; }
    @Override public String toString() { return "half"; }
  }

  record F32() implements JitType {
    @Override public long size() { return 4; }
    @Override public String toString() { return "float"; }
  }

  record F64() implements JitType {
    @Override public long size() { return 8; }
    @Override public String toString() { return "double"; }
  }

  record Ptr() implements JitType {
    @Override public long size() { return 8; }
    @Override public String toString() { return "ptr"; }
  }

  record Vector(JitType element, int length) implements JitType {
    @Override public long size() { return element.size() * length; }
    @Override public String toString() { return "<" + length + " x " + element + ">"; }
  }

  /** A struct; {@code name} is empty for a literal struct. */
  record Struct(String name, boolean packed, List<JitType> elements, List<Long> offsets, long size) implements JitType {
    public Struct {
      elements = List.copyOf(elements);
      offsets = List.copyOf(offsets);
    }
    @Override public String toString() {
      StringBuilder sb = new StringBuilder(name.isEmpty() ? "" : "%" + name + " = ");
      sb.append(packed ? "<{ " : "{ ");
      for (int i = 0; i < elements.size(); i++) sb.append(i == 0 ? "" : ", ").append(elements.get(i));
      return sb.append(packed ? " }>" : " }").toString();
    }
  }

  record Array(JitType element, long length, long stride, long size) implements JitType {
    @Override public String toString() { return "[" + length + " x " + element + "]"; }
  }

  // ---- from and to LLVM types ----

  /**
   * Describes an LLVM type, with sizes and offsets from {@code layout}'s data layout.
   *
   * @throws UnsupportedOperationException naming the type when it cannot cross the trampoline
   */
  public static JitType of(Type t, LlvmModule layout) { return of(t, layout, true); }

  private static JitType of(Type t, LlvmModule layout, boolean topLevel) {
    switch (t.kind()) {
      case VOID: return new Void();
      case HALF: return new F16();
      case FLOAT: return new F32();
      case DOUBLE: return new F64();
      case POINTER: return new Ptr();
      case INTEGER: {
        int bits = t.intWidth();
        if (bits == 1) return new Bool();
        if (bits == 8 || bits == 16 || bits == 32 || bits == 64) return new Int(bits);
        throw new UnsupportedOperationException("integer type " + t + " (only i1, i8, i16, i32, i64)");
      }
      case VECTOR: {
        JitType e = of(t.elementType(), layout, false);
        if (e instanceof Bool && !topLevel) {
          throw new UnsupportedOperationException("mask vector " + t + " inside an aggregate");
        }
        if (!(e instanceof Bool || e instanceof Int || e instanceof F16 || e instanceof F32 || e instanceof F64 || e instanceof Ptr)) {
          throw new UnsupportedOperationException("vector type " + t);
        }
        return new Vector(e, t.vectorSize());
      }
      case STRUCT: {
        List<JitType> es = new ArrayList<>();
        List<Long> offs = new ArrayList<>();
        List<Type> ets = t.structElements();
        for (int i = 0; i < ets.size(); i++) {
          es.add(of(ets.get(i), layout, false));
          offs.add(layout.offsetOfElement(t, i));
        }
        return new Struct(t.isLiteralStruct() ? "" : t.structName(), t.isPackedStruct(), es, offs, layout.storeSize(t));
      }
      case ARRAY: {
        JitType e = of(t.elementType(), layout, false);
        return new Array(e, t.arrayLength(), layout.allocSize(t.elementType()), layout.storeSize(t));
      }
      default:
        throw new UnsupportedOperationException("type " + t);
    }
  }

  // ---- Java values ----

  /**
   * Writes a Java value in this type's memory representation at {@code offset}. Accepted values:
   * Boolean or Number for {@code i1}; Number for integers (low bits kept) and floating point;
   * MemorySegment (its address) or Number for pointers; for vectors and arrays a Java array or a
   * List of element values; for structs an Object[] or List of field values.
   */
  default void write(MemorySegment seg, long offset, Object value) {
    switch (this) {
      case Void v -> { }
      case Bool b -> seg.set(ValueLayout.JAVA_BYTE, offset, (byte) (asBoolean(value) ? 1 : 0));
      case Int i -> {
        long x = asLong(value);
        switch (i.bits()) {
          case 8 -> seg.set(ValueLayout.JAVA_BYTE, offset, (byte) x);
          case 16 -> seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, (short) x);
          case 32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, offset, (int) x);
          default -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, x);
        }
      }
      case F16 h -> seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, Float.floatToFloat16(((Number) value).floatValue()));
      case F32 f -> seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, offset, ((Number) value).floatValue());
      case F64 d -> seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, ((Number) value).doubleValue());
      case Ptr p -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, offset,
          value instanceof MemorySegment ms ? ms.address() : value == null ? 0L : asLong(value));
      case Vector vec -> {
        List<Object> es = elements(value, vec.length(), vec);
        long es1 = vec.element().size();
        for (int k = 0; k < vec.length(); k++) vec.element().write(seg, offset + k * es1, es.get(k));
      }
      case Struct s -> {
        List<Object> es = elements(value, s.elements().size(), s);
        for (int k = 0; k < es.size(); k++) s.elements().get(k).write(seg, offset + s.offsets().get(k), es.get(k));
      }
      case Array a -> {
        List<Object> es = elements(value, Math.toIntExact(a.length()), a);
        for (int k = 0; k < es.size(); k++) a.element().write(seg, offset + k * a.stride(), es.get(k));
      }
    }
  }

  /**
   * Reads a value of this type at {@code offset}: Boolean, Byte, Short, Integer, Long, Float, Double,
   * MemorySegment (a zero-length segment at the address) for pointers, a primitive array for vectors
   * (boolean[], byte[], short[], int[], long[], float[], double[], MemorySegment[]), Object[] for
   * structs and arrays, null for void.
   */
  default Object read(MemorySegment seg, long offset) {
    return switch (this) {
      case Void v -> null;
      case Bool b -> seg.get(ValueLayout.JAVA_BYTE, offset) != 0;
      case Int i -> switch (i.bits()) {
        case 8 -> seg.get(ValueLayout.JAVA_BYTE, offset);
        case 16 -> seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
        case 32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
        default -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
      };
      case F16 h -> Float.float16ToFloat(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset));
      case F32 f -> seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset);
      case F64 d -> seg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
      case Ptr p -> MemorySegment.ofAddress(seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
      case Vector vec -> {
        Object arr = switch (vec.element()) {
          case Bool b -> new boolean[vec.length()];
          case Int i -> switch (i.bits()) {
            case 8 -> new byte[vec.length()];
            case 16 -> new short[vec.length()];
            case 32 -> new int[vec.length()];
            default -> new long[vec.length()];
          };
          case F16 h -> new float[vec.length()];
          case F32 f -> new float[vec.length()];
          case F64 d -> new double[vec.length()];
          default -> new MemorySegment[vec.length()];
        };
        long es = vec.element().size();
        for (int k = 0; k < vec.length(); k++) java.lang.reflect.Array.set(arr, k, vec.element().read(seg, offset + k * es));
        yield arr;
      }
      case Struct s -> {
        Object[] out = new Object[s.elements().size()];
        for (int k = 0; k < out.length; k++) out[k] = s.elements().get(k).read(seg, offset + s.offsets().get(k));
        yield out;
      }
      case Array a -> {
        Object[] out = new Object[Math.toIntExact(a.length())];
        for (int k = 0; k < out.length; k++) out[k] = a.element().read(seg, offset + k * a.stride());
        yield out;
      }
    };
  }

  private static boolean asBoolean(Object v) {
    if (v instanceof Boolean b) return b;
    if (v instanceof Number n) return (n.longValue() & 1) != 0;
    throw new IllegalArgumentException("expected a Boolean or Number for i1, got " + describe(v));
  }

  private static long asLong(Object v) {
    if (v instanceof Number n) return n.longValue();
    if (v instanceof Boolean b) return b ? 1 : 0;
    if (v instanceof Character c) return c;
    throw new IllegalArgumentException("expected a Number, got " + describe(v));
  }

  private static List<Object> elements(Object value, int n, JitType t) {
    List<Object> out = new ArrayList<>(n);
    if (value instanceof List<?> l) {
      out.addAll(l);
    } else if (value != null && value.getClass().isArray()) {
      for (int i = 0, len = java.lang.reflect.Array.getLength(value); i < len; i++) out.add(java.lang.reflect.Array.get(value, i));
    } else {
      throw new IllegalArgumentException("expected an array or List of " + n + " values for " + t + ", got " + describe(value));
    }
    if (out.size() != n) {
      throw new IllegalArgumentException("expected " + n + " values for " + t + ", got " + out.size());
    }
    return out;
  }

  private static String describe(Object v) { return v == null ? "null" : v.getClass().getSimpleName() + " " + v; }
}
