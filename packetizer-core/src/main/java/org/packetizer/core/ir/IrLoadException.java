package org.packetizer.core.ir;

/** A module could not be read: names the input and carries LLVM's parser message. */
public final class IrLoadException extends LlvmException {
  private final String input;
  private final String parserMessage;

  public IrLoadException(String input, String parserMessage, Throwable cause) {
    super(input + ": " + parserMessage, cause);
    this.input = input;
    this.parserMessage = parserMessage;
  }

  public String input() { return input; }

  public String parserMessage() { return parserMessage; }
}
