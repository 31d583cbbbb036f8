package org.packetizer.cli;

import java.nio.file.Path;

/**
 * The child process of {@code --check} (see {@link Checker}): {@code CheckChild REQUEST RESULT
 * PROGRESS}. Reads the request, runs the differential check, writes the result; before every call of
 * checked code it writes what is about to run into PROGRESS. Exit 0 whenever a result was written; a
 * crash of checked code ends the process with the signal.
 */
public final class CheckChild {
  private CheckChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("packetize-check: usage: CheckChild REQUEST RESULT PROGRESS (started by packetize --check)");
      System.exit(2);
    }
    Path result = Path.of(args[1]);
    Checker.Request req = Checker.readRequest(Path.of(args[0]));
    try (Checker.ProgressFile progress = new Checker.ProgressFile(Path.of(args[2]))) {
      Checker.Outcome o;
      try {
        o = Checker.runHere(req, progress);
      } catch (org.packetizer.core.check.EmulatedCrashException e) {
        // checked code crashed the qemu process (the launcher), not this one
        Checker.writeResult(result, "crash", null, String.valueOf(e.getMessage()));
        System.exit(0);
        return;
      } catch (RuntimeException e) {
        Checker.writeResult(result, Checker.isUsageError(e) ? "usage" : "error", null, String.valueOf(e.getMessage()));
        System.exit(0);
        return;
      }
      Checker.writeResult(result, "ok", o, null);
    }
    // the JIT's threads and native state need no orderly shutdown
    System.exit(0);
  }
}
