package org.packetizer.core.api;

/**
 * Lane refill in the array driver (issue 17 §2, docs/drivers.md): for a function whose cost is
 * dominated by a loop whose trip count differs between lanes, a lane that leaves the loop finishes its
 * element (the code after the loop, masked), stores its result and takes the next element (the code
 * before the loop, masked) while the other lanes keep iterating.
 */
public enum Refill {
  /** The plain driver: full packets, then one masked packet (the default). */
  OFF,
  /**
   * Refill wherever it can be built (a loop with a per-lane trip count at the top level of the
   * function); a remark says why not elsewhere, and the plain driver is emitted.
   */
  ON,
  /** Refill where the cost rule predicts a gain ({@code RefillDriver#RULE}); a remark reports the decision. */
  AUTO
}
