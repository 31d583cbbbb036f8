package org.packetizer.core.widen;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMUseRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.packetizer.core.ir.Function;
import org.packetizer.core.wrapper.HardwareWidth;

/**
 * Computes a packet function's masks as integer vectors ({@code <W x i32>} or {@code <W x i64>}
 * lanes of all ones or zeros) instead of {@code <W x i1>}, for targets without mask registers.
 *
 * <p>Why: x86 without AVX-512 has no {@code <8 x i1>} registers; LLVM's type legalizer promotes
 * {@code <8 x i1>} to {@code <8 x i16>}, so on AVX2 every compare of 8 floats is packed to 16-bit
 * lanes ({@code vextractf128} + {@code vpackssdw}) and unpacked again ({@code vpmovzxwd} +
 * {@code vpslld}) for every blend, inside every loop iteration. With 32-bit masks the compare result
 * is used as it is, AND/OR are {@code vandps}/{@code vorps}, blends {@code vblendvps} and the any-lane
 * test {@code vmovmskps}.
 *
 * <p>How: AND, OR, XOR, phis and selects of masks are rebuilt on the integer masks; every other mask
 * (compares, parameters, call results, ...) is sign-extended right after its definition; every other
 * use gets {@code icmp slt wide, 0} in its own block. Runs after the clean-up: InstCombine would fold
 * the integer masks back to {@code <W x i1>}.
 */
public final class MaskDemotion {
  private MaskDemotion() {}

  /**
   * Whether the target of {@code f} lacks mask registers (no AVX-512F) while {@code width} lanes of
   * W ≥ 4. (At W=4 the legalizer promotes {@code <4 x i1>} to 32-bit lanes but with only the low bit
   * defined, so every blend shifts it into the sign bit first; measured on SSE4.2 with
   * {@code -Dpacketizer.bench.integerMasks=ALWAYS} vs the W ≥ 8 rule: geomean 2.90× → 2.96×, julia
   * 2.44× → 2.66×, mandelbrot 2.88× → 3.07×, fig411 0.95× → 1.14×.)
   */
  public static boolean worthwhile(Function f, int width) {
    return worthwhile(f, width, null, null);
  }

  /** As {@link #worthwhile(Function, int)} with a CPU and feature string overriding f's (null: f's). */
  public static boolean worthwhile(Function f, int width, String cpu, String features) {
    return width >= 4 && !hasMaskRegisters(f, cpu, features);
  }

  /** Whether the target of {@code f} has AVX-512F (mask registers, fast gathers). */
  public static boolean hasMaskRegisters(Function f) {
    return hasMaskRegisters(f, null, null);
  }

  /** As {@link #hasMaskRegisters(Function)} with a CPU and feature string overriding f's (null: f's). */
  public static boolean hasMaskRegisters(Function f, String cpu, String features) {
    HardwareWidth.Target t = HardwareWidth.resolve(f, cpu, features);
    if (t.features() != null && t.features().contains("+avx512f")) return true;
    return HardwareWidth.of(t.cpu(), t.features()) >= HardwareWidth.AVX512;
  }

  /** Rewrites the masks of {@code f}; returns the number of mask instructions rebuilt on integers. */
  public static int run(Function f, int width) {
    return new Rewriter(f.ref(), width).run();
  }

  private static final class Rewriter {
    final LLVMValueRef fn;
    final int w;
    final LLVMTypeRef maskTy;
    LLVMTypeRef wideTy;
    LLVMBuilderRef b;
    final Map<Long, LLVMValueRef> wide = new HashMap<>();        // mask value -> integer mask
    final Map<String, LLVMValueRef> narrow = new HashMap<>();    // "value@block" -> icmp slt in that block
    final List<LLVMValueRef> rebuilt = new ArrayList<>();        // original convertible instructions
    final Set<Long> convertible = new HashSet<>();

    Rewriter(LLVMValueRef fn, int w) {
      this.fn = fn;
      this.w = w;
      LLVMTypeRef fnTy = LLVMGlobalGetValueType(fn);
      this.maskTy = LLVMVectorType(LLVMInt1TypeInContext(LLVMGetTypeContext(fnTy)), w);
    }

    boolean isMask(LLVMValueRef v) { return LLVMTypeOf(v).address() == maskTy.address(); }

    int run() {
      List<LLVMBasicBlockRef> order = reversePostorder();
      // which mask instructions are rebuilt on integers, and the lane width: that of the values the
      // masks blend (32 unless 64-bit lanes are the majority)
      int lanes32 = 0;
      int lanes64 = 0;
      for (LLVMBasicBlockRef bb : order) {
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) {
          int op = LLVMGetInstructionOpcode(i);
          if (isMask(i) && (op == LLVMAnd || op == LLVMOr || op == LLVMXor || op == LLVMPHI || op == LLVMSelect)) {
            convertible.add(i.address());
          }
          if (op == LLVMSelect && isMask(LLVMGetOperand(i, 0)) && !isMask(i)) {
            int bits = elementBits(LLVMTypeOf(i));
            if (bits == 64) lanes64++;
            else lanes32++;
          }
        }
      }
      if (convertible.isEmpty()) return 0;
      LLVMTypeRef ctxI = lanes64 > lanes32 ? LLVMInt64TypeInContext(LLVMGetTypeContext(maskTy))
          : LLVMInt32TypeInContext(LLVMGetTypeContext(maskTy));
      wideTy = LLVMVectorType(ctxI, w);
      b = LLVMCreateBuilderInContext(LLVMGetTypeContext(maskTy));
      try {
        // phis first (their incoming values may come later in the order), then everything in order
        List<LLVMValueRef> phis = new ArrayList<>();
        for (LLVMBasicBlockRef bb : order) {
          for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) {
            if (LLVMGetInstructionOpcode(i) != LLVMPHI) break;
            if (!convertible.contains(i.address())) continue;
            LLVMPositionBuilderBefore(b, i);
            LLVMValueRef np = LLVMBuildPhi(b, wideTy, name(i));
            wide.put(i.address(), np);
            phis.add(i);
          }
        }
        for (LLVMBasicBlockRef bb : order) {
          List<LLVMValueRef> insts = new ArrayList<>();
          for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) insts.add(i);
          for (LLVMValueRef i : insts) {
            int op = LLVMGetInstructionOpcode(i);
            if (op == LLVMPHI) continue;
            if (convertible.contains(i.address())) {
              // the operands first (widening a compare inserts its extension elsewhere), then the
              // rebuilt instruction right before the original
              LLVMValueRef r;
              if (op == LLVMSelect) {
                LLVMValueRef c = LLVMGetOperand(i, 0);
                LLVMValueRef tv = widen(LLVMGetOperand(i, 1));
                LLVMValueRef fv = widen(LLVMGetOperand(i, 2));
                if (isMask(c)) {
                  // (c & t) | (~c & f) on integer masks; the poison-safe AND/OR forms directly
                  LLVMValueRef wc = widen(c);
                  LLVMPositionBuilderBefore(b, i);
                  if (LLVMIsNull(fv) != 0) {
                    r = LLVMBuildAnd(b, wc, tv, name(i));
                  } else if (LLVMIsNull(tv) != 0) {
                    r = LLVMBuildAnd(b, LLVMBuildXor(b, wc, LLVMConstAllOnes(wideTy), ""), fv, name(i));
                  } else if (isAllOnes(tv)) {
                    r = LLVMBuildOr(b, wc, fv, name(i));
                  } else if (isAllOnes(fv)) {
                    r = LLVMBuildOr(b, LLVMBuildXor(b, wc, LLVMConstAllOnes(wideTy), ""), tv, name(i));
                  } else {
                    LLVMValueRef t = LLVMBuildAnd(b, wc, tv, "");
                    LLVMValueRef nc = LLVMBuildXor(b, wc, LLVMConstAllOnes(wideTy), "");
                    r = LLVMBuildOr(b, t, LLVMBuildAnd(b, nc, fv, ""), name(i));
                  }
                } else {
                  LLVMPositionBuilderBefore(b, i);
                  r = LLVMBuildSelect(b, c, tv, fv, name(i));
                }
              } else {
                LLVMValueRef x = widen(LLVMGetOperand(i, 0));
                LLVMValueRef y = widen(LLVMGetOperand(i, 1));
                LLVMPositionBuilderBefore(b, i);
                r = switch (op) {
                  case LLVMAnd -> LLVMBuildAnd(b, x, y, name(i));
                  case LLVMOr -> LLVMBuildOr(b, x, y, name(i));
                  default -> LLVMBuildXor(b, x, y, name(i));
                };
              }
              wide.put(i.address(), r);
              rebuilt.add(i);
            }
          }
        }
        for (LLVMValueRef phi : phis) {
          LLVMValueRef np = wide.get(phi.address());
          int n = LLVMCountIncoming(phi);
          try (PointerPointer<LLVMValueRef> vals = new PointerPointer<>(n); PointerPointer<LLVMBasicBlockRef> bbs = new PointerPointer<>(n)) {
            for (int k = 0; k < n; k++) {
              LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
              vals.put(k, widen(LLVMGetIncomingValue(phi, k)));
              bbs.put(k, from);
            }
            LLVMAddIncoming(np, vals, bbs, n);
          }
          rebuilt.add(phi);
        }
        // the remaining uses of rebuilt instructions read an i1 mask made from the integer one
        for (LLVMValueRef old : rebuilt) {
          List<LLVMUseRef> uses = new ArrayList<>();
          for (LLVMUseRef u = LLVMGetFirstUse(old); u != null && !u.isNull(); u = LLVMGetNextUse(u)) uses.add(u);
          for (LLVMUseRef u : uses) {
            LLVMValueRef user = LLVMGetUser(u);
            if (convertible.contains(user.address())) continue;  // deleted below
            int idx = operandIndex(user, old);
            LLVMValueRef repl = LLVMGetInstructionOpcode(user) == LLVMPHI
                ? narrowAtEnd(old, LLVMGetIncomingBlock(user, idx))
                : narrowBefore(old, user);
            LLVMSetOperand(user, idx, repl);
          }
        }
        // delete the rebuilt instructions (their uses are all among themselves now)
        for (LLVMValueRef old : rebuilt) LLVMReplaceAllUsesWith(old, LLVMGetPoison(maskTy));
        for (LLVMValueRef old : rebuilt) LLVMInstructionEraseFromParent(old);
        return rebuilt.size();
      } finally {
        LLVMDisposeBuilder(b);
      }
    }

    /** The integer mask of {@code v} where {@code v} is used (its definition dominates the use). */
    LLVMValueRef widen(LLVMValueRef v) {
      LLVMValueRef r = wide.get(v.address());
      if (r != null) return r;
      if (LLVMIsConstant(v) != 0) {
        r = constant(v);
      } else if (LLVMIsAArgument(v) != null && !LLVMIsAArgument(v).isNull()) {
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
        LLVMPositionBuilderBefore(b, firstNonPhi(entry));
        r = LLVMBuildSExt(b, LLVMBuildFreeze(b, v, ""), wideTy, name(v) + ".wide");
      } else if (splatOf(v) != null) {
        // a uniform condition broadcast to every lane: extend the scalar, then broadcast it (moving
        // an i1 splat into 32-bit lanes took six instructions on AVX2, this takes two or three)
        LLVMValueRef c = splatOf(v);
        LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(v));
        LLVMValueRef x = LLVMBuildSExt(b, LLVMBuildFreeze(b, c, ""), LLVMGetElementType(wideTy), name(v) + ".wide.s");
        LLVMValueRef ins = LLVMBuildInsertElement(b, LLVMGetPoison(wideTy), x, LLVMConstInt(LLVMInt64TypeInContext(
            LLVMGetTypeContext(wideTy)), 0, 0), "");
        r = LLVMBuildShuffleVector(b, ins, LLVMGetPoison(wideTy), LLVMConstNull(LLVMVectorType(LLVMInt32TypeInContext(
            LLVMGetTypeContext(wideTy)), w)), name(v) + ".wide");
      } else {
        // a mask made by anything else (compare, call, shuffle, ...): extend right after it
        LLVMValueRef next = LLVMGetInstructionOpcode(v) == LLVMPHI ? firstNonPhi(LLVMGetInstructionParent(v)) : LLVMGetNextInstruction(v);
        LLVMPositionBuilderBefore(b, next);
        // frozen: the integer AND/OR below are not poison-safe the way the selects they replace were,
        // and lanes no one uses may hold poison (e.g. a compare of a value no lane computed)
        r = LLVMBuildSExt(b, LLVMBuildFreeze(b, v, ""), wideTy, name(v) + ".wide");
      }
      wide.put(v.address(), r);
      return r;
    }

    /** The scalar i1 {@code v} broadcasts when it is {@code shufflevector (insertelement poison, c, 0), zeroinitializer}. */
    LLVMValueRef splatOf(LLVMValueRef v) {
      if (LLVMIsAShuffleVectorInst(v) == null || LLVMIsAShuffleVectorInst(v).isNull()) return null;
      int n = LLVMGetNumMaskElements(v);
      for (int k = 0; k < n; k++) if (LLVMGetMaskValue(v, k) != 0) return null;
      LLVMValueRef ins = LLVMGetOperand(v, 0);
      if (LLVMIsAInsertElementInst(ins) == null || LLVMIsAInsertElementInst(ins).isNull()) return null;
      LLVMValueRef idx = LLVMGetOperand(ins, 2);
      if (LLVMIsAConstantInt(idx) == null || LLVMIsAConstantInt(idx).isNull() || LLVMConstIntGetZExtValue(idx) != 0) return null;
      return LLVMGetOperand(ins, 1);
    }


    LLVMValueRef constant(LLVMValueRef v) {
      // (undefined lanes become false: a refinement, and no poison enters the integer masks)
      if (LLVMIsUndef(v) != 0 || LLVMIsNull(v) != 0) return LLVMConstNull(wideTy);
      LLVMValueRef[] lanes = new LLVMValueRef[w];
      LLVMTypeRef et = LLVMGetElementType(wideTy);
      for (int k = 0; k < w; k++) {
        LLVMValueRef e = LLVMGetAggregateElement(v, k);
        if (e == null || e.isNull() || LLVMIsUndef(e) != 0) lanes[k] = LLVMConstNull(et);
        else lanes[k] = LLVMConstIntGetZExtValue(e) != 0 ? LLVMConstAllOnes(et) : LLVMConstNull(et);
      }
      try (PointerPointer<LLVMValueRef> pp = new PointerPointer<>(lanes)) {
        return LLVMConstVector(pp, w);
      }
    }

    /** {@code icmp slt wide(v), 0} in the user's block, before its first use there. */
    LLVMValueRef narrowBefore(LLVMValueRef v, LLVMValueRef user) {
      LLVMBasicBlockRef bb = LLVMGetInstructionParent(user);
      String key = v.address() + "@" + bb.address();
      LLVMValueRef r = narrow.get(key);
      if (r != null) {
        if (!comesBefore(r, user)) {
          // one conversion per block, before its first use there
          LLVMInstructionRemoveFromParent(r);
          LLVMPositionBuilderBefore(b, user);
          LLVMInsertIntoBuilder(b, r);
        }
        return r;
      }
      LLVMPositionBuilderBefore(b, user);
      r = LLVMBuildICmp(b, LLVMIntSLT, wide.get(v.address()), LLVMConstNull(wideTy), name(v));
      narrow.put(key, r);
      return r;
    }

    /** {@code icmp slt wide(v), 0} at the end of {@code bb} (for a phi's incoming value). */
    LLVMValueRef narrowAtEnd(LLVMValueRef v, LLVMBasicBlockRef bb) {
      String key = v.address() + "@end@" + bb.address();
      LLVMValueRef r = narrow.get(key);
      if (r != null) return r;
      LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(bb));
      r = LLVMBuildICmp(b, LLVMIntSLT, wide.get(v.address()), LLVMConstNull(wideTy), name(v));
      narrow.put(key, r);
      return r;
    }

    static boolean isAllOnes(LLVMValueRef v) {
      return LLVMIsConstant(v) != 0 && LLVMIsAConstantExpr(v) == null | (LLVMIsAConstantExpr(v) != null && LLVMIsAConstantExpr(v).isNull())
          && v.address() == LLVMConstAllOnes(LLVMTypeOf(v)).address();
    }

    static boolean comesBefore(LLVMValueRef a, LLVMValueRef user) {
      for (LLVMValueRef i = LLVMGetNextInstruction(a); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) {
        if (i.address() == user.address()) return true;
      }
      return false;
    }

    static int operandIndex(LLVMValueRef user, LLVMValueRef v) {
      int n = LLVMGetNumOperands(user);
      for (int k = 0; k < n; k++) if (LLVMGetOperand(user, k).address() == v.address()) return k;
      throw new IllegalStateException("operand not found");
    }

    static LLVMValueRef firstNonPhi(LLVMBasicBlockRef bb) {
      LLVMValueRef i = LLVMGetFirstInstruction(bb);
      while (LLVMGetInstructionOpcode(i) == LLVMPHI) i = LLVMGetNextInstruction(i);
      return i;
    }

    static int elementBits(LLVMTypeRef t) {
      if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return 0;
      LLVMTypeRef e = LLVMGetElementType(t);
      return switch (LLVMGetTypeKind(e)) {
        case LLVMDoubleTypeKind -> 64;
        case LLVMIntegerTypeKind -> LLVMGetIntTypeWidth(e);
        case LLVMPointerTypeKind -> 64;
        default -> 32;
      };
    }

    static String name(LLVMValueRef v) {
      org.bytedeco.javacpp.BytePointer p = LLVMGetValueName(v);
      return p == null || p.isNull() ? "" : p.getString();
    }

    List<LLVMBasicBlockRef> reversePostorder() {
      List<LLVMBasicBlockRef> out = new ArrayList<>();
      Set<Long> seen = new HashSet<>();
      ArrayDeque<Object[]> stack = new ArrayDeque<>();
      LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
      seen.add(entry.address());
      stack.push(new Object[] {entry, 0});
      while (!stack.isEmpty()) {
        Object[] top = stack.peek();
        LLVMBasicBlockRef bb = (LLVMBasicBlockRef) top[0];
        int k = (Integer) top[1];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        int n = LLVMGetNumSuccessors(term);
        if (k < n) {
          top[1] = k + 1;
          LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
          if (seen.add(s.address())) stack.push(new Object[] {s, 0});
        } else {
          stack.pop();
          out.add(bb);
        }
      }
      java.util.Collections.reverse(out);
      return out;
    }
  }
}
