package org.packetizer.analysis.cfg;

import java.util.Arrays;

/**
 * Internal graph algorithms on dense int graphs ({@code succ[u]} lists the successors of node u).
 * Everything is iterative so that graphs of 10^5+ nodes never overflow the Java stack.
 */
final class IntGraphs {
  private IntGraphs() {}

  /** Reverse postorder of the nodes reachable from root (successors visited in list order). */
  static int[] reversePostorder(int n, int root, int[][] succ) {
    int[] post = new int[n];
    int pc = 0;
    boolean[] seen = new boolean[n];
    int[] stackN = new int[Math.max(4, n)];
    int[] stackI = new int[Math.max(4, n)];
    int sp = 0;
    stackN[sp] = root;
    stackI[sp++] = 0;
    seen[root] = true;
    while (sp > 0) {
      int u = stackN[sp - 1];
      int i = stackI[sp - 1];
      if (i < succ[u].length) {
        stackI[sp - 1] = i + 1;
        int v = succ[u][i];
        if (!seen[v]) {
          seen[v] = true;
          stackN[sp] = v;
          stackI[sp++] = 0;
        }
      } else {
        post[pc++] = u;
        sp--;
      }
    }
    int[] rpo = new int[pc];
    for (int i = 0; i < pc; i++) rpo[i] = post[pc - 1 - i];
    return rpo;
  }

  /**
   * Immediate dominators by the Cooper–Harvey–Kennedy iterative algorithm ("A Simple, Fast Dominance
   * Algorithm", 2001): nodes are visited in reverse postorder and each node's dominator is the
   * intersection (walk-up by postorder number) of its processed predecessors' dominators, repeated
   * until stable. Returns idom with {@code idom[root] == -1} and {@code idom[u] == -2} for nodes not
   * reachable from root.
   */
  static int[] immediateDominators(int n, int root, int[][] succ) {
    int[] rpo = reversePostorder(n, root, succ);
    int[] rpoNum = new int[n];
    Arrays.fill(rpoNum, -1);
    for (int i = 0; i < rpo.length; i++) rpoNum[rpo[i]] = i;
    // predecessors among reachable nodes
    int[] cnt = new int[n];
    for (int u : rpo) for (int v : succ[u]) cnt[v]++;
    int[][] pred = new int[n][];
    for (int v = 0; v < n; v++) pred[v] = new int[cnt[v]];
    int[] fill = new int[n];
    for (int u : rpo) for (int v : succ[u]) pred[v][fill[v]++] = u;
    int[] idom = new int[n];
    Arrays.fill(idom, -2);
    idom[root] = root;
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int k = 1; k < rpo.length; k++) {
        int v = rpo[k];
        int nd = -1;
        for (int p : pred[v]) {
          if (idom[p] == -2) continue;
          if (nd == -1) {
            nd = p;
          } else {
            int a = p, b = nd;
            while (a != b) {
              while (rpoNum[a] > rpoNum[b]) a = idom[a];
              while (rpoNum[b] > rpoNum[a]) b = idom[b];
            }
            nd = a;
          }
        }
        if (nd != -1 && idom[v] != nd) {
          idom[v] = nd;
          changed = true;
        }
      }
    }
    idom[root] = -1;
    return idom;
  }

  /**
   * Immediate dominators by the Lengauer–Tarjan algorithm with path compression (O(e log n)), fully
   * iterative. Same result convention as {@link #immediateDominators}. Used for the per-loop trees of
   * {@link SyncDependence}, where deeply nested loops make the iterative algorithm quadratic.
   */
  static int[] immediateDominatorsLT(int n, int root, int[][] succ) {
    int[] dfnum = new int[n]; // 0 = unvisited, else 1-based preorder number
    int[] vertex = new int[n + 1];
    int[] parent = new int[n];
    int count = 0;
    int[] stackN = new int[Math.max(4, n)];
    int[] stackI = new int[Math.max(4, n)];
    int sp = 0;
    dfnum[root] = ++count;
    vertex[count] = root;
    parent[root] = -1;
    stackN[sp] = root;
    stackI[sp++] = 0;
    while (sp > 0) {
      int u = stackN[sp - 1];
      int i = stackI[sp - 1];
      if (i < succ[u].length) {
        stackI[sp - 1] = i + 1;
        int v = succ[u][i];
        if (dfnum[v] == 0) {
          dfnum[v] = ++count;
          vertex[count] = v;
          parent[v] = u;
          stackN[sp] = v;
          stackI[sp++] = 0;
        }
      } else {
        sp--;
      }
    }
    int[] cnt = new int[n];
    for (int k = 1; k <= count; k++) for (int v : succ[vertex[k]]) cnt[v]++;
    int[][] pred = new int[n][];
    for (int v = 0; v < n; v++) pred[v] = new int[cnt[v]];
    int[] fill = new int[n];
    for (int k = 1; k <= count; k++) {
      int u = vertex[k];
      for (int v : succ[u]) pred[v][fill[v]++] = u;
    }
    int[] semi = new int[n];
    int[] label = new int[n];
    int[] ancestor = new int[n];
    int[] idom = new int[n];
    java.util.Arrays.fill(ancestor, -1);
    for (int v = 0; v < n; v++) {
      semi[v] = dfnum[v];
      label[v] = v;
    }
    // buckets as linked lists
    int[] bucketHead = new int[n];
    int[] bucketNext = new int[n];
    java.util.Arrays.fill(bucketHead, -1);
    int[] path = new int[Math.max(4, n)];
    for (int k = count; k >= 2; k--) {
      int w = vertex[k];
      for (int v : pred[w]) {
        int u = eval(v, ancestor, label, semi, path);
        if (semi[u] < semi[w]) semi[w] = semi[u];
      }
      int sv = vertex[semi[w]];
      bucketNext[w] = bucketHead[sv];
      bucketHead[sv] = w;
      int p = parent[w];
      ancestor[w] = p;
      for (int v = bucketHead[p]; v != -1; v = bucketNext[v]) {
        int u = eval(v, ancestor, label, semi, path);
        idom[v] = semi[u] < semi[v] ? u : p;
      }
      bucketHead[p] = -1;
    }
    for (int k = 2; k <= count; k++) {
      int w = vertex[k];
      if (idom[w] != vertex[semi[w]]) idom[w] = idom[idom[w]];
    }
    int[] out = new int[n];
    java.util.Arrays.fill(out, -2);
    for (int k = 2; k <= count; k++) out[vertex[k]] = idom[vertex[k]];
    out[root] = -1;
    return out;
  }

  private static int eval(int v, int[] ancestor, int[] label, int[] semi, int[] path) {
    if (ancestor[v] == -1) return v;
    // compress the path from v to the forest root (iteratively)
    int len = 0;
    int x = v;
    while (ancestor[ancestor[x]] != -1) {
      path[len++] = x;
      x = ancestor[x];
    }
    for (int i = len - 1; i >= 0; i--) {
      int y = path[i];
      int a = ancestor[y];
      if (semi[label[a]] < semi[label[y]]) label[y] = label[a];
      ancestor[y] = ancestor[a];
    }
    return label[v];
  }

  /** A rooted tree given by parent pointers, with children lists and DFS pre/post numbers. */
  static final class Tree {
    final int root;
    /** parent[root] == -1, parent[u] == -2 for nodes not in the tree. */
    final int[] parent;
    final int[][] children;
    final int[] pre;
    final int[] post;
    final int[] depth;
    /** Nodes in preorder (children in ascending id order). */
    final int[] preorder;

    Tree(int root, int[] parent) {
      int n = parent.length;
      this.root = root;
      this.parent = parent;
      int[] cnt = new int[n];
      for (int u = 0; u < n; u++) if (parent[u] >= 0) cnt[parent[u]]++;
      children = new int[n][];
      for (int u = 0; u < n; u++) children[u] = new int[cnt[u]];
      int[] fill = new int[n];
      for (int u = 0; u < n; u++) if (parent[u] >= 0) children[parent[u]][fill[parent[u]]++] = u;
      pre = new int[n];
      post = new int[n];
      depth = new int[n];
      Arrays.fill(pre, -1);
      Arrays.fill(post, -1);
      int[] order = new int[n];
      int oc = 0;
      int[] stackN = new int[n];
      int[] stackI = new int[n];
      int sp = 0;
      int preC = 0, postC = 0;
      stackN[sp] = root;
      stackI[sp++] = 0;
      pre[root] = preC++;
      order[oc++] = root;
      while (sp > 0) {
        int u = stackN[sp - 1];
        int i = stackI[sp - 1];
        if (i < children[u].length) {
          stackI[sp - 1] = i + 1;
          int c = children[u][i];
          depth[c] = depth[u] + 1;
          pre[c] = preC++;
          order[oc++] = c;
          stackN[sp] = c;
          stackI[sp++] = 0;
        } else {
          post[u] = postC++;
          sp--;
        }
      }
      preorder = Arrays.copyOf(order, oc);
    }

    boolean inTree(int u) { return pre[u] >= 0; }

    /** Reflexive ancestor test in O(1). */
    boolean isAncestor(int a, int b) {
      return pre[a] >= 0 && pre[b] >= 0 && pre[a] <= pre[b] && post[b] <= post[a];
    }

    int nearestCommonAncestor(int a, int b) {
      while (depth[a] > depth[b]) a = parent[a];
      while (depth[b] > depth[a]) b = parent[b];
      while (a != b) {
        a = parent[a];
        b = parent[b];
      }
      return a;
    }
  }

  /**
   * Dominance frontiers (Cooper–Harvey–Kennedy): for every node v and every predecessor p of v, walk
   * from p up the tree until idom(v), adding v to the frontier of every node passed. The root's
   * virtual parent is -1, so the root itself can be in frontiers. Nodes in {@code skip} never get a
   * frontier (used for the virtual exit). Frontiers are returned sorted ascending.
   */
  static int[][] frontiers(Tree t, int[][] pred, boolean[] skip) {
    int n = t.parent.length;
    int[][] df = new int[n][];
    int[] cnt = new int[n];
    int[] last = new int[n];
    Arrays.fill(last, -1);
    int[][] buf = new int[n][];
    for (int v = 0; v < n; v++) {
      if (!t.inTree(v)) continue;
      int stop = t.parent[v];
      for (int p : pred[v]) {
        if (!t.inTree(p)) continue;
        int r = p;
        while (r != stop && r >= 0) {
          if (!skip[r] && last[r] != v) {
            last[r] = v;
            if (buf[r] == null) buf[r] = new int[2];
            else if (cnt[r] == buf[r].length) buf[r] = Arrays.copyOf(buf[r], cnt[r] * 2);
            buf[r][cnt[r]++] = v;
          }
          r = t.parent[r];
        }
      }
    }
    int[] empty = new int[0];
    for (int u = 0; u < n; u++) {
      if (buf[u] == null) {
        df[u] = empty;
      } else {
        df[u] = Arrays.copyOf(buf[u], cnt[u]);
        Arrays.sort(df[u]);
      }
    }
    return df;
  }

  /**
   * Strongly connected components (iterative Tarjan) of the subgraph induced by the nodes with
   * {@code include[u]}; returns the component number of each included node (-1 otherwise). Component
   * numbers are in reverse topological order of the condensation (a sink component is found first).
   */
  static int[] stronglyConnectedComponents(int n, int[][] succ, boolean[] include) {
    int[] comp = new int[n];
    Arrays.fill(comp, -1);
    int[] index = new int[n];
    int[] low = new int[n];
    Arrays.fill(index, -1);
    boolean[] onStack = new boolean[n];
    int[] stack = new int[n];
    int top = 0;
    int[] callN = new int[n];
    int[] callI = new int[n];
    int counter = 0, compCount = 0;
    for (int s = 0; s < n; s++) {
      if (!include[s] || index[s] >= 0) continue;
      int sp = 0;
      callN[sp] = s;
      callI[sp++] = 0;
      index[s] = low[s] = counter++;
      stack[top++] = s;
      onStack[s] = true;
      while (sp > 0) {
        int u = callN[sp - 1];
        int i = callI[sp - 1];
        if (i < succ[u].length) {
          callI[sp - 1] = i + 1;
          int v = succ[u][i];
          if (!include[v]) continue;
          if (index[v] < 0) {
            index[v] = low[v] = counter++;
            stack[top++] = v;
            onStack[v] = true;
            callN[sp] = v;
            callI[sp++] = 0;
          } else if (onStack[v]) {
            low[u] = Math.min(low[u], index[v]);
          }
        } else {
          if (low[u] == index[u]) {
            int w;
            do {
              w = stack[--top];
              onStack[w] = false;
              comp[w] = compCount;
            } while (w != u);
            compCount++;
          }
          sp--;
          if (sp > 0) {
            int p = callN[sp - 1];
            low[p] = Math.min(low[p], low[u]);
          }
        }
      }
    }
    return comp;
  }
}
