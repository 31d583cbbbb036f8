package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.Packetizer;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.jit.JitFunction;

/**
 * The facade classes that own native memory are closed on every path and misuse gives Java
 * exceptions, never a JVM crash: closing twice is harmless, using a closed object throws {@link
 * IllegalStateException}, and a module outliving its context (which frees it) neither crashes when
 * used nor when closed. (The soak test shows memory stays flat over thousands of iterations that walk
 * the success and failure paths.)
 */
class NativeResourcesTest {
  static final String IR = BadInputs.text("valid.ll");

  /** Closing a context frees its modules; before this guard, touching such a module crashed the JVM. */
  @Test
  void moduleOutlivingItsContext() {
    LlvmContext ctx = LlvmContext.create();
    LlvmModule m = ctx.parseIr(IR, "valid.ll");
    LlvmModule clone = m.cloneModule();
    ctx.close();
    assertTrue(ctx.isClosed());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.function("shade"));
    assertTrue(e.getMessage().contains("context is closed"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> Packetizer.packetize(m, "shade", "shade_simd", 4));
    assertThrows(IllegalStateException.class, clone::toBitcode);
    m.close(); // the context already freed it: nothing to do
    clone.close();
    m.close();
  }

  @Test
  void closingTwiceAndUsingAfterClose() {
    LlvmContext ctx = LlvmContext.create();
    LlvmModule m = ctx.parseIr(IR, "valid.ll");
    IrBuilder b = new IrBuilder(ctx);
    b.close();
    b.close();
    assertThrows(IllegalStateException.class, () -> b.atEnd(m.function("shade").orElseThrow().entry()));
    m.close();
    m.close();
    assertThrows(IllegalStateException.class, m::toIr);
    ctx.close();
    ctx.close();
    assertThrows(IllegalStateException.class, ctx::i32);

    TargetMachine tm = TargetMachine.host();
    assertFalse(tm.dataLayout().isEmpty());
    tm.close();
    tm.close();
    assertThrows(IllegalStateException.class, tm::dataLayout);
  }

  @Test
  void jitAndCheckAfterClose() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "valid.ll")) {
      Packetizer.packetize(m, "shade", "shade_simd", 4);
      Jit jit = Jit.host();
      jit.addModule(m);
      JitFunction f = jit.function("shade");
      assertEquals(2.0f, (Float) f.call(1.0f, 5.0f));
      jit.close();
      jit.close();
      assertTrue(jit.isClosed());
      assertThrows(IllegalStateException.class, () -> f.call(1.0f, 5.0f));
      assertThrows(IllegalStateException.class, () -> jit.lookup("shade"));
      assertThrows(IllegalStateException.class, () -> jit.addModule(m));

      DifferentialCheck c = DifferentialCheck.builder(m, "shade", "shade_simd", 4).build();
      assertTrue(c.runMany(5, 1).passed());
      c.close();
      c.close();
      assertThrows(IllegalStateException.class, () -> c.runMany(1, 1));
    }
  }

  /** Builders that fail after creating their JIT close it; the module stays usable. */
  @Test
  void failurePathsReleaseWhatTheyCreated() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "valid.ll")) {
      Packetizer.packetize(m, "shade", "shade_simd", 4);
      for (int i = 0; i < 50; i++) {
        assertThrows(IllegalArgumentException.class,
            () -> DifferentialCheck.builder(m, "shade", "shade_simd", 4).params(List.<ParamSpec>of()).build());
        assertThrows(IllegalArgumentException.class, () -> DifferentialCheck.builder(m, "shade", "nope", 4).build());
        assertThrows(PacketizationException.class, () -> Packetizer.packetize(m, "shade", "shade_simd", 4));
      }
      int before = Soak.mappings();
      for (int i = 0; i < 100; i++) {
        assertThrows(IllegalArgumentException.class,
            () -> DifferentialCheck.builder(m, "shade", "shade_simd", 4).params(List.<ParamSpec>of()).build());
      }
      int after = Soak.mappings();
      // each leaked JIT would keep its code and data mappings
      assertTrue(after - before < 50, () -> "memory mappings grew from " + before + " to " + after + " over 100 failed builds");
      assertTrue(m.verify().isEmpty());
    }
  }
}
