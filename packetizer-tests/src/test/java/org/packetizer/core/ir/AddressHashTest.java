package org.packetizer.core.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The hash of LLVM objects' addresses ({@link Value}, {@link Block}, {@link Type} and the keys of
 * SlotSsa's maps): LLVM allocates objects at regular strides, and HashMap turns a bin of more than 8
 * entries into a red-black tree (slow lookups that showed in profiles of large functions).
 */
class AddressHashTest {
  /** HashMap's bin of a hash in a table of {@code size} (a power of two): its own spreading, then the mask. */
  private static int bin(int hash, int size) {
    return (hash ^ (hash >>> 16)) & (size - 1);
  }

  @Test
  void regularStridesNeverFillAHashMapBinBeyondEight() {
    long base = 0x00007f3a12345670L;
    for (long stride : new long[] {8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 4096}) {
      for (int k = 6; k <= 17; k++) {
        int size = 1 << k;
        int n = size * 3 / 4;  // the most a HashMap holds before it doubles the table
        int[] count = new int[size];
        int max = 0;
        for (int i = 0; i < n; i++) {
          int c = ++count[bin(Llvm.addressHash(base + i * stride), size)];
          max = Math.max(max, c);
        }
        final int worst = max;
        assertTrue(worst <= 8, () -> "stride " + stride + ", " + n + " addresses in " + size + " bins: a bin of " + worst);
      }
    }
  }

  @Test
  void addressKeyIsABijectionWhoseLongHashIsTheAddressHash() {
    Set<Long> keys = new HashSet<>();
    long base = 0x00005555aaaa0000L;
    for (int i = 0; i < 100_000; i++) {
      long a = base + i * 16L;
      long key = Llvm.addressKey(a);
      assertTrue(keys.add(key), () -> "two addresses share the key of " + Long.toHexString(a));
      assertEquals(Llvm.addressHash(a), Long.hashCode(key));
    }
  }
}
