package org.packetizer.core.check;

/**
 * What a scalar value (a parameter, a return value or one field of a buffer element) is, for
 * generating, comparing and printing it. {@code BYTES} is anything else (compared byte for byte).
 */
public enum ScalarKind {
  /** {@code i1}: one byte, 0 or 1. */
  BOOL,
  /** {@code i8} .. {@code i64}: compared exactly. */
  INT,
  /** {@code float}: bitwise equal, or both NaN, or within the check's ULP bound. */
  FLOAT,
  /** {@code half} (IEEE binary16; Java value: the Float it widens to exactly): as {@code FLOAT}. */
  HALF,
  /** {@code double}: as {@code FLOAT}. */
  DOUBLE,
  /** {@code ptr}: compared exactly. */
  PTR,
  /** Anything else: compared byte for byte. */
  BYTES
}
