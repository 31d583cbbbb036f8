package org.packetizer.core.legality;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.VectorMapping;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Every {@link Rejection} reason, one input each: the exception carries the reason and its kind, a
 * {@link Remark.Kind#REJECTED} remark names the reason's tag, the function and (where there is one)
 * the block and instruction, and the user's module is byte-for-byte unchanged. A reason without a
 * case here fails {@link #everyReasonHasACase}.
 */
class LegalityTest {
  private static final String VALID = """
      define float @f(float %x) {
      entry:
        %y = fmul float %x, 2.0
        ret float %y
      }
      """;

  /** One rejection: the input, the function, the SIMD name, the options, and what the message names. */
  record Case(String ir, String fn, String simd, UnaryOperator<PacketizerOptions.Builder> options, String block,
      String excerpt) {}

  private static Case of(String ir, UnaryOperator<PacketizerOptions.Builder> o, String block, String excerpt) {
    return new Case(ir, "f", "f_simd", o, block, excerpt);
  }

  static Map<Rejection, Case> cases() {
    Map<Rejection, Case> c = new EnumMap<>(Rejection.class);
    c.put(Rejection.INVALID_WIDTH, of(VALID, o -> o.width(3), null, "invalid width 3"));
    c.put(Rejection.INVALID_NAME, new Case(VALID, "f", "f", o -> o, null, "different name"));
    c.put(Rejection.CONFLICTING_OPTIONS, of(VALID, o -> o.cAbi(true).vectorAbi(true), null, "exclude each other"));
    c.put(Rejection.NO_SUCH_FUNCTION, new Case(VALID, "g", "g_simd", o -> o, null, "no function @g"));
    c.put(Rejection.NO_BODY, of("declare float @f(float)\n", o -> o, null, "only declared"));
    c.put(Rejection.INVALID_IR, of("""
        define i32 @f(i32 %x) {
        entry:
          %a = add i32 %b, 1
          %b = add i32 %x, 1
          ret i32 %a
        }
        """, o -> o, null, "not valid IR"));
    c.put(Rejection.INVALID_PARAMETERS, of(VALID, o -> o.params("vv"), null, "parameter kinds"));
    c.put(Rejection.PROTOTYPE_MISMATCH, of(VALID + "declare <4 x i32> @f_simd(<4 x i32>)\n", o -> o, null,
        "declared prototype @f_simd"));
    c.put(Rejection.INVALID_MAPPING, of("""
        declare float @g(float)
        define float @f(float %x) {
        entry:
          %y = call float @g(float %x)
          ret float %y
        }
        """, o -> o.addMapping(VectorMapping.of("g", "g_v4", 4)), null, "is not declared"));
    c.put(Rejection.INVALID_HARDWARE_WIDTH, of(VALID, o -> o.width(8).hardwareWidth(1).wrapperMode(WrapperMode.LOOP), null,
        "hardware width is 1"));
    c.put(Rejection.VARIADIC, of("""
        define i32 @f(i32 %x, ...) {
        entry:
          ret i32 %x
        }
        """, o -> o, null, "variadic"));
    c.put(Rejection.EXCEPTION_HANDLING, of("""
        declare void @g()
        declare i32 @__gxx_personality_v0(...)
        define i32 @f(i32 %x) personality ptr @__gxx_personality_v0 {
        entry:
          invoke void @g() to label %ok unwind label %bad
        ok:
          ret i32 %x
        bad:
          %lp = landingpad { ptr, i32 } cleanup
          ret i32 0
        }
        """, o -> o, "entry", "exception handling"));
    c.put(Rejection.UNSUPPORTED_CONTROL_FLOW, of("""
        define i32 @f(i32 %x, ptr %t) {
        entry:
          indirectbr ptr %t, [label %a, label %b]
        a:
          ret i32 %x
        b:
          ret i32 0
        }
        """, o -> o.params("vu"), "entry", "indirectbr"));
    c.put(Rejection.SCALABLE_VECTOR, of("""
        define i32 @f(i32 %x) {
        entry:
          %v = insertelement <vscale x 4 x i32> poison, i32 %x, i64 0
          %y = extractelement <vscale x 4 x i32> %v, i64 0
          ret i32 %y
        }
        """, o -> o, "entry", "scalable vectors"));
    c.put(Rejection.INLINE_ASM, of("""
        define i32 @f(i32 %x) {
        entry:
          %y = call i32 asm "mov $1, $0", "=r,r"(i32 %x)
          ret i32 %y
        }
        """, o -> o, "entry", "inline assembly"));
    c.put(Rejection.RETURNS_TWICE, of("""
        declare i32 @setjmp(ptr) returns_twice
        define i32 @f(i32 %x, ptr %buf) {
        entry:
          %r = call i32 @setjmp(ptr %buf)
          %y = add i32 %r, %x
          ret i32 %y
        }
        """, o -> o.params("vu"), "entry", "returns twice"));
    c.put(Rejection.VA_ARG, of("""
        define i32 @f(ptr %ap) {
        entry:
          %y = va_arg ptr %ap, i32
          ret i32 %y
        }
        """, o -> o.params("u"), "entry", "va_arg"));
    // decided after the analyses: only a varying x86_fp80 has no packet form
    c.put(Rejection.UNSUPPORTED_TYPE, of("""
        define double @f(double %x) {
        entry:
          %e = fpext double %x to x86_fp80
          %m = fmul x86_fp80 %e, %e
          %y = fptrunc x86_fp80 %m to double
          ret double %y
        }
        """, o -> o, "entry", "x86_fp80"));
    c.put(Rejection.UNSUPPORTED_INSTRUCTION, of("""
        define <2 x ptr> @f(ptr %b, <2 x i64> %v) {
        entry:
          %g = getelementptr i32, ptr %b, <2 x i64> %v
          ret <2 x ptr> %g
        }
        """, o -> o.params("uv"), "entry", "vector of pointers"));
    c.put(Rejection.VOLATILE_OR_ATOMIC_VARYING, of("""
        define i32 @f(ptr %p) {
        entry:
          %x = load volatile i32, ptr %p
          ret i32 %x
        }
        """, o -> o.params("v"), "entry", "volatile or atomic load"));
    c.put(Rejection.STRUCT_OF_ARRAYS, of("""
        define void @f(ptr %p, ptr %q) {
        entry:
          store ptr %p, ptr %q
          ret void
        }
        """, o -> o.params("su"), "entry", "struct-of-arrays pointer"));
    c.put(Rejection.SPMD_INTRINSIC, of("""
        declare i64 @pk_ballot(i1)
        define i64 @f(i32 %x) {
        entry:
          %c = icmp sgt i32 %x, 0
          %b = call i64 @pk_ballot(i1 %c)
          ret i64 %b
        }
        """, o -> o.width(128).wrapperMode(WrapperMode.DIRECT), "entry", "pk_ballot"));
    c.put(Rejection.UNSUPPORTED_SIGNATURE, of("target triple = \"riscv64-unknown-linux-gnu\"\n" + VALID,
        o -> o.cAbi(true), null, "x86-64 and AArch64 only"));
    return c;
  }

  /** Reasons this test's inputs meet outside the legality phase (see Legality's class comment). */
  private static final Set<Rejection> ELSEWHERE = EnumSet.of(Rejection.INVALID_MAPPING, Rejection.INVALID_HARDWARE_WIDTH,
      Rejection.STRUCT_OF_ARRAYS, Rejection.UNSUPPORTED_SIGNATURE);
  /** ... and while emitting the packet function (every other reason is decided before). */
  private static final Set<Rejection> WHILE_EMITTING = EnumSet.of(Rejection.INVALID_MAPPING);

  @Test
  void everyReasonHasACase() {
    Set<Rejection> missing = EnumSet.allOf(Rejection.class);
    missing.removeAll(cases().keySet());
    assertTrue(missing.isEmpty(), () -> "reasons without a case: " + missing);
  }

  @Test
  void eachReasonIsReportedAsKindAndRemarkWithTheModuleUnchanged() {
    List<String> failures = new ArrayList<>();
    for (var e : cases().entrySet()) {
      try {
        check(e.getKey(), e.getValue());
      } catch (AssertionError | RuntimeException x) {
        failures.add(e.getKey() + ": " + x.getMessage());
      }
    }
    assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
  }

  private static void check(Rejection reason, Case c) {
    List<Remark> remarks = new ArrayList<>();
    PacketizerOptions options = c.options().apply(PacketizerOptions.builder().width(4).remarks(remarks::add)).build();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(c.ir(), reason.tag() + ".ll")) {
      String before = m.toIr();
      byte[] bits = m.toBitcode();
      PacketizationException e = assertThrows(PacketizationException.class, () -> new Packetizer(options).run(m, c.fn(), c.simd()));
      assertEquals(reason, e.reason().orElse(null), e::getMessage);
      boolean byLegality = java.util.Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getClassName().equals(Legality.class.getName()));
      boolean whileEmitting = java.util.Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getClassName().startsWith("org.packetizer.core.widen."));
      assertEquals(!ELSEWHERE.contains(reason), byLegality, () -> "decided by Legality: " + byLegality);
      assertEquals(WHILE_EMITTING.contains(reason), whileEmitting, () -> "found while emitting: " + whileEmitting);
      assertEquals(reason.kind(), e.kind(), e::getMessage);
      assertTrue(e.getMessage().contains(c.excerpt()), () -> "message lacks '" + c.excerpt() + "': " + e.getMessage());
      if (c.block() != null) {
        assertEquals(c.block(), e.block().orElse(null), e::getMessage);
        assertTrue(e.instruction().isPresent(), e::getMessage);
      }
      List<Remark> rejected = remarks.stream().filter(r -> r.kind() == Remark.Kind.REJECTED).toList();
      assertEquals(1, rejected.size(), () -> "REJECTED remarks: " + rejected);
      Remark r = rejected.getFirst();
      assertTrue(r.message().startsWith(reason.tag() + ": "), r::toLine);
      assertEquals(c.fn(), r.function(), r::toLine);
      assertEquals(e.block().orElse(null), r.block(), r::toLine);
      assertEquals(e.instruction().orElse(null), r.instruction(), r::toLine);
      assertEquals(before, m.toIr(), "the module changed although packetization failed");
      assertArrayEquals(bits, m.toBitcode());
    }
  }
}
