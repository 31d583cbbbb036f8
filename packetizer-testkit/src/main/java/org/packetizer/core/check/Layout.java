package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * Where each scalar field of a value lives in the scalar layout and, per lane, in the packet layout.
 * Computed by walking the scalar type and its packet type side by side with the module's data layout.
 */
final class Layout {
  private Layout() {}

  /**
   * One scalar field. Lane k's copy in the packet layout is at {@code packetOffset + k * laneStride}
   * ({@code laneStride == 0}: a uniform field, the same for every lane).
   */
  record Leaf(String path, ScalarKind kind, int size, long scalarOffset, long packetOffset, long laneStride) {
    BufferInit.Field field(int index) { return new BufferInit.Field(path, kind, size, index); }
  }

  /** The SoA packet type of {@code t}: scalars become {@code <W x T>}, structs and arrays element-wise. */
  static Type packetize(Type t, int width) {
    switch (t.kind()) {
      case INTEGER, FLOAT, DOUBLE, POINTER, HALF, BFLOAT -> {
        if (t.isInteger(1)) throw new IllegalArgumentException("an i1 field has no byte-addressable SoA layout");
        return t.vectorOf(width);
      }
      case STRUCT -> {
        List<Type> es = new ArrayList<>();
        for (Type e : t.structElements()) es.add(packetize(e, width));
        return t.context().structType(es, t.isPackedStruct());
      }
      case ARRAY -> {
        return packetize(t.elementType(), width).arrayOf(t.arrayLength());
      }
      default -> throw new IllegalArgumentException("no SoA layout for " + t);
    }
  }

  static ScalarKind kindOf(Type t) {
    return switch (t.kind()) {
      case INTEGER -> t.intWidth() == 1 ? ScalarKind.BOOL
          : (t.intWidth() % 8 == 0 && t.intWidth() <= 64) ? ScalarKind.INT : ScalarKind.BYTES;
      case FLOAT -> ScalarKind.FLOAT;
      case DOUBLE -> ScalarKind.DOUBLE;
      case HALF -> ScalarKind.HALF;
      case POINTER -> ScalarKind.PTR;
      default -> ScalarKind.BYTES;
    };
  }

  /** The fields of {@code t} in the scalar layout alone (packet offsets equal scalar offsets). */
  static List<Leaf> leaves(LlvmModule dl, Type t) {
    List<Leaf> out = new ArrayList<>();
    walk(dl, t, t, 0, 0, "", 1, false, out);
    return out;
  }

  /**
   * The fields of scalar type {@code scalar} and where they are in {@code packet}, which must be
   * {@code scalar} itself (uniform) or its packetized form, recursively.
   *
   * @param maskBytes whether {@code <W x i1>} is stored one byte per lane (trampoline results)
   */
  static List<Leaf> leaves(LlvmModule dl, Type scalar, Type packet, int width, boolean maskBytes) {
    List<Leaf> out = new ArrayList<>();
    walk(dl, scalar, packet, 0, 0, "", width, maskBytes, out);
    return out;
  }

  private static void walk(LlvmModule dl, Type s, Type p, long so, long po, String path, int w, boolean maskBytes, List<Leaf> out) {
    if (s.isStruct()) {
      List<Type> ses = s.structElements();
      if (!p.isStruct() || p.structElements().size() != ses.size()) throw mismatch(s, p, path);
      List<Type> pes = p.structElements();
      for (int i = 0; i < ses.size(); i++) {
        walk(dl, ses.get(i), pes.get(i), so + dl.offsetOfElement(s, i), po + dl.offsetOfElement(p, i), path + "." + i, w, maskBytes, out);
      }
      return;
    }
    if (s.isArray()) {
      if (!p.isArray() || p.arrayLength() != s.arrayLength()) throw mismatch(s, p, path);
      long ss = dl.allocSize(s.elementType()), ps = dl.allocSize(p.elementType());
      for (long i = 0; i < s.arrayLength(); i++) {
        walk(dl, s.elementType(), p.elementType(), so + i * ss, po + i * ps, path + "[" + i + "]", w, maskBytes, out);
      }
      return;
    }
    if (s.isVector() && !s.equals(p)) {
      // a packetized <N x T> is <N*W x T> element-major: element i of lane k at (i*W + k) * size(T)
      Type e = s.elementType();
      int n = s.vectorSize();
      if (!p.isVector() || !p.elementType().equals(e) || p.vectorSize() != n * w) throw mismatch(s, p, path);
      boolean bytePerBit = e.isInteger(1) && maskBytes && path.isEmpty();
      if (e.isInteger() && e.intWidth() % 8 != 0 && !bytePerBit) {
        throw new IllegalArgumentException("cannot compare lanes of a packetized " + s + " (bit-packed)" + at(path));
      }
      ScalarKind ek = kindOf(e);
      // (a top-level vector of i1 crosses the trampoline one byte per element)
      int es = bytePerBit ? 1 : Math.toIntExact(dl.storeSize(e));
      for (int i = 0; i < n; i++) out.add(new Leaf(path + "<" + i + ">", ek, es, so + (long) i * es, po + (long) i * w * es, es));
      return;
    }
    ScalarKind kind = kindOf(s);
    int size = s.isInteger(1) ? 1 : Math.toIntExact(dl.storeSize(s));
    if (s.equals(p)) {
      if (s.isVector() && !(s.elementType().isInteger() && s.elementType().intWidth() % 8 != 0)) {
        int es = Math.toIntExact(dl.storeSize(s.elementType()));
        for (int i = 0; i < s.vectorSize(); i++) {
          out.add(new Leaf(path + "<" + i + ">", kindOf(s.elementType()), es, so + (long) i * es, po + (long) i * es, 0));
        }
        return;
      }
      out.add(new Leaf(path, s.isVector() ? ScalarKind.BYTES : kind, size, so, po, 0));
      return;
    }
    if (p.isVector() && p.vectorSize() == w && p.elementType().equals(s) && !s.isVector()) {
      if (s.isInteger(1) && !maskBytes) {
        throw new IllegalArgumentException("a <" + w + " x i1> in memory is bit-packed: not supported" + at(path));
      }
      if (kind == ScalarKind.BYTES) throw new IllegalArgumentException("cannot compare lanes of <" + w + " x " + s + ">" + at(path));
      out.add(new Leaf(path, kind, size, so, po, size));
      return;
    }
    throw mismatch(s, p, path);
  }

  private static IllegalArgumentException mismatch(Type s, Type p, String path) {
    return new IllegalArgumentException("packet type " + p + " is neither scalar type " + s + " nor its packetized form" + at(path));
  }

  private static String at(String path) { return path.isEmpty() ? "" : " (at field " + path + ")"; }
}
