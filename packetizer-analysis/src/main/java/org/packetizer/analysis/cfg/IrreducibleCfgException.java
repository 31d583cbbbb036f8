package org.packetizer.analysis.cfg;

/**
 * Thrown by analyses that need a reducible CFG ({@link LoopForest}, and through it {@link
 * CfgAnalyses}) when the CFG is irreducible. {@link #edge()} is a retreating edge of a depth-first
 * search whose target does not dominate its source, i.e. an edge entering a cycle that has more than
 * one entry. LLVM's {@code fix-irreducible} pass makes such CFGs reducible.
 */
public final class IrreducibleCfgException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient Edge<?> edge;

  public IrreducibleCfgException(Edge<?> edge) {
    super("irreducible control flow: edge " + edge + " enters a cycle whose entry block "
        + edge.to() + " does not dominate " + edge.from());
    this.edge = edge;
  }

  /** The offending edge (cast to {@code Edge<B>} for the CFG's block type). */
  public Edge<?> edge() { return edge; }
}
