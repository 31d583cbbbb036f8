package org.packetizer.core.widen;

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
    return phiSlot.computeIfAbsent(phi, p -> {
      SlotSsa.Var v = vars().newVar(slotType(p), p.name());
      // (undefined before the first edge blends into it, as at the function's entry)
      st.ssa().blockOf(p).ifPresent(pb -> vars().init(v, head.get(e.maskGenerator.initAnchor(pb)), b.poison(slotType(p))));
      return v;
    });
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
        nv = MaskOps.isAllTrue(edge) || backEdge || first ? lanes : b.select(edge, lanes, cur, phi.name() + ".blend");
      } else if (backEdge) {
        nv = uniform(phi) ? scal(in) : vec(in);
      } else if (uniform(phi)) {
        if (any == null) any = masks.any(edge, "any.e." + to.name());
        nv = b.select(any, scal(in), cur, phi.name() + ".blend");
      } else {
        nv = MaskOps.isAllTrue(edge) ? vec(in)
            : complement ? (MaskOps.isAllFalse(old) ? vec(in) : comp.select(old, cur, vec(in), phi.name() + ".blend"))
            : comp.select(edge, vec(in), cur, phi.name() + ".blend");
        st.stats().selects++;
      }
      vars().write(ps, nv);
    }
  }
}
