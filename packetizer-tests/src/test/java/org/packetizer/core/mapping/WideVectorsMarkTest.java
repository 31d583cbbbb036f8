package org.packetizer.core.mapping;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * {@link SignatureAbi#fitWideVectors} marks a function legal for 512-bit vectors when one of its values (a parameter,
 * an instruction's result, a stored value) is a vector wider than 256 bits. Since issue 16's twenty-first round the
 * walk measures each distinct type once (a table by the type's address) and asks for the opcode only of void
 * instructions. Each case has one value that decides, placed after values of types that share its kind, element
 * type or lane count, so a table that answers for the wrong type, a store's value not looked at, or a void
 * instruction other than a store counted, gives the wrong mark.
 */
class WideVectorsMarkTest {
  private static final String TAIL = """
      declare void @sink(<16 x i32>)
      attributes #0 = { "target-features"="+avx512f,+avx512vl" }
      """;

  /** Whether fitWideVectors raised @f of {@code body} (a function of {@code ptr %p, <4 x i32> %a}). */
  private static boolean raised(String body) {
    String ir = "define void @f(ptr %p, <4 x i32> %a) #0 {\n" + body + "  ret void\n}\n" + TAIL;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "wide")) {
      Function f = m.function("f").orElseThrow();
      boolean r = SignatureAbi.fitWideVectors(f);
      assertEquals(r ? "512" : "none", f.stringAttribute(SignatureAbi.MIN_LEGAL_VECTOR_WIDTH).orElse("none"), body);
      return r;
    }
  }

  @Test
  void aWideResultAfterNarrowValuesOfRelatedTypesIsFound() {
    // 128-bit <16 x i8> and 256-bit <8 x i32> first, then the one 512-bit value, <16 x i32> (the first's lane count,
    // the second's element type)
    assertTrue(raised("""
          %b = load <16 x i8>, ptr %p
          %c = load <8 x i32>, ptr %p
          %d = zext <16 x i8> %b to <16 x i32>
        """));
    assertFalse(raised("""
          %b = load <16 x i8>, ptr %p
          %c = load <8 x i32>, ptr %p
          %d = zext <8 x i8> zeroinitializer to <8 x i32>
        """));
  }

  @Test
  void aWideStoredValueCountsAndOtherVoidInstructionsDoNot() {
    // the only 512-bit value is a constant a store writes (the store is void, like the narrower store before it)
    assertTrue(raised("""
          store <8 x i32> zeroinitializer, ptr %p
          store <16 x i32> zeroinitializer, ptr %p
        """));
    // a void call passing a 512-bit constant: not a store, so not counted (as before the round)
    assertFalse(raised("""
          store <8 x i32> zeroinitializer, ptr %p
          call void @sink(<16 x i32> zeroinitializer)
        """));
  }
}
