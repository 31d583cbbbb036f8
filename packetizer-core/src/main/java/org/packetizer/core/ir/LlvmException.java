package org.packetizer.core.ir;

/** An error reported by LLVM (parser, verifier, pass pipeline, JIT), with LLVM's own message. */
public class LlvmException extends RuntimeException {
  public LlvmException(String message) { super(message); }
  public LlvmException(String message, Throwable cause) { super(message, cause); }
}
