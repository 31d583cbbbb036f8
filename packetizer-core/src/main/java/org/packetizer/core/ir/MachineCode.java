package org.packetizer.core.ir;

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
import org.bytedeco.llvm.LLVM.LLVMTargetDataRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;
import org.bytedeco.llvm.global.LLVM;

/**
 * Machine-code size of functions, as the bundled LLVM compiles them for a CPU: the code-growth
 * figure users feel (instruction cache, binary size), next to the IR instruction counts. A
 * function's count includes the module's functions it calls (a width-splitting wrapper's halves).
 * Used by the benchmark's {@code asm} column and by the size mode's code-growth rule
 * ({@code org.packetizer.core.ScalarLanes}).
 */
public final class MachineCode {
  private MachineCode() {}

  /**
   * Compiles a copy of {@code module} for {@code cpu} into assembly text as {@code llc -O3 -mcpu=CPU}
   * does (host triple, default relocation model and small code model, unlike the JIT's target
   * machine, whose large code model would count extra address arithmetic); the module itself is
   * left as it was.
   */
  public static String assembly(LlvmModule module, String cpu) {
    Llvm.init();
    return assembly(module, Llvm.hostTriple(), cpu, "");
  }

  /** {@link #assembly(LlvmModule, String)} for {@code triple} and target features {@code features}. */
  public static String assembly(LlvmModule module, String triple, String cpu, String features) {
    Llvm.init();
    LLVMTargetRef target = new LLVMTargetRef();
    BytePointer err = new BytePointer((Pointer) null);
    if (LLVM.LLVMGetTargetFromTriple(new BytePointer(triple), target, err) != 0) {
      throw new IllegalStateException("no target for " + triple + ": " + message(err));
    }
    LLVMTargetMachineRef tm = LLVM.LLVMCreateTargetMachine(target, triple, cpu, features, LLVM.LLVMCodeGenLevelAggressive,
        LLVM.LLVMRelocDefault, LLVM.LLVMCodeModelDefault);
    if (tm == null || tm.isNull()) throw new IllegalStateException("cannot create a target machine for " + cpu);
    try (LlvmModule copy = module.cloneModule()) {
      copy.setTargetTriple(triple);
      LLVMTargetDataRef td = LLVM.LLVMCreateTargetDataLayout(tm);
      try {
        LLVM.LLVMSetModuleDataLayout(copy.ref(), td);
      } finally {
        LLVM.LLVMDisposeTargetData(td);
      }
      LLVMMemoryBufferRef buf = new LLVMMemoryBufferRef();
      if (LLVMTargetMachineEmitToMemoryBuffer(tm, copy.ref(), LLVMAssemblyFile, err, buf) != 0) {
        throw new IllegalStateException("cannot compile to assembly for " + cpu + ": " + message(err));
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
    } finally {
      LLVM.LLVMDisposeTargetMachine(tm);
    }
  }

  private static String message(BytePointer err) {
    if (err.isNull()) return "";
    String m = err.getString();
    LLVM.LLVMDisposeMessage(err);
    return m;
  }

  /**
   * Machine instructions of each of {@code functions} in {@code module} compiled for {@code cpu},
   * each with the functions defined in the module that it calls or jumps to (transitively, e.g. the
   * halves behind a width-splitting wrapper or a static helper), other than the other roots.
   */
  public static Map<String, Integer> count(LlvmModule module, String cpu, List<String> functions) {
    return count(assembly(module, cpu), functions);
  }

  /** {@link #count(LlvmModule, String, List)} on assembly text already made. */
  public static Map<String, Integer> count(String asm, List<String> functions) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String f : functions) {
      java.util.Set<String> seen = new java.util.LinkedHashSet<>();
      java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(List.of(f));
      int n = 0;
      while (!todo.isEmpty()) {
        String g = todo.pop();
        if (!seen.add(g)) continue;
        n += countInstructions(asm, g);
        for (String callee : callees(asm, g)) {
          if (!functions.contains(callee) && definesFunction(asm, callee)) todo.push(callee);
        }
      }
      out.put(f, n);
    }
    return out;
  }

  /** Whether the assembly text defines {@code function}. */
  public static boolean definesFunction(String asm, String function) {
    return asm.contains("\n" + function + ":") || asm.contains("\n\"" + function + "\":");
  }

  /** Symbols {@code function} calls or jumps to (not local {@code .L} labels). */
  public static List<String> callees(String asm, String function) {
    List<String> out = new java.util.ArrayList<>();
    for (String line : body(asm, function)) {
      String[] parts = line.split("\\s+", 2);
      if (parts.length < 2 || !(parts[0].startsWith("call") || parts[0].startsWith("j"))) continue;
      String target = parts[1].strip();
      int at = target.indexOf('@');
      if (at > 0) target = target.substring(0, at); // foo@PLT
      if (target.startsWith("\"") && target.endsWith("\"")) target = target.substring(1, target.length() - 1);
      if (!target.startsWith(".") && !target.startsWith("*") && !target.startsWith("$")) out.add(target);
    }
    return out;
  }

  /**
   * Instructions in the body of {@code function} in GNU assembly text (AT&T x86 as llc writes it):
   * the lines from the function's label up to its {@code .Lfunc_end} label or {@code .size}
   * directive, without comments ({@code #} to the end of the line), labels and directives.
   *
   * @throws IllegalArgumentException when the text has no such function
   */
  public static int countInstructions(String asm, String function) {
    return body(asm, function).size();
  }

  /** The instruction lines of {@code function} (comments stripped). */
  private static List<String> body(String asm, String function) {
    boolean in = false;
    List<String> out = new java.util.ArrayList<>();
    for (String raw : asm.split("\n", -1)) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
      if (!in) {
        if (line.equals(function + ":") || line.equals("\"" + function + "\":")) in = true;
        continue;
      }
      if (line.isEmpty()) continue;
      if (line.startsWith(".Lfunc_end") || line.startsWith(".size")) return out;
      if (line.endsWith(":")) continue; // a label
      if (line.startsWith(".")) continue; // a directive
      out.add(line);
    }
    if (!in) throw new IllegalArgumentException("no function " + function + " in the assembly");
    return out;
  }
}
