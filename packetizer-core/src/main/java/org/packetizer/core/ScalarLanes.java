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
 * arguments (the varying arguments stored once and lane k's loaded, the result inserted at lane k of a packet
 * carried through the loop). Its machine code is the scalar function's plus about 15 instructions, at every
 * width; its speed is about the scalar function's. It replaces the packetized body when that is larger
 * than {@link #budget()} times the scalar function in machine instructions (each counted with the
 * module's functions it calls, as the benchmark's {@code asm} column counts them): the code-growth goal of issue 16 as a rule of
 * the size mode, as a C compiler's {@code -Os} leaves a loop unvectorized when vectorizing grows it.
 *
 * <p>Exact: each lane runs the scalar function on its own arguments, as the packet function's contract
 * says. Only for functions that do not write memory (no store, no call that may write; reads only), so
 * that running the lanes one after another cannot differ from running them side by side, with
 * uniform and varying parameters of scalar types and a scalar or void result, and no mask, scalable
 * packets, array driver or lane refill. Knob {@code -Dpacketizer.sizeScalarLanes=false} keeps the
 * packetized body whatever its size; {@code -Dpacketizer.sizeBudget=X} sets the budget (default 2.5).
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

  /** Why the rule cannot apply to {@code scalar} with these options and kinds, or empty when it can. */
  static Optional<String> refusal(PacketizerOptions o, Function scalar, Function packet, List<ParamKind> kinds, int w) {
    if (o.scalable() || o.lanesMayBeRetyped() || o.masked() || o.arrayDriver().isPresent() || w < 2) {
      return Optional.of("scalable, masked or driven packet function");
    }
    Type ft = packet.functionType();
    if (packet.paramCount() != scalar.paramCount() || kinds.size() != scalar.paramCount()) return Optional.of("signature");
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
    for (Block bl : scalar.blocks()) {
      for (Value i : bl.instructions()) {
        Opcode op = i.opcode();
        if (op == Opcode.STORE || op == Opcode.ATOMICRMW || op == Opcode.ATOMICCMPXCHG || op == Opcode.FENCE || op == Opcode.VAARG
            || op == Opcode.INVOKE || op == Opcode.CALLBR || (op == Opcode.LOAD && (i.isVolatile() || i.isAtomic()))) {
          return Optional.of("it writes memory or synchronizes");
        }
        if (op == Opcode.ALLOCA) return Optional.of("it has private variables");
        if (op == Opcode.CALL && !pure.test(i) && !PureCalls.readOnlyIntrinsic(i.calledFunction().map(Function::name).orElse(""))) return Optional.of("it calls a function that may write memory");
      }
    }
    return Optional.empty();
  }

  /**
   * The body of the new, empty {@code packet}: the loop over the lanes running the scalar function's
   * body (a private copy, {@code __packetizer.lanes.NAME}, called and inlined, then deleted), the result
   * packet carried in a register.
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
      List<Value> slots = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value p = packet.param(i);
        p.setName(scalar.param(i).name());
        if (kinds.get(i) instanceof ParamKind.Varying) {
          Value slot = b.alloca(p.type(), p.name() + ".lanes");
          b.store(p, slot);
          slots.add(slot);
        } else {
          slots.add(null);
        }
      }
      b.br(loop);
      b.atEnd(loop);
      Value k = b.phi(i64, "lane");
      // (the result packet in a register, lane k inserted at the variable index: a broadcast, a compare and a
      // blend per lane; stored lane by lane and loaded as a vector it failed store forwarding once per call)
      Value acc = rt.isVoid() ? null : b.phi(rt.vectorOf(w), "result.lanes");
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < scalar.paramCount(); i++) {
        Value p = packet.param(i);
        Value s = slots.get(i);
        args.add(s == null ? p : b.load(scalar.param(i).type(), b.gep(p.type(), s, List.of(b.i64(0), k), true, ""), ""));
      }
      Value r = b.call(copy, args, "");
      Value accNext = acc == null ? null : b.insertElement(acc, r, k, "result.lane");
      Value next = b.add(k, b.i64(1), "");
      b.condBr(b.icmpNe(next, b.i64(w), ""), loop, done);
      Block latch = b.currentBlock();
      k.addIncoming(b.i64(0), entry);
      k.addIncoming(next, latch);
      if (acc != null) {
        acc.addIncoming(b.poison(rt.vectorOf(w)), entry);
        acc.addIncoming(accNext, latch);
      }
      b.atEnd(done);
      if (acc == null) b.retVoid();
      else b.ret(accNext);
    }
    // the copy's body in the loop (a call would cost a call's spills and vzeroupper per lane)
    String name = copy.name();
    org.packetizer.core.driver.RefillDriver.inline(module, List.of(copy));
    // (the always-inline pass deletes the internal copy once it has no calls left)
    module.function(name).filter(f -> !f.hasUses()).ifPresent(Function::delete);
  }
}
