package org.packetizer.core.widen;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.packetizer.analysis.cfg.DominatorTree;

/**
 * Answers "how far, from a schedule position on, does the schedule stay inside the blocks that
 * {@code h} dominates?" in O(log n) per question.
 *
 * <p>A block's dominated blocks are an interval of the dominator tree's preorder numbering. Range
 * minimum and maximum tables (sparse tables) over the preorder numbers of the scheduled blocks, in
 * schedule order, then give the end of the longest run from a start position whose numbers all lie
 * in the interval by binary lifting. Building costs O(n log n) once per packetization; walking the
 * run per loop instead costs the rest of the function per loop when the function is a long chain
 * (quadratic in its size).
 */
final class DominatedStretches<B> {
  private final int n;
  private final int[][] min;
  private final int[][] max;
  private final Map<B, Integer> pre = new HashMap<>();
  private final Map<B, Integer> last = new HashMap<>();

  DominatedStretches(List<B> order, DominatorTree<B> dom) {
    List<B> preorder = dom.preorder();
    for (int i = 0; i < preorder.size(); i++) pre.put(preorder.get(i), i);
    // the last preorder number in each block's subtree: children come after their parent in preorder
    int[] lastOf = new int[preorder.size()];
    for (int i = preorder.size() - 1; i >= 0; i--) {
      int l = i;
      for (B c : dom.children(preorder.get(i))) l = Math.max(l, lastOf[pre.get(c)]);
      lastOf[i] = l;
    }
    for (int i = 0; i < preorder.size(); i++) last.put(preorder.get(i), lastOf[i]);
    n = order.size();
    int levels = 1;
    while ((1 << levels) <= n) levels++;
    min = new int[levels][];
    max = new int[levels][];
    min[0] = new int[n];
    max[0] = new int[n];
    for (int i = 0; i < n; i++) {
      Integer p = pre.get(order.get(i));
      // (a scheduled block is reachable; -1 would end every stretch, which is the safe answer)
      min[0][i] = max[0][i] = p == null ? -1 : p;
    }
    for (int k = 1; k < levels; k++) {
      int len = n - (1 << k) + 1;
      min[k] = new int[Math.max(0, len)];
      max[k] = new int[Math.max(0, len)];
      int half = 1 << (k - 1);
      for (int i = 0; i < len; i++) {
        min[k][i] = Math.min(min[k - 1][i], min[k - 1][i + half]);
        max[k][i] = Math.max(max[k - 1][i], max[k - 1][i + half]);
      }
    }
  }

  /**
   * The first position at or after {@code start} whose block {@code h} does not dominate (n when it
   * dominates all of them).
   */
  int end(B h, int start) {
    Integer lo = pre.get(h);
    if (lo == null) return start;
    int hi = last.get(h);
    int e = start;
    for (int k = min.length - 1; k >= 0; k--) {
      if (e + (1 << k) <= n && min[k][e] >= lo && max[k][e] <= hi) e += 1 << k;
    }
    return e;
  }
}
