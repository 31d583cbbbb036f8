package org.packetizer.core.driver;

import org.packetizer.core.wrapper.Latency;
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
  /** A function {@code name} of one instruction, {@code %r = op ty lhs, rhs} (operands {@code %a}, {@code %b} or constants). */
  static String binary(String name, String op, String ty, String lhs, String rhs) {
    String params = ty + " %a" + (lhs.equals("%b") || rhs.equals("%b") ? ", " + ty + " %b" : "");
    return "define " + ty + " @" + name + "(" + params + ") {\n  %r = " + op + " " + ty + " " + lhs + ", " + rhs + "\n  ret " + ty
        + " %r\n}\n";
  }

  /** Multiplies of 32, 16 and 64-bit integers, by 33 and 31 (2^k+-1; 31 as the first operand), a float add and multiply. */
  static final String IR = binary("m32", "mul", "i32", "%a", "%b") + binary("m16", "mul", "i16", "%a", "%b")
      + binary("m64", "mul", "i64", "%a", "%b") + binary("m33", "mul", "i32", "%a", "33") + binary("m31", "mul", "i32", "31", "%a")
      + binary("fa", "fadd", "float", "%a", "%b") + binary("fm", "fmul", "float", "%a", "%b");

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

  /**
   * The family per CPU name: Intel's cores from Haswell INTEL; the generic names by LLVM's scheduling model for them
   * (the bundled {@code llvm-mca -mcpu=NAME} on {@code pmulld}: x86-64, x86-64-v2, generic and none 5 cycles, LLVM's
   * Sandy Bridge model; x86-64-v3 and -v4 10, its Haswell and Skylake-server models), and the cores before Haswell that
   * LLVM models as Sandy Bridge; Zen and unknown names GENERIC; null (no CPU known) GENERIC.
   */
  @ParameterizedTest(name = "cpu={0}")
  @CsvSource({"sapphirerapids, INTEL", "skylake-avx512, INTEL", "haswell, INTEL", "icelake-server, INTEL", "alderlake, INTEL",
      "SapphireRapids, INTEL", "x86-64-v3, INTEL", "x86-64-v4, INTEL", "X86-64-V4, INTEL",
      "x86-64, SANDY_BRIDGE", "x86-64-v2, SANDY_BRIDGE", "generic, SANDY_BRIDGE", "'', SANDY_BRIDGE", "sandybridge, SANDY_BRIDGE",
      "nehalem, SANDY_BRIDGE", "znver4, GENERIC", "znver3, GENERIC", "btver2, GENERIC", "no-such-cpu, GENERIC"})
  void theFamilyFollowsTheCpuName(String cpu, Latency.Family family) {
    assertEquals(family, Latency.family(cpu, false));
    assertEquals(Latency.Family.ARM, Latency.family(cpu, true));
  }

  /** {@code System.setProperty(property, value)} around {@code r}, the property's value restored after. */
  static void withKnob(String property, String value, Runnable r) {
    String before = System.getProperty(property);
    System.setProperty(property, value);
    try {
      r.run();
    } finally {
      if (before == null) System.clearProperty(property);
      else System.setProperty(property, before);
    }
  }

  @Test
  void theKnobsKeepTheEarlierTables() {
    // perCpu=false: every x86 name the single table of the seventeenth round
    withKnob("packetizer.latency.perCpu", "false", () -> {
      for (String cpu : List.of("sapphirerapids", "x86-64-v2", "x86-64-v3")) assertEquals(Latency.Family.GENERIC, Latency.family(cpu, false), cpu);
    });
    // genericNames=generic: the eighteenth round's rule (generic names and the cores before Haswell GENERIC)
    withKnob("packetizer.latency.genericNames", "generic", () -> {
      for (String cpu : List.of("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "", "sandybridge")) {
        assertEquals(Latency.Family.GENERIC, Latency.family(cpu, false), cpu);
      }
      assertEquals(Latency.Family.INTEL, Latency.family("sapphirerapids", false));
    });
    withKnob("packetizer.latency.genericNames", "host", () ->
        assertThrows(IllegalArgumentException.class, () -> Latency.family("x86-64", false)));
    assertEquals(Latency.Family.GENERIC, Latency.family(null, false));
    assertEquals(Latency.Family.INTEL, Latency.family("sapphirerapids", false));
    assertEquals(Latency.Family.SANDY_BRIDGE, Latency.family("x86-64-v2", false));
  }

  @Test
  void integerMultiplyLatencyPerFamily() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "lat")) {
      // Intel (uops.info / Agner Fog: vpmullw 5, vpmulld 10, vpmullq 15; a multiply by 2^k+-1 is a shift and an add)
      double[] intel = {10, 5, 15, 2, 2};
      // LLVM's Sandy Bridge model (pmulld / pmullw 5; 64-bit: pmuludq 5 and a shift and an add, 7)
      double[] sandyBridge = {5, 5, 7, 2, 2};
      // generic and Zen 4 (vpmull* 3): the table as it was
      double[] generic = {3, 3, 3, 3, 3};
      String[] fns = {"m32", "m16", "m64", "m33", "m31"};
      for (int i = 0; i < fns.length; i++) {
        Value mul = first(m.function(fns[i]).orElseThrow());
        assertEquals(Opcode.MUL, mul.opcode());
        assertEquals(intel[i], Latency.of(mul, Latency.Family.INTEL), fns[i]);
        assertEquals(sandyBridge[i], Latency.of(mul, Latency.Family.SANDY_BRIDGE), fns[i]);
        assertEquals(generic[i], Latency.of(mul, Latency.Family.GENERIC), fns[i]);
        assertEquals(3, Latency.of(mul, Latency.Family.ARM), fns[i]);
        assertEquals(generic[i], Latency.of(mul, false), fns[i]);
      }
      // one table (twenty-third round): the packet function's multiply rewrite reads the same latencies as the rule, a
      // 64-bit element as vpmullq where the target has AVX-512 (the rule's assumption), emulated otherwise
      for (Latency.Family fam : List.of(Latency.Family.INTEL, Latency.Family.SANDY_BRIDGE, Latency.Family.GENERIC)) {
        org.packetizer.core.ir.CpuFamily cf = org.packetizer.core.ir.CpuFamily.valueOf(fam.name());
        for (String fn : List.of("m32", "m64")) {
          Value mul = first(m.function(fn).orElseThrow());
          int bits = mul.type().intWidth();
          assertEquals(Latency.of(mul, fam), org.packetizer.core.widen.MulShifts.multiplyLatency(cf, bits, true), fam + " " + fn);
          assertEquals(Latency.of(mul, fam), cf.multiplyLatency(bits, true), fam + " " + fn);
        }
      }
      // 64-bit elements emulated (three pmuludq, shifts and adds): Intel 9, Zen 6, LLVM's Sandy Bridge model 7
      assertEquals(9, org.packetizer.core.widen.MulShifts.multiplyLatency(org.packetizer.core.ir.CpuFamily.INTEL, 64, false));
      assertEquals(6, org.packetizer.core.widen.MulShifts.multiplyLatency(org.packetizer.core.ir.CpuFamily.GENERIC, 64, false));
      assertEquals(7, org.packetizer.core.widen.MulShifts.multiplyLatency(org.packetizer.core.ir.CpuFamily.SANDY_BRIDGE, 64, false));
      // AArch64: not modelled by the rewrite (0: never pays), 3 in the rule's table
      assertEquals(0, org.packetizer.core.widen.MulShifts.multiplyLatency(org.packetizer.core.ir.CpuFamily.ARM, 32, false));
      // the float entries are the same table for every x86 family (checked, not changed: docs/performance.md)
      for (String fn : List.of("fa", "fm")) {
        Value op = first(m.function(fn).orElseThrow());
        assertEquals(Latency.of(op, Latency.Family.GENERIC), Latency.of(op, Latency.Family.INTEL), fn);
        assertEquals(Latency.of(op, Latency.Family.GENERIC), Latency.of(op, Latency.Family.SANDY_BRIDGE), fn);
      }
      assertEquals(3, Latency.of(first(m.function("fa").orElseThrow()), Latency.Family.INTEL));
      assertEquals(4, Latency.of(first(m.function("fm").orElseThrow()), Latency.Family.INTEL));
    }
  }

  /** {@code body} on the FNV kernel compiled by the bundled clang at -O2 for no CPU (generic x86-64 attributes). */
  static void withGenericFnv(java.util.function.Consumer<Function> body) {
    byte[] bc = BundledClang.locate().compileToBitcode(FNV, "fnv.c", List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "fnv")) {
      Function f = m.function("fnv").orElseThrow();
      assertEquals("x86-64", f.stringAttribute("target-cpu").orElse(""), "generic bitcode");
      body.accept(f);
    }
  }

  /**
   * The generic ISA levels named in the options, on the generic FNV bitcode: the recurrence (xor 1 + the multiply) 6
   * cycles on x86-64-v2 (LLVM's Sandy Bridge model, pmulld 5) and 11 on x86-64-v3/-v4 (its Haswell / Skylake-server
   * models, vpmulld 10); the plain rule's count at the bench's widths: 2 at W4 x86-64-v2 and W8 x86-64-v3, 1 at W16
   * x86-64-v4 (throughput 9.8 against 11); with {@code genericNames=generic} 4 cycles and 1 everywhere (the eighteenth
   * round's rule).
   */
  @ParameterizedTest(name = "W={1} cpu={0}")
  @CsvSource({"x86-64-v2, 4, 6.0, 2", "x86-64-v3, 8, 11.0, 2", "x86-64-v4, 16, 11.0, 1", "x86-64, 4, 6.0, 2"})
  void aGenericLevelTakesLlvmsModelForItsName(String cpu, int w, double latency, int ic) {
    withGenericFnv(f -> {
      List<ParamKind> kinds = ParamKind.parseLetters("uvv");
      Interleave.Choice plain = Interleave.choose(f, w, 0, kinds, null, cpu, null);
      assertEquals(latency, plain.loops().get(0).latency(), plain.describe(w));
      assertEquals(ic, plain.factor(), plain.describe(w));
      withKnob("packetizer.latency.genericNames", "generic", () -> {
        Interleave.Choice before = Interleave.choose(f, w, 0, kinds, null, cpu, null);
        assertEquals(4.0, before.loops().get(0).latency(), before.describe(w));
        assertEquals(1, before.factor(), before.describe(w));
      });
    });
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
    withGenericFnv(f -> {
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
    });
  }
}
