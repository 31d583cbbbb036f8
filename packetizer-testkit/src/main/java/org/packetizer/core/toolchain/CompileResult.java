package org.packetizer.core.toolchain;

import java.nio.file.Path;
import java.util.List;

/**
 * A successful compilation.
 *
 * @param output      the file written (bitcode or executable)
 * @param command     the clang command line as run
 * @param diagnostics what clang wrote to standard error (warnings), possibly empty
 */
public record CompileResult(Path output, List<String> command, String diagnostics) {
  public CompileResult {
    command = List.copyOf(command);
  }

  public boolean hasWarnings() { return !diagnostics.isBlank(); }
}
