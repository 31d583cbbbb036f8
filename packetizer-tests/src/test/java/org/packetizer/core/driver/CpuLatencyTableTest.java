package org.packetizer.core.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The interleave rule on an Intel AVX-512 host (issue 16, eighteenth round): the latency table per CPU family
 * ({@link Latency#family}: Intel's vector integer multiply is 10 cycles for 32-bit elements where Zen 4's is 3), and the
 * target the rule reads — the options' CPU and features before the function's attributes, with the registers the CPU
 * implies (a generic clang {@code -O2} bitcode retargeted by a CPU name alone keeps its x86-64 baseline attributes).
 */
class CpuLatencyTableTest {
  static final String IR = """
      define i32 @m32(i32 %a, i32 %b) {
        %r = mul i32 %a, %b
        ret i32 %r
      }
      define i16 @m16(i16 %a, i16 %b) {
        %r = mul i16 %a, %b
        ret i16 %r
      }
      define i64 @m64(i64 %a, i64 %b) {
        %r = mul i64 %a, %b
        ret i64 %r
      }
      define i32 @m33(i32 %a) {
        %r = mul i32 %a, 33
        ret i32 %r
      }
      define i32 @m31(i32 %a) {
        %r = mul i32 31, %a
        ret i32 %r
      }
      define float @fa(float %a, float %b) {
        %r = fadd float %a, %b
        ret float %r
      }
      define float @fm(float %a, float %b) {
        %r = fmul float %a, %b
        ret float %r
      }
      """;

  /** A foreign kernel: FNV-1a over a lane's byte range (the recurrence is an xor and a 32-bit multiply), clang -O2. */
  static final String FNV = """
      unsigned fnv(const unsigned char *s, int start, int len) {
        unsigned h = 2166136261u;
        for (int k = 0; k < len; ++k) h = (h ^ s[start + k]) * 16777619u;
        return h ^ (h >> 15);
      }
      """;

  static Value first(Function f) {
    return f.blocks().get(0).instructions().get(0);
  }

  @ParameterizedTest(name = "cpu={0}")
  @CsvSource({"sapphirerapids, INTEL", "skylake-avx512, INTEL", "haswell, INTEL", "icelake-server, INTEL", "alderlake, INTEL",
      "znver4, GENERIC", "znver3, GENERIC", "x86-64, GENERIC", "x86-64-v4, GENERIC", "'', GENERIC", "SapphireRapids, INTEL"})
  void theFamilyFollowsTheCpuName(String cpu, Latency.Family family) {
    assertEquals(family, Latency.family(cpu, false));
    assertEquals(Latency.Family.ARM, Latency.family(cpu, true));
  }

  @Test
  void theKnobKeepsTheGenericTable() {
    System.setProperty("packetizer.latency.perCpu", "false");
    try {
      assertEquals(Latency.Family.GENERIC, Latency.family("sapphirerapids", false));
    } finally {
      System.clearProperty("packetizer.latency.perCpu");
    }
    assertEquals(Latency.Family.GENERIC, Latency.family(null, false));
    assertEquals(Latency.Family.INTEL, Latency.family("sapphirerapids", false));
  }

  @Test
  void integerMultiplyLatencyPerFamily() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "lat")) {
      // Intel (uops.info / Agner Fog: vpmullw 5, vpmulld 10, vpmullq 15; a multiply by 2^k+-1 is a shift and an add)
      double[] intel = {10, 5, 15, 2, 2};
      // generic and Zen 4 (vpmull* 3): the table as it was
      double[] generic = {3, 3, 3, 3, 3};
      String[] fns = {"m32", "m16", "m64", "m33", "m31"};
      for (int i = 0; i < fns.length; i++) {
        Value mul = first(m.function(fns[i]).orElseThrow());
        assertEquals(Opcode.MUL, mul.opcode());
        assertEquals(intel[i], Latency.of(mul, Latency.Family.INTEL), fns[i]);
        assertEquals(generic[i], Latency.of(mul, Latency.Family.GENERIC), fns[i]);
        assertEquals(3, Latency.of(mul, Latency.Family.ARM), fns[i]);
        assertEquals(generic[i], Latency.of(mul, false), fns[i]);
      }
      // the float entries are the same table for every x86 family (checked, not changed: docs/performance.md)
      for (String fn : List.of("fa", "fm")) {
        Value op = first(m.function(fn).orElseThrow());
        assertEquals(Latency.of(op, Latency.Family.GENERIC), Latency.of(op, Latency.Family.INTEL), fn);
      }
      assertEquals(3, Latency.of(first(m.function("fa").orElseThrow()), Latency.Family.INTEL));
      assertEquals(4, Latency.of(first(m.function("fm").orElseThrow()), Latency.Family.INTEL));
    }
  }

  /**
   * The registers and latencies the rule reads on a generic clang -O2 bitcode (target-cpu x86-64, baseline features)
   * retargeted by a CPU name alone: 32 registers of 512 bits for the AVX-512 CPUs, 16 of 256 for haswell; the FNV
   * recurrence 11 cycles on Intel (xor 1 + vpmulld 10), 4 on znver4; refill IC 2 on Intel, 1 on znver4 (its decision
   * unchanged); the plain driver's rule likewise.
   */
  @ParameterizedTest(name = "cpu={0}")
  @CsvSource({"sapphirerapids, 32, 512, 11.0, 2", "skylake-avx512, 32, 512, 11.0, 2", "znver4, 32, 512, 4.0, 1",
      "haswell, 16, 256, 11.0, 2"})
  void aCpuNameAloneGivesItsRegistersAndLatencies(String cpu, int registers, int bits, double latency, int refillIc) {
    byte[] bc = BundledClang.locate().compileToBitcode(FNV, "fnv.c", List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "fnv")) {
      Function f = m.function("fnv").orElseThrow();
      assertEquals("x86-64", f.stringAttribute("target-cpu").orElse(""), "generic bitcode");
      Interleave.Registers r = Interleave.registers(f, cpu, null);
      assertEquals(registers, r.count(), cpu);
      assertEquals(bits, r.bits(), cpu);
      List<ParamKind> kinds = ParamKind.parseLetters("uvv");
      Interleave.Choice refill = Interleave.chooseForRefill(f, 8, 0, kinds, cpu, null);
      String d = refill.describe(8);
      assertTrue(d.contains("of " + registers + " vector registers"), d);
      Interleave.LoopEstimate loop = refill.loops().get(0);
      assertEquals(latency, loop.latency(), d);
      assertEquals(refillIc, refill.factor(), d);
      // without the CPU the rule reads the function's own attributes: x86-64, SSE (16 registers of 128 bits)
      Interleave.Choice own = Interleave.chooseForRefill(f, 8, 0, kinds);
      assertTrue(own.describe(8).contains("of 16 vector registers"), own.describe(8));
      // the plain driver's rule (data-dependent exit charged) sees the same target
      Interleave.Choice plain = Interleave.choose(f, 8, 0, kinds, null, cpu, null);
      assertTrue(plain.describe(8).contains("of " + registers + " vector registers"), plain.describe(8));
      assertEquals(latency, plain.loops().get(0).latency());
      // features switching AVX-512 off leave 16 registers on an AVX-512 CPU
      if (registers == 32) {
        assertEquals(16, Interleave.registers(f, cpu, "-avx512f").count(), cpu);
      }
    }
  }
}
