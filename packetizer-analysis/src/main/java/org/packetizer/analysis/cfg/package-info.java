/**
 * Control-flow graph analyses for whole-function vectorization, generic over the block type {@code
 * B} of a JGraphT graph wrapped in a {@link org.packetizer.analysis.cfg.Cfg}. Pure Java, no LLVM.
 *
 * <ul>
 *   <li>{@link org.packetizer.analysis.cfg.DominatorTree}, {@link
 *       org.packetizer.analysis.cfg.PostDominatorTree} (with a virtual exit; infinite loops handled as
 *       LLVM does), {@link org.packetizer.analysis.cfg.ControlDependence};
 *   <li>{@link org.packetizer.analysis.cfg.Reducibility} and {@link
 *       org.packetizer.analysis.cfg.LoopForest} (natural loops; irreducible CFGs are rejected with an
 *       {@link org.packetizer.analysis.cfg.IrreducibleCfgException});
 *   <li>{@link org.packetizer.analysis.cfg.LinearizationOrder}: the block order of the thesis' CFG
 *       linearization (section 4.4.1);
 *   <li>{@link org.packetizer.analysis.cfg.SyncDependence}: join points and divergent loops of every
 *       branch, for the divergence analysis and for mask/blend generation;
 *   <li>{@link org.packetizer.analysis.cfg.CfgAnalyses}: all of the above, computed once.
 * </ul>
 *
 * <p>Conventions shared by all classes: only blocks reachable from the entry are analysed;
 * unreachable (or unknown) blocks never make a method throw except where documented ({@code
 * nearestCommon*}), and are reported as unreachable / in no loop / with empty sets. Self-loops,
 * parallel edges (a branch whose two targets coincide), several exit blocks and no exit at all are
 * supported. Block sets and lists iterate in a deterministic order (usually the CFG's reverse
 * postorder). All algorithms are iterative (no recursion on the Java stack) and near-linear, so
 * functions of 10^5+ blocks are fine. All results are immutable.
 */
package org.packetizer.analysis.cfg;
