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
 * The watch's spacing ({@link RefillDriver#adaptiveWatchSpacing}, issue 17, eighteenth round) on the scripted clock
 * ({@code -Dpacketizer.refill.autoClockScript=32}: row min(trials measured, 31) of {@code NAME.clock} gives the plain and
 * the refill body's cycles per element; no timing of this host enters the decisions, none is asserted). The bundled
 * mandelbrot, AVX-512 (paired trials) and AVX2 (the trial of three chunks), W 8 and 16, epochs of 160 packets; every element
 * of every call compared with the scalar function, nothing after the output written. Each case builds the driver twice,
 * with the spacing and without it ({@code -Dpacketizer.refill.autoWatchSpacing=false}, the rule before this round).
 * <ul>
 * <li><b>Work rising for both bodies alike</b> (the alarm-then-trial loop): from the third trial on each trial's row costs
 * 2.5 times the one before, refill 1.5 times plain throughout, so every trial keeps the plain body while each run's pieces
 * cost more than 3/2 times refill's cycles per element at the earlier trials. One call of 48 epochs. Without the spacing a
 * trial follows every epoch or two of the plain body (the back-off at its top level 5 from the fourth trial on: the runs
 * end at their first or second piece, the count between the two bounds and at least twice the spaced one); with it each
 * trial an alarm brought raises the watch's level (1, 2, 3, 3, …) and the runs last 1, 2, 4, 8, 8, … epochs and the
 * alarm's tail (half an epoch on the scripted clock): exactly 8 trials, from the rule (trials of T = 128 or 144 packets, the
 * fresh state's level-0 run of an epoch less T, then runs of 2^v + 1/2 epochs). With the work rising from the first run on,
 * that level-0 run's alarm, which ends the run anyway, brings no trial of its own: the same count.</li>
 * <li><b>The input really changes</b>: the same rising work for 5 trials (the watch's level at 3 after them), then the
 * plain body 2.5 times dearer again and refill a quarter of it (an input that turned random), in calls of 8W+3 elements:
 * refill runs within 2^3 + 3 epochs of the change (the alarm after 2^3 - 1 epochs of the run, its tail, the trial, its
 * restart or confirmation), the watch's level back at 0; without the spacing within 4 epochs.</li>
 * </ul>
 */
class AutoRefillWatchSpacingJitTest {
  static final int EPOCH = 160, ROWS = 32;

  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true", "8,false", "16,false"})
  void watchAlarmsWhoseTrialsKeepThePlainBodyAreSpaced(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the scripted auto driver did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the scripted auto driver did not run");
    long e = (long) EPOCH * w;
    long t = (avx512 ? RefillDriver.ADAPTIVE_REFILL_PACKETS : RefillDriver.ADAPTIVE_REFILL_PACKETS + 2L * RefillDriver.ADAPTIVE_PLAIN_PACKETS) * w;
    int top = RefillDriver.WATCH_MAX_LEVEL;
    int spacedTrials = 0;
    for (boolean spacing : new boolean[] {true, false}) {
      try (AutoMandelbrot f = build(w, avx512, spacing)) {
        assertEquals(spacing, f.remarks.stream().anyMatch(r -> r.message().contains("the watch's alarms are spaced")), f.remarks.toString());
        MemorySegment clock = MemorySegment.ofAddress(f.jit.lookup("mandelbrot_map" + RefillDriver.CLOCK_SUFFIX)).reinterpret(8L * (1 + 2 * ROWS));
        String how = "W=" + w + (avx512 ? " AVX-512" : " AVX2") + (spacing ? " spaced" : " not spaced");

        // 1. rising work, one call of 48 epochs
        long n = 48 * e;
        Points p = new Points(f.arena, n, 0, new Random(w * 131L + (avx512 ? 1 : 0)));
        script(f.state, clock, k -> rising(k));
        Trace tr = trace(f, p, n, n);
        String why = how + ": " + tr + "; " + AutoRefillBackoffJitTest.describe(f.state);
        System.out.println("AutoRefillWatchSpacingJitTest rising work: " + why);
        int want = expectedTrials(n, e, t, v -> Math.min(v, top), e / 2);
        if (spacing) {
          assertEquals(want, tr.levels.size(), "trials in 48 epochs (runs of 1, 2, 4, 8, 8, ... epochs and a tail of 1/2); " + why);
          spacedTrials = want;
        } else {
          // without the spacing every run ends at its first or second piece (a piece counts as the lesser of itself and the
          // last piece judged, which the earlier, cheaper trial's run set: the first piece alarms once refill's reference lags)
          int most = expectedTrials(n, e, t, v -> 0, 0), least = expectedTrials(n, e, t, v -> 1, 0);
          assertTrue(tr.levels.size() >= least && tr.levels.size() <= most && tr.levels.size() >= 2 * spacedTrials,
              "without the spacing a trial after every 1-2 epochs: " + least + " to " + most + " trials, at least twice the "
                  + spacedTrials + " with it, not " + tr.levels.size() + "; " + why);
        }
        assertEquals(-1, tr.firstRefill, "the plain body throughout; " + why);
        assertEquals(RefillDriver.ADAPTIVE_MAX_LEVEL, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL), "the back-off at its top; " + why);
        if (spacing) {
          long watchWord = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH);
          assertEquals(top, watchWord & RefillDriver.WATCH_LEVEL_MASK, "the watch's level at its top; " + why);
          assertEquals(want - 2, watchWord >>> RefillDriver.WATCH_TRIALS_SHIFT, "every trial after the second brought by an alarm; " + why);
        }

        // 1b. the same with the work rising from the first run on: that run (at level 0, an epoch less the trial, one piece)
        // alarms at its end, which ends it anyway, so its trial does not count as brought by the watch: the same count
        if (spacing) {
          script(f.state, clock, k -> rising(k + 1));
          tr = trace(f, p, n, n);
          why = how + ": " + tr + "; " + AutoRefillBackoffJitTest.describe(f.state);
          long watchWord = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH);
          assertEquals(want, tr.levels.size(), "rising from the first run: the same trials; " + why);
          assertEquals(want - 2, watchWord >>> RefillDriver.WATCH_TRIALS_SHIFT, "rising from the first run: the level-0 run's alarm"
              + " brings no trial of its own; " + why);
        }

        // 2. the input changes after 5 trials (the watch's level then at its top), calls of 8W+3 elements
        n = (5 + (spacing ? 16 : 8) + 24) * e;
        p = new Points(f.arena, n, 0, new Random(w * 137L + (avx512 ? 1 : 0)));
        int change = 5;
        script(f.state, clock, k -> k < change ? rising(k) : new long[] {rising(change)[0], rising(change)[0] / 4});
        tr = trace(f, p, n, 8L * w + 3);
        why = how + ": " + tr + "; " + AutoRefillBackoffJitTest.describe(f.state);
        System.out.println("AutoRefillWatchSpacingJitTest input changes: " + why);
        assertTrue(tr.changeAt(change) > 0 && tr.levels.size() > change, "five trials before the change; " + why);
        // the levels after the first five trials: the back-off 0 (the fresh state's first), 2, 4, 5, 5; the watch's 0, 0 (no
        // alarm: the second row costs as the first), then 1, 2, 3 (each trial brought by an alarm and keeping the plain body)
        List<Long> levels = new ArrayList<>(), watch = new ArrayList<>();
        for (int k = 0; k < change; k++) {
          levels.add(Math.min((long) RefillDriver.ADAPTIVE_MAX_LEVEL, 2L * k));
          watch.add(spacing ? Math.min(top, Math.max(0L, k - 1L)) : 0L);
        }
        assertEquals(levels, tr.levels.subList(0, change), "the back-off's levels after the first trials; " + why);
        if (spacing) assertEquals(watch, tr.watchLevels.subList(0, change), "the watch's levels after the first trials; " + why);
        long took = tr.firstRefill - tr.changeAt(change);
        long most = spacing ? ((1L << top) + 3) * e : 4 * e;
        assertTrue(tr.firstRefill > 0 && took <= most, "refill within " + most / e + " epochs of the change, took " + took + " elements; " + why);
        if (spacing) assertTrue(took >= ((1L << top) - 1) * e, "the alarm waits 2^" + top + " - 1 epochs of the run; took " + took + "; " + why);
        assertEquals(1, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), "refill kept; " + why);
        assertTrue(tr.plainAfterRefill < 0, "no return to plain; " + why);
        if (spacing) assertEquals(0, f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH) & RefillDriver.WATCH_LEVEL_MASK,
            "the watch's level back at 0 after the switch; " + why);
      }
    }
  }

  /**
   * Trial k of the rising work: {plain, refill} cycles per element, 10·2.5^(k-1) (trials 0 and 1: 10) and 1.5 times that:
   * the run after trial 1 is the first the watch alarms in.
   */
  static long[] rising(int k) {
    long plain = Math.round(10 * Math.pow(2.5, Math.max(0, k - 1)));
    return new long[] {plain, plain * 3 / 2};
  }

  /**
   * The trials decided in one call of n elements of the rising work: trial 0 (T elements), the fresh state's run at level 0
   * (an epoch less T), trial 1, then runs of 2^v epochs and the alarm's tail, v = {@code log.applyAsInt(j)} for the j-th of
   * them (spaced: the watch's level, 0, 1, 2, … up to the top; the tail half an epoch on the scripted clock, none without
   * the spacing), each followed by a trial.
   */
  static int expectedTrials(long n, long e, long t, java.util.function.IntUnaryOperator log, long tail) {
    long pos = t;
    int trials = 0;
    if (pos > n) return trials;
    trials++;
    pos += e - t + t;
    if (pos > n) return trials;
    trials++;
    for (int j = 0;; j++) {
      pos += (1L << log.applyAsInt(j)) * e + tail + t;
      if (pos > n) return trials;
      trials++;
    }
  }

  static AutoMandelbrot build(int w, boolean avx512, boolean spacing) {
    System.setProperty("packetizer.refill.autoClockScript", String.valueOf(ROWS));
    if (!spacing) System.setProperty("packetizer.refill.autoWatchSpacing", "false");
    try {
      return new AutoMandelbrot(w, avx512 ? "skylake-avx512" : "haswell", avx512 ? RefillDriverJitTest.AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2", EPOCH);
    } finally {
      System.clearProperty("packetizer.refill.autoClockScript");
      System.clearProperty("packetizer.refill.autoWatchSpacing");
    }
  }

  /** A fresh state and the script's rows; the count of trials measured 0. */
  static void script(MemorySegment state, MemorySegment clock, java.util.function.IntFunction<long[]> row) {
    state.fill((byte) 0);
    clock.setAtIndex(JAVA_LONG, 0, 0);
    for (int k = 0; k < ROWS; k++) {
      long[] r = row.apply(k);
      clock.setAtIndex(JAVA_LONG, 1 + 2 * k, r[0]);
      clock.setAtIndex(JAVA_LONG, 2 + 2 * k, r[1]);
    }
  }

  /** What one run saw: as {@link AutoRefillClockScriptJitTest.Trace}, with the watch's levels and where each trial measured ended. */
  static final class Trace {
    long firstRefill = -1, plainAfterRefill = -1;
    final List<Long> levels = new ArrayList<>(), watchLevels = new ArrayList<>(), measuredAt = new ArrayList<>();

    /** The element (a call's end) at which the script's row {@code row} came into use (-1: never). */
    long changeAt(int row) { return measuredAt.size() >= row ? measuredAt.get(row - 1) : -1; }

    @Override
    public String toString() {
      return "refill from element " + firstRefill + ", plain again at " + plainAfterRefill + ", levels after the trials " + levels
          + ", the watch's " + watchLevels + ", trials measured by element " + measuredAt;
    }
  }

  /** Calls the driver on [0, n) in calls of {@code per} elements, checks every element, and traces the decisions. */
  static Trace trace(AutoMandelbrot f, Points p, long n, long per) throws Throwable {
    Trace t = new Trace();
    MemorySegment clock = MemorySegment.ofAddress(f.jit.lookup("mandelbrot_map" + RefillDriver.CLOCK_SUFFIX)).reinterpret(8);
    p.out().fill((byte) 0x5A);
    long trials = 0, measured = 0;
    for (long i = 0; i < n; i += per) {
      long c = Math.min(per, n - i);
      f.driver.invokeExact(p.x().asSlice(4 * i), p.y().asSlice(4 * i), 150, p.out().asSlice(4 * i), c);
      long now = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
      for (; trials < now; trials++) {
        t.levels.add(f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL));
        t.watchLevels.add(f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH) & RefillDriver.WATCH_LEVEL_MASK);
      }
      for (long m = clock.getAtIndex(JAVA_LONG, 0); measured < m; measured++) t.measuredAt.add(i + c);
      boolean refill = f.state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE) == 1;
      if (refill && t.firstRefill < 0) t.firstRefill = i + c;
      if (!refill && t.firstRefill >= 0 && t.plainAfterRefill < 0) t.plainAfterRefill = i + c;
    }
    for (long i = 0; i < n; i++) {
      int want = (int) f.scalar.invokeExact(p.x().getAtIndex(JAVA_FLOAT, i), p.y().getAtIndex(JAVA_FLOAT, i), 150);
      int got = p.out().getAtIndex(JAVA_INT, i);
      if (want != got) fail("element " + i + " of " + n + ": " + got + ", the scalar function " + want);
    }
    assertEquals(0x5A5A5A5A, p.out().getAtIndex(JAVA_INT, p.n()), "written after the output");
    return t;
  }
}
