package org.packetizer.core.ir;

import java.util.function.LongFunction;

/**
 * A map from native addresses (non-zero {@code long}s, as {@link Value#id()} and {@link Block#id()}
 * give them) to objects: open addressing with linear probing over a {@code long[]} of keys, growing at
 * half full. No boxing of the keys, no entry objects, no {@code equals} calls (issue 16: the emitter's
 * {@code SlotSsa} looked its placeholders and blocks up in {@code HashMap<Long, ...>}, a boxed key per
 * lookup). Not iterable: the users keep their own ordered lists, so nothing depends on its order.
 */
public final class AddressMap<V> {
  private long[] keys;
  private Object[] values;
  private int mask;
  private int size;

  /** A map sized for about {@code expected} entries before it grows. */
  public AddressMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(8, expected) * 2 - 1) << 1;
    keys = new long[cap];
    values = new Object[cap];
    mask = cap - 1;
  }

  public AddressMap() { this(16); }

  /** The value of {@code address}, or null. */
  @SuppressWarnings("unchecked")
  public V get(long address) {
    if (address == 0) return null;
    int i = slot(address, mask);
    while (true) {
      long k = keys[i];
      if (k == address) return (V) values[i];
      if (k == 0) return null;
      i = (i + 1) & mask;
    }
  }

  /** Sets the value of {@code address} (non-zero) to {@code value} (non-null). */
  public void put(long address, V value) {
    checkKey(address);
    int i = slot(address, mask);
    while (true) {
      long k = keys[i];
      if (k == address) {
        values[i] = value;
        return;
      }
      if (k == 0) {
        insertAt(i, address, value);
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** The value of {@code address} (non-zero); made by {@code make} and kept when it has none. */
  @SuppressWarnings("unchecked")
  public V computeIfAbsent(long address, LongFunction<? extends V> make) {
    checkKey(address);
    int i = slot(address, mask);
    while (true) {
      long k = keys[i];
      if (k == address) return (V) values[i];
      if (k == 0) break;
      i = (i + 1) & mask;
    }
    V v = make.apply(address);
    // (make may have put entries, even grown the table: find the free slot again)
    put(address, v);
    return v;
  }

  public int size() { return size; }

  private void insertAt(int i, long address, Object value) {
    keys[i] = address;
    values[i] = value;
    if (++size * 2 > keys.length) grow();
  }

  private void grow() {
    long[] ok = keys;
    Object[] ov = values;
    int cap = ok.length * 2;
    keys = new long[cap];
    values = new Object[cap];
    mask = cap - 1;
    for (int j = 0; j < ok.length; j++) {
      long k = ok[j];
      if (k == 0) continue;
      int i = slot(k, mask);
      while (keys[i] != 0) i = (i + 1) & mask;
      keys[i] = k;
      values[i] = ov[j];
    }
  }

  private static void checkKey(long address) {
    if (address == 0) throw new IllegalArgumentException("address 0 is not a key");
  }

  private static int slot(long address, int mask) { return (int) (Llvm.addressKey(address) >>> 32) & mask; }
}
