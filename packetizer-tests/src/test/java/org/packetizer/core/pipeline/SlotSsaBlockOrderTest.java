package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The order in which {@link SlotSsa#resolve} materializes its phis ({@link SlotSsa#inBlockOrder}: by
 * block in reverse postorder, then by variable), which decides the order of the phis at a block's top in
 * the packet function: the linear counting sort must give exactly the comparator's order.
 */
class SlotSsaBlockOrderTest {
  record P(int var, int block) {}

  private static final Comparator<P> BY_BLOCK_THEN_VAR = Comparator.comparingInt(P::block).thenComparingInt(P::var);

  /** Phis as resolve lists them: variable by variable, each variable's blocks in any order, at most one per block. */
  private static List<P> perVariable(Random r, int vars, int blocks) {
    List<P> out = new ArrayList<>();
    for (int v = 0; v < vars; v++) {
      List<Integer> bs = new ArrayList<>();
      for (int b = 0; b < blocks; b++) if (r.nextInt(4) == 0) bs.add(b);
      java.util.Collections.shuffle(bs, r);
      for (int b : bs) out.add(new P(v, b));
    }
    return out;
  }

  @Test
  void countingSortGivesTheComparatorsOrder() {
    Random r = new Random(42);
    for (int round = 0; round < 200; round++) {
      int blocks = 1 + r.nextInt(60);
      List<P> phis = perVariable(r, r.nextInt(40), blocks);
      List<P> expected = new ArrayList<>(phis);
      expected.sort(BY_BLOCK_THEN_VAR);
      List<P> got = SlotSsa.inBlockOrder(phis, P::block, P::var, blocks);
      assertEquals(expected, got, "round " + round);
    }
  }

  @Test
  void aListNotInVariableOrderIsSortedToo() {
    List<P> phis = List.of(new P(2, 0), new P(0, 1), new P(1, 0), new P(0, 0), new P(3, 2));
    assertEquals(List.of(new P(0, 0), new P(1, 0), new P(2, 0), new P(0, 1), new P(3, 2)),
        SlotSsa.inBlockOrder(phis, P::block, P::var, 3));
  }

  @Test
  void emptyAndSingle() {
    assertEquals(List.of(), SlotSsa.inBlockOrder(List.<P>of(), P::block, P::var, 5));
    assertEquals(List.of(new P(7, 4)), SlotSsa.inBlockOrder(List.of(new P(7, 4)), P::block, P::var, 5));
  }
}
