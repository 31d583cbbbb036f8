package org.packetizer.core.widen;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.packetizer.core.ir.AddressMap;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
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
    // x86 only: the rewrite is tuned to how x86's legalizer widens <W x i1> without AVX-512. AArch64
    // (NEON compares give lane-wide masks already; SVE has predicate registers) and RISC-V V (v0 mask
    // register) keep <W x i1>.
    if (org.packetizer.core.ir.TargetArch.of(f.module().targetTriple()) != org.packetizer.core.ir.TargetArch.X86) return false;
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

  /**
   * Whether the lane bits of mask phis are carried as integer phis ({@code Rewriter#bitsPhis});
   * measurement knob {@code -Dpacketizer.maskBitsPhis=false} (the bench passes it to its workers).
   */
  static final boolean MASK_BITS_PHIS = !"false".equals(System.getProperty("packetizer.maskBitsPhis"));

  /** Rewrites the masks of {@code f}; returns the number of mask instructions rebuilt on integers. */
  public static int run(Function f, int width) {
    return new Rewriter(f, width).run();
  }

  private static final class Rewriter {
    final Function fn;
    final int w;
    final LlvmContext ctx;
    final Type maskTy;
    Type wideTy;
    IrBuilder b;
    // keyed by native address (issue 16: HashMap lookups keyed by values were about a quarter of this
    // pass on a 20k-instruction nested-loop function)
    final AddressMap<Value> wide = new AddressMap<>();       // mask value -> integer mask
    final Map<At, Value> narrow = new HashMap<>();           // (value, block) -> icmp slt in that block
    final List<Value> rebuilt = new ArrayList<>();           // original convertible instructions
    final AddressMap<Value> convertible = new AddressMap<>(); // (a set: each maps to itself)

    Rewriter(Function fn, int w) {
      this.fn = fn;
      this.w = w;
      this.ctx = fn.functionType().context();
      this.maskTy = ctx.i1().vectorOf(w);
    }

    boolean isMask(Value v) { return v.type().equals(maskTy); }

    int run() {
      List<Block> order = reversePostorder();
      // which mask instructions are rebuilt on integers, and the lane width: that of the values the
      // masks blend (32 unless 64-bit lanes are the majority)
      int lanes32 = 0;
      int lanes64 = 0;
      // (each block's instructions as this walk found them, walked again below: the objects keep their opcodes,
      // and the later walks would meet only instructions this rewriting inserts, which they skip; issue 16)
      List<List<Value>> blockInsts = new ArrayList<>(order.size());
      for (Block bb : order) {
        List<Value> insts = new ArrayList<>();
        blockInsts.add(insts);
        for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
          insts.add(i);
          Opcode op = i.opcode();
          if (isMask(i) && (op == Opcode.AND || op == Opcode.OR || op == Opcode.XOR || op == Opcode.PHI || op == Opcode.SELECT)) {
            convertible.put(i.id(), i);
          }
          if (op == Opcode.SELECT && isMask(i.operand(0)) && !isMask(i)) {
            int bits = elementBits(i.type());
            if (bits == 64) lanes64++;
            else lanes32++;
          }
        }
      }
      if (convertible.size() == 0) return 0;
      wideTy = (lanes64 > lanes32 ? ctx.i64() : ctx.i32()).vectorOf(w);
      try (IrBuilder builder = new IrBuilder(ctx)) {
        b = builder;
        // phis first (their incoming values may come later in the order), then everything in order
        List<Value> phis = new ArrayList<>();
        for (List<Value> insts : blockInsts) {
          for (Value i : insts) {
            if (i.opcode() != Opcode.PHI) break;
            if (convertible.get(i.id()) == null) continue;
            Value np = b.before(i).phi(wideTy, i.name());
            wide.put(i.id(), np);
            phis.add(i);
          }
        }
        for (List<Value> insts : blockInsts) {
          for (Value i : insts) {
            Opcode op = i.opcode();
            if (op == Opcode.PHI) continue;
            if (convertible.get(i.id()) != null) {
              // the operands first (widening a compare inserts its extension elsewhere), then the
              // rebuilt instruction right before the original
              Value r;
              if (op == Opcode.SELECT) {
                Value c = i.operand(0);
                Value tv = widen(i.operand(1));
                Value fv = widen(i.operand(2));
                if (isMask(c)) {
                  // (c & t) | (~c & f) on integer masks; the poison-safe AND/OR forms directly
                  Value wc = widen(c);
                  b.before(i);
                  if (fv.isNullValue()) {
                    r = b.and(wc, tv, i.name());
                  } else if (tv.isNullValue()) {
                    r = b.and(b.xor(wc, b.allOnes(wideTy), ""), fv, i.name());
                  } else if (tv.isAllOnesValue()) {
                    r = b.or(wc, fv, i.name());
                  } else if (fv.isAllOnesValue()) {
                    r = b.or(b.xor(wc, b.allOnes(wideTy), ""), tv, i.name());
                  } else {
                    Value t = b.and(wc, tv, "");
                    Value nc = b.xor(wc, b.allOnes(wideTy), "");
                    r = b.or(t, b.and(nc, fv, ""), i.name());
                  }
                } else {
                  r = b.before(i).select(c, tv, fv, i.name());
                }
              } else {
                Value x = widen(i.operand(0));
                Value y = widen(i.operand(1));
                b.before(i);
                r = switch (op) {
                  case AND -> b.and(x, y, i.name());
                  case OR -> b.or(x, y, i.name());
                  default -> b.xor(x, y, i.name());
                };
              }
              wide.put(i.id(), r);
              rebuilt.add(i);
            }
          }
        }
        for (Value phi : phis) {
          Value np = wide.get(phi.id());
          int n = phi.incomingCount();
          List<Value> vals = new ArrayList<>(n);
          List<Block> bbs = new ArrayList<>(n);
          for (int k = 0; k < n; k++) {
            Block from = phi.incomingBlock(k);
            vals.add(widen(phi.incomingValue(k)));
            bbs.add(from);
          }
          np.addIncoming(vals, bbs);
          rebuilt.add(phi);
        }
        // the remaining uses of rebuilt instructions read an i1 mask made from the integer one: one
        // conversion per value and block, before the first use there (found by positions numbered
        // once per block: comparing instructions by walking the block was quadratic in its length)
        AddressMap<AddressMap.OfInt> positions = new AddressMap<>();
        Map<At, Value> firstUser = new LinkedHashMap<>();
        List<Value[]> uses = new ArrayList<>();
        for (Value old : rebuilt) {
          for (Value user : old.users()) {
            if (convertible.get(user.id()) != null) continue;  // deleted below
            int idx = user.operandIndexOf(old);
            if (user.opcode() == Opcode.PHI) {
              user.setOperand(idx, narrowAtEnd(old, user.incomingBlock(idx)));
              continue;
            }
            Block bb = user.block().orElseThrow();
            AddressMap.OfInt pos = positions.computeIfAbsent(bb.id(), k -> {
              AddressMap.OfInt m = new AddressMap.OfInt(16);
              int n = 0;
              for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) m.putIfAbsent(i.id(), n++);
              return m;
            });
            firstUser.merge(new At(old, bb, false), user, (a, c) -> pos.get(c.id()) < pos.get(a.id()) ? c : a);
            uses.add(new Value[] {old, user});
          }
        }
        for (Value[] u : uses) {
          Value old = u[0], user = u[1];
          At key = new At(old, user.block().orElseThrow(), false);
          Value r = narrow.get(key);
          if (r == null) {
            r = b.before(firstUser.get(key)).icmpSlt(wide.get(old.id()), b.constNull(wideTy), old.name());
            narrow.put(key, r);
          }
          user.setOperand(user.operandIndexOf(old), r);
        }
        // delete the rebuilt instructions (their uses are all among themselves now)
        for (Value old : rebuilt) old.replaceAllUsesWith(b.poison(maskTy));
        for (Value old : rebuilt) old.eraseFromParent();
        if (MASK_BITS_PHIS) bitsPhis(order);
        return rebuilt.size();
      } finally {
        b = null;
      }
    }

    /**
     * The lane bits of a mask phi ({@code bitcast (icmp slt P, 0) to iW} with P an integer-mask phi:
     * per-lane loads and calls under a partial mask test one bit each) become a phi of iW whose
     * incoming values are the same bits of P's incoming masks, made at the end of each predecessor.
     * The any-lane test that ends a loop's latch computes those bits already ({@code movmskps}), so
     * the header no longer converts its mask again: x86 took {@code movmskps} plus
     * {@code pxor}/{@code pcmpgtd}/{@code movd} for lane 0 (the DAG folds {@code trunc} of the bits
     * into an element extract) at the top of every iteration. Exactly the same value: a cast of a phi
     * is the phi of the casts.
     */
    void bitsPhis(List<Block> order) {
      Type bitsTy = ctx.intType(w);
      List<Value> casts = new ArrayList<>();
      for (Block bb : order) {
        for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
          if (i.opcode() != Opcode.BITCAST || !i.type().equals(bitsTy)) continue;
          Value c = i.operand(0);
          if (!c.isInstruction() || c.opcode() != Opcode.ICMP || !c.isICmpSlt()
              || !c.operand(1).isNullValue()) continue;
          Value p = c.operand(0);
          if (!p.isInstruction() || p.opcode() != Opcode.PHI || !p.type().equals(wideTy)) continue;
          casts.add(i);
        }
      }
      Map<Value, Value> phiBits = new HashMap<>();
      Map<String, Value> atEnd = new HashMap<>();
      Map<Long, Integer> rpo = new HashMap<>();
      for (Block bb : order) rpo.put(bb.id(), rpo.size());
      for (Value x : casts) {
        Value c = x.operand(0);
        Value p = c.operand(0);
        Value np = phiBits.get(p);
        if (np == null && !backEdgesHaveBits(p, rpo, bitsTy)) continue;
        if (np == null) {
          int n = p.incomingCount();
          List<Value> vals = new ArrayList<>(n);
          List<Block> bbs = new ArrayList<>(n);
          for (int k = 0; k < n; k++) {
            Value v = p.incomingValue(k);
            Block from = p.incomingBlock(k);
            String key = v.id() + "@" + from.id();
            Value bits = atEnd.get(key);
            if (bits == null) bits = existingBits(v, from, bitsTy);
            if (bits == null) {
              b.before(from.terminator());
              bits = b.cast(Opcode.BITCAST, b.icmpSlt(v, b.constNull(wideTy), ""), bitsTy, p.name() + ".bits");
              atEnd.put(key, bits);
            }
            vals.add(bits);
            bbs.add(from);
          }
          np = b.before(p).phi(bitsTy, p.name() + ".bits");
          np.addIncoming(vals, bbs);
          phiBits.put(p, np);
        }
        x.replaceAllUsesWith(np);
        x.eraseFromParent();
        if (c.users().isEmpty()) c.eraseFromParent();
      }
    }

    /**
     * Whether p is a loop header's phi (some incoming block at or after p's in reverse postorder: a
     * back edge) and every back edge brings a constant or a mask whose bits its block computes
     * already (the latch's any-lane test): then the phi of bits costs nothing there. A join that is
     * not a loop header only moves the conversion into its predecessors, and a latch without the
     * bits would convert its mask once more: both measured longer (shade W8 322 -> 327, volume W8
     * 230 -> 236 machine instructions).
     */
    boolean backEdgesHaveBits(Value p, Map<Long, Integer> rpo, Type bitsTy) {
      int h = rpo.getOrDefault(p.block().orElseThrow().id(), -1);
      boolean loop = false;
      for (int k = 0; k < p.incomingCount(); k++) {
        Value v = p.incomingValue(k);
        Block from = p.incomingBlock(k);
        if (rpo.getOrDefault(from.id(), Integer.MAX_VALUE) < h) continue;
        loop = true;
        if (!v.isConstant() && existingBits(v, from, bitsTy) == null) return false;
      }
      return loop;
    }

    /** {@code bitcast (icmp slt v, 0) to iW} already in block {@code bb} (the any-lane test's), or null. */
    Value existingBits(Value v, Block bb, Type bitsTy) {
      if (v.isConstant()) return null;
      for (Value u : v.users()) {
        if (u.opcode() != Opcode.ICMP || !u.isICmpSlt()
            || !u.operand(0).equals(v) || !u.operand(1).isNullValue() || u.block().orElseThrow().id() != bb.id()) continue;
        for (Value c : u.users()) {
          if (c.opcode() == Opcode.BITCAST && c.type().equals(bitsTy) && c.block().orElseThrow().id() == bb.id()) return c;
        }
      }
      return null;
    }

    /** The integer mask of {@code v} where {@code v} is used (its definition dominates the use). */
    Value widen(Value v) {
      Value r = wide.get(v.id());
      if (r != null) return r;
      if (v.isConstant()) {
        r = constant(v);
      } else if (v.isArgument()) {
        b.before(fn.entry().firstNonPhi());
        r = b.sext(b.freeze(v, ""), wideTy, v.name() + ".wide");
      } else if (splatOf(v) != null) {
        // a uniform condition broadcast to every lane: extend the scalar, then broadcast it (moving
        // an i1 splat into 32-bit lanes took six instructions on AVX2, this takes two or three)
        Value c = splatOf(v);
        b.before(v.nextInstruction());
        Value x = b.sext(b.freeze(c, ""), wideTy.elementType(), v.name() + ".wide.s");
        Value ins = b.insertElement(b.poison(wideTy), x, b.constInt(ctx.i64(), 0), "");
        r = b.shuffle(ins, b.poison(wideTy), b.constNull(ctx.i32().vectorOf(w)), v.name() + ".wide");
      } else {
        // a mask made by anything else (compare, call, shuffle, ...): extend right after it
        Value next = v.opcode() == Opcode.PHI ? v.block().orElseThrow().firstNonPhi() : v.nextInstruction();
        b.before(next);
        // frozen: the integer AND/OR below are not poison-safe the way the selects they replace were,
        // and lanes no one uses may hold poison (e.g. a compare of a value no lane computed)
        r = b.sext(b.freeze(v, ""), wideTy, v.name() + ".wide");
      }
      wide.put(v.id(), r);
      return r;
    }

    /** The scalar i1 {@code v} broadcasts when it is {@code shufflevector (insertelement poison, c, 0), zeroinitializer}. */
    Value splatOf(Value v) {
      if (!v.isShuffleVector()) return null;
      int n = v.shuffleMaskLength();
      for (int k = 0; k < n; k++) if (v.shuffleMaskValue(k) != 0) return null;
      Value ins = v.operand(0);
      if (!ins.isInsertElement()) return null;
      Value idx = ins.operand(2);
      if (!idx.isConstantInt() || idx.constIntZExt() != 0) return null;
      return ins.operand(1);
    }

    Value constant(Value v) {
      // (undefined lanes become false: a refinement, and no poison enters the integer masks)
      if (v.isUndef() || v.isNullValue()) return b.constNull(wideTy);
      List<Value> lanes = new ArrayList<>(w);
      Type et = wideTy.elementType();
      for (int k = 0; k < w; k++) {
        Value e = v.aggregateElement(k);
        if (e == null || e.isUndef()) lanes.add(b.constNull(et));
        else lanes.add(e.constIntZExt() != 0 ? b.allOnes(et) : b.constNull(et));
      }
      return b.constVector(lanes);
    }

    /** Where a narrowed copy of {@code value} goes: in {@code block} before its first user there, or at its end. */
    record At(Value value, Block block, boolean atEnd) {}

    /** {@code icmp slt wide(v), 0} at the end of {@code bb} (for a phi's incoming value). */
    Value narrowAtEnd(Value v, Block bb) {
      At key = new At(v, bb, true);
      Value r = narrow.get(key);
      if (r != null) return r;
      r = b.before(bb.terminator()).icmpSlt(wide.get(v.id()), b.constNull(wideTy), v.name());
      narrow.put(key, r);
      return r;
    }

    static int elementBits(Type t) {
      if (!t.isVector()) return 0;
      Type e = t.elementType();
      if (e.isDouble() || e.isPointer()) return 64;
      if (e.isInteger()) return e.intWidth();
      return 32;
    }

    List<Block> reversePostorder() {
      List<Block> out = new ArrayList<>();
      Set<Block> seen = new HashSet<>();
      ArrayDeque<Object[]> stack = new ArrayDeque<>();
      Block entry = fn.entry();
      seen.add(entry);
      stack.push(new Object[] {entry, 0});
      while (!stack.isEmpty()) {
        Object[] top = stack.peek();
        Block bb = (Block) top[0];
        int k = (Integer) top[1];
        Value term = bb.terminator();
        int n = term.numSuccessors();
        if (k < n) {
          top[1] = k + 1;
          Block s = term.successor(k);
          if (seen.add(s)) stack.push(new Object[] {s, 0});
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
