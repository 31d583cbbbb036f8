package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Paired table lookups {@code t[i]}, {@code t[i + 1]} (issue 16, noise3: {@code beyond/paired_lookup.c},
 * plain {@code -O1}/{@code -O2}): one 8-byte access per lane and a split instead of two lookups.
 * Differential at W=4, 8, 16 on x86-64-v2, haswell and znver4, unmasked and masked packet functions,
 * tables by pointer in guarded memory (a pair may end at the table's last byte). Structure: noise-style
 * hashing has its 14 lookups as 7 pairs (7 gathers of 8-byte elements on znver4, 8-byte scalar loads
 * on haswell), none with the knob off; a pair under a divergent branch is not paired.
 */
class PairedLookupTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.PlainC#widthCpuOptCases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "paired_lookup.c", opt)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      TableLookupTest.check(m, "pair_hash", w, cpu, "vvv", 10 + w, x, x, x);
      TableLookupTest.check(m, "pair_param", w, cpu, "uv", 20 + w, ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.IN), x);
      TableLookupTest.check(m, "pair_divergent", w, cpu, "uv", 30 + w, ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.IN), x);
    }
  }

  private static String packetize(LlvmModule m, String fn, String params, int w, String cpu, List<Remark> remarks) {
    new Packetizer(PacketizerOptions.builder().width(w).params(params).targetCpu(cpu).remarks(remarks::add).build()).run(m, fn, fn + "_" + cpu.replace('-', '_') + w);
    return m.function(fn + "_" + cpu.replace('-', '_') + w).orElseThrow().print();
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
    return n;
  }

  @Test
  void noiseHashingLoadsSevenPairs() {
    for (String opt : List.of("-O1", "-O2")) {
      for (boolean on : new boolean[] {true, false}) {
        String saved = System.setProperty("packetizer.pairedLookups", Boolean.toString(on));
        // (the permute routes off: since the nineteenth round the run decides for the options' znver4 and haswell, whose
        // VBMI / AVX2 permutes take the constant table otherwise, as in modules compiled for them; this test is about
        // the pairs)
        String savedPermute = System.setProperty("packetizer.permuteLookups", "false");
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "paired_lookup.c", opt)) {
          List<Remark> remarks = new ArrayList<>();
          String z = packetize(m, "pair_hash", "vvv", 16, "znver4", remarks);
          String where = opt + " knob " + on + ":\n" + z;
          long pairs = remarks.stream().filter(r -> r.message().startsWith("table lookups t[i] and t[i + 1]")).count();
          assertEquals(on ? 7 : 0, pairs, where);
          assertEquals(on ? 7 : 0, count(z, "call <16 x i64> @llvm.masked.gather.v16i64"), where);
          assertEquals(on ? 0 : 14, count(z, "call <16 x i32> @llvm.masked.gather.v16i32"), where);
          String h = packetize(m, "pair_hash", "vvv", 8, "haswell", new ArrayList<>());
          assertEquals(on ? 0 : 1, Math.min(1, count(h, "load i32, ptr")), opt + " haswell knob " + on + ":\n" + h);
          if (on) assertTrue(count(h, "load i64, ptr") >= 8, h);
          // under the divergent branch: not paired (a partial mask); after the join: paired
          List<Remark> dr = new ArrayList<>();
          String d = packetize(m, "pair_divergent", "uv", 8, "haswell", dr);
          assertEquals(on ? 1 : 0, dr.stream().filter(r -> r.message().startsWith("table lookups t[i] and t[i + 1]")).count(), d);
        } finally {
          if (saved == null) System.clearProperty("packetizer.pairedLookups");
          else System.setProperty("packetizer.pairedLookups", saved);
          if (savedPermute == null) System.clearProperty("packetizer.permuteLookups");
          else System.setProperty("packetizer.permuteLookups", savedPermute);
        }
      }
    }
  }
}
