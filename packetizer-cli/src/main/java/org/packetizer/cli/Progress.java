package org.packetizer.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A one-line progress bar on stderr for batches: drawn only when stderr is a terminal and only once
 * the batch has run for a moment; the line is cleared before messages are printed and at the end.
 * When disabled, messages pass straight through.
 */
final class Progress implements AutoCloseable {
  static final long DELAY_MS = 400, PERIOD_MS = 120;

  private final PrintWriter err;
  private final int total;
  private final boolean enabled;
  private final long start = System.nanoTime();
  private final List<String> running = new ArrayList<>();
  private final ScheduledExecutorService timer;
  private int done;
  private boolean drawn;
  private String last = "";
  private boolean closed;

  Progress(PrintWriter err, int total, boolean enabled) {
    this.err = err;
    this.total = total;
    this.enabled = enabled;
    if (enabled) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("packetize-progress").unstarted(r));
      timer.scheduleAtFixedRate(this::draw, DELAY_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    } else {
      timer = null;
    }
  }

  synchronized void started(String name) { running.add(name); }

  /** One input is done (called by the thread that did it, in any order). */
  synchronized void completed(String name) {
    done++;
    running.remove(name);
    if (drawn) draw();
  }

  /** Prints messages above the bar (the command calls this in input order). */
  synchronized void print(String log) {
    if (log.isEmpty()) return;
    clear();
    err.print(log);
    err.flush();
    last = "";
    if (drawn) draw();
  }

  private synchronized void draw() {
    if (closed || System.nanoTime() - start < DELAY_MS * 1_000_000L) return;
    int barWidth = 24;
    int filled = total == 0 ? barWidth : done * barWidth / total;
    String name = running.isEmpty() ? "" : "  " + running.get(0);
    int cols = Terminal.columns().orElse(80);
    String line = "[" + "#".repeat(filled) + ".".repeat(barWidth - filled) + "] " + done + "/" + total + " inputs" + name;
    if (line.length() > cols - 1) line = line.substring(0, Math.max(0, cols - 1));
    if (line.equals(last)) return;
    err.print("\r\033[K" + line);
    err.flush();
    last = line;
    drawn = true;
  }

  private void clear() {
    if (drawn) {
      err.print("\r\033[K");
      err.flush();
      last = "";
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (timer != null) timer.shutdownNow();
    clear();
    drawn = false;
  }
}
