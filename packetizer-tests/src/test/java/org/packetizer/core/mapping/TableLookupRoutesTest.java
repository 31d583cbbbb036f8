package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;

/**
 * Every route of {@link TableLookup} against the table it reads, entry by entry, independent of the math
 * helpers that use it (issue 16, ninth round: the AVX2 route {@link TableLookup.Route#HALVES}, which
 * splits the table into 32-bit halves held in ymm constants, permutes each half with {@code vpermd},
 * selects 8-entry blocks by index bits 3 and 4 and interleaves the halves back into 64-bit lanes). The
 * tables hold random 64-bit words (distinct low and high halves, so that a swapped half, a wrong block
 * or a lane out of place shows), every index reaches every lane, at W8 and W16 (two 8-lane parts) and
 * for 8-, 16-, 20- (padded to 24 → 32) and 32-entry tables.
 */
class TableLookupRoutesTest {
  private static final Linker C = Linker.nativeLinker();

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    for (TableLookup.Route r : TableLookup.Route.values())
      for (int w : new int[] {8, 16})
        for (int n : new int[] {8, 16, 20, 32}) a.add(Arguments.of(r, w, n));
    return a.stream();
  }

  /** The target a route is compiled for: AVX2 (haswell) for HALVES, GATHER and the portable ones, AVX-512 (x86-64-v4) for PERMUTE (W8 and W16). */
  static String cpu(TableLookup.Route r) { return r == TableLookup.Route.PERMUTE ? "x86-64-v4" : "haswell"; }

  @ParameterizedTest(name = "{0} W={1} N={2}")
  @MethodSource("cases")
  void everyIndexInEveryLaneReadsItsEntry(TableLookup.Route r, int w, int n) throws Throwable {
    SplittableRandom rnd = new SplittableRandom(0x22B + 31L * w + n);
    long[] bits = tableFor(r, n, rnd);
    String body = TableLookup.lookup(r, "%out", "tab", bits, "%in", w);
    List<String> bad = runLookups(r, w, bits, "<" + w + " x i32>", body, 4, (call, k) -> {
      // calls 0..n-1: index (call + 5k) mod n, so that every index reaches every lane; then random
      int idx = call < n ? (call + 5 * k) % n : rnd.nextInt(n);
      return new long[] {idx, idx};
    });
    assertTrue(bad.isEmpty(), r + " W=" + w + " N=" + n + ":\n" + String.join("\n", bad));
  }

  static Stream<Arguments> lowBitsCases() {
    List<Arguments> a = new ArrayList<>();
    for (TableLookup.Route r : List.of(TableLookup.Route.GATHER, TableLookup.Route.SCALAR, TableLookup.Route.HALVES, TableLookup.Route.PERMUTE))
      for (int w : new int[] {4, 8, 16, 32})
        for (int n : new int[] {16, 32})
          if ((w >= 8 || r == TableLookup.Route.GATHER || r == TableLookup.Route.SCALAR) && (w <= 16 || r != TableLookup.Route.PERMUTE))
            a.add(Arguments.of(r, w, n));
    return a.stream();
  }

  /**
   * {@link TableLookup#lookupByLowBits} (twenty-first round: expf's and exp2's table index taken from the low bits of the
   * 64-bit lanes of k, by {@code vpgatherqq} on the gather route): each lane reads {@code table[key & (N - 1)]} whatever
   * the key's upper bits hold (random, as the exponent bits of glibc's shifted double are), every index in every lane.
   */
  @ParameterizedTest(name = "{0} W={1} N={2}")
  @MethodSource("lowBitsCases")
  void lookupByTheLowBitsOfA64BitKeyReadsItsEntry(TableLookup.Route r, int w, int n) throws Throwable {
    SplittableRandom rnd = new SplittableRandom(0x21E + 17L * w + n);
    long[] bits = tableFor(r, n, rnd);
    String vl = "<" + w + " x i64>";
    String body = TableLookup.lookupByLowBits(r, "%out", "tab", bits, "%in", "%k32", "%idx", w);
    if (r == TableLookup.Route.GATHER) assertTrue(body.contains("@llvm.x86.avx2.gather.q.q.256") && !body.contains("trunc"), body);
    else assertTrue(body.contains("trunc " + vl) && !body.contains("gather.q.q"), body);
    List<String> bad = runLookups(r, w, bits, vl, body, 8, (call, k) -> {
      int idx = call < n ? (call + 5 * k) % n : rnd.nextInt(n);
      return new long[] {(rnd.nextLong() & -(long) n) | idx, idx};
    });
    assertTrue(bad.isEmpty(), r + " W=" + w + " N=" + n + ":\n" + String.join("\n", bad));
  }

  /** The input lane {@code k} of call {@code call}: {@code {value passed, index of the entry it must read}}. */
  interface LaneInput { long[] at(int call, int k); }

  /** N random 64-bit entries (distinct halves) for route {@code r}, after assuming the host runs the route's ISA. */
  static long[] tableFor(TableLookup.Route r, int n, SplittableRandom rnd) {
    String feat = r == TableLookup.Route.PERMUTE ? "avx512f" : "avx2";
    Assumptions.assumeTrue(org.packetizer.core.ir.Llvm.hostCpuFeatures().contains("+" + feat), "SKIPPED (LOUD): the host has no " + feat);
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) bits[i] = rnd.nextLong();
    return bits;
  }

  /**
   * JIT-compiles {@code @look(in, out)}: loads {@code %in} of type {@code inType} (lanes of {@code inBytes} bytes), runs
   * {@code body} (which defines {@code %out}, {@code <w x i64>}) for route {@code r}'s CPU, stores it; calls it 4·N times
   * with the lanes {@code input} gives and returns the lanes whose entry differs from the table's (at most 10).
   */
  static List<String> runLookups(TableLookup.Route r, int w, long[] bits, String inType, String body, int inBytes, LaneInput input)
      throws Throwable {
    String vl = "<" + w + " x i64>";
    String ir = TableLookup.global("tab", bits)
        + "define void @look(ptr %ip, ptr %op) #0 {\nentry:\n  %in = load " + inType + ", ptr %ip, align " + inBytes + "\n" + body
        + "  store " + vl + " %out, ptr %op, align 8\n  ret void\n}\n"
        + TableLookup.declarations(r, w)
        + "attributes #0 = { nounwind \"target-cpu\"=\"" + cpu(r) + "\" }\n";
    List<String> bad = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "look.ll"); Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
      jit.addModule(m);
      MethodHandle look = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("look")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
      MemorySegment in = arena.allocate((long) inBytes * w, 64), out = arena.allocate(8L * w, 64);
      for (int call = 0; call < 4 * bits.length; call++) {
        long[][] lane = new long[w][];
        for (int k = 0; k < w; k++) {
          lane[k] = input.at(call, k);
          if (inBytes == 4) in.setAtIndex(JAVA_INT, k, (int) lane[k][0]);
          else in.setAtIndex(JAVA_LONG, k, lane[k][0]);
        }
        look.invokeExact(in, out);
        for (int k = 0; k < w && bad.size() < 10; k++) {
          long got = out.getAtIndex(JAVA_LONG, k), want = bits[(int) lane[k][1]];
          if (got != want)
            bad.add(String.format("lane %d input 0x%x: 0x%016x, want 0x%016x (entry %d)", k, lane[k][0], got, want, lane[k][1]));
        }
      }
    }
    return bad;
  }

  /**
   * The automatic routes per CPU (twenty-first round): Intel's AVX2 cores (haswell, skylake, alderlake, and x86-64-v3,
   * which LLVM schedules as Haswell) gather the single lookups at W a multiple of 8 and take the pairs by the halves at
   * W8 and by scalar loads from W16, W4 scalar loads; AVX-512 cores, Intel's (skylake-avx512, icelake-server,
   * sapphirerapids) and AMD's (znver4), permute at W a multiple of 8; AMD's AVX2 cores (znver2, znver3) and SSE keep
   * scalar loads, as the eighth round decided on Zen; {@code -Dpacketizer.tableLookup.perCpu=false} gives Intel's
   * AVX2 cores scalar loads again.
   */
  @Test
  void autoRoutesPerCpu() {
    Assumptions.assumeTrue(System.getProperty("packetizer.tableLookup", "auto").equals("auto")
        && System.getProperty("packetizer.tableLookup.pairs", "auto").equals("auto"), "SKIPPED (LOUD): a knob forces a route");
    String avx2 = "+sse4.2,+avx,+avx2,+fma", avx512 = avx2 + ",+avx512f";
    TableLookup.Route g = TableLookup.Route.GATHER, sc = TableLookup.Route.SCALAR, h = TableLookup.Route.HALVES, p = TableLookup.Route.PERMUTE;
    for (String intel : List.of("haswell", "skylake", "alderlake", "x86-64-v3")) {
      for (int w : new int[] {8, 16, 32}) assertEquals(g, TableLookup.route(w, avx2, intel), intel + " W" + w);
      assertEquals(h, TableLookup.pairRoute(g, 8, avx2, intel), intel);
      assertEquals(sc, TableLookup.pairRoute(g, 16, avx2, intel), intel);
      assertEquals(sc, TableLookup.pairRoute(g, 32, avx2, intel), intel);
      assertEquals(sc, TableLookup.route(4, avx2, intel), intel + " W4");
      assertEquals(sc, TableLookup.pairRoute(sc, 4, avx2, intel), intel + " W4");
      assertEquals(sc, TableLookup.route(8, "+sse4.2", intel), intel + " without AVX2");
    }
    for (String intel512 : List.of("skylake-avx512", "icelake-server", "sapphirerapids", "x86-64-v4"))
      for (int w : new int[] {8, 16}) {
        assertEquals(p, TableLookup.route(w, avx512, intel512), intel512 + " W" + w);
        assertEquals(p, TableLookup.pairRoute(p, w, avx512, intel512), intel512 + " W" + w);
      }
    for (String zen : List.of("znver2", "znver3", "")) {
      for (int w : new int[] {4, 8, 16}) assertEquals(sc, TableLookup.route(w, avx2, zen), zen + " W" + w);
      assertEquals(sc, TableLookup.pairRoute(sc, 8, avx2, zen), zen);
    }
    assertEquals(p, TableLookup.route(16, avx512, "znver4"));
    assertTrue(TableLookup.describe(g, h, 8, avx2, "haswell").contains("an Intel core, haswell"));
    assertFalse(TableLookup.describe(sc, sc, 8, avx2, "znver3").contains("Intel"));
    String was = System.setProperty("packetizer.tableLookup.perCpu", "false");
    try {
      assertEquals(sc, TableLookup.route(8, avx2, "haswell"));
      assertEquals(sc, TableLookup.pairRoute(sc, 8, avx2, "haswell"));
      assertEquals(p, TableLookup.route(16, avx512, "skylake-avx512"));
    } finally {
      if (was == null) System.clearProperty("packetizer.tableLookup.perCpu");
      else System.setProperty("packetizer.tableLookup.perCpu", was);
    }
    // the knobs: one route for every lookup, or the pairs' alone
    System.setProperty("packetizer.tableLookup.pairs", "scalar");
    try {
      assertEquals(g, TableLookup.route(8, avx2, "haswell"));
      assertEquals(sc, TableLookup.pairRoute(g, 8, avx2, "haswell"));
    } finally {
      System.clearProperty("packetizer.tableLookup.pairs");
    }
    System.setProperty("packetizer.tableLookup", "gather");
    try {
      assertEquals(g, TableLookup.route(8, avx2, "znver3"));
      assertEquals(g, TableLookup.pairRoute(g, 8, avx2, "znver3"));
      assertEquals(g, TableLookup.pairRoute(g, 8, avx2, "haswell"));
    } finally {
      System.clearProperty("packetizer.tableLookup");
    }
  }

  /** The automatic route per target: permute on AVX-512 at W a multiple of 8, scalar loads elsewhere (the AVX2 halves only by the knob). */
  @Test
  void autoRoutePerTarget() {
    Assumptions.assumeTrue(System.getProperty("packetizer.tableLookup", "auto").equals("auto"), "SKIPPED (LOUD): -Dpacketizer.tableLookup forces a route");
    String avx2 = "+sse4.2,+avx,+avx2,+fma", avx512 = avx2 + ",+avx512f";
    assertEquals(TableLookup.Route.SCALAR, TableLookup.route(8, avx2));
    assertEquals(TableLookup.Route.SCALAR, TableLookup.route(16, avx2));
    assertTrue(TableLookup.runs(TableLookup.Route.HALVES, 8, avx2) && TableLookup.runs(TableLookup.Route.HALVES, 16, avx2));
    assertFalse(TableLookup.runs(TableLookup.Route.HALVES, 4, avx2) || TableLookup.runs(TableLookup.Route.HALVES, 8, "+sse4.2"));
    assertEquals(TableLookup.Route.SCALAR, TableLookup.route(4, avx2));
    assertEquals(TableLookup.Route.SCALAR, TableLookup.route(8, "+sse4.2"));
    assertEquals(TableLookup.Route.PERMUTE, TableLookup.route(8, avx512));
    assertEquals(TableLookup.Route.PERMUTE, TableLookup.route(16, avx512));
    assertEquals(TableLookup.Route.SCALAR, TableLookup.route(4, avx512));
  }
}
