package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;

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
    // keyed by native address (issue 16: HashMap<Value, Value> puts were 2 % of a 20k-instruction
    // packetization, the growing table's resizing most of it); lists keep every order
    List<Block> blocks = f.blocks();
    AddressMap<Value> vmap = new AddressMap<>(blocks.size() * 8);
    AddressMap<Block> bmap = new AddressMap<>(blocks.size());
    for (int i = 0; i < f.paramCount(); i++) {
      vmap.put(f.param(i).id(), g.param(i));
      g.param(i).setName(f.param(i).name());
    }
    for (Block b : blocks) {
      Block nb = g.appendBlock("");
      nb.copyNameFrom(b);  // (native to native with the binding on: no Java string per name)
      bmap.put(b.id(), nb);
      vmap.put(b.asValue().id(), nb.asValue());
    }
    LlvmContext ctx = m.context();
    try (IrBuilder builder = new IrBuilder(ctx)) {
      for (Block b : blocks) {
        builder.atEnd(bmap.get(b.id()));
        for (Value inst : b.instructions()) {
          Value copy;
          if (inst.opcode() == Opcode.PHI) {
            copy = builder.phi(inst.type(), "");
          } else {
            copy = builder.insertClone(inst, "");  // (through Ffm when it is on)
          }
          copy.copyNameFrom(inst);
          vmap.put(inst.id(), copy);
        }
      }
    }
    for (Block b : blocks) {
      for (Value inst : b.instructions()) {
        Value copy = vmap.get(inst.id());
        if (inst.opcode() == Opcode.PHI) {
          for (int i = 0; i < inst.incomingCount(); i++) {
            Value in = inst.incomingValue(i);
            Value mappedIn = vmap.get(in.id());
            copy.addIncoming(mappedIn != null ? mappedIn : in, bmap.get(inst.incomingBlock(i).id()));
          }
          continue;
        }
        int n = copy.numOperands();
        for (int i = 0; i < n; i++) {
          Value op = copy.operand(i);
          if (op == null) continue;
          Value mapped = vmap.get(op.id());
          if (mapped != null) copy.setOperand(i, mapped);
        }
      }
    }
    return g;
  }
}
