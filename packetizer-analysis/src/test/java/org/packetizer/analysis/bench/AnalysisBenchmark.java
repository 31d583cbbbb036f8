package org.packetizer.analysis.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.packetizer.analysis.cfg.Cfg;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.ControlDependence;
import org.packetizer.analysis.cfg.DominatorTree;
import org.packetizer.analysis.cfg.LinearizationOrder;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.cfg.PostDominatorTree;
import org.packetizer.analysis.cfg.StructuredGen;
import org.packetizer.analysis.cfg.SyncDependence;
import org.packetizer.analysis.cfg.TestGraph;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.OpKind;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.analysis.divergence.TestFunction;
import org.packetizer.analysis.divergence.TestFunction.Val;

/**
 * Scale benchmark (not a test): structured reducible CFGs (nested if/else, while and do-while loops,
 * breaks and continues; nesting depth up to 6) of 10^3, 10^4 and 10^5 blocks; prints, per block and
 * after warm-up, the median CPU time of the benchmark thread (robust when the machine is shared) and
 * the minimum wall time of each analysis (GC and JIT threads excluded from the former, included in
 * the latter). Run:
 *
 * <pre>
 * mvn -o -q -pl packetizer-analysis test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp packetizer-analysis/target/classes:packetizer-analysis/target/test-classes:$(cat packetizer-analysis/target/cp.txt) \
 *     org.packetizer.analysis.bench.AnalysisBenchmark
 * </pre>
 */
public final class AnalysisBenchmark {
  private AnalysisBenchmark() {}

  public static void main(String[] args) {
    int[] sizes = {1_000, 10_000, 100_000};
    Map<String, double[]> rows = new java.util.LinkedHashMap<>();
    Map<String, double[]> wall = new java.util.LinkedHashMap<>();
    int[] actual = new int[sizes.length];
    for (int si = 0; si < sizes.length; si++) {
      TestGraph g = StructuredGen.generateLarge(new Random(7 + si), sizes[si], 6);
      Cfg<Integer> cfg = g.cfg();
      actual[si] = cfg.reachable().size();
      DominatorTree<Integer> dom = DominatorTree.compute(cfg);
      PostDominatorTree<Integer> pdt = PostDominatorTree.compute(cfg);
      LoopForest<Integer> loops = LoopForest.compute(cfg, dom);
      TestFunction fn = function(g, new Random(si));
      CfgAnalyses<String> fnAnalyses = CfgAnalyses.of(fn.cfg());
      Map<Val, Shape> seeds = seeds(fn, new Random(si));
      int n = actual[si];
      measure(rows, wall, "DominatorTree", si, n, () -> DominatorTree.compute(cfg));
      measure(rows, wall, "PostDominatorTree", si, n, () -> PostDominatorTree.compute(cfg));
      measure(rows, wall, "LoopForest", si, n, () -> LoopForest.compute(cfg, dom));
      measure(rows, wall, "LinearizationOrder", si, n, () -> LinearizationOrder.compute(cfg, loops));
      measure(rows, wall, "ControlDependence", si, n, () -> ControlDependence.compute(cfg, pdt));
      measure(rows, wall, "SyncDependence", si, n, () -> SyncDependence.compute(cfg, dom, pdt, loops));
      measure(rows, wall, "CfgAnalyses.of (all)", si, n, () -> CfgAnalyses.of(cfg));
      measure(rows, wall, "DivergenceAnalysis", si, n, () -> DivergenceAnalysis.run(fn, fnAnalyses, seeds, false));
    }
    System.out.printf("%-22s %24s   %24s%n", "", "CPU ns/block (median)", "wall ns/block (min)");
    System.out.printf("%-22s %8s%8s%8s   %8s%8s%8s%n", "analysis", "10^3", "10^4", "10^5", "10^3", "10^4", "10^5");
    for (Map.Entry<String, double[]> e : rows.entrySet()) {
      double[] v = e.getValue(), w = wall.get(e.getKey());
      System.out.printf("%-22s %8.0f%8.0f%8.0f   %8.0f%8.0f%8.0f%n", e.getKey(), v[0], v[1], v[2], w[0], w[1], w[2]);
    }
    System.out.printf("load average at the end: %.1f on %d CPUs%n",
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        Runtime.getRuntime().availableProcessors());
    System.out.println("reachable blocks: " + Arrays.toString(actual)
        + "; DivergenceAnalysis: 3-4 instructions per block, half the branch conditions varying");
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private static void measure(Map<String, double[]> rows, Map<String, double[]> wall, String name, int si,
      int blocks, Supplier<?> work) {
    long budget = 2_000_000_000L;
    long start = System.nanoTime();
    int warm = 0;
    while (System.nanoTime() - start < budget / 2 || warm < 3) {
      work.get();
      warm++;
    }
    List<Long> cpu = new ArrayList<>();
    long minWall = Long.MAX_VALUE;
    start = System.nanoTime();
    while (cpu.size() < 5 || (System.nanoTime() - start < budget && cpu.size() < 200)) {
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      work.get();
      minWall = Math.min(minWall, System.nanoTime() - t0);
      cpu.add(THREADS.getCurrentThreadCpuTime() - c0);
    }
    cpu.sort(null);
    rows.computeIfAbsent(name, k -> new double[3])[si] = cpu.get(cpu.size() / 2) / (double) blocks;
    wall.computeIfAbsent(name, k -> new double[3])[si] = minWall / (double) blocks;
  }

  /** An SSA function on the graph: a phi per join block, a compare per branch, two adds per block. */
  static TestFunction function(TestGraph g, Random r) {
    TestFunction fn = new TestFunction();
    String[] name = new String[g.n()];
    for (int i = 0; i < g.n(); i++) name[i] = fn.block("b" + i);
    int[][] succ = g.succ();
    for (int u = 0; u < g.n(); u++) for (int v : succ[u]) fn.edge(name[u], name[v]);
    List<List<Integer>> preds = new ArrayList<>();
    for (int i = 0; i < g.n(); i++) preds.add(new ArrayList<>());
    for (int u = 0; u < g.n(); u++) for (int v : succ[u]) if (!preds.get(v).contains(u)) preds.get(v).add(u);
    Val tid = fn.param("tid");
    Val uni = fn.param("n");
    Map<Integer, Val> last = new HashMap<>();
    Map<Integer, Val> phis = new HashMap<>();
    for (int u = 0; u < g.n(); u++) {
      Val x = u == 0 ? tid : null;
      if (preds.get(u).size() >= 2) {
        x = fn.phi(name[u], "p" + u);
        phis.put(u, x);
      } else if (x == null) {
        x = r.nextBoolean() ? uni : tid;
      }
      Val a = fn.inst(name[u], "a" + u, OpKind.ADD, x, fn.c(1));
      Val m = fn.inst(name[u], "m" + u, OpKind.MUL, a, fn.c(3));
      last.put(u, m);
      if (succ[u].length >= 2) {
        Val c = fn.inst(name[u], "c" + u, OpKind.OTHER_PURE, r.nextBoolean() ? m : uni, fn.c(10));
        fn.br(name[u], c);
      }
    }
    for (Map.Entry<Integer, Val> e : phis.entrySet()) {
      for (int p : preds.get(e.getKey())) fn.addIncoming(e.getValue(), name[p], last.get(p));
    }
    return fn;
  }

  static Map<Val, Shape> seeds(TestFunction fn, Random r) {
    Map<Val, Shape> s = new HashMap<>();
    s.put(fn.parameters().get(0), Shape.linear(1));
    s.put(fn.parameters().get(1), Shape.UNIFORM);
    return s;
  }
}
