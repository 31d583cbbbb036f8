package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Test;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@link Value}'s classification ({@code isInstruction}, {@code isFunction}, ..., {@code opcode}) reads
 * LLVM's value kind (one int per JNI call) instead of the {@code LLVMIsA*} casts, which allocate a
 * javacpp Pointer per call (issue 16, seventh round). It must classify exactly as the casts do: checked
 * on every value reachable from a module clang compiled from C with globals, an alias, function
 * pointers, inline assembly, constant expressions, vectors, aggregates and metadata.
 */
class ValueKindTest {
  static final String SOURCE = """
      struct S { float a; int b[3]; };
      struct S gs = { 1.5f, { 1, 2, 3 } };
      int table[4] = { 4, 5, 6, 7 };
      float gv;
      typedef float v4 __attribute__((vector_size(16)));
      static float helper(float x) { return x * 3.0f; }
      float (*fp)(float) = helper;
      extern int aliased __attribute__((alias("table")));
      float kinds(float x, int i, v4 v, float (*f)(float)) {
        int r;
        __asm__ volatile ("mov %1, %0" : "=r"(r) : "r"(i));
        v4 w = v * x + (v4){ 1.0f, 2.0f, 3.0f, 4.0f };
        long p = (long) &table[2];
        float s = gs.a + (float) gs.b[i & 1] + (float) table[i & 3] + w[1] + (float) (p & 1) + (float) aliased;
        if (s > 2.0f) s += f(x) + fp(s) + __builtin_sqrtf(x);
        gv = s;
        return s + (float) r;
      }
      """;

  static boolean is(LLVMValueRef r) { return r != null && !r.isNull(); }

  @Test
  void kindsAgreeWithLlvmsCasts() {
    byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, "kinds.c", java.util.List.of("-O2", "-g", "-fno-discard-value-names"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "kinds")) {
      ArrayDeque<Value> work = new ArrayDeque<>();
      Set<Long> seen = new HashSet<>();
      work.addAll(m.globals());
      work.addAll(m.functions());
      for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m.ref()); is(a); a = LLVMGetNextGlobalAlias(a)) work.add(Value.of(a));
      int[] counts = new int[9];
      while (!work.isEmpty()) {
        Value v = work.pop();
        if (!seen.add(v.id())) continue;
        LLVMValueRef r = v.ref();
        String what = v.print();
        assertEquals(is(LLVMIsAInstruction(r)), v.isInstruction(), what);
        assertEquals(is(LLVMIsAArgument(r)), v.isArgument(), what);
        assertEquals(is(LLVMIsAConstantInt(r)), v.isConstantInt(), what);
        assertEquals(is(LLVMIsAConstantFP(r)), v.isConstantFP(), what);
        assertEquals(is(LLVMIsAGlobalValue(r)), v.isGlobalValue(), what);
        assertEquals(is(LLVMIsAGlobalVariable(r)), v.isGlobalVariable(), what);
        assertEquals(is(LLVMIsAFunction(r)), v.isFunction(), what);
        assertEquals(is(LLVMIsAConstantExpr(r)), v.isConstantExpr(), what);
        assertEquals(is(LLVMIsAInlineAsm(r)), v.isInlineAsm(), what);
        assertEquals(is(LLVMIsAMDNode(r)) || is(LLVMIsAValueAsMetadata(r)) || is(LLVMIsAMDString(r)), v.isMetadataAsValue(), what);
        Opcode expected = is(LLVMIsAInstruction(r)) ? Opcode.of(LLVMGetInstructionOpcode(r))
            : is(LLVMIsAConstantExpr(r)) ? Opcode.of(LLVMGetConstOpcode(r)) : Opcode.UNKNOWN;
        assertEquals(expected, v.opcode(), what);
        // asked again: the object keeps its kind and opcode (issue 16, twenty-first round); the basic-block test
        // reads the kind too
        assertEquals(expected, v.opcode(), what);
        assertEquals(LLVMGetValueKind(r), v.valueKind(), what);
        assertEquals(LLVMValueIsBasicBlock(r) != 0, v.isBasicBlockValue(), what);
        assertEquals(is(LLVMIsAInstruction(r)), v.isInstruction(), what);
        if (!v.isBasicBlockValue() && !v.isMetadataAsValue()) {
          Type t = v.type();
          int tk = LLVMGetTypeKind(LLVMTypeOf(r));
          assertEquals(tk == LLVMVectorTypeKind, t.isVector(), what);
          assertEquals(tk == LLVMStructTypeKind, t.isStruct(), what);
          assertEquals(tk == LLVMPointerTypeKind, t.isPointer(), what);
          assertEquals(tk == LLVMVoidTypeKind, t.isVoid(), what);
          assertEquals(tk == LLVMFloatTypeKind, t.isFloat(), what);
        }
        if (v.isInstruction()) counts[0]++;
        if (v.isArgument()) counts[1]++;
        if (v.isFunction()) counts[2]++;
        if (v.isGlobalVariable()) counts[3]++;
        if (v.isConstantExpr()) counts[4]++;
        if (v.isInlineAsm()) counts[5]++;
        if (v.isGlobalValue() && !v.isFunction() && !v.isGlobalVariable()) counts[6]++;  // the alias
        if (v.isConstantFP() || v.isConstantInt()) counts[7]++;
        if (v.isFunction()) {
          Function f = Function.of(r);
          work.addAll(f.params());
          for (Block b : f.blocks()) for (Value i = b.firstInstruction(); i != null; i = i.nextInstruction()) work.add(i);
        }
        if (v.isBasicBlockValue()) counts[8]++;
        if (v.isMetadataAsValue() || v.isBasicBlockValue()) continue;
        for (int k = 0; k < v.numOperands(); k++) {
          Value o = v.operand(k);
          if (o != null) work.add(o);
        }
      }
      for (int k = 0; k < counts.length; k++) assertTrue(counts[k] > 0, "kind " + k + " not met: " + java.util.Arrays.toString(counts));
    }
  }
}
