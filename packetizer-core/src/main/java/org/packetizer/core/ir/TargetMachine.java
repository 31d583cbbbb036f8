package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;

/** A target machine for a triple, CPU and feature string (owned; close it). */
public final class TargetMachine implements AutoCloseable {
  private LLVMTargetMachineRef ref;
  private final String triple, cpu, features;

  private TargetMachine(LLVMTargetMachineRef ref, String triple, String cpu, String features) {
    this.ref = ref;
    this.triple = triple;
    this.cpu = cpu;
    this.features = features;
  }

  /** For the host: its triple, CPU name and features. */
  public static TargetMachine host() {
    Llvm.init();
    return create(Llvm.hostTriple(), Llvm.hostCpuName(), Llvm.hostCpuFeatures());
  }

  public static TargetMachine create(String triple, String cpu, String features) {
    Llvm.init();
    LLVMTargetRef target = new LLVMTargetRef();
    BytePointer err = new BytePointer((Pointer) null);
    try (BytePointer t = new BytePointer(triple)) {
      if (LLVMGetTargetFromTriple(t, target, err) != 0) {
        throw new LlvmException("no target for triple '" + triple + "': " + Llvm.takeMessage(err));
      }
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features,
        LLVMCodeGenLevelAggressive, LLVMRelocPIC, LLVMCodeModelJITDefault);
    if (tm == null || tm.isNull()) throw new LlvmException("cannot create target machine for " + triple + " / " + cpu);
    return new TargetMachine(tm, triple, cpu, features);
  }

  public LLVMTargetMachineRef ref() {
    if (ref == null) throw new IllegalStateException("target machine is closed");
    return ref;
  }

  public String triple() { return triple; }
  public String cpu() { return cpu; }
  public String features() { return features; }

  /** The data layout string of this target. */
  public String dataLayout() {
    var td = LLVMCreateTargetDataLayout(ref());
    try {
      return Llvm.takeMessage(LLVMCopyStringRepOfTargetData(td));
    } finally {
      LLVMDisposeTargetData(td);
    }
  }

  /**
   * Gives up ownership of the native target machine (e.g. to an ORC JITTargetMachineBuilder, which
   * takes it over); this object becomes unusable and {@link #close()} does nothing.
   */
  public LLVMTargetMachineRef release() {
    LLVMTargetMachineRef r = ref();
    ref = null;
    return r;
  }

  @Override
  public void close() {
    if (ref != null) LLVMDisposeTargetMachine(ref);
    ref = null;
  }
}
