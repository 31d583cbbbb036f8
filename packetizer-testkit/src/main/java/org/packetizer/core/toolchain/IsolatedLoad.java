package org.packetizer.core.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.packetizer.core.ir.IrLoadException;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Loads input that may be corrupt (files from users, downloads, other tools) without risking the JVM.
 *
 * <p>LLVM's bitcode reader is not hardened against malformed input: some corrupted files make it
 * read out of bounds and crash the process (found by fuzzing: a few flipped bits in a use-list block
 * crash {@code BitcodeReader::parseUseLists} with SIGSEGV in LLVM 20.1.7). {@link
 * LlvmContext#load} runs that reader inside the JVM, so such a file kills the JVM. Here bitcode is
 * first read by the same C API reader ({@code LLVMParseBitcode}) in a child process, the bundled
 * {@code llvm-c-test --module-list-functions}: if that process dies from a signal or hangs, the input
 * is rejected with an {@link IrLoadException}; otherwise it is loaded in-process, where the same
 * reader then reports LLVM's own message for a clean failure. Costs one short process start
 * (about 0.1 s) per bitcode input.
 *
 * <p>Textual IR is parsed in-process directly: LLVM's IR parser reports errors rather than crash
 * (it held up under mutation fuzzing; see the reliability notes).
 */
public final class IsolatedLoad {
  /** How long the reader may take in the child process before the input is rejected. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  private IsolatedLoad() {}

  /** Reads {@code file} and loads it into {@code ctx} (bitcode after an isolated check). */
  public static LlvmModule load(LlvmContext ctx, Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IrLoadException(file.toString(), "cannot read file: " + e.getMessage(), e);
    }
    return load(ctx, bytes, file.toString());
  }

  /** Loads bytes (bitcode after an isolated check, or textual IR) into {@code ctx}. */
  public static LlvmModule load(LlvmContext ctx, byte[] bytes, String name) {
    if (LlvmContext.isBitcode(bytes)) check(bytes, name);
    return ctx.load(bytes, name);
  }

  /**
   * Reads the bitcode in a child process and throws when LLVM's reader crashes or hangs on it. A
   * clean parse failure passes: the in-process load reports it with LLVM's message.
   *
   * @throws IrLoadException naming the input and the signal
   * @throws ToolchainException when the bundled {@code llvm-c-test} cannot be started
   */
  public static void check(byte[] bitcode, String name) {
    ProcessResult r;
    try {
      r = BundledClang.locate().run(List.of("llvm-c-test", "--module-list-functions"), null, bitcode, TIMEOUT);
    } catch (ToolchainException e) {
      if (e.getMessage() != null && e.getMessage().contains("did not finish")) {
        throw new IrLoadException(name, "LLVM's bitcode reader did not finish within " + TIMEOUT.toSeconds()
            + " s on this input (checked in a separate process); the bitcode is corrupt and was not loaded", e);
      }
      throw e;
    }
    int code = r.exitCode();
    if (code > 128) {
      throw new IrLoadException(name, "LLVM's bitcode reader crashed on this input (" + signalName(code - 128)
          + ", caught in a separate check process); the bitcode is corrupt and was not loaded", null);
    }
  }

  private static String signalName(int sig) {
    return switch (sig) {
      case 4 -> "SIGILL";
      case 6 -> "SIGABRT";
      case 7 -> "SIGBUS";
      case 8 -> "SIGFPE";
      case 11 -> "SIGSEGV";
      default -> "signal " + sig;
    };
  }
}
