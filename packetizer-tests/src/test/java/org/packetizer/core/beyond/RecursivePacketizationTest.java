package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.pipeline.CalleePacketizer;

/**
 * Recursive packetization (beyond-the-thesis §3, thesis 7.2): calls to functions defined in the
 * module call masked packet versions of them, made per call-site kinds — through chains, with side
 * effects under divergent control, with struct-of-arrays pointers — and recursive functions call their
 * own packet version. A callee that cannot be packetized falls back to one guarded scalar call per
 * lane. Every case is checked lane by lane (results, memory, {@code record()} calls) at W=4, 8, 16,
 * unmasked and masked. Source: {@code beyond/calls.c}.
 */
class RecursivePacketizationTest {
  static final int RUNS = 30;

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int w, String kinds, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, simd);
  }

  static String ir(LlvmModule m, String fn) { return m.function(fn).orElseThrow().print(); }

  static String version(String callee, String kinds, int w) {
    return CalleePacketizer.versionName(callee, ParamKind.parseLetters(kinds), w);
  }

  /** Checks the unmasked and the masked packet function of {@code fn} against the scalar one. */
  static void checkBoth(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      List<ParamSpec> ps = new java.util.ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      var b = DifferentialCheck.builder(m, fn, simd, w).params(ps);
      if (m.function("record").isPresent()) b.recordCalls("record", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
      try (DifferentialCheck c = b.build()) {
        CheckResult res = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + res.report() + "\n" + ir(m, simd));
      }
    }
  }

  static PacketizationResult[] both(LlvmModule m, String fn, int w, String kinds) {
    return new PacketizationResult[] {packetize(m, fn, fn + "_v" + w, w, kinds, false), packetize(m, fn, fn + "_m" + w, w, kinds, true)};
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void calleeWithSideEffectsUnderDivergentControl(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "side", w, "vl")) {
        assertEquals(0, r.scalarizedCalls(), r::summary);
        assertEquals(1, r.vectorCalls(), r::summary);
      }
      String note = version("note", "lv", w); // i stays linear in the callee
      assertTrue(ir(m, "side_v" + w).contains("@" + note + "("), () -> ir(m, "side_v" + w));
      // the callee's record() calls are guarded per lane inside its packet version
      assertTrue(ir(m, note).contains("@record("));
      checkBoth(m, "side", w, "vl", 100 + w, ParamSpec.varying(ValueDomain.floats(-2, 3)), ParamSpec.linear(1, ValueDomain.ints(0, 50)));
    }
  }

  /** A linear argument stays linear in the callee: out[i] there is a (masked) vector store, not a scatter. */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void linearArgumentStaysLinearInTheCallee(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "put_user", w, "ulv")) assertEquals(1, r.vectorCalls(), r::summary);
      String put = version("put", "ulv", w);
      String ir = ir(m, put);
      assertTrue(ir.contains("llvm.masked.store") && !ir.contains("scatter"), ir);
      checkBoth(m, "put_user", w, "ulv", 150 + w, ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.INOUT),
          ParamSpec.linear(1, ValueDomain.ints(0, 15)), ParamSpec.varying(ValueDomain.floats(-2, 2)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void chainOfCallees(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "chain_a", w, "vv")) assertEquals(0, r.scalarizedCalls(), r::summary);
      String b = version("chain_b", "vv", w);
      String c = version("chain_c", "v", w);
      assertTrue(ir(m, "chain_a_v" + w).contains("@" + b + "(") && ir(m, "chain_a_v" + w).contains("@" + c + "("));
      assertTrue(ir(m, b).contains("@" + c + "("), () -> ir(m, b));
      assertFalse(ir(m, b).contains("@chain_c("), "B calls C's packet version, not the scalar C");
      checkBoth(m, "chain_a", w, "vv", 200 + w, ParamSpec.varying(ValueDomain.floats(-4, 8)), ParamSpec.varying(ValueDomain.ints(0, 6)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void calleeTakingAStructOfArraysPointer(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "soa_user", w, "sv")) assertEquals(0, r.scalarizedCalls(), r::summary);
      String bump = version("bump", "sv", w);
      assertTrue(ir(m, "soa_user_v" + w).contains("@" + bump + "("), () -> ir(m, "soa_user_v" + w));
      var particle = KernelChecks.parseType(ctx, "{ float, float, i32 }");
      checkBoth(m, "soa_user", w, "sv", 300 + w, ParamSpec.soaPtr(particle, 1, Direction.INOUT),
          ParamSpec.varying(ValueDomain.floats(-3, 3)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void calleeThatCannotBePacketizedFallsBackToScalarCalls(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "fallback_user", w, "v")) {
        assertEquals(1, r.scalarizedCalls(), r::summary);
        assertTrue(r.remarks().stream().anyMatch(x -> x.kind() == Remark.Kind.SCALARIZED_CALL && x.message().contains("@opaque")));
      }
      assertTrue(ir(m, "fallback_user_v" + w).contains("call i32 @opaque("));
      // the failed attempt left nothing behind
      for (Function f : m.functions()) assertFalse(f.name().contains("opaque.packet") || f.name().startsWith("__packetizer"), f.name());
      checkBoth(m, "fallback_user", w, "v", 400 + w, ParamSpec.varying(ValueDomain.ints(-10, 10)));
    }
  }

  /** fib calls fib twice (once after clang's tail-recursion elimination): its packet version calls itself. */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void directRecursionCallsItsOwnPacketVersion(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      PacketizationResult[] rs = both(m, "fib", w, "v");
      for (PacketizationResult r : rs) assertEquals(0, r.scalarizedCalls(), r::summary);
      String fibM = version("fib", "v", w);
      // the unmasked packet function calls the masked version, which calls itself
      assertTrue(ir(m, "fib_v" + w).contains("@" + fibM + "("));
      assertTrue(ir(m, fibM).contains("call <" + w + " x i32> @" + fibM + "("), () -> ir(m, fibM));
      assertFalse(ir(m, fibM).contains("@fib("), "no scalar calls left");
      // the masked top-level function is itself the version for kinds "v": it calls itself
      assertTrue(ir(m, "fib_m" + w).contains("call <" + w + " x i32> @fib_m" + w + "("), () -> ir(m, "fib_m" + w));
      checkBoth(m, "fib", w, "v", 500 + w, ParamSpec.varying(ValueDomain.ints(-2, 14)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void recursionWithUniformAndVaryingKinds(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      // step uniform: the recursive call keeps "vu"
      both(m, "sumdown", w, "vu");
      String vu = version("sumdown", "vu", w);
      assertTrue(ir(m, vu).contains("@" + vu + "("), () -> ir(m, vu));
      checkBoth(m, "sumdown", w, "vu", 600 + w, ParamSpec.varying(ValueDomain.ints(-3, 40)), ParamSpec.uniform(ValueDomain.ints(1, 4)));
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      // x uniform at the top, but x - step is varying: the recursive call needs (and makes) "vv"
      packetize(m, "sumdown", "sumdown_v" + w, w, "uv", false);
      packetize(m, "sumdown", "sumdown_m" + w, w, "uv", true);
      String vv = version("sumdown", "vv", w);
      assertTrue(ir(m, "sumdown_v" + w).contains("@" + vv + "("));
      assertTrue(ir(m, vv).contains("@" + vv + "("), () -> ir(m, vv));
      checkBoth(m, "sumdown", w, "uv", 650 + w, ParamSpec.uniform(ValueDomain.ints(-3, 40)), ParamSpec.varying(ValueDomain.ints(1, 4)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void recursionWithSideEffects(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "countdown", w, "v")) {
        assertEquals(1, r.vectorCalls(), r::summary); // countdown itself; the record() calls stay scalar
        assertEquals(2, r.scalarizedCalls(), r::summary);
      }
      String v = version("countdown", "v", w);
      assertTrue(ir(m, v).contains("@" + v + "("), () -> ir(m, v));
      checkBoth(m, "countdown", w, "v", 700 + w, ParamSpec.varying(ValueDomain.ints(-2, 9)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void mutualRecursion(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "calls.c")) {
      for (PacketizationResult r : both(m, "is_even", w, "v")) assertEquals(0, r.scalarizedCalls(), r::summary);
      String odd = version("is_odd", "v", w);
      String even = version("is_even", "v", w);
      assertTrue(ir(m, "is_even_v" + w).contains("@" + odd + "("));
      assertTrue(ir(m, odd).contains("@" + even + "("), () -> ir(m, odd));
      assertTrue(ir(m, even).contains("@" + odd + "("), () -> ir(m, even));
      checkBoth(m, "is_even", w, "v", 800 + w, ParamSpec.varying(ValueDomain.ints(0, 40)));
    }
  }
}
