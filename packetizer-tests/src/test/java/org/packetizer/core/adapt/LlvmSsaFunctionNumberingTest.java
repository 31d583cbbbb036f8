package org.packetizer.core.adapt;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@link LlvmSsaFunction}'s dense numbering of the function's instructions (issue 16, eleventh round):
 * one hash lookup, then arrays for the block, the opcode and the operand lists it keeps once asked.
 * Checked against LLVM's own answers (the C API through javacpp, not the facade's cached paths) on a
 * function clang compiles at -O2 with debug records, and {@link LlvmSsaFunction#changes()} must report
 * every edit that would make a cached answer stale.
 */
class LlvmSsaFunctionNumberingTest {
  static final String SOURCE = """
      struct P { float x; int k[2]; };
      float g(float);
      float f(float *a, struct P *p, int n, int sel) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) {
          float v = a[i] * p[i].x;
          switch ((sel + i) & 3) {
            case 0: v += 1.0f; break;
            case 1: v = g(v); break;
            case 2: v -= (float) p[i].k[1]; break;
            default: break;
          }
          s += v;
          a[i] = s;
        }
        return s;
      }
      int other(int x) { return x * 3 + 1; }
      """;

  static LlvmModule compile(LlvmContext ctx) {
    byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, "numbering.c", List.of("-O2", "-g", "-fno-discard-value-names"));
    return ctx.parseBitcode(bc, "numbering");
  }

  static LlvmSsaFunction view(LlvmModule m, Function fn) {
    return new LlvmSsaFunction(m, fn, c -> false, (v, c) -> Optional.empty());
  }

  /** The value operands by LLVM's C API directly: a phi's incoming values, else no blocks or metadata. */
  static List<Long> operandsByLlvm(Value v) {
    LLVMValueRef r = v.ref();
    List<Long> out = new ArrayList<>();
    if (LLVMGetInstructionOpcode(r) == LLVMPHI) {
      for (int i = 0; i < LLVMCountIncoming(r); i++) out.add(LLVMGetIncomingValue(r, i).address());
      return out;
    }
    for (int i = 0; i < LLVMGetNumOperands(r); i++) {
      LLVMValueRef o = LLVMGetOperand(r, i);
      if (o == null || o.isNull() || LLVMValueIsBasicBlock(o) != 0 || LLVMGetValueKind(o) == LLVMMetadataAsValueValueKind) continue;
      out.add(o.address());
    }
    return out;
  }

  static List<Long> ids(List<Value> vs) {
    List<Long> out = new ArrayList<>();
    for (Value v : vs) out.add(v.id());
    return out;
  }

  @Test
  void numbersEveryInstructionInOrderAndAnswersAsLlvmDoes() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx)) {
      Function fn = m.function("f").orElseThrow();
      LlvmSsaFunction ssa = view(m, fn);
      int i = 0;
      int phis = 0, calls = 0, switches = 0;
      for (Block b : fn.blocks()) {
        for (Value v : b.instructions()) {
          assertEquals(i, ssa.index(v), v.print());
          assertEquals(Optional.of(b), ssa.blockOf(v), v.print());
          Opcode byLlvm = Opcode.of(LLVMGetInstructionOpcode(v.ref()));
          assertEquals(byLlvm, ssa.opcode(v), v.print());
          assertEquals(b, ssa.blockAt(i), v.print());
          assertEquals(byLlvm, ssa.opcodeAt(i), v.print());
          List<Value> ops = ssa.operands(v);
          assertEquals(operandsByLlvm(v), ids(ops), v.print());
          assertSame(ops, ssa.operands(v), "asked twice: the kept list");
          assertThrows(UnsupportedOperationException.class, () -> ops.add(v), "the kept list is shared: unmodifiable");
          if (byLlvm == Opcode.PHI) phis++;
          if (byLlvm == Opcode.CALL) calls++;
          if (byLlvm == Opcode.SWITCH) switches++;
          i++;
        }
      }
      assertEquals(i, ssa.instructionCount());
      // kinds: worked out once per instruction and kept; asked in reverse order first, then compared with
      // a fresh view's first answers in order
      List<Value> insts = new ArrayList<>();
      for (Block b : fn.blocks()) insts.addAll(b.instructions());
      for (int k = insts.size() - 1; k >= 0; k--) ssa.kind(insts.get(k));
      LlvmSsaFunction fresh = view(m, fn);
      for (Value v : insts) assertEquals(fresh.kind(v), ssa.kind(v), v.print());
      assertEquals(fn.instructionCount(), ssa.instructionCount());
      assertTrue(phis >= 2 && calls >= 1 && switches == 1, "the source gives phis, a call and a switch: " + phis + ", " + calls + ", " + switches);
      // not numbered: parameters, constants, another function's instructions
      for (Value p : fn.params()) {
        assertEquals(-1, ssa.index(p));
        assertEquals(Optional.empty(), ssa.blockOf(p));
      }
      Function other = m.function("other").orElseThrow();
      for (Value v : other.entry().instructions()) {
        assertEquals(-1, ssa.index(v), v.print());
        assertEquals(Optional.empty(), ssa.blockOf(v));
        assertEquals(Opcode.of(LLVMGetInstructionOpcode(v.ref())), ssa.opcode(v));
        assertEquals(operandsByLlvm(v), ids(ssa.operands(v)), v.print());
      }
      assertEquals(List.of(), ssa.changes());
    }
  }

  @Test
  void changesReportsEditsThatMakeCachedAnswersStale() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx)) {
      Function fn = m.function("f").orElseThrow();
      // swapped operands of an instruction whose operand list was handed out
      LlvmSsaFunction ssa = view(m, fn);
      Value bin = null;
      for (Block b : fn.blocks()) {
        for (Value v : b.instructions()) {
          ssa.operands(v);
          if (bin == null && v.opcode() == Opcode.FMUL && !v.operand(0).equals(v.operand(1))) bin = v;
        }
      }
      assertNotNull(bin, "an fmul of two different values");
      assertEquals(List.of(), ssa.changes());
      Value a = bin.operand(0), c = bin.operand(1);
      bin.setOperand(0, c);
      bin.setOperand(1, a);
      List<String> changed = ssa.changes();
      assertEquals(1, changed.size(), changed.toString());
      assertTrue(changed.get(0).contains("other operands"), changed.toString());
      bin.setOperand(0, a);
      bin.setOperand(1, c);
      assertEquals(List.of(), ssa.changes(), "restored");

      // an instruction erased: the numbering no longer lines up
      Value store = null;
      for (Block b : fn.blocks()) for (Value v : b.instructions()) if (store == null && v.opcode() == Opcode.STORE) store = v;
      assertNotNull(store);
      int at = ssa.index(store);
      store.eraseFromParent();
      changed = ssa.changes();
      assertFalse(changed.isEmpty());
      assertTrue(changed.get(0).startsWith("instruction " + at + " "), changed.toString());

      // an instruction added (the fresh view sees it; the old one reports it)
      LlvmSsaFunction fresh = view(m, fn);
      assertEquals(List.of(), fresh.changes());
      Value first = fn.entry().firstInstruction();
      try (var builder = new org.packetizer.core.ir.IrBuilder(ctx)) {
        builder.before(first).insertClone(first, "copy");
      }
      changed = fresh.changes();
      assertTrue(changed.get(0).startsWith("instruction 0 ") && changed.get(0).contains("not numbered"), changed.toString());
    }
  }
}
