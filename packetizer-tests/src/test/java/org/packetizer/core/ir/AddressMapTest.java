package org.packetizer.core.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link AddressMap} (the emitter's SSA construction keys its blocks and placeholders by native address)
 * and {@link AddressMap.OfInt} (the analyses' view numbers blocks and instructions by address) against a
 * {@code HashMap<Long, ...>}: strided and random addresses, keys that share a slot, growth from the
 * smallest table, and absent keys.
 */
class AddressMapTest {

  @Test
  void agreesWithAHashMapThroughGrowth() {
    Random r = new Random(16);
    for (long stride : new long[] {8, 16, 48, 4096}) {
      AddressMap<String> m = new AddressMap<>(1);
      Map<Long, String> model = new HashMap<>();
      long base = 0x00007f3a12345670L;
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < 5000; i++) {
        long a = r.nextInt(4) == 0 ? (r.nextLong() | 1) : base + i * stride;
        keys.add(a);
        String v = "v" + i;
        switch (r.nextInt(3)) {
          case 0 -> {
            m.put(a, v);
            model.put(a, v);
          }
          case 1 -> assertEquals(model.computeIfAbsent(a, k -> v), m.computeIfAbsent(a, k -> v));
          default -> {
            // an existing key: its value replaced
            long old = keys.get(r.nextInt(keys.size()));
            m.put(old, v);
            model.put(old, v);
          }
        }
        assertEquals(model.size(), m.size());
      }
      for (long a : keys) assertEquals(model.get(a), m.get(a), () -> "stride " + stride + ": " + Long.toHexString(a));
      for (int i = 0; i < 1000; i++) {
        long a = base + 5000L * stride + i * 8L + 3;  // never put
        assertNull(m.get(a));
      }
    }
  }

  @Test
  void keysThatShareASlotAreKeptApart() {
    // addresses whose mixed key lands in the same slot of a 16-slot table: linear probing past each other
    List<Long> same = new ArrayList<>();
    for (long a = 0x1000; same.size() < 7; a += 16) {
      if (((int) (Llvm.addressKey(a) >>> 32) & 15) == 5) same.add(a);
    }
    AddressMap<Long> m = new AddressMap<>(8);
    for (long a : same) assertNull(m.get(a));
    for (long a : same) m.put(a, a * 3);
    for (long a : same) assertEquals(a * 3, m.get(a));
    int[] made = {0};
    for (long a : same) assertEquals(a * 3, m.computeIfAbsent(a, k -> { made[0]++; return -1L; }));
    assertEquals(0, made[0], "computeIfAbsent made a value for a key it has");
    assertEquals(same.size(), m.size());
  }

  @Test
  void aValueMadeWhileTheMakerPutsOtherKeysIsKept() {
    // the emitter's makers of slots ask the same map for other slots (growth on the way)
    AddressMap<String> m = new AddressMap<>(1);
    long base = 0x7000_0000L;
    for (int round = 0; round < 50; round++) {
      long outer = base + round * 1024L;
      final int r = round;
      String v = m.computeIfAbsent(outer, k -> {
        for (int j = 1; j <= 20; j++) m.put(k + 8L * j, "inner" + r + "." + j);
        return "outer" + r;
      });
      assertEquals("outer" + round, v);
    }
    for (int round = 0; round < 50; round++) {
      assertEquals("outer" + round, m.get(base + round * 1024L));
      for (int j = 1; j <= 20; j++) assertEquals("inner" + round + "." + j, m.get(base + round * 1024L + 8L * j));
    }
    assertEquals(50 * 21, m.size());
  }

  @Test
  void addressZeroIsNoKey() {
    AddressMap<String> m = new AddressMap<>();
    assertNull(m.get(0));
    assertThrows(IllegalArgumentException.class, () -> m.put(0, "x"));
    assertThrows(IllegalArgumentException.class, () -> m.computeIfAbsent(0, k -> "x"));
    AddressMap.OfInt n = new AddressMap.OfInt(4);
    assertEquals(-1, n.get(0));
    assertThrows(IllegalArgumentException.class, () -> n.putIfAbsent(0, 1));
  }

  @Test
  void intValuesAgreeWithAHashMapThroughGrowth() {
    Random r = new Random(28);
    for (long stride : new long[] {8, 16, 48, 4096}) {
      // sized for far fewer than it gets (growth from the smallest table), and sized exactly
      for (int expected : new int[] {1, 3000}) {
        AddressMap.OfInt m = new AddressMap.OfInt(expected);
        Map<Long, Integer> model = new HashMap<>();
        long base = 0x00007f3a12345670L;
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
          boolean again = !keys.isEmpty() && r.nextInt(4) == 0;
          long a = again ? keys.get(r.nextInt(keys.size())) : r.nextInt(4) == 0 ? (r.nextLong() | 1) : base + i * stride;
          keys.add(a);
          // the value the table has for a key it has; the new one (numbers from 0, as the users give them) otherwise
          int next = model.size();
          int want = model.computeIfAbsent(a, k -> next);
          assertEquals(want, m.putIfAbsent(a, next), () -> "stride " + stride + ": " + Long.toHexString(a));
          assertEquals(model.size(), m.size());
        }
        for (long a : keys) assertEquals((int) model.get(a), m.get(a), () -> "stride " + stride + ": " + Long.toHexString(a));
        for (int i = 0; i < 1000; i++) assertEquals(-1, m.get(base + 3000L * stride + i * 8L + 3));  // never put
      }
    }
  }

  @Test
  void intKeysThatShareASlotAreKeptApart() {
    List<Long> same = new ArrayList<>();
    for (long a = 0x1000; same.size() < 7; a += 16) {
      if (((int) (Llvm.addressKey(a) >>> 32) & 15) == 5) same.add(a);
    }
    AddressMap.OfInt m = new AddressMap.OfInt(7);
    for (long a : same) assertEquals(-1, m.get(a));
    for (int i = 0; i < same.size(); i++) assertEquals(i, m.putIfAbsent(same.get(i), i));
    for (int i = 0; i < same.size(); i++) assertEquals(i, m.putIfAbsent(same.get(i), 100 + i), "a second value replaced the first");
    for (int i = 0; i < same.size(); i++) assertEquals(i, m.get(same.get(i)));
    assertEquals(same.size(), m.size());
  }
}
