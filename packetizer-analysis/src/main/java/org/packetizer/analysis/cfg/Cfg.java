package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jgrapht.Graph;
import org.jgrapht.Graphs;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.DirectedPseudograph;

/**
 * A control-flow graph: a JGraphT directed graph of blocks with one entry. Successor order is the
 * insertion order of edges (for a conditional branch: the true successor first). Parallel edges (a
 * branch whose two targets are the same block) and self-loops are allowed.
 */
public final class Cfg<B> {
  private final Graph<B, DefaultEdge> graph;
  private final B entry;
  private final java.util.function.ToIntFunction<B> numbers;
  private final int numberCount;

  private Cfg(Graph<B, DefaultEdge> graph, B entry, java.util.function.ToIntFunction<B> numbers, int numberCount) {
    this.graph = graph;
    this.entry = entry;
    this.numbers = numbers;
    this.numberCount = numberCount;
  }

  /** Wraps a graph (not copied; do not mutate it afterwards). */
  public static <B> Cfg<B> of(Graph<B, DefaultEdge> graph, B entry) {
    return of(graph, entry, null, 0);
  }

  /**
   * Wraps a graph whose blocks have dense numbers: {@code numbers} gives every block of the graph a
   * distinct number in {@code 0 .. numberCount - 1} and anything else -1, so the analyses find a
   * block's position through an array instead of a hash map (issue 16). Null: no numbers.
   */
  public static <B> Cfg<B> of(Graph<B, DefaultEdge> graph, B entry, java.util.function.ToIntFunction<B> numbers,
      int numberCount) {
    Objects.requireNonNull(entry, "entry");
    if (!graph.containsVertex(entry)) throw new IllegalArgumentException("entry not in graph: " + entry);
    return new Cfg<>(graph, entry, numbers, numberCount);
  }

  /** The block's dense number (see {@link #of(Graph, Object, java.util.function.ToIntFunction, int)}), or -1. */
  int number(B b) { return numbers == null ? -1 : numbers.applyAsInt(b); }

  /** How many numbers {@link #number} hands out; 0 when the blocks have none. */
  int numberCount() { return numbers == null ? 0 : numberCount; }

  /** A new, empty graph suitable for {@link #of}. */
  public static <B> Graph<B, DefaultEdge> newGraph() {
    return new DirectedPseudograph<>(DefaultEdge.class);
  }

  public Graph<B, DefaultEdge> graph() { return graph; }

  public B entry() { return entry; }

  public Set<B> blocks() { return Collections.unmodifiableSet(graph.vertexSet()); }

  /** Successors in edge order; a block appears twice when two edges lead to it. */
  public List<B> successors(B b) {
    List<B> out = new ArrayList<>();
    for (DefaultEdge e : graph.outgoingEdgesOf(b)) out.add(graph.getEdgeTarget(e));
    return out;
  }

  /** Distinct predecessors. */
  public List<B> predecessors(B b) {
    return new ArrayList<>(new LinkedHashSet<>(Graphs.predecessorListOf(graph, b)));
  }

  /** Blocks reachable from the entry. */
  public Set<B> reachable() {
    Set<B> seen = new LinkedHashSet<>();
    List<B> stack = new ArrayList<>();
    stack.add(entry);
    while (!stack.isEmpty()) {
      B b = stack.removeLast();
      if (seen.add(b)) {
        for (B s : successors(b)) if (!seen.contains(s)) stack.add(s);
      }
    }
    return seen;
  }
}
