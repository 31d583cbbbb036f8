package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies a function's body into a new function of the same module (LLVM's C API has no
 * CloneFunction): blocks, instructions with their flags and attributes ({@code LLVMInstructionClone}),
 * operands remapped from the old arguments, blocks and instructions to the new ones, phis rebuilt.
 */
public final class FunctionCloner {
  private FunctionCloner() {}

  /** Clones {@code f} into a new function named {@code newName} with the same type and attributes. */
  public static Function cloneInModule(LlvmModule m, Function f, String newName) {
    Function g = m.addFunction(newName, f.functionType());
    g.setLinkage(LLVMInternalLinkage);
    g.setCallingConvention(f.callingConvention());
    for (var e : f.stringAttributes().entrySet()) g.setStringAttribute(e.getKey(), e.getValue());
    Map<Value, Value> vmap = new HashMap<>();
    Map<Block, Block> bmap = new HashMap<>();
    for (int i = 0; i < f.paramCount(); i++) {
      vmap.put(f.param(i), g.param(i));
      g.param(i).setName(f.param(i).name());
    }
    List<Block> blocks = f.blocks();
    for (Block b : blocks) {
      Block nb = g.appendBlock("");
      nb.copyNameFrom(b);  // (native to native with the binding on: no Java string per name)
      bmap.put(b, nb);
      vmap.put(b.asValue(), nb.asValue());
    }
    LlvmContext ctx = m.context();
    try (IrBuilder builder = new IrBuilder(ctx)) {
      for (Block b : blocks) {
        builder.atEnd(bmap.get(b));
        for (Value inst : b.instructions()) {
          Value copy;
          if (inst.opcode() == Opcode.PHI) {
            copy = builder.phi(inst.type(), "");
          } else {
            copy = builder.insertClone(inst, "");  // (through Ffm when it is on)
          }
          copy.copyNameFrom(inst);
          vmap.put(inst, copy);
        }
      }
    }
    for (Block b : blocks) {
      for (Value inst : b.instructions()) {
        Value copy = vmap.get(inst);
        if (inst.opcode() == Opcode.PHI) {
          for (int i = 0; i < inst.incomingCount(); i++) {
            Value in = inst.incomingValue(i);
            copy.addIncoming(vmap.getOrDefault(in, in), bmap.get(inst.incomingBlock(i)));
          }
          continue;
        }
        int n = copy.numOperands();
        for (int i = 0; i < n; i++) {
          Value op = copy.operand(i);
          if (op == null) continue;
          Value mapped = vmap.get(op);
          if (mapped != null) copy.setOperand(i, mapped);
        }
      }
    }
    return g;
  }
}
