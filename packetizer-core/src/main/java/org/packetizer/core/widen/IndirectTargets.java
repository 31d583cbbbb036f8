package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * The functions an indirect call may reach and that may have a packet version: the entries of the
 * constant table the callee is loaded from (clang's {@code static} function-pointer tables), else the
 * functions of the module whose address is taken (used other than as the callee of a direct call) and
 * whose type is the call's function type. The emitter compares each lane's target with them at run time; a lane
 * whose target is none of them (or one without a packet version) is called as a scalar.
 */
public final class IndirectTargets {
  /** At most this many candidates are tested per call site (the rest are called lane by lane). */
  public static final int MAX_CANDIDATES = 16;

  private IndirectTargets() {}

  /**
   * The candidates for {@code call}: when its callee is loaded from a constant table (a constant
   * global array or struct, clang's {@code static} function-pointer tables), the functions of the
   * table; else every address-taken function of the call's type.
   */
  public static List<Function> candidates(LlvmModule m, Value call) {
    Type fnType = call.calledFunctionType();
    Optional<List<Function>> table = tableOf(call.calledOperand(), fnType);
    return table.orElseGet(() -> candidates(m, fnType));
  }

  private static Optional<List<Function>> tableOf(Value callee, Type fnType) {
    if (!callee.isInstruction() || callee.opcode() != Opcode.LOAD) return Optional.empty();
    Value p = callee.operand(0);
    while ((p.isInstruction() || p.isConstantExpr()) && p.opcode() == Opcode.GEP) p = p.operand(0);
    if (!p.isGlobalConstant()) return Optional.empty();
    Optional<Value> init = p.initializer();
    if (init.isEmpty()) return Optional.empty();
    Set<Function> out = new LinkedHashSet<>();
    collect(init.get(), fnType, out);
    if (out.size() > MAX_CANDIDATES) return Optional.empty();
    return Optional.of(new ArrayList<>(out));
  }

  private static void collect(Value c, Type fnType, Set<Function> out) {
    if (c.isFunction()) {
      Function f = Function.of(c.ref());
      if (!f.isVarArg() && f.functionType().equals(fnType)) out.add(f);
      return;
    }
    if (c.isGlobalValue()) return;
    for (int i = 0; i < c.numOperands(); i++) {
      Value o = c.operand(i);
      if (o != null && o.isConstant()) collect(o, fnType, out);
    }
  }

  public static List<Function> candidates(LlvmModule m, Type fnType) {
    List<Function> out = new ArrayList<>();
    for (Function f : m.functions()) {
      if (out.size() == MAX_CANDIDATES) break;
      if (f.isVarArg() || f.name().startsWith("llvm.") || !f.functionType().equals(fnType)) continue;
      if (addressTaken(f)) out.add(f);
    }
    return out;
  }

  static boolean addressTaken(Function f) {
    for (Value u : f.users()) {
      if (u.isInstruction() && u.opcode() == Opcode.CALL && u.calledOperand().equals(f)) {
        // a direct call; the function may still be passed as an argument of the same call
        boolean asArg = false;
        for (int i = 0; i < u.numArgOperands(); i++) asArg |= u.operand(i).equals(f);
        if (!asArg) continue;
      }
      return true;
    }
    return false;
  }
}
