package org.packetizer.core.bench;

import java.util.List;
import org.packetizer.core.api.*;
import org.packetizer.core.ir.*;
import org.packetizer.core.ir.Module;
import org.packetizer.core.toolchain.BundledClang;

public class ScratchPassTiming {
  public static void main(String[] a) throws Exception {
    int size = Integer.parseInt(a[0]);
    String[] passes = a[1].split(";");
    BundledClang clang = BundledClang.locate();
    byte[] bc = compile(clang, ScalingBench.generate(size / 8, 7, ScalingBench.DEFAULT_MIX));
    for (int rep = 0; rep < Integer.getInteger("reps", 3); rep++) {
      try (LlvmContext ctx = LlvmContext.create(); Module m = ctx.parseBitcode(bc, "s")) {
        long t0 = System.nanoTime();
        var r = new Packetizer(PacketizerOptions.builder().width(8).params("vvu").cleanup(Boolean.getBoolean("cleanup")).skipThreshold(Integer.parseInt(System.getProperty("skip","6"))).build()).run(m, "big", "p");
        long t1 = System.nanoTime();
        Function p = m.function("p").orElseThrow();
        System.out.printf("rep %d: scalar %d emitted %d, packetize(no cleanup) %.1f ms%n", rep, r.scalarInstructions(), p.instructionCount(), (t1 - t0) / 1e6);
        for (String pass : passes) {
          long s = System.nanoTime();
          Module.runPasses(p, pass, null);
          System.out.printf("  %-40s %8.1f ms -> %d instr%n", pass, (System.nanoTime() - s) / 1e6, p.instructionCount());
        }
      }
    }
  }
  static byte[] compile(BundledClang clang, String c) { return clang.compileToBitcode(c, "scaling.c", BundledClang.KERNEL_FLAGS); }
}
