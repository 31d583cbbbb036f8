package org.packetizer.core.check;

/**
 * Checked code crashed (or hung up) the emulated process of a check under qemu: the message says which
 * function, which qemu and CPU model, and the signal.
 */
public final class EmulatedCrashException extends IllegalStateException {
  public EmulatedCrashException(String message) { super(message); }
}
