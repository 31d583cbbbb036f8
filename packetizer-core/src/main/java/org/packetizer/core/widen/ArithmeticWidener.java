package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;

/**
 * Instruction vectorization of arithmetic (thesis 4.5.1): binary operators, compares, casts,
 * selects, GEPs, vector and aggregate element operations, one-to-one on packets; uniform
 * instructions are cloned as scalars; integer division keeps inactive lanes from trapping.
 */
final class ArithmeticWidener extends EmissionPhase {
  ArithmeticWidener(PacketEmitter e) { super(e.state(), e); }

  /** A varying arithmetic, compare, cast, vector or aggregate instruction: the same operation on packets. */
  Value widen(Value inst, Opcode op) {
    return switch (op) {
      case FNEG -> b.fneg(vec(inst.operand(0)), nameOf(inst));
      case FREM -> emitFrem(inst);
      case ADD, SUB, MUL, FADD, FSUB, FMUL, FDIV, SHL, LSHR, ASHR, AND, OR, XOR -> copyFlags(inst,
          b.binop(op, vec(inst.operand(0)), vec(inst.operand(1)), nameOf(inst)));
      case UDIV, SDIV, UREM, SREM -> emitIntDiv(inst, op);
      case ICMP -> emitIcmp(inst);
      case FCMP -> copyFlags(inst, b.fcmp(inst.fcmpPredicate(), vec(inst.operand(0)), vec(inst.operand(1)), nameOf(inst)));
      case BITCAST -> emitBitcast(inst);
      case TRUNC, ZEXT, SEXT, FPTOUI, FPTOSI, UITOFP, SITOFP, FPTRUNC, FPEXT, PTRTOINT, INTTOPTR, ADDRSPACECAST ->
          copyFlags(inst, b.cast(op, vec(inst.operand(0)), packetType(inst, inst.type()), nameOf(inst)));
      case EXTRACTELEMENT -> {
        Value idx = inst.operand(1);
        yield comp.extractElement(vec(inst.operand(0)), inst.operand(0).type().vectorSize(), uniform(idx) ? scal(idx) : vec(idx),
            inst.name());
      }
      case INSERTELEMENT -> {
        Value idx = inst.operand(2);
        packetType(inst, inst.type());
        yield comp.insertElement(vec(inst.operand(0)), inst.type().vectorSize(), vec(inst.operand(1)),
            uniform(idx) ? scal(idx) : vec(idx), nameOf(inst));
      }
      case SHUFFLEVECTOR -> {
        packetType(inst, inst.type());
        yield comp.shuffleVector(inst, vec(inst.operand(0)), vec(inst.operand(1)), nameOf(inst));
      }
      case EXTRACTVALUE -> {
        Value agg = vec(inst.operand(0));
        for (int i : aggregateIndices(inst)) agg = b.extractValue(agg, i, "");
        if (names && !inst.name().isEmpty() && agg.isInstruction()) agg.setName(inst.name());
        yield agg;
      }
      case INSERTVALUE -> insertValue(vec(inst.operand(0)), vec(inst.operand(1)), aggregateIndices(inst), 0, nameOf(inst));
      case FREEZE -> b.freeze(vec(inst.operand(0)), nameOf(inst));
      default -> throw unsupported(Rejection.UNSUPPORTED_INSTRUCTION, inst, "the instruction '" + op.mnemonic() + "' on varying values");
    };
  }

  /**
   * A varying integer compare. An equality or unsigned compare, wider than 32 bits, of a uniform
   * value u with the non-negative zero extension of a varying N-bit value x ({@code zext nneg}: a
   * loop's 64-bit induction variable against {@code zext(len)}, as clang widens {@code k < len}) is
   * done in N bits against u clamped to 2^(N-1): x lies in [0, 2^(N-1)), so every u at or above
   * the clamp compares with x as the clamp does (eq false, ne true, x below it). A 32-bit vector
   * compare instead of a 64-bit one (two to four of them per packet on AVX2/SSE, and a pack of the
   * results); the clamp is scalar work on the uniform side. Not on targets with mask registers
   * (AVX-512): there the 64-bit compares write mask registers directly, nothing is packed, and LLVM
   * folds the narrow compare and the loop's mask into one masked compare, which puts the compare's
   * latency on the loop-carried mask (measured: strhash W16/AVX-512 1.63x over scalar before, 1.47x
   * narrowed; W4/SSE4.2 1.10x -> 1.15x, W8/AVX2 1.44x -> 1.53x). Except there a loop counter's
   * exit compare, whose clamped counter {@link CounterBroadcasts} then carries as a 32-bit vector
   * ({@link #narrowCounterCompares}: no broadcast in the loop, strhash W16 1.77x -> 2.34x). Measurement
   * knob: {@code -Dpacketizer.narrowCompares=always|never}.
   */
  private Value emitIcmp(Value inst) {
    Value a = inst.operand(0), c = inst.operand(1);
    Type t = a.type();
    boolean maskRegs = !t.isVector() && t.isInteger() && t.intWidth() > 32 && inst.isICmpEqualityOrUnsigned() && !narrowCompares()
        && narrowCounterCompares();
    if (!t.isVector() && t.isInteger() && t.intWidth() > 32 && inst.isICmpEqualityOrUnsigned() && (narrowCompares() || maskRegs)) {
      for (int side = 0; side < 2; side++) {
        Value x = side == 0 ? a : c, u = side == 0 ? c : a;
        if (!uniform(u) || uniform(x) || !x.isInstruction() || st.ssa().opcode(x) != Opcode.ZEXT || !x.nneg()) continue;
        if (maskRegs && !counterStep(u)) continue;
        Value n = x.operand(0);
        Type nt = n.type();
        if (nt.isVector() || !nt.isInteger() || nt.intWidth() > 32 || nt.intWidth() < 2 || uniform(n) || !available(n)) continue;
        Value us = scal(u);
        Value clamp = b.constInt(t, 1L << (nt.intWidth() - 1));
        Value cu = b.call(st.module().intrinsic("llvm.umin", t), List.of(us, clamp), "");
        Value nu = b.splat(b.cast(Opcode.TRUNC, cu, nt, ""), w, !names || u.name().isEmpty() ? "" : u.name() + ".narrow");
        st.remark(org.packetizer.core.api.Remark.Kind.NOTE, current(), inst, "compare of " + t.intWidth() + "-bit values done in "
            + nt.intWidth() + " bits: " + x.describe() + " is the non-negative extension of a " + nt.intWidth() + "-bit value and "
            + u.describe() + " is uniform (clamped to 2^" + (nt.intWidth() - 1) + ")");
        Value xv = vec(n);
        return side == 0 ? b.icmp(inst.icmpPredicate(), xv, nu, nameOf(inst)) : b.icmp(inst.icmpPredicate(), nu, xv, nameOf(inst));
      }
    }
    return b.icmp(inst.icmpPredicate(), vec(a), vec(c), nameOf(inst));
  }

  private Boolean narrowCompares;

  /**
   * On targets with mask registers (AVX-512), where {@link #narrowCompares} is off, whether a compare
   * of a loop counter's step ({@link #counterStep}) is narrowed all the same: there the clamped counter
   * becomes a 32-bit vector phi stepped on the vector ({@link CounterBroadcasts}, which the pipeline
   * runs on such targets for this shape), so the 64-bit compare's broadcast of the counter and its two
   * to four 64-bit compares and mask concatenations per packet become one 32-bit compare of a vector
   * register. Measured on strhash W16/AVX-512 (docs/performance.md, issue 16, eleventh round): the
   * fourth round's narrowing, which kept the scalar clamp and broadcast, was slower there; with the
   * vector counter the loop runs faster. Knob {@code -Dpacketizer.narrowCounterCompares=false}, read
   * once per widener.
   */
  private Boolean narrowCounterCompares;

  private boolean narrowCounterCompares() {
    if (narrowCounterCompares == null) {
      narrowCounterCompares = !"false".equals(System.getProperty("packetizer.narrowCounterCompares"))
          && "auto".equals(System.getProperty("packetizer.narrowCompares", "auto")) && CounterBroadcasts.ENABLED
          && MaskDemotion.hasMaskRegisters(st.scalar(), st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    }
    return narrowCounterCompares;
  }

  /**
   * Whether u is a loop counter's step as {@link CounterBroadcasts} carries it on the vector: {@code
   * add nuw P, C} with C a non-negative constant and P a phi that takes u on some edge (its loop's
   * back edge).
   */
  private static boolean counterStep(Value u) {
    if (!u.isInstruction() || u.opcode() != Opcode.ADD || !u.nuw() || !u.operand(1).isConstantInt() || u.operand(1).constIntSExt() < 0) {
      return false;
    }
    Value p = u.operand(0);
    if (!p.isInstruction() || p.opcode() != Opcode.PHI) return false;
    for (int i = 0; i < p.incomingCount(); i++) if (p.incomingValue(i).equals(u)) return true;
    return false;
  }

  private boolean narrowCompares() {
    if (narrowCompares == null) {
      String knob = System.getProperty("packetizer.narrowCompares", "auto");
      narrowCompares = knob.equals("always") || !knob.equals("never")
          && !MaskDemotion.hasMaskRegisters(st.scalar(), st.options().targetCpu().orElse(null), st.options().targetFeatures().orElse(null));
    }
    return narrowCompares;
  }

  /** frem is fmod: exact vector IR instead of one fmod libcall per lane (issue 16). */
  private Value emitFrem(Value inst) {
    Value x = vec(inst.operand(0)), y = vec(inst.operand(1));
    java.util.Optional<org.packetizer.core.mapping.VectorMathCalls.Emitted> ex =
        org.packetizer.core.mapping.VectorMathCalls.frem(b, st.module(), packet, x, y, inst.operand(1), w, nameOf(inst));
    if (ex.isEmpty()) return copyFlags(inst, b.binop(Opcode.FREM, x, y, nameOf(inst)));
    st.remark(org.packetizer.core.api.Remark.Kind.VECTORIZED_CALL, current(), inst, ex.get().remark());
    return ex.get().value();
  }

  /** A bit cast; one that changes a vector's element count goes through the lane-major order. */
  private Value emitBitcast(Value inst) {
    Type from = inst.operand(0).type();
    Type to = inst.type();
    Value x = vec(inst.operand(0));
    if (CompositePackets.isComposite(from) || CompositePackets.isComposite(to)) {
      packetType(inst, to);
      packetType(inst, from);
      return comp.bitcast(x, from, to, nameOf(inst));
    }
    return b.cast(Opcode.BITCAST, x, packetType(inst, to), nameOf(inst));
  }

  private static int[] aggregateIndices(Value inst) { return inst.aggregateIndices(); }

  /** {@code insertvalue} along an index path on packets (the packet aggregate mirrors the scalar one). */
  Value insertValue(Value agg, Value elt, int[] path, int depth, String name) {
    int i = path[depth];
    if (depth == path.length - 1) return b.insertValue(agg, elt, i, name);
    Value inner = insertValue(b.extractValue(agg, i, ""), elt, path, depth + 1, "");
    return b.insertValue(agg, inner, i, name);
  }

  Value copyFlags(Value scalar, Value packetInst) {
    if (!packetInst.isInstruction()) return packetInst;
    Opcode op = scalar.opcode();
    if (scalar.canUseFastMathFlags() && packetInst.canUseFastMathFlags()) {
      packetInst.setFastMathFlags(scalar.fastMathFlags());
    }
    if (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.MUL || op == Opcode.SHL) {
      if (scalar.nsw()) packetInst.setNsw(true);
      if (scalar.nuw()) packetInst.setNuw(true);
    }
    if ((op == Opcode.LSHR || op == Opcode.ASHR) && scalar.isExact()) packetInst.setExact(true);
    if (op == Opcode.OR && scalar.isDisjoint()) packetInst.setDisjoint(true);
    if ((op == Opcode.ZEXT || op == Opcode.UITOFP) && scalar.nneg()) packetInst.setNneg(true);
    return packetInst;
  }

  /** A uniform instruction: a copy of the scalar one on the scalar operands. */
  Value cloneUniform(Value inst) {
    // materialize the operands first: loading them emits instructions that must precede the copy
    int n = inst.numOperands();
    Value[] mapped = new Value[n];
    for (int i = 0; i < n; i++) {
      Value o = inst.operand(i);
      if (o == null || o.isConstant() || o.isBasicBlockValue() || o.isMetadataAsValue() || o.isInlineAsm()) continue;
      mapped[i] = scal(o);
    }
    Value copy = b.insertClone(inst, nameOf(inst));
    for (int i = 0; i < n; i++) if (mapped[i] != null) copy.setOperand(i, mapped[i]);
    return copy;
  }

  /**
   * Integer division by a varying divisor: inactive lanes divide by 1 so they cannot trap (DESIGN §4).
   */
  private Value emitIntDiv(Value inst, Opcode op) {
    Value divisor = vec(inst.operand(1));
    if (!MaskOps.isAllTrue(mask()) || !inst.operand(1).isConstant()) {
      Value one = b.splat(b.constInt(divisor.type().elementType(), 1), divisor.type().vectorSize(), "");
      divisor = comp.select(mask(), divisor, one, nameOf(inst, ".safediv"));
    }
    return copyFlags(inst, b.binop(op, vec(inst.operand(0)), divisor, nameOf(inst)));
  }

  Value emitSelect(Value inst) {
    Value c = inst.operand(0);
    if (st.soa().lanePointerFieldSize(inst).isPresent()) {
      Value t = e.soa.lanePointers(inst, inst.operand(1)), f = e.soa.lanePointers(inst, inst.operand(2));
      return uniform(c) ? b.select(scal(c), t, f, nameOf(inst)) : b.select(vec(c), t, f, nameOf(inst));
    }
    if (uniform(c) && !c.type().isVector()) return b.select(scal(c), vec(inst.operand(1)), vec(inst.operand(2)), nameOf(inst));
    // (a uniform vector condition is broadcast like any operand; a varying i1 selecting between vectors or aggregates applies to each element and field)
    return copyFlags(inst, comp.select(vec(c), vec(inst.operand(1)), vec(inst.operand(2)), nameOf(inst)));
  }

  Value emitGep(Value inst) {
    if (inst.type().isVector()) throw unsupported(Rejection.UNSUPPORTED_INSTRUCTION, inst, "a vector of pointers computed by a GEP with vector operands");
    List<Value> idx = new ArrayList<>();
    Type t = inst.gepSourceElementType();
    int n = inst.numOperands();
    for (int i = 1; i < n; i++) {
      Value o = inst.operand(i);
      // struct field indices must stay scalar constants
      idx.add(uniform(o) ? scal(o) : vec(o));
    }
    Value base = inst.operand(0);
    Value pb = uniform(base) ? scal(base) : vec(base);
    boolean anyVector = pb.type().isVector();
    for (Value v : idx) anyVector |= v.type().isVector();
    if (!anyVector) pb = vec(base);
    return b.gep(t, pb, idx, inst.isInBounds(), nameOf(inst));
  }
}
