package org.packetizer.core.bench;

import static org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile;
import static org.bytedeco.llvm.global.LLVM.LLVMDisposeMemoryBuffer;
import static org.bytedeco.llvm.global.LLVM.LLVMGetBufferSize;
import static org.bytedeco.llvm.global.LLVM.LLVMGetBufferStart;
import static org.bytedeco.llvm.global.LLVM.LLVMTargetMachineEmitToMemoryBuffer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.global.LLVM;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;

/**
 * Machine-code size of functions, as the bundled LLVM compiles them for a CPU: the code-growth
 * figure users feel (instruction cache, binary size), next to the IR instruction counts.
 */
final class MachineCode {
  private MachineCode() {}

  /**
   * Compiles a copy of {@code module} for {@code cpu} (host triple, -O3 code generation) into
   * assembly text; the module itself is left as it was.
   */
  static String assembly(LlvmModule module, String cpu) {
    Llvm.init();
    try (TargetMachine tm = TargetMachine.create(Llvm.hostTriple(), cpu, ""); LlvmModule copy = module.cloneModule()) {
      copy.setTargetTriple(tm.triple());
      copy.setDataLayout(tm.dataLayout());
      BytePointer err = new BytePointer((Pointer) null);
      LLVMMemoryBufferRef buf = new LLVMMemoryBufferRef();
      if (LLVMTargetMachineEmitToMemoryBuffer(tm.ref(), copy.ref(), LLVMAssemblyFile, err, buf) != 0) {
        String m = err.isNull() ? "" : err.getString();
        if (!err.isNull()) LLVM.LLVMDisposeMessage(err);
        throw new IllegalStateException("cannot compile to assembly for " + cpu + ": " + m);
      }
      try {
        BytePointer start = LLVMGetBufferStart(buf);
        long n = LLVMGetBufferSize(buf);
        byte[] bytes = new byte[(int) n];
        start.capacity(n).get(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
      } finally {
        LLVMDisposeMemoryBuffer(buf);
      }
    }
  }

  /** Machine instructions of each of {@code functions} in {@code module} compiled for {@code cpu}. */
  static Map<String, Integer> count(LlvmModule module, String cpu, List<String> functions) {
    String asm = assembly(module, cpu);
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String f : functions) out.put(f, countInstructions(asm, f));
    return out;
  }

  /**
   * Instructions in the body of {@code function} in GNU assembly text (AT&T x86 as llc writes it):
   * the lines from the function's label up to its {@code .Lfunc_end} label or {@code .size}
   * directive, without comments ({@code #} to the end of the line), labels and directives.
   *
   * @throws IllegalArgumentException when the text has no such function
   */
  static int countInstructions(String asm, String function) {
    boolean in = false;
    int n = 0;
    for (String raw : asm.split("\n", -1)) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
      if (!in) {
        if (line.equals(function + ":") || line.equals("\"" + function + "\":")) in = true;
        continue;
      }
      if (line.isEmpty()) continue;
      if (line.startsWith(".Lfunc_end") || line.startsWith(".size")) return n;
      if (line.endsWith(":")) continue; // a label
      if (line.startsWith(".")) continue; // a directive
      n++;
    }
    if (!in) throw new IllegalArgumentException("no function " + function + " in the assembly");
    return n;
  }
}
