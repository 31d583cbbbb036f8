package org.packetizer.core.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The port model of a loop-free packet ({@link PortModel}, knob {@code -Dpacketizer.interleave.straightLine=ports};
 * issue 16, fifteenth round): the schedule's arithmetic on made-up traces (a latency chain against a port-bound body,
 * the scheduler's size), the machine tables a CPU name selects, and on FOREIGN code (C compiled by the bundled clang
 * -O1/-O2, {@link InterleaveStraightLineTest#SOURCE}) the choice and its remark: {@code chase}, eight dependent table
 * lookups, gets two chains at W4 where the window estimate keeps one; {@code cell} keeps one everywhere; the driver
 * the model interleaves equals the scalar function for every n around the step, with guard pages.
 */
class PortModelTest {
  static final String KNOB = InterleaveStraightLineTest.KNOB;

  static PortModel.Op chained(PortModel.Kind k, PortModel.Machine m, int dep) {
    return new PortModel.Op(k, 1, m.fact(k).latency(), dep < 0 ? new int[0] : new int[] {dep}, true, 1);
  }

  /** A chain of {@code n} dependent operations of class {@code k}. */
  static List<PortModel.Op> chain(PortModel.Kind k, int n, PortModel.Machine m) {
    List<PortModel.Op> t = new ArrayList<>();
    for (int i = 0; i < n; i++) t.add(chained(k, m, i - 1));
    return t;
  }

  /** {@code m} with another scheduler size. */
  static PortModel.Machine withScheduler(PortModel.Machine m, int entries) {
    return new PortModel.Machine(m.name(), m.dispatch(), m.window(), entries, m.doublePumped512(), Map.copyOf(m.facts()));
  }

  /**
   * A dependent chain (40 multiplies, 200 cycles of latency; 20 cycles of issue on Haswell's two multiply ports): the
   * consecutive steps overlap only as far as the scheduler and the in-order retirement let them (a step's operations
   * retire after the step's last one), so two chains per step, finishing together, gain; a scheduler as large as the
   * window lets one chain's steps overlap further. A body bound by its ports gains nothing from a second chain.
   */
  @Test
  void twoChainsGainOnALatencyChainAndNothingOnABodyBoundByItsPorts() {
    PortModel.Machine hsw = PortModel.HASWELL;
    List<PortModel.Op> longChain = chain(PortModel.Kind.FMUL, 40, hsw);
    double one = PortModel.schedule(longChain, 1, hsw);
    double two = PortModel.schedule(longChain, 2, hsw);
    assertTrue(one > 40, "one chain waits on its path, beyond its 20 issue cycles: " + one);
    assertTrue(one / two > 1.15, "two chains: " + one + " -> " + two);
    double oneBig = PortModel.schedule(longChain, 1, withScheduler(hsw, hsw.window()));
    assertTrue(oneBig < one * 0.8, "a scheduler as large as the window overlaps more of the steps: " + oneBig + " vs " + one);
    // with no scheduler limit the reorder window binds: 192 operations in flight hold 4.8 steps of the 200-cycle chain
    double oneWindow = PortModel.schedule(longChain, 1, withScheduler(hsw, 1_000_000));
    assertTrue(oneWindow > 30, "the window limits the overlap of the steps, above the 20 issue cycles: " + oneWindow);

    // 200 independent loads on Haswell's two load ports: 100 cycles per packet with one chain or two
    List<PortModel.Op> loads = new ArrayList<>();
    for (int i = 0; i < 200; i++) loads.add(chained(PortModel.Kind.SLOAD, hsw, -1));
    double l1 = PortModel.schedule(loads, 1, hsw);
    double l2 = PortModel.schedule(loads, 2, hsw);
    assertEquals(100, l1, 3);
    assertEquals(1.0, l1 / l2, 0.03);

    // a short chain fits the scheduler: the steps overlap, the port of its class (FP add: port 1 only) binds
    List<PortModel.Op> shortChain = chain(PortModel.Kind.FADD, 8, hsw);
    double s1 = PortModel.schedule(shortChain, 1, hsw);
    assertEquals(8, s1, 1);
    assertEquals(1.0, s1 / PortModel.schedule(shortChain, 2, hsw), 0.05);
  }

  /** Operations common to the lanes (scalar, not per chain) are issued once per step whatever the chains. */
  @Test
  void operationsCommonToTheLanesAreNotRepeatedPerChain() {
    PortModel.Machine zn = PortModel.ZNVER4;
    List<PortModel.Op> t = new ArrayList<>();
    for (int i = 0; i < 90; i++) t.add(new PortModel.Op(PortModel.Kind.SLOAD, 1, 5, new int[0], false, 1));
    // three load ports: 30 cycles per step; two chains share it, 15 per packet
    assertEquals(30, PortModel.schedule(t, 1, zn), 2);
    assertEquals(15, PortModel.schedule(t, 2, zn), 2);
  }

  /** The tables a CPU name selects, and the knob that names the machine. */
  @Test
  void theMachineTableFollowsTheTargetCpu() {
    assertSame(PortModel.ZNVER4, PortModel.table("znver4"));
    assertSame(PortModel.HASWELL, PortModel.table("haswell"));
    assertSame(PortModel.HASWELL, PortModel.table("skylake-avx512"));
    assertSame(PortModel.SANDY_BRIDGE, PortModel.table("x86-64-v2"));
    assertNull(PortModel.machineOf("cortex-a76", true));
    try {
      System.setProperty(PortModel.MACHINE_KNOB, "target");
      assertSame(PortModel.SANDY_BRIDGE, PortModel.machineOf("x86-64-v2", false));
      assertSame(PortModel.ZNVER4, PortModel.machineOf("znver4", false));
      System.setProperty(PortModel.MACHINE_KNOB, "haswell");
      assertSame(PortModel.HASWELL, PortModel.machineOf("znver4", false));
      System.clearProperty(PortModel.MACHINE_KNOB);
      // auto: a microarchitecture's own table; a generic level judged by the host's core
      assertSame(PortModel.HASWELL, PortModel.machineOf("haswell", false));
      assertSame(PortModel.table(Llvm.hostCpuName()), PortModel.machineOf("x86-64-v2", false));
      System.setProperty(PortModel.MACHINE_KNOB, " ");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PortModel.machineOf("znver4", false));
      assertTrue(e.getMessage().contains(PortModel.MACHINE_KNOB), e.getMessage());
    } finally {
      System.clearProperty(PortModel.MACHINE_KNOB);
    }
  }

  /**
   * Foreign C: chase (eight dependent lookups) at W4 on x86-64-v2 gets two chains by the port model, its remark
   * naming the model, the machine and the cycles; the window estimate keeps it at one (its miss); cell keeps one
   * chain at every width; the machine in the remark follows the target CPU.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void thePortModelInterleavesTheDependentLookupsTheWindowEstimateMisses(String opt) {
    System.setProperty(PortModel.MACHINE_KNOB, "target");
    try {
      for (int w : new int[] {4, 8, 16}) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = InterleaveStraightLineTest.module(ctx, opt, w)) {
          Interleave.Choice chase = InterleaveStraightLineTest.choose(m, "chase", w, "ports");
          String why = opt + " W" + w + ": " + chase.describe(w);
          assertTrue(chase.describe(w).contains("the packet @chase_v" + w + "'s port model ("
              + (w == 4 ? "x86-64-v2 (LLVM's Sandy Bridge model)" : "haswell") + "):"), why);
          assertTrue(chase.describe(w).contains("cycles per packet with one chain"), why);
          if (w == 4) {
            assertEquals(2, chase.factor(), why);
            Interleave.Choice window = InterleaveStraightLineTest.choose(m, "chase", w, "packet");
            assertEquals(1, window.factor(), window.describe(w));
          }
          Interleave.Choice cell = InterleaveStraightLineTest.choose(m, "cell", w, "ports");
          assertEquals(1, cell.factor(), opt + " W" + w + ": " + cell.describe(w));
        }
      }
    } finally {
      System.clearProperty(PortModel.MACHINE_KNOB);
    }
  }

  /** The driver the port model interleaves (chase W4, the rule's choice) equals the scalar function for every n. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void theDriverThePortModelInterleavesMatchesTheScalarFunction(String opt) throws Throwable {
    System.setProperty(PortModel.MACHINE_KNOB, "target");
    try {
      InterleaveStraightLineTest.interleavedDriverMatchesTheScalarFunction(opt, 4, "chase", "ports", 0,
          "the packet @chase_v4's port model");
    } finally {
      System.clearProperty(PortModel.MACHINE_KNOB);
    }
  }
}
