/**
 * Divergence and shape analysis: {@link org.packetizer.analysis.divergence.DivergenceAnalysis} runs
 * over an abstract {@link org.packetizer.analysis.divergence.SsaFunction} (implemented by
 * packetizer-core for LLVM functions) and the {@link org.packetizer.analysis.cfg.CfgAnalyses} of its
 * CFG, and produces a {@link org.packetizer.analysis.divergence.DivergenceInfo}: the {@link
 * org.packetizer.analysis.divergence.Shape} (uniform / linear(stride) / varying, plus alignment) of
 * every value, the divergent branches and loops, the blocks that may run with a partial mask, and a
 * human-readable reason for every non-uniform value.
 */
package org.packetizer.analysis.divergence;
