package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.driver.AutoRefillBackoffJitTest.AutoMandelbrot;
import org.packetizer.core.driver.AutoRefillBackoffJitTest.Points;

/**
 * The {@code --refill=auto} driver's decisions on a scripted clock (issue 17, seventeenth round): the back-off driver built
 * with {@code -Dpacketizer.refill.autoClockScript=2} reads no cycle counter; each timed call of a body costs its elements
 * times the cycles per element in row min(trials measured, 1) of {@code NAME.clock} ({@link RefillDriver#adaptiveClockScript}),
 * so the decisions are deterministic: no timing of this host enters them, and none is asserted. The bundled mandelbrot,
 * AVX-512 (paired trials) and AVX2 (the trial of three chunks), W 8 and 16, epochs of 160 packets; every element of every
 * call is compared with the scalar function, nothing after the output written.
 * <ul>
 * <li><b>Stuck on plain</b>: the first trial of a fresh state disturbed (refill read 10 times the plain body's cost, as
 * when the host preempted the refill run), every later one and the plain runs at the real costs (refill 0.3 times plain).
 * With the confirming trial ({@link RefillDriver#adaptiveConfirmFirst}) the driver is on refill within 3 epochs (the
 * second trial in the next epoch is judged alone, the third confirms the switch); without it the first trial backs off
 * by {@link RefillDriver#PLAIN_LEAP} levels and refill comes after 5 epochs or more. Once there it stays.</li>
 * <li><b>Plain really wins</b> (refill 1.5 times plain in every trial): the first trial leaves the level at 0, the second
 * (one epoch later) grows it by {@link RefillDriver#PLAIN_LEAP}, the third by as many again, and no other trial comes in 8
 * epochs (the cost of the rule: one trial more per fresh state); the plain body throughout.</li>
 * </ul>
 */
class AutoRefillClockScriptJitTest {
  static final int EPOCH = 160;

  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true", "8,false", "16,false"})
  void aDisturbedFirstTrialDoesNotLockTheDriverOnPlain(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the scripted auto driver did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the scripted auto driver did not run");
    System.setProperty("packetizer.refill.autoClockScript", "2");
    AutoMandelbrot f;
    try {
      f = new AutoMandelbrot(w, avx512 ? "skylake-avx512" : "haswell", avx512 ? RefillDriverJitTest.AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2", EPOCH);
    } finally {
      System.clearProperty("packetizer.refill.autoClockScript");
    }
    try (f) {
      assertTrue(f.remarks.stream().anyMatch(r -> r.message().contains(avx512 ? "a paired trial" : "a trial of three timed chunks")),
          f.remarks.toString());
      assertTrue(f.remarks.stream().anyMatch(r -> r.message().contains("a fresh state's first trial that keeps the plain body is"
          + " confirmed by a second one")), f.remarks.toString());
      // the refill remark names the 32-bit element indices (sixteenth round's index32, a 64-bit size_t here)
      assertTrue(f.remarks.stream().anyMatch(r -> r.message().contains("lane refill") && r.message().contains(
          "each lane's element index is a 32-bit offset from the start of a chunk of at most " + (1L << 30) + " elements")),
          f.remarks.toString());
      MemorySegment clock = MemorySegment.ofAddress(f.jit.lookup("mandelbrot_map" + RefillDriver.CLOCK_SUFFIX)).reinterpret(8L * 5);
      long e = (long) EPOCH * w;
      Points p = new Points(f.arena, 8 * e, 0, new Random(w * 31L + (avx512 ? 1 : 0)));

      // 1. stuck on plain: a disturbed first trial, then the real costs
      script(f.state, clock, new long[] {100, 1000, 100, 30});
      Trace t = trace(f, p, 0, 8 * e, 8L * w + 3);
      String why = "W=" + w + (avx512 ? " AVX-512" : " AVX2") + ": " + t + "; " + AutoRefillBackoffJitTest.describe(f.state);
      System.out.println("AutoRefillClockScriptJitTest stuck on plain: " + why);
      assertTrue(t.firstRefill >= 0, "refill chosen after a disturbed first trial; " + why);
      assertTrue(t.firstRefill <= 3 * e, "refill within 3 epochs (" + 3 * e + " elements) of a disturbed first trial, not at element "
          + t.firstRefill + "; " + why);
      assertEquals(1, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), "refill kept to the end; " + why);
      assertTrue(t.plainAfterRefill < 0, "no return to plain after refill at the real costs; " + why);

      // 2. plain really wins: refill 1.5 times the plain body's cost in every trial; the levels after trials 1, 2, 3
      script(f.state, clock, new long[] {100, 150, 100, 150});
      t = trace(f, p, 0, 8 * e, 8L * w + 3);
      why = "W=" + w + (avx512 ? " AVX-512" : " AVX2") + ": " + t + "; " + AutoRefillBackoffJitTest.describe(f.state);
      System.out.println("AutoRefillClockScriptJitTest plain wins: " + why);
      assertEquals(-1, t.firstRefill, "the plain body throughout; " + why);
      int leap = RefillDriver.PLAIN_LEAP;
      // trials at elements 0, 1 epoch and 1 + 2^leap epochs (the next one 2^(2·leap) epochs later, past the input)
      assertEquals(List.of(0L, (long) leap, (long) Math.min(RefillDriver.ADAPTIVE_MAX_LEVEL, 2 * leap)), t.levels,
          "the level after the first trial 0 (a second one confirms), after the second " + leap + ", after the third "
              + 2 * leap + "; " + why);
    }
  }

  /** A fresh state and the script's two rows {plain, refill cycles per element}; the count of trials measured 0. */
  static void script(MemorySegment state, MemorySegment clock, long[] rows) {
    state.fill((byte) 0);
    clock.setAtIndex(JAVA_LONG, 0, 0);
    for (int k = 0; k < rows.length; k++) clock.setAtIndex(JAVA_LONG, 1 + k, rows[k]);
  }

  /** The decisions seen over one run: the element after which refill was first in use, plain again after it, the levels after each new trial. */
  static final class Trace {
    long firstRefill = -1, plainAfterRefill = -1;
    final List<Long> levels = new ArrayList<>();

    @Override
    public String toString() {
      return "refill from element " + firstRefill + ", plain again at " + plainAfterRefill + ", levels after the trials " + levels;
    }
  }

  /** Calls the driver on [from, to) in calls of {@code per} elements, checks every element, and traces the decisions. */
  static Trace trace(AutoMandelbrot f, Points p, long from, long to, long per) throws Throwable {
    Trace t = new Trace();
    p.out().fill((byte) 0x5A);
    long trials = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
    for (long i = from; i < to; i += per) {
      long c = Math.min(per, to - i);
      f.driver.invokeExact(p.x().asSlice(4 * i), p.y().asSlice(4 * i), 150, p.out().asSlice(4 * i), c);
      long now = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
      if (now != trials) {
        for (long k = trials; k < now; k++) t.levels.add(f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL));
        trials = now;
      }
      boolean refill = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE) == 1;
      if (refill && t.firstRefill < 0) t.firstRefill = i + c;
      if (!refill && t.firstRefill >= 0 && t.plainAfterRefill < 0) t.plainAfterRefill = i + c;
    }
    for (long i = from; i < to; i++) {
      int want = (int) f.scalar.invokeExact(p.x().getAtIndex(JAVA_FLOAT, i), p.y().getAtIndex(JAVA_FLOAT, i), 150);
      int got = p.out().getAtIndex(JAVA_INT, i);
      if (want != got) fail("element " + i + " of " + (to - from) + ": " + got + ", the scalar function " + want);
    }
    assertEquals(0x5A5A5A5A, p.out().getAtIndex(JAVA_INT, p.n()), "written after the output");
    return t;
  }
}
