package org.packetizer.cli;

/** The documented exit codes of {@code packetize}. */
public final class ExitCodes {
  private ExitCodes() {}

  public static final int OK = 0;
  /** The differential check found a lane that differs. */
  public static final int CHECK_MISMATCH = 1;
  /** Bad usage or bad input: missing file, unreadable or invalid IR, unknown function, bad width. */
  public static final int USAGE_OR_INPUT = 2;
  /** The function uses a construct the packetizer does not support. */
  public static final int UNSUPPORTED = 3;
  /** An internal error (a bug): please report it with the input. */
  public static final int INTERNAL = 4;
}
