package org.packetizer.analysis.cfg;

import java.util.Set;

/**
 * Control dependence (Ferrante, Ottenstein and Warren, 1987): block {@code b} is control dependent on
 * the edge {@code a -> s} when {@code b} post-dominates {@code s} but does not strictly
 * post-dominate {@code a}; {@code a} is then a <em>controlling block</em> of {@code b} — its branch
 * decides whether {@code b} executes. The controlling blocks of {@code b} are exactly its
 * post-dominance frontier (Cytron et al. 1991), which is how they are computed. A block can control
 * itself (a loop's exiting latch, for example).
 *
 * <p>Post-dominance is taken with the {@link PostDominatorTree}'s virtual exit, so blocks in infinite
 * loops get control dependences too. Unreachable blocks have none. Instances are immutable.
 */
public final class ControlDependence<B> {
  private final CfgIndex<B> index;
  private final int[][] controlling;
  private final int[][] dependents;

  private ControlDependence(CfgIndex<B> index, int[][] controlling, int[][] dependents) {
    this.index = index;
    this.controlling = controlling;
    this.dependents = dependents;
  }

  /** Computes control dependences from the post-dominator tree of {@code cfg}. */
  public static <B> ControlDependence<B> compute(Cfg<B> cfg, PostDominatorTree<B> pdt) {
    if (pdt.cfg() != cfg) throw new IllegalArgumentException("post-dominator tree of another CFG");
    CfgIndex<B> index = pdt.index();
    int n = index.n;
    int[][] ctl = new int[n][];
    int[] cnt = new int[n];
    for (int b = 0; b < n; b++) {
      Set<B> f = pdt.postDominanceFrontier(index.block(b));
      int[] a = new int[f.size()];
      int k = 0;
      for (B x : f) a[k++] = index.id(x);
      ctl[b] = a;
      for (int x : a) cnt[x]++;
    }
    int[][] dep = new int[n][];
    for (int a = 0; a < n; a++) dep[a] = new int[cnt[a]];
    int[] fill = new int[n];
    for (int b = 0; b < n; b++) for (int a : ctl[b]) dep[a][fill[a]++] = b;
    return new ControlDependence<>(index, ctl, dep);
  }

  /** The blocks whose branches decide whether {@code b} executes (reverse postorder). */
  public Set<B> controllingBlocks(B b) {
    int i = index.id(b);
    return i < 0 ? Set.of() : index.toSet(controlling[i]);
  }

  /** The blocks control dependent on {@code branch} (reverse postorder). */
  public Set<B> dependents(B branch) {
    int i = index.id(branch);
    return i < 0 ? Set.of() : index.toSet(dependents[i]);
  }
}
