package org.packetizer.core.ir;

/** A module could not be read: names the input and carries LLVM's parser message. */
public final class IrLoadException extends LlvmException {
  private final String input;
  private final String parserMessage;

  public IrLoadException(String input, String parserMessage, Throwable cause) {
    // LLVM's IR parser already starts its messages with "<input>:line:col:"; do not repeat the name
    super(parserMessage.startsWith(input + ":") ? parserMessage : input + ": " + parserMessage, cause);
    this.input = input;
    this.parserMessage = parserMessage;
  }

  public String input() { return input; }

  public String parserMessage() { return parserMessage; }
}
