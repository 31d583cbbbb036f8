package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.MathMappings;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.pipeline.SlotSsa;
import org.packetizer.core.mask.MaskOps;

/**
 * Instruction vectorization of memory (thesis 4.5.3, 4.5.4): allocas (one slot per lane), loads
 * and stores by the address's shape (uniform: scalar; consecutive: vector, masked when the block
 * may be partial; otherwise gathers/scatters or the thesis' guarded if-cascade, selectable),
 * loads and stores of vectors and aggregates leaf by leaf, and atomics (one per active lane, in
 * lane order, or one combined atomic). Struct-of-arrays memory is the {@link SoaWidener}'s, memory
 * shared by the lanes at uniform addresses the {@link UniformMemoryWidener}'s.
 */
final class MemoryWidener extends EmissionPhase {
  MemoryWidener(PacketEmitter e) { super(e.state(), e); }

  private final AtomicEmitter atomics = new AtomicEmitter(b, packet, masks, w);

  /** The packet values and the mask the atomic emitter works on. */
  final AtomicEmitter.Lanes lanes = new AtomicEmitter.Lanes() {
    @Override public Value vec(Value v) { return MemoryWidener.this.vec(v); }
    @Override public Value scal(Value v) { return MemoryWidener.this.scal(v); }
    @Override public boolean uniform(Value v) { return MemoryWidener.this.uniform(v); }
    @Override public Value mask() { return MemoryWidener.this.mask(); }
  };

  /**
   * Atomics ({@link AtomicEmitter}): the result, {@code Optional.empty()} when the instruction has
   * none, null when {@code inst} is not an atomic operation handled there.
   */
  Optional<Value> emitAtomic(Value inst, Opcode op) {
    switch (op) {
      case ATOMICRMW -> {
        st.remark(Remark.Kind.MEMORY, current(), inst, "atomicrmw: " + (uniform(inst.operand(0)) && AtomicEmitter.combinable(inst)
            ? "one combined atomic for the active lanes, each lane's old value from a prefix in lane order"
            : "one atomic per active lane, in lane order"));
        return Optional.of(atomics.rmw(inst, lanes));
      }
      case ATOMICCMPXCHG -> {
        st.remark(Remark.Kind.MEMORY, current(), inst, "cmpxchg: one per active lane, in lane order");
        return Optional.of(atomics.cmpxchg(inst, lanes));
      }
      case FENCE -> {
        atomics.fence(inst, lanes);
        return Optional.empty();
      }
      case CALL -> {
        return emitStackSaveRestore(inst);
      }
      case EXTRACTVALUE -> {
        // a cmpxchg's packet value is { <W x T>, <W x i1> }
        Value agg = inst.operand(0);
        if (agg.isInstruction() && agg.opcode() == Opcode.ATOMICCMPXCHG && !uniform(agg)) {
          return Optional.of(b.extractValue(get(agg), inst.indices()[0], nameOf(inst)));
        }
        return null;
      }
      case LOAD -> {
        if (!inst.isAtomic() || inst.isVolatile() || uniform(inst.operand(0)) || st.soa().isDerived(inst.operand(0))) return null;
        st.remark(Remark.Kind.MEMORY, current(), inst, "atomic load through varying addresses: one per active lane, in lane order");
        return Optional.of(atomics.load(inst, lanes));
      }
      case STORE -> {
        if (!inst.isAtomic() || inst.isVolatile() || st.soa().isDerived(inst.operand(1))
            || uniform(inst.operand(0)) && uniform(inst.operand(1)) && !st.divergence().mayBePartial(current())) {
          return null;
        }
        st.remark(Remark.Kind.MEMORY, current(), inst, "atomic store: one per active lane, in lane order");
        atomics.store(inst, lanes);
        return Optional.empty();
      }
      default -> {
        return null;
      }
    }
  }

  Value emitAlloca(Value inst) {
    Type t = inst.allocatedType();
    Value count = inst.operand(0);
    if (!count.isConstantInt()) return emitDynamicAlloca(inst);
    long n = count.constIntZExt();
    Type one = n == 1 ? t : t.arrayOf(n);
    if (st.soa().isDerived(inst)) {
      // interleaved (SoaPointers.findInterleavedAllocas): lane k's leaf at scalar offset o, size s, at W*o + k*s
      long leaf = st.soa().interleavedLeafSize(inst).getAsLong();
      Value base = entryB.alloca(one.arrayOf(w), nameOf(inst, ".interleaved"));
      base.setAlignment((int) Math.max(inst.alignment(), Math.min(64, leaf * w)));
      st.remark(Remark.Kind.MEMORY, current(), inst, "private " + one + ": interleaved layout (element-major, the " + w
          + " lanes' copies of each " + leaf + "-byte element side by side), so an index that is the same in every lane is one vector access");
      return base;
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "private " + one + ": one block per lane"
        + st.soa().perLaneReason(inst).map(r -> ", because " + r).orElse(""));
    // one private slot per lane: lane k's object at base + k * size(one)
    if (st.options().lanesMayBeRetyped()) {
      // the packet function will run vscale × W lanes: vscale × W blocks (llvm.vscale survives the re-typing)
      Type i64 = st.context().i64();
      Value lanes = entryB.mul(entryB.call(st.module().intrinsic("llvm.vscale", i64), List.of(), "vscale"), entryB.i64(w), "lanes.n");
      Value blocks = entryB.arrayAlloca(one, lanes, nameOf(inst, ".lanes"));
      blocks.setAlignment(Math.max(inst.alignment(), 16));
      return b.gep(one, blocks, List.of(linearOffsets(b, i64, 1)), true, nameOf(inst));
    }
    Value base = entryB.alloca(one.arrayOf(w), nameOf(inst, ".lanes"));
    int align = Math.max(inst.alignment(), 16);
    base.setAlignment(align);
    Value iota = linearOffsets(b, st.context().i64(), 1);
    return b.gep(one.arrayOf(w), base, List.of(b.i64(0), iota), true, nameOf(inst));
  }

  /**
   * A dynamic allocation (C99 variable-length array, {@code alloca T, %n}): one allocation per lane,
   * in lane order, of that lane's own size (0 for inactive lanes: they allocate nothing); the packet
   * value is the vector of the lanes' addresses. Each sits on the packet function's stack until the
   * function returns or a {@code llvm.stackrestore} frees it, as in the scalar function.
   */
  private Value emitDynamicAlloca(Value inst) {
    Value count = inst.operand(0);
    Value counts = vec(count);
    Value zero = b.constNull(count.type());
    Value addrs = b.poison(st.context().ptrType().vectorOf(w));
    for (int k = 0; k < w; k++) {
      Value n = b.extractElement(counts, k, "");
      if (!MaskOps.isAllTrue(mask())) n = b.select(b.extractElement(mask(), k, ""), n, zero, inst.name() + ".n" + k);
      Value a = b.arrayAlloca(inst.allocatedType(), n, inst.name() + "." + k);
      a.setAlignment(Math.max(1, inst.alignment()));
      addrs = b.insertElement(addrs, a, k, "");
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "dynamic allocation: one per lane, each of its own size");
    return addrs;
  }

  /**
   * {@code llvm.stacksave}/{@code llvm.stackrestore} (scopes of variable-length arrays): the stack is
   * saved once (all lanes see the same pointer) and restored once when some lane is active, which
   * frees the allocations every lane made since the save. Null for other calls.
   */
  private Optional<Value> emitStackSaveRestore(Value inst) {
    Optional<Function> callee = inst.calledFunction();
    if (callee.isEmpty()) return null;
    String name = callee.get().name();
    if (name.startsWith("llvm.stacksave")) {
      Value s = b.insertClone(inst, nameOf(inst));
      return Optional.of(uniform(inst) ? s : b.splat(s, w, nameOf(inst, ".lanes")));
    }
    if (name.startsWith("llvm.stackrestore")) {
      Value p = inst.operand(0);
      if (uniform(p)) {
        Value sp = scal(p);
        b.insertClone(inst, "").setOperand(0, sp);
        return Optional.empty();
      }
      // every active lane holds the pointer of the same save; inactive lanes may hold stale ones
      Value pv = vec(p);
      Value lane = MaskOps.isAllTrue(mask()) ? b.i32(0) : firstActiveLane();
      whenAnyLaneActive(".restore", ".restored", "any.restore", () -> {
        Value sp = b.extractElement(pv, lane, "");
        b.insertClone(inst, "").setOperand(0, sp);
        return null;
      }, null);
      return Optional.empty();
    }
    return null;
  }

  Value emitLoad(Value inst) {
    if (inst.isVolatile() || inst.isAtomic()) throw unsupported(Rejection.VOLATILE_OR_ATOMIC_VARYING, inst, "a volatile or atomic load through a varying address");
    if (CompositePackets.isComposite(inst.type())) return emitCompositeLoad(inst);
    Type t = inst.type();
    Type vt = packetType(inst, t);
    Value ptr = inst.operand(0);
    int align = Math.max(1, inst.alignment());
    Value pairedDone = pairDone.remove(inst);
    if (pairedDone != null) return pairedDone;
    Value narrowDone = narrowGathered.remove(inst);
    if (narrowDone != null) return narrowDone;
    Shape s = shape(ptr);
    if (s.isLinear() && s.stride() == st.module().allocSize(t)) {
      st.stats().vectorLoads++;
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      if (MaskOps.isAllTrue(mask())) return b.load(vt, p0, valign, nameOf(inst));
      // (overloaded on the pointer's own type: it may be in another address space)
      Function f = st.module().intrinsic("llvm.masked.load", vt, p0.type());
      return b.call(f, List.of(p0, b.i32(valign), mask(), b.poison(vt)), nameOf(inst));
    }
    // (scalable packets: a span of (W-1)*F+1 elements and per-lane extracts depend on the lane count)
    if (st.options().memoryStrategy() == MemoryStrategy.GATHER && !st.options().scalable() && !st.options().lanesMayBeRetyped()) {
      Value permuted = permuteLookup(inst, t, ptr);
      if (permuted != null) return permuted;
      Value bytes = byteWindow(inst, t, vt, ptr);
      if (bytes != null) return bytes;
      Value dynamic = dynamicVariants(inst, t, ptr);
      if (dynamic != null) return dynamic;
      Value strided = stridedLoad(inst, t, ptr, s, align);
      if (strided != null) return strided;
      Value narrow = narrowGathers(inst, t, ptr);
      if (narrow != null) return narrow;
      Value window = windowLoad(inst, t, ptr);
      if (window != null) return window;
      Value paired = pairedLookup(inst, t, vt, ptr, align);
      if (paired != null) return paired;
      Value lookup = tableLookup(inst, t, vt, ptr, align);
      if (lookup != null) return lookup;
      Value lanes = laneLoads(inst, t, vt, ptr, align);
      if (lanes != null) return lanes;
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, cascades() ? "load from varying addresses became a guarded if-cascade of " + w + " scalar loads"
        : "load from " + s + " addresses became a gather" + onceBeforeLoopNote());
    return gatherOrCascade(inst, t, vec(ptr), align, nameOf(inst));
  }

  /**
   * Largest stride, in elements, loaded as one span and de-interleaved ({@link #stridedLoad}) for any
   * number of fields, and the largest for an interleaved store group. Measured on x86 (znver5 host,
   * llc for haswell at W8 and znver4 at W16, a loop over 4,096 structs): one field at stride 2-8 costs
   * 0.08-0.24 ns per struct as a span and shuffle, 0.19-0.24 as a gather; at stride 12 and 16 the
   * gather wins (0.24 vs 0.25-0.27, 0.32 vs 0.47); four fields at stride 16 the span wins (0.46-0.49
   * vs 0.75-0.85). Hence {@link #MAX_GROUP_INTERLEAVE}.
   */
  static final int MAX_INTERLEAVE = 8;

  /** Largest stride, in elements, for a load group that reads at least a quarter of the fields. */
  static final int MAX_GROUP_INTERLEAVE = 16;

  /**
   * A load whose address is linear with a stride of F elements (2 ≤ F ≤ {@value #MAX_INTERLEAVE}) —
   * one field of an array of structs indexed by a consecutive index, {@code p[i].y} — under a full
   * mask: one load of the span from lane 0's element to lane W-1's ({@code (W-1)*F+1} elements, no byte
   * beyond the last lane's element, none before the first: every byte lies between two elements the
   * scalar code reads, in the same object) and one shufflevector taking every F-th element (LLVM's
   * interleaved-access lowering turns such a pattern into shuffles). Under a partial mask the ends of
   * the span may belong to inactive lanes that must not be read: a gather. Null when not applicable.
   */
  private Value stridedLoad(Value inst, Type t, Value ptr, Shape s, int align) {
    SharedSpan shared = sharedSpans.remove(inst);
    if (!s.isLinear() || !MaskOps.isAllTrue(mask())) return null;
    if (!interleavable(t, s.stride(), MAX_GROUP_INTERLEAVE)) return null;
    long es = st.module().allocSize(t);
    long stride = s.stride();
    int f = (int) (stride / es);
    if (shared != null && shared.block().equals(b.currentBlock())) {
      if (shared.fields() != null) {
        // a later field of a group loaded as rows: its vector is already transposed
        st.remark(Remark.Kind.MEMORY, current(), inst, "load with a stride of " + f + " elements: the field transposed from the rows"
            + " loaded with " + shared.first().name() + " (interleaved group)");
        return shared.fields().get(shared.element());
      }
      // a later field of a group: its elements are already in the span an earlier field loaded
      st.remark(Remark.Kind.MEMORY, current(), inst, "load with a stride of " + f + " elements: a shuffle of the span shared with "
          + shared.first().name() + " (interleaved group)");
      return deinterleave(shared.span(), f, shared.element(), nameOf(inst));
    }
    // the other fields of the same structs this block loads before anything may write memory:
    // one span from the lowest field of lane 0 to the highest of lane W-1 serves them all
    Rooted me = rooted(ptr);
    List<Member> group = new ArrayList<>();
    group.add(new Member(inst, me.offset()));
    for (Value c : followingInBlock(inst)) {
      if (st.ssa().opcode(c) != Opcode.LOAD || c.isVolatile() || c.isAtomic() || !c.type().equals(t) || !groupable(c, c.operand(0), stride)) continue;
      if (e.uniformMemory.shared() != null && e.uniformMemory.shared().privateLoad(c).isPresent()) continue;
      Rooted r = rooted(c.operand(0));
      if (r.root().equals(me.root()) && Math.floorMod(r.offset() - me.offset(), es) == 0) group.add(new Member(c, r.offset()));
    }
    long lo = group.stream().mapToLong(Member::offset).min().orElseThrow();
    long hi = group.stream().mapToLong(Member::offset).max().orElseThrow();
    if (hi - lo >= stride) {
      // fields of neighbouring structs (p[i].x and p[i+1].x): keep the span to this field's own
      group = List.of(new Member(inst, me.offset()));
      lo = hi = me.offset();
    }
    if (f > MAX_INTERLEAVE && group.size() * 4 < f) {
      st.remark(Remark.Kind.MEMORY, current(), inst, "load with a stride of " + f + " elements, " + group.size() + " of them read: gathers"
          + " (a span load and shuffles measured slower than gathers above a stride of " + MAX_INTERLEAVE + " unless a quarter of the fields are read)");
      return null;
    }
    int n = (int) (((w - 1) * stride + (hi - lo)) / es) + 1;
    Value p0 = laneZero(ptr, stride);
    int columns = (int) ((hi - lo) / es) + 1;
    String rowsWhy = rowTranspose(t, columns, f);
    if (rowsWhy != null) {
      Map<Integer, Value> fields = transposedRows(inst, p0, me.offset(), lo, stride, es, align, group, t);
      for (Member m : group) {
        if (m.inst() != inst) sharedSpans.put(m.inst(), new SharedSpan(null, b.currentBlock(), inst, (int) ((m.offset() - lo) / es), fields));
      }
      st.remark(Remark.Kind.MEMORY, current(), inst, "load with a stride of " + f + " elements became rows of 4 elements per lane"
          + " transposed in 128-bit blocks (" + group.size() + " field(s) of the same structs, columns " + columns + "; " + rowsWhy + ")");
      return fields.get((int) ((me.offset() - lo) / es));
    }
    if (lo != me.offset()) p0 = b.gep(st.context().i8(), p0, List.of(b.i64(lo - me.offset())), false, nameOf(inst, ".group"));
    Value span = b.load(t.vectorOf(n), p0, partAlignment(align, Math.abs(lo - me.offset())), nameOf(inst, ".span"));
    st.stats().vectorLoads++;
    for (Member m : group) {
      if (m.inst() != inst) sharedSpans.put(m.inst(), new SharedSpan(span, b.currentBlock(), inst, (int) ((m.offset() - lo) / es), null));
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "load with a stride of " + f + " elements became one load of the " + n
        + "-element span and a shuffle (de-interleave)" + (group.size() > 1 ? ", the span shared by " + group.size() + " loads of the same structs (interleaved group)" : "")
        + (rowsDeclined != null ? "; not as rows: " + rowsDeclined : ""));
    return deinterleave(span, f, (int) ((me.offset() - lo) / es), nameOf(inst));
  }

  /**
   * Why a load group of {@code columns} consecutive 32-bit columns (from its lowest field to its
   * highest) at a stride of {@code f} elements is loaded as rows and transposed
   * ({@link #transposedRows}) instead of one span and a shuffle per field; null to keep the span. Knob
   * {@code -Dpacketizer.memory.rowTranspose=auto|on|off} (on: any target at a width that is a multiple
   * of 4). Default auto, by packetizer-bench/microbench/interleave (ns per struct, best of 15, llc for
   * the CPU, span vs rows): x86 at W8, W16 and W32 (the interleaved drivers' 2W) — on AVX2 (haswell)
   * from a stride of 4 (W16 stride 4: 0.43 vs 0.25, stride 14 twelve fields 1.57 vs 0.70), on AVX-512
   * (znver4) from a stride of 7 (below it equal at W8/W16 and slower at W32: stride 4 0.23 vs 0.27;
   * stride 8 W32 0.74 vs 0.53, stride 12 1.86 vs 0.79); never at W4 (SSE and AVX2: equal, the span stays).
   */
  private String rowTranspose(Type t, int columns, int f) {
    rowsDeclined = null;
    if (columns < 4 || w % 4 != 0 || !(t.isFloat() || t.isInteger() && t.intWidth() == 32)) return null;
    String knob = System.getProperty("packetizer.memory.rowTranspose", "auto");
    if (knob.equals("off")) return decline("-Dpacketizer.memory.rowTranspose=off");
    if (knob.equals("on")) return "-Dpacketizer.memory.rowTranspose=on";
    if (w != 8 && w != 16 && w != 32) return decline("W" + w + (w == 4 ? ": measured no faster than the span on SSE and AVX2" : ": not measured"));
    if (org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) return decline("measured on x86 only");
    org.packetizer.core.wrapper.HardwareWidth.Target target = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    if (target.width() < org.packetizer.core.wrapper.HardwareWidth.AVX) return decline("the target has no AVX (not measured)");
    boolean avx512 = target.width() >= org.packetizer.core.wrapper.HardwareWidth.AVX512;
    if (avx512 && f < 7) return decline("AVX-512 below a stride of 7: measured equal at W8/W16 and slower at W32");
    return (avx512 ? "AVX-512" : "AVX") + " at W" + w + " and a stride of " + f + ": measured faster than the span's shuffles";
  }

  /** Why {@link #rowTranspose} kept the span for the group it judged last (for the remark), or null. */
  private String rowsDeclined;

  private String decline(String why) {
    rowsDeclined = why;
    return null;
  }

  /**
   * A load group as rows: for each chunk of 4 columns holding a member (chunks at the lowest field
   * and every 4 columns on, the last one moved back to end at the highest field, so that no row reads
   * past the highest field of its struct), every lane's 4 elements are one {@code <4 x T>} load, and
   * the W rows are transposed in 128-bit blocks: rows m, m+4, m+8, ... concatenated into X_m, then
   * unpack-low/high of (X_0, X_1) and (X_2, X_3), then the pairs of those — a 4x4 transpose in every
   * block, which x86 lowers to unpcklps/unpckhps/shufps and the concatenations to vinsertf128 from
   * memory. Every byte read lies between lane 0's lowest field and lane W-1's highest (the bytes the
   * span would load). Returns each member's field vector by its column.
   */
  private Map<Integer, Value> transposedRows(Value inst, Value p0, long meOffset, long lo, long stride, long es, int align, List<Member> group, Type t) {
    int columns = (int) ((hi(group) - lo) / es) + 1;
    Set<Integer> wanted = new HashSet<>();
    for (Member m : group) wanted.add((int) ((m.offset() - lo) / es));
    Map<Integer, Value> fields = new HashMap<>();
    Type row = t.vectorOf(4);
    for (int start = 0; fields.size() < wanted.size(); start += 4) {
      int cs = Math.min(start, columns - 4);
      boolean any = false;
      for (int j = 0; j < 4; j++) any |= wanted.contains(cs + j) && !fields.containsKey(cs + j);
      if (!any) continue;
      List<Value> rows = new ArrayList<>();
      for (int k = 0; k < w; k++) {
        long off = k * stride + lo + cs * es - meOffset;
        Value at = off == 0 ? p0 : b.gep(st.context().i8(), p0, List.of(b.i64(off)), false, inst.name() + ".at" + k + "c" + cs);
        rows.add(b.load(row, at, partAlignment(align, Math.abs(off)), inst.name() + ".row" + k + "c" + cs));
        st.stats().vectorLoads++;
      }
      Value[] x = new Value[4];
      for (int m = 0; m < 4; m++) {
        List<Value> cat = new ArrayList<>();
        for (int blk = 0; blk < w / 4; blk++) cat.add(rows.get(m + 4 * blk));
        while (cat.size() > 1) {
          List<Value> next = new ArrayList<>();
          for (int i = 0; i < cat.size(); i += 2) next.add(concat(cat.get(i), cat.get(i + 1)));
          cat = next;
        }
        x[m] = cat.get(0);
      }
      Value t0 = blockShuffle(x[0], x[1], new int[] {0, 0, 1, 1}, new boolean[] {false, true, false, true}, "");
      Value t1 = blockShuffle(x[0], x[1], new int[] {2, 2, 3, 3}, new boolean[] {false, true, false, true}, "");
      Value t2 = blockShuffle(x[2], x[3], new int[] {0, 0, 1, 1}, new boolean[] {false, true, false, true}, "");
      Value t3 = blockShuffle(x[2], x[3], new int[] {2, 2, 3, 3}, new boolean[] {false, true, false, true}, "");
      boolean[] pairs = {false, false, true, true};
      for (int j = 0; j < 4; j++) {
        int col = cs + j;
        if (!wanted.contains(col) || fields.containsKey(col)) continue;
        Value a = j < 2 ? t0 : t1, c = j < 2 ? t2 : t3;
        int l = (j % 2) * 2;
        fields.put(col, blockShuffle(a, c, new int[] {l, l + 1, l, l + 1}, pairs, inst.name() + ".col" + col));
      }
    }
    return fields;
  }

  private static long hi(List<Member> group) {
    return group.stream().mapToLong(Member::offset).max().orElseThrow();
  }

  /** Two vectors of equal length, one after the other. */
  private Value concat(Value a, Value c) {
    int n = a.type().vectorSize();
    List<Value> idx = new ArrayList<>();
    for (int k = 0; k < 2 * n; k++) idx.add(b.i32(k));
    return b.shuffle(a, c, b.constVector(idx), "");
  }

  /** The same 4-element pattern in every 128-bit block of W lanes: element {@code at[i]} of the block of the first or ({@code second[i]}) the second operand. */
  private Value blockShuffle(Value a, Value c, int[] at, boolean[] second, String name) {
    List<Value> idx = new ArrayList<>();
    for (int blk = 0; blk < w / 4; blk++) for (int i = 0; i < 4; i++) idx.add(b.i32((second[i] ? w : 0) + 4L * blk + at[i]));
    return b.shuffle(a, c, b.constVector(idx), name);
  }

  /** Every F-th element of a span from element {@code first}: lane k's field. */
  private Value deinterleave(Value span, int f, int first, String name) {
    List<Value> idx = new ArrayList<>();
    for (int k = 0; k < w; k++) idx.add(b.i32((long) k * f + first));
    return b.shuffle(span, b.poison(span.type()), b.constVector(idx), name);
  }

  /** Element types a span load or an interleaved store handles, with a stride of 2..max of them. */
  private boolean interleavable(Type t, long stride, int max) {
    long e = st.module().allocSize(t);
    if (e <= 0 || st.module().storeSize(t) != e || stride <= e || stride % e != 0 || stride / e > max) return false;
    return t.isFloat() || t.isDouble() || t.isInteger() && (t.intWidth() == 8 || t.intWidth() == 16 || t.intWidth() == 32 || t.intWidth() == 64);
  }

  /** A load or store the ordinary path of this widener would emit, at a linear address of the given stride. */
  private boolean groupable(Value inst, Value ptr, long stride) {
    if (st.soa().isDerived(ptr) || uniform(ptr)) return false;
    Shape s = shape(ptr);
    return s.isLinear() && s.stride() == stride;
  }

  /** A pointer as a root plus a constant byte offset (through GEPs with constant indices only). */
  private record Rooted(Value root, long offset) {}

  private Rooted rooted(Value ptr) {
    Value p = ptr;
    long off = 0;
    for (int guard = 0; guard < 16 && p.isInstruction() && st.ssa().opcode(p) == Opcode.GEP && !p.operand(0).type().isVector(); guard++) {
      for (int i = 1; i < p.numOperands(); i++) if (!p.operand(i).isConstantInt()) return new Rooted(p, off);
      off += st.ssa().gepConstantOffset(p);
      p = p.operand(0);
    }
    return new Rooted(p, off);
  }

  /** A member of an interleaved group: a load or store and its byte offset from the group's root. */
  private record Member(Value inst, long offset) {}

  /** A group's span, loaded at {@code first} in {@code block}; the member's field starts at {@code element}. */
  private record SharedSpan(Value span, Block block, Value first, int element, Map<Integer, Value> fields) {}

  private final Map<Value, SharedSpan> sharedSpans = new HashMap<>();

  /** Intrinsics that neither touch memory nor stop the program: loads and stores may move across them. */
  private static final Set<String> PURE_INTRINSICS = Set.of("llvm.fmuladd", "llvm.fma", "llvm.fabs", "llvm.sqrt", "llvm.minnum",
      "llvm.maxnum", "llvm.minimum", "llvm.maximum", "llvm.floor", "llvm.ceil", "llvm.trunc", "llvm.round", "llvm.rint",
      "llvm.nearbyint", "llvm.copysign", "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs");

  /**
   * The instructions after {@code inst} in its scalar block before the first one that may write
   * memory or not return (a store, an atomic, a fence, a call other than a pure intrinsic).
   */
  private List<Value> followingInBlock(Value inst) {
    List<Value> out = new ArrayList<>();
    int budget = 256;
    for (Value c = inst.nextInstruction(); c != null && budget-- > 0; c = c.nextInstruction()) {
      if (!movableAcross(c, false)) break;
      out.add(c);
    }
    return out;
  }

  /** Whether loads (and, with {@code alsoStores}, stores) may move across {@code c}. */
  private boolean movableAcross(Value c, boolean alsoStores) {
    Opcode op = st.ssa().opcode(c);
    if (op == Opcode.CALL) {
      String name = c.calledFunction().map(Function::name).orElse("");
      int dot = name.indexOf('.', "llvm.".length());
      return name.startsWith("llvm.") && PURE_INTRINSICS.contains(dot < 0 ? name : name.substring(0, dot));
    }
    // (an atomic load may order later loads after it; a volatile one is kept in place, too)
    if (op == Opcode.LOAD) return !alsoStores && !c.isAtomic() && !c.isVolatile();
    return !(op == Opcode.STORE || op == Opcode.INVOKE || op == Opcode.CALLBR || op == Opcode.ATOMICRMW || op == Opcode.ATOMICCMPXCHG
        || op == Opcode.FENCE || op == Opcode.VAARG || op.isTerminator());
  }

  /**
   * The element type of a table-lookup GEP with a uniform base available here: {@code gep T, base, i}
   * (T) or {@code gep [N x T], base, 0, i} (T); null for another shape.
   */
  private Type tableElement(Value ptr) {
    Value base = ptr.operand(0);
    if (base.type().isVector() || !uniform(base) || !available(base)) return null;
    int n = ptr.numOperands();
    Type src = ptr.gepSourceElementType();
    if (n == 2) return src;
    if (n == 3 && src.isArray() && ptr.operand(1).isConstantInt() && ptr.operand(1).constIntZExt() == 0) {
      return src.elementType();
    }
    return null;
  }

  /**
   * A table lookup {@code base[i]}: a uniform base and one varying index that is a 32-bit value (or
   * its sign extension, a non-negative zero extension, or the zero extension of a byte or short) —
   * {@code table[idx & 255]}, {@code table[(unsigned char) x]}. The addresses
   * stay a uniform base plus 32-bit offsets instead of a vector of 64-bit pointers: a gather with a
   * 32-bit index vector where the target has fast hardware gathers ({@code vpgatherdd}), else, under
   * a full mask, W scalar loads at base + offset (no 64-bit pointer vector to build and take apart
   * lane by lane, which is what LLVM's expansion of a gather does on such targets). Null when the
   * address has another shape.
   */
  private Value tableLookup(Value inst, Type t, Type vt, Value ptr, int align) {
    if (!ptr.isInstruction() || st.ssa().opcode(ptr) != Opcode.GEP || st.soa().isDerived(ptr)) return null;
    Type elem = tableElement(ptr);
    if (elem == null) return null;
    Value base = ptr.operand(0);
    int n = ptr.numOperands();
    Value idx = ptr.operand(n - 1);
    if (idx.type().isVector() || uniform(idx)) return null;
    Value narrow;
    if (idx.type().isInteger(32)) {
      narrow = idx;
    } else if (idx.isInstruction() && idx.type().isInteger(64) && idx.operand(0).type().isInteger(32)
        && (st.ssa().opcode(idx) == Opcode.SEXT || st.ssa().opcode(idx) == Opcode.ZEXT && idx.nneg())) {
      // (GEP indices are sign-extended: a zero extension is the same only when the value is non-negative)
      narrow = idx.operand(0);
    } else if (idx.isInstruction() && idx.type().isInteger(64) && st.ssa().opcode(idx) == Opcode.ZEXT && idx.operand(0).type().isInteger()
        && idx.operand(0).type().intWidth() < 32) {
      // (a byte or short index, table[(unsigned char) x]: zero-extended to 32 bits here)
      narrow = idx.operand(0);
    } else {
      return null;
    }
    boolean widened = !narrow.type().isInteger(32);
    // (the index's operand may live in another block without a slot: then the index itself, truncated
    // back to the 32 bits it was extended from; when neither is at hand, the ordinary gather)
    Value offs;
    if (available(narrow)) {
      offs = widened ? b.cast(Opcode.ZEXT, vec(narrow), st.context().i32().vectorOf(w), "") : vec(narrow);
    } else if (narrow != idx && available(idx)) {
      offs = b.cast(Opcode.TRUNC, vec(idx), st.context().i32().vectorOf(w), "");
    } else {
      return null;
    }
    GatherLowering how = gatherLowering();
    long size = st.module().allocSize(t);
    String reason = gatherReason;
    if (how == GatherLowering.HARDWARE_GATHER && hardwareGatherTarget && size != 4 && size != 8) {
      // no gather instruction loads 1- or 2-byte elements: LLVM would expand it through 64-bit pointers
      how = GatherLowering.SCALAR_LOADS;
      reason = "gather instructions load only 4- and 8-byte elements";
    }
    Value bp = scal(base);
    boolean full = MaskOps.isAllTrue(mask());
    String speculated = "";
    long bound = full ? -1 : widened ? (1L << narrow.type().intWidth()) - 1 : indexBound(narrow);
    if (widened) boundKind = Opcode.AND;
    if (!full && bound >= 0 && withinGlobal(base, elem, t, align, bound)) {
      // Every lane's offset, inactive ones included, stays within the table once the bound is applied
      // again to the frozen offsets (an inactive lane's offset may be poison or anything else): the
      // load needs neither the mask nor a select on it. Without this, the offsets (and so the loads
      // and everything after them) wait for the mask, which in a loop is the previous iteration's
      // result: a loop-carried dependence the scalar code, which branches, does not have.
      Value fz = b.freeze(offs, "offs.frozen");
      Type it = offs.type().elementType();
      offs = boundKind == Opcode.UREM
          ? b.call(st.module().intrinsic("llvm.umin", offs.type()), List.of(fz, b.splat(b.constInt(it, bound), w, "")), "offs.bounded")
          : b.and(fz, b.splat(b.constInt(it, bound), w, ""), "offs.bounded");
      full = true;
      speculated = " (the offset is at most " + bound + ", within " + base.name() + ", so inactive lanes read the table too and no mask is needed)";
    } else if (!full && !(how == GatherLowering.HARDWARE_GATHER && hardwareGatherTarget) && readableAtOffsetZero(base, t, align)) {
      // Inactive lanes read the table's first element instead of their own (possibly meaningless)
      // offset: every lane's address is then one the program may read, and the load needs no mask.
      // Active lanes read what the scalar code reads. (A masked gather without hardware support is
      // expanded by LLVM into a branch per lane; the unmasked load is W plain loads; one vector
      // select instead of a pointer select per lane.)
      offs = b.select(mask(), offs, b.constNull(offs.type()), "offs.active");
      full = true;
      speculated = " (inactive lanes read element 0 of " + base.name() + ", so no mask is needed)";
    }
    boolean perLane = full || ptr.type().equals(st.context().ptrType()) && size <= 64;
    if (how == GatherLowering.SCALAR_LOADS && perLane && (size == 4 || size == 8) && !withinExpansionBudget()) {
      // the scalar loads' code would take the packet function past the code-growth goal: a gather
      // (which LLVM expands the same way on this target, but out of the IR's sight)
      how = GatherLowering.HARDWARE_GATHER;
      reason = "scalar loads would take the packet function past the code-growth budget (" + EXPANSION_BUDGET
          + " x the scalar function's " + scalarSize + " instructions for per-lane expansions, "
          + LOOKUP_EXPANSION_PER_LANE + " instructions per lane each)";
    }
    if (how == GatherLowering.SCALAR_LOADS && perLane && (size == 1 || size == 2) && bp.type().equals(st.context().ptrType())) {
      // (the offsets' bound, for 32-bit word offsets: the speculation's, or the index's own form)
      long wb = !speculated.isEmpty() ? bound : widened ? (1L << narrow.type().intWidth()) - 1 : indexBound(narrow);
      Value words = wordGatherTable(inst, t, vt, align, elem, bp, offs, wb, ptr.isInBounds(), full ? null : mask(),
          "table lookup (uniform base, 32-bit offsets)" + speculated);
      if (words != null) return words;
    }
    if (how == GatherLowering.SCALAR_LOADS && perLane) {
      expansionSpent += LOOKUP_EXPANSION_PER_LANE * w;
      st.stats().tableLookups++;
      st.remark(Remark.Kind.MEMORY, current(), inst, "table lookup (uniform base, 32-bit offsets) became " + w
          + " scalar loads" + (full ? "" : " (inactive lanes read a private dummy slot)") + ": " + reason + speculated);
      Value fo = offs;
      java.util.function.IntFunction<Value> lanePtr = k -> b.gep(elem, bp, List.of(b.extractElement(fo, k, "")), ptr.isInBounds(), "");
      if (speculated.isEmpty()) {
        return perLane(inst, t, vt, align, false, new LaneAddress(k -> b.extractElement(fo, k, ""),
            (k, o) -> b.gep(elem, bp, List.of(o), ptr.isInBounds(), "")));
      }
      Value acc = b.poison(vt);
      for (int k = 0; k < w; k++) acc = b.insertElement(acc, b.load(t, lanePtr.apply(k), align, ""), k, "");
      if (names && acc.isInstruction()) acc.setName(inst.name());
      return acc;
    }
    st.stats().gathers++;
    st.remark(Remark.Kind.MEMORY, current(), inst, "table lookup (uniform base, 32-bit offsets) became a gather with a 32-bit index vector: "
        + (how == GatherLowering.SCALAR_LOADS ? "scalar loads need a full mask" : reason) + speculated);
    Value ptrs = b.gep(elem, bp, List.of(offs), ptr.isInBounds(), nameOf(ptr));
    Function f = st.module().intrinsic("llvm.masked.gather", vt, ptrs.type());
    Value m = full ? b.allOnes(mask().type()) : mask();
    return b.call(f, List.of(ptrs, b.i32(align), m, b.poison(vt)), nameOf(inst));
  }

  /** Tables already analysed for {@link #permuteLookup} (null-valued when unfit). */
  private final Map<Value, PermuteLookup.Table> permuteTables = new HashMap<>();
  private PermuteLookup.Isa permuteTarget;
  /** The CPU {@link #permuteTarget} was chosen for (null: none named), whose family sets the AVX2 table limit. */
  private String permuteCpu;

  /**
   * A lookup in a small constant table of byte-sized values, {@code t[i]} with a varying index, as
   * permutes in registers ({@link PermuteLookup}: {@code vpermi2b} on AVX-512 VBMI, {@code vpermi2d} on
   * other AVX-512, {@code vpermd} or {@code vpshufb} on AVX2, {@code pshufb} on SSE4.1, by table size):
   * no memory access, so under any mask. Tried before the gather routes (and before pairing: two permute lookups are cheaper than
   * one paired gather, docs/performance.md). Null when not applicable.
   */
  private Value permuteLookup(Value inst, Type t, Value ptr) {
    if (!PermuteLookup.enabled() || !ptr.isInstruction() || st.ssa().opcode(ptr) != Opcode.GEP || st.soa().isDerived(ptr)
        || ptr.type().isVector() || !t.isInteger()) return null;
    Type elem = tableElement(ptr);
    if (elem == null) return null;
    Value base = ptr.operand(0);
    if (!base.isGlobalVariable()) return null;
    Value idx = ptr.operand(ptr.numOperands() - 1);
    if (idx.type().isVector() || !idx.type().isInteger() || uniform(idx)) return null;
    if (permuteTarget == null) permuteTarget = permuteTarget();
    if (permuteTarget == PermuteLookup.Isa.NONE) return null;
    PermuteLookup.Table table;
    if (permuteTables.containsKey(base)) {
      table = permuteTables.get(base);
    } else {
      table = PermuteLookup.analyze(st.module(), base, elem, t);
      permuteTables.put(base, table);
    }
    if (table == null || !elem.equals(t)) return null;
    boolean intel = permuteCpu != null && org.packetizer.core.wrapper.Latency.family(permuteCpu, false) == org.packetizer.core.wrapper.Latency.Family.INTEL;
    PermuteLookup.Route route = PermuteLookup.route(permuteTarget, intel, table);
    if (route == null) {
      PermuteLookup.Route amd = intel ? PermuteLookup.route(permuteTarget, false, table) : null;
      if (amd != null) {
        // (the Intel limit declined what AMD's would take: say so; the route that follows writes its own remark)
        int n = table.permutes(amd);
        st.remark(Remark.Kind.MEMORY, current(), inst, "table lookup in " + table.describe(base.name(), elem) + ": not as " + n + " "
            + amd.noun + (n > 1 ? "s" : "") + " in registers (" + amd.describe(table) + (n > 1 ? ", " + (n - 1) + " blend" + (n > 2 ? "s" : "") + " on index bits" : "") + "): "
            + PermuteLookup.INTEL_DECLINED.replace("CPU", permuteCpu).replace("LIMIT", Integer.toString(PermuteLookup.smallEntries(permuteTarget, true))));
      }
      return null;
    }
    // the index as 32 bits: an extension's operand when at hand (only its low 9 bits matter: an active
    // lane's index is within the table)
    Type i32 = st.context().i32();
    Value offs = null;
    if (idx.isInstruction() && (st.ssa().opcode(idx) == Opcode.SEXT || st.ssa().opcode(idx) == Opcode.ZEXT)
        && idx.operand(0).type().isInteger() && idx.operand(0).type().intWidth() <= 32 && available(idx.operand(0))
        && !uniform(idx.operand(0))) {
      offs = vec(idx.operand(0));
    } else if (available(idx)) {
      offs = vec(idx);
    }
    if (offs == null) return null;
    int k = offs.type().elementType().intWidth();
    if (k > 32) offs = b.cast(Opcode.TRUNC, offs, i32.vectorOf(w), "");
    else if (k < 32) offs = b.cast(Opcode.ZEXT, offs, i32.vectorOf(w), "");
    boolean full = MaskOps.isAllTrue(mask());
    // (an inactive lane's index may be poison: frozen, so that it stays that lane's own garbage)
    if (!full) offs = b.freeze(offs, "pidx.frozen");
    // (512-bit vectors must be legal in the packet function, whatever its signature's widths: the
    // attribute changes no argument's passing, vectors of up to 256 bits go in one register either way)
    if (route.lanes == 16) org.packetizer.core.mapping.SignatureAbi.raise(packet, 512);
    Value r = PermuteLookup.emit(b, st.module(), table, offs, w, t, inst.name(), route);
    st.stats().tableLookups++;
    int n = table.permutes(route);
    st.remark(Remark.Kind.MEMORY, current(), inst, "table lookup in " + table.describe(base.name(), elem) + " became " + n
        + " " + route.noun + (n > 1 ? "s" : "") + " in registers (" + route.describe(table) + (n > 1 ? ", " + (n - 1) + " blend" + (n > 2 ? "s" : "") + " on index bits" : "")
        + "): no memory access" + (full ? "" : ", so no mask") + " (-Dpacketizer.permuteLookups=false: the gather routes"
        + (route == PermuteLookup.Route.VBMI ? "" : "; =vbmi: only AVX-512 VBMI's") + ")");
    return r;
  }

  /**
   * The x86 level the packet function is compiled for ({@link PermuteLookup#isa}), by the rule of
   * {@link #wordRoute}: the options' CPU and features (the CLI sets them on the packet function), else
   * its own attributes, and its own attributes, where it has any, must allow that level too (a library
   * user's JIT compiles by them: an x86 intrinsic the target lacks would not compile); with neither,
   * the detected host.
   */
  private PermuteLookup.Isa permuteTarget() {
    if (st.options().scalable() || st.options().lanesMayBeRetyped()
        || org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) {
      return PermuteLookup.Isa.NONE;
    }
    String aCpu = packet.stringAttribute("target-cpu").orElse(null), aFeatures = packet.stringAttribute("target-features").orElse(null);
    String oCpu = st.options().targetCpu().orElse(null), oFeatures = st.options().targetFeatures().orElse(null);
    boolean attributes = aCpu != null || aFeatures != null;
    if (!attributes && oCpu == null && oFeatures == null) {
      permuteCpu = org.packetizer.core.ir.Llvm.hostCpuName();
      return PermuteLookup.isa(permuteCpu, org.packetizer.core.ir.Llvm.hostCpuFeatures());
    }
    // (the CPU whose family sets the AVX2 limit: the options', else the function's own)
    permuteCpu = oCpu != null ? oCpu : aCpu;
    PermuteLookup.Isa chosen = PermuteLookup.isa(oCpu != null ? oCpu : aCpu, oFeatures != null ? oFeatures : aFeatures);
    if (!attributes) return chosen;
    PermuteLookup.Isa own = PermuteLookup.isa(aCpu, aFeatures);
    return own.compareTo(chosen) < 0 ? own : chosen;
  }

  /** Packets of the upper halves of paired lookups ({@link #pairedLookup}), emitted with their lower half. */
  private final Map<Value, Value> pairDone = new HashMap<>();

  /**
   * Paired table lookups: {@code t[i]} and {@code t[i + 1]} (a uniform base, one varying 32-bit index,
   * the second index {@code add nsw i, 1}; 4-byte elements) in the same block with no store or call
   * between them, under a full mask — Perlin noise's {@code perm[A]} and {@code perm[A + 1]}. Both
   * are read by every lane, so one 8-byte load per lane at {@code &t[i]} reads exactly the two
   * elements the scalar code reads: one gather of W 64-bit elements ({@code vpgatherdq} with the
   * same 32-bit offsets) where the target gathers, W scalar 8-byte loads where a gather is scalar
   * loads anyway, instead of two gathers or 2W loads; the halves are a truncation and a shift. The
   * first of the two in program order emits the pair (both indices are defined there: the upper
   * index is computed from the lower); the second takes its half from {@link #pairDone}. Little-endian
   * targets only. Knob: {@code -Dpacketizer.pairedLookups=false}. Null when not applicable.
   */
  private Value pairedLookup(Value inst, Type t, Type vt, Value ptr, int align) {
    if (!pairedLookups() || !MaskOps.isAllTrue(mask()) || st.options().scalable()) return null;
    Value g1 = lookupGep(ptr);
    Value i1 = g1 == null ? null : lookupIndex(g1);
    if (i1 == null || st.module().allocSize(t) != 4 || st.module().storeSize(t) != 4 || !t.isVectorElement()) return null;
    long o1 = g1 == ptr ? 0 : 4;
    String dl = st.module().dataLayoutString();
    if (dl.startsWith("E") || dl.contains("-E")) return null;
    for (Value c : followingInBlock(inst)) {
      if (st.ssa().opcode(c) != Opcode.LOAD || c.isVolatile() || c.isAtomic() || !c.type().equals(t) || dynamicDone.containsKey(c)) continue;
      Value p2 = c.operand(0);
      Value g2 = lookupGep(p2);
      Value i2 = g2 == null ? null : lookupIndex(g2);
      if (i2 == null || !sameTable(g1, g2)) continue;
      long o2 = g2 == p2 ? 0 : 4;
      // the element of the second load is the next one after the first's, or the other way round
      boolean instIsLow;
      if (o1 == 0 && (o2 == 0 && plusOne(i2, i1) || o2 == 4 && i2.equals(i1))) {
        instIsLow = true;
      } else if (o2 == 0 && (o1 == 0 && plusOne(i1, i2) || o1 == 4 && i1.equals(i2))) {
        instIsLow = false;
      } else {
        continue;
      }
      Value lowGep = instIsLow ? g1 : g2;
      Value low = instIsLow ? i1 : i2;
      if (!available(low) || uniform(low)) return null;
      Value[] halves = emitPair(inst, c, lowGep, low, Math.min(align, Math.max(1, c.alignment())), vt);
      pairDone.put(c, instIsLow ? halves[1] : halves[0]);
      return instIsLow ? halves[0] : halves[1];
    }
    return null;
  }

  /**
   * The table-lookup GEP of a load's address: the address itself, or the GEP under {@code gep i8, g, 4}
   * (clang's form of {@code &t[i + 1]} when {@code i + 1} cannot overflow: the next element after
   * {@code t[i]}); null otherwise.
   */
  private Value lookupGep(Value ptr) {
    if (ptr.isInstruction() && st.ssa().opcode(ptr) == Opcode.GEP && ptr.numOperands() == 2 && ptr.gepSourceElementType().isInteger(8)
        && ptr.operand(1).isConstantInt() && ptr.operand(1).constIntSExt() == 4 && !st.soa().isDerived(ptr)) {
      Value g = ptr.operand(0);
      return g.isInstruction() && st.ssa().opcode(g) == Opcode.GEP ? g : null;
    }
    return ptr;
  }

  /** Whether {@code hi} is {@code add nsw lo, 1} (either operand order): then sext(hi) = sext(lo) + 1. */
  private boolean plusOne(Value hi, Value lo) {
    if (!hi.isInstruction() || st.ssa().opcode(hi) != Opcode.ADD || !hi.nsw()) return false;
    for (int k = 0; k < 2; k++) {
      Value c = hi.operand(1 - k);
      if (hi.operand(k).equals(lo) && c.isConstantInt() && c.constIntSExt() == 1) return true;
    }
    return false;
  }

  /** Whether two lookup GEPs index the same table the same way (same base, element type and form). */
  private static boolean sameTable(Value p1, Value p2) {
    return p1.operand(0).equals(p2.operand(0)) && p1.numOperands() == p2.numOperands()
        && p1.gepSourceElementType().equals(p2.gepSourceElementType());
  }

  /**
   * The varying 32-bit index of a table-lookup GEP ({@code gep T, base, sext i} or {@code gep [N x T],
   * base, 0, sext i}, also a non-negative zext or the i32 itself) with a uniform base and 4-byte
   * elements; null otherwise.
   */
  private Value lookupIndex(Value ptr) {
    if (!ptr.isInstruction() || st.ssa().opcode(ptr) != Opcode.GEP || st.soa().isDerived(ptr) || ptr.type().isVector()
        || !ptr.type().equals(st.context().ptrType())) return null;
    Type elem = tableElement(ptr);
    if (elem == null) return null;
    int n = ptr.numOperands();
    if (!elem.isSized() || st.module().allocSize(elem) != 4) return null;
    Value idx = ptr.operand(n - 1);
    if (idx.type().isVector() || uniform(idx)) return null;
    if (idx.type().isInteger(32)) return idx;
    if (idx.isInstruction() && idx.type().isInteger(64) && idx.operand(0).type().isInteger(32)
        && (st.ssa().opcode(idx) == Opcode.SEXT || st.ssa().opcode(idx) == Opcode.ZEXT && idx.nneg())) {
      return idx.operand(0);
    }
    return null;
  }

  /** The pair's 8-byte loads at {@code &table[low]} and its two halves as packets of {@code vt}. */
  private Value[] emitPair(Value first, Value second, Value lowPtr, Value low, int align, Type vt) {
    Type elem = lowPtr.numOperands() == 2 ? lowPtr.gepSourceElementType() : lowPtr.gepSourceElementType().elementType();
    Type i64 = st.context().i64(), v64 = i64.vectorOf(w), v32 = st.context().i32().vectorOf(w);
    Value bp = scal(lowPtr.operand(0));
    Value offs = vec(low);
    boolean lanes = gatherLowering() == GatherLowering.SCALAR_LOADS;
    Value pair;
    if (lanes) {
      expansionSpent += LOOKUP_EXPANSION_PER_LANE * w;
      pair = b.poison(v64);
      for (int k = 0; k < w; k++) {
        Value p = b.gep(elem, bp, List.of(b.extractElement(offs, k, "")), lowPtr.isInBounds(), "");
        pair = b.insertElement(pair, b.load(i64, p, align, ""), k, "");
      }
      st.stats().tableLookups++;
    } else {
      Value ptrs = b.gep(elem, bp, List.of(offs), lowPtr.isInBounds(), "pair.addr");
      Function f = st.module().intrinsic("llvm.masked.gather", v64, ptrs.type());
      pair = b.call(f, List.of(ptrs, b.i32(align), b.allOnes(st.context().i1().vectorOf(w)), b.poison(v64)), "pair");
      st.stats().gathers++;
    }
    // the halves as even and odd elements of the pairs seen as 2W 4-byte elements (little-endian):
    // one two-source permute each on AVX-512 (vpermi2d), where a truncation and a shift are 4 and 4
    Value span = b.cast(Opcode.BITCAST, pair, vt.elementType().vectorOf(2 * w), "pair.elems");
    Value lo = deinterleave(span, 2, 0, "");
    Value hi = deinterleave(span, 2, 1, "");
    String other = second.name().isEmpty() ? "the load of the next element" : second.name();
    st.remark(Remark.Kind.MEMORY, current(), first, "table lookups t[i] and t[i + 1] (with " + other + ") became "
        + (lanes ? w + " scalar 8-byte loads" : "one gather of " + w + " 8-byte elements") + " and two shuffles: half the loads of two lookups"
        + " (-Dpacketizer.pairedLookups=false: one lookup each)");
    return new Value[] {lo, hi};
  }

  /** Knob: {@code -Dpacketizer.pairedLookups=false} keeps two lookups for t[i] and t[i + 1]; read at each use. */
  static boolean pairedLookups() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.pairedLookups", "true"));
  }

  /** How {@link #indexBound} bounded the index: AND (re-applied as an and) or UREM (as a umin). */
  private Opcode boundKind;

  /**
   * An upper bound B of a non-negative 32-bit table index that holds for every defined value of it and
   * can be applied again to any value (a frozen poison lane) to bring it into [0, B]: {@code x & C}
   * (C ≥ 0; re-applied as an and), a zero extension from a narrower integer ({@code 2^k - 1}, an and),
   * {@code x urem C} (C - 1, a umin). -1 when the index has no such form.
   */
  private long indexBound(Value idx) {
    if (!idx.isInstruction() || !idx.type().isInteger(32)) return -1;
    Opcode op = st.ssa().opcode(idx);
    boundKind = Opcode.AND;
    if (op == Opcode.AND) {
      for (int i = 0; i < 2; i++) {
        Value c = idx.operand(i);
        if (c.isConstantInt() && c.constIntSExt() >= 0) return c.constIntSExt();
      }
    } else if (op == Opcode.ZEXT && idx.operand(0).type().isInteger() && idx.operand(0).type().intWidth() < 32) {
      return (1L << idx.operand(0).type().intWidth()) - 1;
    } else if (op == Opcode.UREM && idx.operand(1).isConstantInt() && idx.operand(1).constIntSExt() > 0) {
      boundKind = Opcode.UREM;
      return idx.operand(1).constIntSExt() - 1;
    }
    return -1;
  }

  /**
   * Whether loads of {@code t} at {@code base + k * size(elem)} for every k in [0, bound] lie within
   * {@code base}, a global variable that is not extern_weak, each aligned as the load asks.
   */
  private boolean withinGlobal(Value base, Type elem, Type t, int align, long bound) {
    if (!base.isGlobalVariable() || base.hasExternalWeakLinkage()) return false;
    Type g = base.globalValueType();
    if (!g.isSized() || !elem.isSized()) return false;
    long es = st.module().allocSize(elem);
    if (es <= 0 || es % align != 0 || Math.max(1, base.alignment()) < align) return false;
    return bound <= (Long.MAX_VALUE - 64) / es && bound * es + st.module().storeSize(t) <= st.module().allocSize(g);
  }

  /**
   * Whether a load of {@code t} at {@code base} itself (offset 0) with alignment {@code align} is
   * valid wherever the function runs, whichever lanes are active: base is a global variable that is
   * not extern_weak (LLVM's rule: such a global is dereferenceable for its type's size, defined here or
   * elsewhere), at least as large as {@code t} and at least as aligned as the load.
   */
  private boolean readableAtOffsetZero(Value base, Type t, int align) {
    if (!base.isGlobalVariable() || base.hasExternalWeakLinkage()) return false;
    Type g = base.globalValueType();
    if (!g.isSized()) return false;
    return st.module().allocSize(g) >= st.module().storeSize(t) && Math.max(1, base.alignment()) >= align;
  }

  /**
   * Code-size budget of per-lane expansions (issue 16: code growth at most 2.5x): the table lookups
   * turned into W scalar loads may add at most this many times the scalar function's instruction
   * count; the next ones stay gathers. A lookup as scalar loads is {@value #LOOKUP_EXPANSION_PER_LANE}
   * instructions per lane after the clean-up (extract, extend, address, load, insert) where the
   * gather is 3, so noise3 at W8 on AVX2 (14 lookups: 265 scalar instructions, 767 in the packet
   * function with every lookup expanded) stays within 2.5x. 1- and 2-byte elements are always
   * expanded (no gather instruction loads them: LLVM would expand the gather through 64-bit pointers),
   * unless they become gathers of their aligned words ({@link #wordGatherTable}).
   * Measurement knob: {@code -Dpacketizer.expansionBudget=X} (the bench passes it to its workers).
   */
  static final double EXPANSION_BUDGET = Double.parseDouble(System.getProperty("packetizer.expansionBudget", "1.5"));

  static final int LOOKUP_EXPANSION_PER_LANE = 5;

  private int scalarSize = -1;
  private long expansionSpent;

  /**
   * Instructions of expansion allowed whatever the function's size (two lookups at W8): in a small
   * function they matter little, and LLVM's own expansion of the gather would be as long and slower.
   */
  static final int EXPANSION_FLOOR = 80;

  private boolean withinExpansionBudget() {
    if (scalarSize < 0) scalarSize = st.scalar().instructionCount();
    long cost = (long) LOOKUP_EXPANSION_PER_LANE * w;
    return expansionSpent + cost <= Math.max(EXPANSION_BUDGET * scalarSize, EXPANSION_FLOOR);
  }

  /** Whether gathers become gather instructions here (a target with fast ones, not the knob's choice). */
  boolean fastHardwareGathers() {
    return gatherLowering() == GatherLowering.HARDWARE_GATHER && hardwareGatherTarget;
  }

  /**
   * A load from varying addresses on a target where a gather is W scalar loads anyway
   * ({@link GatherLowering#SCALAR_LOADS}, and 1- and 2-byte elements, which no gather instruction
   * loads): W scalar loads emitted here, each at its lane's pointer. The address is taken apart into
   * a varying root and the chain of GEPs with uniform indices on top of it
   * ({@code c[-1]}, {@code c[24]}: one root {@code c}, constant offsets; {@code s + start + k} in a
   * loop: root {@code s + start}, uniform {@code k}): the root's lanes are extracted and the uniform
   * offsets applied to each lane as scalar GEPs, so that loads from the same root share one
   * extraction per lane (LLVM's expansion of a gather extracts every gather's 64-bit pointers anew)
   * and the offsets fold into the loads' addressing modes. Under a partial mask an inactive lane loads
   * from a private dummy slot instead (a select, no branch). On targets with fast gathers this path is
   * taken for a 4- or 8-byte element under a full mask too ({@link #POINTER_VECTOR_REASON}; a uniform
   * base plus 32-bit offsets stays a gather there). Null when the target keeps the gather, or the address
   * is in another address space.
   */
  private Value laneLoads(Value inst, Type t, Type vt, Value ptr, int align) {
    if (ptr.type().isVector() || !ptr.type().equals(st.context().ptrType()) || !t.isVectorElement()) return null;
    GatherLowering how = gatherLowering();
    long size = st.module().allocSize(t);
    if (size > 64) return null;
    String reason = gatherReason;
    if (how == GatherLowering.HARDWARE_GATHER && hardwareGatherTarget && size != 4 && size != 8) {
      how = GatherLowering.SCALAR_LOADS;
      reason = "gather instructions load only 4- and 8-byte elements";
    } else if (how == GatherLowering.HARDWARE_GATHER && hardwareGatherTarget && MaskOps.isAllTrue(mask())) {
      // (under a partial mask the hardware gather's own mask is cheaper than a select per lane)
      if (gatherOnceBeforeLoop()) {
        gatherNote = ": " + ONCE_BEFORE_LOOP_REASON;
        return null;
      }
      how = GatherLowering.SCALAR_LOADS;
      reason = POINTER_VECTOR_REASON;
    }
    if (how != GatherLowering.SCALAR_LOADS) return null;
    // peel GEPs whose indices are all uniform off a varying base (outermost first)
    List<Value> chain = new ArrayList<>();
    Value root = ptr;
    while (root.isInstruction() && st.ssa().opcode(root) == Opcode.GEP && !st.soa().isDerived(root)) {
      Value base = root.operand(0);
      if (base.type().isVector() || uniform(base) || !available(base) || st.soa().isDerived(base)) break;
      boolean ok = true;
      for (int i = 1; i < root.numOperands() && ok; i++) {
        Value ix = root.operand(i);
        ok = !ix.type().isVector() && uniform(ix) && available(ix);
      }
      if (!ok) break;
      chain.add(root);
      root = base;
    }
    Value rv = vec(root);
    List<List<Value>> indices = new ArrayList<>();
    for (Value g : chain) {
      List<Value> ix = new ArrayList<>();
      for (int i = 1; i < g.numOperands(); i++) ix.add(scal(g.operand(i)));
      indices.add(ix);
    }
    boolean full = MaskOps.isAllTrue(mask());
    if ((size == 1 || size == 2) && wordGathersEverywhere() && wordRoute() != null && wordElement(t, align)) {
      // (the lanes' addresses as a vector: the root's packet with the uniform offsets applied to it)
      Value pv = rv;
      for (int j = chain.size() - 1; j >= 0; j--) {
        Value g = chain.get(j);
        pv = b.gep(g.gepSourceElementType(), pv, indices.get(j), g.isInBounds(), "");
      }
      Value words = wordGather(inst, t, vt, align, pv, full ? null : mask(), "load from varying addresses"
          + (chain.isEmpty() ? "" : " (each lane's " + root.describe() + " plus " + chain.size() + " uniform offset(s))"));
      if (words != null) return words;
    }
    st.stats().laneLoads++;
    st.remark(Remark.Kind.MEMORY, current(), inst, "load from varying addresses became " + w + " scalar loads"
        + (chain.isEmpty() ? "" : " at each lane's " + root.describe() + " plus " + chain.size() + " uniform offset(s)")
        + (full ? "" : " (inactive lanes read a private dummy slot)") + ": " + reason);
    return perLane(inst, t, vt, align, true, new LaneAddress(k -> b.extractElement(rv, k, ""), (k, p) -> {
      for (int j = chain.size() - 1; j >= 0; j--) {
        Value g = chain.get(j);
        p = b.gep(g.gepSourceElementType(), p, indices.get(j), g.isInBounds(), "");
      }
      return p;
    }));
  }

  /**
   * Why a load from a vector of 64-bit pointers (not a uniform base plus 32-bit offsets: those stay
   * gathers, {@link #tableLookup}) is per-lane loads even where the target has fast gathers.
   */
  static final String POINTER_VECTOR_REASON = "the addresses are a vector of 64-bit pointers, not a uniform base plus 32-bit"
      + " offsets: a hardware gather would take two gather instructions per 16 lanes and 64-bit address arithmetic,"
      + " where per-lane loads share one extraction of the root (measured: stencil W16/AVX-512 0.73x -> 1.25x over scalar)";

  /**
   * The code-size side of {@link #POINTER_VECTOR_REASON}: on a target with fast hardware gathers, a
   * load from a vector of 64-bit pointers under a full mask in a block outside every loop of a
   * function that has a loop stays a hardware gather (two gather instructions per 16 lanes) instead
   * of per-lane loads (a load and an insert per lane, the root's extraction, windows and transposes:
   * about 2W instructions per load). Such a block runs once per call, beside a loop that runs many
   * times, so the per-lane loads' speed is a small share of the call while their code is most of the
   * packet function (nbody W16/AVX-512: 141 -> 97 machine instructions, 3.20 -> 2.20 x the scalar
   * function, the same speed with coherent and random inputs, docs/performance.md). A function
   * without loops (stencil) keeps the per-lane loads: there they are the hot path, and gathers
   * measured slower. Knob: {@code -Dpacketizer.gatherOutsideLoops=false}.
   */
  private boolean gatherOnceBeforeLoop() {
    if (!gatherOutsideLoops() || current() == null || inLoop(current())) return false;
    return !st.cfg().loops().topLevel().isEmpty();
  }

  /** Why {@link #laneLoads} left the last load to a gather ({@link #gatherOnceBeforeLoop}), for the gather's remark; else "". */
  private String gatherNote = "";

  private String onceBeforeLoopNote() {
    String n = gatherNote;
    gatherNote = "";
    return n;
  }

  static final String ONCE_BEFORE_LOOP_REASON = "the target has fast hardware gathers, and this block runs once per call outside"
      + " the function's loops: a gather is two instructions per 16 lanes where per-lane loads are about two per lane and load"
      + " (code size; per-lane loads are kept where they run in a loop or the function has none)";

  /** The knob of {@link #gatherOnceBeforeLoop}: {@code -Dpacketizer.gatherOutsideLoops=false} turns it off. Read at each use. */
  static boolean gatherOutsideLoops() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.gatherOutsideLoops", "true"));
  }

  /** Calls that neither write memory nor fail to return (math intrinsics between a window's loads). */
  private static final org.packetizer.core.pipeline.PureCalls PURE = new org.packetizer.core.pipeline.PureCalls();

  /** Packet values of loads already emitted as part of a window ({@link #windowLoad}). */
  private final java.util.Map<Value, Value> windowed = new java.util.HashMap<>();

  /**
   * Loads of 4-byte elements at constant offsets from one varying root in one block ({@code c[-2]},
   * {@code c[-1]}, {@code c[0]}, {@code c[1]}: a stencil's row) where gathers are scalar loads
   * ({@link #laneLoads}'s targets) and the mask is full: four loads at consecutive element offsets
   * become, per lane, one 16-byte load of the four elements (every byte of which the scalar code reads
   * in that block, with no store or impure call in between), and one 4x4 transpose per 128 bits turns the W
   * lane vectors into the four packets — W loads and about 3W/4 + 8 shuffles instead of 4W loads and
   * 4W inserts. Emitted at the first of the four (in block order); the others take their packet from
   * {@link #windowed}. Null when the load is in no such window.
   */
  private Value windowLoad(Value inst, Type t, Value ptr) {
    Value done = windowed.get(inst);
    if (done != null) return done;
    if (!MaskOps.isAllTrue(mask()) || (w != 4 && w != 8 && w != 16) || st.module().allocSize(t) != 4 || st.module().storeSize(t) != 4
        || !t.isVectorElement() || ptr.type().isVector() || !ptr.type().equals(st.context().ptrType())) {
      return null;
    }
    if (gatherLowering() != GatherLowering.SCALAR_LOADS && !hardwareGatherTarget) return null;
    if (hardwareGatherTarget && gatherOnceBeforeLoop()) return null;
    Value root = windowRoot(ptr);
    if (root == null) return null;
    long base = windowOffset(ptr);
    // the loads of the same root and type from here to the next store, call or the block's end
    java.util.TreeMap<Long, List<Value>> byElement = new java.util.TreeMap<>();
    int align = 4;
    for (Value i = inst; i != null; i = i.nextInstruction()) {
      Opcode op = st.ssa().opcode(i);
      if (op == Opcode.CALL && PURE.test(i)) continue;
      if (endsLoadGroup(op)) break;
      if (op != Opcode.LOAD || i.isVolatile() || i.isAtomic() || !i.type().equals(t) || uniform(i)) continue;
      Value p = i.operand(0);
      if (p.type().isVector() || !root.equals(windowRoot(p)) || shape(p).isLinear()) continue;
      long d = windowOffset(p) - base;
      if (d % 4 != 0) continue;
      byElement.computeIfAbsent(d / 4, k -> new ArrayList<>()).add(i);
      align = Math.min(align, Math.max(1, i.alignment()));
    }
    // windows of four consecutive element offsets, from the lowest up; inst must be in one
    List<Long> starts = new ArrayList<>();
    Long prevEnd = null;
    for (long e : byElement.keySet()) {
      if (prevEnd != null && e < prevEnd) continue;
      if (byElement.containsKey(e + 1) && byElement.containsKey(e + 2) && byElement.containsKey(e + 3)) {
        starts.add(e);
        prevEnd = e + 4;
      }
    }
    boolean mine = false;
    for (long e : starts) mine |= e <= 0 && 0 < e + 4;
    if (!mine) return null;
    Value rv = vec(root);
    Type quad = t.vectorOf(4);
    for (long e : starts) {
      List<Value> rows = new ArrayList<>();
      for (int k = 0; k < w; k++) {
        Value p = b.gep(st.context().i8(), b.extractElement(rv, k, ""), List.of(b.i64(base + 4 * e)), false, "");
        rows.add(b.load(quad, p, align, ""));
      }
      List<Value> packets = transpose4(rows);
      for (int j = 0; j < 4; j++) {
        for (Value m : byElement.get(e + j)) windowed.put(m, packets.get(j));
      }
      st.stats().vectorLoads += w;
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "loads of " + starts.size() * 4 + " neighbouring elements at constant offsets from "
        + root.describe() + " became " + starts.size() * w + " 16-byte loads (one per lane and window of four) and a transpose: "
        + (hardwareGatherTarget ? POINTER_VECTOR_REASON : gatherReason));
    return windowed.get(inst);
  }

  /** Packet values of loads already emitted as members of a group of {@link #narrowGathers}. */
  private final Map<Value, Value> narrowGathered = new HashMap<>();

  /**
   * The knob of {@link #narrowGathers}: {@code -Dpacketizer.narrowGathers=auto|true|false} (auto, the default: on
   * Intel's cores with AVX-512, and on skylake (AVX2) at W16; true: every fast-gather target; false: the rule before the nineteenth round, windows and
   * per-lane loads). Read at each use.
   */
  static String narrowGathersKnob() {
    return System.getProperty("packetizer.narrowGathers", "auto").strip().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * A load {@link #narrowGathers} may take: a 4- or 8-byte element, or a small vector of them ({@code <2 x float>}, clang's
   * SLP-merged loads, as members of a dynamic-variant group only), without padding.
   */
  private boolean narrowMember(Type t) {
    Type et = t.isVector() ? t.elementType() : t;
    long size = st.module().allocSize(et);
    if ((size != 4 && size != 8) || st.module().storeSize(et) != size || !et.isVectorElement() || et.isVector()) return false;
    return !t.isVector() || (t.vectorSize() <= 16 && st.module().allocSize(t) == size * t.vectorSize());
  }

  /**
   * Whether an instruction of opcode {@code op} (a pure call already passed over) ends a group of loads gathered from
   * one instruction on: anything that may write memory or leave the block (a store, an impure call, a fence, an atomic,
   * {@code va_arg}, the terminator).
   */
  private static boolean endsLoadGroup(Opcode op) {
    return op == Opcode.STORE || op == Opcode.CALL || op == Opcode.INVOKE || op == Opcode.CALLBR || op == Opcode.FENCE
        || op == Opcode.ATOMICRMW || op == Opcode.ATOMICCMPXCHG || op == Opcode.VAARG || op.isTerminator();
  }

  /** Whether {@code p} is a GEP straight off a uniform base ({@link #tableElement}: a table lookup's address). */
  private boolean tableShaped(Value p) {
    return p.isInstruction() && st.ssa().opcode(p) == Opcode.GEP && !p.type().isVector() && tableElement(p) != null;
  }

  /** Whether {@link #narrowGathers} applies on this target, and why (for the remark); null when it does not. */
  private String narrowGathersReason() {
    String knob = narrowGathersKnob();
    if (knob.equals("false") || !fastHardwareGathers()) return null;
    if (knob.equals("true")) return "-Dpacketizer.narrowGathers=true";
    org.packetizer.core.wrapper.HardwareWidth.Target t = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    if (org.packetizer.core.wrapper.Latency.family(t.cpu(), false) != org.packetizer.core.wrapper.Latency.Family.INTEL) return null;
    boolean avx512 = t.width() >= org.packetizer.core.wrapper.HardwareWidth.AVX512 || (t.features() != null && t.features().contains("+avx512f"));
    if (avx512) return NARROW_GATHERS_REASON.replace("CPU", t.cpu());
    // (AVX2: of the Intel cores LLVM tunes as having fast gathers (it emits their gathers where the function is tuned for
    // such a core, which RunTarget and TargetSpec.applyTo make so where the CPU is named), skylake at W16 only (two ymm
    // gathers per load): measured on random points (stencil, ns per element, code for skylake / alderlake on one host):
    // W16 2.38-2.46 -> 2.03-2.12 / 2.07-2.15 -> 2.00-2.12 (alderlake's coherent 0.75-0.80 -> 0.79-0.85: no win);
    // W8 2.41-2.51 -> 2.64-2.70 / 2.05-2.11 -> 2.20-2.36 (slower); W4 2.59-2.73 -> 2.47-2.54 / 2.08-2.15 -> 2.34-2.42
    // (mixed); the other names unmeasured; docs/performance.md, twentieth round)
    if (!org.packetizer.core.wrapper.HardwareWidth.fastGathers(t.cpu(), t.features()) || !NARROW_GATHERS_AVX2_CPUS.contains(t.cpu()) || w != 16) {
      return null;
    }
    return NARROW_GATHERS_AVX2.replace("CPU", t.cpu());
  }

  static final String NARROW_GATHERS_REASON = "the target (CPU) is an Intel core with AVX-512 and fast hardware gathers, where a gather with"
      + " 32-bit indices costs less than per-lane loads, whose inserts and transposes all take the one shuffle port"
      + " (measured on a Sapphire Rapids host, stencil with random points: 9 gathers 1.47x over scalar at W16, 1.22x at W8,"
      + " against 0.83x and 0.87x per lane; -Dpacketizer.narrowGathers=false: per-lane loads)";

  /** The AVX2-only CPUs where {@link #narrowGathers} applies (at W16), by measurement. */
  static final java.util.Set<String> NARROW_GATHERS_AVX2_CPUS = java.util.Set.of("skylake");

  static final String NARROW_GATHERS_AVX2 = "the target (CPU) is an Intel AVX2 core that LLVM tunes as having fast hardware gathers,"
      + " and the width 16 (two ymm gathers per load), where gathers with 32-bit indices cost less than per-lane loads, whose"
      + " inserts and transposes all take the one shuffle port (measured on a Sapphire Rapids-class host, code for skylake, stencil"
      + " with random points: 2.38-2.46 -> 2.03-2.12 ns per element; not at W4 and W8, where the per-lane loads measured as fast"
      + " or faster, nor for alderlake, where they measured even; not on AMD's Zen, whose only evidence here is static, llvm-mca;"
      + " -Dpacketizer.narrowGathers=false: per-lane loads)";

  /**
   * A varying GEP index as a 32-bit packet with the same value as the GEP's sign-extended index ({@code sext i32},
   * an {@code i32} index, a narrower index sign- or zero-extended): null where that is not exact (a zero-extended
   * {@code i32}, a 64-bit index) or its packet is not at hand.
   */
  private Value index32(Value idx, boolean emit) {
    Value n = narrowOffset(idx);
    if (n == null) return null;
    Type i32 = st.context().i32();
    int bits = n.type().intWidth();
    Opcode ext;
    if (n == idx) {
      ext = Opcode.SEXT; // (a GEP sign-extends an index narrower than the pointer)
    } else {
      ext = st.ssa().opcode(idx);
      if (ext == Opcode.ZEXT && bits == 32) return null;
    }
    if (!emit) return n;
    Value v = vec(n);
    return bits == 32 ? v : b.cast(ext, v, i32.vectorOf(w), "");
  }

  /**
   * Loads of 4- or 8-byte elements at constant offsets from one varying root that is a uniform base plus
   * narrow varying offsets ({@link #narrowOffsetLevels}: {@code g + sext(y*24) + sext(x)}, a stencil's point
   * {@code c}, with {@code c[-1]}, {@code c[24]}, ...) under a full mask, on targets where {@link
   * #narrowGathersReason} says so: each one hardware gather off the base (plus the uniform offsets and the load's
   * constant one) with ONE 32-bit index packet, the sum of the varying offsets (every varying level indexing
   * elements of the same size 1, 2, 4 or 8: the gather's scale). Where that sum may overflow 32 bits (two or more
   * varying offsets) a run-time test of the lanes' signed overflow sends the group to gathers from the 64-bit
   * pointers instead (exact for every input). Without this, such loads became windows and per-lane loads, the
   * decision measured on AMD hosts. Emitted at the first load of the group (the loads of the same root up to the
   * next store or impure call, as {@link #windowLoad}); the others take their packets from {@link #narrowGathered}.
   * Null when not applicable.
   */
  private Value narrowGathers(Value inst, Type t, Value ptr) {
    if (!MaskOps.isAllTrue(mask()) || st.options().memoryStrategy() != MemoryStrategy.GATHER) return null;
    // (optimizing for size: not a second copy of the group's gathers behind the overflow test; the size mode's own routes)
    if (st.options().optimize() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE) return null;
    if (!narrowMember(t) || ptr.type().isVector() || !ptr.type().equals(st.context().ptrType()) || shape(ptr).isLinear()) return null;
    // (a GEP straight off a uniform base is a table lookup: tableLookup and pairedLookup make it a 32-bit index gather already)
    if (tableShaped(ptr)) return null;
    Value root = windowRoot(ptr);
    if (root == null || shape(root).isLinear()) return null;
    List<Value> levels = narrowOffsetLevels(root);
    if (levels == null) return null;
    long scale = 0;
    int varying = 0;
    for (Value level : levels) {
      Value idx = level.operand(1);
      if (uniform(idx)) continue;
      long es = st.module().allocSize(level.gepSourceElementType());
      if (es != 1 && es != 2 && es != 4 && es != 8 || (scale != 0 && es != scale) || index32(idx, false) == null) return null;
      scale = es;
      varying++;
    }
    if (varying == 0) return null;
    String reason = narrowGathersReason();
    if (reason == null) return null;
    // the group: loads of the same root and element size from here to the next store or impure call
    List<Value> group = new ArrayList<>();
    for (Value i = inst; i != null; i = i.nextInstruction()) {
      Opcode op = st.ssa().opcode(i);
      if (op == Opcode.CALL && PURE.test(i)) continue;
      if (endsLoadGroup(op)) break;
      if (op != Opcode.LOAD || i.isVolatile() || i.isAtomic() || uniform(i) || windowed.containsKey(i) || dynamicDone.containsKey(i)) continue;
      if (!narrowMember(i.type()) || (i.type().isVector() && !dynamicConsidered.contains(i))) continue;
      Value p = i.operand(0);
      if (p.type().isVector() || !root.equals(windowRoot(p)) || shape(p).isLinear() || tableShaped(p)) continue;
      group.add(i);
    }
    if (!group.contains(inst)) return null;
    // the base (plus the uniform offsets) and the 32-bit index packet, with the lanes' signed overflow of the sum
    Value base = scal(levels.get(0).operand(0));
    Type elem = null;
    Value idx = null, overflow = null;
    Value zero = b.constNull(st.context().i32().vectorOf(w));
    // (the sum cannot overflow where the offsets' magnitudes add up below 2^31: a 16-bit and an 8-bit offset; no test then)
    long bound = 0;
    for (Value level : levels) {
      Value ix = level.operand(1);
      if (uniform(ix)) continue;
      Value n = index32(ix, false);
      int bits = n.type().intWidth();
      bound += bits >= 32 ? 1L << 31 : n == ix || st.ssa().opcode(ix) == Opcode.SEXT ? 1L << (bits - 1) : (1L << bits) - 1;
    }
    boolean mayWrap = varying > 1 && bound > Integer.MAX_VALUE;
    for (Value level : levels) {
      Value ix = level.operand(1);
      if (uniform(ix)) {
        base = b.gep(level.gepSourceElementType(), base, List.of(scal(ix)), false, "");
        continue;
      }
      elem = level.gepSourceElementType();
      Value n = index32(ix, true);
      if (idx == null) {
        idx = n;
      } else {
        Value sum = b.add(idx, n, "narrow.index");
        if (mayWrap) {
          // (signed overflow of a + b: both operands' signs differ from the sum's)
          Value o = b.icmpSlt(b.and(b.xor(idx, sum, ""), b.xor(n, sum, ""), ""), zero, "narrow.overflow");
          overflow = overflow == null ? o : b.or(overflow, o, "");
        }
        idx = sum;
      }
    }
    List<Value> fast = new ArrayList<>(), slow = new ArrayList<>();
    Block fastEnd = null, slowEnd = null;
    Block join = null;
    if (overflow != null) {
      Block pre = b.currentBlock();
      Value any = b.icmpNe(b.cast(Opcode.BITCAST, overflow, st.context().intType(w), ""), b.constInt(st.context().intType(w), 0), "narrow.wraps");
      Block fb = packet.appendBlock(nameOf(pre, ".narrow"));
      Block sb = packet.appendBlock(nameOf(pre, ".wide"));
      join = packet.appendBlock(nameOf(pre, ".gathered"));
      fb.moveAfter(pre);
      sb.moveAfter(fb);
      join.moveAfter(sb);
      b.condBr(any, sb, fb);
      b.atEnd(sb);
      Value rv = vec(root);
      for (Value m : group) {
        long off = windowOffset(m.operand(0));
        Value ptrs = off == 0 ? rv : b.gep(st.context().i8(), rv, List.of(b.i64(off)), false, "");
        slow.add(m.type().isVector() ? loadParts(m, m.type(), ptrs, 0, Math.max(1, m.alignment()))
            : gatherOrCascade(m, m.type(), ptrs, Math.max(1, m.alignment()), ""));
      }
      slowEnd = b.currentBlock();
      b.br(join);
      b.atEnd(fb);
    }
    for (Value m : group) {
      long off = windowOffset(m.operand(0));
      int a = Math.max(1, m.alignment());
      if (m.type().isVector()) {
        // (a vector member <N x T> (clang's SLP-merged loads): one gather per element, element i at the member's offset + i * size(T))
        Type et = m.type().elementType();
        long es = st.module().allocSize(et);
        List<Value> elements = new ArrayList<>();
        for (int i = 0; i < m.type().vectorSize(); i++) {
          Value bm = b.gep(st.context().i8(), base, List.of(b.i64(off + i * es)), false, "");
          elements.add(gatherOrCascade(m, et, b.gep(elem, bm, List.of(idx), false, ""), partAlignment(a, i * es), ""));
        }
        fast.add(comp.concat(elements));
        continue;
      }
      Value bm = off == 0 ? base : b.gep(st.context().i8(), base, List.of(b.i64(off)), false, "");
      fast.add(gatherOrCascade(m, m.type(), b.gep(elem, bm, List.of(idx), false, ""), a, join == null ? nameOf(m) : ""));
    }
    if (join != null) {
      fastEnd = b.currentBlock();
      b.br(join);
      b.atEnd(join);
      for (int j = 0; j < group.size(); j++) {
        Value phi = b.phi(fast.get(j).type(), nameOf(group.get(j)));
        phi.addIncoming(fast.get(j), fastEnd);
        phi.addIncoming(slow.get(j), slowEnd);
        fast.set(j, phi);
      }
    }
    for (int j = 0; j < group.size(); j++) {
      if (group.get(j) != inst) narrowGathered.put(group.get(j), fast.get(j));
    }
    int gathers = 0;
    for (Value m : group) gathers += elementsOf(m.type());
    st.remark(Remark.Kind.MEMORY, current(), inst, group.size() + " load(s) at constant offsets from " + root.describe()
        + " became " + gathers + " gather(s) with 32-bit indices off the uniform base (" + varying + " varying offset(s) of at most"
        + " 32 bits" + (overflow != null ? ", summed in 32 bits; where a lane's sum overflows, gathers from the 64-bit pointers"
            : varying > 1 ? ", summed in 32 bits, where their magnitudes cannot overflow" : "")
        + "), not windows and per-lane loads: " + reason);
    return fast.get(group.indexOf(inst));
  }

  /** Whether the last {@link #emitDynamicVariants} emitted the two-valued variant (for its remark). */
  private boolean lastTwoValued;

  /** Packet values of the loads of a group already emitted with dynamic variants ({@link #dynamicVariants}). */
  private final Map<Value, Value> dynamicDone = new HashMap<>();
  /** Loads already considered as members of a group (emitted or declined): not considered again. */
  private final Set<Value> dynamicConsidered = new HashSet<>();

  /**
   * Dynamic variants (Karrenberg's later work, ispc's coherent paths): the loads of one block at constant
   * byte offsets from one varying pointer {@code root} ({@code c[-1]}, {@code c[0]}, {@code c[24]}: a
   * stencil's neighbours; {@code p->x}, {@code p->y}: a field group), up to the next store or call
   * that may write memory, emitted together at the first of them behind ONE run-time test of the
   * root's lanes (only the active ones under a partial mask):
   * <ul>
   * <li>all active lanes hold the same pointer: one scalar load per access at that pointer (the first
   *     active lane's, which the scalar code reads) and a broadcast;</li>
   * <li>the lanes' pointers are consecutive with the accesses' element size: one vector load per access
   *     (a masked load under a partial mask: no byte an inactive lane would not read);</li>
   * <li>where those fail and every active lane's pointer is the first or the last active lane's (a packet
   *     straddling two runs): two scalar loads per access and a blend ({@link DynamicVariantCost#twoValued});</li>
   * <li>otherwise the code this widener emits anyway (windows, per-lane loads, lookups, gathers).</li>
   * </ul>
   * The later members take their packets from {@link #dynamicDone}. Done only where the group's
   * per-lane loads pay for the test ({@link DynamicVariantCost}); every decision is a remark. Knob:
   * {@code -Dpacketizer.dynamicVariants=false}. Null when not applicable.
   */
  private Value dynamicVariants(Value inst, Type t, Value ptr) {
    Value done = dynamicDone.get(inst);
    if (done != null) return done;
    // (the lane bits of the mask as one integer of at most 64 bits)
    if (dynamicConsidered.contains(inst) || !DynamicVariantCost.enabled() || w > 64) return null;
    if (windowed.containsKey(inst)) return null;
    if (!dynamicMember(inst)) return null;
    Value root = windowRoot(ptr);
    Value base = rootBase(root);
    // the loads off this root, and those off other varying roots on the same uniform base (t + y*w + x and
    // t + (y+1)*w + x: the rows of a bilinear fetch), which join when the knob says so ({@link DynamicVariantCost#mergeRoots})
    List<Value> group = new ArrayList<>();
    List<Value> merged = new ArrayList<>();
    for (Value i = inst; i != null; i = i.nextInstruction()) {
      Opcode op = st.ssa().opcode(i);
      if (op == Opcode.CALL && PURE.test(i)) continue;
      if (endsLoadGroup(op)) break;
      if (op != Opcode.LOAD) continue;
      // (a later load must not move above an atomic or volatile one: such a group is left as it is)
      if (i.isAtomic() || i.isVolatile()) return null;
      if (!dynamicMember(i)) continue;
      Value r = windowRoot(i.operand(0));
      if (root.equals(r)) {
        group.add(i);
        merged.add(i);
      } else if (base != null && base.equals(rootBase(r))) {
        merged.add(i);
      }
    }
    if (merged.size() > group.size() && DynamicVariantCost.mergeRoots(merged.stream().anyMatch(x -> x.type().isVector()))) group = merged;
    List<Value> roots = new ArrayList<>();
    for (Value m : group) {
      Value r = windowRoot(m.operand(0));
      if (!roots.contains(r)) roots.add(r);
    }
    dynamicConsidered.addAll(group);
    int parts = 0;
    for (Value m : group) parts += elementsOf(m.type());
    String what = group.size() + " loads at constant offsets from " + root.describe()
        + (roots.size() > 1 ? " and " + (roots.size() - 1) + " other root(s) on the same base" : "")
        + (parts != group.size() ? " (" + parts + " elements: vector loads are counted by their elements)" : "");
    if (st.options().optimize() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE) {
      // optimizing for size: not a second and third copy of the group's loads and the test
      if (parts > 1) st.remark(Remark.Kind.MEMORY, current(), inst, "no dynamic variants for the " + what + ": optimizing for size");
      return null;
    }
    org.packetizer.core.wrapper.HardwareWidth.Target target = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    int registerBytes = 4 * Math.max(1, target.width());
    if (!DynamicVariantCost.pays(parts, w, registerBytes)) {
      if (parts > 1) st.remark(Remark.Kind.MEMORY, current(), inst, "no dynamic variants for the " + what + ": " + DynamicVariantCost.explain(parts, w, registerBytes));
      return null;
    }
    long elem = elementSize(group.get(0).type());
    boolean sameSize = true;
    for (Value m : group) sameSize &= elementSize(m.type()) == elem;
    long unit = 0;
    boolean neverConsecutive = false;
    if (sameSize && DynamicVariantCost.dropImpossibleVariants()) {
      for (Value r : roots) {
        long u = rootStrideUnit(r);
        if (u > 0 && elem % u != 0) {
          neverConsecutive = true;
          unit = u;
        }
      }
    }
    // vector members that can never step by their element size may step by their whole size (p[i] of an
    // array of struct { float x, y; } loaded as one <2 x float>: lanes p[i], p[i+1], ...): one load of the
    // lanes' vectors back to back, from lane-major to element-major
    boolean whole = false;
    long vectorSize = st.module().allocSize(group.get(0).type());
    if (neverConsecutive && group.stream().allMatch(x -> x.type().isVector() && st.module().allocSize(x.type()) == vectorSize)
        && roots.stream().allMatch(r -> rootStrideUnit(r) > 0 && vectorSize % rootStrideUnit(r) == 0)) {
      whole = true;
      neverConsecutive = false;
      elem = vectorSize;
    }
    if (neverConsecutive) sameSize = false;
    boolean offsetTest = DynamicVariantCost.offsetTest(registerBytes);
    boolean narrowRoute = offsetTest && roots.stream().allMatch(r -> narrowOffsetLevels(r) != null);
    int offsets = emitDynamicVariants(inst, roots, group, sameSize ? elem : 0, whole, offsetTest, DynamicVariantCost.twoValued(narrowRoute, registerBytes));
    st.remark(Remark.Kind.MEMORY, current(), inst, "dynamic variants for the " + what + ": one run-time test of "
        + (roots.size() > 1 ? "their" : "its") + " lanes" + (MaskOps.isAllTrue(mask()) ? "" : " (the active ones)")
        + (offsets > 0 ? " (all equal: " + (roots.size() > 1 ? "their " : "its ") + offsets + " varying offset(s) of at most 32 bits from a uniform base compared, not the 64-bit pointers)" : "")
        + ": all equal -> " + group.size() + " scalar loads and broadcasts; "
        + (sameSize ? "consecutive (stride " + elem + " bytes" + (whole ? ", whole vectors" : "") + ") -> " + (whole ? group.size() : parts) + " vector loads; " : "")
        + (neverConsecutive ? "no consecutive variant (the lanes' pointers differ by multiples of " + unit + " bytes, never by "
            + elem + "); " : "")
        + (lastTwoValued ? "two values (each active lane at the first or the last active lane's pointer) -> " + 2 * group.size()
            + " scalar loads and " + group.size() + " blends; " : "")
        + "otherwise per-lane loads or gathers. " + DynamicVariantCost.explain(parts, w, registerBytes));
    return dynamicDone.get(inst);
  }

  /** Elements of a dynamic-variant member: N for a vector {@code <N x T>} (clang's SLP-merged loads), else 1. */
  private static int elementsOf(Type t) {
    return t.isVector() ? t.vectorSize() : 1;
  }

  /** The byte size of one element of a dynamic-variant member (its scalar type, or a vector's element type). */
  private long elementSize(Type t) {
    return st.module().allocSize(t.isVector() ? t.elementType() : t);
  }

  /** The uniform pointer a varying root is reached from through GEPs ({@code t} of {@code t + y*w + x}), or null. */
  private Value rootBase(Value root) {
    Value p = root;
    while (p != null && !uniform(p)) {
      if (!p.isInstruction() || st.ssa().opcode(p) != Opcode.GEP || p.type().isVector()) return null;
      p = p.operand(0);
    }
    return p != null && !p.type().isVector() ? p : null;
  }

  /**
   * The largest power of two that divides every difference of the root's lanes, in bytes, when the
   * root is {@code gep T, base, idx} with a uniform base (an element of an array of T: lanes differ by
   * multiples of sizeof(T), modulo 2^64, so by multiples of its lowest set bit); 0 when unknown.
   */
  private long rootStrideUnit(Value root) {
    if (!root.isInstruction() || st.ssa().opcode(root) != Opcode.GEP || root.numOperands() != 2) return 0;
    Value base = root.operand(0);
    if (base.type().isVector() || !uniform(base)) return 0;
    long size = st.module().allocSize(root.gepSourceElementType());
    return size <= 0 ? 0 : size & -size;
  }

  /**
   * A load a dynamic-variant group may hold: a scalar element, or a small vector of them ({@code <2 x float>}: clang's
   * SLP vectorizer merges adjacent loads; knob {@code -Dpacketizer.dynamicVariants.vectors}), from a varying, non-linear
   * address off a window root.
   */
  private boolean dynamicMember(Value i) {
    if (i.isVolatile() || i.isAtomic() || uniform(i)) return false;
    Type t = i.type();
    if (t.isVector()) {
      if (!DynamicVariantCost.vectors() || t.vectorSize() > 16 || !denselyPacked(t) || st.module().allocSize(t) > 64) return false;
    } else if (CompositePackets.isComposite(t)) {
      return false;
    }
    Type et = t.isVector() ? t.elementType() : t;
    if (!et.isVectorElement() || et.isVector() || st.module().allocSize(et) > 64 || st.module().allocSize(et) != st.module().storeSize(et)) return false;
    if (!packetType(i, t).equals(et.vectorOf(w * elementsOf(t)))) return false;
    Value p = i.operand(0);
    if (p.type().isVector() || !p.type().equals(st.context().ptrType()) || shape(p).isLinear()) return false;
    if (e.uniformMemory.shared() != null && e.uniformMemory.shared().privateLoad(i).isPresent()) return false;
    Value r = windowRoot(p);
    return r != null && !shape(r).isLinear();
  }

  /**
   * The run-time test and the three or four variants of {@link #dynamicVariants}; leaves the builder in the join
   * block, the members' packets (phis) in {@link #dynamicDone}. {@code roots}: the group's varying roots (the
   * first is the first member's; every member is at a constant offset from one of them): each test is the
   * conjunction of its test on every root. {@code elem} is the members' common element size (0: none, no
   * consecutive variant; a vector member {@code <N x T>} is N elements of T, consecutive when the lanes' pointers
   * step by T's size); {@code offsetTest}: the all-equal test on the roots' narrow offsets where they all have
   * them ({@link DynamicVariantCost#offsetTest}); {@code twoValued}: the two-valued variant where the other tests
   * fail ({@link DynamicVariantCost#twoValued}). Returns the number of narrow offsets the all-equal test compared
   * ({@link #narrowOffsetLevels}), 0 where it compared the pointers.
   */
  private int emitDynamicVariants(Value inst, List<Value> roots, List<Value> group, long elem, boolean whole, boolean offsetTest, boolean twoValued) {
    lastTwoValued = twoValued;
    Value m = mask();
    boolean full = MaskOps.isAllTrue(m);
    Type i64 = st.context().i64();
    Type iw = st.context().intType(w);
    int nr = roots.size();
    List<Value> rv = new ArrayList<>();
    for (Value r : roots) rv.add(vec(r));
    int[] rootOf = new int[group.size()];
    for (int j = 0; j < group.size(); j++) rootOf[j] = roots.indexOf(windowRoot(group.get(j).operand(0)));
    Value bits = full ? null : b.cast(Opcode.BITCAST, m, iw, "dyn.mask");
    Value first, lastLane;
    if (full) {
      first = b.i64(0);
      lastLane = b.i64(w - 1);
    } else {
      Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
      f = b.and(f, b.constInt(iw, w - 1), "dyn.first");
      first = w < 64 ? b.cast(Opcode.ZEXT, f, i64, "") : f;
      Value l = b.call(st.module().intrinsic("llvm.ctlz", iw), List.of(bits, b.i1(false)), "");
      l = b.and(b.sub(b.constInt(iw, w - 1), l, ""), b.constInt(iw, w - 1), "dyn.last");
      lastLane = w < 64 ? b.cast(Opcode.ZEXT, l, i64, "") : l;
    }
    List<List<Value>> levelsOf = null;
    if (offsetTest) {
      levelsOf = new ArrayList<>();
      for (Value r : roots) {
        List<Value> lv = narrowOffsetLevels(r);
        if (lv == null) {
          levelsOf = null;
          break;
        }
        levelsOf.add(lv);
      }
    }
    boolean narrowRoute = levelsOf != null;
    boolean localPointers = DynamicVariantCost.localPointers(group.stream().anyMatch(x -> x.type().isVector()));
    // (the consecutive test on the narrow offsets: every root one varying offset, indexing elements of elem bytes)
    boolean narrowConsecutive = narrowRoute && localPointers && elem > 0;
    for (int j = 0; narrowConsecutive && j < nr; j++) {
      int varying = 0;
      for (Value level : levelsOf.get(j)) {
        if (!uniform(level.operand(1))) {
          varying++;
          if (st.module().allocSize(level.gepSourceElementType()) != elem) varying = 2;
        }
      }
      narrowConsecutive = varying == 1;
    }
    Block pre = b.currentBlock();
    Value[] pf = new Value[nr], r0 = new Value[nr], rl = new Value[nr], pl = new Value[nr], ri = new Value[nr];
    Value cand = null, offsetsEqual = null;
    List<List<Value>> narrowLanes = new ArrayList<>();
    int offsets = 0;
    if (narrowRoute) {
      // the all-equal test on the narrow offsets from the uniform base (one compare per 32-bit vector),
      // and the first active lane's pointer rebuilt from that base and those lanes' offsets: the
      // 64-bit pointer vector is then needed only where the test fails (LLVM sinks it there)
      for (int j = 0; j < nr; j++) {
        List<Value> levels = levelsOf.get(j);
        List<Value> lanes = new ArrayList<>();
        Value p = scal(levels.get(0).operand(0));
        for (Value level : levels) {
          Value idx = level.operand(1);
          Value si;
          if (uniform(idx)) {
            si = scal(idx);
          } else {
            Value narrow = narrowOffset(idx);
            Value nv = vec(narrow);
            // (an inactive lane's offset may be poison: frozen, so that it stays that lane's own garbage)
            if (!full) nv = b.freeze(nv, "dyn.off.frozen");
            Value n0 = b.extractElement(nv, first, "dyn.off");
            Value e = b.icmpEq(nv, b.splat(n0, w, ""), "dyn.off.eq");
            lanes.add(nv);
            offsetsEqual = offsetsEqual == null ? e : b.and(offsetsEqual, e, "");
            offsets++;
            si = narrow == idx ? n0 : b.cast(st.ssa().opcode(idx), n0, idx.type(), "");
          }
          p = b.gep(level.gepSourceElementType(), p, List.of(si), false, level == levels.get(levels.size() - 1) ? "dyn.ptr" : "");
        }
        pf[j] = p;
        narrowLanes.add(lanes);
      }
    } else {
      // a cheap pre-test on the first and last active lanes' pointers (lanes the per-lane path extracts
      // anyway): on divergent inputs it is all the dynamic variants cost
      for (int j = 0; j < nr; j++) {
        pf[j] = b.extractElement(rv.get(j), first, "dyn.ptr");
        r0[j] = b.cast(Opcode.PTRTOINT, pf[j], i64, "dyn.lane");
        pl[j] = b.extractElement(rv.get(j), lastLane, "dyn.ptr.last");
        rl[j] = b.cast(Opcode.PTRTOINT, pl[j], i64, "");
        Value d = b.sub(rl[j], r0[j], "dyn.span");
        Value c = b.icmpEq(d, b.i64(0), "");
        if (elem > 0) c = b.or(c, b.icmpEq(d, b.mul(b.sub(lastLane, first, ""), b.i64(elem), ""), ""), "dyn.candidate");
        cand = cand == null ? c : b.and(cand, c, "");
      }
    }
    Block test = narrowRoute ? null : packet.appendBlock(nameOf(pre, ".dyntest"));
    Block same = packet.appendBlock(nameOf(pre, ".same"));
    Block test2 = elem > 0 ? packet.appendBlock(nameOf(pre, ".notsame")) : null;
    Block consec = elem > 0 ? packet.appendBlock(nameOf(pre, ".consecutive")) : null;
    Block twoTest = twoValued ? packet.appendBlock(nameOf(pre, ".twotest")) : null;
    Block two = twoValued ? packet.appendBlock(nameOf(pre, ".two")) : null;
    Block other = packet.appendBlock(nameOf(pre, ".lanes"));
    // (where the test fails: the two-valued test first when there is one)
    Block fail = twoValued ? twoTest : other;
    Block join = packet.appendBlock(nameOf(pre, ".dyn"));
    if (test != null) {
      test.moveAfter(pre);
      same.moveAfter(test);
    } else {
      same.moveAfter(pre);
    }
    Block last = same;
    if (elem > 0) {
      test2.moveAfter(last);
      consec.moveAfter(test2);
      last = consec;
    }
    if (twoValued) {
      twoTest.moveAfter(last);
      two.moveAfter(twoTest);
      last = two;
    }
    other.moveAfter(last);
    join.moveAfter(other);
    Value notMask = full ? null : b.not(m, "");
    Value any = full ? null : b.icmpNe(bits, b.constInt(iw, 0), "dyn.any");
    Value eq;
    if (narrowRoute) {
      eq = offsetsEqual;
    } else {
      b.condBr(cand, test, fail);
      b.atEnd(test);
      eq = null;
      for (int j = 0; j < nr; j++) {
        ri[j] = b.cast(Opcode.PTRTOINT, rv.get(j), i64.vectorOf(w), "dyn.lanes");
        Value e = b.icmpEq(ri[j], b.splat(r0[j], w, ""), "dyn.eq");
        eq = eq == null ? e : b.and(eq, e, "");
      }
    }
    if (!full) eq = b.or(eq, notMask, "");
    Value allEq = b.icmpEq(b.cast(Opcode.BITCAST, eq, iw, ""), b.allOnes(iw), "dyn.same");
    if (!full) allEq = b.and(allEq, any, "");
    b.condBr(allEq, same, elem > 0 ? test2 : fail);
    // all equal: one scalar load per member at the first active lane's pointer plus its offset (a vector
    // member: one load of the vector and a broadcast of each element)
    b.atEnd(same);
    List<Value> sameValues = new ArrayList<>();
    for (int j = 0; j < group.size(); j++) {
      Value mem = group.get(j);
      Value p = b.gep(st.context().i8(), pf[rootOf[j]], List.of(b.i64(windowOffset(mem.operand(0)))), false, "");
      Value v = b.load(mem.type(), p, Math.max(1, mem.alignment()), "");
      sameValues.add(comp.broadcast(v, ""));
    }
    st.stats().vectorLoads += group.size();
    Block sameEnd = b.currentBlock();
    b.br(join);
    List<Value> consecValues = null;
    Block consecEnd = null;
    if (elem > 0) {
      b.atEnd(test2);
      if (narrowRoute) {
        // where the offsets were not all equal: the consecutive test on the 64-bit pointers, behind the
        // scalar pre-test on the first and last active lanes' pointers (lanes the per-lane path extracts
        // anyway: on divergent inputs the narrow compares are all the dynamic variants add)
        Value maybe = null;
        for (int j = 0; j < nr; j++) {
          r0[j] = b.cast(Opcode.PTRTOINT, pf[j], i64, "dyn.lane");
          // (a group with a vector member: the last active lane's pointer rebuilt from its narrow offsets, as the
          // two-valued test does, so that the 64-bit pointer vectors are still not built on this path)
          Value rlc = b.cast(Opcode.PTRTOINT, localPointers ? rebuiltPointer(levelsOf.get(j), narrowLanes.get(j), lastLane)
              : b.extractElement(rv.get(j), lastLane, ""), i64, "");
          Value d = b.sub(rlc, r0[j], "dyn.span");
          Value c = b.icmpEq(d, b.mul(b.sub(lastLane, first, ""), b.i64(elem), ""), "dyn.candidate");
          maybe = maybe == null ? c : b.and(maybe, c, "");
        }
        Block vtest = packet.appendBlock(nameOf(pre, ".consecutivetest"));
        vtest.moveAfter(test2);
        b.condBr(maybe, vtest, fail);
        b.atEnd(vtest);
        if (!narrowConsecutive) for (int j = 0; j < nr; j++) ri[j] = b.cast(Opcode.PTRTOINT, rv.get(j), i64.vectorOf(w), "dyn.lanes");
      }
      List<Value> steps = new ArrayList<>();
      for (int k = 0; k < w; k++) steps.add(b.i64(k * elem));
      Value allCe = null;
      for (int j = 0; j < nr; j++) {
        Value ce;
        if (narrowConsecutive) {
          // on the root's one varying narrow offset n (its element of elem bytes): lane k's n is the first active
          // lane's + (k - first), wrapping; exact with the pre-test, which found the last active lane's pointer
          // (l - first) * elem past the first's, so that n does not wrap between them and the pointers step by elem
          Value nv = narrowLanes.get(j).get(0);
          Type nt = nv.type().scalarType();
          List<Value> iota = new ArrayList<>();
          for (int k = 0; k < w; k++) iota.add(b.constInt(nt, k));
          Value fn = nt.intWidth() == 64 ? first : b.cast(Opcode.TRUNC, first, nt, "");
          Value n0 = b.sub(b.extractElement(nv, first, ""), fn, "dyn.off.lane0");
          ce = b.icmpEq(nv, b.add(b.splat(n0, w, ""), b.constVector(iota), ""), "dyn.consecutive");
        } else {
          Value lane0 = full ? r0[j] : b.sub(r0[j], b.mul(first, b.i64(elem), ""), "dyn.lane0");
          Value expect = b.add(b.splat(lane0, w, ""), b.constVector(steps), "");
          ce = b.icmpEq(ri[j], expect, "dyn.consecutive");
        }
        allCe = allCe == null ? ce : b.and(allCe, ce, "");
      }
      if (!full) allCe = b.or(allCe, notMask, "");
      allCe = b.icmpEq(b.cast(Opcode.BITCAST, allCe, iw, ""), b.allOnes(iw), "");
      if (!full) allCe = b.and(allCe, any, "");
      b.condBr(allCe, consec, fail);
      b.atEnd(consec);
      Value[] p0 = new Value[nr];
      for (int j = 0; j < nr; j++) p0[j] = full ? pf[j] : b.gep(st.context().i8(), pf[j], List.of(b.mul(first, b.i64(-elem), "")), false, "dyn.base");
      consecValues = new ArrayList<>();
      int loads = 0;
      for (int j = 0; j < group.size(); j++) {
        Value mem = group.get(j);
        Type et = mem.type().isVector() ? mem.type().elementType() : mem.type();
        Type vt = et.vectorOf(w);
        long off = windowOffset(mem.operand(0));
        int a = Math.max(1, mem.alignment());
        if (whole) {
          // (lane k's vector at lane 0's pointer + k * size(<N x T>): the lanes' vectors back to back)
          int n = elementsOf(mem.type());
          Type flat = et.vectorOf(n * w);
          Value p = b.gep(st.context().i8(), p0[rootOf[j]], List.of(b.i64(off)), false, "");
          Value lm = full ? b.load(flat, p, a, "") : b.call(st.module().intrinsic("llvm.masked.load", flat, p.type()),
              List.of(p, b.i32(a), comp.repeatLaneMajor(m, n), b.poison(flat)), "");
          consecValues.add(comp.fromLaneMajor(lm, n));
          loads++;
          continue;
        }
        // (a vector member <N x T>: element i of lane k is at lane 0's pointer + k * size(T) + i * size(T))
        List<Value> elements = new ArrayList<>();
        for (int i = 0; i < elementsOf(mem.type()); i++) {
          Value p = b.gep(st.context().i8(), p0[rootOf[j]], List.of(b.i64(off + i * elem)), false, "");
          int ai = partAlignment(a, i * elem);
          if (full) {
            elements.add(b.load(vt, p, ai, ""));
          } else {
            Function f = st.module().intrinsic("llvm.masked.load", vt, p.type());
            elements.add(b.call(f, List.of(p, b.i32(ai), m, b.poison(vt)), ""));
          }
          loads++;
        }
        consecValues.add(comp.concat(elements));
      }
      st.stats().vectorLoads += loads;
      consecEnd = b.currentBlock();
      b.br(join);
    }
    List<Value> twoValues = null;
    Block twoEnd = null;
    if (twoValued) {
      // two values: every active lane's pointer is the first or the last active lane's (a packet that
      // straddles two runs: a Z-ordered grid, a magnified texture), on every root at once. Exact for every
      // lane pattern: the lanes equal to the first on every root take its values, the other active ones are
      // equal to the last on every root; the two loads are through active lanes only (and none when no lane
      // is active)
      b.atEnd(twoTest);
      Value eqFirst = null, eqLast = null;
      if (narrowRoute) {
        // on the narrow offsets, as the all-equal test: the last active lane's offsets, and its pointer
        // rebuilt from them (the pointer vector is still not needed)
        eqFirst = offsetsEqual;
        for (int j = 0; j < nr; j++) {
          Value[] lastEq = {eqLast};
          pl[j] = rebuiltPointer(levelsOf.get(j), narrowLanes.get(j), lastLane, "dyn.off.last", "dyn.ptr.last", (nv, nl) -> {
            Value e = b.icmpEq(nv, b.splat(nl, w, ""), "dyn.off.eqlast");
            lastEq[0] = lastEq[0] == null ? e : b.and(lastEq[0], e, "");
          });
          eqLast = lastEq[0];
        }
      } else {
        for (int j = 0; j < nr; j++) {
          Value lanes = b.cast(Opcode.PTRTOINT, rv.get(j), i64.vectorOf(w), "dyn.lanes2");
          // (an inactive lane's pointer may be poison: frozen, so that it stays that lane's own garbage)
          if (!full) lanes = b.freeze(lanes, "dyn.lanes2.frozen");
          Value ef = b.icmpEq(lanes, b.splat(r0[j], w, ""), "dyn.eqfirst");
          Value el = b.icmpEq(lanes, b.splat(rl[j], w, ""), "dyn.eqlast");
          eqFirst = eqFirst == null ? ef : b.and(eqFirst, ef, "");
          eqLast = eqLast == null ? el : b.and(eqLast, el, "");
        }
      }
      Value either = b.or(eqFirst, eqLast, "dyn.either");
      if (!full) either = b.or(either, notMask, "");
      Value allTwo = b.icmpEq(b.cast(Opcode.BITCAST, either, iw, ""), b.allOnes(iw), "dyn.two");
      if (!full) allTwo = b.and(allTwo, any, "");
      b.condBr(allTwo, two, other);
      b.atEnd(two);
      twoValues = new ArrayList<>();
      for (int j = 0; j < group.size(); j++) {
        Value mem = group.get(j);
        long off = windowOffset(mem.operand(0));
        int a = Math.max(1, mem.alignment());
        Value vf = b.load(mem.type(), b.gep(st.context().i8(), pf[rootOf[j]], List.of(b.i64(off)), false, ""), a, "");
        Value vl = b.load(mem.type(), b.gep(st.context().i8(), pl[rootOf[j]], List.of(b.i64(off)), false, ""), a, "");
        twoValues.add(comp.select(eqFirst, comp.broadcast(vf, ""), comp.broadcast(vl, ""), "dyn.blend"));
      }
      st.stats().vectorLoads += 2 * group.size();
      twoEnd = b.currentBlock();
      b.br(join);
    }
    // otherwise: what this widener emits for each member without dynamic variants
    b.atEnd(other);
    List<Value> otherValues = new ArrayList<>();
    // (a group with a vector member: its elements' pointer vectors rebuilt here from the uniform base, plus the element's
    // constant offset, and the offsets' packets, so that x86 gathers see a base and 32-bit indices where the offsets are
    // sign-extended: one 16-lane gather per element on AVX-512 instead of two 8-lane ones off the 64-bit pointers)
    for (int j = 0; j < group.size(); j++) {
      Value mem = group.get(j);
      if (mem.type().isVector()) {
        // (narrow gathers, where they apply, for the vector members too: one 32-bit index packet for the group)
        Value nd = narrowGathered.remove(mem);
        if (nd == null) nd = narrowGathers(mem, mem.type(), mem.operand(0));
        if (nd != null) {
          otherValues.add(nd);
          continue;
        }
      }
      List<Value> levels = localPointers && mem.type().isVector() ? narrowOffsetLevels(roots.get(rootOf[j])) : null;
      otherValues.add(levels != null ? rebuiltGathers(mem, levels) : fallbackLoad(mem, rv.get(rootOf[j])));
    }
    Block otherEnd = b.currentBlock();
    b.br(join);
    join.moveAfter(otherEnd);
    b.atEnd(join);
    for (int j = 0; j < group.size(); j++) {
      Value mem = group.get(j);
      Value phi = b.phi(packetType(mem, mem.type()), nameOf(mem));
      phi.addIncoming(sameValues.get(j), sameEnd);
      if (consecValues != null) phi.addIncoming(consecValues.get(j), consecEnd);
      if (twoValues != null) phi.addIncoming(twoValues.get(j), twoEnd);
      phi.addIncoming(otherValues.get(j), otherEnd);
      dynamicDone.put(mem, phi);
    }
    return offsets;
  }

  /** Lane {@code lane}'s pointer of a root rebuilt from its uniform base and its narrow offsets' lanes ({@code narrow}, in level order). */
  private Value rebuiltPointer(List<Value> levels, List<Value> narrow, Value lane) {
    return rebuiltPointer(levels, narrow, lane, "", "", null);
  }

  /**
   * {@link #rebuiltPointer(List, List, Value)} with names for the extracted offsets and the last GEP, and {@code onLane}
   * (null: none) told each varying level's narrow offsets and their extracted lane right after the extract (the
   * two-valued test compares them there).
   */
  private Value rebuiltPointer(List<Value> levels, List<Value> narrow, Value lane, String laneName, String pointerName,
      java.util.function.BiConsumer<Value, Value> onLane) {
    Value p = scal(levels.get(0).operand(0));
    int k = 0;
    for (Value level : levels) {
      Value idx = level.operand(1);
      Value si;
      if (uniform(idx)) {
        si = scal(idx);
      } else {
        Value nv = narrow.get(k++);
        Value nl = b.extractElement(nv, lane, laneName);
        if (onLane != null) onLane.accept(nv, nl);
        si = nv.type().scalarType().equals(idx.type()) ? nl : b.cast(st.ssa().opcode(idx), nl, idx.type(), "");
      }
      p = b.gep(level.gepSourceElementType(), p, List.of(si), false, level == levels.get(levels.size() - 1) ? pointerName : "");
    }
    return p;
  }

  /** A vector member's per-lane path: one gather per element, off pointers rebuilt by {@link #rebuiltPointers}. */
  private Value rebuiltGathers(Value mem, List<Value> levels) {
    Type t = mem.type();
    long off = windowOffset(mem.operand(0));
    int align = Math.max(1, mem.alignment());
    st.remark(Remark.Kind.MEMORY, current(), mem, "load of " + t + " became one gather per element off the uniform base and the offsets (the path of"
        + " dynamic variants where the lanes' pointers are neither equal nor consecutive)");
    return loadLeaves(mem, t, 0, (lt, o) -> gatherOrCascade(mem, lt, rebuiltPointers(levels, off + o), partAlignment(align, off + o), ""));
  }

  /**
   * A root's pointer vector plus {@code bytes} rebuilt at the builder from its uniform base (the bytes added to it) and its offsets'
   * packets: vector GEPs off a scalar base, which x86 gathers take as base + index.
   */
  private Value rebuiltPointers(List<Value> levels, long bytes) {
    Value p = scal(levels.get(0).operand(0));
    if (bytes != 0) p = b.gep(st.context().i8(), p, List.of(b.i64(bytes)), false, "");
    for (Value level : levels) {
      Value idx = level.operand(1);
      // (a sign-extended narrow offset as the index itself: a GEP sign-extends it alike, and x86 gathers it with 32-bit indices)
      Value at = uniform(idx) ? scal(idx) : idx.isInstruction() && st.ssa().opcode(idx) == Opcode.SEXT ? vec(narrowOffset(idx)) : vec(idx);
      p = b.gep(level.gepSourceElementType(), p, List.of(at), false, "");
    }
    return p;
  }

  /**
   * The GEPs from a uniform base up to {@code root} (base first) when the root is a uniform pointer
   * plus varying offsets that are all narrow ({@code gep float, (gep float, g, sext(y * 24)), sext(x)}:
   * two 32-bit offsets), each GEP with one index, uniform or {@link #narrowOffset}; null otherwise
   * (a loaded pointer, a 64-bit varying index, struct fields), where the dynamic variants test the
   * 64-bit pointers themselves.
   */
  private List<Value> narrowOffsetLevels(Value root) {
    List<Value> levels = new ArrayList<>();
    Value p = root;
    while (!uniform(p)) {
      if (!p.isInstruction() || st.ssa().opcode(p) != Opcode.GEP || p.numOperands() != 2 || p.type().isVector()) return null;
      Value idx = p.operand(1);
      if (idx.type().isVector()) return null;
      if (uniform(idx) ? !available(idx) : narrowOffset(idx) == null) return null;
      levels.add(p);
      p = p.operand(0);
    }
    if (levels.isEmpty() || !available(p) || p.type().isVector()) return null;
    java.util.Collections.reverse(levels);
    return levels;
  }

  /**
   * A varying GEP index's value of at most 32 bits whose lanes are all equal exactly when the index's
   * are: the index itself when it has at most 32 bits, the operand of a sign or zero extension of
   * such a value; null otherwise or when that value's packet is not at hand.
   */
  private Value narrowOffset(Value idx) {
    Type t = idx.type();
    Value n;
    if (t.isInteger() && t.intWidth() <= 32) {
      n = idx;
    } else if (idx.isInstruction() && (st.ssa().opcode(idx) == Opcode.SEXT || st.ssa().opcode(idx) == Opcode.ZEXT)
        && idx.operand(0).type().isInteger() && idx.operand(0).type().intWidth() <= 32) {
      n = idx.operand(0);
    } else {
      return null;
    }
    return !uniform(n) && available(n) ? n : null;
  }

  /** A member of a dynamic-variant group as {@link #emitLoad} emits it without them (its address from the root's packet). */
  private Value fallbackLoad(Value mem, Value rv) {
    Type t = mem.type();
    if (t.isVector()) {
      // a vector member: what emitCompositeLoad emits through varying addresses (one gather per element)
      st.remark(Remark.Kind.MEMORY, current(), mem, "load of " + t + " became one gather per element (the path of dynamic variants where the lanes' pointers"
          + " are neither equal nor consecutive)");
      long off = windowOffset(mem.operand(0));
      Value ptrs = off == 0 ? rv : b.gep(st.context().i8(), rv, List.of(b.i64(off)), false, "");
      return loadParts(mem, t, ptrs, 0, Math.max(1, mem.alignment()));
    }
    Type vt = packetType(mem, t);
    Value ptr = mem.operand(0);
    int align = Math.max(1, mem.alignment());
    Value narrowDone = narrowGathered.remove(mem);
    if (narrowDone != null) return narrowDone;
    Value narrow = narrowGathers(mem, t, ptr);
    if (narrow != null) return narrow;
    Value window = windowLoad(mem, t, ptr);
    if (window != null) return window;
    Value lookup = tableLookup(mem, t, vt, ptr, align);
    if (lookup != null) return lookup;
    Value lanes = laneLoads(mem, t, vt, ptr, align);
    if (lanes != null) return lanes;
    st.remark(Remark.Kind.MEMORY, current(), mem, "load from varying addresses became a gather (the path of dynamic variants where the lanes' pointers are neither equal nor consecutive)"
        + onceBeforeLoopNote());
    Value ptrs = b.gep(st.context().i8(), rv, List.of(b.i64(windowOffset(ptr))), false, "");
    return gatherOrCascade(mem, t, ptrs, align, nameOf(mem));
  }

  /** The varying base a window's address is a constant byte offset from, or null. */
  private Value windowRoot(Value p) {
    if (p.isInstruction() && st.ssa().opcode(p) == Opcode.GEP && p.numOperands() == 2 && p.operand(1).isConstantInt()) {
      Value base = p.operand(0);
      if (!base.type().isVector() && !uniform(base) && available(base) && !st.soa().isDerived(base) && !st.soa().isDerived(p)) return base;
      return null;
    }
    return !uniform(p) && available(p) && !st.soa().isDerived(p) ? p : null;
  }

  /** The constant byte offset of p from {@link #windowRoot}. */
  private long windowOffset(Value p) {
    if (p.isInstruction() && st.ssa().opcode(p) == Opcode.GEP && p.numOperands() == 2 && p.operand(1).isConstantInt()) {
      return p.operand(1).constIntSExt() * st.module().allocSize(p.gepSourceElementType());
    }
    return 0;
  }

  /**
   * Four packets from W rows of four elements (row k = lane k's elements 0..3): packet j holds element j
   * of every lane. Rows 4c+j form the 128-bit chunk c of vector Y_j; then an unpack of pairs of
   * elements and of pairs of pairs within each chunk (what x86 does in one instruction each).
   */
  private List<Value> transpose4(List<Value> rows) {
    List<Value> y = new ArrayList<>();
    for (int j = 0; j < 4; j++) {
      List<Value> parts = new ArrayList<>();
      for (int c = 0; c < w / 4; c++) parts.add(rows.get(4 * c + j));
      y.add(VectorParts.concat(b, parts));
    }
    Value t0 = chunkShuffle(y.get(0), y.get(1), new int[] {0, -4, 1, -3});
    Value t1 = chunkShuffle(y.get(0), y.get(1), new int[] {2, -2, 3, -1});
    Value t2 = chunkShuffle(y.get(2), y.get(3), new int[] {0, -4, 1, -3});
    Value t3 = chunkShuffle(y.get(2), y.get(3), new int[] {2, -2, 3, -1});
    return List.of(chunkShuffle(t0, t2, new int[] {0, 1, -4, -3}), chunkShuffle(t0, t2, new int[] {2, 3, -2, -1}),
        chunkShuffle(t1, t3, new int[] {0, 1, -4, -3}), chunkShuffle(t1, t3, new int[] {2, 3, -2, -1}));
  }

  /**
   * The same four-element pattern in every 128-bit chunk of two W-element vectors: {@code i >= 0}
   * takes the first vector's element i of the chunk, {@code i < 0} the second's element 4 + i.
   */
  private Value chunkShuffle(Value a, Value c, int[] pattern) {
    List<Value> idx = new ArrayList<>();
    for (int ch = 0; ch < w / 4; ch++) {
      for (int i : pattern) idx.add(b.i32(i >= 0 ? 4 * ch + i : w + 4 * ch + 4 + i));
    }
    return b.shuffle(a, c, b.constVector(idx), "");
  }

  /**
   * W scalar loads of {@code t}, lane k's at {@code lanePtr(k)} (address space 0), into one packet;
   * under a partial mask an inactive lane's load reads the module's private zero constant
   * {@link PacketEmitter#INACTIVE_LANE_SLOT} instead of its address (a select per lane on the mask's
   * bits: no branch, and no access the scalar code would not make). A constant global, not a stack
   * slot: SROA would turn a load through a select of an alloca back into a branch per lane. With {@code blendsAllowed}
   * (loads off a varying pointer, not table lookups, whose expansions a code-growth budget counts in IR instructions),
   * broadcasts and blends where {@link #laneBlendsReason} says so.
   */
  private Value perLane(Value inst, Type t, Type vt, int align, boolean blendsAllowed, LaneAddress lanePtr) {
    Value m = mask();
    boolean full = MaskOps.isAllTrue(m);
    Value dummy = null, bits = null;
    long size = st.module().allocSize(t);
    if (!full) {
      dummy = st.module().zeroConstant(PacketEmitter.INACTIVE_LANE_SLOT, 64, 64);
      bits = b.cast(Opcode.BITCAST, m, st.context().intType(w), "mask.bits");
    }
    if (!full && allActiveLaneLoads() && !st.options().lanesMayBeRetyped() && current() != null && inLoop(current())
        && size <= 64) {
      return allActiveFastPath(inst, t, vt, align, lanePtr, bits, dummy);
    }
    String blends = blendsAllowed ? laneBlendsReason(t, vt) : null;
    String shifted = blendsAllowed && full && blends == null ? shiftedLoadsReason(t, vt) : null;
    long[] span = shifted != null ? readSpan(inst, inst.operand(0)) : null;
    if (span != null) {
      long off = windowOffset(inst.operand(0));
      boolean any = false;
      for (int k = 1; k < w; k++) any |= off - 4L * k >= span[0] && off - 4L * k + 16 <= span[1];
      if (any) return shiftedLoads(inst, t, vt, align, lanePtr, span, off, shifted);
    }
    if (blends != null) {
      st.remark(Remark.Kind.MEMORY, current(), inst, "per-lane loads: " + w + " broadcasts from memory and " + (w - 1)
          + " blends, not inserts: " + blends);
    }
    Value acc = b.poison(vt);
    for (int k = 0; k < w; k++) {
      Value p = lanePtr.at(k, lanePtr.root().apply(k));
      int a = align;
      if (!full) {
        Value bit = b.cast(Opcode.TRUNC, k == 0 ? bits : b.binop(Opcode.LSHR, bits, b.constInt(bits.type(), k), ""), st.context().i1(), "");
        p = b.select(bit, p, dummy, "");
        if (size > 64) throw new IllegalStateException("element of " + size + " bytes");
        a = Math.min(align, 64);
      }
      Value ld = b.load(t, p, a, "");
      acc = blends != null ? blendLane(acc, ld, k) : b.insertElement(acc, ld, k, "");
    }
    if (blends != null && !acc.type().equals(vt)) acc = b.cast(Opcode.BITCAST, acc, vt, "");
    if (names && acc.isInstruction()) acc.setName(inst.name());
    return acc;
  }

  /**
   * The knob of {@link #shiftedLoadsReason}: {@code -Dpacketizer.sseLaneLoads=auto|shifted|insert} (auto, the default,
   * and insert: the inserts; shifted: shifted loads and blends on every x86 target with SSE4.1 and without AVX). Read at
   * each use.
   */
  static String sseLaneLoadsKnob() {
    return System.getProperty("packetizer.sseLaneLoads", "auto").strip().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Whether {@link #perLane}'s W = 4 loads of a 4-byte element ({@code float}, {@code i32}) into a 128-bit packet become
   * shifted vector loads and immediate blends ({@link #shiftedLoads}) instead of inserts, and why (for the remark); null
   * when they do not. Only with {@code -Dpacketizer.sseLaneLoads=shifted}: on Intel's cores an {@code insertps}/{@code
   * pinsrd} takes the shuffle port and SSE has no broadcast from memory (the AVX route, {@link #laneBlendsReason}); a
   * 16-byte {@code movups} from lane k's address minus 4k puts the element in lane k with a load alone and {@code blendps}
   * runs on three ports, which llvm-mca's Haswell and Sapphire Rapids models count as faster for stencil W4, but timed on
   * a Sapphire Rapids-class host the packet loop was 8-12 % slower than with the inserts (docs/performance.md, twenty-second
   * round), so the default keeps the inserts. Needs SSE4.1 ({@code blendps}), not AVX, not the size mode.
   */
  private String shiftedLoadsReason(Type t, Type vt) {
    if (!sseLaneLoadsKnob().equals("shifted") || org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) return null;
    if (st.options().optimize() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE) return null;
    if (w != 4 || !(t.isFloat() || t.isInteger(32)) || !vt.isVector() || vt.vectorSize() != 4) return null;
    org.packetizer.core.wrapper.HardwareWidth.Target tg = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    if (org.packetizer.core.wrapper.HardwareWidth.of(tg.cpu(), tg.features()) >= org.packetizer.core.wrapper.HardwareWidth.AVX) return null;
    if (PermuteLookup.isa(tg.cpu(), tg.features()).compareTo(PermuteLookup.Isa.SSE41) < 0) return null;
    return SHIFTED_LOADS_REASON.replace("CPU", tg.cpu().isEmpty() ? "generic" : tg.cpu());
  }

  static final String SHIFTED_LOADS_REASON = "-Dpacketizer.sseLaneLoads=shifted, and the target (CPU) has SSE4.1 and no AVX:"
      + " a 16-byte load from lane k's address minus 4k bytes is a load alone and the blend runs on three ports, where an"
      + " insert takes the shuffle port (measured slower than the inserts on a Sapphire Rapids-class host: not the default)";

  /**
   * The bytes, relative to {@code inst}'s lanes' root ({@link #windowRoot}), that every lane reads whenever {@code inst}
   * runs: the span from the lowest to the end of the highest of the loads off the same root at constant offsets in
   * {@code inst}'s block (with no call in the block but to LLVM's intrinsics, which return); null when there is no such root, the
   * span is 4096 bytes or more, or a load is volatile. Within a span under 4096 bytes every page a 16-byte window
   * inside it touches holds one of those loads' bytes (a window crossing a page end starts in the page of the lowest
   * load and ends in the page of the highest), so the window reads no page the scalar code does not read.
   */
  private long[] readSpan(Value inst, Value ptr) {
    Value root = windowRoot(ptr);
    if (root == null || inst.isVolatile()) return null;
    Block sb = current();
    if (sb == null) return null;
    long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
    boolean self = false;
    for (Value i : st.ssa().instructions(sb)) {
      Opcode op = st.ssa().opcode(i);
      if (op == Opcode.CALL) {
        // (LLVM's intrinsics return, llvm.fmuladd among them, but for the traps; any other call might not)
        String callee = i.calledFunction().map(Function::name).orElse("");
        if (!callee.startsWith("llvm.") || callee.contains("trap")) return null;
        continue;
      }
      if (op != Opcode.LOAD || i.isVolatile()) continue;
      Value p = i.operand(0);
      if (!p.type().equals(st.context().ptrType()) || !root.equals(windowRoot(p))) continue;
      long o = windowOffset(p);
      lo = Math.min(lo, o);
      hi = Math.max(hi, o + st.module().allocSize(i.type()));
      self |= i.equals(inst);
    }
    if (!self || hi - lo >= PAGE_BYTES) return null;
    return new long[] {lo, hi};
  }

  /**
   * {@link #perLane} under a full mask as shifted vector loads and immediate blends (SSE4.1, W = 4, 4-byte elements):
   * lane 0's element a scalar load ({@code movss}), lane k's (k = 1..3) the 16 bytes from its address minus 4k, so that
   * the element lands in lane k, behind {@code llvm.arithmetic.fence} (else LLVM's DAG narrows the vector load back to
   * the element and inserts it), blended into the packet. The 16 bytes hold 4k bytes before the element and 12 - 4k
   * after, which the scalar code may not read: a lane takes the window only where it lies inside {@code span}, the bytes
   * every lane reads off the same root in this block ({@link #readSpan}); the other lanes keep their inserts (at the
   * span's ends: stencil's outer rows). No test at run time; the bytes read besides the element are never used.
   */
  private Value shiftedLoads(Value inst, Type t, Type vt, int align, LaneAddress lanePtr, long[] span, long off,
      String reason) {
    var ctx = st.context();
    Type ft = ctx.floatType();
    Type fv = ft.vectorOf(w);
    int windows = 0;
    Value l0 = b.load(t, lanePtr.at(0, lanePtr.root().apply(0)), align, "");
    Value acc = b.insertElement(b.poison(fv), t.equals(ft) ? l0 : b.cast(Opcode.BITCAST, l0, ft, ""), 0, "");
    for (int k = 1; k < w; k++) {
      Value p = lanePtr.at(k, lanePtr.root().apply(k));
      long start = off - 4L * k;
      if (start >= span[0] && start + 16 <= span[1]) {
        Value q = b.gep(ctx.i8(), p, List.of(b.i64(-4L * k)), false, "");
        Value win = b.load(fv, q, Math.min(align, 4), "");
        Value fenced = b.call(st.module().intrinsic("llvm.arithmetic.fence", fv), List.of(win), "lane.window");
        List<Value> idx = new ArrayList<>();
        for (int j = 0; j < w; j++) idx.add(b.i32(j == k ? w + j : j));
        acc = b.shuffle(acc, fenced, b.constVector(idx), "");
        windows++;
      } else {
        Value ld = b.load(t, p, align, "");
        acc = b.insertElement(acc, t.equals(ft) ? ld : b.cast(Opcode.BITCAST, ld, ft, ""), k, "");
      }
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "per-lane loads: " + windows + " of " + (w - 1)
        + " lanes as shifted 16-byte loads and blends, not inserts (the bytes lie within offsets " + span[0] + ".." + span[1]
        + " of the root, which every lane reads in this block" + (windows < w - 1 ? "; the other lanes' windows would not" : "")
        + "): " + reason);
    if (!fv.equals(vt)) acc = b.cast(Opcode.BITCAST, acc, vt, "");
    if (names && acc.isInstruction()) acc.setName(inst.name());
    return acc;
  }

  /**
   * The knob of {@link #laneBlendsReason}: {@code -Dpacketizer.laneBlends=auto|true|false} (auto, the default: on
   * Intel cores with AVX; true: on every x86 target with AVX, AMD included; false: the inserts of before). Read at each
   * use.
   */
  static String laneBlendsKnob() {
    return System.getProperty("packetizer.laneBlends", "auto").strip().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Whether {@link #perLane}'s W loads of {@code t} into a packet of type {@code vt} become, per lane, a broadcast from
   * memory and an immediate blend ({@link #blendLane}) instead of inserts, and why (for the remark); null when they do
   * not. On Intel's cores every insert of a loaded element ({@code vinsertps}, {@code vinsertf128} from a register) takes
   * the one shuffle port (port 5), which bounds the per-lane path (stencil with random points W8/AVX2: about 54 port-5
   * operations per 8 lanes); {@code vbroadcastss/sd ymm, m} is a load alone there and {@code vblendps/pd} with an
   * immediate runs on three ports. Needs AVX (SSE has no broadcast from memory); 4- and 8-byte float and integer
   * elements (AVX2's byte and word broadcasts take the shuffle port); not on AVX-512 targets where the packet is wider
   * than 256 bits (a zmm blend takes a mask register); not when optimizing for size; not on AMD (two shuffle pipes:
   * the tenth round measured the inserts faster there).
   */
  private String laneBlendsReason(Type t, Type vt) {
    String knob = laneBlendsKnob();
    if (knob.equals("false") || org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) return null;
    // (not when optimizing for size: a broadcast and a blend per lane where an insert was one instruction)
    if (st.options().optimize() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE) return null;
    Type et = t.isVector() ? null : t;
    if (et == null || !(et.isFloat() || et.isDouble() || et.isInteger(32) || et.isInteger(64))) return null;
    if (!vt.isVector() || vt.vectorSize() != w || w < 4) return null;
    org.packetizer.core.wrapper.HardwareWidth.Target tg = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    boolean avx = org.packetizer.core.wrapper.HardwareWidth.of(tg.cpu(), tg.features()) >= org.packetizer.core.wrapper.HardwareWidth.AVX;
    if (!avx) return null;
    boolean avx512 = tg.width() >= org.packetizer.core.wrapper.HardwareWidth.AVX512 || (tg.features() != null && tg.features().contains("+avx512f"));
    if (avx512 && st.module().allocSize(et) * w > 32) return null;
    if (knob.equals("true")) return "-Dpacketizer.laneBlends=true";
    org.packetizer.core.wrapper.Latency.Family fam = org.packetizer.core.wrapper.Latency.family(tg.cpu(), false);
    if (fam != org.packetizer.core.wrapper.Latency.Family.INTEL && fam != org.packetizer.core.wrapper.Latency.Family.SANDY_BRIDGE) return null;
    return LANE_BLENDS_REASON.replace("CPU", tg.cpu().isEmpty() ? "generic" : tg.cpu());
  }

  static final String LANE_BLENDS_REASON = "the target (CPU) is an Intel core, where every insert takes the one shuffle port and a"
      + " broadcast from memory is a load alone (measured on a Sapphire Rapids host, stencil with random points W8/AVX2:"
      + " 0.82x -> 1.14x over scalar; -Dpacketizer.laneBlends=false: inserts)";

  /**
   * Lane {@code k} of a packet built by {@link #perLane} with broadcasts and blends: the loaded element {@code ld} splat
   * over the packet (a broadcast from memory), behind {@code llvm.arithmetic.fence} so that LLVM's DAG does not fold the
   * splat and the blend back into an insert of the element ({@code vinsertps} for lanes 0-3, measured with the bundled
   * llc), then blended into lane {@code k} of {@code acc} (lane 0: the splat itself). Integer elements travel as floats
   * of their size (the fence takes floating-point types); {@link #perLane} casts the packet back.
   */
  private Value blendLane(Value acc, Value ld, int k) {
    Type et = ld.type();
    Type ft = et.isFloat() || et.isDouble() ? et : et.isInteger(32) ? st.context().floatType() : st.context().doubleType();
    Value x = ft.equals(et) ? ld : b.cast(Opcode.BITCAST, ld, ft, "");
    Value splat = b.splat(x, w, "");
    Value fenced = b.call(st.module().intrinsic("llvm.arithmetic.fence", splat.type()), List.of(splat), "lane.bcast");
    if (k == 0) return fenced;
    List<Value> idx = new ArrayList<>();
    for (int j = 0; j < w; j++) idx.add(b.i32(j == k ? w + j : j));
    return b.shuffle(acc, fenced, b.constVector(idx), "");
  }

  /**
   * Whether per-lane loads under a partial mask inside a loop get a second copy without the
   * dummy-slot selects, taken when every lane of the mask is active ({@link #allActiveFastPath}).
   * Off unless {@code -Dpacketizer.allActiveLaneLoads=true}: measured on strhash (docs/performance.md),
   * it is faster with coherent inputs (W8 1.98x -> 2.3x over scalar) and slower with random ones
   * (W8 1.64x -> 1.35x, W4 1.13x -> 0.92x), where the test's outcome changes in every packet at an
   * unpredictable iteration. Read at each use, so that a test can turn it on.
   */
  static boolean allActiveLaneLoads() {
    return "true".equals(System.getProperty("packetizer.allActiveLaneLoads"));
  }

  /**
   * {@link #perLane} under a partial mask inside a loop, as two copies behind one test of the mask's
   * bits: when every lane is active (a divergent loop's first iterations, before its first lane
   * leaves; a branch every lane takes) the W loads read their lanes' addresses directly, one load per
   * lane whose address folds into the instruction; otherwise each inactive lane's load reads the dummy
   * slot (a test, a select and the address computed apart, per lane). Both copies make exactly the
   * accesses the other would make for the active lanes, so the result is the same; the test is one
   * compare of bits the loop already has (its any-lane test).
   */
  private Value allActiveFastPath(Value inst, Type t, Type vt, int align, LaneAddress lanePtr,
      Value bits, Value dummy) {
    List<Value> roots = new ArrayList<>();
    for (int k = 0; k < w; k++) roots.add(lanePtr.root().apply(k));
    Value all = b.icmpEq(bits, b.constInt(bits.type(), -1), "all.lanes");
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, ".all", ".some", ".loaded");
    Block fast = bs[0], some = bs[1], join = bs[2];
    b.condBr(all, fast, some);
    b.atEnd(fast);
    Value accAll = b.poison(vt);
    // (the lanes' roots are extracted once before the branch, each copy applies the offsets itself:
    // with whole addresses computed before the branch the fast copy's loads would go through the same
    // registers as the selects' and the back end's tail merging would make the two copies one again)
    for (int k = 0; k < w; k++) accAll = b.insertElement(accAll, b.load(t, lanePtr.at(k, roots.get(k)), align, ""), k, "");
    b.br(join);
    b.atEnd(some);
    Value accSome = b.poison(vt);
    int a = Math.min(align, 64);
    for (int k = 0; k < w; k++) {
      Value bit = b.cast(Opcode.TRUNC, k == 0 ? bits : b.binop(Opcode.LSHR, bits, b.constInt(bits.type(), k), ""), st.context().i1(), "");
      accSome = b.insertElement(accSome, b.load(t, b.select(bit, lanePtr.at(k, roots.get(k)), dummy, ""), a, ""), k, "");
    }
    b.br(join);
    b.atEnd(join);
    Value phi = b.phi(vt, nameOf(inst));
    phi.addIncoming(accAll, fast);
    phi.addIncoming(accSome, some);
    st.remark(Remark.Kind.MEMORY, current(), inst, "the " + w + " scalar loads have a copy without the inactive lanes'"
        + " selects, taken when every lane of the mask is active (in a loop the mask is often full until the first"
        + " lane leaves)");
    return phi;
  }

  /** {@link ByteWindows#on}. */
  static boolean byteWindows(int w) { return ByteWindows.on(w); }

  /** {@link ByteWindows#BYTES}. */
  static final int WINDOW_BYTES = ByteWindows.BYTES;

  /** Bytes per page, the granule of {@link #byteWindow}'s fault argument (the smallest x86 and AArch64 page). */
  static final long PAGE_BYTES = 4096;

  /**
   * A byte load ({@code i8}) at a varying address that advances by exactly one byte per iteration of
   * its loop, in the loop's header, where nothing in the loop writes memory: the shape of a string
   * or byte-buffer loop ({@code h ^= s[start + k]}, {@code for (p = s; p != e; ++p) ... *p}) with
   * per-lane bases. Instead of W scalar loads in every iteration (per lane a select of the dummy slot
   * for an inactive lane, a load and an insert), each lane reads the 8 bytes from its address once,
   * and the next 7 iterations take their byte from that window by a uniform shift. A uniform count
   * of the bytes used (a variable of the loop, 8 on entry: the first iteration reloads) decides when
   * to reload.
   *
   * <p>Exact: the header runs once per iteration for every lane still in the loop, and a lane in the
   * loop now was in it at the reload, so its address now is the reload's plus the bytes used; nothing
   * in the loop writes memory, so the window still holds what a load would read. No new fault: the
   * 8 bytes are read only when they lie in the page of the lane's address, which the scalar code
   * reads now (every active lane's {@code addr mod 4096 <= 4088}); otherwise the windows are read from
   * inside the lanes' pages and shifted ({@link #byteWindowShifted}, the default) or, with the knob's older
   * forms, this iteration loads the bytes one per lane and the next reloads ({@link #byteWindowPageEnd}).
   * Inactive lanes read the dummy slot, as per-lane loads do.
   * The hazard is the same as {@link #wordGather}'s: up to 7 bytes after the string's last one are read
   * (never used), which memory checkers see (docs/limits.md). Returns null where the shape does not
   * hold.
   */
  private Value byteWindow(Value inst, Type t, Type vt, Value ptr) {
    if (!byteWindows(w) || st.options().scalable() || st.options().lanesMayBeRetyped() || w < 2) return null;
    // (the measurement knobs of the other routes for these loads keep their routes)
    if (wordGathersEverywhere() || allActiveLaneLoads()) return null;
    if (!t.isInteger() || t.intWidth() != 8 || !ptr.type().equals(st.context().ptrType())) return null;
    Block sb = current();
    if (sb == null) return null;
    var loop = st.cfg().loops().loopOf(sb).orElse(null);
    if (loop == null || !loop.header().equals(sb) || enter.get(sb) == null) return null;
    if (uniform(ptr) || !advancesByOne(ptr, loop, false)) return null;
    for (Block lb : loop.blocks()) {
      for (Value i : st.ssa().instructions(lb)) if (mayWrite(i)) return null;
    }
    Value addrs = vec(ptr);
    if (!addrs.type().isVector()) return null;
    Value m = mask();
    boolean full = MaskOps.isAllTrue(m);
    var ctx = st.context();
    Type i64 = ctx.i64();
    Type wideT = i64.vectorOf(w);
    Value dummy = full ? null : st.module().zeroConstant(PacketEmitter.INACTIVE_LANE_SLOT, 64, 64);
    Value bits = full ? null : b.cast(Opcode.BITCAST, m, ctx.intType(w), "mask.bits");
    String n = inst.name().isEmpty() ? "bytes" : inst.name();
    // the loop's variables: bytes of the window used (8 on entry: reload) and the windows
    SlotSsa.Var used = vars().newVar(i64, n + ".used");
    SlotSsa.Var window = vars().newVar(wideT, n + ".window");
    vars().init(used, enter.get(sb), b.i64(WINDOW_BYTES));
    vars().init(window, enter.get(sb), b.poison(wideT));
    Value j = vars().read(used, n + ".used");
    Value win = vars().read(window, n + ".window");
    Block pre = b.currentBlock();
    if (byteWindowPageEnd() == PageEnd.SHIFTED || byteWindowPageEnd() == PageEnd.ALWAYS) return byteWindowShifted(inst, t, vt, addrs, m, full, bits, dummy, n, used, window, j, win, pre);
    Block[] bs = blocksAfter(pre, ".reload", ".window", ".bytes", ".loaded");
    Block reload = bs[0], fast = bs[1], slow = bs[2], join = bs[3];
    Value jPlus = b.add(j, b.i64(1), "");
    b.condBr(b.icmpUlt(j, b.i64(WINDOW_BYTES), n + ".left"), join, reload);
    // reload: the 8 bytes of each active lane when none of them crosses a page
    b.atEnd(reload);
    Value offs = b.and(b.cast(Opcode.PTRTOINT, addrs, wideT, ""), b.splat(b.i64(PAGE_BYTES - 1), w, ""), "");
    Value crosses = b.icmpUlt(b.splat(b.i64(PAGE_BYTES - WINDOW_BYTES), w, ""), offs, "");
    if (!full) crosses = b.and(crosses, m, "");
    b.condBr(masks.any(crosses, n + ".crosses.page"), slow, fast);
    b.atEnd(fast);
    // (lane k's window goes to position order[k]: see windowOrder)
    int[] order = windowOrder();
    java.util.function.IntFunction<Value> root = laneRoots(addrs);
    Value fresh = b.poison(wideT);
    for (int k = 0; k < w; k++) {
      Value p = laneAddress(root.apply(k), k, bits, dummy);
      fresh = b.insertElement(fresh, b.load(i64, p, 1, ""), order == null ? k : order[k], "");
    }
    b.br(join);
    // a lane near the end of its page: this iteration's bytes one per lane (as a window of one byte),
    // and a reload in the next iteration
    b.atEnd(slow);
    Value single;
    if (byteWindowSlowLoop()) {
      single = byteWindowSlowLanes(slow, addrs, t, vt, order, bits, n);
    } else {
      single = b.poison(vt);
      for (int k = 0; k < w; k++) {
        Value p = laneAddress(root.apply(k), k, bits, dummy);
        single = b.insertElement(single, b.load(t, p, 1, ""), order == null ? k : order[k], "");
      }
    }
    Value singleWide = b.cast(Opcode.ZEXT, single, wideT, "");
    Block slowEnd = b.currentBlock();
    b.br(join);
    b.atEnd(join);
    Value winX = b.phi(wideT, n + ".win");
    winX.addIncoming(win, pre);
    winX.addIncoming(fresh, fast);
    winX.addIncoming(singleWide, slowEnd);
    Value next = b.phi(i64, n + ".next");
    next.addIncoming(jPlus, pre);
    next.addIncoming(b.i64(1), fast);
    next.addIncoming(b.i64(WINDOW_BYTES), slowEnd);
    return windowByte(inst, vt, winX, next, order, n, used, window,
        "bytes one per lane where a lane's window would cross into the next page");
  }

  /**
   * The byte windows' common end: this iteration's byte is each window's lowest (in lane order where {@code order}
   * placed the windows otherwise: {@link #windowOrder}); the next iteration's window is this one shifted by a byte (a
   * constant shift carried by the loop, not a shift by 8 x the bytes used) and {@code next} bytes used. The remark ends
   * with {@code pageEnd}, how a lane near its page's end is served.
   */
  private Value windowByte(Value inst, Type vt, Value winX, Value next, int[] order, String n, SlotSsa.Var used,
      SlotSsa.Var window, String pageEnd) {
    Value res;
    if (order == null) {
      res = b.cast(Opcode.TRUNC, winX, vt, nameOf(inst));
    } else {
      // (the low dword of window j is dword 2j of the windows as 2W dwords, little-endian)
      Value dwords = b.cast(Opcode.BITCAST, winX, st.context().i32().vectorOf(2 * w), "");
      List<Value> idx = new ArrayList<>();
      for (int k = 0; k < w; k++) idx.add(b.i32(2L * order[k]));
      res = b.cast(Opcode.TRUNC, b.shuffle(dwords, b.poison(dwords.type()), b.constVector(idx), ""), vt, nameOf(inst));
    }
    vars().write(used, next);
    vars().write(window, b.binop(Opcode.LSHR, winX, b.splat(b.i64(8), w, ""), n + ".window.next"));
    st.stats().laneLoads++;
    st.remark(Remark.Kind.MEMORY, current(), inst, "byte load whose address advances by one per iteration of a loop that"
        + " writes no memory: each lane reads " + WINDOW_BYTES + " bytes once every " + WINDOW_BYTES + " iterations (one"
        + " load per lane where there were " + WINDOW_BYTES + "), and each iteration takes its byte by a shift; " + pageEnd
        + " (knob -Dpacketizer.byteWindows=false)");
    return res;
  }

  /** How {@link #byteWindow} treats a lane whose 8-byte window would cross into the next page: {@link #byteWindowPageEnd}. */
  enum PageEnd {
    /**
     * Where an active lane is near its page's end, the reload loads every lane's window from its address clamped
     * to its page and shifts it down to the lane's byte; other reloads as before (the default since the nineteenth round).
     */
    SHIFTED,
    /** Every reload clamps and shifts (no test of the page offsets, one reload block). */
    ALWAYS,
    /** That iteration's bytes one per lane in a loop over the active lanes, a reload in the next iteration (fourteenth round). */
    LOOP,
    /** That iteration's bytes as W unrolled per-lane loads, a reload in the next iteration (before the fourteenth round). */
    UNROLLED
  }

  /**
   * How {@link #byteWindow} treats a lane whose window would cross into the next page (its address within
   * 8 bytes of a page's end): {@code -Dpacketizer.byteWindows.slowLanes=shifted} (the default): a reload with
   * such an active lane loads each lane's 8 bytes from its address clamped to its page and shifts them
   * down ({@link #byteWindowShifted}), and the next reload comes when that lane's window runs out;
   * {@code always}: every reload does so (no page test; measured slower on the common path); {@code loop}
   * or {@code unrolled} (the forms before): that iteration's bytes one per lane (a loop over the active
   * lanes, or W unrolled loads, {@link #byteWindowSlowLanes}) and a reload in the next iteration, so that
   * a lane walking over a page's end takes that path in up to 7 consecutive iterations. That made strhash
   * bimodal in the bench (issue 16, nineteenth round, docs/performance.md): where the bench's 320-byte
   * table crosses a page, W16 ran at 33 ns per element instead of 12. Read at each use, so that a test can
   * set it.
   */
  static PageEnd byteWindowPageEnd() {
    String v = System.getProperty("packetizer.byteWindows.slowLanes", "shifted");
    return switch (v) {
      case "shifted" -> PageEnd.SHIFTED;
      case "always" -> PageEnd.ALWAYS;
      case "loop" -> PageEnd.LOOP;
      case "unrolled" -> PageEnd.UNROLLED;
      default -> throw new IllegalArgumentException("-Dpacketizer.byteWindows.slowLanes=" + v + ": expected shifted, always, loop or unrolled");
    };
  }

  /**
   * Whether {@link #byteWindowShifted}'s reload from inside the pages is one masked gather of the lanes' clamped
   * addresses ({@code -Dpacketizer.byteWindows.inPage=gather}) or W extractions of those addresses with W loads
   * ({@code lanes}); {@code auto} (the default): the gather where gathers stay gathers ({@link #gatherLowering}
   * {@code HARDWARE_GATHER}: x86 targets with fast gather instructions, and other architectures, where LLVM
   * lowers it), the W loads where a gather would be expanded into per-lane branches (AVX2 without fast gathers,
   * SSE). Measured (docs/performance.md, nineteenth round): at W16/AVX-512 the two equally fast (15.5 against 15.1
   * ns per element with strhash's table across a page) and the gather 85 machine instructions shorter (233
   * against 318); at W8/haswell the expanded gather 28.8 against 23.6 ns. Read at each use.
   */
  boolean byteWindowInPageGather() {
    String v = System.getProperty("packetizer.byteWindows.inPage", "auto");
    return switch (v) {
      case "gather" -> true;
      case "lanes" -> false;
      case "auto" -> gatherLowering() == GatherLowering.HARDWARE_GATHER;
      default -> throw new IllegalArgumentException("-Dpacketizer.byteWindows.inPage=" + v + ": expected auto, gather or lanes");
    };
  }

  /** Whether {@link #byteWindow}'s rare path is the loop over the lanes ({@link #byteWindowPageEnd} {@code loop}). */
  static boolean byteWindowSlowLoop() { return byteWindowPageEnd() == PageEnd.LOOP; }

  /**
   * {@link #byteWindow}'s reload for {@link PageEnd#SHIFTED} and {@link PageEnd#ALWAYS}, from {@code pre} on:
   * where the bytes used reach 8, a reload; with {@code SHIFTED}, where no active lane's address lies within
   * 8 bytes of its page's end, the plain one (as in the other forms). Otherwise every lane reloads its window
   * from its address {@code a} moved back by {@code d = max(0, (a mod 4096) - 4088)} bytes, so that the 8
   * bytes read end at or before the last byte of {@code a}'s page, and the window is shifted right by
   * {@code 8 d} bits, which puts the byte at {@code a} lowest (little-endian, as the windows' shifts assume)
   * with {@code 8 - d} valid bytes above it. The scalar code reads the byte at {@code a} in this iteration,
   * so {@code a}'s page is readable, and nothing outside it is read (the bytes between the clamped address
   * and {@code a} lie before {@code a} in the same page). The bytes used after such a reload are
   * {@code 1 + max d} over the active lanes instead of 1, so the next reload comes when the window of the
   * lane nearest its page's end runs out, at the first byte of its next page, which that lane reads only if
   * its string goes on (the reload limit stays the constant 8: a loop-carried limit, the active lanes'
   * minimum, measured slower when the byte windows came). Inactive lanes read the dummy slot unshifted and do
   * not count for the maximum. No loop over lanes and no byte loads: a lane crossing a page costs one such
   * reload instead of up to 7 iterations on a rare path.
   */
  private Value byteWindowShifted(Value inst, Type t, Type vt, Value addrs, Value m, boolean full, Value bits, Value dummy,
      String n, SlotSsa.Var used, SlotSsa.Var window, Value j, Value win, Block pre) {
    var ctx = st.context();
    Type i64 = ctx.i64();
    Type i8 = ctx.i8();
    Type wideT = i64.vectorOf(w);
    boolean always = byteWindowPageEnd() == PageEnd.ALWAYS;
    Block[] bs = always ? blocksAfter(pre, ".reload", ".loaded") : blocksAfter(pre, ".reload", ".window", ".in.page", ".loaded");
    Block reload = bs[0], join = bs[bs.length - 1];
    Value jPlus = b.add(j, b.i64(1), "");
    b.condBr(b.icmpUlt(j, b.i64(WINDOW_BYTES), n + ".left"), join, reload);
    b.atEnd(reload);
    Value offs = b.and(b.cast(Opcode.PTRTOINT, addrs, wideT, ""), b.splat(b.i64(PAGE_BYTES - 1), w, ""), "");
    int[] order = windowOrder();
    Value plain = null;
    Block plainEnd = null;
    if (!always) {
      // (the common reload as in the other forms: no lane near its page's end)
      Value crosses = b.icmpUlt(b.splat(b.i64(PAGE_BYTES - WINDOW_BYTES), w, ""), offs, "");
      if (!full) crosses = b.and(crosses, m, "");
      b.condBr(masks.any(crosses, n + ".crosses.page"), bs[2], bs[1]);
      b.atEnd(bs[1]);
      java.util.function.IntFunction<Value> root = laneRoots(addrs);
      plain = b.poison(wideT);
      for (int k = 0; k < w; k++) {
        Value p = laneAddress(root.apply(k), k, bits, dummy);
        plain = b.insertElement(plain, b.load(i64, p, 1, ""), order == null ? k : order[k], "");
      }
      plainEnd = b.currentBlock();
      b.br(join);
      b.atEnd(bs[2]);
    }
    Value back = b.call(st.module().intrinsic("llvm.usub.sat", wideT), List.of(offs, b.splat(b.i64(PAGE_BYTES - WINDOW_BYTES), w, "")), n + ".page.back");
    if (!full) back = b.select(m, back, b.constNull(wideT), "");
    Value clamped = b.gep(i8, addrs, List.of(b.sub(b.constNull(wideT), back, "")), false, n + ".in.page");
    Value fresh;
    if (byteWindowInPageGather()) {
      // one masked gather of the active lanes' 8 bytes (inactive lanes 0), shifted in lane order, then put in
      // the windows' order
      Function g = st.module().intrinsic("llvm.masked.gather", wideT, clamped.type());
      Value got = b.call(g, List.of(clamped, b.i32(1), m, b.constNull(wideT)), n + ".in.page.bytes");
      fresh = b.binop(Opcode.LSHR, got, b.binop(Opcode.SHL, back, b.splat(b.i64(3), w, ""), ""), n + ".shifted");
      if (order != null) {
        // (lane k's window goes to position order[k])
        int[] inv = new int[w];
        for (int k = 0; k < w; k++) inv[order[k]] = k;
        List<Value> idx = new ArrayList<>();
        for (int q = 0; q < w; q++) idx.add(b.i32(inv[q]));
        fresh = b.shuffle(fresh, b.poison(wideT), b.constVector(idx), n + ".shifted.order");
      }
    } else {
      fresh = b.poison(wideT);
      for (int k = 0; k < w; k++) {
        Value p = laneAddress(b.extractElement(clamped, k, ""), k, bits, dummy);
        fresh = b.insertElement(fresh, b.load(i64, p, 1, ""), order == null ? k : order[k], "");
      }
      Value shift = back;
      if (order != null) {
        // (lane k's window sits at position order[k]: its shift goes there too)
        int[] inv = new int[w];
        for (int k = 0; k < w; k++) inv[order[k]] = k;
        List<Value> idx = new ArrayList<>();
        for (int q = 0; q < w; q++) idx.add(b.i32(inv[q]));
        shift = b.shuffle(back, b.poison(wideT), b.constVector(idx), "");
      }
      fresh = b.binop(Opcode.LSHR, fresh, b.binop(Opcode.SHL, shift, b.splat(b.i64(3), w, ""), ""), n + ".shifted");
    }
    Value most = b.call(st.module().intrinsic("llvm.vector.reduce.umax", i8.vectorOf(w)), List.of(b.cast(Opcode.TRUNC, back, i8.vectorOf(w), "")), "");
    Value start = b.add(b.cast(Opcode.ZEXT, most, i64, ""), b.i64(1), n + ".used.start");
    Block shiftedEnd = b.currentBlock();
    b.br(join);
    b.atEnd(join);
    Value winX = b.phi(wideT, n + ".win");
    winX.addIncoming(win, pre);
    if (plain != null) winX.addIncoming(plain, plainEnd);
    winX.addIncoming(fresh, shiftedEnd);
    Value next = b.phi(i64, n + ".next");
    next.addIncoming(jPlus, pre);
    if (plain != null) next.addIncoming(b.i64(1), plainEnd);
    next.addIncoming(start, shiftedEnd);
    return windowByte(inst, vt, winX, next, order, n, used, window,
        "a lane near its page's end reads the page's last " + WINDOW_BYTES + " bytes, shifted");
  }

  /**
   * {@link #byteWindow}'s rare path as a loop over the active lanes (the set bits of {@code bits}, every
   * lane when null), starting at the end of {@code slow}: lane k ({@code cttz} of the lanes left) loads
   * its byte, which goes into position {@code order[k]} (k in lane order) of a {@code <W x i8>} by an
   * {@code insertelement} at a variable index; an inactive lane's byte is 0, as the dummy slot the
   * unrolled loads read holds. The reload reaches here only with an active lane, so the loop runs at
   * least once. The lane order is computed (bits 1 and 2 of k swapped), not looked up: a constant
   * vector or the dummy slot's address would be hoisted out of the hot loop around and hold a
   * register there. Returns the vector; the builder is left at the end of the loop's exit block.
   */
  private Value byteWindowSlowLanes(Block slow, Value addrs, Type t, Type vt, int[] order, Value bits, String n) {
    var ctx = st.context();
    Type i32 = ctx.i32();
    Type iw = ctx.intType(w);
    Value bits0 = bits == null ? b.constInt(iw, -1) : bits;
    Block[] ls = blocksAfter(slow, ".cold.lanes", ".lanes.done");
    Block head = ls[0], done = ls[1];
    b.br(head);
    b.atEnd(head);
    Value left = b.phi(iw, n + ".lanes.left");
    Value acc = b.phi(vt, n + ".lanes.acc");
    Value k = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(left, b.i1(true)), "");
    Value k32 = w < 32 ? b.cast(Opcode.ZEXT, k, i32, "") : w == 32 ? k : b.cast(Opcode.TRUNC, k, i32, "");
    Value p = b.extractElement(addrs, k32, "");
    Value pos = k32;
    if (order != null) {
      // windowOrder's positions: k with its bits 1 and 2 swapped
      for (int j = 0; j < w; j++) {
        if (order[j] != ((j & ~6) | ((j & 2) << 1) | ((j >> 1) & 2))) throw new IllegalStateException("window order " + java.util.Arrays.toString(order));
      }
      Value keep = b.and(k32, b.i32(~6L), "");
      Value up = b.binop(Opcode.SHL, b.and(k32, b.i32(2), ""), b.i32(1), "");
      Value down = b.and(b.binop(Opcode.LSHR, k32, b.i32(1), ""), b.i32(2), "");
      pos = b.binop(Opcode.OR, keep, b.binop(Opcode.OR, up, down, ""), "");
    }
    Value accNext = b.insertElement(acc, b.load(t, p, 1, ""), pos, "");
    Value leftNext = b.and(left, b.sub(left, b.constInt(iw, 1), ""), "");
    Value back = b.condBr(b.icmpNe(leftNext, b.constInt(iw, 0), ""), head, done);
    // (LoopAlign's mark on the back edge: the loop around, the hot one, keeps its alignment)
    org.packetizer.core.ir.LoopAlign.markColdLaneLoop(back);
    left.addIncoming(bits0, slow);
    left.addIncoming(leftNext, head);
    acc.addIncoming(b.constNull(vt), slow);
    acc.addIncoming(accNext, head);
    b.atEnd(done);
    return accNext;
  }

  /**
   * The lane order of {@link #byteWindow}'s windows on targets with 32-byte vector registers (AVX,
   * AVX2): position {@code order[k]} holds lane k's window, so that the {@code <W x i64>} windows
   * narrowed to {@code <W x i32>} and put back into lane order are one in-lane {@code shufps} per
   * 8 lanes (it takes the low dwords of two registers in the order 0 1 4 5 2 3 6 7 of their
   * quadwords) instead of two cross-lane permutes and an insert per iteration. Null (lane order)
   * elsewhere: with 16-byte registers {@code shufps} keeps the order, with 64-byte ones a two-source
   * permute does any order. Knob {@code -Dpacketizer.byteWindows.laneOrder=false} (lane order
   * everywhere).
   */
  private int[] windowOrder() {
    if (w % 8 != 0 || "false".equals(System.getProperty("packetizer.byteWindows.laneOrder"))) return null;
    org.packetizer.core.wrapper.HardwareWidth.Target target = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    if (4 * target.width() != 32) return null;
    int[] order = new int[w];
    int[] group = {0, 1, 4, 5, 2, 3, 6, 7};
    for (int k = 0; k < w; k++) order[k] = (k & ~7) + group[k & 7];
    return order;
  }

  /**
   * Lane k's address of the vector of pointers {@code addrs}: where {@code addrs} is a GEP of a vector
   * of pointers by scalar indices (a per-lane base advanced by a uniform count), the lane's base
   * advanced by the same indices: the lanes' bases are loop-invariant extractions, and the addresses
   * are not extracted from a new vector in each reload.
   */
  private java.util.function.IntFunction<Value> laneRoots(Value addrs) {
    if (addrs.isInstruction() && addrs.opcode() == Opcode.GEP && addrs.operand(0).type().isVector()) {
      List<Value> ix = new ArrayList<>();
      for (int i = 1; i < addrs.numOperands(); i++) {
        if (addrs.operand(i).type().isVector()) return k -> b.extractElement(addrs, k, "");
        ix.add(addrs.operand(i));
      }
      Value base = addrs.operand(0);
      Type et = addrs.gepSourceElementType();
      return k -> b.gep(et, b.extractElement(base, k, ""), ix, false, "");
    }
    return k -> b.extractElement(addrs, k, "");
  }

  /** Lane k's address {@code p}, or the dummy slot when its bit of {@code bits} is clear (bits null: all active). */
  private Value laneAddress(Value p, int k, Value bits, Value dummy) {
    if (bits == null) return p;
    Value bit = b.cast(Opcode.TRUNC, k == 0 ? bits : b.binop(Opcode.LSHR, bits, b.constInt(bits.type(), k), ""), st.context().i1(), "");
    return b.select(bit, p, dummy, "");
  }

  /** Whether {@code i} (of the scalar function) may write memory: stores, atomics and calls but the intrinsics that only read or compute. */
  private boolean mayWrite(Value i) {
    Opcode op = st.ssa().opcode(i);
    return switch (op) {
      case STORE, ATOMICRMW, ATOMICCMPXCHG, FENCE, INVOKE, CALLBR -> true;
      case CALL -> {
        String name = i.calledFunction().map(Function::name).orElse("");
        yield !(name.startsWith("llvm.") && READ_ONLY_INTRINSICS.stream().anyMatch(name::startsWith))
            && !(name.startsWith("llvm.") && MathMappings.isDroppable(name));
      }
      default -> false;
    };
  }

  /** Intrinsics (name prefixes) that write no memory, for {@link #mayWrite}. */
  private static final List<String> READ_ONLY_INTRINSICS = org.packetizer.core.pipeline.PureCalls.READ_ONLY_INTRINSICS;

  /**
   * Whether pointer {@code p} (of the scalar function) is one byte further on in each iteration of
   * {@code loop}: a header phi whose in-loop incoming values are {@code gep i8 phi, 1}, or a byte GEP of
   * such a pointer by a loop-invariant offset, or a byte GEP of a loop-invariant base by an index that
   * {@link #indexAdvancesByOne} does.
   */
  private boolean advancesByOne(Value p, org.packetizer.analysis.cfg.LoopForest.Loop<Block> loop, boolean viaPhi) {
    if (!p.isInstruction()) return false;
    Block pb = st.ssa().blockOf(p).orElse(null);
    if (pb == null || !loop.contains(pb)) return false;
    Opcode op = st.ssa().opcode(p);
    if (op == Opcode.PHI) {
      if (viaPhi || !pb.equals(loop.header())) return false;
      boolean stepped = false;
      for (int i = 0; i < p.incomingCount(); i++) {
        if (!loop.contains(p.incomingBlock(i))) continue;
        Value v = p.incomingValue(i);
        if (!v.isInstruction() || st.ssa().opcode(v) != Opcode.GEP || v.numOperands() != 2 || !v.operand(0).equals(p)
            || st.module().allocSize(v.gepSourceElementType()) != 1 || !v.operand(1).isConstantInt() || v.operand(1).constIntSExt() != 1) return false;
        stepped = true;
      }
      return stepped;
    }
    if (op != Opcode.GEP || p.numOperands() != 2 || st.module().allocSize(p.gepSourceElementType()) != 1) return false;
    Value base = p.operand(0);
    Value ix = p.operand(1);
    if (ix.type().isVector() || base.type().isVector()) return false;
    if (invariantIn(ix, loop)) return advancesByOne(base, loop, viaPhi);
    return invariantIn(base, loop) && indexAdvancesByOne(ix, loop, ix.type().intWidth() < 64);
  }

  /**
   * Whether integer {@code v} is one more in each iteration of {@code loop}: a header phi stepped by
   * {@code add phi, 1} on every back edge, plus loop-invariant values, through sign extensions (and
   * zero extensions marked nneg). Below 64 bits ({@code signed}: it is sign-extended to an address)
   * every addition must be {@code nsw}, so that the extension of the next value is the next value of
   * the extension.
   */
  private boolean indexAdvancesByOne(Value v, org.packetizer.analysis.cfg.LoopForest.Loop<Block> loop, boolean signed) {
    if (!v.isInstruction()) return false;
    Block vb = st.ssa().blockOf(v).orElse(null);
    if (vb == null || !loop.contains(vb)) return false;
    Opcode op = st.ssa().opcode(v);
    switch (op) {
      case PHI -> {
        if (!vb.equals(loop.header())) return false;
        boolean stepped = false;
        for (int i = 0; i < v.incomingCount(); i++) {
          if (!loop.contains(v.incomingBlock(i))) continue;
          Value s = v.incomingValue(i);
          if (!s.isInstruction() || st.ssa().opcode(s) != Opcode.ADD || (signed && !s.nsw())) return false;
          Value other = s.operand(0).equals(v) ? s.operand(1) : s.operand(1).equals(v) ? s.operand(0) : null;
          if (other == null || !other.isConstantInt() || other.constIntSExt() != 1) return false;
          stepped = true;
        }
        return stepped;
      }
      case ADD -> {
        if (signed && !v.nsw()) return false;
        if (invariantIn(v.operand(1), loop)) return indexAdvancesByOne(v.operand(0), loop, signed);
        if (invariantIn(v.operand(0), loop)) return indexAdvancesByOne(v.operand(1), loop, signed);
        return false;
      }
      case SEXT -> {
        return indexAdvancesByOne(v.operand(0), loop, true);
      }
      case ZEXT -> {
        return v.nneg() && indexAdvancesByOne(v.operand(0), loop, true);
      }
      default -> {
        return false;
      }
    }
  }

  /** Whether {@code v} (of the scalar function) has the same value in every iteration of {@code loop}: not defined in it. */
  private boolean invariantIn(Value v, org.packetizer.analysis.cfg.LoopForest.Loop<Block> loop) {
    if (!v.isInstruction()) return !v.isBasicBlockValue();
    Block vb = st.ssa().blockOf(v).orElse(null);
    return vb != null && !loop.contains(vb);
  }

  /**
   * Lane k's address for {@link #perLane}: its root (an extraction from a packet, emitted once) and the
   * uniform offsets applied to it ({@code at}).
   */
  private record LaneAddress(java.util.function.IntFunction<Value> root,
      java.util.function.BiFunction<Integer, Value, Value> offsets) {
    Value at(int k, Value r) { return offsets.apply(k, r); }
  }


  /**
   * Whether a 1- or 2-byte load from varying addresses becomes one gather of the aligned 4-byte words
   * that contain the lanes' elements, a shift and a truncation ({@link #wordGather}), where the target
   * can gather 32-bit elements (x86 with AVX2). On by default; {@code -Dpacketizer.wordGathers=false}
   * turns it off (the per-lane loads of before: what a tool that checks every byte read, such as ASan
   * or valgrind, expects; docs/limits.md). Read at each use, so that a test can turn it off.
   */
  static boolean wordGathers() {
    return !"false".equals(System.getProperty("packetizer.wordGathers"));
  }

  /**
   * Whether {@link #wordGather} also takes loads from 64-bit addresses (a vector of pointers: two
   * gather instructions of four words per 8 lanes), not only table lookups with 32-bit offsets (one
   * per 8 lanes). Off unless {@code -Dpacketizer.wordGathers=all}: measured on strhash (znver5 host),
   * W8/AVX2 1.59x -> 0.88x and W16/AVX-512 1.36x -> 1.17x over scalar with random inputs, where the
   * table lookups of volume gained (docs/performance.md).
   */
  static boolean wordGathersEverywhere() {
    return "all".equals(System.getProperty("packetizer.wordGathers"));
  }

  /** How {@link #wordGather} gathers the words on this target, or null where it does not. */
  private enum WordRoute { X86_AVX2, MASKED_GATHER }

  private boolean wordRouteKnown;
  private WordRoute wordRouteCached;
  private String wordRouteReason;

  /**
   * The route of {@link #wordGather}, decided from the target the packet function is compiled for (the
   * options' CPU and features, which the CLI sets on it, else its own {@code target-cpu}/{@code
   * target-features}, which must allow AVX2 as well; with neither, the detected target, and then only
   * the target-independent gather): on targets whose gathers LLVM lowers to gather instructions
   * ({@link org.packetizer.core.wrapper.HardwareWidth#fastGathers}: AVX-512, Skylake-class AVX2)
   * {@code llvm.masked.gather} of 32-bit words; on the other AVX2 targets (Haswell, Broadwell, Zen 1-3,
   * x86-64-v3), where LLVM expands {@code llvm.masked.gather} into a branch or an extract per lane, the
   * AVX2 gather intrinsics ({@code llvm.x86.avx2.gather.q.d.256} from 64-bit addresses,
   * {@code .d.d(.256)} from a table base and 32-bit offsets). Measured on strhash and volume
   * (docs/performance.md). Elsewhere (SSE, other architectures, scalable packets) null.
   */
  private WordRoute wordRoute() {
    if (wordRouteKnown) return wordRouteCached;
    wordRouteKnown = true;
    if (!wordGathers() || st.options().scalable() || st.options().lanesMayBeRetyped() || w % 4 != 0 || w > 64
        || org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) {
      return null;
    }
    String aCpu = packet.stringAttribute("target-cpu").orElse(null), aFeatures = packet.stringAttribute("target-features").orElse(null);
    String oCpu = st.options().targetCpu().orElse(null), oFeatures = st.options().targetFeatures().orElse(null);
    boolean attributes = aCpu != null || aFeatures != null;
    if (!attributes && oCpu == null && oFeatures == null) {
      // (compiled for whatever the JIT or llc is told: only the target-independent gather, where the
      // detected target has fast gathers; an x86 intrinsic on a target without AVX2 would not compile)
      gatherLowering();
      if (!hardwareGatherTarget) return null;
      wordRouteCached = WordRoute.MASKED_GATHER;
      wordRouteReason = "the detected target has fast gathers (llvm.masked.gather of 32-bit words)";
      return wordRouteCached;
    }
    // the target it is compiled for: the options' (the CLI sets them on the packet function), else its own
    // attributes; and its own attributes must allow AVX2 too (a library user's JIT compiles by them)
    String cpu = oCpu != null ? oCpu : aCpu, features = oFeatures != null ? oFeatures : aFeatures;
    if (attributes && !avx2(aCpu, aFeatures)) return null;
    if (!avx2(cpu, features)) return null;
    String name = cpu == null || cpu.isEmpty() ? "+avx2" : cpu;
    if (org.packetizer.core.wrapper.HardwareWidth.fastGathers(cpu, features)) {
      wordRouteCached = WordRoute.MASKED_GATHER;
      wordRouteReason = "the target (" + name + ") has fast gathers: llvm.masked.gather of 32-bit words (measured: volume"
          + " W16/AVX-512 2.02x -> 2.41x over scalar, random inputs)";
    } else {
      wordRouteCached = WordRoute.X86_AVX2;
      wordRouteReason = "the target (" + name + ") has AVX2 gathers, and LLVM would expand llvm.masked.gather into one branch"
          + " per lane there: the AVX2 gather intrinsic (measured: volume W8/AVX2 1.86x -> 1.97x over scalar, random inputs)";
    }
    return wordRouteCached;
  }

  /** CPUs with AVX2 (LLVM's names). */
  private static final Set<String> AVX2_CPUS = Set.of("haswell", "core-avx2", "broadwell", "skylake", "skylake-avx512", "skx",
      "cascadelake", "cooperlake", "cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake", "sapphirerapids",
      "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "alderlake", "raptorlake", "meteorlake", "arrowlake",
      "arrowlake-s", "lunarlake", "gracemont", "pantherlake", "sierraforest", "grandridge", "clearwaterforest", "bdver4", "znver1",
      "znver2", "znver3", "znver4", "znver5", "x86-64-v3", "x86-64-v4", "knl", "knm");

  /** Whether code for this CPU and feature string has AVX2 (an explicit {@code -avx2} or {@code -avx} says no). */
  static boolean avx2(String cpu, String features) {
    boolean on = cpu != null && AVX2_CPUS.contains(cpu.strip().toLowerCase(java.util.Locale.ROOT));
    if (features != null) {
      for (String f : features.split(",")) {
        String s = f.strip();
        if (s.equals("-avx2") || s.equals("-avx")) return false;
        if (s.equals("+avx2") || s.equals("+avx512f")) on = true;
      }
    }
    return on;
  }

  /** Whether {@code t} is an element {@link #wordGather} loads: i8, i16, half or bfloat (i16 aligned to 2). */
  private boolean wordElement(Type t, int align) {
    long size = st.module().allocSize(t);
    boolean kind = t.isInteger(8) || t.isInteger(16) || t.isHalf() || t.kind() == Type.Kind.BFLOAT;
    return kind && (size == 1 || size == 2 && align >= 2) && st.module().storeSize(t) == size;
  }

  /**
   * A 1- or 2-byte load {@code inst} whose lane addresses are {@code ptrs} ({@code <W x ptr>}, address
   * space 0) as one gather of the aligned 4-byte words containing the lanes' elements: word = address
   * rounded down to a multiple of 4 ({@code llvm.ptrmask}, which keeps the pointer's provenance),
   * element = word shifted right by 8 * (address mod 4) and truncated (x86 is little-endian). An
   * aligned 4-byte word never crosses a page, so it is readable exactly when the element is: the load
   * faults where the scalar code would, and nowhere else. Inactive lanes ({@code active}, null when
   * every lane is) are off in the gather's mask: no dummy slot, no select per lane. The other bytes of
   * a word are read but not used (the hazard docs/limits.md names: ASan and valgrind may report them;
   * {@link #wordGathers} turns this off). Null where the target has no such gather ({@link #wordRoute}).
   */
  private Value wordGather(Value inst, Type t, Type vt, int align, Value ptrs, Value active, String what) {
    WordRoute route = wordRoute();
    if (route == null || !wordElement(t, align) || active != null && !active.type().elementType().isInteger(1)) return null;
    Type i32v = st.context().i32().vectorOf(w), i64v = st.context().i64().vectorOf(w);
    Value pf = b.freeze(ptrs, "");
    Value addr = b.cast(Opcode.PTRTOINT, pf, i64v, "");
    Value low = b.cast(Opcode.TRUNC, addr, i32v, "");
    Value shift = b.binop(Opcode.SHL, b.and(low, b.splat(b.i32(3), w, ""), ""), b.splat(b.i32(3), w, ""), "word.shift");
    Value words;
    if (route == WordRoute.MASKED_GATHER) {
      Value wp = b.call(st.module().intrinsic("llvm.ptrmask", pf.type(), i64v), List.of(pf, b.splat(b.i64(-4), w, "")), "word.ptrs");
      Value m = active == null ? b.allOnes(st.context().i1().vectorOf(w)) : active;
      words = b.call(st.module().intrinsic("llvm.masked.gather", i32v, wp.type()), List.of(wp, b.i32(4), m, b.constNull(i32v)), "words");
    } else {
      Value wa = b.and(addr, b.splat(b.i64(-4), w, ""), "word.addrs");
      Value m32 = active == null ? b.allOnes(i32v) : b.cast(Opcode.SEXT, active, i32v, "");
      Type i32x4 = st.context().i32().vectorOf(4);
      Function g = st.module().intrinsic("llvm.x86.avx2.gather.q.d.256");
      List<Value> parts = new ArrayList<>();
      for (int c = 0; c < w; c += 4) {
        Value idx = VectorParts.slice(b, wa, c, 4), mk = VectorParts.slice(b, m32, c, 4);
        parts.add(b.call(g, List.of(b.constNull(i32x4), b.constNull(st.context().ptrType()), idx, mk, b.constInt(st.context().i8(), 1)), ""));
      }
      words = VectorParts.concat(b, parts);
    }
    return wordResult(inst, t, vt, words, shift, route, what);
  }

  /**
   * {@link #wordGather} for a table lookup: a uniform {@code base} (address space 0) plus {@code offs}
   * ({@code <W x i32>}, elements of {@code es} bytes), gathered with 32-bit offsets from the base
   * rounded down to a multiple of 4 when every byte offset is sure to fit in 31 bits ({@code bound}:
   * the largest offset, -1 when unknown; 1-byte elements from a base aligned to 4 always fit), else
   * through 64-bit addresses.
   */
  private Value wordGatherTable(Value inst, Type t, Type vt, int align, Type elem, Value base, Value offs, long bound, boolean inBounds,
      Value active, String what) {
    WordRoute route = wordRoute();
    if (route == null || !wordElement(t, align) || active != null && !active.type().elementType().isInteger(1)) return null;
    long es = st.module().allocSize(elem);
    boolean aligned = base.isGlobalVariable() && base.alignment() >= 4;
    boolean fits = es == 1 && aligned || bound >= 0 && es > 0 && bound <= (Integer.MAX_VALUE - 3L) / es;
    if (!fits) {
      if (!wordGathersEverywhere()) return null;
      Value ptrs = b.gep(elem, base, List.of(offs), inBounds, "");
      return wordGather(inst, t, vt, align, ptrs, active, what);
    }
    Type i32v = st.context().i32().vectorOf(w);
    Value bo = es == 1 ? b.freeze(offs, "") : b.mul(b.freeze(offs, ""), b.splat(b.i32(es), w, ""), "");
    Value wbase = base;
    if (!aligned) {
      Value delta = b.and(b.cast(Opcode.TRUNC, b.cast(Opcode.PTRTOINT, base, st.context().i64(), ""), st.context().i32(), ""), b.i32(3), "");
      bo = b.add(bo, b.splat(delta, w, ""), "");
      wbase = b.call(st.module().intrinsic("llvm.ptrmask", base.type(), st.context().i64()), List.of(base, b.i64(-4)), "word.base");
    }
    Value shift = b.binop(Opcode.SHL, b.and(bo, b.splat(b.i32(3), w, ""), ""), b.splat(b.i32(3), w, ""), "word.shift");
    Value idx = b.and(bo, b.splat(b.i32(-4), w, ""), "word.offs");
    Value words;
    if (route == WordRoute.MASKED_GATHER) {
      Value wp = b.gep(st.context().i8(), wbase, List.of(idx), false, "word.ptrs");
      Value m = active == null ? b.allOnes(st.context().i1().vectorOf(w)) : active;
      words = b.call(st.module().intrinsic("llvm.masked.gather", i32v, wp.type()), List.of(wp, b.i32(4), m, b.constNull(i32v)), "words");
    } else {
      Value m32 = active == null ? b.allOnes(i32v) : b.cast(Opcode.SEXT, active, i32v, "");
      int n = w == 4 ? 4 : 8;
      Type part = st.context().i32().vectorOf(n);
      Function g = st.module().intrinsic(n == 4 ? "llvm.x86.avx2.gather.d.d" : "llvm.x86.avx2.gather.d.d.256");
      List<Value> parts = new ArrayList<>();
      for (int c = 0; c < w; c += n) {
        Value ix = VectorParts.slice(b, idx, c, n), mk = VectorParts.slice(b, m32, c, n);
        parts.add(b.call(g, List.of(b.constNull(part), wbase, ix, mk, b.constInt(st.context().i8(), 1)), ""));
      }
      words = VectorParts.concat(b, parts);
    }
    return wordResult(inst, t, vt, words, shift, route, what);
  }

  /** The lanes' elements from their words: shift, truncate (and reinterpret for half/bfloat); remark. */
  private Value wordResult(Value inst, Type t, Type vt, Value words, Value shift, WordRoute route, String what) {
    long size = st.module().allocSize(t);
    Type it = st.context().intType((int) size * 8);
    Value v = b.binop(Opcode.LSHR, words, shift, "");
    Value r = b.cast(Opcode.TRUNC, v, it.vectorOf(w), t.isInteger() ? inst.name() : "");
    if (!t.isInteger()) r = b.cast(Opcode.BITCAST, r, vt, nameOf(inst));
    st.stats().gathers++;
    st.remark(Remark.Kind.MEMORY, current(), inst, what + " became one gather of the aligned 4-byte words containing the "
        + w + " lanes' " + size + "-byte elements, a shift and a truncation (an aligned word never crosses a page: it faults"
        + " exactly where the element would; inactive lanes are off in the gather's mask; -Dpacketizer.wordGathers=false"
        + " turns this off): " + wordRouteReason);
    return r;
  }

  /** How a table lookup is loaded ({@link #gatherLowering}). */
  enum GatherLowering { HARDWARE_GATHER, SCALAR_LOADS }

  private GatherLowering gatherLoweringCached;
  private String gatherReason;
  /** Whether the target's gathers are fast instructions (not the knob's choice nor LLVM's). */
  private boolean hardwareGatherTarget;

  /**
   * Hardware gathers where LLVM lowers {@code llvm.masked.gather} to gather instructions
   * ({@link org.packetizer.core.wrapper.HardwareWidth#fastGathers}); scalar loads on the other AVX
   * targets (Haswell, Broadwell, Zen 1-3, x86-64-v3), where LLVM expands a gather into per-lane
   * extracts of 64-bit pointers. Other targets keep the gather (LLVM's choice). Measured on noise3
   * (docs/performance.md). The measurement knob {@code -Dpacketizer.gathers=hardware|scalar}
   * overrides the choice.
   */
  GatherLowering gatherLowering() {
    if (gatherLoweringCached != null) return gatherLoweringCached;
    String knob = System.getProperty("packetizer.gathers", "auto");
    org.packetizer.core.wrapper.HardwareWidth.Target t = org.packetizer.core.wrapper.HardwareWidth.resolve(st.scalar(),
        st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    String cpu = t.cpu() == null || t.cpu().isEmpty() ? "unknown CPU" : t.cpu();
    if (knob.equals("hardware") || knob.equals("scalar")) {
      gatherLoweringCached = knob.equals("scalar") ? GatherLowering.SCALAR_LOADS : GatherLowering.HARDWARE_GATHER;
      gatherReason = "-Dpacketizer.gathers=" + knob;
    } else if (org.packetizer.core.wrapper.HardwareWidth.fastGathers(t.cpu(), t.features())) {
      gatherLoweringCached = GatherLowering.HARDWARE_GATHER;
      hardwareGatherTarget = true;
      gatherReason = "the target (" + cpu + ") has fast hardware gathers (measured: noise3 W16/AVX-512 4.2x over scalar with them, 3.8x with scalar loads)";
    } else if (t.width() == org.packetizer.core.wrapper.HardwareWidth.AVX) {
      gatherLoweringCached = GatherLowering.SCALAR_LOADS;
      gatherReason = "the target (" + cpu + ") has no fast hardware gather, and LLVM would expand a gather"
          + " into extracts of 64-bit pointers (measured: noise3 W8/AVX2 14.0x -> 15.7x over scalar)";
    } else if (t.width() == org.packetizer.core.wrapper.HardwareWidth.SSE
        && org.packetizer.core.ir.TargetArch.of(st.module().targetTriple()) == org.packetizer.core.ir.TargetArch.X86) {
      gatherLoweringCached = GatherLowering.SCALAR_LOADS;
      gatherReason = "the target (" + cpu + ") has no gather instruction (SSE), and LLVM would expand a gather"
          + " into extracts of 64-bit pointers";
    } else {
      gatherLoweringCached = GatherLowering.HARDWARE_GATHER;
      gatherReason = "left to LLVM on this target (" + cpu + ")";
    }
    return gatherLoweringCached;
  }

  /**
   * Whether every lane of v's packet value follows its shape, inactive lanes included: true unless a
   * varying phi (whose slot keeps old values in the lanes that did not take the edge) is on the way.
   */
  private boolean allLanesComputed(Value v) {
    if (v.isConstant() || v.isArgument() || !v.isInstruction() || uniform(v)) return true;
    Boolean known = lanesComputed.get(v);
    if (known != null) return known;
    Opcode op = st.ssa().opcode(v);
    boolean r;
    if (op == Opcode.PHI) {
      r = false;
    } else if (op == Opcode.CALL) {
      r = SpmdIntrinsics.op(v).filter(o -> o == SpmdIntrinsics.Op.LANE_INDEX).isPresent();
    } else {
      lanesComputed.put(v, false); // no cycles without phis in SSA; this only guards against surprises
      r = true;
      for (Value o : st.ssa().operands(v)) r &= allLanesComputed(o);
    }
    lanesComputed.put(v, r);
    return r;
  }

  /**
   * Lane 0's value {@code v0} of a linear value (lane k's is {@code v0 + k*stride}; bytes for
   * pointers): the base of a consecutive access or of a linear argument. Only the active lanes' values
   * are computed — a lane that left a loop keeps an old value, one that never entered has none — so
   * under a partial mask v0 is derived from the first active lane f: {@code v[f] - f*stride} (with no
   * lane active the value is not used and anything will do).
   */
  Value laneZero(Value v, long stride) {
    Value pv = vec(v);
    if (MaskOps.isAllTrue(mask()) || allLanesComputed(v)) return b.extractElement(pv, 0, nameOf(v, ".lane0"));
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, mask(), iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.active");
    Value f64 = w < 64 ? b.cast(Opcode.ZEXT, f, st.context().i64(), "") : w == 64 ? f : b.cast(Opcode.TRUNC, f, st.context().i64(), "");
    Value vf = b.extractElement(pv, f64, nameOf(v, ".first"));
    Type t = v.type();
    if (t.isPointer()) return b.gep(st.context().i8(), vf, List.of(b.mul(f64, b.i64(-stride), "")), false, nameOf(v, ".lane0"));
    Value fk = t.intWidth() == 64 ? f64 : b.cast(Opcode.TRUNC, f64, t, "");
    return b.sub(vf, b.mul(fk, b.constInt(t, stride), ""), nameOf(v, ".lane0"));
  }

  /**
   * The alignment of a vector access at lane 0's address: the scalar access's, or the larger one the
   * shape analysis proved for that address (from aligned parameters, OpenMP's {@code aligned}).
   */
  static int vectorAlignment(int scalarAlign, Shape address) {
    return (int) Math.max(scalarAlign, Math.min(address.alignment(), 1L << 12));
  }

  /** The thesis' guarded if-cascade for a load: lane k loads only when its mask bit is set. */
  Value cascadeLoad(Value inst, Type t, Type vt, Value ptrs, int align) {
    return perLaneGuarded(k -> b.load(t, b.extractElement(ptrs, k, ""), align, ""), vt);
  }

  /**
   * A load of a scalar {@code t} from each active lane's own address ({@code ptrs}, a vector of
   * pointers in any address space): a gather, or with {@link MemoryStrategy#CASCADE} the thesis'
   * guarded if-cascade. The one varying-address load path (plain, composite leaves, struct-of-arrays).
   */
  Value gatherOrCascade(Value inst, Type t, Value ptrs, int align, String name) {
    Type vt = t.vectorOf(w);
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      return cascadeLoad(inst, t, vt, ptrs, align);
    }
    st.stats().gathers++;
    // (overloaded on the pointers' own type: they may be in another address space)
    Function f = st.module().intrinsic("llvm.masked.gather", vt, ptrs.type());
    return b.call(f, List.of(ptrs, b.i32(align), mask(), b.poison(vt)), name);
  }

  /**
   * A store of the packet {@code pv} to each active lane's own address ({@code ptrs}): a scatter
   * (lanes written in lane order), or with {@link MemoryStrategy#CASCADE} the thesis' guarded
   * if-cascade of W scalar stores. The one varying-address store path (plain, composite leaves,
   * struct-of-arrays).
   */
  void scatterOrCascade(Value pv, Value ptrs, int align) {
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      perLaneGuarded(k -> {
        b.store(b.extractElement(pv, k, ""), b.extractElement(ptrs, k, ""), align);
        return null;
      }, null);
      return;
    }
    st.stats().scatters++;
    Function f = st.module().intrinsic("llvm.masked.scatter", pv.type(), ptrs.type());
    b.call(f, List.of(pv, ptrs, b.i32(align), mask()), "");
  }

  /** Whether varying-address accesses become if-cascades rather than gathers and scatters. */
  boolean cascades() { return st.options().memoryStrategy() == MemoryStrategy.CASCADE; }

  /**
   * A load of a vector or aggregate through varying addresses. A vector whose lanes lie back to back
   * (consecutive address, no padding) is one wide (masked) load, transposed to element-major; else
   * every scalar element is loaded by its own gather (or if-cascade) at its offset.
   */
  private Value emitCompositeLoad(Value inst) {
    Type t = inst.type();
    Type pt = packetType(inst, t);
    Value ptr = inst.operand(0);
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (t.isVector() && s.isLinear() && s.stride() == st.module().allocSize(t) && denselyPacked(t)) {
      int n = t.vectorSize();
      Type flat = t.elementType().vectorOf(n * w);
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      st.stats().vectorLoads++;
      Value lm = MaskOps.isAllTrue(mask()) ? b.load(flat, p0, valign, "")
          : b.call(st.module().intrinsic("llvm.masked.load", flat, p0.type()),
              List.of(p0, b.i32(valign), comp.repeatLaneMajor(mask(), n), b.poison(flat)), "");
      Value r = comp.fromLaneMajor(lm, n);
      if (names && r.isInstruction()) r.setName(inst.name());
      return r;
    }
    checkByteSized(inst, t);
    if (t.isVector() && st.options().memoryStrategy() == MemoryStrategy.GATHER && !st.options().scalable() && !st.options().lanesMayBeRetyped()) {
      // clang's SLP-merged loads (<2 x float> of a bilinear fetch): members of a dynamic-variant group
      Value dynamic = dynamicVariants(inst, t, ptr);
      if (dynamic != null) return dynamic;
    }
    st.remark(Remark.Kind.MEMORY, current(), inst, "load of " + t + " from " + s + " addresses became one gather per element");
    Value r = loadParts(inst, t, vec(ptr), 0, align);
    if (names && r.isInstruction() && !inst.name().isEmpty()) r.setName(inst.name());
    return r;
  }

  /** One scalar leaf of a composite value at its byte offset: loaded ({@link #loadLeaves}) or stored ({@link #storeLeaves}). */
  interface LeafLoad {
    Value load(Type leaf, long offset);
  }

  interface LeafStore {
    void store(Type leaf, Value packet, long offset);
  }

  /**
   * The packet of a value of type {@code t} at byte {@code offset}, built from one {@code leaf} access
   * per scalar leaf (struct fields and array elements at their layout offsets, vector elements back to
   * back), assembled into the packet type (aggregates of packets, element-major vectors).
   */
  Value loadLeaves(Value inst, Type t, long offset, LeafLoad leaf) {
    if (t.isStruct() || t.isArray()) {
      Value acc = b.poison(packetType(inst, t));
      int n = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
      for (int i = 0; i < n; i++) {
        Type et = t.isStruct() ? t.structElements().get(i) : t.elementType();
        long off = offset + (t.isStruct() ? st.module().offsetOfElement(t, i) : i * st.module().allocSize(et));
        acc = b.insertValue(acc, loadLeaves(inst, et, off, leaf), i, "");
      }
      return acc;
    }
    if (t.isVector()) {
      Type et = t.elementType();
      List<Value> es = new ArrayList<>();
      for (int i = 0; i < t.vectorSize(); i++) es.add(loadLeaves(inst, et, offset + i * st.module().storeSize(et), leaf));
      return comp.concat(es);
    }
    return leaf.load(t, offset);
  }

  /** The inverse of {@link #loadLeaves}: the packet {@code pv} taken apart, one {@code leaf} access per scalar leaf. */
  void storeLeaves(Type t, Value pv, long offset, LeafStore leaf) {
    if (t.isStruct() || t.isArray()) {
      int n = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
      for (int i = 0; i < n; i++) {
        Type et = t.isStruct() ? t.structElements().get(i) : t.elementType();
        long off = offset + (t.isStruct() ? st.module().offsetOfElement(t, i) : i * st.module().allocSize(et));
        storeLeaves(et, b.extractValue(pv, i, ""), off, leaf);
      }
      return;
    }
    if (t.isVector()) {
      Type et = t.elementType();
      for (int i = 0; i < t.vectorSize(); i++) storeLeaves(et, comp.element(pv, i), offset + i * st.module().storeSize(et), leaf);
      return;
    }
    leaf.store(t, pv, offset);
  }

  private Value loadParts(Value inst, Type t, Value ptrs, long offset, int align) {
    return loadLeaves(inst, t, offset, (lt, off) -> gatherLeaf(inst, lt, ptrs, off, align));
  }

  private Value gatherLeaf(Value inst, Type t, Value ptrs, long offset, int align) {
    Value at = offset == 0 ? ptrs : b.gep(st.context().i8(), ptrs, List.of(b.i64(offset)), false, "");
    return gatherOrCascade(inst, t, at, partAlignment(align, offset), "");
  }

  /** A store of a vector or aggregate value (the counterpart of {@link #emitCompositeLoad}). */
  private void emitCompositeStore(Value inst) {
    Value val = inst.operand(0);
    Value ptr = inst.operand(1);
    Type t = val.type();
    packetType(inst, t);
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (s.isUniform()) {
      if (uniform(val)) {
        e.arithmetic.cloneUniform(inst);
      } else {
        // sequential lane order: the last active lane's value stays in memory
        b.store(comp.extractLane(vec(val), t, lastActiveLane()), scal(ptr), align);
      }
      st.stats().scalarStores++;
      return;
    }
    Value pv = vec(val);
    if (t.isVector() && s.isLinear() && s.stride() == st.module().allocSize(t) && denselyPacked(t)) {
      int n = t.vectorSize();
      Type flat = t.elementType().vectorOf(n * w);
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      Value lm = comp.toLaneMajor(pv, n);
      st.stats().vectorStores++;
      if (MaskOps.isAllTrue(mask())) b.store(lm, p0, valign);
      else b.call(st.module().intrinsic("llvm.masked.store", flat, p0.type()),
          List.of(lm, p0, b.i32(valign), comp.repeatLaneMajor(mask(), n)), "");
      return;
    }
    checkByteSized(inst, t);
    st.remark(Remark.Kind.MEMORY, current(), inst, "store of " + t + " to " + s + " addresses became one scatter per element");
    storeParts(inst, t, pv, vec(ptr), 0, align);
  }

  private void storeParts(Value inst, Type t, Value pv, Value ptrs, long offset, int align) {
    storeLeaves(t, pv, offset, (lt, lv, off) -> scatterLeaf(lt, lv, ptrs, off, align));
  }

  private void scatterLeaf(Type t, Value pv, Value ptrs, long offset, int align) {
    Value at = offset == 0 ? ptrs : b.gep(st.context().i8(), ptrs, List.of(b.i64(offset)), false, "");
    scatterOrCascade(pv, at, partAlignment(align, offset));
  }

  /** Whether a vector's elements lie back to back in memory and fill its allocation (no padding). */
  private boolean denselyPacked(Type vector) {
    Type e = vector.elementType();
    return (!e.isInteger() || e.intWidth() % 8 == 0)
        && st.module().allocSize(vector) == vector.vectorSize() * st.module().allocSize(e);
  }

  /** Vectors of elements smaller than a byte are bit-packed in memory: no per-element addresses. */
  private void checkByteSized(Value inst, Type t) {
    if (t.isVector() && t.elementType().isInteger() && t.elementType().intWidth() % 8 != 0) {
      throw unsupported(Rejection.UNSUPPORTED_TYPE, inst, "a load or store of the bit-packed vector type " + t + " through varying addresses");
    }
    if (t.isStruct()) for (Type e : t.structElements()) checkByteSized(inst, e);
    if (t.isArray()) checkByteSized(inst, t.elementType());
  }

  /** The alignment known at {@code offset} bytes past an address aligned to {@code align}. */
  static int partAlignment(int align, long offset) {
    if (offset == 0) return align;
    return (int) Math.min(align, Long.lowestOneBit(offset));
  }

  void emitStore(Value inst) {
    if (inst.isVolatile() || inst.isAtomic()) {
      if (uniform(inst.operand(0)) && uniform(inst.operand(1)) && !st.divergence().mayBePartial(current())) {
        e.arithmetic.cloneUniform(inst);
        return;
      }
      throw unsupported(Rejection.VOLATILE_OR_ATOMIC_VARYING, inst, "a volatile or atomic store in packet code");
    }
    Value val = inst.operand(0);
    Value ptr = inst.operand(1);
    Type t = val.type();
    if (CompositePackets.isComposite(t)) {
      emitCompositeStore(inst);
      return;
    }
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (s.isUniform()) {
      if (uniform(val)) {
        e.arithmetic.cloneUniform(inst);
      } else {
        // sequential lane order: the last active lane's value stays in memory
        Value lane = lastActiveLane();
        Value v = b.extractElement(vec(val), lane, nameOf(val, ".last"));
        b.store(v, scal(ptr), align);
      }
      st.stats().scalarStores++;
      return;
    }
    Type vt = packetType(inst, t);
    if (s.isLinear() && s.stride() == st.module().allocSize(t)) {
      st.stats().vectorStores++;
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      if (MaskOps.isAllTrue(mask())) {
        b.store(vec(val), p0, valign);
      } else {
        Function f = st.module().intrinsic("llvm.masked.store", vt, p0.type());
        b.call(f, List.of(vec(val), p0, b.i32(valign), mask()), "");
      }
      return;
    }
    if (st.options().memoryStrategy() == MemoryStrategy.GATHER && !st.options().scalable() && !st.options().lanesMayBeRetyped()
        && interleavedStore(inst, t, ptr, s)) {
      return;
    }
    scatter(inst);
  }

  private void scatter(Value inst) {
    Shape s = shape(inst.operand(1));
    st.remark(Remark.Kind.MEMORY, current(), inst, cascades() ? "store to varying addresses became a guarded if-cascade of " + w + " scalar stores"
        : "store to " + s + " addresses became a scatter");
    scatterOrCascade(vec(inst.operand(0)), vec(inst.operand(1)), Math.max(1, inst.alignment()));
  }

  /** Store groups waiting for their last member (keyed by it), members sorted by offset. */
  private final Map<Value, List<Member>> storeGroups = new HashMap<>();
  /** Members of a store group that emit nothing themselves: the group's last member stores them all. */
  private final Set<Value> deferredStores = new HashSet<>();

  /**
   * Stores of the fields of the same structs at a linear address ({@code p[i].x = a; p[i].y = b;
   * p[i].z = c;}), one after another in the block with nothing between them that reads or writes
   * memory or may not return, under a full mask, that together write every byte of the stride (no
   * gaps: a wide store writes every byte between lane 0's first field and lane W-1's last, and no
   * byte may be written that the scalar code does not write): one interleaving shuffle of their values
   * and one store of the W structs, at the last member. Otherwise each is a scatter. True when
   * {@code inst} is handled here.
   */
  private boolean interleavedStore(Value inst, Type t, Value ptr, Shape s) {
    List<Member> ready = storeGroups.remove(inst);
    if (ready != null) {
      emitStoreGroup(ready);
      return true;
    }
    if (deferredStores.remove(inst)) return true;
    if (!s.isLinear() || !MaskOps.isAllTrue(mask()) || !interleavable(t, s.stride(), MAX_INTERLEAVE)) return false;
    long stride = s.stride();
    long es = st.module().allocSize(t);
    int f = (int) (stride / es);
    Rooted me = rooted(ptr);
    List<Member> group = new ArrayList<>();
    group.add(new Member(inst, me.offset()));
    Set<Long> offsets = new HashSet<>(List.of(me.offset()));
    int budget = 256;
    for (Value c = inst.nextInstruction(); c != null && group.size() < f && budget-- > 0; c = c.nextInstruction()) {
      if (st.ssa().opcode(c) != Opcode.STORE) {
        if (!movableAcross(c, true)) break;
        continue;
      }
      if (c.isVolatile() || c.isAtomic() || !c.operand(0).type().equals(t) || !groupable(c, c.operand(1), stride)) break;
      if (e.uniformMemory.shared() != null && (e.uniformMemory.shared().privateStore(c).isPresent()
          || e.uniformMemory.shared().counterStore(c).isPresent())) {
        break;
      }
      Rooted r = rooted(c.operand(1));
      if (!r.root().equals(me.root()) || !offsets.add(r.offset())) break;
      group.add(new Member(c, r.offset()));
    }
    if (group.size() != f) return false;
    long lo = group.stream().mapToLong(Member::offset).min().orElseThrow();
    long hi = group.stream().mapToLong(Member::offset).max().orElseThrow();
    if (hi - lo != stride - es || group.stream().anyMatch(m -> Math.floorMod(m.offset() - lo, es) != 0)) return false;
    Value last = group.get(group.size() - 1).inst();
    List<Member> sorted = new ArrayList<>(group);
    sorted.sort(java.util.Comparator.comparingLong(Member::offset));
    storeGroups.put(last, sorted);
    for (Member m : group) if (m.inst() != inst && m.inst() != last) deferredStores.add(m.inst());
    st.remark(Remark.Kind.MEMORY, current(), inst, "stores of " + f + " fields with a stride of " + f + " elements (interleaved group, no gaps)"
        + " became one interleaving shuffle and one store of " + (w * f) + " elements");
    return true;
  }

  private void emitStoreGroup(List<Member> group) {
    if (!MaskOps.isAllTrue(mask())) {
      for (Member m : group) scatter(m.inst()); // (not reached: the members share one block and its mask)
      return;
    }
    int f = group.size();
    List<Value> cur = new ArrayList<>();
    for (Member m : group) cur.add(vec(m.inst().operand(0)));
    int len = w;
    while (cur.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < cur.size(); i += 2) {
        Value a = cur.get(i);
        Value c = i + 1 < cur.size() ? cur.get(i + 1) : b.poison(a.type());
        List<Value> idx = new ArrayList<>();
        for (int k = 0; k < 2 * len; k++) idx.add(b.i32(k));
        next.add(b.shuffle(a, c, b.constVector(idx), ""));
      }
      cur = next;
      len *= 2;
    }
    List<Value> idx = new ArrayList<>();
    for (int k = 0; k < w; k++) for (int j = 0; j < f; j++) idx.add(b.i32((long) j * w + k));
    Value all = cur.get(0);
    Value inter = b.shuffle(all, b.poison(all.type()), b.constVector(idx), "interleaved");
    Member first = group.get(0);
    Value p0 = laneZero(first.inst().operand(1), shape(first.inst().operand(1)).stride());
    b.store(inter, p0, Math.max(1, first.inst().alignment()));
    st.stats().vectorStores++;
  }
}
