package org.packetizer.core.adapt;

import org.packetizer.core.ir.Llvm;

/**
 * Native addresses to dense numbers: an open-addressing table of {@code long} keys (no boxing, no
 * entry objects, no {@code equals} calls), for the lookups of values a function snapshot did not hand
 * out itself (issue 16: a {@code HashMap<Value, Integer>} was the largest single hash-lookup site).
 * Fixed size, filled once.
 */
final class AddressNumbers {
  private final long[] keys;
  private final int[] numbers;
  private final int mask;
  private int size;

  /** A table for up to {@code n} addresses. */
  AddressNumbers(int n) {
    int cap = Integer.highestOneBit(Math.max(4, n) * 2 - 1) << 1;  // a power of two, at most half full
    keys = new long[cap];
    numbers = new int[cap];
    mask = cap - 1;
  }

  /** Records {@code number} for {@code address} (non-zero) unless it has one; returns the number it has. */
  int putIfAbsent(long address, int number) {
    int i = slot(address);
    while (true) {
      long k = keys[i];
      if (k == 0) {
        keys[i] = address;
        numbers[i] = number;
        size++;
        return number;
      }
      if (k == address) return numbers[i];
      i = (i + 1) & mask;
    }
  }

  /** How many addresses have a number. */
  int size() { return size; }

  /** The number of {@code address}, or -1. */
  int get(long address) {
    if (address == 0) return -1;
    int i = slot(address);
    while (true) {
      long k = keys[i];
      if (k == address) return numbers[i];
      if (k == 0) return -1;
      i = (i + 1) & mask;
    }
  }

  private int slot(long address) { return (int) (Llvm.addressKey(address) >>> 32) & mask; }
}
