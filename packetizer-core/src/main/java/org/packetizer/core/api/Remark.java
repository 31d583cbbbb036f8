package org.packetizer.core.api;

/**
 * One optimization remark, in the manner of LLVM's: what the packetizer did or could not do, where,
 * and why.
 *
 * @param kind        a short machine-readable category
 * @param function    the scalar function
 * @param block       the scalar block, or null
 * @param instruction the scalar instruction as text, or null
 * @param message     human-readable explanation
 */
public record Remark(Kind kind, String function, String block, String instruction, String message) {
  public enum Kind {
    /** A value or branch is varying (with the reason). */
    VARYING,
    /** A divergent branch was linearized into masked straight-line code. */
    LINEARIZED,
    /** A uniform branch was kept as a real branch. */
    UNIFORM_BRANCH,
    /** A loop with a divergent exit now runs while any lane is active. */
    DIVERGENT_LOOP,
    /** A memory access became a vector load/store, gather, scatter or guarded if-cascade. */
    MEMORY,
    /** A call was mapped to a vector variant. */
    VECTORIZED_CALL,
    /** A call was split into one scalar call per lane. */
    SCALARIZED_CALL,
    /** A block is skipped at run time when no lane is active. */
    SKIP_IF_EMPTY,
    /**
     * Lanes share memory at a uniform address in a way the packet function does not reproduce as W
     * calls in lane order (a cross-lane race): see the message for the location and why.
     */
    CROSS_LANE_RACE,
    /**
     * The function cannot be packetized as asked: the message starts with the reason's tag
     * ({@link Rejection#tag()}), the exception that follows carries the same reason.
     */
    REJECTED,
    /** Anything else worth knowing. */
    NOTE
  }

  /** One readable line: "function:block: kind: message [instruction]". */
  public String toLine() {
    StringBuilder sb = new StringBuilder();
    sb.append(function);
    if (block != null) sb.append(':').append(block);
    sb.append(": ").append(kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')).append(": ").append(message);
    if (instruction != null) sb.append("  [").append(instruction.strip()).append(']');
    return sb.toString();
  }
}
