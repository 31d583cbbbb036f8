package org.packetizer.core.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.packetizer.core.bench.KernelPlan.Leaf;
import org.packetizer.core.bench.KernelPlan.ParamPlan;
import org.packetizer.core.bench.KernelPlan.SoaPointer;
import org.packetizer.core.bench.KernelPlan.StructLayout;
import org.packetizer.core.bench.KernelPlan.UniformPointer;
import org.packetizer.core.bench.KernelPlan.UniformScalar;
import org.packetizer.core.bench.KernelPlan.VaryingScalar;
import org.packetizer.core.toolchain.Manifest;

/**
 * The memory of one kernel's three loops for up to {@code capacity} elements: shared read-only
 * inputs, and per loop its own copies of everything the kernel writes (results and written
 * per-element objects). Every loop is called as {@code void loop(i64 n, ptr bufs)} where
 * {@code bufs[k]} points to parameter k's memory and {@code bufs[params]} to the result array.
 *
 * <p>Inputs are deterministic: they depend only on the seed, the kernel name and the parameter.
 */
final class BenchBuffers implements AutoCloseable {
  /**
   * The loops, in the order of {@link #bufs}: DRIVER and AUTO are the generated array drivers (plain, and
   * with {@code --refill=auto}) called as a C caller calls them; they see array-of-structs memory, as the
   * scalar loop does (a struct-of-arrays parameter is passed to them as a linear pointer).
   */
  enum Loop { SCALAR, AUTOVEC, PACKET, GCC, DRIVER, AUTO }

  private static final int LOOPS = Loop.values().length;

  /** Byte pattern written over every output before a run, so that a lane the packet loop skips shows. */
  private static final byte SENTINEL = (byte) 0xA5;

  private final Arena arena = Arena.ofShared();
  private final KernelPlan plan;
  private final int capacity;
  private final int width;
  /** Per loop: the pointer table handed to the loop. */
  private final MemorySegment[] bufs = new MemorySegment[LOOPS];
  /** Per loop and parameter: the memory (shared inputs appear in all three). */
  private final MemorySegment[][] memory;
  /** Per parameter: pristine contents of written objects (null for others), in AoS and in packet form. */
  private final MemorySegment[] pristineAos, pristinePacket;
  /** Per loop: the result array (null for void kernels). */
  private final MemorySegment[] results = new MemorySegment[LOOPS];

  BenchBuffers(KernelPlan plan, int capacity, int width, long seed) { this(plan, capacity, width, seed, false); }

  /**
   * @param coherent order the elements along a Z-order curve over their first two varying scalar
   *                 inputs, so that the W lanes of a packet get neighbouring inputs (as the pixels of
   *                 an image tile do) instead of independent random ones
   */
  BenchBuffers(KernelPlan plan, int capacity, int width, long seed, boolean coherent) {
    if (capacity > 1 << 20) throw new IllegalArgumentException("at most 2^20 elements");
    if (capacity % width != 0) throw new IllegalArgumentException("capacity " + capacity + " is not a multiple of W=" + width);
    this.plan = plan;
    this.capacity = capacity;
    this.width = width;
    int np = plan.params().size();
    memory = new MemorySegment[LOOPS][np];
    pristineAos = new MemorySegment[np];
    pristinePacket = new MemorySegment[np];
    String kernel = plan.entry().name();
    for (int k = 0; k < np; k++) {
      ParamPlan p = plan.params().get(k);
      SplittableRandom rnd = new SplittableRandom(mix(seed, kernel, k));
      switch (p) {
        case VaryingScalar v -> {
          MemorySegment s = alloc((long) capacity * v.type().size);
          for (int i = 0; i < capacity; i++) v.type().write(s, (long) i * v.type().size, v.type().random(rnd, v.lo(), v.hi()));
          for (int l = 0; l < LOOPS; l++) memory[l][k] = s;
        }
        case UniformScalar u -> {
          MemorySegment s = alloc(8);
          u.type().write(s, 0, u.value());
          for (int l = 0; l < LOOPS; l++) memory[l][k] = s;
        }
        case UniformPointer u -> {
          MemorySegment s = allocTable(u.count() * u.pointee().size());
          if (PRINT_ADDRESSES) {
            System.err.printf("bench: %s param %d (%d bytes) at 0x%x, page offset %d%n", kernel, k,
                s.byteSize(), s.address(), s.address() & 4095);
          }
          fill(s, u.pointee(), u.count(), u.init(), rnd);
          for (int l = 0; l < LOOPS; l++) memory[l][k] = s;
        }
        case SoaPointer o -> {
          long bytes = (long) capacity * o.pointee().size();
          MemorySegment aos = alloc(bytes);
          fill(aos, o.pointee(), capacity, o.init(), rnd);
          MemorySegment packet = alloc(bytes);
          toPacketLayout(aos, packet, o.pointee(), capacity, width);
          if (o.written()) {
            pristineAos[k] = aos;
            pristinePacket[k] = packet;
            for (int l = 0; l < LOOPS; l++) memory[l][k] = alloc(bytes);
          } else {
            for (int l = 0; l < LOOPS; l++) memory[l][k] = l == Loop.PACKET.ordinal() ? packet : aos;
          }
        }
      }
    }
    if (coherent) makeCoherent();
    for (int l = 0; l < LOOPS; l++) {
      if (plan.returnsValue()) results[l] = alloc((long) capacity * plan.result().size);
      MemorySegment t = alloc((np + 1L) * ValueLayout.ADDRESS.byteSize());
      for (int k = 0; k < np; k++) t.setAtIndex(ValueLayout.ADDRESS, k, memory[l][k]);
      t.setAtIndex(ValueLayout.ADDRESS, np, results[l] == null ? MemorySegment.NULL : results[l]);
      bufs[l] = t;
    }
  }

  /** Reorders the varying scalar inputs of all elements along a Z-order curve of the first two. */
  private void makeCoherent() {
    List<Integer> keys = new ArrayList<>();
    for (int k = 0; k < plan.params().size() && keys.size() < 2; k++) {
      if (plan.params().get(k) instanceof VaryingScalar) keys.add(k);
    }
    if (keys.isEmpty()) return;
    long[] order = new long[capacity];
    for (int i = 0; i < capacity; i++) {
      long[] q = new long[2];
      for (int j = 0; j < keys.size(); j++) {
        VaryingScalar v = (VaryingScalar) plan.params().get(keys.get(j));
        double x = v.type().read(memory[0][keys.get(j)], (long) i * v.type().size);
        double t = v.hi() > v.lo() ? (x - v.lo()) / (v.hi() - v.lo()) : 0;
        q[j] = Math.max(0, Math.min(0xFFFF, (long) (t * 0xFFFF)));
      }
      long z = 0;
      for (int b = 0; b < 16; b++) z |= ((q[0] >> b) & 1) << (2 * b) | ((q[1] >> b) & 1) << (2 * b + 1);
      order[i] = z << 20 | i; // capacity < 2^20: the index breaks ties and is recovered below
    }
    java.util.Arrays.sort(order);
    for (int k = 0; k < plan.params().size(); k++) {
      if (!(plan.params().get(k) instanceof VaryingScalar v)) continue;
      MemorySegment src = memory[0][k];
      MemorySegment dst = alloc(src.byteSize());
      for (int i = 0; i < capacity; i++) {
        MemorySegment.copy(src, (order[i] & 0xFFFFF) * v.type().size, dst, (long) i * v.type().size, v.type().size);
      }
      for (int l = 0; l < LOOPS; l++) memory[l][k] = dst;
    }
  }

  /** The pointer table of a loop. */
  MemorySegment table(Loop l) { return bufs[l.ordinal()]; }

  int capacity() { return capacity; }

  /** Parameter k's memory as loop {@code l} sees it (tests). */
  MemorySegment memory(Loop l, int k) { return memory[l.ordinal()][k]; }

  /** Loop {@code l}'s result array, or null for void kernels (tests). */
  MemorySegment result(Loop l) { return results[l.ordinal()]; }

  /** Restores written objects and overwrites results with a sentinel, for {@code n} elements. */
  void reset(Loop l, int n) {
    int np = plan.params().size();
    for (int k = 0; k < np; k++) {
      if (pristineAos[k] == null) continue;
      long bytes = (long) n * ((SoaPointer) plan.params().get(k)).pointee().size();
      MemorySegment src = l == Loop.PACKET ? pristinePacket[k] : pristineAos[k];
      MemorySegment.copy(src, 0, memory[l.ordinal()][k], 0, bytes);
    }
    if (results[l.ordinal()] != null) results[l.ordinal()].asSlice(0, (long) n * plan.result().size).fill(SENTINEL);
  }

  /**
   * Compares what loop {@code l} computed for the first {@code n} elements with the scalar loop's
   * results: returned values and written objects, leaf by leaf, within {@code ulps}.
   *
   * @return a description of the differences, or empty when all agree
   */
  Optional<String> compareWithScalar(Loop l, int n, int ulps) {
    return compareWithScalar(l, n, ulps, false);
  }

  /** The largest difference from the scalar results seen by the last approximate comparison, relative to the output's RMS. */
  double worstRelative;

  /** The root mean square of the first n values of type t in ref at base + i * stride. */
  private static double rms(ScalarType t, MemorySegment ref, long base, long stride, int n) {
    double sum = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
      double v = t.real(ref, base + i * stride);
      if (Double.isFinite(v)) {
        sum += v * v;
        k++;
      }
    }
    return k == 0 ? 0 : Math.sqrt(sum / k);
  }

  private boolean close(ScalarType t, MemorySegment ref, long ro, MemorySegment got, long go, double scale) {
    double a = t.real(ref, ro), b = t.real(got, go);
    if (!Double.isFinite(a) || !Double.isFinite(b) || scale <= 0) return false;
    double rel = Math.abs(a - b) / scale;
    worstRelative = Math.max(worstRelative, rel);
    return rel <= t.approximateTolerance();
  }

  /**
   * As {@link #compareWithScalar(Loop, int, int)}; with {@code approximate} (the packet code uses an
   * approximate vector math library) floating-point values beyond {@code ulps} still agree when
   * within {@link ScalarType#approximateTolerance} of the output's root mean square.
   */
  Optional<String> compareWithScalar(Loop l, int n, int ulps, boolean approximate) {
    List<String> problems = new ArrayList<>();
    int bad = 0;
    long maxUlps = 0;
    int w = width;
    if (plan.returnsValue()) {
      ScalarType t = plan.result();
      MemorySegment ref = results[Loop.SCALAR.ordinal()], got = results[l.ordinal()];
      double scale = approximate ? rms(t, ref, 0, t.size, n) : 0;
      for (int i = 0; i < n; i++) {
        long off = (long) i * t.size;
        if (!t.same(ref, off, got, off, ulps) && !(approximate && close(t, ref, off, got, off, scale))) {
          maxUlps = Math.max(maxUlps, t.ulpDistance(ref, off, got, off));
          if (bad++ < 3) problems.add("element " + i + " (lane " + (i % w) + "): result " + t.show(got, off) + ", scalar " + t.show(ref, off));
        }
      }
    }
    int np = plan.params().size();
    for (int k = 0; k < np; k++) {
      if (pristineAos[k] == null) continue;
      SoaPointer o = (SoaPointer) plan.params().get(k);
      StructLayout st = o.pointee();
      MemorySegment ref = memory[Loop.SCALAR.ordinal()][k], got = memory[l.ordinal()][k];
      java.util.Map<Long, Double> leafRms = new java.util.HashMap<>();
      for (int i = 0; i < n; i++) {
        for (Leaf leaf : st.leaves()) {
          long ro = i * st.size() + leaf.offset();
          long go = l == Loop.PACKET ? packetOffset(i, leaf, st, w) : ro;
          if (!leaf.type().same(ref, ro, got, go, ulps)
              && !(approximate && close(leaf.type(), ref, ro, got, go, leafRms.computeIfAbsent(leaf.offset(),
                  off -> rms(leaf.type(), ref, off, st.size(), n))))) {
            maxUlps = Math.max(maxUlps, leaf.type().ulpDistance(ref, ro, got, go));
            if (bad++ < 3) {
              problems.add("element " + i + " (lane " + (i % w) + "): " + o.name() + " field at offset " + leaf.offset() + " is "
                  + leaf.type().show(got, go) + ", scalar " + leaf.type().show(ref, ro));
            }
          }
        }
      }
    }
    if (bad == 0) return Optional.empty();
    String most = maxUlps == Long.MAX_VALUE ? "" : " (at most " + maxUlps + " ulps apart)";
    return Optional.of(bad + " value(s) of " + n + " elements differ" + (ulps > 0 ? " by more than " + ulps + " ulps" : "")
        + " from the scalar loop's" + most + "; " + String.join("; ", problems) + (bad > 3 ? "; ..." : ""));
  }

  /** Byte offset of element i's leaf in the packet layout (blocks of W objects in struct-of-arrays form). */
  static long packetOffset(long i, Leaf leaf, StructLayout st, int w) {
    long block = i / w, lane = i % w;
    return block * w * st.size() + w * leaf.offset() + lane * leaf.type().size;
  }

  static void toPacketLayout(MemorySegment aos, MemorySegment packet, StructLayout st, int n, int w) {
    packet.fill((byte) 0);
    for (int i = 0; i < n; i++) {
      for (Leaf leaf : st.leaves()) {
        MemorySegment.copy(aos, i * st.size() + leaf.offset(), packet, packetOffset(i, leaf, st, w), leaf.type().size);
      }
    }
  }

  private static void fill(MemorySegment s, StructLayout st, long count, Manifest.Init init, SplittableRandom rnd) {
    s.fill((byte) 0);
    long index = 0;
    for (long i = 0; i < count; i++) {
      for (Leaf leaf : st.leaves()) {
        double v = switch (init.kind()) {
          case ZERO -> 0;
          case RANDOM -> leaf.type().random(rnd, init.lo(), init.hi());
          case IOTA -> init.lo() + index * init.hi();
        };
        index++;
        leaf.type().write(s, i * st.size() + leaf.offset(), v);
      }
    }
  }

  private MemorySegment alloc(long bytes) { return arena.allocate(Math.max(bytes, 8), 64); }

  /**
   * Where a uniform pointer's table lies decides how often a byte loop's 8-byte windows meet a page's end
   * (issue 16, nineteenth round): {@code -Dpacketizer.bench.pageOffset=K} places each such table at byte K of
   * a page (K in 0..4095; a table longer than the rest of the page runs into the next one), default: where
   * the allocator puts it. {@code -Dpacketizer.bench.printAddresses=true} prints each table's address.
   */
  private MemorySegment allocTable(long bytes) {
    if (PAGE_OFFSET < 0) return alloc(bytes);
    long need = Math.max(bytes, 8);
    MemorySegment block = arena.allocate(PAGE_OFFSET + need + 4096, 4096);
    return block.asSlice(PAGE_OFFSET, need);
  }

  private static final int PAGE_OFFSET = pageOffset();
  private static final boolean PRINT_ADDRESSES = Boolean.getBoolean("packetizer.bench.printAddresses");

  private static int pageOffset() {
    String v = System.getProperty("packetizer.bench.pageOffset");
    if (v == null || v.isBlank()) return -1;
    int k;
    try {
      k = Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("packetizer.bench.pageOffset: not a number: " + v);
    }
    if (k < 0 || k > 4095) throw new IllegalArgumentException("packetizer.bench.pageOffset: " + k + " is not in 0..4095");
    return k;
  }

  private static long mix(long seed, String kernel, int param) {
    long h = seed * 0x9E3779B97F4A7C15L;
    for (int i = 0; i < kernel.length(); i++) h = (h ^ kernel.charAt(i)) * 0x100000001B3L;
    return h ^ (param + 1) * 0xC2B2AE3D27D4EB4FL;
  }

  @Override
  public void close() { arena.close(); }
}
