package org.packetizer.core.check;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A buffer fenced in for the differential check. Layout (with guard pages, the default on Linux):
 *
 * <pre>
 *   [PROT_NONE page][canary ... canary][buffer][canary (>= 64 bytes)][PROT_NONE page]
 * </pre>
 *
 * The buffer ends {@value #CANARY} to {@value #CANARY} + alignment - 1 bytes before the trailing
 * guard page; everything readable around it is filled with a position-dependent canary pattern. A
 * write just past either end changes a canary ({@link #damage()} finds it); an access farther out
 * hits a PROT_NONE page and faults, which terminates the process: an out-of-bounds access is never
 * silently accepted. Without mmap (or with guard pages off) the buffer comes from an arena with the
 * same canaries but no guard pages.
 */
final class GuardedMemory implements AutoCloseable {
  static final int CANARY = 64;

  private static final int PROT_NONE = 0, PROT_READ = 1, PROT_WRITE = 2;
  private static final int MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20;
  private static final MethodHandle MMAP, MPROTECT, MUNMAP;
  private static final long PAGE;

  static {
    MethodHandle mmap = null, mprotect = null, munmap = null;
    long page = 4096;
    try {
      if (System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
        mmap = libc("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        mprotect = libc("mprotect", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        munmap = libc("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        MethodHandle getpagesize = libc("getpagesize", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        page = (int) getpagesize.invokeExact();
      }
    } catch (Throwable t) {
      mmap = mprotect = munmap = null;
    }
    MMAP = mmap;
    MPROTECT = mprotect;
    MUNMAP = munmap;
    PAGE = page;
  }

  @SuppressWarnings("restricted")
  private static MethodHandle libc(String name, FunctionDescriptor fd) {
    Linker linker = Linker.nativeLinker();
    SymbolLookup libc = linker.defaultLookup();
    return linker.downcallHandle(libc.find(name).orElseThrow(), fd);
  }

  /** Whether guard pages can be used here. */
  static boolean guardPagesAvailable() { return MMAP != null; }

  private final MemorySegment mapping; // whole mapping (guard pages included), or null
  private final Arena arena;           // fallback allocation, or null
  private final MemorySegment rw;      // the readable and writable area
  private final long start;            // buffer offset inside rw
  private final long size;
  private boolean closed;

  private GuardedMemory(MemorySegment mapping, Arena arena, MemorySegment rw, long start, long size) {
    this.mapping = mapping;
    this.arena = arena;
    this.rw = rw;
    this.start = start;
    this.size = size;
    byte[] pattern = pattern(rw.byteSize());
    MemorySegment.copy(MemorySegment.ofArray(pattern), 0, rw, 0, start);
    MemorySegment.copy(MemorySegment.ofArray(pattern), start + size, rw, start + size, rw.byteSize() - start - size);
  }

  /** A fenced buffer of {@code size} bytes whose address is a multiple of {@code align} (a power of two). */
  @SuppressWarnings("restricted")
  static GuardedMemory allocate(long size, long align, boolean guardPages) {
    if (Long.bitCount(align) != 1) throw new IllegalArgumentException("alignment " + align);
    long rwSize = roundUp(size + align + 2L * CANARY, PAGE);
    if (guardPages && MMAP != null) {
      long total = rwSize + 2 * PAGE;
      MemorySegment base;
      try {
        base = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
      } catch (Throwable t) {
        throw new IllegalStateException("mmap failed", t);
      }
      if (base.address() == -1L || base.address() == 0L) throw new IllegalStateException("mmap of " + total + " bytes failed");
      MemorySegment mapping = base.reinterpret(total);
      MemorySegment rw = mapping.asSlice(PAGE, rwSize);
      int rc;
      try {
        rc = (int) MPROTECT.invokeExact(rw, rwSize, PROT_READ | PROT_WRITE);
      } catch (Throwable t) {
        rc = -1;
      }
      if (rc != 0) {
        unmap(mapping);
        throw new IllegalStateException("mprotect failed");
      }
      long start = alignDown(rwSize - CANARY - size, align);
      return new GuardedMemory(mapping, null, rw, start, size);
    }
    Arena arena = Arena.ofConfined();
    MemorySegment rw = arena.allocate(rwSize, Math.max(align, 64));
    long start = alignDown(rwSize - CANARY - size, align);
    return new GuardedMemory(null, arena, rw, start, size);
  }

  /** The whole readable and writable area: canaries, the buffer, canaries (what an emulated run mirrors). */
  MemorySegment area() { return rw; }

  /** The buffer. */
  MemorySegment segment() { return rw.asSlice(start, size); }

  long address() { return rw.address() + start; }

  long size() { return size; }

  byte[] contents() { return segment().toArray(ValueLayout.JAVA_BYTE); }

  void fill(byte[] image) {
    if (image.length != size) throw new IllegalArgumentException("image of " + image.length + " bytes for a " + size + "-byte buffer");
    segment().copyFrom(MemorySegment.ofArray(image));
  }

  /**
   * The first damaged canary byte: {offset relative to the buffer start (negative before it, {@code >=
   * size} after it), expected byte, actual byte}, or null when all canaries are intact.
   */
  long[] damage() {
    byte[] pattern = pattern(rw.byteSize());
    byte[] lead = rw.asSlice(0, start).toArray(ValueLayout.JAVA_BYTE);
    byte[] trail = rw.asSlice(start + size).toArray(ValueLayout.JAVA_BYTE);
    int a = java.util.Arrays.mismatch(trail, 0, trail.length, pattern, (int) (start + size), pattern.length);
    if (a >= 0) return new long[] {size + a, pattern[(int) (start + size) + a] & 0xFF, trail[a] & 0xFF};
    // before the buffer: report the damaged byte nearest to it
    for (int i = lead.length - 1; i >= 0; i--) {
      if (lead[i] != pattern[i]) return new long[] {i - start, pattern[i] & 0xFF, lead[i] & 0xFF};
    }
    return null;
  }

  /** The canary bytes of an area of {@code n} bytes (position-dependent, so shifted copies are caught). */
  private static byte[] pattern(long n) {
    byte[] p = new byte[Math.toIntExact(n)];
    for (int i = 0; i < p.length; i++) p[i] = (byte) (0xA5 ^ (i * 0x3B) ^ (i >>> 8));
    return p;
  }

  private static long roundUp(long x, long m) { return (x + m - 1) / m * m; }

  private static long alignDown(long x, long a) { return x & -a; }

  private static void unmap(MemorySegment mapping) {
    try {
      int rc = (int) MUNMAP.invokeExact(mapping, mapping.byteSize());
      if (rc != 0) throw new IllegalStateException("munmap failed");
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("munmap failed", t);
    }
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    if (mapping != null) unmap(mapping);
    if (arena != null) arena.close();
  }
}
