package org.packetizer.core.check;

/**
 * What the input generators need to know about one packet parameter: its spec, name, and for scalar
 * kinds the value kind, bit width and domain (the spec's domain, or the default for the type).
 * For pointer kinds {@code kind} is {@code PTR}; for the mask it is {@code BOOL}.
 */
public record InputSlot(int index, String name, ParamSpec spec, ScalarKind kind, int bits, ValueDomain domain) {}
