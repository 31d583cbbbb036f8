package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.MachineCode;
import org.packetizer.core.mapping.SharedCold;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The glibc-exact helpers' cold pieces shared by the helpers of a module (issue 16, code growth,
 * {@link SharedCold}): a kernel (vectormath/cold_kernel.c: expf, logf, and powf under a branch, chosen by
 * a uniform argument) compiled by the bundled clang with plain -O2, packetized into one module per width
 * (W4 x86-64-v2, W8 haswell, W16 znver4), once as they are and once with the test hook naming fake libm
 * functions (so that the shared probe fails and every active lane goes through the shared per-lane
 * piece); emitted to objects by llc and called by a C caller in its own translation unit, compiled once
 * by GCC and once by clang, which compares every lane with the scalar function bit for bit on hard
 * inputs (vectormath/cold_caller.c).
 */
class SharedColdCallerTest {
  @TempDir Path dir;

  static final String[] FNS = {"expf", "logf", "powf"};

  @Test
  void gccAndClangCallersGetTheScalarBitsThroughSharedPieces() throws Exception {
    boolean wide = Toolchains.exactMathCallerSetUp("SharedColdCallerTest", dir, "cold_kernel.c", "cold_caller.c");
    BundledClang clang = BundledClang.locate();
    List<String> objects = new ArrayList<>();
    List<String[]> targets = new ArrayList<>(List.of(new String[] {"4", "x86-64-v2"}, new String[] {"8", "haswell"}));
    if (wide) targets.add(new String[] {"16", "znver4"});
    for (String[] t : targets) {
      int w = Integer.parseInt(t[0]);
      for (String suffix : List.of("", "_fake")) {
        String bc = "kernel" + w + suffix + ".bc";
        String tag = w + suffix;
        clang.compileToBitcode(dir, Path.of("cold_kernel.c"), Path.of(bc), List.of("-O2", "-march=" + t[1], "-nostdlibinc",
            "-Dcold_mix=cold_mix_s" + tag));
        Map<String, String> hooks = new HashMap<>();
        if (suffix.equals("_fake")) for (String fn : FNS) hooks.put("packetizer.test.libmSymbol." + fn, "fake_" + fn);
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
          withProperties(hooks, () -> new Packetizer(PacketizerOptions.builder().width(w).params("vvu")
              .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).build()).run(m, "cold_mix_s" + tag, "cold_mix" + w + suffix));
          assertShared(m, w, w == 4 ? 2 : 3);
          m.write(dir.resolve("kernel" + tag + ".packet.bc"));
        }
        objects.add(Toolchains.llcKernel(clang, dir, tag, "obj"));
      }
    }
    int lanes = 3 * (4 * 4000 + 8 * 4000 + 4 * 1000 + 8 * 1000 + (wide ? 16 * 5000 : 0));
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "cold_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      assertTrue(out.contains(lanes + " lanes checked, 0 differences"), exe + ": " + out);
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W4 and W8 only");
    }
  }

  /**
   * The shared pieces make the helpers smaller: the module's glibc-exact helpers with their pieces, in
   * machine instructions as llc -O3 compiles them, against the same module with
   * {@code -Dpacketizer.mathHelpers.sharedCold=false} (W8 haswell: three helpers, W16 znver4).
   */
  @Test
  void sharedPiecesAreSmallerThanOneSetPerHelper() throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("cold_kernel.c"), FmodGccCallerTest.resource("cold_kernel.c"));
    for (String[] t : List.of(new String[] {"8", "haswell"}, new String[] {"16", "znver4"})) {
      int w = Integer.parseInt(t[0]);
      Map<String, Integer> total = new HashMap<>();
      for (String shared : List.of("true", "false")) {
        String bc = "size" + w + shared + ".bc";
        clang.compileToBitcode(dir, Path.of("cold_kernel.c"), Path.of(bc), List.of("-O2", "-march=" + t[1], "-nostdlibinc"));
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
          withProperties(Map.of("packetizer.mathHelpers.sharedCold", shared), () -> new Packetizer(PacketizerOptions.builder().width(w)
              .params("vvu").vectorMath(PacketizerOptions.VectorMath.INTRINSICS).build()).run(m, "cold_mix", "cold_mix" + w));
          if (shared.equals("true")) assertShared(m, w, 3);
          else assertTrue(m.functions().stream().noneMatch(f -> f.name().startsWith(SharedCold.PREFIX)), "knob off: no shared pieces");
          // the module's helpers and their pieces (each counted once, as the bench's asm column counts a module's helpers)
          Map<String, Integer> sizes = MathHelpersOutOfLineTest.functionSizes(MachineCode.assembly(m, t[1]));
          int helpers = sizes.entrySet().stream().filter(e -> e.getKey().startsWith("__packetizer_")).mapToInt(Map.Entry::getValue).sum();
          assertTrue(helpers > 0, "W" + w + ": helpers in the machine code: " + sizes);
          total.put(shared, helpers);
        }
      }
      // one set of pieces instead of three: at least 120 instructions fewer (measured W8 haswell: see docs/performance.md)
      assertTrue(total.get("true") + 120 < total.get("false"), "W" + w + " " + t[1] + ": shared " + total.get("true") + ", one set per helper "
          + total.get("false"));
    }
  }

  /** One set of shared pieces at width w, no per-helper pieces, and helpers each with a descriptor. */
  static void assertShared(LlvmModule m, int w, int helpers) {
    List<String> cold = new ArrayList<>(), glibc = new ArrayList<>();
    for (Function f : m.functions()) {
      if (f.isDeclaration()) continue;
      if (f.name().startsWith(SharedCold.PREFIX + w + "_")) cold.add(f.name());
      if (f.name().startsWith("__packetizer_glibc_")) glibc.add(f.name());
    }
    assertEquals(3, cold.size(), "W" + w + ": one .lanes, .verify and .slow: " + cold);
    List<String> entries = glibc.stream().filter(n -> !n.contains(".")).toList();
    assertEquals(helpers, entries.size(), "W" + w + ": helpers " + glibc);
    for (String h : entries) {
      assertTrue(m.global(h + ".desc").isPresent(), h + " has a descriptor");
      // no pieces of their own; a unary helper has its two binary-shaped thunks
      List<String> pieces = glibc.stream().filter(n -> n.startsWith(h + ".")).sorted().toList();
      assertEquals(h.contains("_powf_") ? List.of() : List.of(h + ".s2", h + ".v2"), pieces, h);
    }
  }

  static void withProperties(Map<String, String> props, Runnable r) {
    Map<String, String> before = new HashMap<>();
    for (String k : props.keySet()) before.put(k, System.getProperty(k));
    props.forEach(System::setProperty);
    try {
      r.run();
    } finally {
      before.forEach((k, v) -> {
        if (v == null) System.clearProperty(k);
        else System.setProperty(k, v);
      });
    }
  }
}
