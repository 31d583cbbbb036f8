package org.packetizer.core.foreign;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Issue #19, part 1: functions that call {@code returns_twice} functions (setjmp, _setjmp, vfork),
 * compiled by clang at plain -O1/-O2 with a helper that calls longjmp. Before, they were accepted and
 * the packet function became W {@code _setjmp} calls and {@code unreachable} (its check crashed the
 * JVM); now they are refused, naming the function, block and instruction, and the module is unchanged.
 */
class ReturnsTwiceTest {
  @ParameterizedTest(name = "{0} {1} W={2}")
  @CsvSource({"-O1, guarded, 4", "-O1, guarded2, 8", "-O1, forks, 16", "-O2, guarded, 16", "-O2, guarded2, 4", "-O2, forks, 8"})
  void callsOfReturnsTwiceFunctionsAreRefused(String opt, String fn, int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "setjmp.c", opt)) {
      String before = m.toIr();
      String callee = switch (fn) {
        case "guarded" -> "setjmp";
        case "guarded2" -> "_setjmp";
        default -> "vfork";
      };
      for (boolean masked : new boolean[] {false, true}) {
        PacketizationException e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
            .width(w).masked(masked).build()).run(m, fn, fn + "_simd"));
        assertEquals(PacketizationException.Kind.UNSUPPORTED, e.kind(), e::getMessage);
        assertEquals(fn, e.function().orElseThrow());
        assertTrue(e.block().isPresent(), e::getMessage);
        assertTrue(e.instruction().orElseThrow().contains("@" + callee + "("), e::getMessage);
        assertTrue(e.getMessage().contains("returns twice") && e.getMessage().contains("@" + callee), e::getMessage);
        assertEquals(before, m.toIr(), "the module is unchanged");
      }
    }
  }
}
