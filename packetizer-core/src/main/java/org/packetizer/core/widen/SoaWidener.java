package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;

/**
 * Struct-of-arrays memory (thesis Fig 4.4, 4.17): lane k's leaf at scalar offset o, size s, lies
 * at W*o + k*s from the packetized base; GEPs scale the scalar byte offset by W, loads and stores
 * become consecutive vector accesses (uniform pointer) or gathers/scatters, memcpy/memset become
 * per-leaf copies.
 */
final class SoaWidener extends EmissionPhase {
  SoaWidener(PacketEmitter e) { super(e.state(), e); }

  /**
   * {@code bytes} × the number of lanes of a struct-of-arrays block: W, or {@code llvm.vscale} × W when
   * the packet function will be re-typed to vscale × W lanes (scalable packets: each field's block holds
   * vscale × W elements, so lane k's leaf at scalar offset o, size s, lies at vscale·W·o + k·s).
   */
  private Value timesLanes(long bytes) {
    if (!st.options().lanesMayBeRetyped()) return b.i64(bytes * w);
    if (bytes == 0) return b.i64(0);
    Type i64 = st.context().i64();
    Value vscale = b.call(st.module().intrinsic("llvm.vscale", i64), List.of(), "vscale");
    return b.mul(vscale, b.i64(bytes * w), "");
  }

  /** {@link #timesLanes} in the type {@code t} (a memory intrinsic's length). */
  private Value timesLanes(long bytes, Type t) {
    if (!st.options().lanesMayBeRetyped()) return b.constInt(t, bytes * w);
    Value v = timesLanes(bytes);
    return t.isInteger(64) ? v : b.cast(Opcode.TRUNC, v, t, "");
  }

  /** A GEP from a struct-of-arrays pointer: the scalar byte offset, scaled by W (vscale × W, see {@link #timesLanes}). */
  Value emitSoaGep(Value inst) {
    Type i64 = st.context().i64();
    Value offset = b.i64(0);
    Type t = inst.gepSourceElementType();
    int n = inst.numOperands();
    long constant = 0;
    for (int i = 1; i < n; i++) {
      Value idx = inst.operand(i);
      long scale;
      if (i == 1) {
        scale = st.module().allocSize(t);
      } else if (t.isStruct()) {
        int field = (int) idx.constIntSExt();
        constant += st.module().offsetOfElement(t, field);
        t = t.structElements().get(field);
        continue;
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        scale = st.module().allocSize(t);
      } else {
        throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, "a GEP through a non-aggregate type on a struct-of-arrays pointer");
      }
      if (idx.isConstantInt()) {
        constant += idx.constIntSExt() * scale;
        continue;
      }
      Value iv = uniform(idx) ? scal(idx) : vec(idx);
      Type it = iv.type().isVector() ? i64.vectorOf(w) : i64;
      if (!iv.type().scalarType().isInteger(64)) iv = b.cast(Opcode.SEXT, iv, it, "");
      Value term = b.mul(iv, iv.type().isVector() ? b.splat(timesLanes(scale), w, "") : timesLanes(scale), "");
      offset = offset.type().isVector() || term.type().isVector()
          ? b.add(offset.type().isVector() ? offset : b.splat(offset, w, ""), term.type().isVector() ? term : b.splat(term, w, ""), "")
          : b.add(offset, term, "");
    }
    if (constant != 0) {
      Value c = timesLanes(constant);
      offset = offset.type().isVector() ? b.add(offset, b.splat(c, w, ""), "") : b.add(offset, c, "");
    }
    Value base = get(inst.operand(0));
    if (offset.type().isVector() && !base.type().isVector()) base = b.splat(base, w, "");
    return b.gep(st.context().i8(), base, List.of(offset), false, nameOf(inst));
  }

  /**
   * An operand of a phi/select that merges struct-of-arrays pointers with others, as per-lane
   * pointers: a struct-of-arrays pointer's lane k points at its field at packet address + k*size.
   */
  Value lanePointers(Value merge, Value operand) {
    if (!st.soa().isDerived(operand)) return vec(operand);
    long size = st.soa().lanePointerFieldSize(merge).getAsLong();
    Value q = get(operand);
    if (!q.type().isVector()) q = b.splat(q, w, "");
    return soaLaneAddresses(q, size);
  }

  /** Lane addresses {@code p_k + k*size} for a varying struct-of-arrays pointer. */
  private Value soaLaneAddresses(Value scaled, long size) {
    return b.gep(st.context().i8(), scaled, List.of(linearOffsets(b, st.context().i64(), size)), false, "soa.lanes");
  }

  Value emitSoaLoad(Value inst) {
    Type t = inst.type();
    if (CompositePackets.isComposite(t)) {
      packetType(inst, t);
      return soaLoadParts(inst, t, get(inst.operand(0)), 0, Math.max(1, inst.alignment()));
    }
    Type vt = packetType(inst, t);
    Value q = get(inst.operand(0));
    int align = Math.max(1, inst.alignment());
    if (st.soa().splitLeafSize(inst).isPresent()) return splitLoad(inst, t, q, st.soa().splitLeafSize(inst).getAsLong(), align);
    if (!q.type().isVector()) {
      st.stats().vectorLoads++;
      int valign = MemoryWidener.vectorAlignment(align, shape(inst.operand(0)));
      if (MaskOps.isAllTrue(mask())) return b.load(vt, q, valign, nameOf(inst));
      Function f = st.module().intrinsic("llvm.masked.load", vt, q.type());
      return b.call(f, List.of(q, b.i32(valign), mask(), b.poison(vt)), nameOf(inst));
    }
    Value lanes = soaLaneAddresses(q, st.module().allocSize(t));
    st.remark(Remark.Kind.MEMORY, current(), inst, "load through a struct-of-arrays pointer with a varying index became "
        + (e.memory.cascades() ? "an if-cascade" : "a gather"));
    return e.memory.gatherOrCascade(inst, t, lanes, align, nameOf(inst));
  }

  /**
   * A vector or aggregate through a struct-of-arrays pointer q: each scalar leaf at scalar offset r
   * lies at {@code q + W*r} (lane k's copy k elements further), so it is one vector access (q
   * uniform) or one gather (q varying) per leaf.
   */
  private Value soaLoadParts(Value inst, Type t, Value q, long r, int align) {
    return e.memory.loadLeaves(inst, t, r, (lt, off) -> soaLoadLeaf(inst, lt, q, off, align));
  }

  private Value soaLoadLeaf(Value inst, Type t, Value q, long r, int align) {
    Type vt = t.vectorOf(w);
    Value at = r == 0 ? q : b.gep(st.context().i8(), q, List.of(timesLanes(r)), false, "");
    int a = MemoryWidener.partAlignment(align, r);
    if (!at.type().isVector()) {
      st.stats().vectorLoads++;
      if (MaskOps.isAllTrue(mask())) return b.load(vt, at, a, "");
      Function f = st.module().intrinsic("llvm.masked.load", vt, at.type());
      return b.call(f, List.of(at, b.i32(a), mask(), b.poison(vt)), "");
    }
    return e.memory.gatherOrCascade(inst, t, soaLaneAddresses(at, st.module().allocSize(t)), a, "");
  }

  /**
   * A scalar load spanning smaller leaves of struct-of-arrays memory (clang merged loads of adjacent
   * small fields into one wider integer): each leaf loaded on its own, the value put together from
   * them (little-endian: the leaf at the lowest offset is the lowest bits).
   */
  private Value splitLoad(Value inst, Type t, Value q, long leaf, int align) {
    long size = st.module().allocSize(t);
    Type it = st.context().intType((int) (size * 8));
    Type lt = st.context().intType((int) (leaf * 8));
    Value acc = null;
    for (long j = 0; j * leaf < size; j++) {
      Value part = b.cast(Opcode.ZEXT, soaLoadLeaf(inst, lt, q, j * leaf, align), it.vectorOf(w), "");
      if (j > 0) part = b.binop(Opcode.SHL, part, b.splat(b.constInt(it, j * leaf * 8), w, ""), "");
      acc = acc == null ? part : b.or(acc, part, "");
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "load through a struct-of-arrays pointer spanning " + (size / leaf)
        + " smaller fields became one access per " + leaf + "-byte field");
    return t.isInteger() ? acc : b.cast(Opcode.BITCAST, acc, t.vectorOf(w), nameOf(inst));
  }

  /** A scalar store spanning smaller leaves of struct-of-arrays memory: each leaf stored on its own. */
  private void splitStore(Value inst, Type t, Value vv, Value q, long leaf, int align) {
    long size = st.module().allocSize(t);
    Type it = st.context().intType((int) (size * 8));
    Type lt = st.context().intType((int) (leaf * 8));
    Value iv = t.isInteger() ? vv : b.cast(Opcode.BITCAST, vv, it.vectorOf(w), "");
    for (long j = 0; j * leaf < size; j++) {
      Value part = j == 0 ? iv : b.binop(Opcode.LSHR, iv, b.splat(b.constInt(it, j * leaf * 8), w, ""), "");
      soaStoreLeaf(lt, b.cast(Opcode.TRUNC, part, lt.vectorOf(w), ""), q, j * leaf, align);
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "store through a struct-of-arrays pointer spanning " + (size / leaf)
        + " smaller fields became one access per " + leaf + "-byte field");
  }

  private void soaStoreParts(Value inst, Type t, Value pv, Value q, long r, int align) {
    e.memory.storeLeaves(t, pv, r, (lt, lv, off) -> soaStoreLeaf(lt, lv, q, off, align));
  }

  private void soaStoreLeaf(Type t, Value pv, Value q, long r, int align) {
    Type vt = t.vectorOf(w);
    Value at = r == 0 ? q : b.gep(st.context().i8(), q, List.of(timesLanes(r)), false, "");
    int a = MemoryWidener.partAlignment(align, r);
    if (!at.type().isVector()) {
      st.stats().vectorStores++;
      if (MaskOps.isAllTrue(mask())) b.store(pv, at, a);
      else b.call(st.module().intrinsic("llvm.masked.store", vt, at.type()), List.of(pv, at, b.i32(a), mask()), "");
      return;
    }
    e.memory.scatterOrCascade(pv, soaLaneAddresses(at, st.module().allocSize(t)), a);
  }

  void emitSoaStore(Value inst) {
    Value val = inst.operand(0);
    Type t = val.type();
    if (CompositePackets.isComposite(t)) {
      packetType(inst, t);
      soaStoreParts(inst, t, vec(val), get(inst.operand(1)), 0, Math.max(1, inst.alignment()));
      return;
    }
    Type vt = packetType(inst, t);
    Value q = get(inst.operand(1));
    int align = Math.max(1, inst.alignment());
    Value vv = vec(val);
    if (st.soa().splitLeafSize(inst).isPresent()) {
      splitStore(inst, t, vv, q, st.soa().splitLeafSize(inst).getAsLong(), align);
      return;
    }
    if (!q.type().isVector()) {
      st.stats().vectorStores++;
      int valign = MemoryWidener.vectorAlignment(align, shape(inst.operand(1)));
      if (MaskOps.isAllTrue(mask())) {
        b.store(vv, q, valign);
      } else {
        Function f = st.module().intrinsic("llvm.masked.store", vt, q.type());
        b.call(f, List.of(vv, q, b.i32(valign), mask()), "");
      }
      return;
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "store through a struct-of-arrays pointer with a varying index became "
        + (e.memory.cascades() ? "an if-cascade" : "a scatter"));
    e.memory.scatterOrCascade(vv, soaLaneAddresses(q, st.module().allocSize(t)), align);
  }

  /**
   * {@code llvm.memcpy/memmove/memset} on struct-of-arrays objects. Every lane's scalar byte range
   * [o, o+n) of whole leaves is the packet range [W*o, W*(o+n)): with all lanes active and
   * struct-of-arrays memory on both sides (or a memset) one call on W*n bytes does it. Otherwise the
   * range is copied leaf by leaf, each leaf a masked vector load/store or gather/scatter, which needs
   * the object's field layout: clang's {@code !tbaa.struct} on the call (struct assignments carry it).
   */
  void emitSoaMemIntrinsic(Value inst, Function callee) {
    String name = callee.name();
    boolean set = name.startsWith("llvm.memset.");
    String what = "'" + name.replaceAll("^llvm\\.(mem[a-z]+).*", "$1") + "'";
    Value len = inst.operand(2);
    if (!len.isConstantInt()) throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, what + " of struct-of-arrays memory with a length that is not a constant");
    long n = len.constIntZExt();
    Value dst = inst.operand(0), src = inst.operand(1);
    boolean dSoa = st.soa().isDerived(dst);
    boolean sSoa = !set && st.soa().isDerived(src);
    Value dq = dSoa ? get(dst) : null;
    Value sq = sSoa ? get(src) : null;
    boolean blocks = dSoa && !dq.type().isVector() && (set ? uniform(src) : sSoa && !sq.type().isVector());
    if (blocks && MaskOps.isAllTrue(mask())) {
      Value isVolatile = inst.operand(3);
      b.call(callee, List.of(dq, set ? scal(src) : sq, timesLanes(n, len.type()), isVolatile), "");
      st.stats().vectorStores++;
      st.remark(Remark.Kind.MEMORY, current(), inst, what + " of struct-of-arrays memory became one " + what + " of "
          + (st.options().lanesMayBeRetyped() ? n + " × vscale × " + w : String.valueOf(n * w)) + " bytes");
      return;
    }
    List<long[]> leaves = tbaaStructLeaves(inst);
    if (leaves.isEmpty() && set && st.soa().interleavedLeafSize(dst).isPresent()) {
      // an interleaved private array: every leaf has one size (SoaPointers checked n is a multiple of it)
      long s = st.soa().interleavedLeafSize(dst).getAsLong();
      for (long o = 0; o + s <= n; o += s) leaves.add(new long[] {o, s});
    }
    if (leaves.isEmpty()) {
      throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, what + " of struct-of-arrays memory " + (dSoa && (set || sSoa) ? "under a partial mask" : "to or from memory that is not struct-of-arrays")
          + " without the object's field layout (clang's !tbaa.struct metadata, which struct assignments carry)");
    }
    Type i64 = st.context().i64();
    for (long[] leaf : leaves) {
      long o = leaf[0], size = leaf[1];
      if (o + size > n) continue;
      if (size > 16 || Long.bitCount(size) != 1 || set && size > 8) {
        throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, what + " of struct-of-arrays memory with a " + size + "-byte field");
      }
      Type t = st.context().intType((int) (size * 8));
      Type vt = t.vectorOf(w);
      int align = (int) Math.min(size, 16);
      Value values;
      if (set) {
        Value byteV = vec(src);
        Value wide = b.cast(Opcode.ZEXT, byteV, vt, "");
        long ones = 0;
        for (int i = 0; i < size; i++) ones = (ones << 8) | 1;
        values = size == 1 ? byteV : b.mul(wide, b.splat(b.constInt(t, ones), w, ""), "");
      } else if (sSoa) {
        values = soaLeafLoad(sq, o, size, vt, align);
      } else {
        Value p = uniform(src) ? b.splat(scal(src), w, "") : vec(src);
        Value lanes = b.gep(st.context().i8(), p, List.of(b.splat(b.constInt(i64, o), w, "")), false, "");
        Function g = st.module().intrinsic("llvm.masked.gather", vt, lanes.type());
        values = b.call(g, List.of(lanes, b.i32(1), mask(), b.poison(vt)), "");
      }
      if (dSoa) {
        soaLeafStore(dq, o, size, values, vt, align);
      } else {
        // a uniform destination gets every active lane's copy in lane order (the scatter writes
        // the lanes in order: the highest active lane's bytes stay)
        Value p = uniform(dst) ? b.splat(scal(dst), w, "") : vec(dst);
        Value lanes = b.gep(st.context().i8(), p, List.of(b.splat(b.constInt(i64, o), w, "")), false, "");
        Function sc = st.module().intrinsic("llvm.masked.scatter", vt, lanes.type());
        b.call(sc, List.of(values, lanes, b.i32(1), mask()), "");
      }
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, what + " of struct-of-arrays memory became " + leaves.size()
        + " per-field masked copies (layout from !tbaa.struct)");
  }

  /**
   * The (offset, size) of each field clang's {@code !tbaa.struct} lists on a memory intrinsic. Each
   * entry must be one scalar whose TBAA type has that size: clang lists an array field as one entry of
   * type {@code char}, which does not tell its elements' size (their struct-of-arrays layout).
   */
  private List<long[]> tbaaStructLeaves(Value inst) {
    List<long[]> out = new ArrayList<>();
    for (Value.TbaaField f : inst.tbaaStruct()) {
      String type = f.typeName();
      long expected = switch (type) {
        case "omnipotent char", "char", "signed char", "unsigned char", "_Bool", "bool" -> 1;
        case "short", "unsigned short" -> 2;
        case "int", "unsigned int", "float" -> 4;
        case "long", "unsigned long", "long long", "unsigned long long", "double", "any pointer" -> 8;
        default -> type.startsWith("p1 ") || type.startsWith("p2 ") || type.startsWith("p3 ") ? 8 : -1;
      };
      if (expected != f.size()) {
        throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, "a copy of struct-of-arrays memory whose field at byte " + f.offset() + " (" + f.size()
            + " bytes, TBAA type '" + type + "') is not one scalar: an array or union field has no known struct-of-arrays layout");
      }
      out.add(new long[] {f.offset(), f.size()});
    }
    return out;
  }

  /** Lane k's leaf at scalar offset o (size s) of struct-of-arrays pointer q: consecutive when q is uniform. */
  private Value soaLeafLoad(Value q, long o, long size, Type vt, int align) {
    if (!q.type().isVector()) {
      Value base = b.gep(st.context().i8(), q, List.of(timesLanes(o)), false, "");
      Function f = st.module().intrinsic("llvm.masked.load", vt, base.type());
      return b.call(f, List.of(base, b.i32(align), mask(), b.poison(vt)), "");
    }
    Value lanes = soaLaneAddresses(b.gep(st.context().i8(), q, List.of(b.splat(timesLanes(o), w, "")), false, ""), size);
    Function g = st.module().intrinsic("llvm.masked.gather", vt, lanes.type());
    return b.call(g, List.of(lanes, b.i32(align), mask(), b.poison(vt)), "");
  }

  private void soaLeafStore(Value q, long o, long size, Value values, Type vt, int align) {
    if (!q.type().isVector()) {
      Value base = b.gep(st.context().i8(), q, List.of(timesLanes(o)), false, "");
      Function f = st.module().intrinsic("llvm.masked.store", vt, base.type());
      b.call(f, List.of(values, base, b.i32(align), mask()), "");
      return;
    }
    Value lanes = soaLaneAddresses(b.gep(st.context().i8(), q, List.of(b.splat(timesLanes(o), w, "")), false, ""), size);
    Function sc = st.module().intrinsic("llvm.masked.scatter", vt, lanes.type());
    b.call(sc, List.of(values, lanes, b.i32(align), mask()), "");
  }
}
