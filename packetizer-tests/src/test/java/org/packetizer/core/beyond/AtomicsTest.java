package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.BufferInit;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Atomics ({@code atomicrmw}, {@code cmpxchg}, {@code fence}, atomic loads and stores) from C compiled
 * with plain {@code -O1} and {@code -O2} ({@code beyond/atomics.c}), checked against W sequential
 * scalar calls at W=4, 8, 16, unmasked and masked: the final contents of shared counters and per-lane
 * slots, and every active lane's returned old value. Before atomics were supported every one of these
 * functions was rejected ("cannot packetize the instruction 'atomicrmw' on varying values").
 */
class AtomicsTest {
  static final int RUNS = 40;

  static Stream<Arguments> widthsAndLevels() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String o : new String[] {"-O1", "-O2"}) out.add(Arguments.of(w, o));
    return out.stream();
  }

  static void packetize(LlvmModule m, String fn, int w, String kinds, boolean masked) {
    new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, fn + (masked ? "_m" : "_v") + w);
  }

  /** Packetizes {@code fn} unmasked and masked and checks both against the scalar function. */
  static void checkBoth(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      packetize(m, fn, w, kinds, masked);
      String simd = fn + (masked ? "_m" : "_v") + w;
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult r = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(r.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + r.report() + "\n" + m.function(simd).orElseThrow().print());
        assertTrue(r.lanesCompared() > 0);
      }
    }
  }

  static List<Value> instructions(LlvmModule m, String fn, Opcode op) {
    List<Value> out = new ArrayList<>();
    for (var b : m.function(fn).orElseThrow().blocks()) for (Value i : b.instructions()) if (i.opcode() == op) out.add(i);
    return out;
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void sharedCounters(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "atomics.c", opt)) {
      Type i32 = ctx.i32(), i64 = ctx.i64();
      checkBoth(m, "add_shared", w, "uv", 10 + w, ParamSpec.uniformPtr(i32, 1, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(-50, 50)));
      checkBoth(m, "sub_shared", w, "uv", 20 + w, ParamSpec.uniformPtr(i64, 1, Direction.INOUT), ParamSpec.varying());
      checkBoth(m, "and_or_xor_shared", w, "uv", 30 + w, ParamSpec.uniformPtr(i32, 3, Direction.INOUT), ParamSpec.varying());
      checkBoth(m, "minmax_shared", w, "uuv", 40 + w, ParamSpec.uniformPtr(i32, 2, Direction.INOUT),
          ParamSpec.uniformPtr(i32, 2, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(-200, 200)));
      checkBoth(m, "c11_shared", w, "uv", 50 + w, ParamSpec.uniformPtr(i32, 2, Direction.INOUT), ParamSpec.varying());
      // one combined atomic, keeping the scalar one's ordering
      List<Value> rmw = instructions(m, "add_shared_v" + w, Opcode.ATOMICRMW);
      assertEquals(1, rmw.size(), () -> m.function("add_shared_v" + w).orElseThrow().print());
      assertTrue(rmw.getFirst().print().contains("seq_cst"), rmw.getFirst().print());
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void perLaneAddressesInLaneOrder(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "atomics.c", opt)) {
      Type i32 = ctx.i32();
      // few bins and slots: lanes collide, so only lane order gives the scalar runs' old values
      checkBoth(m, "histogram", w, "uv", 60 + w, ParamSpec.uniformPtr(i32, 16, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(-12, 12)));
      checkBoth(m, "claim", w, "uvv", 70 + w, ParamSpec.uniformPtr(i32, 4, Direction.INOUT, BufferInit.from(ValueDomain.ints(0, 1))),
          ParamSpec.varying(ValueDomain.ints(0, 7)), ParamSpec.varying(ValueDomain.ints(1, 99)));
      checkBoth(m, "load_store_lanes", w, "uvv", 80 + w, ParamSpec.uniformPtr(i32, 16, Direction.INOUT),
          ParamSpec.varying(ValueDomain.ints(0, 15)), ParamSpec.varying(ValueDomain.ints(-5, 5)));
      assertEquals(w, instructions(m, "histogram_v" + w, Opcode.ATOMICRMW).stream().filter(i -> i.print().contains("add")).count());
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void compareAndSwapLoopAndFloatAdd(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "atomics.c", opt)) {
      Type f32 = ctx.floatType();
      checkBoth(m, "cas_max_float", w, "uv", 90 + w, ParamSpec.uniformPtr(f32, 1, Direction.INOUT), ParamSpec.varying(ValueDomain.floats(-200, 200)));
      checkBoth(m, "fadd_shared", w, "uv", 95 + w, ParamSpec.uniformPtr(f32, 1, Direction.INOUT), ParamSpec.varying(ValueDomain.floats(-50, 150)));
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void fencesOncePerPacketCall(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "atomics.c", opt)) {
      checkBoth(m, "publish", w, "ulv", 100 + w, ParamSpec.uniformPtr(ctx.floatType(), 16, Direction.INOUT),
          ParamSpec.linear(1, ValueDomain.ints(0, 0)), ParamSpec.varying(ValueDomain.floats(-1, 1)));
      List<Value> fences = instructions(m, "publish_v" + w, Opcode.FENCE);
      assertEquals(2, fences.size(), () -> m.function("publish_v" + w).orElseThrow().print());
      assertTrue(fences.get(0).print().contains("fence release"), fences.get(0).print());
      assertTrue(fences.get(1).print().contains("fence seq_cst"), fences.get(1).print());
    }
  }

  /** Orderings, sync scopes, volatility and weakness are those of the scalar instructions. */
  @Test
  void orderingsAndSyncScopesAreKept() {
    for (int w : new int[] {4, 8, 16}) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(CSources.text("atomics_scopes.ll").getBytes(), "atomics_scopes.ll")) {
        packetize(m, "scoped", w, "uuv", false);
        List<String> kept = new ArrayList<>();
        for (Opcode op : new Opcode[] {Opcode.ATOMICRMW, Opcode.ATOMICCMPXCHG, Opcode.FENCE}) {
          for (Value i : instructions(m, "scoped_v" + w, op)) kept.add(i.print());
        }
        // combined add (1) + per-lane xchg (W) + per-lane cmpxchg (W) + fence (1) + per-lane volatile add (W)
        assertEquals(2 + 3 * w, kept.size(), () -> m.function("scoped_v" + w).orElseThrow().print());
        for (String s : kept) assertTrue(s.contains("syncscope(\"singlethread\")"), s);
        assertTrue(kept.stream().anyMatch(s -> s.contains("atomicrmw add") && s.contains("acquire")), kept::toString);
        assertEquals(w, kept.stream().filter(s -> s.contains("atomicrmw xchg") && s.contains("release")).count(), kept::toString);
        assertEquals(w, kept.stream().filter(s -> s.contains("cmpxchg weak") && s.contains("acq_rel monotonic")).count(), kept::toString);
        assertEquals(w, kept.stream().filter(s -> s.contains("atomicrmw volatile add") && s.contains("seq_cst")).count(), kept::toString);
        assertEquals(1, kept.stream().filter(s -> s.contains("fence syncscope(\"singlethread\") acq_rel")).count(), kept::toString);
        try (DifferentialCheck c = DifferentialCheck.builder(m, "scoped", "scoped_v" + w, w)
            .params(ParamSpec.uniformPtr(ctx.i32(), 3, Direction.INOUT), ParamSpec.uniformPtr(ctx.i32(), 1, Direction.INOUT),
                ParamSpec.varying(ValueDomain.ints(-3, 3)))
            .build()) {
          CheckResult r = c.runMany(RUNS, 7 + w);
          assertTrue(r.passed(), r::report);
        }
      }
    }
  }

  /**
   * The oracle itself: W sequential scalar calls fix both the shared counter's final value and each
   * lane's old value, and the check must reject a packet function that gets either wrong.
   */
  @Test
  void checkerComparesOldValuesAndFinalMemory() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(CSources.text("atomics_wrong.ll").getBytes(), "atomics_wrong.ll")) {
      for (String packet : new String[] {"right", "same_old", "reversed", "lost_update"}) {
        try (DifferentialCheck c = DifferentialCheck.builder(m, "add", packet, 4)
            .params(ParamSpec.uniformPtr(ctx.i32(), 1, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(1, 100)))
            .build()) {
          CheckResult r = c.runMany(10, 3);
          switch (packet) {
            case "right" -> assertTrue(r.passed(), r::report);
            case "same_old", "reversed" -> {
              assertFalse(r.passed(), packet);
              assertTrue(r.mismatches().stream().allMatch(x -> x.where().startsWith("return value")), r::report);
            }
            default -> {
              assertFalse(r.passed(), packet);
              assertTrue(r.mismatches().stream().anyMatch(x -> x.where().startsWith("buffer")), r::report);
            }
          }
        }
      }
    }
  }
}
