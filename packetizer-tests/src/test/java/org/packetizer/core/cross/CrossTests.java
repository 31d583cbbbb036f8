package org.packetizer.core.cross;

import org.junit.jupiter.api.Assumptions;
import org.packetizer.core.check.CrossTarget;

/** What the cross-target tests share: the loud skip when a target's tools are missing. */
final class CrossTests {
  private CrossTests() {}

  /**
   * {@code t} when its emulator, cross compiler and C library are here; otherwise the test is aborted
   * (skipped) with a message on standard error naming the target and what is missing.
   */
  static CrossTarget require(CrossTarget t) {
    t.missing().ifPresent(m -> {
      String msg = "SKIPPED LOUDLY: cannot run " + t.name() + " code here, missing " + m
          + " (bin/install-test-deps.sh installs it as root)";
      System.err.println(msg);
      Assumptions.abort(msg);
    });
    return t;
  }
}
