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

  /** The target a route is compiled for: AVX2 (haswell) for HALVES, GATHER and the portable ones, AVX-512 (x86-64-v4) for PERMUTE. */
  static String cpu(TableLookup.Route r) { return r == TableLookup.Route.PERMUTE ? "x86-64-v4" : "haswell"; }

  @ParameterizedTest(name = "{0} W={1} N={2}")
  @MethodSource("cases")
  void everyIndexInEveryLaneReadsItsEntry(TableLookup.Route r, int w, int n) throws Throwable {
    String feat = r == TableLookup.Route.PERMUTE ? "avx512f" : "avx2";
    Assumptions.assumeTrue(org.packetizer.core.ir.Llvm.hostCpuFeatures().contains("+" + feat), "SKIPPED (LOUD): the host has no " + feat);
    SplittableRandom rnd = new SplittableRandom(0x22B + 31L * w + n);
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) bits[i] = rnd.nextLong();
    String vi = "<" + w + " x i32>", vl = "<" + w + " x i64>";
    String ir = TableLookup.global("tab", bits)
        + "define void @look(ptr %ip, ptr %op) #0 {\nentry:\n  %idx = load " + vi + ", ptr %ip, align 4\n"
        + TableLookup.lookup(r, "%out", "tab", bits, "%idx", w)
        + "  store " + vl + " %out, ptr %op, align 8\n  ret void\n}\n"
        + TableLookup.declarations(r, w)
        + "attributes #0 = { nounwind \"target-cpu\"=\"" + cpu(r) + "\" }\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "look.ll"); Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
      jit.addModule(m);
      MethodHandle look = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("look")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
      MemorySegment in = arena.allocate(4L * w, 64), out = arena.allocate(8L * w, 64);
      List<String> bad = new ArrayList<>();
      for (int call = 0; call < 4 * n; call++) {
        int[] idx = new int[w];
        for (int k = 0; k < w; k++) {
          // calls 0..n-1: index (call + 5k) mod n, so that every index reaches every lane; then random
          idx[k] = call < n ? (call + 5 * k) % n : rnd.nextInt(n);
          in.setAtIndex(JAVA_INT, k, idx[k]);
        }
        look.invokeExact(in, out);
        for (int k = 0; k < w && bad.size() < 10; k++) {
          long got = out.getAtIndex(JAVA_LONG, k);
          if (got != bits[idx[k]]) bad.add(String.format("lane %d index %d: 0x%016x, want 0x%016x", k, idx[k], got, bits[idx[k]]));
        }
      }
      assertTrue(bad.isEmpty(), r + " W=" + w + " N=" + n + ":\n" + String.join("\n", bad));
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
