package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code bin/dump-packets --compare} ({@link DumpCompare}) on modules printed with and without value names
 * (issue 16: the library's default is names off, so one dump may have names and the other not). Without
 * names LLVM prints no label for the entry block and numbers it after the unnamed parameters; the compare
 * must read that as the same function as the named one, and must still tell a real change apart.
 */
class DumpCompareTest {
  @ParameterizedTest(name = "{0} W={1}")
  @CsvSource({"mix,8", "mix,16", "nestedloop,4", "escape,8"})
  void namesOnAndOffCompareEqualAndASwappedOperandDiffers(String kind, int w) {
    List<String> kinds = kind.equals("mix") ? ScalingBench.DEFAULT_MIX : List.of(kind);
    byte[] bc = BundledClang.locate().compileToBitcode(ScalingBench.generate(6, 11, kinds), "scaling.c", BundledClang.KERNEL_FLAGS);
    String named = packetized(bc, w, true);
    String unnamed = packetized(bc, w, false);
    assertNotEquals(named, unnamed, "the two printouts should differ in their names");
    assertTrue(unnamed.contains("define <" + w + " x "), unnamed);
    // (the unnamed packet function's entry block has no label line)
    String packet = unnamed.substring(unnamed.indexOf("define <"));
    assertFalse(packet.split("\n", 3)[1].matches("^[-a-zA-Z$._0-9]+:.*"), "entry block labelled: " + packet.split("\n", 3)[1]);
    assertEquals(DumpCompare.normalize(named), DumpCompare.normalize(unnamed));

    // a real change: the first two-operand instruction of the packet function with distinct operands, swapped
    Matcher m = Pattern.compile("(?m)^(  %\\d+ = (?:fadd|fmul|fsub|add|sub|mul|and|or|xor|fcmp \\w+|icmp \\w+) [^%]*)(%\\d+), (%\\d+)$")
        .matcher(packet);
    String changed = null;
    while (m.find()) {
      if (!m.group(2).equals(m.group(3))) {
        changed = unnamed.substring(0, unnamed.indexOf("define <")) + packet.substring(0, m.start()) + m.group(1) + m.group(3) + ", "
            + m.group(2) + packet.substring(m.end());
        break;
      }
    }
    assertNotNull(changed, "no instruction to change in " + packet);
    assertNotEquals(DumpCompare.normalize(named), DumpCompare.normalize(changed));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', value = {
      "0|define <8 x float> @f() #0 {",
      "2|define <8 x float> @f(<8 x float> %0, <8 x float> noundef %1) #0 {",
      "1|define void @g(ptr nocapture readonly %0, i32 %n) local_unnamed_addr #2 {",
      "0|define void @h(ptr %a, <4 x i32> %b) {"})
  void unnamedParametersCounted(int expected, String define) {
    assertEquals(expected, DumpCompare.unnamedParameters(define));
  }

  private static String packetized(byte[] bc, int w, boolean names) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
      new Packetizer(PacketizerOptions.builder().width(w).params("vvu").valueNames(names).build()).run(m, "big", "big_simd" + w);
      return m.toIr();
    }
  }
}
