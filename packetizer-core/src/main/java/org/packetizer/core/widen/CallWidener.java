package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.MathMappings;
import org.packetizer.core.mask.MaskOps;

/**
 * Instruction vectorization of calls (thesis 4.5.2, 4.5.3): a known vector variant (math
 * intrinsics, a vector library, a user mapping, optionally masked), the packet version of a callee
 * packetized recursively, indirect calls grouped by target, or else W scalar calls guarded by each
 * lane's mask bit.
 */
final class CallWidener extends EmissionPhase {
  CallWidener(PacketEmitter e) { super(e.state(), e); }

  boolean isPureCall(Value call) { return st.isPureCall(call); }

  Value emitCall(Value inst) {
    Value calleeV = inst.calledOperand();
    if (inst.isInlineAsm() || calleeV.isInlineAsm()) throw unsupported(Rejection.INLINE_ASM, inst, "inline assembly");
    Optional<Function> callee = inst.calledFunction();
    if (callee.isEmpty()) return emitIndirectCall(inst);
    if (hasCompositeOperand(inst)) {
      Optional<Value> v = compositeIntrinsic(inst, callee.get().name());
      if (v.isPresent()) return v.get();
      // anything else with vector or aggregate arguments or results: one call per lane
      return scalarizeCall(inst, callee.get());
    }
    Optional<Value> packetCall = packetCallOf(inst, callee.get());
    if (packetCall.isPresent()) return packetCall.get();
    // a variadic callee has no packet version: guarded scalar calls in lane order (scalarizeCall)
    return scalarizeCall(inst, callee.get());
  }

  private static boolean hasCompositeOperand(Value call) {
    if (CompositePackets.isComposite(call.type())) return true;
    for (int i = 0; i < call.numArgOperands(); i++) if (CompositePackets.isComposite(call.operand(i).type())) return true;
    return false;
  }

  /**
   * An intrinsic on vectors: element-wise ones (math, min/max, bit counts, ...) become the same
   * intrinsic on the packet type, {@code llvm.vector.reduce.*} a combination of the element packets.
   * Empty when the call needs per-lane calls (other intrinsics, or a scalar operand that varies).
   */
  private Optional<Value> compositeIntrinsic(Value inst, String name) {
    if (!name.startsWith("llvm.") || !inst.type().isVector() && !name.startsWith("llvm.vector.reduce.")) return Optional.empty();
    Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
    boolean known = mm.isPresent() || CompositePackets.handlesIntrinsic(name);
    if (!known) return Optional.empty();
    List<Value> args = new ArrayList<>();
    for (int i = 0; i < inst.numArgOperands(); i++) {
      Value a = inst.operand(i);
      if (a.type().isVector() || name.startsWith("llvm.vector.reduce.")) {
        args.add(vec(a));
      } else {
        if (!uniform(a)) return Optional.empty();
        args.add(scal(a));
      }
    }
    Value r;
    if (name.startsWith("llvm.vector.reduce.")) {
      r = comp.reduction(inst, args, nameOf(inst));
    } else if (mm.isPresent()) {
      Type vt = packetType(inst, inst.type());
      Function f = mm.get().scalarSecondArg() && mm.get().intrinsic().equals("llvm.powi")
          ? st.module().intrinsic(mm.get().intrinsic(), vt, inst.operand(1).type())
          : st.module().intrinsic(mm.get().intrinsic(), vt);
      r = e.arithmetic.copyFlags(inst, b.call(f, args, nameOf(inst)));
    } else {
      packetType(inst, inst.type());
      r = comp.elementwiseIntrinsic(inst, args, nameOf(inst));
    }
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + name + " on vectors became one operation on their packets");
    return Optional.of(r);
  }

  /**
   * A call of {@code callee} with {@code inst}'s arguments for the lanes of the current mask through
   * a packet version: a vector math intrinsic or libmvec, a user-registered mapping, or the masked
   * packet version of a function defined in the module (recursive packetization). Empty when there is
   * none.
   */
  private Optional<Value> packetCallOf(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    String name = callee.name();
    Type rt = inst.type();
    if (!rt.isVoid() && rt.isVectorElement()) {
      // C99 <math.h>: exact vector IR, libmvec or SLEEF, two-type intrinsics (issue 16)
      Optional<org.packetizer.core.mapping.VectorMathCalls.Emitted> math = org.packetizer.core.mapping.VectorMathCalls.emit(
          b, st.module(), packet, inst, callee, this::vec, MaskOps.isAllTrue(mask()) ? null : mask(), w, st.options().vectorMath(),
          optimizeForSize(), call -> skipWhenNoLaneActive(call, nameOf(inst)));
      if (math.isPresent()) {
        packetType(inst, rt);
        st.stats().vectorCalls++;
        st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, math.get().remark());
        return Optional.of(e.arithmetic.copyFlags(inst, math.get().value()));
      }
    }
    Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
    if (mm.isPresent() && !rt.isVoid() && rt.isVectorElement() && (rt.isFloatingPoint() || rt.isInteger())) {
      Type vt = packetType(inst, rt);
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < nargs; i++) {
        Value a = inst.operand(i);
        args.add(mm.get().scalarSecondArg() && i == 1 ? scal(a) : vec(a));
      }
      Optional<Value> viaLib = libmvecCall(inst, mm.get().intrinsic(), vt, args);
      if (viaLib.isPresent()) return viaLib;
      if (LIBM_PER_LANE.contains(mm.get().intrinsic()) && laneLoopsAllowed() && optimizeForSize() && !UNROLLED_LIBM) {
        Optional<Value> pair = sinCosPair(inst, mm.get().intrinsic(), rt, vt, args.get(0));
        if (pair.isPresent()) return pair;
      }
      if (LIBM_PER_LANE.contains(mm.get().intrinsic()) && laneLoopsAllowed()
          && (!MaskOps.isAllTrue(mask()) || !UNROLLED_LIBM && (optimizeForSize() || !fusedSinCos(inst, mm.get().intrinsic())))) {
        // the back end lowers the vector intrinsic to one libm call per lane, inactive lanes included,
        // unrolled: W calls, each with its lane's extract, insert and the spills around a call (at W16
        // some 100 machine instructions per call site). A loop over the active lanes calls the scalar
        // intrinsic as often as the scalar code does, in code that does not grow with W.
        Function sf = st.module().intrinsic(mm.get().intrinsic(), rt);
        List<Value> packed = args;
        Value r = MaskOps.isAllTrue(mask()) ? laneLoopThroughMemory(inst, sf, packed, vt)
            : optimizeForSize() ? activeLanesThroughMemory(inst, sf, packed, vt) : activeLanesLoop(k -> {
          List<Value> la = new ArrayList<>();
          for (Value p : packed) la.add(b.extractElement(p, k, ""));
          return e.arithmetic.copyFlags(inst, b.call(sf, la, ""));
        }, vt, nameOf(inst));
        st.stats().vectorCalls++;
        st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + name + " became " + mm.get().intrinsic()
            + " on each active lane (a loop over the mask's set lanes: the back end has no vector instruction for it and"
            + " calls libm per lane, unrolled; the loop keeps the code from growing with W"
            + (MaskOps.isAllTrue(mask()) ? ")" : "; under a partial mask the inactive lanes are skipped)")
            + (optimizeForSize() ? "; optimizing for size" : ""));
        return Optional.of(r);
      }
      Function f = mm.get().scalarSecondArg() && mm.get().intrinsic().equals("llvm.powi")
          ? st.module().intrinsic(mm.get().intrinsic(), vt, inst.operand(1).type())
          : st.module().intrinsic(mm.get().intrinsic(), vt);
      st.stats().vectorCalls++;
      st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + name + " became " + mm.get().intrinsic() + " on " + vt);
      Value r = b.call(f, args, nameOf(inst));
      return Optional.of(e.arithmetic.copyFlags(inst, r));
    }
    Optional<Value> mapped = st.mappings().emitMappedCall(b, inst, name, this::vec, this::scal, mask());
    if (mapped.isPresent()) {
      st.stats().vectorCalls++;
      st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + name + " uses its registered packet version");
      return mapped;
    }
    if (!callee.isVarArg() && !callee.isDeclaration() && !name.startsWith("llvm.")) return recursiveCall(inst, callee);
    return Optional.empty();
  }

  /** Lane {@code k}'s arguments from {@link #argumentSlots}: each packet's element loaded, uniform ones as they are. */
  private List<Value> laneArguments(List<Value> args, List<Value> slots, Value k) {
    List<Value> la = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      Value a = args.get(i);
      if (!a.type().isVector()) {
        la.add(a);
        continue;
      }
      la.add(b.load(a.type().elementType(), b.gep(a.type(), slots.get(i), List.of(b.i64(0), k), true, ""), ""));
    }
    return la;
  }

  /** The arguments of a lane loop through memory: each packet stored once into an entry-block slot, uniform ones as they are. */
  private List<Value> argumentSlots(Value inst, List<Value> args) {
    List<Value> slots = new ArrayList<>();
    for (Value a : args) {
      if (!a.type().isVector()) {
        slots.add(a);
        continue;
      }
      Value slot = entryB.alloca(a.type(), nameOf(inst, ".arg"));
      b.store(a, slot);
      slots.add(slot);
    }
    return slots;
  }

  /**
   * {@code sf} on every lane, under a full mask, as a counted loop through stack arrays: the argument
   * packets stored once, lane k's arguments loaded, the call, its result stored at k, the result
   * packet loaded once after the loop. (A loop carrying the packet in a register and inserting at a
   * variable index spills it around every call and stalls on store forwarding: bs_call at W16 ran at
   * 0.73x scalar that way.)
   */
  private Value laneLoopThroughMemory(Value inst, Function sf, List<Value> args, Type vt) {
    Type i64 = st.context().i64();
    List<Value> slots = argumentSlots(inst, args);
    Value out = entryB.alloca(vt, nameOf(inst, ".out"));
    Block pre = b.currentBlock();
    Block loop = packet.appendBlock(nameOf(pre, ".lanes"));
    Block done = packet.appendBlock(nameOf(pre, ".lanes.done"));
    loop.moveAfter(pre);
    done.moveAfter(loop);
    b.br(loop);
    b.atEnd(loop);
    Value k = b.phi(i64, "lane");
    List<Value> la = laneArguments(args, slots, k);
    Value r = e.arithmetic.copyFlags(inst, b.call(sf, la, ""));
    b.store(r, b.gep(vt, out, List.of(b.i64(0), k), true, ""));
    Value next = b.add(k, b.i64(1), "");
    b.condBr(b.icmpNe(next, b.i64(w), ""), loop, done);
    k.addIncoming(b.i64(0), pre);
    k.addIncoming(next, loop);
    b.atEnd(done);
    return b.load(vt, out, nameOf(inst));
  }

  /** Optimizing for size: the packet of a sine's or cosine's partner, computed in the partner's lane loop. */
  private final java.util.Map<Value, Value> sinCosDone = new java.util.HashMap<>();

  /**
   * Optimizing for size, a sine and a cosine of one argument later in the same block (the same mask):
   * ONE loop over the lanes calling both on each lane, which the back end fuses into one
   * {@code sincosf} call per lane as it does in the scalar function (two loops would call libm twice
   * per lane: aobench at W8 1.58x scalar that way). The partner's packet is kept for when its turn
   * comes. Empty when {@code inst} has no such partner.
   */
  private Optional<Value> sinCosPair(Value inst, String intrinsic, Type rt, Type vt, Value arg) {
    Value done = sinCosDone.remove(inst);
    if (done != null) {
      st.stats().vectorCalls++;
      st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + inst.calledFunction().map(Function::name).orElse("?")
          + " computed in the lane loop of its partner of the same argument (optimizing for size)");
      return Optional.of(done);
    }
    String other = intrinsic.equals("llvm.sin") ? "llvm.cos" : intrinsic.equals("llvm.cos") ? "llvm.sin" : null;
    if (other == null) return Optional.empty();
    Value partner = null;
    for (Value i = inst.nextInstruction(); i != null && partner == null; i = i.nextInstruction()) {
      if (i.opcode() != Opcode.CALL || !i.operand(0).equals(inst.operand(0)) || i.numArgOperands() != 1) continue;
      Optional<Function> f = i.calledFunction();
      if (f.isEmpty() || !i.type().equals(rt)) continue;
      Optional<MathMappings.Mapping> m = MathMappings.forCallee(f.get().name());
      if (m.isPresent() && m.get().intrinsic().equals(other)) partner = i;
    }
    if (partner == null) return Optional.empty();
    Type iw = st.context().intType(w);
    Value bits0 = MaskOps.isAllTrue(mask()) ? b.constInt(iw, -1) : b.cast(Opcode.BITCAST, mask(), iw, "");
    Value slot = entryB.alloca(vt, nameOf(inst, ".arg"));
    Value out1 = entryB.alloca(vt, nameOf(inst, ".out"));
    Value out2 = entryB.alloca(vt, nameOf(partner, ".out"));
    b.store(arg, slot);
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, ".lanes", ".lanes.done");
    b.condBr(b.icmpNe(bits0, b.constInt(iw, 0), "any.lane"), bs[0], bs[1]);
    b.atEnd(bs[0]);
    Value bits = b.phi(iw, "lanes.left");
    Value tz = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(true)), "");
    Value k = w < 64 ? b.cast(Opcode.ZEXT, tz, st.context().i64(), "lane") : w == 64 ? tz : b.cast(Opcode.TRUNC, tz, st.context().i64(), "lane");
    Value x = b.load(rt, b.gep(vt, slot, List.of(b.i64(0), k), true, ""), "");
    Value r1 = e.arithmetic.copyFlags(inst, b.call(st.module().intrinsic(intrinsic, rt), List.of(x), ""));
    Value r2 = e.arithmetic.copyFlags(partner, b.call(st.module().intrinsic(other, rt), List.of(x), ""));
    b.store(r1, b.gep(vt, out1, List.of(b.i64(0), k), true, ""));
    b.store(r2, b.gep(vt, out2, List.of(b.i64(0), k), true, ""));
    Value bitsNext = b.and(bits, b.sub(bits, b.constInt(iw, 1), ""), "");
    Block latch = b.currentBlock();
    b.condBr(b.icmpNe(bitsNext, b.constInt(iw, 0), ""), bs[0], bs[1]);
    bits.addIncoming(bits0, pre);
    bits.addIncoming(bitsNext, latch);
    b.atEnd(bs[1]);
    Value v1 = b.load(vt, out1, nameOf(inst));
    sinCosDone.put(partner, b.load(vt, out2, nameOf(partner)));
    packetType(inst, rt);
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + inst.calledFunction().map(Function::name).orElse("?") + " and its partner "
        + partner.calledFunction().map(Function::name).orElse("?") + " of the same argument became one loop over the "
        + (MaskOps.isAllTrue(mask()) ? "lanes" : "mask's set lanes") + " calling " + intrinsic + " and " + other
        + " (one sincosf per lane, as the scalar code; optimizing for size)");
    return Optional.of(v1);
  }

  /**
   * {@code sf} on the active lanes of the mask, optimizing for size: as {@link #laneLoopThroughMemory},
   * the arguments stored once and the result loaded once, but over the mask's set bits (skipped when
   * none is set; the inactive lanes' results are undefined). Half the machine code of
   * {@link #activeLanesLoop}'s insert at a variable lane (a broadcast, compare and blend per lane).
   */
  private Value activeLanesThroughMemory(Value inst, Function sf, List<Value> args, Type vt) {
    Type iw = st.context().intType(w);
    Value bits0 = b.cast(Opcode.BITCAST, mask(), iw, "");
    Value out = entryB.alloca(vt, nameOf(inst, ".out"));
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, ".lanes", ".lanes.done");
    Block loop = bs[0], done = bs[1];
    List<Value> slots = argumentSlots(inst, args);
    b.condBr(b.icmpNe(bits0, b.constInt(iw, 0), "any.lane"), loop, done);
    b.atEnd(loop);
    Value bits = b.phi(iw, "lanes.left");
    Value tz = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(true)), "");
    Value k = w < 64 ? b.cast(Opcode.ZEXT, tz, st.context().i64(), "lane") : w == 64 ? tz : b.cast(Opcode.TRUNC, tz, st.context().i64(), "lane");
    List<Value> la = laneArguments(args, slots, k);
    Value r = e.arithmetic.copyFlags(inst, b.call(sf, la, ""));
    b.store(r, b.gep(vt, out, List.of(b.i64(0), k), true, ""));
    Value bitsNext = b.and(bits, b.sub(bits, b.constInt(iw, 1), ""), "");
    Block latch = b.currentBlock();
    b.condBr(b.icmpNe(bitsNext, b.constInt(iw, 0), ""), loop, done);
    bits.addIncoming(bits0, pre);
    bits.addIncoming(bitsNext, latch);
    b.atEnd(done);
    return b.load(vt, out, nameOf(inst));
  }

  /**
   * Optimizing for size (PacketizerOptions.Optimize.SIZE): math calls loop over the lanes calling libm
   * (no exact vector helpers), a sine and a cosine of one argument too (two loops, not the back end's
   * W unrolled sincosf calls, some 30 machine instructions per lane).
   */
  private boolean optimizeForSize() {
    return st.options().optimize() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE;
  }

  /**
   * Whether a loop over the mask's set bits may be emitted: not for scalable packets (the fixed-width
   * function is re-typed to vscale × W lanes; a mask cast to an iW integer names W lanes).
   */
  private boolean laneLoopsAllowed() {
    return !st.options().scalable() && !st.options().lanesMayBeRetyped();
  }

  /**
   * A sine whose argument also goes to a cosine (or the reverse): the back end fuses each lane's pair
   * into one {@code sincosf} call when both are unrolled per lane, which two lane loops would undo
   * (aobench at W8: 1.50x scalar unrolled, 1.03x as two loops). Such pairs stay with the back end.
   */
  private static boolean fusedSinCos(Value inst, String intrinsic) {
    String other = intrinsic.equals("llvm.sin") ? "llvm.cos" : intrinsic.equals("llvm.cos") ? "llvm.sin" : null;
    if (other == null) return false;
    for (Value u : inst.operand(0).users()) {
      if (u.equals(inst) || !u.isInstruction() || u.opcode() != Opcode.CALL) continue;
      Optional<Function> f = u.calledFunction();
      if (f.isEmpty()) continue;
      Optional<MathMappings.Mapping> m = MathMappings.forCallee(f.get().name());
      if (m.isPresent() && m.get().intrinsic().equals(other)) return true;
    }
    return false;
  }

  /**
   * Measurement knob ({@code -Dpacketizer.libmLanes=unrolled}): under a full mask, leave the vector
   * intrinsic to the back end's unrolled per-lane calls instead of {@link #laneLoopThroughMemory}.
   */
  static final boolean UNROLLED_LIBM = "unrolled".equals(System.getProperty("packetizer.libmLanes"));

  /**
   * Intrinsics that no back end here lowers to vector instructions: the vector form becomes one libm
   * call per lane (x86-64, AArch64 and RISC-V without a vector library).
   */
  static final java.util.Set<String> LIBM_PER_LANE = java.util.Set.of("llvm.sin", "llvm.cos", "llvm.tan", "llvm.asin", "llvm.acos",
      "llvm.atan", "llvm.atan2", "llvm.sinh", "llvm.cosh", "llvm.tanh", "llvm.exp", "llvm.exp2", "llvm.exp10", "llvm.log",
      "llvm.log2", "llvm.log10", "llvm.pow");

  /**
   * An indirect call (thesis 4.5.2 extended to varying callees). Semantics: as W scalar calls, one
   * per active lane, each to the lane's own target. Emitted as a loop over the lanes still pending:
   * take the first pending lane's target t; if t is one of the functions the call may reach
   * ({@link IndirectTargets}: the entries of the constant table the callee is loaded from, else the
   * module's address-taken functions of this type) and has a packet version, call that once, masked to the
   * pending lanes whose target is t; else call t as a scalar for the first pending lane alone. So
   * the scalar calls happen one lane at a time in lane order, and a target with a packet version is
   * called once for all its lanes, when its first lane's turn comes. A uniform callee is the same
   * loop, left after one iteration when its target has a packet version.
   */
  private Value emitIndirectCall(Value inst) {
    Type fnType = inst.calledFunctionType();
    Type rt = inst.type();
    Type vt = rt.isVoid() ? null : packetType(inst, rt);
    int nargs = inst.numArgOperands();
    // the operands' packet values (and the broadcasts of uniform ones) are made here, before the
    // dispatch loop: values cached in the loop's blocks would not dominate later uses
    List<Value> packed = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      if (uniform(a)) {
        packed.add(scal(a));
        Type t = a.type();
        if (t.isVectorElement() && (t.isInteger() || t.isPointer() || t.isFloat() || t.isDouble())) vec(a);
      } else {
        packed.add(vec(a));
      }
    }
    Value calleeV = inst.calledOperand();
    Value callees = uniform(calleeV) ? scal(calleeV) : vec(calleeV);
    boolean uniformCallee = !callees.type().isVector();
    Value calleeSlot = null;
    if (!uniformCallee) {
      // the lane's target is loaded from a stack copy: LLVM 20's x86 back end crashes on a call
      // through a pointer extracted at a variable index inside a loop
      calleeSlot = entryB.alloca(callees.type(), "icall.targets");
      b.store(callees, calleeSlot);
    }
    List<Function> candidates = IndirectTargets.candidates(st.module(), inst);

    Block pre = b.currentBlock();
    Block loop = packet.appendBlock(nameOf(pre, ".icall"));
    Block next = packet.appendBlock(nameOf(pre, ".icall.next"));
    Block done = packet.appendBlock(nameOf(pre, ".icall.done"));
    loop.moveAfter(pre);
    Value entering = mask();
    if (MaskOps.isAllTrue(mask())) b.br(loop);
    else b.condBr(masks.any(mask(), "any.icall"), loop, done);

    b.atEnd(loop);
    Value pending = b.phi(masks.maskType(), "icall.pending");
    pending.addIncoming(entering, pre);
    Value res = null;
    if (vt != null) {
      res = b.phi(vt, nameOf(inst, ".icall"));
      res.addIncoming(b.poison(vt), pre);
    }
    Value first = firstActiveLane(pending);
    Value target = uniformCallee ? callees
        : b.load(st.context().ptrType(), b.gep(st.context().ptrType(), calleeSlot, List.of(first), true, ""), "icall.target");
    Value group = uniformCallee ? pending
        : masks.and(pending, b.icmpEq(callees, b.splat(target, w, ""), ""), "icall.group");
    record Join(Block from, Value result, Value left) { }
    List<Join> joins = new ArrayList<>();
    int tried = 0;
    for (Function c : candidates) {
      Block hit = packet.appendBlock(pre.name() + ".icall." + c.name());
      Block miss = packet.appendBlock(pre.name() + ".icall.not." + c.name());
      hit.moveAfter(b.currentBlock());
      miss.moveAfter(hit);
      b.condBr(b.icmpEq(target, c, ""), hit, miss);
      b.atEnd(hit);
      Value saved = mask();
      Optional<Value> r;
      st.setCurrentMask(group);
      try {
        r = packetCallOf(inst, c);
      } finally {
        st.setCurrentMask(saved);
      }
      if (r.isPresent()) {
        tried++;
        Value nr = vt == null ? null : b.select(group, r.get(), res, "");
        Value left = masks.andNot(pending, group, "");
        joins.add(new Join(b.currentBlock(), nr, left));
        b.br(next);
      } else {
        b.br(miss); // no packet version: the lane is called as a scalar below
      }
      b.atEnd(miss);
    }
    // a target without a packet version: one scalar call, for the first pending lane
    List<Value> args = new ArrayList<>();
    for (Value p : packed) args.add(p.type().isVector() ? b.extractElement(p, first, "") : p);
    Value call = b.call(fnType, target, args, rt.isVoid() ? "" : nameOf(inst, ".lane"));
    copyCallSite(inst, call);
    Value nr = vt == null ? null : b.insertElement(res, call, first, "");
    Value onlyFirst = b.icmpEq(b.laneNumbers(st.module(), st.context().i32(), w, 1, st.options().lanesMayBeRetyped()), b.splat(first, w, ""), "");
    Value left = masks.andNot(pending, onlyFirst, "");
    joins.add(new Join(b.currentBlock(), nr, left));
    b.br(next);

    next.moveAfter(b.currentBlock());
    b.atEnd(next);
    Value pendingNext = b.phi(masks.maskType(), "icall.left");
    Value resNext = vt == null ? null : b.phi(vt, "");
    for (Join j : joins) {
      pendingNext.addIncoming(j.left(), j.from());
      if (resNext != null) resNext.addIncoming(j.result(), j.from());
    }
    pending.addIncoming(pendingNext, next);
    if (res != null) res.addIncoming(resNext, next);
    b.condBr(masks.any(pendingNext, "icall.more"), loop, done);
    done.moveAfter(next);
    b.atEnd(done);
    st.stats().scalarizedCalls++;
    st.remark(Remark.Kind.SCALARIZED_CALL, current(), inst, "indirect call: each lane calls its own target"
        + (tried > 0 ? " (" + tried + " possible target(s) with a packet version, called once for all their lanes; others one lane at a time in lane order)"
            : ", one lane at a time in lane order (no possible target has a packet version)"));
    if (vt == null) return null;
    if (MaskOps.isAllTrue(entering)) return resNext;
    Value out = b.phi(vt, nameOf(inst));
    out.addIncoming(b.poison(vt), pre);
    out.addIncoming(resNext, next);
    return out;
  }

  /** A scalar call made for one lane keeps the scalar call site's calling convention and attributes. */
  private static void copyCallSite(Value from, Value to) {
    // the lane's call is the scalar call: same calling convention, same call-site attributes
    // (zeroext/signext, byval, noundef, memory effects, ...)
    to.setInstructionCallConv(from.instructionCallConv());
    to.copyCallSiteAttributesFrom(from);
  }

  /**
   * A math intrinsic through glibc's libmvec when the options ask for it and a variant exists for
   * the target's features: one call per chunk of the variant's width, results concatenated.
   */
  private Optional<Value> libmvecCall(Value inst, String intrinsic, Type vt, List<Value> args) {
    boolean afn = st.options().vectorMath() != org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC;
    if (afn && !org.packetizer.core.mapping.VectorMathCalls.allowsApproximation(inst)) return Optional.empty();
    Type et = vt.elementType();
    if (!et.isFloat() && !et.isDouble()) return Optional.empty();
    String features = packet.stringAttribute("target-features").orElse("");
    Optional<org.packetizer.core.mapping.Libmvec.Variant> v =
        org.packetizer.core.mapping.Libmvec.variant(intrinsic, et.isDouble(), packet.module().targetTriple(), features, w);
    if (v.isEmpty() || v.get().arity() != args.size() || w % v.get().lanes() != 0) return Optional.empty();
    int lanes = v.get().lanes();
    if (!MaskOps.isAllTrue(mask())) {
      // inactive lanes hold whatever they hold (negative bases, NaNs, huge values): libmvec sends any
      // such lane of a call through its slow scalar fallback, so they get 1.0, inside every
      // function's fast domain
      Value one = b.splat(b.constReal(et, 1.0), w, "");
      List<Value> safe = new ArrayList<>();
      for (Value a : args) safe.add(b.select(mask(), a, one, ""));
      args = safe;
    }
    Type ct = et.vectorOf(lanes);
    List<Type> ps = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) ps.add(ct);
    Function f = st.module().getOrInsertFunction(v.get().symbol(), st.context().functionType(ct, ps, false));
    f.addEnumAttribute("nounwind");
    f.addEnumAttribute("willreturn");
    List<Value> callArgs = args;
    Value result = skipWhenNoLaneActive(() -> {
      List<Value> parts = new ArrayList<>();
      for (int c = 0; c < w / lanes; c++) {
        List<Value> cargs = new ArrayList<>();
        for (Value a : callArgs) cargs.add(lanes == w ? a : b.shuffle(a, b.poison(vt), rangeMask(c * lanes, lanes), ""));
        parts.add(b.call(f, cargs, inst.name() + (lanes == w ? "" : "." + c)));
      }
      return concat(parts);
    }, nameOf(inst));
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to " + intrinsic + " became " + (w / lanes) + " call(s) of libmvec "
        + v.get().symbol() + " (max " + org.packetizer.core.mapping.Libmvec.MAX_ULPS + " ULP)"
        + (afn ? " (the call allows approximate functions: afn)" : ""));
    return Optional.of(result);
  }

  private Value rangeMask(int start, int n) {
    List<Value> idx = new ArrayList<>();
    for (int i = 0; i < n; i++) idx.add(b.i32(start + i));
    return b.constVector(idx);
  }

  /** Concatenates equally wide vectors (a power-of-two count) into one. */
  Value concat(List<Value> parts) {
    List<Value> cur = parts;
    while (cur.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < cur.size(); i += 2) {
        int n = cur.get(i).type().vectorSize();
        next.add(b.shuffle(cur.get(i), cur.get(i + 1), rangeMask(0, 2 * n), ""));
      }
      cur = next;
    }
    return cur.getFirst();
  }

  /**
   * Recursive packetization (thesis 7.2): calls the masked packet version of a function defined in
   * the module, made for this call site's parameter kinds (a recursive call calls the version still
   * being emitted). Empty when the callee cannot be packetized and no argument forces one.
   */
  private Optional<Value> recursiveCall(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    List<ParamKind> kinds = new ArrayList<>();
    boolean needsPacket = false;
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      if (st.soa().isDerived(a)) {
        if (get(a).type().isVector()) {
          throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, "passing a struct-of-arrays pointer with a varying offset to @" + callee.name());
        }
        kinds.add(ParamKind.SOA);
        needsPacket = true;
      } else if (uniform(a)) {
        kinds.add(ParamKind.UNIFORM);
      } else if (shape(a).isLinear() && (a.type().isPointer() || a.type().isInteger() && a.type().intWidth() >= 8
          && a.type().intWidth() <= 64)) {
        // the callee learns that lane k gets base + k*stride: its consecutive accesses stay vector accesses
        kinds.add(ParamKind.linear(shape(a).stride()));
      } else {
        if (!a.type().isVectorElement()) return Optional.empty();
        kinds.add(ParamKind.VARYING);
      }
    }
    Optional<String> version = st.callees().packetVersion(callee.name(), kinds, w, n -> st.module().function(n).isPresent());
    if (version.isEmpty()) {
      if (needsPacket) {
        throw unsupported(Rejection.STRUCT_OF_ARRAYS, inst, "a call to @" + callee.name() + " with a struct-of-arrays pointer, because @" + callee.name()
            + " cannot be packetized: " + st.callees().failure(callee.name(), kinds, w).orElse("unknown reason"));
      }
      return Optional.empty();
    }
    Function vf = st.module().function(version.get()).orElseThrow();
    List<Value> args = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      ParamKind k = kinds.get(i);
      args.add(k instanceof ParamKind.Varying ? vec(a) : k instanceof ParamKind.Linear l ? e.memory.laneZero(a, l.step()) : get(a));
    }
    args.add(mask());
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current(), inst, "call to @" + callee.name() + " calls its packet version @"
        + vf.name() + " (recursive packetization, masked)");
    return Optional.of(b.call(vf, args, inst.type().isVoid() ? "" : inst.name()));
  }

  /** W scalar calls; guarded by each lane's mask bit unless the callee is free of side effects. */
  private Value scalarizeCall(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    boolean pure = isPureCall(inst);
    Type rt = inst.type();
    Type vt = rt.isVoid() ? null : packetType(inst, rt);
    st.stats().scalarizedCalls++;
    st.remark(Remark.Kind.SCALARIZED_CALL, current(), inst, "call to @" + callee.name() + " was split into " + w
        + " scalar calls" + (st.options().lanesMayBeRetyped() ? " (scalable packets: a loop over the vscale × " + w
            + " lanes, each lane's call guarded by its mask bit)"
            : pure ? MaskOps.isAllTrue(mask()) || !laneLoopsAllowed() ? " (no side effects: unguarded)" : " (no side effects: under a partial mask a loop over the active lanes)"
            : " guarded by each lane's mask bit")
        + "; register a packet version to avoid this");
    List<Value> packed = new ArrayList<>();
    List<Boolean> varyingArg = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      packed.add(uniform(a) ? scal(a) : vec(a));
      varyingArg.add(!uniform(a));
      if (!uniform(a)) packetType(inst, a.type());
    }
    LaneBody body = k -> {
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < packed.size(); i++) {
        Value p = packed.get(i);
        Value a = varyingArg.get(i) ? comp.extractLane(p, inst.operand(i).type(), k) : p;
        if (pure) a = b.freeze(a, "");
        args.add(a);
      }
      // the call site's function type (a variadic callee's includes the promoted variadic arguments)
      Value call = b.call(inst.calledFunctionType(), callee, args, rt.isVoid() ? "" : inst.name() + "."
          + (k.isConstantInt() ? String.valueOf(k.constIntZExt()) : "lane"));
      copyCallSite(inst, call);
      return call;
    };
    if (pure && !MaskOps.isAllTrue(mask()) && laneLoopsAllowed() && (vt == null || !CompositePackets.isComposite(rt)) && !hasCompositeOperand(inst)) {
      // no side effects, but each call costs: only the active lanes call (a loop over the mask's set bits)
      return activeLanesLoop(k -> {
        List<Value> args = new ArrayList<>();
        for (int i = 0; i < packed.size(); i++) {
          Value p = packed.get(i);
          args.add(varyingArg.get(i) ? b.extractElement(p, k, "") : p);
        }
        Value call = b.call(inst.calledFunctionType(), callee, args, rt.isVoid() ? "" : nameOf(inst, ".lane"));
        copyCallSite(inst, call);
        return call;
      }, vt, rt.isVoid() ? "" : inst.name());
    }
    if (pure && !st.options().lanesMayBeRetyped()) {
      Value acc = vt == null ? null : b.poison(vt);
      for (int k = 0; k < w; k++) {
        Value r = body.emit(b.i32(k));
        if (acc != null) acc = insertLane(acc, r, k);
      }
      return acc;
    }
    return perLaneGuarded(body, vt);
  }
}
