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

  private Cfg(Graph<B, DefaultEdge> graph, B entry) {
    this.graph = graph;
    this.entry = entry;
  }

  /** Wraps a graph (not copied; do not mutate it afterwards). */
  public static <B> Cfg<B> of(Graph<B, DefaultEdge> graph, B entry) {
    Objects.requireNonNull(entry, "entry");
    if (!graph.containsVertex(entry)) throw new IllegalArgumentException("entry not in graph: " + entry);
    return new Cfg<>(graph, entry);
  }

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
