package org.packetizer.core.check;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.regex.Pattern;

/**
 * Measures of this process's native memory for leak gates: glibc's live malloc'd bytes, and the part
 * of them the JVM itself allocated (Native Memory Tracking, which the JVM must run with
 * {@code -XX:NativeMemoryTracking=summary}). The JVM's compiler arenas make the total swing by tens of
 * MB from one moment to the next; the part outside the JVM (LLVM, javacpp, our own allocations) does
 * not, so a leak gate compares that part.
 */
public final class NativeMemory {
  private static final MethodHandle MALLOC_TRIM;
  private static final MethodHandle MALLINFO2;
  private static final StructLayout MALLINFO = MemoryLayout.structLayout(MemoryLayout.sequenceLayout(10, ValueLayout.JAVA_LONG));
  private static final Pattern NMT_MALLOC = Pattern.compile("\\n\\s*malloc: (\\d+)KB");
  private static final Pattern NMT_COMMITTED = Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB");

  static {
    Linker l = Linker.nativeLinker();
    SymbolLookup libc = l.defaultLookup();
    MALLOC_TRIM = libc.find("malloc_trim").map(a -> l.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG)))
        .orElse(null);
    MALLINFO2 = libc.find("mallinfo2").map(a -> l.downcallHandle(a, FunctionDescriptor.of(MALLINFO))).orElse(null);
  }

  private NativeMemory() {}

  /** glibc's malloc_trim(0): gives free heap memory back to the system (no-op elsewhere). */
  public static void mallocTrim() {
    if (MALLOC_TRIM == null) return;
    try {
      int unused = (int) MALLOC_TRIM.invokeExact(0L);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Live malloc'd kB (mallinfo2 uordblks + hblkhd), -1 without glibc. */
  public static long mallocKb() {
    if (MALLINFO2 == null) return -1;
    try (Arena a = Arena.ofConfined()) {
      MemorySegment m = (MemorySegment) MALLINFO2.invokeExact((SegmentAllocator) a);
      return (m.getAtIndex(ValueLayout.JAVA_LONG, 7) + m.getAtIndex(ValueLayout.JAVA_LONG, 4)) / 1024;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** What the JVM itself has committed (heap, metaspace, code cache, threads, ...), from Native Memory Tracking; -1 when off. */
  public static long jvmCommittedKb() {
    return nmt(NMT_COMMITTED);
  }

  /** What the JVM itself has malloc'd (Native Memory Tracking's malloc total, compiler arenas included); -1 when off. */
  public static long jvmMallocKb() {
    return nmt(NMT_MALLOC);
  }

  /**
   * Live malloc'd kB that the JVM did not allocate: {@link #mallocKb()} less {@link #jvmMallocKb()}
   * (the JVM's figure read before and after, the smaller taken, so that a compiler arena freed in
   * between does not count as ours); -1 without glibc or Native Memory Tracking.
   */
  public static long outsideJvmKb() {
    long jvm0 = jvmMallocKb();
    long all = mallocKb();
    long jvm1 = jvmMallocKb();
    return all < 0 || jvm0 < 0 || jvm1 < 0 ? -1 : all - Math.min(jvm0, jvm1);
  }

  private static long nmt(Pattern regex) {
    try {
      var server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
      var name = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
      String out = (String) server.invoke(name, "vmNativeMemory", new Object[] {new String[] {"summary"}},
          new String[] {String[].class.getName()});
      var m = regex.matcher(out);
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }
}
