package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.driver.RefillDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the {@code --refill=auto} driver's decisions on a scripted clock (issue 17, seventeenth round): the
 * bundled mandelbrot, retargeted to AVX-512 (paired trials) or AVX2 (the trial of three chunks), W 8 and 16, gets an
 * adaptive driver with epochs of 160 packets built with {@code -Dpacketizer.refill.autoClockScript=2} (no cycle counter:
 * the costs come from {@code mandelbrot_auto.clock}, {@link RefillDriver#adaptiveClockScript}), emitted to an object by the
 * bundled {@code llc} and linked with {@code driver/auto_refill_script_caller.c} (its own translation unit, the generated
 * header only) compiled by the bundled clang and by GCC. The caller writes the script, checks every element of every call
 * against the scalar function (arrays ending at PROT_NONE pages, guard bytes before the output) and reads the decisions
 * from the state: after a disturbed first trial the driver is on refill within 3 epochs (the confirming trial,
 * {@link RefillDriver#adaptiveConfirmFirst}); where the plain body really wins, the levels after the trials are 0,
 * {@link RefillDriver#PLAIN_LEAP} and twice that. Since the eighteenth round (32 rows) also the watch's spacing
 * ({@link RefillDriver#adaptiveWatchSpacing}) on work rising for both bodies alike, as in AutoRefillWatchSpacingJitTest: the
 * exact count of trials in one call of 48 epochs (runs of 1, 2, 4, 8, 8, … epochs and the alarm's tail), the watch's levels
 * after the trials, and
 * an input that turns random after five of them taken within 2^{@link RefillDriver#WATCH_MAX_LEVEL} + 3 epochs. Since the
 * nineteenth round also the loss cut ({@link RefillDriver#adaptiveLossCut}): refill always 3 times plain over 64 epochs, 4
 * trials (two whole, then two probes), the levels 0, {@link RefillDriver#PLAIN_LEAP}, top, top, and the refill body's elements
 * in timed calls exactly two whole trials' and two probes' (the clock's last word). No timing of the host is asserted.
 */
class AutoRefillScriptCallerTest {
  /** The script's rows: the first two scripts repeat their second row; the watch's rising work needs a row per trial. */
  static final int ROWS = 32;

  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} target={1}")
  @CsvSource({"8,avx512", "16,avx512", "8,haswell", "16,haswell"})
  void separatelyCompiledCallersScriptTheClock(int w, String target) throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the scripted --refill=auto driver was not run from C");
    BundledClang clang = BundledClang.locate();
    List<String> remarks = AutoRefillCallerTest.mandelbrotAutoDriver(dir, clang, w, avx512,
        Map.of("packetizer.refill.autoClockScript", String.valueOf(ROWS)),
        m -> assertTrue(m.global("mandelbrot_auto" + RefillDriver.CLOCK_SUFFIX).isPresent(), "the script's global"));
    assertTrue(remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs of 160·W")
        && x.contains(avx512 ? "a paired trial" : "a trial of three timed chunks")
        && x.contains("a fresh state's first trial that keeps the plain body is confirmed by a second one")), remarks.toString());
    assertTrue(remarks.stream().anyMatch(x -> x.contains("the watch's alarms are spaced")), remarks.toString());
    ArrayDriverCallerTest.writeCaller(dir, "auto_refill_script_caller.c");
    long trial = (avx512 ? RefillDriver.ADAPTIVE_REFILL_PACKETS : RefillDriver.ADAPTIVE_REFILL_PACKETS + 2L * RefillDriver.ADAPTIVE_PLAIN_PACKETS) * w;
    for (String out : AutoRefillCallerTest.runCallers(dir, clang, w, List.of("-DW=" + w, "-DE=" + 160 * w, "-DT=" + trial,
        "-DLEAP=" + RefillDriver.PLAIN_LEAP, "-DMAXLEVEL=" + RefillDriver.ADAPTIVE_MAX_LEVEL, "-DTOP=" + RefillDriver.WATCH_MAX_LEVEL,
        "-DROWS=" + ROWS, "-DSTATE_WORDS=" + RefillDriver.STATE_FIELDS, "-DTR=" + (long) RefillDriver.ADAPTIVE_REFILL_PACKETS * w,
        "-DPROBE=" + (long) (RefillDriver.ADAPTIVE_REFILL_PACKETS >> RefillDriver.LOSS_PROBE_SHIFT) * w), "AutoRefillScriptCallerTest")) {
      assertTrue(out.contains("stuck on plain: refill from element ") && out.contains("plain wins: refill from element -1")
          && out.contains("rising work: refill from element -1") && out.contains("input changes: refill ")
          && out.contains("refill loses: refill from element -1") && out.contains("refill loses: 4 trials, "), out);
    }
  }
}
