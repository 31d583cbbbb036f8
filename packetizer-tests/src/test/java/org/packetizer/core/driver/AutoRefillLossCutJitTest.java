package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.driver.AutoRefillBackoffJitTest.AutoMandelbrot;
import org.packetizer.core.driver.AutoRefillBackoffJitTest.Points;

/**
 * Trials where refill loses badly cost less ({@link RefillDriver#adaptiveLossCut}, issue 17, nineteenth round), on the
 * scripted clock ({@code -Dpacketizer.refill.autoClockScript=32}: row min(trials measured, 31) of {@code NAME.clock} gives
 * the plain and the refill body's cycles per element, and the clock's last word counts the elements the refill body ran in
 * timed calls; no timing of this host enters the decisions, none is asserted). The bundled mandelbrot, AVX-512 (paired
 * trials) and AVX2 (the trial of three chunks), W 8 and 16, epochs of 160 packets, calls of 8W+3 elements; every element of
 * every call compared with the scalar function, nothing after the output written; the state's count of the refill body's
 * elements in trials ({@link RefillDriver#STATE_TRIAL_REFILL}) equal to the clock's where refill never runs outside them. Each case builds the driver with the rule
 * and without it ({@code -Dpacketizer.refill.autoLossCut=false}, the rule before this round).
 * <ul>
 * <li><b>Refill always 3 times the plain body's cost</b>, 64 epochs from a fresh state. The rule: trial 0 whole (no sums), kept
 * plain and confirmed (level 0), trial 1 whole (a restart: the plain leap, level 2), trial 2 four epochs later a probe of
 * 32·W refill elements, the second trial in a row that lost badly: the back-off at its top level 5, so the next probe 32
 * epochs later: 4 trials, levels 0, 2, 5, 5, and 2·128·W + 2·32·W refill elements.
 * Without the rule: levels 0, 2, 4, 5, 5 (the next trials 4, 16, 32 epochs apart), 5 whole trials, 5·128·W refill elements.
 * Both keep the plain body throughout.</li>
 * <li><b>The input turns random at the probe</b> (from the third trial measured on, refill a quarter of the plain body's
 * cost): the probe sees it and the driver is on refill within 3 epochs of it (paired: the probe, off the sums by more than
 * the disturbed factor, restarts as a whole trial; three chunks: the probe favours refill, the next trial is a whole one on
 * sums that no longer say refill loses), and stays there.</li>
 * <li><b>One dear trial is no loss</b>: refill 1.5 times plain, only the third trial 3 times: the levels after the first three
 * trials 0, 2, 4 as without the rule (the leap needs two trials in a row that lost badly).</li>
 * </ul>
 */
class AutoRefillLossCutJitTest {
  static final int EPOCH = 160, ROWS = 32;

  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true", "8,false", "16,false"})
  void trialsWhereRefillLosesBadlyAreProbesAndBackOffToTheTop(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the scripted auto driver did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the scripted auto driver did not run");
    long e = (long) EPOCH * w;
    long whole = (long) RefillDriver.ADAPTIVE_REFILL_PACKETS * w;
    long probe = (long) (RefillDriver.ADAPTIVE_REFILL_PACKETS >> RefillDriver.LOSS_PROBE_SHIFT) * w;
    int top = RefillDriver.ADAPTIVE_MAX_LEVEL;
    for (boolean cut : new boolean[] {true, false}) {
      try (AutoMandelbrot f = build(w, avx512, cut)) {
        assertEquals(cut, f.remarks.stream().anyMatch(r -> r.message().contains("where refill loses badly (more than 1.75 times")
            && r.message().contains("is a probe of 32·W refill elements counted as a whole trial's")), f.remarks.toString());
        MemorySegment clock = MemorySegment.ofAddress(f.jit.lookup("mandelbrot_map" + RefillDriver.CLOCK_SUFFIX)).reinterpret(8L * (2 + 2 * ROWS));
        String how = "W=" + w + (avx512 ? " AVX-512" : " AVX2") + (cut ? " with the loss cut" : " without it");

        // 1. refill always 3 times plain, 64 epochs
        long n = 64 * e;
        Points p = new Points(f.arena, n, 0, new Random(w * 151L + (avx512 ? 1 : 0)));
        AutoRefillWatchSpacingJitTest.script(f.state, clock, k -> new long[] {100, 300});
        clock.setAtIndex(JAVA_LONG, 1 + 2 * ROWS, 0);
        AutoRefillWatchSpacingJitTest.Trace tr = AutoRefillWatchSpacingJitTest.trace(f, p, n, 8L * w + 3);
        long refillElements = clock.getAtIndex(JAVA_LONG, 1 + 2 * ROWS);
        String why = how + ": " + tr + ", refill elements in trials " + refillElements + "; " + AutoRefillBackoffJitTest.describe(f.state);
        System.out.println("AutoRefillLossCutJitTest refill loses: " + why);
        assertEquals(-1, tr.firstRefill, "the plain body throughout; " + why);
        // (no refill run: every refill element the clock counted ran in a trial, which the state's statistics count too)
        assertEquals(refillElements, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIAL_REFILL), "the state's count; " + why);
        if (cut) {
          assertEquals(List.of(0L, 2L, (long) top, (long) top), tr.levels, "levels after the trials: 0 (confirmed), 2, then the top; " + why);
          assertEquals(2 * whole + 2 * probe, refillElements, "two whole trials and two probes; " + why);
        } else {
          assertEquals(List.of(0L, 2L, 4L, (long) top, (long) top), tr.levels, "levels after the trials: 0, 2, 4, 5, 5; " + why);
          assertEquals(5 * whole, refillElements, "five whole trials; " + why);
        }

        // 2. the input turns random at the probe (the third trial measured): refill a quarter of plain from then on
        if (cut) {
          n = 40 * e;
          p = new Points(f.arena, n, 0, new Random(w * 157L + (avx512 ? 1 : 0)));
          AutoRefillWatchSpacingJitTest.script(f.state, clock, k -> k < 2 ? new long[] {100, 300} : new long[] {100, 25});
          tr = AutoRefillWatchSpacingJitTest.trace(f, p, n, 8L * w + 3);
          why = how + ": " + tr + "; " + AutoRefillBackoffJitTest.describe(f.state);
          System.out.println("AutoRefillLossCutJitTest input changes at the probe: " + why);
          assertEquals(List.of(0L, 2L), tr.levels.subList(0, 2), "the two whole trials before the change; " + why);
          long took = tr.firstRefill - tr.changeAt(3);
          assertTrue(tr.changeAt(3) >= 4 * e && tr.firstRefill > 0 && took <= 3 * e, "refill within 3 epochs of the probe, took "
              + took + " elements; " + why);
          assertTrue(tr.plainAfterRefill < 0, "no return to plain; " + why);
          assertEquals(1, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), "refill kept; " + why);

          // 3. one dear trial is no loss: refill 1.5 times plain, the third trial 3 times (a dear stretch), then 1.5 again:
          // the back-off grows as without the rule (0, 2, 4: the plain leap), not to the top after the single dear trial
          n = 30 * e;
          p = new Points(f.arena, n, 0, new Random(w * 163L + (avx512 ? 1 : 0)));
          AutoRefillWatchSpacingJitTest.script(f.state, clock, k -> k == 2 ? new long[] {100, 300} : new long[] {100, 150});
          tr = AutoRefillWatchSpacingJitTest.trace(f, p, n, 8L * w + 3);
          why = how + ": " + tr + "; " + AutoRefillBackoffJitTest.describe(f.state);
          System.out.println("AutoRefillLossCutJitTest one dear trial: " + why);
          assertTrue(tr.levels.size() >= 3, "three trials; " + why);
          assertEquals(List.of(0L, 2L, 4L), tr.levels.subList(0, 3), "levels after the first three trials; " + why);
          assertEquals(-1, tr.firstRefill, "the plain body throughout; " + why);
        }
      }
    }
  }

  static AutoMandelbrot build(int w, boolean avx512, boolean cut) {
    System.setProperty("packetizer.refill.autoClockScript", String.valueOf(ROWS));
    if (!cut) System.setProperty("packetizer.refill.autoLossCut", "false");
    try {
      return new AutoMandelbrot(w, avx512 ? "skylake-avx512" : "haswell", avx512 ? RefillDriverJitTest.AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2", EPOCH);
    } finally {
      System.clearProperty("packetizer.refill.autoClockScript");
      System.clearProperty("packetizer.refill.autoLossCut");
    }
  }
}
