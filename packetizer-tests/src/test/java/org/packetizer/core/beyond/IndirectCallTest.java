package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Indirect calls with varying arguments and varying or uniform callees (issue 14 §2), on
 * {@code beyond/indirect.c} compiled by the bundled clang with plain {@code -O1} and {@code -O2}
 * (no project flags: the foreign path). Every lane calls its own target; targets with a packet
 * version (the table's static functions) are called once for all their lanes; the others (external
 * functions) one lane at a time in lane order — checked with the recorded calls compared in order
 * where only such targets are involved. Differential execution at W = 4, 8, 16, unmasked and masked.
 */
class IndirectCallTest {
  static final int RUNS = 40;

  static LlvmModule compilePlain(LlvmContext ctx, String resource, String opt) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-indirect-");
      Files.writeString(dir.resolve(resource), CSources.text(resource));
      BundledClang.locate().compileToBitcode(dir, Path.of(resource), Path.of("out.bc"), List.of(opt, "-fno-discard-value-names"));
      return ctx.load(Files.readAllBytes(dir.resolve("out.bc")), resource);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) {
        try (var s = Files.walk(dir)) {
          s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
          // a temporary folder
        }
      }
    }
  }

  static float extF(float x) { return x * 3.0f - 1.0f; }

  static float extG(float x) { return x / 2.0f + 7.0f; }

  static final MethodHandle EXT_F, EXT_G;

  static {
    try {
      EXT_F = MethodHandles.lookup().findStatic(IndirectCallTest.class, "extF", MethodType.methodType(float.class, float.class));
      EXT_G = MethodHandles.lookup().findStatic(IndirectCallTest.class, "extG", MethodType.methodType(float.class, float.class));
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int w, String kinds, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, simd);
  }

  static void check(LlvmModule m, String fn, int w, String kinds, boolean ordered, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      PacketizationResult r = packetize(m, fn, simd, w, kinds, masked);
      assertTrue(r.remarks().stream().anyMatch(x -> x.kind() == Remark.Kind.SCALARIZED_CALL && x.message().contains("indirect call")),
          r::summary);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      var b = DifferentialCheck.builder(m, fn, simd, w).params(ps).callsInLaneOrder(ordered)
          .recordCalls("record", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT))
          .recordCalls("record2", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT))
          .recordCalls("ext_f", FunctionDescriptor.of(ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_FLOAT), EXT_F)
          .recordCalls("ext_g", FunctionDescriptor.of(ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_FLOAT), EXT_G);
      try (DifferentialCheck c = b.build()) {
        CheckResult res = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + res.report() + "\n"
            + m.function(simd).orElseThrow().print());
      }
    }
  }

  static String ir(LlvmModule m, String fn) { return m.function(fn).orElseThrow().print(); }

  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "4,-O1", "8,-O1", "16,-O1"})
  void tableOfStaticFunctionsCallsTheirPacketVersions(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compilePlain(ctx, "indirect.c", opt)) {
      check(m, "dispatch", w, "vv", false, 10 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.ints(0, 7)));
      String ir = ir(m, "dispatch_v" + w);
      // each static target is called through its masked packet version, not lane by lane
      for (String f : List.of("op_neg", "op_sq", "op_half", "op_add1")) assertTrue(ir.contains("@" + f + ".packet" + w), () -> f + "\n" + ir);
    }
  }

  /** Only external targets: scalar calls, one lane at a time, in lane order (compared as a sequence). */
  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "8,-O1"})
  void externalTargetsAreCalledInLaneOrder(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compilePlain(ctx, "indirect.c", opt)) {
      check(m, "dispatch_ext", w, "vv", true, 20 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.ints(0, 7)));
      // the candidates are the table's entries: no packet versions of the other float(float) functions
      assertFalse(ir(m, "dispatch_ext_v" + w).contains(".packet"), () -> ir(m, "dispatch_ext_v" + w));
      check(m, "notify", w, "vv", true, 30 + w, ParamSpec.varying(ValueDomain.ints(-50, 50)), ParamSpec.varying(ValueDomain.ints(0, 7)));
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "16,-O1"})
  void mixedTargetsDivergenceAndLoops(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compilePlain(ctx, "indirect.c", opt)) {
      check(m, "dispatch_mixed", w, "vv", false, 40 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.ints(0, 7)));
      check(m, "dispatch_if", w, "vv", false, 50 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.ints(0, 7)));
      check(m, "dispatch_loop", w, "vv", false, 60 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.ints(0, 6)));
    }
  }

  /** A uniform selector: every lane has the same target, whose packet version is called once. */
  @ParameterizedTest(name = "W={0}")
  @CsvSource({"4", "8", "16"})
  void uniformCalleeWithAPacketVersion(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compilePlain(ctx, "indirect.c", "-O2")) {
      check(m, "dispatch", w, "vu", false, 70 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.uniform(ValueDomain.ints(0, 7)));
      check(m, "dispatch_ext", w, "vu", true, 80 + w, ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.uniform(ValueDomain.ints(0, 7)));
    }
  }
}
