package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The block order for CFG linearization (thesis section 4.4.1): all reachable blocks, topologically
 * sorted with back edges ignored, recursively over the loop tree.
 *
 * <p>Guarantees, for a reducible CFG:
 *
 * <ul>
 *   <li>every reachable block appears exactly once; the entry is first;
 *   <li>for every edge {@code u -> v} that is not a back edge, {@code u} comes before {@code v};
 *   <li>the blocks of every loop (including its nested loops) are contiguous, header first;
 *   <li>a loop is placed after its entering blocks; with a preheader (loop-simplified form) it
 *       immediately follows the preheader;
 *   <li>the order is deterministic: at each level the order is the reverse postorder of a DFS that
 *       treats every nested loop as one node (its header, with the loop's exit blocks as successors)
 *       and visits successors in reverse edge order, so on a two-way branch the blocks reached
 *       through the first ("true") successor come first, e.g. {@code if/then/else/join}.
 * </ul>
 */
public final class LinearizationOrder {
  private LinearizationOrder() {}

  /** Computes the order. {@code loops} must be the loop forest of {@code cfg}. */
  public static <B> List<B> compute(Cfg<B> cfg, LoopForest<B> loops) {
    if (loops.cfg() != cfg) throw new IllegalArgumentException("loop forest of another CFG");
    int[] ids = computeIds(loops);
    return loops.index().toList(ids);
  }

  /** The order as block ids. */
  static <B> int[] computeIds(LoopForest<B> loops) {
    CfgIndex<B> index = loops.index();
    int nl = loops.all().size();
    int[][] regionOrder = new int[nl + 1][];
    int[] mark = new int[index.n];
    regionOrder[nl] = regionRpo(loops, -1, 0, mark, 1);
    for (int l = 0; l < nl; l++) regionOrder[l] = regionRpo(loops, l, loops.loop(l).headerId, mark, l + 2);
    // expand nested loops in place
    int[] out = new int[index.n];
    int oc = 0;
    int[][] stackList = new int[nl + 2][];
    int[] stackPos = new int[nl + 2];
    int[] stackRegion = new int[nl + 2];
    int sp = 0;
    stackList[sp] = regionOrder[nl];
    stackRegion[sp] = -1;
    stackPos[sp++] = 0;
    while (sp > 0) {
      int[] list = stackList[sp - 1];
      int pos = stackPos[sp - 1];
      if (pos == list.length) {
        sp--;
        continue;
      }
      stackPos[sp - 1] = pos + 1;
      int u = list[pos];
      int r = stackRegion[sp - 1];
      int c = loops.innermost[u];
      if (c != r && (r == -1 || pos > 0)) {
        // u is the header of child loop c: splice the child's order
        stackList[sp] = regionOrder[c];
        stackRegion[sp] = c;
        stackPos[sp++] = 0;
      } else {
        out[oc++] = u;
      }
    }
    return Arrays.copyOf(out, oc);
  }

  /** Successors of node u in the collapsed DAG of region r (r = -1: whole function). */
  static <B> int[] dagSuccessors(LoopForest<B> loops, int r, int u) {
    CfgIndex<B> index = loops.index();
    int c = loops.innermost[u];
    int rootHeader = r < 0 ? -1 : loops.loop(r).headerId;
    int[] raw;
    if (c != r && u != rootHeader) {
      raw = loops.loop(c).exitIds; // u is a child header: the child loop is one node
    } else {
      raw = index.succ[u];
    }
    int[] out = new int[raw.length];
    int k = 0;
    for (int t : raw) {
      if (t == rootHeader) continue; // back edge
      if (r >= 0 && !loops.containsId(r, t)) continue; // leaves the region
      out[k++] = t;
    }
    return k == out.length ? out : Arrays.copyOf(out, k);
  }

  private static <B> int[] regionRpo(LoopForest<B> loops, int r, int root, int[] mark, int stamp) {
    int[] post = new int[16];
    int pc = 0;
    List<int[]> stackS = new ArrayList<>();
    List<Integer> stackN = new ArrayList<>();
    int[] stackI = new int[16];
    mark[root] = stamp;
    stackN.add(root);
    stackS.add(dagSuccessors(loops, r, root));
    stackI[0] = 0;
    while (!stackN.isEmpty()) {
      int top = stackN.size() - 1;
      int[] ss = stackS.get(top);
      int i = stackI[top];
      if (i < ss.length) {
        stackI[top] = i + 1;
        int v = ss[ss.length - 1 - i]; // reverse edge order
        if (mark[v] != stamp) {
          mark[v] = stamp;
          stackN.add(v);
          stackS.add(dagSuccessors(loops, r, v));
          if (stackN.size() > stackI.length) stackI = Arrays.copyOf(stackI, stackI.length * 2);
          stackI[stackN.size() - 1] = 0;
        }
      } else {
        if (pc == post.length) post = Arrays.copyOf(post, pc * 2);
        post[pc++] = stackN.removeLast();
        stackS.removeLast();
      }
    }
    int[] rpo = new int[pc];
    for (int i = 0; i < pc; i++) rpo[i] = post[pc - 1 - i];
    return rpo;
  }
}
