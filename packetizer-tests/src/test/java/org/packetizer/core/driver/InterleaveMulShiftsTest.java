package org.packetizer.core.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The interleave rule's charge for a multiply by a constant on the recurrence (issue 16, twenty-third round). With
 * {@code -Dpacketizer.interleave.mulShifts=depth} it charges what {@code widen.MulShifts} makes of it: where the rewrite
 * is taken at an interleave count, the plan's depth on the recurrence and its operations in the issue slots, else the
 * multiply's latency. By default ({@code latency}, measured faster) the multiply's latency at every count. Foreign code: FNV-1a 32 and 64 of {@code beyond/mul_shifts.c}
 * (clang -O2, with and without runtime unrolling). The oracle is the code itself: for the count the rule picks, the
 * packet function the plain driver calls (W lanes, or IC·W) and the refill driver's hot loop have the multiply exactly
 * where the rule said the rewrite is not taken.
 */
class InterleaveMulShiftsTest {
  @TempDir Path dir;

  record Case(String fn, int w, String type, String prime) {}

  static final List<Case> CASES = List.of(new Case("fnv1a32_key", 8, "i32", "splat (i32 16777619)"),
      new Case("fnv1a32_key", 4, "i32", "splat (i32 16777619)"),
      new Case("fnv1a64_key", 4, "i64", "splat (i64 1099511628211)"));

  Path compile(String name, List<String> flags) throws IOException {
    String c;
    try (InputStream in = InterleaveMulShiftsTest.class.getResourceAsStream("/beyond/mul_shifts.c")) {
      c = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Files.writeString(dir.resolve("mul_shifts.c"), c);
    BundledClang.locate().compileToBitcode(dir, Path.of("mul_shifts.c"), Path.of(name), flags);
    return dir.resolve(name);
  }

  /** Whether the text of a function (or of one of its blocks) multiplies by the case's prime. */
  static boolean multiplies(String text, Case cs) {
    return text.lines().anyMatch(l -> l.contains(" mul <") && l.contains(" x " + cs.type() + ">") && l.contains(cs.prime()));
  }

  static Interleave.LoopEstimate mainLoop(Interleave.Choice c) {
    return c.loops().stream().filter(l -> l.decomposed() != null).findFirst().orElse(null);
  }

  /**
   * For each case, plain and refill driver on haswell: the rule's loop names the multiplies (4 for FNV-1a 32, 8 for
   * FNV-1a 64) with the recurrence at their plans' depth (5 per byte: xor 1 + depth 4, against 11 with vpmulld), and the
   * code at the count it picks has the prime's multiply exactly where the rule says the rewrite is not taken there.
   */
  /** {@code r} with the system property {@code key} set to {@code value} (and back). */
  static void with(String key, String value, ThrowingRunnable r) throws Exception {
    String old = System.getProperty(key);
    System.setProperty(key, value);
    try {
      r.run();
    } finally {
      if (old == null) System.clearProperty(key);
      else System.setProperty(key, old);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void theChargeFollowsTheRewrite() throws Exception {
    with("packetizer.interleave.mulShifts", "depth", this::chargeFollowsTheRewrite);
  }

  /**
   * By default the rule charges the multiply its latency (no decomposed figures), which keeps two chains where one
   * chain of shifts would be estimated just faster: FNV-1a 32 W8 and FNV-1a 64 W4 on haswell get IC 2 (recurrence 11 /
   * 16 cycles a byte against a throughput of a few cycles), and MulShifts keeps the multiplies in the packet of 2·W lanes
   * (their operations would fill the issue slots of two chains) — the variant measured fastest (docs/performance.md,
   * twenty-third round). With the knob {@code depth} the same loops take IC 1 with shifts and adds.
   */
  @Test
  void theDefaultChargesTheLatency() throws Exception {
    Path bc = compile("k.bc", List.of("-O2"));
    for (Case cs : List.of(CASES.get(0), CASES.get(2))) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
        Function scalar = m.function(cs.fn()).orElseThrow();
        Interleave.Choice choice = choose(scalar, cs, false);
        String why = cs + ": " + choice.describe(cs.w());
        assertNull(mainLoop(choice), why);
        assertFalse(choice.describe(cs.w()).contains("as shifts and adds"), why);
        assertEquals(2, choice.factor(), why);
        assertTrue(multiplies(packetizedLoop(m, cs, false), cs), why);
        with("packetizer.interleave.mulShifts", "depth", () -> {
          Interleave.Choice depth = choose(scalar, cs, false);
          assertEquals(1, depth.factor(), depth.describe(cs.w()));
          assertFalse(multiplies(packetizedLoop(m, cs, false), cs), depth.describe(cs.w()));
        });
      }
    }
    assertThrows(IllegalArgumentException.class, () -> with("packetizer.interleave.mulShifts", "deep", () -> {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
        choose(m.function("fnv1a32_key").orElseThrow(), CASES.get(0), false);
      }
    }));
  }

  void chargeFollowsTheRewrite() throws Exception {
    List<String> rows = new ArrayList<>();
    for (String[] flags : new String[][] {{"-O2", "-mllvm", "-unroll-runtime=false"}, {"-O2"}}) {
      Path bc = compile("k" + flags.length + ".bc", List.of(flags));
      for (Case cs : CASES) {
        for (boolean refill : new boolean[] {false, true}) {
          try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
            Function scalar = m.function(cs.fn()).orElseThrow();
            Interleave.Choice choice = choose(scalar, cs, refill);
            Interleave.LoopEstimate loop = mainLoop(choice);
            String why = String.join(" ", flags) + " " + cs.fn() + " W" + cs.w() + (refill ? " refill: " : " plain: ") + choice.describe(cs.w());
            assertNotNull(loop, why);
            int muls = cs.type().equals("i32") ? 4 : 8;
            assertEquals(muls, loop.decomposed().multiplies(), why);
            assertEquals(5.0 * muls, loop.decomposed().latency(), why);
            assertTrue(loop.latency() > loop.decomposed().latency(), why);
            String code = packetizedLoop(m, cs, refill);
            int ic = choice.factor();
            assertEquals(!loop.decomposed().taken(ic), multiplies(code, cs), () -> why + "\n" + code);
            rows.add(why);
          }
        }
      }
    }
    System.err.println(String.join("\n", rows));
  }

  /**
   * With the knob false the rule charges every multiply its latency (no decomposed figures: the rule before the
   * twenty-third round, and the code keeps the multiply); with the knob true the rewrite is taken at every count.
   */
  @Test
  void theKnobDecides() throws Exception {
    with("packetizer.interleave.mulShifts", "depth", this::knobDecides);
  }

  void knobDecides() throws Exception {
    Path bc = compile("k.bc", List.of("-O2"));
    for (String knob : new String[] {"false", "true"}) {
      String old = System.getProperty("packetizer.mulShifts");
      System.setProperty("packetizer.mulShifts", knob);
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
        for (Case cs : CASES) {
          for (boolean refill : new boolean[] {false, true}) {
            Interleave.Choice choice = choose(m.function(cs.fn()).orElseThrow(), cs, refill);
            String why = knob + " " + cs + " refill=" + refill + ": " + choice.describe(cs.w());
            if (knob.equals("false")) {
              assertNull(mainLoop(choice), why);
              assertTrue(multiplies(packetizedLoop(m, cs, refill), cs), why);
            } else {
              Interleave.LoopEstimate loop = mainLoop(choice);
              assertNotNull(loop, why);
              for (int k : new int[] {1, 2, 4}) assertTrue(loop.decomposed().taken(k), why);
              assertFalse(multiplies(packetizedLoop(m, cs, refill), cs), why);
            }
          }
        }
      } finally {
        if (old == null) System.clearProperty("packetizer.mulShifts");
        else System.setProperty("packetizer.mulShifts", old);
      }
    }
  }

  static Interleave.Choice choose(Function scalar, Case cs, boolean refill) {
    List<ParamKind> kinds = ParamKind.parseLetters("vv");
    return refill ? Interleave.chooseForRefill(scalar, cs.w(), 0, kinds, "haswell", null)
        : Interleave.choose(scalar, cs.w(), 0, kinds, null, "haswell", null);
  }

  /**
   * Builds the case's array driver (plain, or with refill) for haswell and returns the code of its loop: the packet
   * function the plain driver calls for full packets (W lanes, or IC·W), or the refill driver's hot loop.
   */
  static String packetizedLoop(LlvmModule m, Case cs, boolean refill) {
    List<Remark> remarks = new ArrayList<>();
    String name = cs.fn() + "_v" + cs.w() + "_" + System.nanoTime();
    new Packetizer(PacketizerOptions.builder().width(cs.w()).params("vv").targetCpu("haswell").verifyEachPhase(true)
        .arrayDriver(name + "_map").refill(refill ? Refill.ON : Refill.OFF).remarks(remarks::add).build()).run(m, cs.fn(), name);
    String icNote = remarks.stream().map(Remark::message).filter(x -> x.startsWith((refill ? "refill body: " : "")
        + "interleave count ")).findFirst().orElseThrow(() -> new AssertionError(remarks.toString()));
    int ic = Integer.parseInt(icNote.substring(icNote.indexOf("interleave count ") + 17).split(" ")[0]);
    if (refill) {
      assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")), remarks.toString());
      String d = m.function(name + "_map").orElseThrow().print();
      int at = d.indexOf("\niterate:");
      assertTrue(at >= 0, d);
      return d.substring(at, d.indexOf("\n\n", at));
    }
    return m.function(name + (ic > 1 ? ".x" + ic : "")).orElseThrow().print();
  }
}
