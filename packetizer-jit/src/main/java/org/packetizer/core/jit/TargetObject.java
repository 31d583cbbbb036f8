package org.packetizer.core.jit;

import static org.bytedeco.llvm.global.LLVM.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;

/**
 * Ahead-of-time counterpart of {@link Jit} for targets the host cannot run (AArch64, RISC-V): compiles
 * functions of a module, together with their trampolines {@code void __pk_tramp_<i>(ptr args, ptr
 * result)} (the same trampolines and argument memory layout as {@link JitFunction#invoke}), into an
 * object file for a target machine. A launcher linked with the object calls the trampolines, e.g. under
 * qemu.
 */
public final class TargetObject {
  private TargetObject() {}

  /** Prefix of the trampoline symbols in the object: {@code __pk_tramp_0}, {@code __pk_tramp_1}, ... */
  public static final String TRAMPOLINE_PREFIX = "__pk_tramp_";

  /**
   * How to call one compiled function through its trampoline: argument i at {@code args + i *
   * slotSize}, in the memory representation of its {@link JitType}; the result at {@code result}.
   */
  public record Callable(String name, String trampoline, List<JitType> paramTypes, JitType returnType, long slotSize) {
    public Callable {
      paramTypes = List.copyOf(paramTypes);
    }

    public long argsSize() { return (long) paramTypes.size() * slotSize; }

    public long resultSize() { return returnType.size(); }
  }

  /**
   * Compiles {@code functions} of {@code module} (a copy: the module is untouched; functions nothing
   * reachable from them uses are dropped) and their trampolines into {@code object} for {@code tm}.
   * The module's triple and data layout become the target machine's.
   *
   * @return one callable per function, in order; trampoline i is {@code __pk_tramp_<i>}
   * @throws UnsupportedOperationException when a function cannot be called through a trampoline
   */
  public static List<Callable> emit(LlvmModule module, List<String> functions, TargetMachine tm, Path object) {
    Llvm.init();
    List<Callable> out = new ArrayList<>();
    try (LlvmModule copy = module.cloneModule()) {
      copy.setTargetTriple(tm.triple());
      copy.setDataLayout(tm.dataLayout());
      copy.deleteUnreferencedFunctions(Set.copyOf(functions));
      List<LlvmModule> trampolines = new ArrayList<>();
      try {
        for (int i = 0; i < functions.size(); i++) {
          String name = functions.get(i);
          Function f = copy.function(name).orElseThrow(() -> new IllegalArgumentException("no function @" + name));
          if (f.isDeclaration()) throw new IllegalArgumentException("@" + name + " is only declared");
          f.setLinkage(LLVMExternalLinkage);
          LLVMSetVisibility(f.ref(), LLVMDefaultVisibility);
          Signature sig;
          try {
            sig = Signature.of(f, copy);
          } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException("@" + name + " cannot be called through a trampoline: " + e.getMessage(), e);
          }
          LlvmModule t = Trampolines.build(sig, copy.context(), tm.triple(), tm.dataLayout());
          trampolines.add(t);
          t.function(Trampolines.trampolineName(name)).orElseThrow().setName(TRAMPOLINE_PREFIX + i);
          out.add(new Callable(name, TRAMPOLINE_PREFIX + i, sig.paramTypes(), sig.returnType(), sig.slotSize()));
        }
        for (LlvmModule t : trampolines) {
          copy.linkIn(t);
        }
        trampolines.clear();
      } finally {
        for (LlvmModule t : trampolines) t.close();
      }
      copy.verify().ifPresent(msg -> {
        throw new LlvmException("internal error: the module for " + tm.triple() + " is invalid: " + msg);
      });
      BytePointer err = new BytePointer((Pointer) null);
      try (BytePointer file = new BytePointer(object.toString())) {
        if (LLVMTargetMachineEmitToFile(tm.ref(), copy.ref(), file, LLVMObjectFile, err) != 0) {
          throw new LlvmException("cannot compile for " + tm.triple() + " (cpu " + tm.cpu() + ", features '" + tm.features()
              + "'): " + Llvm.takeMessage(err));
        }
      }
    }
    return out;
  }

  /** Compiles all of {@code module} (a copy, given the target machine's triple and data layout) into {@code object}. */
  public static void emitModule(LlvmModule module, TargetMachine tm, Path object) {
    Llvm.init();
    try (LlvmModule copy = module.cloneModule()) {
      copy.setTargetTriple(tm.triple());
      copy.setDataLayout(tm.dataLayout());
      BytePointer err = new BytePointer((Pointer) null);
      try (BytePointer file = new BytePointer(object.toString())) {
        if (LLVMTargetMachineEmitToFile(tm.ref(), copy.ref(), file, LLVMObjectFile, err) != 0) {
          throw new LlvmException("cannot compile for " + tm.triple() + ": " + Llvm.takeMessage(err));
        }
      }
    }
  }
}
