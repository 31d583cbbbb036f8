package org.packetizer.core.widen;

import java.util.HashMap;
import java.util.Map;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.pipeline.SlotSsa;

/**
 * Mask generation (thesis 4.2). Every scalar block has a mask variable; an edge B→S ORs its edge
 * mask ({@code blockMask(B)} and the branch condition, or its negation) into S's variable, and S's
 * head reads it (clearing it when S is in a loop, so the next iteration accumulates afresh). A loop
 * header's variable thus holds the preheader's mask on entry and the latch edge's mask afterwards;
 * an exit block's variable accumulates the lanes that left through it over all iterations (the
 * thesis' exit masks). Each edge's phis are blended by the {@link BlendGenerator}.
 */
final class MaskGenerator extends EmissionPhase {
  MaskGenerator(PacketEmitter e) { super(e.state(), e); }

  /**
   * Knob {@code -Dpacketizer.joinMaskShortcut=false}: accumulate a join's mask from a branch's two edges
   * as {@code or(edge1, edge2)}, as before the sixteenth round; on by default (see {@link #contribute}).
   */
  static boolean joinShortcutEnabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.joinMaskShortcut", "true"));
  }

  private final boolean joinShortcut = joinShortcutEnabled();

  /** Each edge mask made by {@link #edgeMasks} → {sibling edge mask, the mask the two split}. */
  private final Map<Value, Value[]> siblings = new HashMap<>();

  SlotSsa.Var maskSlot(Block sb) {
    return maskSlot.computeIfAbsent(sb.id(), a -> {
      SlotSsa.Var slot = vars().newVar(masks.maskType(), nameOf("m.", sb));
      // no lane has arrived yet: at the function's entry and (to keep the live range short) again at
      // the head of the block that decides about every way into sb
      vars().init(slot, allocaBlock(), masks.allFalse());
      vars().init(slot, head.get(initAnchor(sb)), masks.allFalse());
      return slot;
    });
  }

  /**
   * Where state flowing into scalar block {@code sb} (its mask, its phis' blends) may be reset: the
   * head of sb's immediate dominator, moved out of every loop that does not contain sb (a reset
   * inside such a loop would drop lanes that arrived in earlier iterations). Every path into sb
   * passes there before any edge contributes, and no contribution is ever needed across it.
   */
  Block initAnchor(Block sb) {
    return initAnchor.computeIfAbsent(sb, s -> {
      var dom = st.cfg().dom();
      var loops = st.cfg().loops();
      Block d = dom.idom(s).orElse(s);
      var l = loops.loopOf(d);
      while (l.isPresent() && !l.get().contains(s)) {
        d = dom.idom(l.get().header()).orElse(d);
        l = loops.loopOf(d);
      }
      return d;
    });
  }

  /**
   * The masks of the two edges of {@code sb}'s conditional branch on {@code c} to {@code s1} (taken
   * when c holds) and {@code s2}: {@code blockMask(sb) AND c} and {@code blockMask(sb) AND NOT c}.
   */
  Value[] edgeMasks(Block sb, Value c, Block s1, Block s2) {
    Value cond = uniform(c) ? scal(c) : vec(c);
    Value m = mask();
    Value e1 = masks.and(m, cond, names ? "e." + sb.name() + "." + s1.name() : "");
    Value e2 = masks.andNot(m, cond, names ? "e." + sb.name() + "." + s2.name() : "");
    if (joinShortcut && !e1.equals(e2)) {
      siblings.put(e1, new Value[] {e2, m});
      siblings.put(e2, new Value[] {e1, m});
    }
    return new Value[] {e1, e2};
  }

  /** Edge B→S with edge mask {@code edge}: OR it into S's mask and blend S's phis ({@link BlendGenerator}). */
  void contribute(Block from, Block to, Value edge) {
    if (!st.schedule().isScheduled(to)) return;
    if (MaskOps.isAllFalse(edge)) return;
    SlotSsa.Var slot = maskSlot(to);
    Value old = vars().read(slot, "");
    // (join shortcut: when the mask so far is exactly the other edge of the branch this edge leaves, the
    // two together are the branch block's mask m: (m AND c) OR (m AND NOT c) = m in every lane where m
    // is false (both false) and where c is defined; where m is true and c is poison the scalar function
    // branched on poison, undefined behaviour, so any value refines it. m is an operand of both edge
    // masks (or a constant), so it is available wherever they are. This leaves InstCombine one fold less
    // per two-armed join, which it would make anyway, issue 16.)
    Value[] sib = joinShortcut ? siblings.get(edge) : null;
    Value acc = sib != null && sib[0].equals(old) ? sib[1] : masks.or(old, edge, nameOf("m.acc.", to));
    vars().write(slot, acc);
    e.blends.blendEdge(from, to, edge, old);
  }
}
