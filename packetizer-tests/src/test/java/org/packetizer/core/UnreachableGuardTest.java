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

  /** A mask selected by a poison uniform condition (fuzz seed 9910 #512, before MaskOps froze it). */
  static final String POISON_IR = """
      define i32 @g(i32 %a) {
        %c = mul i32 %a, 3
        ret i32 %c
      }
      define <8 x i32> @g_simd8(<8 x i32> %a) {
        %m = select i1 poison, <8 x i1> splat (i1 true), <8 x i1> zeroinitializer
        %v = mul <8 x i32> %a, splat (i32 3)
        %r = select <8 x i1> %m, <8 x i32> %v, <8 x i32> %a
        ret <8 x i32> %r
      }
      define <8 x i32> @g_ok(<8 x i32> %a) {
        %f = freeze i1 poison
        %m = select i1 %f, <8 x i1> splat (i1 true), <8 x i1> zeroinitializer
        %v = mul <8 x i32> %a, splat (i32 3)
        %r = select <8 x i1> %m, <8 x i32> %v, <8 x i32> %a
        ret <8 x i32> %r
      }
      define i32 @p(i32 %a) {
        %c = add i32 %a, poison
        ret i32 %c
      }
      define <8 x i32> @p_simd8(<8 x i32> %a) {
        ret <8 x i32> poison
      }
      """;

  /**
   * The second half of the guard: a packet function that the clean-up folded to {@code ret poison}
   * while the scalar function returns a defined value is an internal error; a scalar function that
   * itself returns poison on every path is not.
   */
  @Test
  void aResultFoldedToPoisonIsAnInternalError() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(POISON_IR, "poison.ll")) {
      Function scalar = m.function("g").orElseThrow();
      Function bad = m.function("g_simd8").orElseThrow();
      Function ok = m.function("g_ok").orElseThrow();
      LlvmModule.runPasses(bad, Packetizer.CLEANUP_PIPELINE, null);
      LlvmModule.runPasses(ok, Packetizer.CLEANUP_PIPELINE, null);
      assertTrue(bad.print().contains("ret <8 x i32> poison"), bad::print);
      assertTrue(Packetizer.canReturn(bad));
      PacketizationException e = assertThrows(PacketizationException.class,
          () -> Packetizer.requireReturnsLikeScalar(m, scalar, bad, "the packet function", "g"));
      assertEquals(PacketizationException.Kind.INTERNAL, e.kind());
      assertTrue(e.getMessage().contains("@g_simd8") && e.getMessage().contains("poison") && e.getMessage().contains("@g "), e::getMessage);
      assertFalse(ok.print().contains("ret <8 x i32> poison"), ok::print);
      assertDoesNotThrow(() -> Packetizer.requireReturnsLikeScalar(m, scalar, ok, "the packet function", "g"));
      int before = m.functions().size();
      assertDoesNotThrow(() -> Packetizer.requireReturnsLikeScalar(m, m.function("p").orElseThrow(),
          m.function("p_simd8").orElseThrow(), "the packet function", "p"));
      assertEquals(before, m.functions().size(), "the probe copy is removed");
    }
  }
}
