package org.packetizer.analysis.divergence;

/** What an SSA value is, as far as the shape analysis needs to know. */
public enum OpKind {
  /** A function parameter: its shape comes from the seeds. */
  PARAMETER,
  /** An integer constant ({@link SsaFunction#intConstant} gives its value). */
  CONSTANT_INT,
  /** Any other constant, global, function or undef: uniform. */
  CONSTANT_OTHER,
  PHI,
  ADD, SUB, MUL, SHL,
  /** {@code or} whose operands have no common set bits (LLVM's {@code or disjoint}): behaves like add. */
  OR_DISJOINT,
  /** Other integer/float arithmetic, bitwise ops, compares, float ops: uniform iff all operands uniform. */
  OTHER_PURE,
  SEXT, ZEXT, TRUNC,
  /** Pointer/int casts and bitcasts that keep the value: the shape passes through. */
  PASS_THROUGH,
  /** getelementptr: operand 0 is the base pointer, operands 1.. are indices ({@link SsaFunction#gepScale}). */
  GEP,
  SELECT,
  /** Load: uniform when the address is uniform, else varying. */
  LOAD,
  /** A stack allocation: one private slot per lane, lane k's slot at base + k * {@link SsaFunction#allocaSize}. */
  ALLOCA,
  /** Calls: uniform when all arguments are uniform and {@link SsaFunction#isPureCall} says so; else varying. */
  CALL,
  /** Instructions without a value (store, br, ret, ...) or with an unknown meaning: varying unless overridden. */
  OTHER
}
