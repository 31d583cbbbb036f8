package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * A uniform loop counter broadcast to every lane in each iteration becomes a vector counter
 * (issue 16, strhash): {@code splat(trunc(umin(P + C, K)))} and {@code splat(trunc(P + C))}, with
 * P a phi of the loop header and C a constant, are carried as a {@code <W x iN>} phi stepped by
 * {@code add} (and {@code umin}) on the vector. That is the shape of a divergent loop's exit compare
 * after {@link ArithmeticWidener}'s narrowing ({@code k < len}: clang's 64-bit counter against
 * {@code zext nneg len}): the scalar clamp ({@code cmp}, {@code mov}, {@code cmov}) and the move of
 * the counter into a vector register and its broadcast ({@code movd}, {@code pshufd}) each
 * iteration become one {@code paddd} and one {@code pminud}.
 *
 * <p>Exact: with {@code P + C} not wrapping ({@code nuw}) and {@code K + C < 2^N},
 * {@code umin(P + C, K) = umin(umin(P, K) + C, K)} (P below K: both are {@code umin(P + C, K)}; P at or
 * above K: both are K), and every value is below 2^N, so the truncation commutes. Without the clamp,
 * truncation commutes with the addition modulo 2^N. Runs after the clean-up (InstCombine would
 * scalarize a vector add of a broadcast back). Measurement knob
 * {@code -Dpacketizer.vectorCounters=false} (the bench passes it to its workers). On targets with mask
 * registers the clamp is applied by a select on the scalar counter rather than a vector {@code umin}
 * ({@link #scalarClamp}).
 */
public final class CounterBroadcasts {
  private CounterBroadcasts() {}

  /** Whether the rewrite runs ({@code -Dpacketizer.vectorCounters=false} turns it off). */
  static final boolean ENABLED = !"false".equals(System.getProperty("packetizer.vectorCounters"));

  /**
   * How the clamped counter {@code umin(P + C, K)} is stepped on the vector: {@code scalar} selects
   * between the stepped vector and {@code splat(K)} on the scalar test {@code P + C <= K} (a compare of
   * the scalar counter and a select the back end makes a never-taken branch); {@code vector} applies
   * {@code umin} to the vector every iteration; {@code auto} (the default) the select on targets with
   * mask registers ({@link #runClamped}: strhash W16/AVX-512 with the narrowed counter), the {@code umin}
   * elsewhere. Measured on strhash W8/AVX2 (docs/performance.md, issue 16, eleventh round): the select
   * was 10% faster at load 20 and 0-3% slower at load 7-9, with 23 more machine instructions (tail
   * duplication of the branch), so not the default there. Knob
   * {@code -Dpacketizer.vectorCounters.clamp=auto|scalar|vector}, read at each use.
   */
  static boolean scalarClamp(boolean maskRegisters) {
    String v = System.getProperty("packetizer.vectorCounters.clamp", "auto");
    return v.equals("scalar") || v.equals("auto") && maskRegisters;
  }

  /** Rewrites the counter broadcasts of {@code f}; returns how many. */
  public static int run(Function f, int w) {
    return run(f, w, false);
  }

  /**
   * Rewrites only the clamped counters ({@code splat(trunc(umin(P + C, K)))}: the narrowed loop-exit
   * compares of {@code ArithmeticWidener.narrowCounterCompares}) of {@code f}, on targets with mask
   * registers, where {@link #run} does not run; returns how many.
   */
  public static int runClamped(Function f, int w) {
    return run(f, w, true);
  }

  private static int run(Function f, int w, boolean clampedOnly) {
    if (!ENABLED) return 0;
    List<Value> splats = new ArrayList<>();
    for (Block bb : f.blocks()) {
      for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
        Shape m = match(i);
        if (m != null && (!clampedOnly || m.umin() != null)) splats.add(i);
      }
    }
    if (splats.isEmpty()) return 0;
    LlvmContext ctx = f.functionType().context();
    int n = 0;
    try (IrBuilder b = new IrBuilder(ctx)) {
      for (Value s : splats) {
        Shape m = match(s);
        if (m == null || !rewrite(b, f, s, m, w, clampedOnly)) continue;
        n++;
      }
    }
    return n;
  }

  /** s = splat(trunc([umin](P + C, K))): the parts, or null. */
  record Shape(Value ins, Value trunc, Value umin, Value add, Value phi, long c, long k) {}

  static Shape match(Value s) {
    if (!s.isShuffleVector() || !s.type().isVector() || !s.type().elementType().isInteger()) return null;
    int len = s.shuffleMaskLength();
    for (int k = 0; k < len; k++) if (s.shuffleMaskValue(k) != 0) return null;
    Value ins = s.operand(0);
    if (!ins.isInsertElement() || !ins.operand(0).isUndef() || !ins.operand(2).isConstantInt() || ins.operand(2).constIntZExt() != 0) return null;
    Value tr = ins.operand(1);
    if (!tr.isInstruction() || tr.opcode() != Opcode.TRUNC) return null;
    int bits = tr.type().intWidth();
    if (bits > 32) return null;
    Value x = tr.operand(0);
    Value umin = null;
    long k = -1;
    if (x.isInstruction() && x.opcode() == Opcode.CALL && x.calledFunction().map(g -> g.name().startsWith("llvm.umin.")).orElse(false)) {
      Value kk = x.operand(1);
      if (!kk.isConstantInt()) return null;
      k = kk.constIntZExt();
      umin = x;
      x = x.operand(0);
    }
    if (!x.isInstruction() || x.opcode() != Opcode.ADD || !x.operand(1).isConstantInt()) return null;
    long c = x.operand(1).constIntZExt();
    Value p = x.operand(0);
    if (!p.isInstruction() || p.opcode() != Opcode.PHI || p.type().intWidth() > 64) return null;
    if (umin != null) {
      // nuw, C and K non-negative and K + C below 2^N
      if (!x.nuw() || c < 0 || k < 0 || bits >= 63 || k + c >= (1L << bits)) return null;
    }
    return new Shape(ins, tr, umin, x, p, c, k);
  }

  static boolean rewrite(IrBuilder b, Function f, Value s, Shape m, int w, boolean maskRegisters) {
    Block h = m.phi().block().orElseThrow();
    Block sb = s.block().orElseThrow();
    int cnt = m.phi().incomingCount();
    for (int i = 0; i < cnt; i++) {
      // the stepped value must be available at the end of each predecessor that passes it
      if (m.phi().incomingValue(i).equals(m.add()) && sb.id() != h.id() && sb.id() != m.phi().incomingBlock(i).id()) return false;
    }
    Type vt = s.type();
    Type et = vt.elementType();
    Value vp = b.before(h.firstInstruction()).phi(vt, s.name().isEmpty() ? "counter" : s.name() + ".vec");
    // the step, where the broadcast was
    b.before(s);
    Value next = b.add(vp, b.splat(b.constInt(et, m.c()), w, ""), "");
    boolean clamped = m.umin() != null;
    if (clamped && scalarClamp(maskRegisters)) {
      // umin(P + C, K) is P + C while the scalar P + C is at most K (then P <= K too, and the vector
      // before the step is trunc(P)); else K. One scalar compare (the counter is there anyway) in place
      // of the vector umin and its constant on the loop-carried counter
      Value in = b.icmpUlt(m.add(), b.constInt(m.add().type(), m.k() + 1), "counter.unclamped");
      next = b.select(in, next, b.splat(b.constInt(et, m.k()), w, ""), "");
    } else if (clamped) {
      next = b.call(f.module().intrinsic("llvm.umin", vt), List.of(next, b.splat(b.constInt(et, m.k()), w, "")), "");
    }
    List<Value> vals = new ArrayList<>(cnt);
    List<Block> bbs = new ArrayList<>(cnt);
    for (int i = 0; i < cnt; i++) {
      Value v = m.phi().incomingValue(i);
      Block from = m.phi().incomingBlock(i);
      if (v.equals(m.add())) {
        vals.add(next);
      } else {
        b.before(from.terminator());
        if (v.isConstantInt()) {
          // (a constant start, folded here: the builder does not fold intrinsic calls)
          long x = clamped && Long.compareUnsigned(v.constIntZExt(), m.k()) > 0 ? m.k() : v.constIntZExt();
          vals.add(b.splat(b.constInt(et, x), w, ""));
        } else {
          Value x = v;
          if (clamped) x = b.call(f.module().intrinsic("llvm.umin", v.type()), List.of(x, b.constInt(v.type(), m.k())), "");
          vals.add(b.splat(b.cast(Opcode.TRUNC, x, et, ""), w, ""));
        }
      }
      bbs.add(from);
    }
    vp.addIncoming(vals, bbs);
    s.replaceAllUsesWith(next);
    s.eraseFromParent();
    if (m.ins().users().isEmpty()) m.ins().eraseFromParent();
    if (m.trunc().users().isEmpty()) m.trunc().eraseFromParent();
    if (m.umin() != null && m.umin().users().isEmpty()) m.umin().eraseFromParent();
    return true;
  }
}
