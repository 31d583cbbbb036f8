package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.Manifest;

/**
 * The {@code --refill=auto} driver's exponential back-off and its state between calls ({@code NAME.state}, issue 17):
 * the bundled mandelbrot, retargeted to AVX-512 and to AVX2, W 8 and 16, with the default trial (8, 128 and 8 packets
 * timed) and short epochs (160 packets) so that an input crosses many epochs. Every element of every call is compared
 * with the scalar function, and nothing after the output may be written. The driver's decisions are read from its
 * state: on random points (refill about 3x faster than the plain body, a margin no load on the host closes) the trials
 * must back off (with a trial in every epoch, 64 epochs would take 64 trials) and the body must be refill; an input
 * that turns from coherent to random halfway, and a state set to "plain, fully backed off", must end with refill.
 */
class AutoRefillBackoffJitTest {
  static final int EPOCH = 160, EPOCHS = 64;

  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true", "8,false", "16,false"})
  void theTrialsBackOffAndTheChoiceFollowsTheInput(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the auto driver's back-off did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the auto driver's back-off did not run");
    try (AutoMandelbrot f = new AutoMandelbrot(w, avx512 ? "skylake-avx512" : "haswell", avx512 ? RefillDriverJitTest.AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2", EPOCH)) {
      List<Remark> remarks = f.remarks;
      assertTrue(remarks.stream().anyMatch(r -> r.message().contains("--refill=auto: the driver runs epochs of " + EPOCH + "·W")
          && r.message().contains("exponential back-off")), remarks.toString());
      assertTrue(f.module.global("mandelbrot_map" + RefillDriver.STATE_SUFFIX).isPresent(), "the state global");
      MethodHandle scalar = f.scalar, driver = f.driver;
      MemorySegment state = f.state;
      Arena arena = f.arena;
      long e = (long) EPOCH * w;
      long n = EPOCHS * e;
      Random rnd = new Random(w * 7919L + (avx512 ? 1 : 0));

      // 1. random points, 64 epochs in 32 calls of 2 epochs: the trials back off across the calls (the state carries
      // over: without it every call would start at level 0 and reach at most level 2)
      Points rp = new Points(arena, n, 0, rnd);
      long t0 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
      boolean seen = run(driver, scalar, arena, rp, 0, n, 2 * e, "random", state, 0);
      long trials = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) - t0;
      String st = describe(state);
      // the trial count is the back-off's evidence: a trial in every epoch gives about 64, a level that does not carry
      // over between the calls 28 to 31; the level reached at the end is not asserted: it depends on how decisive
      // each timed trial was on this host at this moment (a noisy trial that favours the other body resets it)
      assertTrue(trials >= 3 && trials <= 20, "W=" + w + ": " + trials + " trials in " + EPOCHS + " epochs of random points"
          + " (a trial in every epoch: " + EPOCHS + "; back-off to 2^" + RefillDriver.ADAPTIVE_MAX_LEVEL + " epochs: about 8); " + st);
      // the decisions are judged by whether the driver switched, not by its state at the end: on a loaded host a later
      // timed trial may favour the plain body for a while (two noisy trials in a row switch back)
      assertTrue(seen, "refill on random points; " + st);

      // 1b. the watch: the plain body in use, fully backed off, in a run longer than the input (as after a long coherent
      // stretch), and a reference of refill's cost per element from the trials (the decayed sum of their refill cycles
      // over their weight, 1024 per trial in the position word's bits 8 and up). A reference far below the plain body's
      // cost (1 cycle): the first timed piece ends the run, and the trials on random points pick refill within 64 epochs
      // (without the watch: no trial, the plain body throughout). A reference far above it: no trial, the run shorter by
      // exactly the elements computed (a watch that fires regardless fails here)
      for (boolean fires : new boolean[] {true, false}) {
        long t1 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
        plainRun(state, 4 * n);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, fires ? 1 : 1L << 50);
        // (plain twice refill in the sums: a ratio like random points', so that the first trial is not taken as disturbed)
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, fires ? 2 : 1L << 51);
        // (the plain watch's reference far above any piece: it stays quiet in both cases)
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_PEAK, 1L << 50);
        // the firing case runs all 64 epochs (a switch needs two agreeing timed trials, and under load one can be
        // disturbed), the quiet one 16; both start in a run of 4n = 256 epochs, so without the watch no trial comes
        boolean switched = run(driver, scalar, arena, rp, 0, fires ? n : 16 * e, 4 * e + w + 3,
            "random after a plain run (the watch)", state, 0);
        if (fires) {
          assertTrue(switched, "the watch switched to refill; " + describe(state));
          assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) - t1 >= 2, "two trials; " + describe(state));
        } else {
          assertFalse(switched, "the plain body kept; " + describe(state));
          assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "no trial; " + describe(state));
          assertEquals(4 * n - 16 * e, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT), "the run went on; " + describe(state));
        }
      }

      // 1c. the plain watch, in the state that kept the plain body on random points in the thirteenth round (mandelbrot
      // W16, bin/bench-refill): coherent calls backed off to level 5 on plain, a run longer than the input, and a refill
      // reference from trials on dear regions, far above what the plain body costs on random points (2^50 cycles: the
      // watch against refill stays quiet, as in 1b). The plain body's dearest recent piece, 1 cycle per element, and the
      // last piece judged as cheap: a piece counts as the lesser of itself and the one before, so the first piece of
      // random points raises no alarm (one piece the host stretched counts once), and the second, with the first, is
      // dearer than 3/2 of the reference: it ends the run, and the trials pick refill.
      // With the reference far above (2^50 per element): no trial, and the reference decays by 1/16 at each piece of at
      // least half an epoch; from a fresh state (0) the first piece sets it without an alarm
      for (long peak : new long[] {1L << RefillDriver.PLAIN_PEAK_FRACTION_BITS, 1L << 50, 0}) {
        boolean fires = peak == 1L << RefillDriver.PLAIN_PEAK_FRACTION_BITS;
        long t1 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
        long a1 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_ALARMS);
        stuckOnPlain(state, 4 * n);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_PEAK, peak);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_LAST, fires ? peak : 0);
        long len = fires ? n : peak == 0 ? e : 16 * e;
        long per = 4 * e + w + 3;
        if (fires) {
          run(driver, scalar, arena, rp, 0, e, e, "one dear piece after a cheap one (the plain watch)", state, 0);
          assertEquals(a1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_ALARMS), "one dear piece: no alarm; " + describe(state));
          assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "one dear piece: no trial; " + describe(state));
          assertEquals(4 * n - e, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT), "one dear piece: the run went on; " + describe(state));
        }
        boolean switched = run(driver, scalar, arena, rp, 0, len, per, "random after the stuck state (the plain watch)", state, 0);
        long alarms = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_ALARMS) - a1;
        if (fires) {
          assertTrue(switched, "the plain watch switched to refill; " + describe(state));
          assertTrue(alarms >= 1, "the plain watch fired; " + describe(state));
          assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) - t1 >= 2, "two trials; " + describe(state));
        } else {
          assertFalse(switched, "the plain body kept; " + describe(state));
          assertEquals(0, alarms, "no alarm; " + describe(state));
          assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "no trial; " + describe(state));
          assertEquals(4 * n - len, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT), "the run went on; " + describe(state));
          long got = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_PEAK);
          if (peak == 0) {
            assertTrue(got > 0, "the first piece set the reference; " + describe(state));
            assertEquals(got, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_LAST), "and the last piece; " + describe(state));
          } else {
            // the pieces: each call's elements in pieces of at most an epoch; judged from half an epoch
            long want = peak;
            for (long i = 0; i < len; i += per) {
              for (long left = Math.min(per, len - i); left > 0; left -= Math.min(left, e)) {
                if (Math.min(left, e) >= e >> RefillDriver.PLAIN_PIECE_MIN_SHIFT) want -= want >> RefillDriver.PLAIN_PEAK_DECAY_SHIFT;
              }
            }
            assertEquals(want, got, "the reference decayed by 1/16 per piece judged; " + describe(state));
          }
        }
      }

      // 1d. the watch against refill's cost takes a piece as the lesser of itself and the last piece judged (fifteenth
      // round, autoWatchLesser): 1b's firing case with refill's reference at 1 cycle per element (one trial's weight and
      // refill cycles of one per element of its refill chunk; far below any real piece; the plain watch's reference far
      // above), and a last piece of 1/256 cycle per element, as cheap as no real one. The first
      // piece of one epoch counts as that last piece: no alarm, no trial, the run shorter by exactly its elements (a piece
      // alone, the old rule, ends the run here). The second piece counts as the first one (it became the last): the run
      // ends at its end, and the next call starts with a trial (position 0, nothing left)
      {
        long t1 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS);
        plainRun(state, 4 * n);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, (long) RefillDriver.ADAPTIVE_REFILL_PACKETS * w);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, 2L * RefillDriver.ADAPTIVE_REFILL_PACKETS * w);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_PEAK, 1L << 50);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_LAST, 1);
        run(driver, scalar, arena, rp, 0, e, e, "one piece after a cheap last piece (the watch, lesser of two)", state, 0);
        assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "no trial after the first piece; " + describe(state));
        assertEquals(4 * n - e, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT), "the run went on; " + describe(state));
        assertEquals(3, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 3, "still in the run; " + describe(state));
        assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_LAST) > 1, "the piece became the last one; " + describe(state));
        run(driver, scalar, arena, rp, e, 2 * e, e, "the second piece (the watch, lesser of two)", state, 0);
        assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "no trial inside the call; " + describe(state));
        // (eighteenth round, adaptiveWatchSpacing) the alarm ends the run after a tail of at most an epoch, jittered; a call of
        // exactly that many elements runs it, and the next trial comes
        long tail = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT);
        assertTrue(tail <= e, "the second piece's alarm left a tail of at most an epoch; " + describe(state));
        assertTrue((state.getAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH) >> RefillDriver.WATCH_BROUGHT_BIT & 1) == 1,
            "the trial to come was brought by the alarm; " + describe(state));
        if (tail > 0) {
          assertEquals(3, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 3, "the tail is still the run; " + describe(state));
          run(driver, scalar, arena, rp, 2 * e, 2 * e + tail, tail, "the alarm's tail", state, 0);
          assertEquals(t1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "no trial in the tail; " + describe(state));
        }
        assertEquals(0, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT), "the tail ended the run; " + describe(state));
        assertEquals(0, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 3, "the next trial comes; " + describe(state));
      }

      // 2. from a fresh state: an image in scan order for 64 epochs, then random points for 64 (calls that end inside
      // the trials' chunks and the runs), and the body at the end is refill
      state.fill((byte) 0);
      Points half = new Points(arena, 2 * n, n, rnd);
      seen = run(driver, scalar, arena, half, 0, 2 * n, 7 * e + 3 * w + 5, "coherent, then random", state, n);
      assertTrue(seen, "refill after the input turned random; " + describe(state));

      // 3. the state of a long coherent input settled on the plain body (fully backed off, the next trial in
      // 8 epochs): random points make the driver switch to refill
      state.fill((byte) 0);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, 3);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT, 8 * e);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL, RefillDriver.ADAPTIVE_MAX_LEVEL);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS, 100);
      seen = run(driver, scalar, arena, rp, 0, n, n / 4 + 1, "random after plain", state, 0);
      assertTrue(seen, "switched to refill; " + describe(state));
      assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) >= 102, "at least two trials; " + describe(state));
    }
  }

  /**
   * The paired trial and the band (mandelbrot writes no memory): a trial runs both bodies on the same
   * {@link RefillDriver#ADAPTIVE_REFILL_PACKETS}·W elements, so from a fresh state one call of exactly that many holds
   * one whole trial, decided, and ends at the run (the trial of three chunks is still inside its refill chunk there). The
   * decision, from sums preset so large (2^50 cycles, halved at the trial's start) that the trial's own cycles do not
   * matter, at level 0: a trial in which neither body is cheaper than the other by more than 1/32 settles on the plain
   * body whichever ran (at once, backed off too); refill cheaper by 1/16 keeps refill, and chooses it when a second trial
   * agrees (the switch pending in between: bit 2 of the position word). A trial whose refill/plain ratio is far from the earlier
   * trials' (sums preset to 2^-20) starts again once (bit 3) and decides the second time. A trial that keeps the plain body
   * with refill dearer by more than the margin grows the back-off by {@link RefillDriver#PLAIN_LEAP} levels, while a narrow
   * refill win keeps the spacing (sixteenth round).
   */
  @ParameterizedTest(name = "W={0} avx512={1}")
  @CsvSource({"8,true", "16,true"})
  void aTrialTimesBothBodiesOnTheSameElementsAndCloseTrialsSettleOnPlain(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the paired trial did not run");
    else Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the paired trial did not run");
    try (AutoMandelbrot f = new AutoMandelbrot(w, avx512 ? "skylake-avx512" : "haswell", avx512 ? RefillDriverJitTest.AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2", 0)) {
      List<Remark> remarks = f.remarks;
      assertTrue(remarks.stream().anyMatch(r -> r.message().contains("a paired trial: " + RefillDriver.ADAPTIVE_REFILL_PACKETS
          + "·W elements run by both bodies")), remarks.toString());
      MethodHandle scalar = f.scalar, driver = f.driver;
      MemorySegment state = f.state;
      Arena arena = f.arena;
      long t = (long) RefillDriver.ADAPTIVE_REFILL_PACKETS * w;
      Points p = new Points(arena, t, t / 2, new Random(w));
      state.fill((byte) 0);
      run(driver, scalar, arena, p, 0, t, t, "paired trial", state, t);
      assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "one trial decided; " + describe(state));
      assertEquals(3, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 3, "at the run; " + describe(state));
      // a disturbed trial (its refill/plain ratio far from the earlier trials': preset sums with refill 2^20 times cheaper)
      // starts again on the next elements, once: no decision after T elements, then one after 2T
      state.fill((byte) 0);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, RefillDriver.WATCH_UNIT << 8);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, 1L << 20);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, 1);
      run(driver, scalar, arena, p, 0, t, t, "disturbed trial", state, t);
      assertEquals(0, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "disturbed: not decided; " + describe(state));
      assertEquals(8, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 0xF, "disturbed: a restart at position 0; " + describe(state));
      run(driver, scalar, arena, p, 0, t, t, "disturbed trial, restarted", state, t);
      assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "the restart decided; " + describe(state));
      assertEquals(0, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 8, "the restart flag cleared; " + describe(state));

      long big = 1L << 50, less64 = big - (big >> 6), less16 = big - (big >> 4);
      // {body in use (1 refill), refill cycles, plain cycles, body wanted, back-off level, trials}: a switch beyond the margin
      // waits for a second trial to agree, at level 0 too, and then keeps the level it came from; a close trial switches
      // to plain at once, backed off too
      long[][] band = {{1, big, less64, 0, 0, 1}, {1, less64, big, 0, 0, 1}, {1, less16, big, 1, 0, 1}, {0, less64, big, 0, 0, 1},
          {0, less16, big, 1, 0, 2}, {1, big, big, 0, 3, 1}, {0, less16, big, 1, 3, 2}};
      for (long[] c : band) {
        state.fill((byte) 0);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL, c[4]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE, c[0]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, c[1]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, c[2]);
        // the spread 0: the margin is the fixed 1/32 (the prior 1/4 of a fresh state would make every case here close)
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD, SPREAD_ZERO);
        String what = (c[0] == 1 ? "refill" : "plain") + " in use, refill/plain " + (double) c[1] / c[2] + ", level " + c[4];
        run(driver, scalar, arena, p, 0, t, t, what, state, t);
        assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), what + ": one trial; " + describe(state));
        if (c[5] == 2) {
          assertEquals(c[0], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), what + ": waits for a second trial; " + describe(state));
          assertEquals(4, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 4, what + ": the switch pending; " + describe(state));
          // the next trial at once (instead of after the run of an epoch): position 0, nothing of it done yet
          // (the pending bit kept; the weight of the trials cleared: the preset sums are no history to judge a disturbed
          // trial against)
          state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 4L);
          state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT, 0);
          run(driver, scalar, arena, p, 0, t, t, what + " (second trial)", state, t);
          assertEquals(2, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), what + ": two trials; " + describe(state));
          // the confirmed switch keeps the spacing the first trial came from
          assertEquals(c[4], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL), what + ": the spacing kept; " + describe(state));
        }
        assertEquals(c[3], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), what + ": the body; " + describe(state));
      }

      // the back-off after a trial that keeps the plain body with refill dearer by more than the margin (autoPlainLeap):
      // that many levels at once (up to the top), by 1/4 and by 1/16 alike (the narrow win kept the spacing before); refill
      // kept by more than 1/8: one level; refill kept by 1/16 (a narrow win): the level kept.
      // {body in use (1 refill), refill cycles, plain cycles, level before, level after}
      long less4 = big - (big >> 2);
      int leap = RefillDriver.adaptivePlainLeap();
      assertEquals(RefillDriver.PLAIN_LEAP, leap, "the default leap");
      long[][] leaps = {{0, big, less4, 1, 1 + leap}, {0, big, less4, RefillDriver.ADAPTIVE_MAX_LEVEL - 1, RefillDriver.ADAPTIVE_MAX_LEVEL},
          {1, less4, big, 1, 2}, {0, big, less16, 1, 1 + leap}, {1, less16, big, 1, 1}};
      for (long[] c : leaps) {
        state.fill((byte) 0);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL, c[3]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE, c[0]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, c[1]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, c[2]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD, SPREAD_ZERO);
        String what = (c[0] == 1 ? "refill" : "plain") + " in use, refill/plain " + (double) c[1] / c[2] + ", level " + c[3];
        run(driver, scalar, arena, p, 0, t, t, what, state, t);
        assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), what + ": one trial; " + describe(state));
        assertEquals(c[0], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), what + ": the body kept; " + describe(state));
        assertEquals(c[4], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL), what + ": the back-off level; " + describe(state));
      }
    }
  }

  /**
   * The bundled mandelbrot retargeted to {@code cpu} with {@code features}, packetized at W with {@code --refill=auto}
   * (verified after each phase; {@code epoch} above 0: epochs of that many packets, {@code packetizer.refill.autoEpoch})
   * and JIT-compiled on the host: the scalar function, the driver {@code mandelbrot_map} and its state, and an arena for
   * the points. Closes the arena, the JIT, the module and the context.
   */
  static final class AutoMandelbrot implements AutoCloseable {
    final List<Remark> remarks = new ArrayList<>();
    LlvmContext ctx;
    LlvmModule module;
    Jit jit;
    Arena arena;
    MethodHandle scalar, driver;
    MemorySegment state;

    AutoMandelbrot(int w, String cpu, String features, int epoch) {
      try {
        Manifest mf = Manifest.load();
        ctx = LlvmContext.create();
        module = ctx.load(mf.bitcode(mf.require("mandelbrot")), "mandelbrot.bc");
        RefillDriverJitTest.retarget(module, "mandelbrot", cpu, features);
        if (epoch > 0) System.setProperty("packetizer.refill.autoEpoch", String.valueOf(epoch));
        try {
          new Packetizer(PacketizerOptions.builder().width(w).params("vvu").verifyEachPhase(true).arrayDriver("*_map")
              .refill(Refill.AUTO).remarks(remarks::add).build()).run(module, "mandelbrot", "mandelbrot_v" + w);
        } finally {
          if (epoch > 0) System.clearProperty("packetizer.refill.autoEpoch");
        }
        jit = Jit.host();
        arena = Arena.ofConfined();
        jit.addModule(module);
        scalar = RefillDriverJitTest.C.downcallHandle(MemorySegment.ofAddress(jit.lookup("mandelbrot")),
            FunctionDescriptor.of(JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_INT));
        driver = RefillDriverJitTest.C.downcallHandle(MemorySegment.ofAddress(jit.lookup("mandelbrot_map")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        state = MemorySegment.ofAddress(jit.lookup("mandelbrot_map" + RefillDriver.STATE_SUFFIX)).reinterpret(8L * RefillDriver.STATE_FIELDS);
      } catch (RuntimeException | Error e) {
        close();
        throw e;
      }
    }

    @Override
    public void close() {
      if (arena != null) arena.close();
      if (jit != null) jit.close();
      if (module != null) module.close();
      if (ctx != null) ctx.close();
    }
  }

  /** The state's spread field for the spread 0 (it holds the spread less the prior 1/4). */
  static final long SPREAD_ZERO = -(RefillDriver.SPREAD_ONE >> RefillDriver.SPREAD_PRIOR_SHIFT);

  /**
   * The margin tied to the paired trials' spread ({@link RefillDriver#adaptiveSpread}), from sums preset in the state so
   * large (2^50 cycles) that the trial's own cycles do not matter, and no earlier trials' weight (so the margin is the spread
   * itself: 2·S / (1 + one trial)): a fresh state's prior 1/4 makes refill 1/16 cheaper a close trial (plain at once, also
   * from refill), refill 1/2 cheaper still a switch (pending); a spread of 1/8: refill 1/16 cheaper close, 1/4 cheaper kept.
   * A restarted trial starts the history over: the sums hold it alone and the spread is the prior again. A whole trial on
   * top of earlier ones moves the spread by a quarter of its deviation from them, computed here from the cycles the trial
   * added to the sums.
   */
  @ParameterizedTest(name = "W={0}")
  @CsvSource({"8", "16"})
  void theMarginFollowsTheSpreadOfThePairedTrials(int w) throws Throwable {
    Assumptions.assumeTrue(RefillDriverJitTest.hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the paired trial did not run");
    try (AutoMandelbrot f = new AutoMandelbrot(w, "skylake-avx512", RefillDriverJitTest.AVX512_FEATURES, 0)) {
      List<Remark> remarks = f.remarks;
      assertTrue(remarks.stream().anyMatch(r -> r.message().contains("the margin follows the trials' spread")), remarks.toString());
      MethodHandle scalar = f.scalar, driver = f.driver;
      MemorySegment state = f.state;
      Arena arena = f.arena;
      long t = (long) RefillDriver.ADAPTIVE_REFILL_PACKETS * w;
      Points p = new Points(arena, t, t / 2, new Random(w));
      long big = 1L << 50, prior = 0, eighth = (RefillDriver.SPREAD_ONE >> 3) + SPREAD_ZERO;
      // {spread field, body in use (1 refill), refill cycles, plain cycles, body after, switch pending after}
      long[][] cases = {{prior, 1, big - (big >> 4), big, 0, 0}, {prior, 0, big - (big >> 4), big, 0, 0},
          {prior, 0, big >> 1, big, 0, 1}, {eighth, 0, big - (big >> 4), big, 0, 0}, {eighth, 1, big - (big >> 2), big, 1, 0},
          {SPREAD_ZERO, 1, big - (big >> 4), big, 1, 0}};
      for (long[] c : cases) {
        state.fill((byte) 0);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD, c[0]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE, c[1]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, c[2]);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, c[3]);
        String what = "spread " + (double) (c[0] - SPREAD_ZERO) / RefillDriver.SPREAD_ONE + ", " + (c[1] == 1 ? "refill" : "plain")
            + " in use, refill/plain " + (double) c[2] / c[3];
        run(driver, scalar, arena, p, 0, t, t, what, state, t);
        assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), what + ": one trial; " + describe(state));
        assertEquals(c[4], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE), what + ": the body; " + describe(state));
        assertEquals(c[5] * 4, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 4, what + ": the switch pending; " + describe(state));
        // no history to measure a deviation against: the spread unchanged
        assertEquals(c[0], state.getAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD), what + ": the spread kept; " + describe(state));
      }

      // a restarted trial starts the history over: sums with refill 2^20 times cheaper than plain (2^40 cycles) and one
      // trial's weight make the first trial disturbed; the restart, decided, leaves the sums holding its own cycles
      // alone (far below the 3/4·2^40 that keeping the history would leave) and the spread at the prior (field 0)
      state.fill((byte) 0);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, RefillDriver.WATCH_UNIT << 8);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, 1L << 40);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, 1L << 20);
      state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD, SPREAD_ZERO);
      run(driver, scalar, arena, p, 0, t, t, "disturbed trial", state, t);
      assertEquals(8, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) & 0xF, "disturbed: a restart; " + describe(state));
      run(driver, scalar, arena, p, 0, t, t, "disturbed trial, restarted", state, t);
      assertEquals(1, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS), "the restart decided; " + describe(state));
      assertTrue(state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES) < 1L << 36, "the history dropped; " + describe(state));
      assertEquals(RefillDriver.WATCH_UNIT, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) >>> 8, "one trial's weight; " + describe(state));
      assertEquals(0, state.getAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD), "the spread back at the prior; " + describe(state));

      // the deviation: one trial from a fresh state gives its cycles (P0, R0); then a history of one trial with refill
      // 3/2 times dearer than that (within the factor 2 that makes a trial disturbed) and the spread 1/8; the next trial on
      // the same elements adds (p, r) to 3/4 of the sums, read back from them, and the spread must be
      // 3/4·1/8 + 1/4·min(1, |r·P - R·p| / P²) (the sums keep 7/8 of the history). A trial the host disturbed anyway (restart bit) is retried
      boolean measured = false;
      for (int attempt = 0; attempt < 5 && !measured; attempt++) {
        state.fill((byte) 0);
        run(driver, scalar, arena, p, 0, t, t, "first trial", state, t);
        long p0 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES), r0 = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES);
        long hp = p0, hr = r0 + r0 / 2;
        state.fill((byte) 0);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, RefillDriver.WATCH_UNIT << 8);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, hp);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, hr);
        state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD, eighth);
        run(driver, scalar, arena, p, 0, t, t, "trial on a history", state, t);
        if (state.getAtIndex(JAVA_LONG, RefillDriver.STATE_TRIALS) != 1) continue;
        int msh = RefillDriver.SPREAD_MEMORY_SHIFT;
        long pt = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES) - (hp - (hp >> msh));
        long rt = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES) - (hr - (hr >> msh));
        double d = Math.min(1.0, Math.abs((double) rt * hp - (double) hr * pt) / ((double) hp * hp));
        double want = 0.125 * 0.75 + d * 0.25;
        long got = state.getAtIndex(JAVA_LONG, RefillDriver.STATE_SPREAD) - SPREAD_ZERO;
        assertEquals(want * RefillDriver.SPREAD_ONE, got, 2.0, "the spread after a deviation of " + d + "; " + describe(state));
        assertEquals(2 * RefillDriver.WATCH_UNIT - (RefillDriver.WATCH_UNIT >> msh), state.getAtIndex(JAVA_LONG, RefillDriver.STATE_POS) >>> 8,
            "the history's weight keeps 7/8, plus this trial; " + describe(state));
        // (the trial must deviate from its history for the case to mean something: a host whose speed changed between the
        // first trial and this one can leave this one in the history's 3/2 proportion, d near 0; then it is tried again)
        measured = d > 0.01;
      }
      assertTrue(measured, "a trial undisturbed and 3/2 off its history (d > 0.01) in 5 attempts; " + describe(state));
    }
  }

  /**
   * The plain body in a run of {@code left} elements at the back-off's top level, no saved level, the position word
   * {@code (WATCH_UNIT << 8) | 3} (the state the cases below start the watches from).
   */
  static void plainRun(MemorySegment state, long left) {
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_POS, (RefillDriver.WATCH_UNIT << 8) | 3);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEFT, left);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_LEVEL, RefillDriver.ADAPTIVE_MAX_LEVEL);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE, 0);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_SAVED_LEVEL, 0);
    // (the watch's spacing at level 0, no alarm's tail under way, the run's elements not counted yet: eighteenth round)
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH, 0);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_WATCH_RUN, 0);
  }

  /**
   * The state in which random calls kept the plain body (mandelbrot W16, thirteenth round): the plain body in a run of
   * {@code left} elements at back-off level 5, one trial's weight in sums whose refill per element is far above any piece
   * of the plain body (so that the watch against refill stays quiet), plain twice refill in them (not a disturbed trial).
   */
  static void stuckOnPlain(MemorySegment state, long left) {
    plainRun(state, left);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_REFILL_CYCLES, 1L << 50);
    state.setAtIndex(JAVA_LONG, RefillDriver.STATE_PLAIN_CYCLES, 1L << 51);
  }

  static String describe(MemorySegment state) {
    StringBuilder sb = new StringBuilder("state {pos, left, level, refill, plain cycles, refill cycles, trials, saved, spread,"
        + " plain peak, last plain piece, plain alarms, watch, watch run} =");
    for (int k = 0; k < RefillDriver.STATE_FIELDS; k++) sb.append(' ').append(state.getAtIndex(JAVA_LONG, k));
    return sb.toString();
  }

  /** The points: the first {@code coherent} an image in scan order 64 points wide, the rest random; one int past the output. */
  record Points(MemorySegment x, MemorySegment y, MemorySegment out, long n) {
    Points(Arena arena, long n, long coherent, Random rnd) {
      this(arena.allocate(JAVA_FLOAT, n), arena.allocate(JAVA_FLOAT, n), arena.allocate(JAVA_INT, n + 1), n);
      for (long i = 0; i < n; i++) {
        double u, v;
        if (i < coherent) {
          u = (i % 64 + 0.5) / 64;
          v = ((i / 64) % 64 + 0.5) / 64;
        } else {
          u = rnd.nextDouble();
          v = rnd.nextDouble();
        }
        x.setAtIndex(JAVA_FLOAT, i, (float) (-2 + 3 * u));
        y.setAtIndex(JAVA_FLOAT, i, (float) (-1.5 + 3 * v));
      }
    }
  }

  /**
   * Calls the driver on elements [from, to) in calls of {@code per} elements and checks every element; true when the
   * state said "refill" after a call that reached element {@code randomFrom}.
   */
  static boolean run(MethodHandle driver, MethodHandle scalar, Arena arena, Points p, long from, long to, long per, String what,
      MemorySegment state, long randomFrom) throws Throwable {
    p.out().fill((byte) 0x5A);
    boolean seen = false;
    for (long i = from; i < to; i += per) {
      long c = Math.min(per, to - i);
      driver.invokeExact(p.x().asSlice(4 * i), p.y().asSlice(4 * i), 150, p.out().asSlice(4 * i), c);
      seen |= i + c > randomFrom && state.getAtIndex(JAVA_LONG, RefillDriver.STATE_CHOICE) == 1;
    }
    for (long i = from; i < to; i++) {
      int want = (int) scalar.invokeExact(p.x().getAtIndex(JAVA_FLOAT, i), p.y().getAtIndex(JAVA_FLOAT, i), 150);
      int got = p.out().getAtIndex(JAVA_INT, i);
      if (want != got) fail(what + ": element " + i + " of " + (to - from) + ": " + got + ", the scalar function " + want);
    }
    assertEquals(0x5A5A5A5A, p.out().getAtIndex(JAVA_INT, p.n()), what + ": written after the output");
    return seen;
  }
}
