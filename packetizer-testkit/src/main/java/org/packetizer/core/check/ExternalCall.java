package org.packetizer.core.check;

import java.util.List;

/**
 * One call of a recorded external function: its symbol and arguments (boxed as the upcall received
 * them: Integer, Long, Float, Double, ... ; pointers as MemorySegment, compared by address).
 */
public record ExternalCall(String symbol, List<Object> args) {
  public ExternalCall {
    args = List.copyOf(args);
  }

  @Override public String toString() {
    StringBuilder sb = new StringBuilder(symbol).append('(');
    for (int i = 0; i < args.size(); i++) {
      Object a = args.get(i);
      sb.append(i == 0 ? "" : ", ");
      if (a instanceof java.lang.foreign.MemorySegment ms) sb.append("0x").append(Long.toHexString(ms.address()));
      else sb.append(a);
    }
    return sb.append(')').toString();
  }
}
