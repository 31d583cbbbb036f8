package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of calling conventions: packet functions emitted to an object file by the bundled
 * {@code llc}, called from a C program in its own translation unit compiled by the bundled clang and
 * by GCC ({@code -O1 -march=<isa>}), which calls the scalar function once per lane itself and prints
 * every lane that differs. Per ISA (SSE4.2, AVX, AVX2, AVX-512): float, int and double packet
 * functions at every width whose vectors fit one register of the ISA (wider vectors C passes in
 * memory, see the limits), with varying, uniform and linear parameters, directly and as loop
 * wrappers; struct-of-arrays pointers at widths 4, 8, 16 and 32; and the masked vector-function-ABI
 * variants ({@code _ZGV<isa>M...}) with the ABI's masks (a vector of the characteristic type, an
 * integer bit mask for AVX-512). Before the fix, the AVX-512 programs read zmm arguments as ymm
 * pairs (width 16 float, width 8 double) and the masked variants took {@code <W x i1>}.
 */
class CCallerAbiTest {
  /** -march, ISA letter, widest vector register in bits, the cpuinfo flag the host needs. */
  record Isa(String march, char letter, int bits, String hostFlag) {}

  static Isa isa(String march) {
    return switch (march) {
      case "x86-64-v2" -> new Isa(march, 'b', 128, "sse4_2");
      case "sandybridge" -> new Isa(march, 'c', 256, "avx");
      case "x86-64-v3" -> new Isa(march, 'd', 256, "avx2");
      case "x86-64-v4" -> new Isa(march, 'e', 512, "avx512f");
      default -> throw new IllegalArgumentException(march);
    };
  }

  /** One packet function the caller checks. */
  record Case(String scalar, String simd, String letters, int width, boolean wrapper, boolean abiMasked, boolean cAbi,
      boolean masked) {
    Case(String scalar, String simd, String letters, int width, boolean wrapper, boolean abiMasked) {
      this(scalar, simd, letters, width, wrapper, abiMasked, false, false);
    }
  }

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"x86-64-v2", "sandybridge", "x86-64-v3", "x86-64-v4"})
  void separatelyCompiledCallersGetEveryLaneRight(String march) throws Exception {
    Isa isa = isa(march);
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("abi_kernels.c"), resource("abi_kernels.c"));
    List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
    flags.add("-march=" + march);
    clang.compileToBitcode(dir, Path.of("abi_kernels.c"), Path.of("kernels.bc"), flags);

    List<Case> cases = cases(isa);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (Case c : cases) {
        PacketizerOptions.Builder o = PacketizerOptions.builder().width(c.width()).params(c.letters()).verifyEachPhase(true);
        if (c.wrapper()) o.wrapperMode(WrapperMode.LOOP).hardwareWidth(4);
        else o.wrapperMode(WrapperMode.DIRECT);
        if (c.abiMasked()) o.masked(true).vectorAbi(true);
        if (c.cAbi()) o.cAbi(true).masked(c.masked());
        new Packetizer(o.build()).run(m, c.scalar(), c.simd());
      }
      m.write(dir.resolve("packet.bc"));
    }
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("packet.bc").toString(), "-o", dir.resolve("packet.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    Files.writeString(dir.resolve("caller.c"), caller(cases, isa));

    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("packet.o")), dir.resolve("caller.clang"),
        List.of("-O1", "-march=" + march));
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller("CCallerAbiTest")) {
      // (-Wno-psabi: GCC notes that vectors wider than the ISA's registers go in memory, as the C form expects)
      ProcessResult gcc = clang.run(List.of(Toolchains.gcc().get(), "-O1", "-march=" + march, "-Wno-psabi", "caller.c",
          "packet.o", "-o", "caller.gcc"), dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    if (!Toolchains.hostHas(isa.hostFlag())) {
      System.err.println("SKIPPED (LOUD): this host has no " + isa.hostFlag() + "; the " + march + " callers were built"
          + " but not run");
      return;
    }
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " (" + march + "): lanes differ from the scalar function:\n" + out + r.stderr());
      assertTrue(out.contains("checked " + cases.size() + " functions"), out);
    }
  }

  static List<Case> cases(Isa isa) {
    List<Case> out = new ArrayList<>();
    // vectors up to one register: LLVM's form is C's; wider ones: the C form (cAbi) takes them in memory
    for (int w : new int[] {4, 8, 16, 32}) {
      boolean c = 32 * w > isa.bits();
      out.add(new Case("fmix", "fmix_w" + w, "vv", w, false, false, c, false));
      out.add(new Case("imix", "imix_w" + w, "vu", w, false, false, c, false));
      if (w > 4) {
        out.add(new Case("fmix", "fmix_loop_w" + w, "vv", w, true, false, c, false));
        out.add(new Case("imix", "imix_loop_w" + w, "vu", w, true, false, c, false));
      }
      // the library's masked form from C: the mask as an integer bit mask (cAbi)
      out.add(new Case("imix", "imix_masked_w" + w, "vu", w, false, false, true, true));
      out.add(new Case("idiv", "idiv_masked_w" + w, "vv", w, false, false, true, true));
    }
    // chars: 4 of them (4 bytes) travel in a general register (clang and GCC), LLVM's <4 x i8> in xmm0
    for (int w : new int[] {4, 8, 16}) {
      out.add(new Case("cmix", "cmix_w" + w, "vu", w, false, false, true, false));
    }
    for (int w : new int[] {2, 4, 8, 16}) {
      out.add(new Case("dpoly", "dpoly_w" + w, "vl", w, false, false, 64 * w > isa.bits(), false));
    }
    out.add(new Case("dpoly", "dpoly_loop_w16", "vl", 16, true, false, 64 * 16 > isa.bits(), false));
    for (int w : new int[] {4, 8, 16, 32}) {
      out.add(new Case("soa", "soa_w" + w, "s", w, false, false));
      if (w > 4) out.add(new Case("soa", "soa_loop_w" + w, "s", w, true, false));
    }
    // the masked vector-function-ABI variants whose vectors fit one register (C has no type for the
    // ABI's split registers; GccOmpSimdCallerTest calls those from #pragma omp simd loops)
    int wf = isa.bits() / 32;
    int wd = isa.bits() / 64;
    out.add(new Case("fmix", "_ZGV" + isa.letter() + "M" + wf + "vv_fmix", "vv", wf, false, true));
    out.add(new Case("dpoly", "_ZGV" + isa.letter() + "M" + wd + "vl_dpoly", "vl", wd, false, true));
    // a wrong mask shows here: inactive lanes skip the loop (imix) and a masked-off division by zero traps (idiv)
    out.add(new Case("imix", "_ZGV" + isa.letter() + "M" + wf + "vu_imix", "vu", wf, false, true));
    out.add(new Case("idiv", "_ZGV" + isa.letter() + "M" + wf + "vv_idiv", "vv", wf, false, true));
    return out;
  }

  /** The caller: inputs per lane, one call of the packet function, the scalar function per lane. */
  static String caller(List<Case> cases, Isa isa) {
    StringBuilder sb = new StringBuilder();
    sb.append("int printf(const char *, ...);\n");
    sb.append("float fmix(float, float);\nint imix(int, int);\ndouble dpoly(double, long);\nint idiv(int, int);\n");
    sb.append("int cmix(signed char, int);\n");
    sb.append("struct point { float x, y; };\nvoid soa(struct point *);\n");
    sb.append("static int bad;\n");
    sb.append("static void report(const char *fn, int lane, double got, double want) {\n");
    sb.append("  printf(\"%s lane %d: %a, scalar %a\\n\", fn, lane, got, want);\n  bad++;\n}\n");
    for (Case c : cases) {
      int w = c.width();
      String id = c.simd();
      if (c.scalar().equals("soa")) {
        sb.append("struct soa_").append(id).append(" { float x[").append(w).append("]; float y[").append(w).append("]; };\n");
        sb.append("void ").append(id).append("(struct soa_").append(id).append(" *);\n");
        sb.append("static void check_").append(id).append("(void) {\n");
        sb.append("  struct soa_").append(id).append(" p;\n  struct point q[").append(w).append("];\n");
        sb.append("  for (int j = 0; j < ").append(w).append("; j++) { p.x[j] = q[j].x = (float)((j * 7) % 5) - 1.5f;")
            .append(" p.y[j] = q[j].y = (float)((j * 3) % 4) - 0.25f; soa(&q[j]); }\n");
        sb.append("  ").append(id).append("(&p);\n");
        sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
        sb.append("    if (p.x[j] != q[j].x) report(\"").append(id).append(".x\", j, p.x[j], q[j].x);\n");
        sb.append("    if (p.y[j] != q[j].y) report(\"").append(id).append(".y\", j, p.y[j], q[j].y);\n  }\n}\n");
        continue;
      }
      String elem = switch (c.scalar()) {
        case "fmix" -> "float";
        case "imix", "idiv", "cmix" -> "int";
        default -> "double";
      };
      String at = "v_" + id;
      if (c.scalar().equals("cmix")) {
        at = "c_" + id;
        sb.append("typedef signed char ").append(at).append(" __attribute__((vector_size(").append(c.width()).append(")));\n");
      }
      int bytes = elem.equals("double") ? 8 : 4;
      String vt = "v_" + id;
      sb.append("typedef ").append(elem).append(" ").append(vt).append(" __attribute__((vector_size(")
          .append(bytes * w).append(")));\n");
      String maskDecl = "";
      String bitsType = w <= 8 ? "unsigned char" : w <= 16 ? "unsigned short" : w <= 32 ? "unsigned int" : "unsigned long long";
      if (c.masked()) maskDecl = ", " + bitsType;
      if (c.abiMasked()) {
        if (isa.letter() == 'e') {
          maskDecl = ", unsigned int";
        } else {
          String mt = "m_" + id;
          sb.append("typedef ").append(bytes == 8 ? "long" : "int").append(" ").append(mt)
              .append(" __attribute__((vector_size(").append(bytes * w).append(")));\n");
          maskDecl = ", " + mt;
        }
      }
      String params = switch (c.scalar()) {
        case "fmix", "idiv" -> vt + ", " + vt;
        case "imix" -> vt + ", int";
        case "cmix" -> at + ", int";
        default -> vt + ", long";
      };
      // a result wider than the ISA's registers comes back through memory (psABI, GCC); clang 20 does that for a
      // one-member struct (a plain vector type it returns in registers), so the declaration wraps it
      boolean wideResult = bytes * 8 * w > isa.bits();
      String rt = wideResult ? "r_" + id : vt;
      if (wideResult) sb.append("typedef struct { ").append(vt).append(" v; } ").append(rt).append(";\n");
      sb.append(rt).append(" ").append(id).append("(").append(params).append(maskDecl).append(");\n");
      sb.append("static void check_").append(id).append("(void) {\n");
      sb.append("  ").append(at).append(" a; ").append(vt).append(" b, r;\n");
      if (c.abiMasked() && isa.letter() != 'e') sb.append("  m_").append(id).append(" mask;\n");
      sb.append("  unsigned long long bits = 0;\n");
      sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
      switch (c.scalar()) {
        case "fmix" -> sb.append("    a[j] = (float)((j * 5) % 7) - 2.5f; b[j] = (float)((j * 3) % 4) - 0.75f;\n");
        case "imix" -> sb.append("    a[j] = j * 13 - 20;\n");
        case "cmix" -> sb.append("    a[j] = (signed char)(j * 3 - 9); b[j] = 0;\n");
        case "idiv" -> sb.append("    a[j] = j * 29 - 50; b[j] = j % 3 == 1 ? 0 : j - 7 + (j == 7);\n");
        default -> sb.append("    a[j] = (double)((j * 5) % 9) * 0.75 - 2.0;\n");
      }
      if (c.masked()) sb.append("    if (j % 3 != 1) bits |= 1ull << j;\n");
      if (c.abiMasked()) {
        if (isa.letter() == 'e') sb.append("    if (j % 3 != 1) bits |= 1ull << j;\n");
        else sb.append("    mask[j] = j % 3 != 1 ? (j % 2 ? -1 : 5) : 0;\n");
      }
      sb.append("  }\n");
      String maskArg = c.abiMasked() ? (isa.letter() == 'e' ? ", (unsigned int) bits" : ", mask")
          : c.masked() ? ", (" + bitsType + ") bits" : "";
      String member = wideResult ? ".v" : "";
      switch (c.scalar()) {
        case "fmix", "idiv" -> sb.append("  r = ").append(id).append("(a, b").append(maskArg).append(")").append(member).append(";\n");
        case "imix", "cmix" -> sb.append("  r = ").append(id).append("(a, 7").append(maskArg).append(")").append(member).append(";\n");
        default -> sb.append("  r = ").append(id).append("(a, 5").append(maskArg).append(")").append(member).append(";\n");
      }
      sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
      if (c.abiMasked() || c.masked()) sb.append("    if (j % 3 == 1) continue;\n");
      String want = switch (c.scalar()) {
        case "fmix" -> "fmix(a[j], b[j])";
        case "imix" -> "imix(a[j], 7)";
        case "cmix" -> "cmix(a[j], 7)";
        case "idiv" -> "idiv(a[j], b[j])";
        default -> "dpoly(a[j], 5 + j)";
      };
      sb.append("    ").append(elem).append(" want = ").append(want).append(";\n");
      sb.append("    if (r[j] != want) report(\"").append(id).append("\", j, r[j], want);\n  }\n}\n");
    }
    sb.append("int main(void) {\n");
    for (Case c : cases) sb.append("  check_").append(c.simd()).append("();\n");
    sb.append("  printf(\"checked ").append(cases.size()).append(" functions, %d lanes differ\\n\", bad);\n");
    sb.append("  return bad != 0;\n}\n");
    return sb.toString();
  }

  static String resource(String name) {
    try (InputStream in = CCallerAbiTest.class.getResourceAsStream("/abi/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource abi/" + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String lower(String s) { return s.toLowerCase(Locale.ROOT); }
}
