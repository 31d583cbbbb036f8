package org.packetizer.cli;

/**
 * A failure the command reports as one message and an exit code (see {@link ExitCodes}); never shown
 * as a stack trace unless {@code --debug}.
 */
final class CliException extends RuntimeException {
  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  CliException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  static CliException usage(String message) { return new CliException(ExitCodes.USAGE_OR_INPUT, message); }

  int exitCode() { return exitCode; }
}
