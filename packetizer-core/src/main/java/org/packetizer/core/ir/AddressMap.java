package org.packetizer.core.ir;

import java.util.function.LongFunction;

/**
 * A map from native addresses (non-zero {@code long}s, as {@link Value#id()} and {@link Block#id()}
 * give them) to objects: open addressing with linear probing over a {@code long[]} of keys, growing at
 * half full. No boxing of the keys, no entry objects, no {@code equals} calls (issue 16: the emitter's
 * {@code SlotSsa} looked its placeholders and blocks up in {@code HashMap<Long, ...>}, a boxed key per
 * lookup). Not iterable: the users keep their own ordered lists, so nothing depends on its order.
 * {@link OfInt} is the same table with {@code int} values.
 */
public final class AddressMap<V> {
  private long[] keys;
  private Object[] values;
  private int mask;
  private int size;

  /** A map sized for about {@code expected} entries before it grows. */
  public AddressMap(int expected) {
    int cap = capacity(expected);
    keys = new long[cap];
    values = new Object[cap];
    mask = cap - 1;
  }

  public AddressMap() { this(16); }

  /** The value of {@code address}, or null. */
  @SuppressWarnings("unchecked")
  public V get(long address) {
    if (address == 0) return null;
    int i = probe(keys, mask, address);
    return keys[i] == 0 ? null : (V) values[i];
  }

  /** Sets the value of {@code address} (non-zero) to {@code value} (non-null). */
  public void put(long address, V value) {
    checkKey(address);
    int i = probe(keys, mask, address);
    if (keys[i] == address) values[i] = value;
    else insertAt(i, address, value);
  }

  /** The value of {@code address} (non-zero); made by {@code make} and kept when it has none. */
  @SuppressWarnings("unchecked")
  public V computeIfAbsent(long address, LongFunction<? extends V> make) {
    checkKey(address);
    int i = probe(keys, mask, address);
    if (keys[i] == address) return (V) values[i];
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
      int i = probe(keys, mask, k);
      keys[i] = k;
      values[i] = ov[j];
    }
  }

  private static void checkKey(long address) {
    if (address == 0) throw new IllegalArgumentException("address 0 is not a key");
  }

  /** A power of two at least twice {@code expected} (and at least 16): the table stays at most half full. */
  private static int capacity(int expected) { return Integer.highestOneBit(Math.max(8, expected) * 2 - 1) << 1; }

  /**
   * Where {@code address} (non-zero) is in {@code keys}, or the free slot where it would go: linear
   * probing from the slot of its hash ({@link Llvm#addressKey}). The table must have a free slot.
   */
  private static int probe(long[] keys, int mask, long address) {
    int i = (int) (Llvm.addressKey(address) >>> 32) & mask;
    while (true) {
      long k = keys[i];
      if (k == address || k == 0) return i;
      i = (i + 1) & mask;
    }
  }

  /**
   * The same table with {@code int} values (no boxing): native address to a number, -1 for none. The
   * analyses' view of a function ({@code core.adapt.LlvmSsaFunction}) numbers its blocks and the
   * instructions it did not hand out itself through it (issue 16: a {@code HashMap<Value, Integer>} was
   * the largest single hash-lookup site). Grows at half full, like the map; not iterable.
   */
  public static final class OfInt {
    private long[] keys;
    private int[] values;
    private int mask;
    private int size;

    /** A table sized for about {@code expected} entries before it grows. */
    public OfInt(int expected) {
      int cap = capacity(expected);
      keys = new long[cap];
      values = new int[cap];
      mask = cap - 1;
    }

    /** The number of {@code address}, or -1 (also for address 0). */
    public int get(long address) {
      if (address == 0) return -1;
      int i = probe(keys, mask, address);
      return keys[i] == 0 ? -1 : values[i];
    }

    /** Records {@code value} for {@code address} (non-zero) unless it has one; returns the value it has then. */
    public int putIfAbsent(long address, int value) {
      checkKey(address);
      int i = probe(keys, mask, address);
      if (keys[i] == address) return values[i];
      keys[i] = address;
      values[i] = value;
      if (++size * 2 > keys.length) grow();
      return value;
    }

    /** How many addresses have a value. */
    public int size() { return size; }

    private void grow() {
      long[] ok = keys;
      int[] ov = values;
      int cap = ok.length * 2;
      keys = new long[cap];
      values = new int[cap];
      mask = cap - 1;
      for (int j = 0; j < ok.length; j++) {
        long k = ok[j];
        if (k == 0) continue;
        int i = probe(keys, mask, k);
        keys[i] = k;
        values[i] = ov[j];
      }
    }
  }
}
