package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random structured (hence reducible) CFGs as a C compiler would emit them: sequences, if/else,
 * if-then, while and do-while loops, break/continue to enclosing loops, early returns and the odd
 * infinite loop. Iterative in the number of blocks, recursive only in nesting depth.
 */
public final class StructuredGen {
  private final Random r;
  private final int maxNodes;
  private final int maxDepth;
  private final List<int[]> edges = new ArrayList<>();
  private final List<int[]> loopStack = new ArrayList<>(); // {continueTarget, breakTarget}
  private int next = 0;
  private int sharedReturn = -1;
  private boolean large = false;

  private StructuredGen(Random r, int maxNodes, int maxDepth) {
    this.r = r;
    this.maxNodes = maxNodes;
    this.maxDepth = maxDepth;
  }

  public static TestGraph generate(Random r, int maxNodes, int maxDepth) {
    StructuredGen g = new StructuredGen(r, maxNodes, maxDepth);
    int entry = g.node();
    int end = g.seq(entry, 0);
    if (end >= 0 && g.sharedReturn >= 0 && r.nextBoolean()) g.edge(end, g.sharedReturn);
    return new TestGraph(g.next, g.edges);
  }

  /**
   * A large function of about {@code blocks} blocks: top-level statements are generated until the
   * budget is used (no returns or infinite loops at the top level, so nearly everything is reachable).
   */
  public static TestGraph generateLarge(Random r, int blocks, int maxDepth) {
    StructuredGen g = new StructuredGen(r, blocks, maxDepth);
    g.large = true;
    int cur = g.node();
    while (!g.full()) cur = g.stmt(cur, 0);
    int ret = g.sharedReturn >= 0 ? g.sharedReturn : g.node();
    g.edge(cur, ret);
    return new TestGraph(g.next, g.edges);
  }

  public static Arbitrary<TestGraph> arbitrary(int maxNodes, int maxDepth) {
    return Combinators.combine(Arbitraries.integers().between(3, maxNodes), Arbitraries.longs())
        .as((n, seed) -> generate(new Random(seed), n, maxDepth));
  }

  private int node() { return next++; }

  private void edge(int a, int b) { edges.add(new int[] {a, b}); }

  private boolean full() { return next >= maxNodes - 3; }

  /** Generates statements starting in open block cur; returns the open block after them or -1. */
  private int seq(int cur, int depth) {
    int count = 1 + r.nextInt(3);
    for (int i = 0; i < count && cur >= 0 && !full(); i++) cur = stmt(cur, depth);
    return cur;
  }

  private int stmt(int cur, int depth) {
    double p = r.nextDouble();
    boolean inLoop = !loopStack.isEmpty();
    if (depth >= maxDepth) p = p * 0.15; // only simple statements
    if (p < 0.08) { // plain block
      int b = node();
      edge(cur, b);
      return b;
    }
    if (p < 0.12 && inLoop) { // break out of some enclosing loop
      int[] l = loopStack.get(r.nextInt(100) < 75 ? loopStack.size() - 1 : r.nextInt(loopStack.size()));
      edge(cur, l[1]);
      return -1;
    }
    if (p < 0.14 && inLoop) { // continue
      edge(cur, loopStack.getLast()[0]);
      return -1;
    }
    if (p < 0.16 && !large) { // return
      if (sharedReturn < 0 || r.nextBoolean()) {
        if (sharedReturn < 0) sharedReturn = node();
        edge(cur, sharedReturn);
      } else {
        edge(cur, node());
      }
      return -1;
    }
    if (depth >= maxDepth) { // nothing nested any more
      int b = node();
      edge(cur, b);
      return b;
    }
    if (p < 0.45) { // if / else or if-then; the condition is in cur
      int then = node();
      int els = r.nextBoolean() ? node() : -1;
      int join = node();
      edge(cur, then);
      edge(cur, els >= 0 ? els : join);
      int t = seq(then, depth + 1);
      if (t >= 0) edge(t, join);
      if (els >= 0) {
        int e = seq(els, depth + 1);
        if (e >= 0) edge(e, join);
      }
      return join;
    }
    if (p < 0.75) { // while: test at the header
      int h = node();
      int body = node();
      int exit = node();
      edge(cur, h);
      edge(h, body);
      edge(h, exit);
      loopStack.add(new int[] {h, exit});
      int b = seq(body, depth + 1);
      loopStack.removeLast();
      if (b >= 0) edge(b, h);
      return exit;
    }
    if (p < 0.97) { // do-while: test in the latch
      int body = node();
      int latch = node();
      int exit = node();
      edge(cur, body);
      loopStack.add(new int[] {latch, exit});
      int b = seq(body, depth + 1);
      loopStack.removeLast();
      if (b >= 0) edge(b, latch);
      edge(latch, body);
      edge(latch, exit);
      return exit;
    }
    if (large) return stmt(cur, depth); // keep large functions (nearly) fully reachable
    // infinite loop, left only by breaks
    int h = node();
    int exit = node();
    edge(cur, h);
    loopStack.add(new int[] {h, exit});
    int b = seq(h, depth + 1);
    loopStack.removeLast();
    if (b >= 0) edge(b, h);
    return exit;
  }
}
