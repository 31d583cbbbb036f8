package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The table lookups of the glibc-exact expf/logf helpers (issue 16, TableLookup) on the foreign path:
 * foreign C (table_kernel.c: the calls alone and under a branch) compiled by the bundled clang with
 * plain -O2 in its own translation unit, packetized in the bit-exact mode at W4 (x86-64-v2), W8
 * (haswell and x86-64-v4) and W16 (znver4), emitted by llc, and called with 128-, 256- and 512-bit vector arguments
 * by a C caller in its own translation unit (table_caller.c), built once by GCC and once by clang; the
 * caller compares every lane with glibc bit for bit on inputs that reach every entry of both tables.
 * The machine code of each helper is checked too: its lookups take the route the target gets (scalar
 * loads by 32-bit index at W4 x86-64-v2 and at W8 on AMD's AVX2, znver3; on Intel's AVX2 cores, haswell and skylake
 * at W8 (twenty-first round), expf's table by {@code vpgatherqq} from the table's symbol with no {@code vpextrd} and
 * logf's pairs by the halves ({@code vpermd}, no gather); the 32-bit halves permuted by {@code vpermd} with no
 * {@code vpextrd} at W8 haswell by the knob; {@code vpermi2q}/{@code vpermt2q} at W8 x86-64-v4, W16 znver4 and W16
 * icelake-server, no gather instruction), and no 64-bit address is moved out of a vector register ({@code pextrq})
 * or gathered without the table as its base, which the gather of 64-bit pointers did on every x86 target without
 * AVX-512.
 */
class GlibcTableLookupCallerTest {
  @TempDir Path dir;

  /** The remark's words for Intel's AVX2 route (TableLookup.Route.GATHER's description; the pairs are checked apart). */
  private static final String INTEL_AVX2 = "hardware gather (AVX2 vpgatherdq by 32-bit index, vpgatherqq by the 64-bit lanes of expf's k)";

  private static final Pattern HELPER = Pattern.compile("(?ms)^(__packetizer_glibc_(?:exp|log)f_v\\d+_\\w+):\\s*#.*?^\\.Lfunc_end");

  @Test
  void everyTableEntryMatchesGlibcFromGccAndClangCallers() throws Exception {
    boolean wide = Toolchains.exactMathCallerSetUp("GlibcTableLookupCallerTest", dir, "table_kernel.c", "table_caller.c");
    BundledClang clang = BundledClang.locate();
    List<String> objects = new ArrayList<>();
    List<String[]> targets = new ArrayList<>(List.of(new String[] {"4", "x86-64-v2", "scalar loads by 32-bit index"},
        // Intel's AVX2 cores (twenty-first round): expf's table gathered, logf's pairs by the halves
        new String[] {"8", "haswell", INTEL_AVX2},
        // the AVX2 halves route (by its knob, -Dpacketizer.tableLookup=halves)
        new String[] {"8", "haswell", "32-bit halves permuted in registers", "h"},
        new String[] {"8", "skylake", INTEL_AVX2, "s"},
        // AMD's AVX2 keeps the Zen decision: scalar loads
        new String[] {"8", "znver3", "scalar loads by 32-bit index", "z"}));
    if (wide) {
      targets.add(new String[] {"8", "x86-64-v4", "permute in registers", "v"});
      targets.add(new String[] {"16", "znver4", "permute in registers"});
      targets.add(new String[] {"16", "icelake-server", "permute in registers", "i"});
    }
    else System.err.println("SKIPPED (LOUD): the host has no AVX-512; GlibcTableLookupCallerTest runs W4 and W8 only");
    for (String[] t : targets) {
      int w = Integer.parseInt(t[0]);
      String tag = w + (t.length > 3 ? t[3] : ""); // W8 five times: "8" and "8h" (haswell), "8s", "8z", "8v" (x86-64-v4)
      String bc = "kernel" + tag + ".bc";
      // one scalar copy of each function in the program: the other modules' are renamed
      List<String> flags = new ArrayList<>(List.of("-O2", "-march=" + t[1], "-nostdlibinc"));
      if (w != 4) for (String f : List.of("tl_exp", "tl_log", "tl_mix")) flags.add("-D" + f + "=" + f + "_s" + tag);
      clang.compileToBitcode(dir, Path.of("table_kernel.c"), Path.of(bc), flags);
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
        for (String f : List.of("tl_exp", "tl_log", "tl_mix")) {
          String scalar = w == 4 ? f : f + "_s" + tag;
          String was = t[2].startsWith("32-bit halves") ? System.setProperty("packetizer.tableLookup", "halves") : null;
          try {
            new Packetizer(PacketizerOptions.builder().width(w).params(f.equals("tl_mix") ? "vv" : "v")
                .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).remarks(remarks::add).build()).run(m, scalar, f + tag);
          } finally {
            if (t[2].startsWith("32-bit halves")) {
              if (was == null) System.clearProperty("packetizer.tableLookup");
              else System.setProperty("packetizer.tableLookup", was);
            }
          }
        }
        m.write(dir.resolve("kernel" + tag + ".packet.bc"));
      }
      List<Remark> calls = remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL).toList();
      assertEquals(4, calls.size(), remarks.toString());
      for (Remark r : calls) {
        assertTrue(r.message().contains("glibc-exact vector (verified at run time)") && r.message().contains("its table lookups: " + t[2]),
            "W" + tag + " " + t[1] + ": " + r.message());
        if (INTEL_AVX2.equals(t[2]))
          assertTrue(r.message().contains("pairs of tables: 32-bit halves permuted in registers") && r.message().contains("an Intel core, " + t[1]),
              "W" + tag + " " + t[1] + ": " + r.message());
      }
      objects.add(Toolchains.llcKernel(clang, dir, tag, "obj"));
      String asm = Files.readString(dir.resolve(Toolchains.llcKernel(clang, dir, tag, "asm")));
      Matcher h = HELPER.matcher(asm);
      int helpers = 0;
      while (h.find()) {
        helpers++;
        String body = h.group();
        String where = "W" + tag + " " + t[1] + " @" + h.group(1) + ":\n" + body;
        assertFalse(body.contains("pextrq"), "64-bit addresses in the table lookup, " + where);
        // a gather only on Intel's AVX2 route, only expf's, and only from the table's symbol (not 64-bit pointers)
        boolean exp = h.group(1).contains("_expf_");
        if (INTEL_AVX2.equals(t[2]) && exp) {
          assertTrue(body.contains("vpgatherqq") && !body.contains("vpextrd"), where);
          for (String line : body.split("\n"))
            // the table's symbol or a base register (PIC: its address by leaq) plus an index scaled by 8, never the
            // base-less scale-1 form of a gather of 64-bit pointers
            if (line.contains("gather"))
              assertTrue(line.matches(".*vpgatherqq\\s.*(__packetizer_glibc_expf_\\w+\\.tab\\(|\\(%r\\w+),%ymm\\d+,8\\).*"), line + "\n" + where);
        } else assertFalse(body.contains("gather"), where);
        if (INTEL_AVX2.equals(t[2]) && !exp) assertTrue(body.contains("vpermd") || body.contains("vpermps"), where);
        if (t[2].startsWith("scalar")) assertTrue(body.contains("pextrd"), where);
        if (t[2].startsWith("permute")) assertTrue(body.contains("vpermi2q") || body.contains("vpermt2q"), where);
        // AVX2 (issue 16, ninth round): the halves permuted in registers, no index moved to a general register
        if (t[2].startsWith("32-bit halves")) assertTrue((body.contains("vpermd") || body.contains("vpermps")) && !body.contains("vpextrd"), where);
      }
      assertEquals(2, helpers, "one expf and one logf helper per module, W" + tag);
    }
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "table_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      assertTrue(out.contains((wide ? 576000 : 360000) + " lanes checked, 0 differences"), exe + ": " + out);
    }
  }
}
