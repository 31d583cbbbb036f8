package org.packetizer.core.toolchain;

import java.util.List;

/**
 * A bundled LLVM program could not be found, started, or it failed. Carries the command line, the
 * exit code (-1 when the program did not run to completion) and the program's standard error, so
 * that e.g. a compile error shows clang's own diagnostics.
 */
public final class ToolchainException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<String> command;
  private final int exitCode;
  private final String stderr;

  public ToolchainException(String message) {
    this(message, List.of(), -1, "", null);
  }

  public ToolchainException(String message, Throwable cause) {
    this(message, List.of(), -1, "", cause);
  }

  public ToolchainException(String message, List<String> command, int exitCode, String stderr, Throwable cause) {
    super(compose(message, exitCode, stderr), cause);
    this.command = List.copyOf(command);
    this.exitCode = exitCode;
    this.stderr = stderr == null ? "" : stderr;
  }

  private static String compose(String message, int exitCode, String stderr) {
    StringBuilder sb = new StringBuilder(message);
    if (exitCode >= 0) sb.append(" (exit code ").append(exitCode).append(')');
    if (stderr != null && !stderr.isBlank()) sb.append(":\n").append(stderr.strip());
    return sb.toString();
  }

  /** The command that failed (program first), or empty when none was started. */
  public List<String> command() { return command; }

  /** The program's exit code, or -1 when it did not start, was killed or timed out. */
  public int exitCode() { return exitCode; }

  /** What the program wrote to standard error (clang's diagnostics), possibly empty. */
  public String stderr() { return stderr; }
}
