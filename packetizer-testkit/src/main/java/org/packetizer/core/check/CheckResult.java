package org.packetizer.core.check;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of one differential run (or of several, see {@link DifferentialCheck#runMany}).
 *
 * @param passed whether every compared lane and byte agreed, all canaries are intact and the call
 *     logs match
 * @param lanesCompared active lanes whose results were compared
 * @param bytesCompared bytes compared: return values of active lanes plus every buffer byte
 * @param mismatches the differences found, first differing lane first (lane -1, i.e. not one lane's
 *     fault, last); at most {@link DifferentialCheck#MAX_REPORTED} per lane
 * @param mismatchCount how many differences there were in all
 * @param inputs the inputs of the (first failing) run, to reproduce it
 */
public record CheckResult(boolean passed, int lanesCompared, long bytesCompared, List<Mismatch> mismatches,
    int mismatchCount, Inputs inputs) {

  public CheckResult {
    mismatches = List.copyOf(mismatches);
  }

  /**
   * One difference.
   *
   * @param lane the lane it belongs to, or -1 when it is no single lane's (a shared buffer byte, a
   *     canary, an extra external call)
   * @param where what differed: "return value", "buffer 'out' (param #2, SOA_PTR) lane 3 element 0
   *     field .1, byte offset 4", "canary after buffer ...", "external calls"
   * @param expected the scalar runs' value
   * @param actual the packet run's value
   * @param laneInputs that lane's inputs (all lanes' for lane -1), readable
   */
  public record Mismatch(int lane, String where, String expected, String actual, String laneInputs) {
    @Override public String toString() {
      return (lane >= 0 ? "lane " + lane : "no single lane") + ": " + where + ": expected " + expected
          + ", packet gave " + actual + "\n    inputs: " + laneInputs;
    }
  }

  public Optional<Mismatch> firstMismatch() { return mismatches.isEmpty() ? Optional.empty() : Optional.of(mismatches.get(0)); }

  /** The lane of the first difference, or -1. */
  public int firstDifferingLane() { return firstMismatch().map(Mismatch::lane).orElse(-1); }

  /** A multi-line report: verdict, counts and the differences. */
  public String report() {
    StringBuilder sb = new StringBuilder();
    sb.append(passed ? "PASSED" : "FAILED").append(": ").append(lanesCompared).append(" lanes, ")
        .append(bytesCompared).append(" bytes compared");
    if (!passed) {
      sb.append(", ").append(mismatchCount).append(mismatchCount == 1 ? " difference" : " differences");
      for (Mismatch m : mismatches) sb.append("\n  ").append(m);
      if (mismatchCount > mismatches.size()) sb.append("\n  ... ").append(mismatchCount - mismatches.size()).append(" more");
      sb.append("\n  run inputs: ").append(inputs);
    }
    return sb.toString();
  }

  @Override public String toString() { return report(); }
}
