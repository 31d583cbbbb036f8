package org.packetizer.core.linearize;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.LinearizationOrder;
import org.packetizer.analysis.cfg.LoopForest;

/**
 * The linearized block order of thesis 4.4.1 with the properties the emitter relies on: reachable
 * blocks only, topological over forward edges, every loop contiguous with its header first and its
 * (single) latch last. It also answers, per position, where execution continues after a block, after
 * a loop, and where a block with an all-false mask can skip to.
 */
public final class Schedule<B> {
  private final List<B> order;
  private final Map<B, Integer> position = new HashMap<>();
  private final CfgAnalyses<B> cfg;
  /** For each loop header: the position just after the loop's interval. */
  private final Map<B, Integer> loopEnd = new HashMap<>();

  private Schedule(List<B> order, CfgAnalyses<B> cfg) {
    this.order = List.copyOf(order);
    this.cfg = cfg;
    for (int i = 0; i < order.size(); i++) position.put(order.get(i), i);
    for (LoopForest.Loop<B> l : cfg.loops().all()) {
      int last = -1;
      int first = Integer.MAX_VALUE;
      for (B b : l.blocks()) {
        Integer p = position.get(b);
        if (p == null) continue;
        last = Math.max(last, p);
        first = Math.min(first, p);
      }
      if (first != position.get(l.header())) {
        throw new IllegalStateException("loop header " + l.header() + " is not first in its interval");
      }
      if (last - first + 1 != l.blocks().size()) {
        throw new IllegalStateException("loop with header " + l.header() + " is not contiguous in " + order);
      }
      loopEnd.put(l.header(), last + 1);
    }
  }

  /**
   * Computes the schedule. Requires a reducible CFG whose loops have one latch each that is not
   * inside a subloop (LLVM's loop-simplify form).
   */
  public static <B> Schedule<B> compute(CfgAnalyses<B> cfg) {
    List<B> order = new ArrayList<>(LinearizationOrder.compute(cfg.cfg(), cfg.loops()));
    // Move every latch to the end of its loop's interval (innermost first). Valid because a latch
    // has no forward successors inside its loop and is not part of a subloop.
    // (positions are kept up to date as latches move: a move only shifts blocks of its own loop, so the
    // work is the sum of the loop sizes, not the number of loops times the function's size)
    List<LoopForest.Loop<B>> loops = new ArrayList<>(cfg.loops().all());
    java.util.Collections.reverse(loops);
    Map<B, Integer> pos = new HashMap<>();
    for (int i = 0; i < order.size(); i++) pos.put(order.get(i), i);
    for (LoopForest.Loop<B> l : loops) {
      if (l.latches().size() != 1) {
        throw new IllegalStateException("loop with header " + l.header() + " has " + l.latches().size() + " latches");
      }
      B latch = l.latches().getFirst();
      int last = -1;
      for (B b : l.blocks()) {
        Integer p = pos.get(b);
        if (p != null && p > last) last = p;
      }
      Integer at = pos.get(latch);
      if (at == null) throw new IllegalStateException("latch " + latch + " of the loop with header " + l.header() + " is not scheduled");
      if (at != last) {
        order.remove((int) at);
        order.add(last, latch);
        for (int i = Math.min(at, last); i <= Math.max(at, last); i++) pos.put(order.get(i), i);
      }
    }
    return new Schedule<>(order, cfg);
  }

  public List<B> order() { return order; }

  public int position(B b) {
    Integer p = position.get(b);
    if (p == null) throw new IllegalArgumentException("block not scheduled: " + b);
    return p;
  }

  public boolean isScheduled(B b) { return position.containsKey(b); }

  /** The block after {@code b} in the order, or empty after the last block. */
  public Optional<B> next(B b) {
    int p = position(b) + 1;
    return p < order.size() ? Optional.of(order.get(p)) : Optional.empty();
  }

  /** The first block after the loop with this header, or empty when the loop ends the order. */
  public Optional<B> afterLoop(B header) {
    int p = loopEnd.get(header);
    return p < order.size() ? Optional.of(order.get(p)) : Optional.empty();
  }

  /** The innermost loop whose latch is {@code b}. */
  public Optional<LoopForest.Loop<B>> loopLatchedBy(B b) {
    return cfg.loops().loopOf(b).filter(l -> l.isLatch(b));
  }

  /** Whether {@code b} is the header of a loop. */
  public Optional<LoopForest.Loop<B>> loopHeadedBy(B b) {
    return cfg.loops().loopOf(b).filter(l -> l.header().equals(b));
  }

  /**
   * Where execution goes when {@code b} has no active lane: past the loop for a header (no lane
   * enters the loop) or a latch (no lane goes round again), else the next block.
   */
  public Optional<B> skipTarget(B b) {
    Optional<LoopForest.Loop<B>> headed = loopHeadedBy(b);
    if (headed.isPresent()) return afterLoop(b);
    Optional<LoopForest.Loop<B>> latched = loopLatchedBy(b);
    if (latched.isPresent()) return afterLoop(latched.get().header());
    return next(b);
  }
}
