package org.packetizer.analysis.cfg;

import java.util.List;

/**
 * All CFG analyses of one function, computed once and consistent with each other: dominators,
 * post-dominators, the loop forest, sync dependence and the linearization order. Immutable.
 *
 * @param cfg the control-flow graph
 * @param dom its dominator tree
 * @param pdt its post-dominator tree
 * @param loops its loop forest
 * @param sync sync dependences of all branch blocks
 * @param order the {@link LinearizationOrder} of the reachable blocks
 */
public record CfgAnalyses<B>(Cfg<B> cfg, DominatorTree<B> dom, PostDominatorTree<B> pdt, LoopForest<B> loops,
    SyncDependence<B> sync, List<B> order) {

  /**
   * Computes every analysis of {@code cfg}.
   *
   * @throws IrreducibleCfgException if the reachable CFG is irreducible
   */
  public static <B> CfgAnalyses<B> of(Cfg<B> cfg) {
    CfgIndex<B> index = CfgIndex.of(cfg);
    DominatorTree<B> dom = DominatorTree.compute(index);
    PostDominatorTree<B> pdt = PostDominatorTree.compute(index);
    LoopForest<B> loops = LoopForest.compute(cfg, dom);
    int[] orderIds = LinearizationOrder.computeIds(loops);
    SyncDependence<B> sync = SyncDependence.compute(loops, pdt, orderIds);
    return new CfgAnalyses<>(cfg, dom, pdt, loops, sync, index.toList(orderIds));
  }

  /** Control dependences (computed on each call; cheap). */
  public ControlDependence<B> controlDependence() {
    return ControlDependence.compute(cfg, pdt);
  }

  /** Whether {@code b} is reachable from the entry. */
  public boolean isReachable(B b) { return dom.isReachable(b); }
}
