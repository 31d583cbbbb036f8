package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * Dynamic allocas (C99 variable-length arrays, {@code beyond/vla.c} compiled with plain {@code -O1},
 * and {@code -O2} where clang's loop vectorizer leaves no vector values in the function): one
 * allocation per lane of the lane's own size, inactive lanes allocate nothing, and
 * {@code llvm.stacksave}/{@code llvm.stackrestore} free a loop iteration's arrays (without them
 * {@code vla_loop} overflows the stack at W=16). Checked at W=4, 8, 16, unmasked and masked. Before:
 * "cannot packetize a stack allocation of variable size".
 */
class DynamicAllocaTest {
  static final ParamSpec N = ParamSpec.varying(ValueDomain.ints(-3000, 3000));
  static final ParamSpec X = ParamSpec.varying(ValueDomain.ints(-3000, 3000));

  static long count(LlvmModule m, String fn, Opcode op, String text) {
    long n = 0;
    for (var b : m.function(fn).orElseThrow().blocks()) {
      for (Value i : b.instructions()) if (i.opcode() == op && i.print().contains(text)) n++;
    }
    return n;
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void perLaneSizes(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "vla.c", "-O1")) {
      AtomicsTest.checkBoth(m, "vla_sum", w, "vv", 10 + w, N, X);
      AtomicsTest.checkBoth(m, "vla_branch", w, "vv", 20 + w, N, X);
      // one dynamic alloca per lane
      assertEquals(w, count(m, "vla_sum_v" + w, Opcode.ALLOCA, "alloca i32, i64"), () -> m.function("vla_sum_v" + w).orElseThrow().print());
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void loopThatAllocatesRestoresTheStack(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "vla.c", "-O1")) {
      AtomicsTest.checkBoth(m, "vla_loop", w, "vv", 30 + w, N, X);
      String ir = m.function("vla_loop_v" + w).orElseThrow().print();
      assertEquals(1, count(m, "vla_loop_v" + w, Opcode.CALL, "@llvm.stacksave"), ir);
      assertEquals(1, count(m, "vla_loop_v" + w, Opcode.CALL, "@llvm.stackrestore"), ir);
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void arrayPassedToAHelper(int w) {
    for (String opt : List.of("-O1", "-O2")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "vla.c", opt)) {
        AtomicsTest.checkBoth(m, "vla_out", w, "vv", 40 + w, ParamSpec.varyingPtr(ctx.i32(), 2, Direction.OUT), N);
      }
    }
  }
}
