package org.packetizer.core.widen;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.pipeline.SlotSsa;

/**
 * Select (blend) generation (thesis 4.3). Every scalar phi has a variable; the edge B→S updates it
 * with {@code select(edgeMask, incoming, old)}. LCSSA phis at exits accumulate each lane's value at
 * the iteration it left, which freezes the live values of lanes that left a loop (the thesis' latch
 * selects and combined exit mask do this for non-LCSSA code); the back edge itself therefore writes
 * the header's phis without a blend: only lanes that continue read them again, and dropping the
 * blend takes a select off every loop-carried dependence chain (mandelbrot W8 2.2× → 4.3×). Uniform
 * phis use a scalar select on "any lane took this edge".
 */
final class BlendGenerator extends EmissionPhase {
  BlendGenerator(PacketEmitter e) { super(e.state(), e); }

  SlotSsa.Var phiSlot(Value phi) {
    return phiSlot.computeIfAbsent(phi.id(), a -> {
      Value p = phi;
      SlotSsa.Var v = vars().newVar(slotType(p), nameOf(p));
      // (undefined before the first edge blends into it, as at the function's entry; or the constant
      // that a divergent loop's exiting edges bring, which then need no blend: exitConstant)
      Value init = exitConstant(p).map(c -> b.splat(c, w, "")).orElse(b.poison(slotType(p)));
      st.ssa().blockOf(p).ifPresent(pb -> vars().init(v, head.get(e.maskGenerator.initAnchor(pb)), init));
      return v;
    });
  }

  private final Map<Value, Optional<Value>> exitConstants = new HashMap<>();

  /**
   * Knob: {@code -Dpacketizer.exitConstants=false} blends a divergent loop's constant live-out values
   * in every iteration, as before this round (issue 16, eleventh round); on by default.
   */
  static boolean exitConstantsEnabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.exitConstants", "true"));
  }

  /**
   * The constant that an LCSSA phi of a divergent loop's exit block takes on some of its exiting edges
   * ({@code return -1.0f} after {@code if (t > 40) break;}), or empty. The phi's variable then starts
   * with that constant where it is reset on every entry into the loop ({@link MaskGenerator#initAnchor}:
   * outside the loop, inside every loop that holds the exit block), and those edges write nothing: each
   * lane leaves the loop once, by one edge, and the other edges' blends touch only the lanes that take
   * them, so a lane that leaves by a constant edge still holds the constant. Before, every such edge was
   * a blend in every iteration (with its exit mask, and the uniform parts of that mask broadcast) whose
   * value was known before the loop. Only for a phi whose block's predecessors are all in the one
   * divergent loop (a dedicated exit) and a constant that is not an expression, a pointer or a poison.
   */
  Optional<Value> exitConstant(Value phi) {
    return exitConstants.computeIfAbsent(phi, this::findExitConstant);
  }

  /**
   * Whether the edge from {@code from} to {@code to} writes no phi of {@code to}: every phi's value on
   * that edge is its {@link #exitConstant} (or to has no phis). A uniform latch exit's leave arm is then
   * an empty block (Linearizer's automatic split).
   */
  boolean writesNothing(Block from, Block to) {
    for (Value phi : st.ssa().instructions(to)) {
      if (st.ssa().opcode(phi) != Opcode.PHI) break;
      for (int i = 0; i < phi.incomingCount(); i++) {
        if (!phi.incomingBlock(i).equals(from)) continue;
        Value in = phi.incomingValue(i);
        if (!exitConstant(phi).map(in::equals).orElse(false)) return false;
      }
    }
    return true;
  }

  private Optional<Value> findExitConstant(Value phi) {
    if (!exitConstantsEnabled() || uniform(phi) || st.soa().lanePointerFieldSize(phi).isPresent()) return Optional.empty();
    if (CompositePackets.isComposite(phi.type()) || phi.type().isPointer() || phi.type().isInteger(1)) return Optional.empty();
    var pb = st.ssa().blockOf(phi);
    if (pb.isEmpty()) return Optional.empty();
    var loops = st.cfg().loops();
    Value found = null;
    org.packetizer.analysis.cfg.LoopForest.Loop<Block> exited = null;
    for (int i = 0; i < phi.incomingCount(); i++) {
      Block from = phi.incomingBlock(i);
      // the outermost loop that holds the edge's source and not the phi
      var l = loops.loopOf(from);
      if (l.isEmpty() || l.get().contains(pb.get())) return Optional.empty();
      var loop = l.get();
      while (loop.parent().isPresent() && !loop.parent().get().contains(pb.get())) loop = loop.parent().get();
      if (exited == null) exited = loop;
      else if (!exited.equals(loop)) return Optional.empty();
      Value in = phi.incomingValue(i);
      if (found == null && in.isConstant() && !in.isConstantExpr() && !in.isPoison() && !in.isUndef()) found = in;
    }
    if (found == null || exited == null || !st.divergence().isDivergentLoop(exited)) return Optional.empty();
    // (the variable holds the phi's packet: a splat of the constant of that type)
    if (!b.splat(found, w, "").type().equals(slotType(phi))) return Optional.empty();
    // every predecessor, including any the phi does not list, is in that loop
    for (Block p : st.cfg().cfg().predecessors(pb.get())) if (!exited.contains(p)) return Optional.empty();
    return Optional.of(found);
  }

  /**
   * Blends the phis of {@code to} on the edge from {@code from}, whose mask is {@code edge};
   * {@code old} is to's mask before this edge (the lanes that arrived through earlier edges).
   */
  void blendEdge(Block from, Block to, Value edge, Value old) {
    // the last edge into a block every lane reaches brings every lane the earlier edges did not: its
    // blends can test the earlier edges' mask, which is known sooner (and the edge's own mask, often
    // accumulated over a loop's iterations, is then needed by nobody)
    boolean complement = e.linearizer.reachedByAll(to) && e.linearizer.lastPredecessor(to).map(from::equals).orElse(false);
    // the back edge is taken only while some lane continues, and only those lanes read the header's
    // phis again: lanes that left were frozen by the exit blocks' (LCSSA) phis when they left, so the
    // thesis' latch blend that keeps their old values is not needed
    boolean backEdge = st.cfg().loops().loopWithHeader(to).map(l -> l.contains(from)).orElse(false);
    Value any = null;
    for (Value phi : st.ssa().instructions(to)) {
      if (st.ssa().opcode(phi) != Opcode.PHI) break;
      Value in = null;
      for (int i = 0; i < phi.incomingCount(); i++) {
        if (phi.incomingBlock(i).equals(from)) {
          in = phi.incomingValue(i);
          break;
        }
      }
      if (in == null) continue;
      SlotSsa.Var ps = phiSlot(phi);
      // (the variable starts with this edge's constant on every entry into the loop: nothing to write)
      if (!backEdge && exitConstant(phi).map(in::equals).orElse(false)) {
        st.stats().exitConstants++;
        continue;
      }
      Value cur = vars().read(ps, "");
      Value nv;
      // (no earlier edge wrote the phi's variable since its poison initial value: the blend would be
      // select(edge, in, poison), which is in)
      boolean first = !backEdge && cur.isPoison();
      if (first && st.soa().lanePointerFieldSize(phi).isEmpty()) {
        nv = uniform(phi) ? scal(in) : vec(in);
        if (!uniform(phi)) st.stats().selects++;
      } else if (st.soa().lanePointerFieldSize(phi).isPresent()) {
        Value lanes = e.soa.lanePointers(phi, in);
        nv = MaskOps.isAllTrue(edge) || backEdge || first ? lanes : b.select(edge, lanes, cur, nameOf(phi, ".blend"));
      } else if (backEdge) {
        nv = uniform(phi) ? scal(in) : vec(in);
      } else if (uniform(phi)) {
        if (any == null) any = masks.any(edge, nameOf("any.e.", to));
        nv = b.select(any, scal(in), cur, nameOf(phi, ".blend"));
      } else {
        nv = MaskOps.isAllTrue(edge) ? vec(in)
            : complement ? (MaskOps.isAllFalse(old) ? vec(in) : comp.select(old, cur, vec(in), nameOf(phi, ".blend")))
            : comp.select(edge, vec(in), cur, nameOf(phi, ".blend"));
        st.stats().selects++;
      }
      vars().write(ps, nv);
    }
  }
}
