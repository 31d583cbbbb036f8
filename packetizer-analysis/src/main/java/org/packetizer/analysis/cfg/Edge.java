package org.packetizer.analysis.cfg;

/** A control-flow edge {@code from -> to} (parallel edges are not distinguished). */
public record Edge<B>(B from, B to) {
  @Override public String toString() { return from + " -> " + to; }
}
