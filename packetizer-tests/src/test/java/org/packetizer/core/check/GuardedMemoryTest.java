package org.packetizer.core.check;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The fences around check buffers: canaries on both sides catch small overruns, and the pages just
 * beyond the canary zones are PROT_NONE (read from /proc/self/maps: actually touching them would
 * terminate the JVM, which is the point).
 */
class GuardedMemoryTest {

  @Test
  @SuppressWarnings("restricted")
  void canariesCatchWritesJustOutsideTheBuffer() {
    for (boolean guard : new boolean[] {true, false}) {
      try (GuardedMemory m = GuardedMemory.allocate(12, 64, guard)) {
        assertEquals(0, m.address() % 64, "aligned");
        assertNull(m.damage());
        m.segment().fill((byte) 0x11); // writing the whole buffer is fine
        assertNull(m.damage());
        var all = m.segment().reinterpret(m.size() + GuardedMemory.CANARY);
        all.set(ValueLayout.JAVA_BYTE, 12, (byte) (all.get(ValueLayout.JAVA_BYTE, 12) ^ 0xFF));
        long[] d = m.damage();
        assertNotNull(d);
        assertEquals(12, d[0], "first byte past the end");
      }
      try (GuardedMemory m = GuardedMemory.allocate(8, 64, guard)) {
        var before = MemorySegment.ofAddress(m.address() - 3).reinterpret(3);
        before.set(ValueLayout.JAVA_BYTE, 0, (byte) (before.get(ValueLayout.JAVA_BYTE, 0) ^ 0xFF));
        assertEquals(-3, m.damage()[0], "three bytes before the start");
      }
    }
  }

  @Test
  void guardPagesFollowAndPrecedeTheCanaryZones() throws IOException {
    Assumptions.assumeTrue(GuardedMemory.guardPagesAvailable() && Files.isReadable(Path.of("/proc/self/maps")));
    for (long size : new long[] {1, 4, 100, 4096, 10000}) {
      try (GuardedMemory m = GuardedMemory.allocate(size, 64, true)) {
        long end = m.address() + m.size();
        // readable and writable up to the end of the mapping holding the trailing canary...
        Mapping rw = mapping(end);
        assertTrue(rw.perms().startsWith("rw"), rw.perms());
        long pageEnd = rw.hi();
        assertTrue(pageEnd - end >= GuardedMemory.CANARY && pageEnd - end < GuardedMemory.CANARY + 64, "canary zone " + (pageEnd - end));
        // ... and the page after it is inaccessible, as is the one before the buffer's mapping
        assertTrue(mapping(pageEnd).perms().startsWith("---"), mapping(pageEnd).perms());
        Mapping start = mapping(m.address());
        assertEquals(rw, start, "one read-write mapping");
        long pageStart = start.lo() - 1;
        assertTrue(mapping(pageStart).perms().startsWith("---"), "guard page before: " + mapping(pageStart).perms());
        assertTrue(m.address() - pageStart > GuardedMemory.CANARY);
      }
    }
  }

  private record Mapping(long lo, long hi, String perms) {}

  /** The mapping holding {@code addr}, from /proc/self/maps. */
  private static Mapping mapping(long addr) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      String[] parts = line.split("\\s+");
      String[] range = parts[0].split("-");
      long lo = Long.parseUnsignedLong(range[0], 16), hi = Long.parseUnsignedLong(range[1], 16);
      if (Long.compareUnsigned(addr, lo) >= 0 && Long.compareUnsigned(addr, hi) < 0) return new Mapping(lo, hi, parts[1]);
    }
    return new Mapping(addr, addr + 1, "unmapped");
  }
}
