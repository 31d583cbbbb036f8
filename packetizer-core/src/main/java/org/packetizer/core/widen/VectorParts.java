package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Value;

/** Slicing a vector into parts and putting equal parts back side by side, as shuffles. */
final class VectorParts {
  private VectorParts() {}

  /** Elements [from, from + n) of vector v (v itself when that is all of it). */
  static Value slice(IrBuilder b, Value v, int from, int n) {
    if (from == 0 && n == v.type().vectorSize()) return v;
    List<Value> ix = new ArrayList<>();
    for (int i = 0; i < n; i++) ix.add(b.i32(from + i));
    return b.shuffle(v, b.poison(v.type()), b.constVector(ix), "");
  }

  /** The parts (vectors of one type, a power-of-two count) side by side in one vector, pairwise. */
  static Value concat(IrBuilder b, List<Value> parts) {
    List<Value> cur = parts;
    while (cur.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < cur.size(); i += 2) {
        int n = cur.get(i).type().vectorSize();
        List<Value> ix = new ArrayList<>();
        for (int k = 0; k < 2 * n; k++) ix.add(b.i32(k));
        next.add(b.shuffle(cur.get(i), cur.get(i + 1), b.constVector(ix), ""));
      }
      cur = next;
    }
    return cur.get(0);
  }
}
