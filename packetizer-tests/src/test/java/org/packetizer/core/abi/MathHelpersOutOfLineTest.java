package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The bit-exact math helpers out of line (issue 16, code growth): two kernels of one clang -O2
 * translation unit that both call expf, logf, sinf and cosf, packetized into one module per width
 * (W8 haswell, W16 x86-64-v4), share one definition of each helper, which each packet function calls;
 * each helper's fast path has one copy (no {@code .core} function left, the guard's pieces small in
 * machine code: the probe a loop, the first call re-entering the helper). The modules become objects
 * (llc), and a C caller in its own translation unit, compiled once by GCC and once by clang, compares
 * every lane of both packet functions with the scalar functions (glibc) bit for bit.
 */
class MathHelpersOutOfLineTest {
  @TempDir Path dir;

  /** Machine instructions of all of one helper's functions (entry and pieces) at W8 and W16: before this round 459 (expf, W8). */
  static final int HELPER_BOUND = 260;

  @Test
  void twoPacketFunctionsShareOneSmallHelperPerFunctionAndGetGlibcsBits() throws Exception {
    boolean wide = Toolchains.exactMathCallerSetUp("MathHelpersOutOfLineTest", dir, "helpers_kernel.c", "helpers_caller.c");
    BundledClang clang = BundledClang.locate();
    List<String> objects = new ArrayList<>();
    for (String[] t : List.of(new String[] {"8", "haswell"}, new String[] {"16", "x86-64-v4"})) {
      int w = Integer.parseInt(t[0]);
      String suffix = w == 8 ? "" : "_w16"; // one scalar price and wave in the program
      String bc = "kernel" + w + ".bc";
      clang.compileToBitcode(dir, Path.of("helpers_kernel.c"), Path.of(bc),
          List.of("-O2", "-march=" + t[1], "-nostdlibinc", "-Dprice=price" + suffix, "-Dwave=wave" + suffix));
      String ir;
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
        PacketizerOptions po = PacketizerOptions.builder().width(w).params("vv").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
            .verifyEachPhase(true).build();
        new Packetizer(po).run(m, "price" + suffix, "price" + w);
        new Packetizer(po).run(m, "wave" + suffix, "wave" + w);
        ir = m.toIr();
        // one definition of each helper entry in the module, no separate fast-path function left
        for (String fn : List.of("glibc_expf", "glibc_logf", "sinf", "cosf")) {
          String prefix = "__packetizer_" + fn + "_v" + w + "_";
          List<String> entries = new ArrayList<>();
          for (Function f : m.functions()) {
            if (f.name().startsWith(prefix) && !f.isDeclaration() && !f.name().contains(".")) entries.add(f.name());
          }
          assertEquals(1, entries.size(), fn + " at W" + w + ": " + entries);
          if (fn.startsWith("glibc_")) {
            assertTrue(m.function(entries.get(0) + ".core").isEmpty(), "the fast path is inlined into the entry only: " + entries);
            // both packet functions call the one entry (out of line, not a copy each)
            for (String p : List.of("price" + w, "wave" + w)) {
              if (fn.equals("glibc_logf") || p.startsWith("price")) {
                assertTrue(body(ir, p).contains("@" + entries.get(0) + "("), p + " calls " + entries.get(0) + ":\n" + body(ir, p));
              }
            }
          }
        }
        m.write(dir.resolve("kernel" + w + ".packet.bc"));
      }
      // machine code of each helper with its pieces, as llc -O3 compiles them for the target
      Path s = dir.resolve("kernel" + w + ".s");
      ProcessResult asm = clang.run(List.of("llc", "-O3", "-mcpu=" + t[1], dir.resolve("kernel" + w + ".packet.bc").toString(), "-o", s.toString()), dir);
      assertEquals(0, asm.exitCode(), asm.stderr());
      Map<String, Integer> sizes = functionSizes(Files.readString(s));
      for (String fn : List.of("glibc_expf", "glibc_logf")) {
        String prefix = "__packetizer_" + fn + "_v" + w + "_";
        int total = sizes.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToInt(Map.Entry::getValue).sum();
        assertTrue(total > 0 && total <= HELPER_BOUND, fn + " W" + w + ": " + total + " machine instructions with its pieces (bound "
            + HELPER_BOUND + "): " + sizes);
      }
      objects.add(Toolchains.llcKernel(clang, dir, "" + w, "obj"));
    }
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "helpers_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      assertTrue(out.contains((wide ? 640000 : 320000) + " lanes checked, 0 differences"), exe + ": " + out);
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W8 only");
    }
  }

  /** The text of function {@code name}'s definition in {@code ir}. */
  static String body(String ir, String name) {
    int at = ir.indexOf(" @" + name + "(");
    while (at >= 0 && !ir.substring(ir.lastIndexOf('\n', at) + 1, at).startsWith("define")) at = ir.indexOf(" @" + name + "(", at + 1);
    assertTrue(at >= 0, "no definition of " + name);
    return ir.substring(at, ir.indexOf("\n}", at));
  }

  /** Instruction lines per function label in llc's assembly text (labels, directives and comments not counted). */
  static Map<String, Integer> functionSizes(String asm) {
    Map<String, Integer> out = new TreeMap<>();
    String current = null;
    for (String raw : asm.split("\n")) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
      if (line.isEmpty()) continue;
      if (!raw.startsWith("\t") && !raw.startsWith(" ") && line.endsWith(":") && !line.startsWith(".")) {
        current = line.substring(0, line.length() - 1).replace("\"", "");
        out.putIfAbsent(current, 0);
        continue;
      }
      if (line.startsWith(".Lfunc_end")) { current = null; continue; }
      if (current == null || line.endsWith(":") || line.startsWith(".")) continue;
      out.merge(current, 1, Integer::sum);
    }
    return out;
  }
}
