package org.packetizer.core.toolchain;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The outcome of one program run: its command line, exit code and captured output.
 *
 * @param command  the command as started (program path first)
 * @param exitCode the exit status (a signal shows as 128 + signal number)
 * @param stdout   standard output, raw bytes (bitcode may come back this way)
 * @param stderr   standard error, decoded as UTF-8
 */
public record ProcessResult(List<String> command, int exitCode, byte[] stdout, String stderr) {
  public ProcessResult {
    command = List.copyOf(command);
    stdout = stdout.clone();
  }

  @Override
  public byte[] stdout() { return stdout.clone(); }

  /** Standard output decoded as UTF-8. */
  public String stdoutText() { return new String(stdout, StandardCharsets.UTF_8); }

  public boolean succeeded() { return exitCode == 0; }

  /** This result when the exit code is 0, else a {@link ToolchainException} with the standard error. */
  public ProcessResult orThrow(String what) {
    if (exitCode != 0) throw new ToolchainException(what + " failed", command, exitCode, stderr, null);
    return this;
  }

  @Override
  public String toString() {
    return "ProcessResult[exit=" + exitCode + ", command=" + command + ", stdout=" + stdout.length + " bytes, stderr="
        + (stderr.length() > 200 ? stderr.substring(0, 200) + "..." : stderr) + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProcessResult r && r.exitCode == exitCode && r.command.equals(command)
        && java.util.Arrays.equals(r.stdout, stdout) && r.stderr.equals(stderr);
  }

  @Override
  public int hashCode() { return command.hashCode() * 31 + exitCode; }
}
