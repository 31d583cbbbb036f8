package org.packetizer.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.pipeline.PureCalls;

/**
 * Optimizing for size ({@link PacketizerOptions.Optimize#SIZE}), the packet function of last resort: a
 * counted loop over the W lanes running a private copy of the scalar function on each lane's
 * arguments. Its machine code is the scalar function's plus about 12-15 instructions, at every width; its speed
 * is about the scalar function's. It replaces the packetized body when that is larger than {@link #budget()}
 * times the scalar function in machine instructions (each counted with the module's functions it calls, as the
 * benchmark's {@code asm} column counts them): the code-growth goal of issue 16 as a rule of the size mode, as a
 * C compiler's {@code -Os} leaves a loop unvectorized when vectorizing grows it.
 *
 * <p>The loop's layout ({@link #emit}, thirteenth round): lane k's varying arguments come from the argument
 * packets carried through the loop (lane 0 extracted, the packet moved down one lane), not from a stack slot
 * (a vector store that the narrow per-lane loads wait for: a store-forwarding stall per call); the result
 * enters the top of a result packet that moves down one lane per iteration (one shuffle, no variable-index
 * insert). Knobs {@code -Dpacketizer.sizeLanesArgs=rotate|memory}, {@code -Dpacketizer.sizeLanesResult=shift|memory|insert}
 * keep the earlier layouts measurable.
 *
 * <p>Exact: each lane runs the scalar function on its own arguments, as the packet function's contract
 * says. Only for functions whose only writes go to their own static private variables (none at all with
 * {@code -Dpacketizer.sizeLanesLocals=false}): no store through any other pointer and no call that may write,
 * so that running the lanes one after another cannot differ from running them side by side, with uniform and
 * varying parameters of scalar types and a scalar or void result, and no scalable packets, array driver or
 * lane refill. A masked packet function tests lane k's mask bit and skips an inactive lane (knob {@code
 * -Dpacketizer.sizeLanesMasked=false}: masked functions keep their packetized body). Knob {@code
 * -Dpacketizer.sizeScalarLanes=false} keeps the packetized body whatever its size; {@code
 * -Dpacketizer.sizeBudget=X} sets the budget (default 2.5).
 */
final class ScalarLanes {
  private ScalarLanes() {}

  /** The code-growth budget of the size mode, packet over scalar IR instructions. */
  static double budget() {
    try {
      return Double.parseDouble(System.getProperty("packetizer.sizeBudget", "2.5"));
    } catch (NumberFormatException e) {
      return 2.5;
    }
  }

  /** How the lane loop gets lane k's varying arguments and gathers the results ({@link #emit}). */
  enum Layout {
    /** Arguments: each varying packet carried through the loop, lane 0 extracted and the packet rotated down by one lane. */
    ROTATE_ARGS,
    /** Arguments: each varying packet stored to the stack once, lane k loaded (the twelfth round's layout). */
    MEMORY_ARGS;

    /** Knob {@code -Dpacketizer.sizeLanesArgs=rotate|memory} (default rotate); read at each use. */
    static Layout args() {
      return "memory".equalsIgnoreCase(System.getProperty("packetizer.sizeLanesArgs", "rotate").trim()) ? MEMORY_ARGS : ROTATE_ARGS;
    }
  }

  /** Where lane k's result goes: knob {@code -Dpacketizer.sizeLanesResult=shift|memory|insert} (default shift). */
  enum Result {
    /** The result packet carried through the loop, shifted down by one lane with lane k's result entering at the top. */
    SHIFT,
    /** Each lane's result stored to its slot of a stack array, the packet loaded once after the loop. */
    MEMORY,
    /** Inserted at lane k (a variable index) of a packet carried through the loop (the twelfth round's layout). */
    INSERT;

    static Result knob() {
      return switch (System.getProperty("packetizer.sizeLanesResult", "shift").trim().toLowerCase(java.util.Locale.ROOT)) {
        case "memory" -> MEMORY;
        case "insert" -> INSERT;
        default -> SHIFT;
      };
    }
  }

  /** Whether the rule is on: optimizing for size and not {@code -Dpacketizer.sizeScalarLanes=false}. Read at each use. */
  static boolean enabled(PacketizerOptions o) {
    return o.optimize() == PacketizerOptions.Optimize.SIZE
        && !"false".equalsIgnoreCase(System.getProperty("packetizer.sizeScalarLanes", "true"));
  }

  /**
   * IR instructions of {@code f} and of the functions defined in the module that it calls (transitively,
   * each once, not {@code except}).
   */
  static int size(Function f, Function except) {
    Set<String> seen = new HashSet<>();
    ArrayDeque<Function> todo = new ArrayDeque<>(List.of(f));
    int n = 0;
    while (!todo.isEmpty()) {
      Function g = todo.pop();
      if (!seen.add(g.name()) || g.isDeclaration()) continue;
      for (Block bl : g.blocks()) {
        for (Value i : bl.instructions()) {
          n++;
          if (i.opcode() != Opcode.CALL) continue;
          Optional<Function> c = i.calledFunction();
          if (c.isPresent() && !c.get().isDeclaration() && (except == null || !c.get().name().equals(except.name()))) todo.push(c.get());
        }
      }
    }
    return n;
  }

  /**
   * Machine instructions of {@code scalar} and {@code packet}, each with the functions defined in the
   * module that it calls ({@link org.packetizer.core.ir.MachineCode#count}), compiled from a copy of the
   * module for the target CPU of the options (else the scalar function's {@code target-cpu}, else the
   * host's) and the module's triple (else the host's); {0, 0} when the module cannot be compiled.
   */
  static int[] machineInstructions(LlvmModule module, PacketizerOptions o, Function scalar, Function packet) {
    String triple = module.targetTriple();
    if (triple == null || triple.isEmpty()) triple = org.packetizer.core.ir.Llvm.hostTriple();
    String cpu = o.targetCpu().or(() -> scalar.stringAttribute("target-cpu")).orElse(org.packetizer.core.ir.Llvm.hostCpuName());
    String features = o.targetFeatures().or(() -> scalar.stringAttribute("target-features")).orElse("");
    try {
      String asm = org.packetizer.core.ir.MachineCode.assembly(module, triple, cpu, features);
      var n = org.packetizer.core.ir.MachineCode.count(asm, List.of(scalar.name(), packet.name()));
      return new int[] {n.get(scalar.name()), n.get(packet.name())};
    } catch (RuntimeException e) {
      return new int[] {0, 0};
    }
  }

  /** The module's ABI alignment of a scalar type in bytes, for element-aligned lane slots. */
  private static int elementAlign(LlvmModule module, Type t) {
    return Math.max(1, module.abiAlignment(t));
  }

  /** Why the rule cannot apply to {@code scalar} with these options and kinds, or empty when it can. */
  static Optional<String> refusal(PacketizerOptions o, Function scalar, Function packet, List<ParamKind> kinds, int w) {
    if (o.scalable() || o.lanesMayBeRetyped() || (o.masked() && !maskedLanes()) || o.arrayDriver().isPresent() || w < 2 || w > 64) {
      return Optional.of("scalable, masked or driven packet function");
    }
    Type ft = packet.functionType();
    int extra = o.masked() ? 1 : 0;
    if (packet.paramCount() != scalar.paramCount() + extra || kinds.size() != scalar.paramCount()) return Optional.of("signature");
    if (extra == 1) {
      Type mt = packet.param(scalar.paramCount()).type();
      if (!mt.isVector() || mt.vectorSize() != w || !mt.elementType().isInteger(1)) return Optional.of("the mask is not <W x i1>");
    }
    for (int i = 0; i < scalar.paramCount(); i++) {
      Type st = scalar.param(i).type();
      Type pt = packet.param(i).type();
      boolean ok = switch (kinds.get(i)) {
        case ParamKind.Uniform u -> pt.equals(st);
        case ParamKind.Varying v -> st.isVectorElement() && pt.equals(st.vectorOf(w));
        default -> false;
      };
      if (!ok) return Optional.of("parameter " + i + " is neither uniform nor a varying scalar");
    }
    Type rt = scalar.returnType();
    if (!(rt.isVoid() && ft.returnType().isVoid()) && !(rt.isVectorElement() && ft.returnType().equals(rt.vectorOf(w)))) {
      return Optional.of("the result is not a scalar");
    }
    PureCalls pure = new PureCalls();
    boolean locals = privateVariables();
    Block first = scalar.entry();
    for (Block bl : scalar.blocks()) {
      for (Value i : bl.instructions()) {
        Opcode op = i.opcode();
        if (op == Opcode.STORE && locals && !i.isVolatile() && !i.isAtomic() && writesOnlyPrivateVariables(i.operand(1), first)) continue;
        if (op == Opcode.STORE || op == Opcode.ATOMICRMW || op == Opcode.ATOMICCMPXCHG || op == Opcode.FENCE || op == Opcode.VAARG
            || op == Opcode.INVOKE || op == Opcode.CALLBR || (op == Opcode.LOAD && (i.isVolatile() || i.isAtomic()))) {
          return Optional.of("it writes memory or synchronizes");
        }
        if (op == Opcode.ALLOCA && !(locals && bl.equals(first) && i.operand(0).isConstant())) return Optional.of("it has private variables");
        if (op != Opcode.CALL || pure.test(i)) continue;
        String callee = i.calledFunction().map(Function::name).orElse("");
        if (PureCalls.readOnlyIntrinsic(callee)) continue;
        // memset / memcpy / memmove into the function's own variables (clang initializes local arrays so)
        if (locals && (callee.startsWith("llvm.memset.") || callee.startsWith("llvm.memcpy.") || callee.startsWith("llvm.memmove."))
            && i.numOperands() >= 5 && i.operand(3).isConstantInt() && i.operand(3).constIntZExt() == 0
            && writesOnlyPrivateVariables(i.operand(0), first)) {
          continue;
        }
        return Optional.of("it calls a function that may write memory");
      }
    }
    return Optional.empty();
  }

  /**
   * Knob {@code -Dpacketizer.sizeLanesMasked=false}: masked packet functions keep their packetized body however
   * large; by default they take the lane loop too, an inactive lane skipping the scalar code (its result lane 0).
   * Read at each use.
   */
  static boolean maskedLanes() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.sizeLanesMasked", "true").trim());
  }

  /** Knob {@code -Dpacketizer.sizeLanesLocals=false}: see {@link #writesOnlyPrivateVariables}. Read at each use. */
  static boolean privateVariables() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.sizeLanesLocals", "true").trim());
  }

  /**
   * Whether every address {@code ptr} can be is inside a static {@code alloca}: with knob {@code
   * -Dpacketizer.sizeLanesLocals=false} only functions that do not write memory at all take the lane loop; by
   * default also functions whose only writes are to their own static private variables, which running the lanes
   * one after the other cannot make differ (a lane that reads one before writing it reads an undefined value in
   * the scalar function too).
   *
   * <p>Whether every address {@code ptr} can be is inside a static {@code alloca} of the function's entry block
   * {@code entry}: through GEPs, casts, phis and selects to allocas only.
   */
  static boolean writesOnlyPrivateVariables(Value ptr, Block entry) {
    ArrayDeque<Value> todo = new ArrayDeque<>(List.of(ptr));
    Set<Value> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      Value v = todo.pop();
      if (!seen.add(v)) continue;
      if (!v.isInstruction()) return false;
      switch (v.opcode()) {
        case ALLOCA -> {
          if (!v.block().map(entry::equals).orElse(false) || !v.operand(0).isConstant()) return false;
        }
        case GEP, BITCAST, ADDRSPACECAST -> todo.push(v.operand(0));
        case SELECT -> {
          todo.push(v.operand(1));
          todo.push(v.operand(2));
        }
        case PHI -> {
          for (int k = 0; k < v.numOperands(); k++) todo.push(v.operand(k));
        }
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The body of the new, empty {@code packet}: the loop over the lanes running the scalar function's
   * body (a private copy, {@code __packetizer.lanes.NAME}, called and inlined, then deleted), the argument
   * and result packets carried in registers ({@link Layout}, {@link Result}); with a mask parameter (the last),
   * lane k's bit decides whether lane k runs.
   */
  static void emit(LlvmModule module, Function scalar, Function packet, List<ParamKind> kinds, int w) {
    Function copy = FunctionCloner.cloneInModule(module, scalar, "__packetizer.lanes." + scalar.name());
    for (String k : new ArrayList<>(copy.stringAttributes().keySet())) {
      if (k.startsWith("_ZGV")) copy.removeStringAttribute(k);
    }
    for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
      if (scalar.hasEnumAttribute(attr)) copy.addEnumAttribute(attr);
    }
    var ctx = module.context();
    Type i64 = ctx.i64();
    Type rt = scalar.returnType();
    try (IrBuilder b = new IrBuilder(ctx)) {
      Block entry = packet.appendBlock("entry");
      Block loop = packet.appendBlock("lanes");
      Block done = packet.appendBlock("lanes.done");
      b.atEnd(entry);
      Layout layout = Layout.args();
      Result result = rt.isVoid() ? null : Result.knob();
      List<Value> slots = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value p = packet.param(i);
        p.setName(scalar.param(i).name());
        if (kinds.get(i) instanceof ParamKind.Varying && layout == Layout.MEMORY_ARGS) {
          Value slot = b.alloca(p.type(), p.name() + ".lanes");
          // (element-aligned: a vector-aligned slot makes the function realign its stack frame)
          slot.setAlignment(elementAlign(module, scalar.param(i).type()));
          b.store(p, slot, elementAlign(module, scalar.param(i).type()));
          slots.add(slot);
        } else {
          slots.add(null);
        }
      }
      Value results = null;
      if (result == Result.MEMORY) {
        results = b.alloca(rt.vectorOf(w), "result.lanes");
        results.setAlignment(elementAlign(module, rt));
      }
      // <1, 2, ..., W-1, W>: a packet's lanes moved down by one, the top lane taken from the second operand's lane 0
      List<Value> down = new ArrayList<>();
      for (int j = 1; j <= w; j++) down.add(b.i32(j));
      Value shiftIn = b.constVector(down);
      down.set(w - 1, b.poison(ctx.i32()));
      Value shiftDown = b.constVector(down);
      // masked: the mask's bits as an integer, lane k's bit tested in the loop
      boolean masked = packet.paramCount() == scalar.paramCount() + 1;
      Value maskBits = null;
      if (masked) {
        Value m = packet.param(scalar.paramCount());
        m.setName("mask");
        maskBits = b.cast(Opcode.ZEXT, b.cast(Opcode.BITCAST, m, ctx.intType(w), "mask.bits"), i64, "");
      }
      b.br(loop);
      b.atEnd(loop);
      Value k = b.phi(i64, "lane");
      // Arguments: the stack slot (stored once, lane k loaded) is a store-forwarding stall per call on CPUs that do
      // not forward a vector store to narrower loads at an offset (znver4: 2.32 against 1.72 ns per lane in a C model
      // of stencil's loop); rotating the packet costs one shuffle per lane and argument and no memory.
      // Results: inserted at a variable index, a broadcast, a compare and a blend per lane; stored to a stack array,
      // one store per lane and a reload whose forwarding fails once per call; shifted in, one shuffle per lane.
      // (the phis first: the packets carried through the loop)
      List<Value> carried = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        boolean rotated = kinds.get(i) instanceof ParamKind.Varying && slots.get(i) == null;
        carried.add(rotated ? b.phi(packet.param(i).type(), packet.param(i).name() + ".rest") : null);
      }
      Value acc = result == Result.SHIFT || result == Result.INSERT ? b.phi(rt.vectorOf(w), "result.lanes") : null;
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value p = packet.param(i);
        Value s = slots.get(i);
        Value rot = carried.get(i);
        if (rot != null) args.add(b.extractElement(rot, 0, p.name() + ".lane"));
        else if (s != null) args.add(b.load(scalar.param(i).type(), b.gep(p.type(), s, List.of(b.i64(0), k), true, ""), ""));
        else args.add(p);
      }
      List<Value> rotNext = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value rot = carried.get(i);
        rotNext.add(rot == null ? null : b.shuffle(rot, b.poison(rot.type()), shiftDown, packet.param(i).name() + ".next"));
      }
      Value r;
      if (maskBits == null) {
        r = b.call(copy, args, "");
      } else {
        // masked: an inactive lane does not run the scalar code (its result lane is zero)
        Block run = packet.appendBlock("lane.active");
        Block latchBlock = packet.appendBlock("lane.next");
        Value bit = b.cast(Opcode.TRUNC, b.binop(Opcode.LSHR, maskBits, k, ""), ctx.i1(), "lane.on");
        b.condBr(bit, run, latchBlock);
        Block header = b.currentBlock();
        b.atEnd(run);
        Value called = b.call(copy, args, "");
        b.br(latchBlock);
        Block ran = b.currentBlock();
        b.atEnd(latchBlock);
        if (rt.isVoid()) {
          r = null;
        } else {
          r = b.phi(rt, "lane.result");
          r.addIncoming(called, ran);
          r.addIncoming(b.constNull(rt), header);
        }
      }
      Value accNext = null;
      if (result == Result.INSERT) {
        accNext = b.insertElement(acc, r, k, "result.lane");
      } else if (result == Result.SHIFT) {
        accNext = b.shuffle(acc, b.insertElement(b.poison(rt.vectorOf(w)), r, 0, ""), shiftIn, "result.lane");
      } else if (result == Result.MEMORY) {
        b.store(r, b.gep(rt.vectorOf(w), results, List.of(b.i64(0), k), true, ""), elementAlign(module, rt));
      }
      Value next = b.add(k, b.i64(1), "");
      b.condBr(b.icmpNe(next, b.i64(w), ""), loop, done);
      Block latch = b.currentBlock();
      k.addIncoming(b.i64(0), entry);
      k.addIncoming(next, latch);
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value rot = carried.get(i);
        if (rot == null) continue;
        rot.addIncoming(packet.param(i), entry);
        rot.addIncoming(rotNext.get(i), latch);
      }
      if (acc != null) {
        acc.addIncoming(b.poison(rt.vectorOf(w)), entry);
        acc.addIncoming(accNext, latch);
      }
      b.atEnd(done);
      if (rt.isVoid()) {
        b.retVoid();
      } else if (result == Result.MEMORY) {
        Value all = b.load(rt.vectorOf(w), results, "result");
        all.setAlignment(elementAlign(module, rt));
        b.ret(all);
      } else {
        b.ret(accNext);
      }
    }
    // the copy's body in the loop (a call would cost a call's spills and vzeroupper per lane)
    String name = copy.name();
    org.packetizer.core.driver.RefillDriver.inline(module, List.of(copy));
    // (the always-inline pass deletes the internal copy once it has no calls left)
    module.function(name).filter(f -> !f.hasUses()).ifPresent(Function::delete);
  }
}
