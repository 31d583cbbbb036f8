package org.packetizer.core.bench;

import java.io.PrintStream;

/**
 * Guards native calls into generated code, which Java cannot interrupt: when an armed call runs past
 * its deadline the watchdog prints what was running and halts the JVM with {@link #EXIT_TIMEOUT}. In
 * isolated mode that JVM is a worker for one kernel and the parent records a timeout.
 */
final class Watchdog implements AutoCloseable {
  /** Exit status of a JVM halted by the watchdog. */
  static final int EXIT_TIMEOUT = 86;

  private final PrintStream err;
  private final Thread thread;
  private volatile long deadline = Long.MAX_VALUE;
  private volatile String what = "";
  private volatile boolean closed;

  Watchdog(PrintStream err) {
    this.err = err;
    this.thread = Thread.ofPlatform().daemon().name("bench-watchdog").start(this::watch);
  }

  /** Starts guarding: {@code what} must finish within {@code nanos}. */
  void arm(String what, long nanos) {
    this.what = what;
    this.deadline = System.nanoTime() + nanos;
  }

  void disarm() { deadline = Long.MAX_VALUE; }

  private void watch() {
    while (!closed) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      long d = deadline;
      if (d != Long.MAX_VALUE && System.nanoTime() - d > 0) {
        err.println("bench: TIMEOUT: " + what + " did not finish in time (an endless loop in generated code?); halting");
        err.flush();
        Runtime.getRuntime().halt(EXIT_TIMEOUT);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
