package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.Manifest;

/**
 * The {@code --refill=auto} rule weighing the divergent loop by an estimated trip count ({@link
 * RefillDriver#AUTO_TRIP_ESTIMATE}; issue 17, seventeenth round) on the bundled strhash, whose FNV loop is 35 % of its
 * instructions: the sixteenth round's static rule ({@code -Dpacketizer.refill.autoTripEstimate=1}) gave it the plain
 * driver, the weighted one (81 %) the adaptive driver. Retargeted to AVX-512 and to AVX2, W 8 and 16, with short epochs
 * (160 packets) so that the larger inputs run many trials (each runs both bodies; the refill body's results reach the
 * output in half of the paired trials and in every AVX2 trial), every element of every n from 0 to 4W+1 and of several n
 * across epochs is compared with the scalar function, random and coherent byte ranges, and nothing after the output may be
 * written.
 */
class AutoRuleJitTest {
  static final int EPOCH = 160, TABLE = 320;

  @Test
  void theLoopIsWeightedByTheEstimatedTripCount() {
    assertEquals(81, RefillDriver.autoLoopWeight(35, 100, 8));   // strhash: 280 / 345
    assertEquals(35, RefillDriver.autoLoopWeight(35, 100, 1));   // the static share
    assertEquals(50, RefillDriver.autoLoopWeight(1, 9, 8));      // the least share the default takes: 1/9
    assertEquals(47, RefillDriver.autoLoopWeight(1, 10, 8));
    assertEquals(100, RefillDriver.autoLoopWeight(7, 7, 8));
    assertEquals(0, RefillDriver.autoLoopWeight(0, 0, 8));
    System.setProperty("packetizer.refill.autoTripEstimate", "0");
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, RefillDriver::autoTripEstimate);
      assertTrue(e.getMessage().contains("packetizer.refill.autoTripEstimate: expected 1 to 1024, not 0"), e.getMessage());
    } finally {
      System.clearProperty("packetizer.refill.autoTripEstimate");
    }
    System.setProperty("packetizer.refill.autoLoopShare", "101");
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, RefillDriver::autoLoopShare);
      assertTrue(e.getMessage().contains("packetizer.refill.autoLoopShare: expected 0 to 100, not 101"), e.getMessage());
    } finally {
      System.clearProperty("packetizer.refill.autoLoopShare");
    }
  }

  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true", "8,false", "16,false"})
  void strhashGetsTheAdaptiveDriverAndMatchesTheScalarFunction(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; strhash's auto driver did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; strhash's auto driver did not run");
    String cpu = avx512 ? "skylake-avx512" : "haswell";
    String features = avx512 ? RefillDriverJitTest.AVX512_FEATURES : RefillDriverJitTest.AVX2_FEATURES;
    Manifest mf = Manifest.load();
    // the old rule: the plain driver
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require("strhash")), "strhash.bc")) {
      RefillDriverJitTest.retarget(m, "strhash", cpu, features);
      List<String> remarks = new ArrayList<>();
      System.setProperty("packetizer.refill.autoTripEstimate", "1");
      try {
        new Packetizer(PacketizerOptions.builder().width(w).params("uvv").arrayDriver("*_map").refill(Refill.AUTO)
            .remarks(r -> remarks.add(r.message())).build()).run(m, "strhash", "strhash_v" + w);
      } finally {
        System.clearProperty("packetizer.refill.autoTripEstimate");
      }
      assertTrue(remarks.contains("lane refill not chosen (--refill=auto): the loop at %for.body (trip count differs between lanes,"
          + " 35% of the instructions); the rule wants a loop whose trip count differs between lanes holding at least 50% of the"
          + " instructions, on a target where refill was measured (x86 with AVX2 or AVX-512; not yet SSE-only x86 or AArch64);"
          + " plain driver"), remarks.toString());
      assertTrue(m.global("strhash_map" + RefillDriver.STATE_SUFFIX).isEmpty(), "no adaptive driver's state");
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require("strhash")), "strhash.bc");
        Arena arena = Arena.ofConfined()) {
      RefillDriverJitTest.retarget(m, "strhash", cpu, features);
      List<String> remarks = new ArrayList<>();
      System.setProperty("packetizer.refill.autoEpoch", String.valueOf(EPOCH));
      try {
        new Packetizer(PacketizerOptions.builder().width(w).params("uvv").verifyEachPhase(true).arrayDriver("*_map")
            .refill(Refill.AUTO).remarks(r -> remarks.add(r.message())).build()).run(m, "strhash", "strhash_v" + w);
      } finally {
        System.clearProperty("packetizer.refill.autoEpoch");
      }
      assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill=auto) at the loop at %for.body (trip count"
          + " differs between lanes, 35% of the instructions, 81% weighted by an estimated 8 iterations): 4 values of state")),
          remarks.toString());
      assertTrue(remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs of " + EPOCH + "·W")), remarks.toString());
      assertTrue(m.global("strhash_map" + RefillDriver.STATE_SUFFIX).isPresent(), "the adaptive driver's state");
      try (Jit jit = Jit.host()) {
        jit.addModule(m);
        MethodHandle scalar = RefillDriverJitTest.C.downcallHandle(MemorySegment.ofAddress(jit.lookup("strhash")),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        MethodHandle driver = RefillDriverJitTest.C.downcallHandle(MemorySegment.ofAddress(jit.lookup("strhash_map")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        MemorySegment state = MemorySegment.ofAddress(jit.lookup("strhash_map" + RefillDriver.STATE_SUFFIX))
            .reinterpret(8L * RefillDriver.STATE_FIELDS);
        Random rnd = new Random(w * 31L + (avx512 ? 7 : 0));
        MemorySegment s = arena.allocate(TABLE, 64);
        for (int k = 0; k < TABLE; k++) s.set(JAVA_BYTE, k, (byte) rnd.nextInt(256));
        long e = (long) EPOCH * w;
        List<Long> ns = new ArrayList<>();
        for (long n = 0; n <= 4L * w + 1; n++) ns.add(n);
        for (int r = 0; r < 3; r++) ns.addAll(List.of(3 * e + w + 1, 7 * e + 5, 16 * e + 3));
        long t0 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
        for (boolean coherent : new boolean[] {false, true}) {
          for (long n : ns) {
            MemorySegment start = arena.allocate(4 * Math.max(1, n), 64), len = arena.allocate(4 * Math.max(1, n), 64);
            for (long i = 0; i < n; i++) {
              // random: start 0..255, length 0..48 (the kernel's ranges); coherent: both growing slowly along the input
              start.setAtIndex(JAVA_INT, i, coherent ? (int) ((i / 16) % 256) : rnd.nextInt(256));
              len.setAtIndex(JAVA_INT, i, coherent ? (int) ((i / 64) % 49) : rnd.nextInt(49));
            }
            MemorySegment out = arena.allocate(4 * (n + w), 64);
            out.fill((byte) 0x5A);
            driver.invokeExact(s, start, len, out, n);
            for (long i = 0; i < n; i++) {
              int want = (int) scalar.invokeExact(s, start.getAtIndex(JAVA_INT, i), len.getAtIndex(JAVA_INT, i));
              assertEquals(want, out.getAtIndex(JAVA_INT, i), "W=" + w + " n=" + n + (coherent ? " coherent" : " random") + ": element " + i);
            }
            for (long i = n; i < n + w; i++) {
              assertEquals(0x5A5A5A5A, out.getAtIndex(JAVA_INT, i), "W=" + w + " n=" + n + ": written after the output, element " + i);
            }
          }
        }
        // the larger inputs ran trials (each one runs both bodies)
        assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) - t0 >= 2, "trials: "
            + (state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) - t0));
      }
    }
  }
}
