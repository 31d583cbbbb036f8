package org.packetizer.core;

import org.packetizer.core.api.PacketizationException;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The guard of issue #19: a packet function whose body the clean-up reduced to {@code unreachable}
 * while the scalar function can return is an internal error, never a result. The input is what the
 * packetizer emitted before the calling-convention fix (a C-convention call of a {@code fastcc}
 * packet version): the fix is reverted here by writing that IR by hand, and the real clean-up
 * pipeline reduces it.
 */
class UnreachableGuardTest {
  static LlvmModule load(LlvmContext ctx) throws IOException {
    try (InputStream in = UnreachableGuardTest.class.getResourceAsStream("/foreign/reduced.ll")) {
      return ctx.parseIr(new String(in.readAllBytes(), StandardCharsets.UTF_8), "reduced.ll");
    }
  }

  @Test
  void aBodyReducedToUnreachableIsAnInternalError() throws IOException {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = load(ctx)) {
      Function scalar = m.function("f").orElseThrow();
      Function bad = m.function("f_simd8").orElseThrow();
      Function ok = m.function("f_ok").orElseThrow();
      assertTrue(Packetizer.canReturn(bad), "before the clean-up the packet function returns");
      LlvmModule.runPasses(bad, Packetizer.CLEANUP_PIPELINE, null);
      LlvmModule.runPasses(ok, Packetizer.CLEANUP_PIPELINE, null);
      assertFalse(Packetizer.canReturn(bad), () -> "the clean-up reduced the mismatched call to unreachable:\n" + bad.print());
      PacketizationException e = assertThrows(PacketizationException.class,
          () -> Packetizer.requireReturnsLikeScalar(m, scalar, bad, "the packet function", "f"));
      assertEquals(PacketizationException.Kind.INTERNAL, e.kind());
      assertTrue(e.getMessage().contains("@f_simd8") && e.getMessage().contains("unreachable") && e.getMessage().contains("@f"),
          e::getMessage);
      assertEquals("f", e.function().orElseThrow());
      // the same function with the right convention survives the clean-up and passes the guard
      assertTrue(Packetizer.canReturn(ok), ok::print);
      assertDoesNotThrow(() -> Packetizer.requireReturnsLikeScalar(m, scalar, ok, "the packet function", "f"));
    }
  }

  @Test
  void aScalarFunctionThatCannotReturnIsNotAnError() throws IOException {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = load(ctx)) {
      Function scalar = m.function("noreturn_scalar").orElseThrow();
      assertFalse(Packetizer.canReturn(scalar));
      assertDoesNotThrow(() -> Packetizer.requireReturnsLikeScalar(m, scalar, scalar, "the packet function", "noreturn_scalar"));
      // a scalar function with undefined behaviour on every path (random IR has them): its packet
      // function may be 'unreachable' too; the same clean-up on a copy of the scalar function tells
      Function ub = m.function("ub_scalar").orElseThrow();
      Function ubPacket = m.function("ub_simd8").orElseThrow();
      assertTrue(Packetizer.canReturn(ub));
      LlvmModule.runPasses(ubPacket, Packetizer.CLEANUP_PIPELINE, null);
      assertFalse(Packetizer.canReturn(ubPacket), ubPacket::print);
      int before = m.functions().size();
      assertDoesNotThrow(() -> Packetizer.requireReturnsLikeScalar(m, ub, ubPacket, "the packet function", "ub_scalar"));
      assertEquals(before, m.functions().size(), "the probe copy is removed");
      assertTrue(Packetizer.canReturn(ub), "the scalar function itself is untouched");
    }
  }
}
