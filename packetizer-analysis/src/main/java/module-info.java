/**
 * The analyses of packetization in pure Java (no LLVM): control-flow graphs (dominance,
 * post-dominance, loops, control and sync dependence, linearization order) and the divergence and
 * shape analysis over an abstract SSA view.
 */
module org.packetizer.analysis {
  requires transitive org.jgrapht.core;

  exports org.packetizer.analysis.cfg;
  exports org.packetizer.analysis.divergence;
}
