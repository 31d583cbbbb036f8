package org.packetizer.core.api;

import java.util.Optional;

/**
 * Packetization failed: an unsupported construct, an unfit prototype, bad options or an internal
 * error. Names what went wrong and where (function, block, instruction). When this is thrown the
 * module is unchanged.
 */
public class PacketizationException extends RuntimeException {
  /** Why packetization failed, for exit codes and filtering. */
  public enum Kind {
    /** The input asks for something invalid: missing function, bad width, unfit prototype, bad option. */
    INVALID_INPUT,
    /** A construct the packetizer does not handle (and says so). */
    UNSUPPORTED,
    /** The packetizer produced invalid IR: a bug. */
    INTERNAL
  }

  private final Kind kind;
  private final Rejection reason;
  private final String detail;
  private final String function;
  private final String block;
  private final String instruction;

  public PacketizationException(Kind kind, String message, String function, String block, String instruction) {
    this(kind, null, message, function, block, instruction);
  }

  /** A rejection for a named reason (its kind is the reason's). */
  public PacketizationException(Rejection reason, String message, String function, String block, String instruction) {
    this(reason.kind(), reason, message, function, block, instruction);
  }

  private PacketizationException(Kind kind, Rejection reason, String message, String function, String block, String instruction) {
    super(format(message, function, block, instruction));
    this.kind = kind;
    this.reason = reason;
    this.detail = message;
    this.function = function;
    this.block = block;
    this.instruction = instruction;
  }

  public PacketizationException(Kind kind, String message, String function) {
    this(kind, message, function, null, null);
  }

  /** A rejection for {@code reason}, naming function, block and instruction where there are ones. */
  public static PacketizationException rejected(Rejection reason, String message, String function, String block,
      String instruction) {
    return new PacketizationException(reason, message, function, block, instruction);
  }

  /** An invalid request for {@code reason} (of kind INVALID_INPUT). */
  public static PacketizationException invalid(Rejection reason, String message, String function) {
    return new PacketizationException(reason, message, function, null, null);
  }

  /** An unsupported construct for {@code reason}, naming block and instruction where there are ones. */
  public static PacketizationException unsupported(Rejection reason, String message, String function, String block,
      String instruction) {
    return new PacketizationException(reason, message, function, block, instruction);
  }

  public static PacketizationException invalid(String message, String function) {
    return new PacketizationException(Kind.INVALID_INPUT, message, function);
  }

  public static PacketizationException unsupported(String message, String function, String block, String instruction) {
    return new PacketizationException(Kind.UNSUPPORTED, message, function, block, instruction);
  }

  private static String format(String message, String function, String block, String instruction) {
    StringBuilder sb = new StringBuilder();
    if (function != null) sb.append("in function @").append(function);
    if (block != null) sb.append(", block %").append(block);
    if (sb.length() > 0) sb.append(": ");
    sb.append(message);
    if (instruction != null) sb.append("\n    at: ").append(instruction.strip());
    return sb.toString();
  }

  public Kind kind() { return kind; }
  /** What went wrong, without the function, block and instruction the full message adds. */
  public String detail() { return detail; }
  /** The named reason of a rejection (empty for internal errors). */
  public Optional<Rejection> reason() { return Optional.ofNullable(reason); }
  public Optional<String> function() { return Optional.ofNullable(function); }
  public Optional<String> block() { return Optional.ofNullable(block); }
  public Optional<String> instruction() { return Optional.ofNullable(instruction); }
}
