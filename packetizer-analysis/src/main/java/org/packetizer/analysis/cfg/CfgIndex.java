package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Internal dense numbering of the blocks reachable from the entry of a {@link Cfg}. Block ids are
 * reverse-postorder numbers of an iterative depth-first search that visits successors in edge order,
 * so the entry has id 0 and every forward (non-retreating) edge goes from a smaller to a larger id.
 * Unreachable blocks have no id.
 */
final class CfgIndex<B> {
  final Cfg<B> cfg;
  final int n;
  private final List<B> blocks;
  private final Map<B, Integer> ids;
  /** Id by the graph's block number ({@link Cfg#number}; -1 unreachable), or null when it has none. */
  private final int[] idByNumber;
  /** Successor ids in edge order (duplicates kept). */
  final int[][] succ;
  /** Distinct reachable predecessor ids in ascending order. */
  final int[][] pred;

  private CfgIndex(Cfg<B> cfg, List<B> blocks, Map<B, Integer> ids, int[] idByNumber, int[][] succ, int[][] pred) {
    this.cfg = cfg;
    this.n = blocks.size();
    this.blocks = blocks;
    this.ids = ids;
    this.idByNumber = idByNumber;
    this.succ = succ;
    this.pred = pred;
  }

  static <B> CfgIndex<B> of(Cfg<B> cfg) {
    Map<B, List<B>> succLists = new HashMap<>();
    Map<B, Integer> state = new HashMap<>(); // present = discovered
    List<B> post = new ArrayList<>();
    // iterative DFS: stack of blocks and their next successor position
    List<B> stackB = new ArrayList<>();
    int[] stackI = new int[16];
    B entry = cfg.entry();
    succLists.put(entry, cfg.successors(entry));
    state.put(entry, 0);
    stackB.add(entry);
    int sp = 1;
    while (sp > 0) {
      B b = stackB.get(sp - 1);
      List<B> ss = succLists.get(b);
      int i = stackI[sp - 1];
      if (i < ss.size()) {
        stackI[sp - 1] = i + 1;
        B s = ss.get(i);
        if (!state.containsKey(s)) {
          state.put(s, 0);
          succLists.put(s, cfg.successors(s));
          if (sp == stackI.length) stackI = java.util.Arrays.copyOf(stackI, sp * 2);
          if (stackB.size() == sp) stackB.add(s); else stackB.set(sp, s);
          stackI[sp] = 0;
          sp++;
        }
      } else {
        post.add(b);
        sp--;
      }
    }
    Collections.reverse(post);
    int n = post.size();
    Map<B, Integer> ids = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) ids.put(post.get(i), i);
    int[][] succ = new int[n][];
    int[] predCount = new int[n];
    for (int i = 0; i < n; i++) {
      List<B> ss = succLists.get(post.get(i));
      int[] a = new int[ss.size()];
      for (int k = 0; k < a.length; k++) a[k] = ids.get(ss.get(k));
      succ[i] = a;
    }
    int[] lastAdded = new int[n];
    java.util.Arrays.fill(lastAdded, -1);
    for (int u = 0; u < n; u++) {
      for (int v : succ[u]) {
        if (lastAdded[v] != u) {
          lastAdded[v] = u;
          predCount[v]++;
        }
      }
    }
    int[][] pred = new int[n][];
    for (int v = 0; v < n; v++) pred[v] = new int[predCount[v]];
    int[] fill = new int[n];
    java.util.Arrays.fill(lastAdded, -1);
    for (int u = 0; u < n; u++) {
      for (int v : succ[u]) {
        if (lastAdded[v] != u) {
          lastAdded[v] = u;
          pred[v][fill[v]++] = u;
        }
      }
    }
    int[] idByNumber = null;
    int numbers = cfg.numberCount();
    if (numbers > 0) {
      idByNumber = new int[numbers];
      java.util.Arrays.fill(idByNumber, -1);
      for (int i = 0; i < n; i++) {
        int k = cfg.number(post.get(i));
        if (k < 0 || k >= numbers || idByNumber[k] >= 0) {
          throw new IllegalStateException("block numbers not dense and distinct: " + post.get(i) + " has " + k);
        }
        idByNumber[k] = i;
      }
    }
    return new CfgIndex<>(cfg, Collections.unmodifiableList(post), ids, idByNumber, succ, pred);
  }

  /** The id of a block, or -1 when it is unreachable or not in the graph. */
  int id(B b) {
    if (idByNumber != null) {
      int k = cfg.number(b);
      return k < 0 || k >= idByNumber.length ? -1 : idByNumber[k];
    }
    Integer i = ids.get(b);
    return i == null ? -1 : i;
  }

  B block(int id) { return blocks.get(id); }

  /** Reachable blocks in id (reverse post-) order. */
  List<B> blocks() { return blocks; }

  /** Distinct successors of u, in first-occurrence edge order. */
  int[] distinctSucc(int u) {
    int[] s = succ[u];
    if (s.length <= 1) return s;
    if (s.length == 2) return s[0] == s[1] ? new int[] {s[0]} : s;
    int[] out = new int[s.length];
    int k = 0;
    outer:
    for (int v : s) {
      for (int j = 0; j < k; j++) if (out[j] == v) continue outer;
      out[k++] = v;
    }
    return k == s.length ? s : java.util.Arrays.copyOf(out, k);
  }

  /** Ids to blocks, as an unmodifiable ordered set. */
  java.util.Set<B> toSet(int[] ids, int len) {
    java.util.LinkedHashSet<B> out = new java.util.LinkedHashSet<>();
    for (int i = 0; i < len; i++) out.add(blocks.get(ids[i]));
    return Collections.unmodifiableSet(out);
  }

  java.util.Set<B> toSet(int[] ids) { return toSet(ids, ids.length); }

  List<B> toList(int[] ids) {
    List<B> out = new ArrayList<>(ids.length);
    for (int i : ids) out.add(blocks.get(i));
    return Collections.unmodifiableList(out);
  }
}
