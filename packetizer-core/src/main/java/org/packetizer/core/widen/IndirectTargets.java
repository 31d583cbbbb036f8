package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Module;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * The functions an indirect call may reach and that may have a packet version: functions of the
 * module whose address is taken (used other than as the callee of a direct call) and whose type is
 * the call's function type. The emitter compares each lane's target with them at run time; a lane
 * whose target is none of them (or one without a packet version) is called as a scalar.
 */
public final class IndirectTargets {
  /** At most this many candidates are tested per call site (the rest are called lane by lane). */
  public static final int MAX_CANDIDATES = 16;

  private IndirectTargets() {}

  public static List<Function> candidates(Module m, Type fnType) {
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
      if (u.isInstruction() && u.opcode() == org.packetizer.core.ir.Opcode.CALL && u.calledOperand().equals(f)) {
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
