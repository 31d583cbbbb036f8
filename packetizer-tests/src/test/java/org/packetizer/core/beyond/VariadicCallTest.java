package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * Calls of variadic functions with varying arguments ({@code beyond/variadic.c}, plain {@code -O1} and
 * {@code -O2}): a variadic function of the module, libc's {@code snprintf} into per-lane buffers, and an
 * unprototyped callee — each under a divergent branch. They become one call per active lane, in lane
 * order, with the scalar call's promoted arguments and function type. The check records every call of
 * {@code record} and {@code legacy} and compares the logs in order ({@code callsInLaneOrder}). Before:
 * "cannot packetize a call to the variadic function @note with varying arguments".
 */
class VariadicCallTest {
  static final int RUNS = 40;

  static int legacy(int x, double f) { return x * 3 + (int) (f * 8); }

  static void checkBoth(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) throws ReflectiveOperationException {
    var legacyImpl = MethodHandles.lookup().findStatic(VariadicCallTest.class, "legacy", MethodType.methodType(int.class, int.class, double.class));
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build()).run(m, fn, simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps)
          .recordCalls("record", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT))
          .recordCalls("legacy", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_DOUBLE), legacyImpl)
          .callsInLaneOrder(true)
          .build()) {
        CheckResult r = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(r.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + r.report() + "\n" + m.function(simd).orElseThrow().print());
      }
    }
  }

  static List<String> calls(LlvmModule m, String fn, String callee) {
    List<String> out = new ArrayList<>();
    for (var b : m.function(fn).orElseThrow().blocks()) {
      for (Value i : b.instructions()) if (i.opcode() == Opcode.CALL && i.print().contains("@" + callee + "(")) out.add(i.print());
    }
    return out;
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("org.packetizer.core.beyond.AtomicsTest#widthsAndLevels")
  void variadicCallsInLaneOrder(int w, String opt) throws ReflectiveOperationException {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "variadic.c", opt)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-40, 40));
      checkBoth(m, "log_ints", w, "v", 10 + w, x);
      checkBoth(m, "log_promoted", w, "vv", 20 + w, x, ParamSpec.varying(ValueDomain.floats(-100, 100)));
      checkBoth(m, "call_legacy", w, "vv", 30 + w, ParamSpec.varying(ValueDomain.ints(-3, 3)), ParamSpec.varying(ValueDomain.floats(-100, 100)));
      checkBoth(m, "format", w, "vvv", 40 + w, ParamSpec.varyingPtr(ctx.i8(), 40, Direction.INOUT), x,
          ParamSpec.varying(ValueDomain.floats(-1000, 1000)));
      // W guarded calls, each with the scalar call's function type and promoted arguments
      List<String> nf = calls(m, "log_promoted_v" + w, "notef");
      assertEquals(w, nf.size(), () -> m.function("log_promoted_v" + w).orElseThrow().print());
      for (String c : nf) assertTrue(c.contains("double (ptr, ...) @notef(ptr") && c.contains(", double "), c);
      List<String> lg = calls(m, "call_legacy_v" + w, "legacy");
      assertEquals(w, lg.size());
      for (String c : lg) assertTrue(c.contains("i32 (i32, double, ...) @legacy(i32"), c);
    }
  }

  /** The order comparison itself: calls in the wrong lane order pass as a multiset and fail in order. */
  @org.junit.jupiter.api.Test
  void checkerComparesCallOrder() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(CSources.text("calls_order.ll").getBytes(), "calls_order.ll")) {
      for (boolean ordered : new boolean[] {false, true}) {
        try (DifferentialCheck c = DifferentialCheck.builder(m, "rec", "reversed", 4)
            .params(ParamSpec.varying(ValueDomain.ints(0, 1000)))
            .recordCalls("record", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT))
            .callsInLaneOrder(ordered)
            .build()) {
          CheckResult r = c.runMany(5, 1);
          assertEquals(!ordered, r.passed(), r::report);
          if (ordered) assertTrue(r.report().contains("in lane order"), r::report);
        }
      }
    }
  }
}
