package org.packetizer.core.foreign;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Issue #19, part 1: varying loads and stores through {@code ptr addrspace(1)} (C's
 * {@code __attribute__((address_space(1)))}, compiled by clang at plain -O1/-O2). The masked
 * load/store and gather/scatter intrinsics are overloaded on the pointer's own type; before, they
 * were declared for address space 0 and the packetization failed with an internal error. On x86-64
 * address space 1 is ordinary memory, so the JIT runs it: differential check at W=4, 8, 16, masked
 * and unmasked, with gathers/scatters and with the thesis' if-cascade.
 */
class AddressSpaceTest {
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String opt : new String[] {"-O1", "-O2"}) for (int w : new int[] {4, 8, 16}) out.add(Arguments.of(opt, w));
    return out.stream();
  }

  static void packetizeAndCheck(LlvmModule m, String fn, int w, String kinds, MemoryStrategy ms, List<ParamSpec> specs,
      java.util.function.Consumer<PacketizationResult> expect) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w + "_" + ms.name().toLowerCase(java.util.Locale.ROOT);
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked)
          .memoryStrategy(ms).verifyEachPhase(true).build()).run(m, fn, simd);
      expect.accept(r);
      List<ParamSpec> ps = new ArrayList<>(specs);
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult res = c.runMany(40, 1000L + w);
        assertTrue(res.passed(), () -> simd + ":\n" + res.report() + "\n" + m.function(simd).orElseThrow().print());
      }
    }
  }

  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void gathersScattersAndMaskedAccessesThroughAddressSpace1(String opt, int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "addrspace.c", opt)) {
      assertTrue(m.function("gather_as1").orElseThrow().print().contains("ptr addrspace(1)"), "clang kept address space 1");
      for (MemoryStrategy ms : MemoryStrategy.values()) {
        boolean gathers = ms != MemoryStrategy.CASCADE;
        packetizeAndCheck(m, "gather_as1", w, "uv", ms,
            List.of(ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.IN), ParamSpec.varying(ValueDomain.ints(0, 60))),
            r -> assertEquals(gathers ? 2 : 0, r.gathers(), r::summary));
        packetizeAndCheck(m, "scatter_as1", w, "ulv", ms,
            List.of(ParamSpec.uniformPtr(ctx.i32(), 64, Direction.INOUT), ParamSpec.linear(1, ValueDomain.ints(0, 40)),
                ParamSpec.varying(ValueDomain.ints(-5, 5))),
            r -> assertEquals(gathers ? 1 : 0, r.scatters(), r::summary));
        // i is linear: out[i] and in[i] are consecutive (masked vector accesses under the branch)
        packetizeAndCheck(m, "consecutive_as1", w, "uulv", ms,
            List.of(ParamSpec.uniformPtr(ctx.floatType(), 48, Direction.INOUT), ParamSpec.uniformPtr(ctx.floatType(), 48, Direction.IN),
                ParamSpec.linear(1, ValueDomain.ints(0, 48 - w)), ParamSpec.varying(ValueDomain.floats(-3, 3))),
            r -> assertTrue(r.vectorLoads() >= 2 && r.vectorStores() >= 1, r::summary));
      }
    }
  }

  /**
   * Composite values (vectors, SLP's {@code <4 x float>}) through {@code ptr addrspace(1)}: the
   * per-element gathers/scatters, the wide masked load/store of a consecutive vector, and the
   * struct-of-arrays leaf accesses (masked vector access through a uniform object pointer,
   * gather/scatter through one that differs per lane) were declared for address space 0 — an
   * internal error ("Intrinsic called with incompatible signature") before the fix.
   */
  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void compositeAndStructOfArraysAccessesThroughAddressSpace1(String opt, int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "addrspace.c", opt)) {
      if (opt.equals("-O2")) {
        assertTrue(m.function("soa_vec4_as1").orElseThrow().print().contains("<4 x float>, ptr addrspace(1)"), "clang's SLP kept a <4 x float> in address space 1");
      }
      var v2f = ctx.floatType().vectorOf(2);
      for (MemoryStrategy ms : MemoryStrategy.values()) {
        boolean gathers = ms != MemoryStrategy.CASCADE;
        packetizeAndCheck(m, "vec_scatter_as1", w, "uvv", ms,
            List.of(ParamSpec.uniformPtr(v2f, 16, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(-40, 40)),
                ParamSpec.varying(ValueDomain.floats(-3, 3))),
            r -> assertEquals(gathers ? 2 : 0, r.scatters(), r::summary));
        packetizeAndCheck(m, "vec_gather_as1", w, "uv", ms,
            List.of(ParamSpec.uniformPtr(v2f, 16, Direction.IN), ParamSpec.varying(ValueDomain.ints(-40, 40))),
            r -> assertEquals(gathers ? 2 : 0, r.gathers(), r::summary));
        packetizeAndCheck(m, "vec_consecutive_as1", w, "ulv", ms,
            List.of(ParamSpec.uniformPtr(v2f, 40, Direction.INOUT), ParamSpec.linear(1, ValueDomain.ints(0, 40 - w)),
                ParamSpec.varying(ValueDomain.floats(-3, 3))),
            r -> assertTrue(r.vectorLoads() >= 1 && r.vectorStores() >= 1, r::summary));
        var q = ctx.structType(List.of(ctx.floatType().arrayOf(4), ctx.floatType().arrayOf(4)), false);
        packetizeAndCheck(m, "soa_vec4_as1", w, "svv", ms,
            List.of(ParamSpec.soaPtr(q, 1, Direction.INOUT), ParamSpec.varying(ValueDomain.floats(-3, 3)),
                ParamSpec.varying(ValueDomain.ints(0, 3))),
            r -> assertTrue(r.vectorStores() >= 1 && (gathers ? r.scatters() >= 1 : r.scatters() == 0), r::summary));
      }
    }
  }
}
