package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * "The module is unchanged on failure", at every point a failure can happen while the packet function
 * is being built: the remark sink (user code, called throughout analysis and emission) throws at its
 * first, second, ... call. An exception becomes an INTERNAL PacketizationException, an Error (e.g.
 * StackOverflowError) propagates as it is; either way the module's bitcode is what it was.
 */
class RollbackTest {
  static final class Boom extends RuntimeException {
    Boom(int k) { super("remark sink failed at remark " + k); }
  }

  /** Kernels with many remarks: divergent loops, calls, memory, callee packetization. */
  static final String[] KERNELS = {"mandelbrot", "shade", "integrate"};

  @Test
  void failureAtEveryRemarkLeavesTheModuleUnchanged() {
    Manifest manifest = Manifest.load();
    int points = 0;
    for (String k : KERNELS) {
      Manifest.Entry e = manifest.require(k);
      int remarks;
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
        AtomicInteger n = new AtomicInteger();
        new Packetizer(options(e).remarks(r -> n.incrementAndGet()).build()).run(m, e.function(), "simd");
        remarks = n.get();
      }
      assertTrue(remarks > 0, k + " gives no remarks");
      for (int failAt = 1; failAt <= remarks; failAt++) {
        for (boolean error : new boolean[] {false, true}) {
          int at = failAt;
          try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
            byte[] before = m.toBitcode();
            AtomicInteger n = new AtomicInteger();
            Packetizer p = new Packetizer(options(e).remarks(r -> {
              if (n.incrementAndGet() == at) {
                if (error) throw new StackOverflowError("simulated at remark " + at);
                throw new Boom(at);
              }
            }).build());
            if (error) {
              assertThrows(StackOverflowError.class, () -> p.run(m, e.function(), "simd"));
            } else {
              PacketizationException x = assertThrows(PacketizationException.class, () -> p.run(m, e.function(), "simd"));
              assertEquals(PacketizationException.Kind.INTERNAL, x.kind());
              assertInstanceOf(Boom.class, x.getCause());
            }
            assertArrayEquals(before, m.toBitcode(), () -> k + ": module changed after a failure at remark " + at
                + (error ? " (Error)" : " (exception)"));
            // and it can still be packetized
            new Packetizer(options(e).build()).run(m, e.function(), "simd");
            assertTrue(m.verify().isEmpty());
          }
          points++;
        }
      }
    }
    System.out.println("rollback: " + points + " failure points, module unchanged after each");
  }

  static PacketizerOptions.Builder options(Manifest.Entry e) {
    return PacketizerOptions.builder().width(8).params(KernelChecks.paramKinds(e)).verifyEachPhase(true);
  }
}
