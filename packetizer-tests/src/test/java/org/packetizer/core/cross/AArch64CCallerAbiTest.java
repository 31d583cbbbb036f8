package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * {@code cAbi} ({@code --c-abi}) on AArch64: packet functions published in the C calling convention of
 * AAPCS64 for GCC vector types, called from a C program in its own translation unit compiled by the
 * bundled clang and by Debian's {@code aarch64-linux-gnu-gcc}, linked and run under qemu-aarch64, on
 * NEON and on SVE used at a fixed 256 bits ({@code -msve-vector-bits=256}, which does not change how GCC
 * vector types travel). The caller calls the scalar function once per lane and reports every lane that
 * differs. Cases: float, int, double, char (a 4-byte vector: in a general register), pointers (a vector of
 * pointers), uniform and linear parameters, masked forms (the mask as a bit mask), struct results (two
 * vectors of 16 bytes: a homogeneous short-vector aggregate in q0/q1; wider: through x8), at widths 4, 8 and 16,
 * direct and through the loop wrapper (hardware width 4). Vectors of 16 bytes travel in V registers, wider
 * ones by reference, wider results through memory addressed by x8.
 *
 * <p>Mutation check built in: the same caller linked against LLVM's form of the same functions (no
 * {@code cAbi}: wide vectors split over V registers, a {@code <W x i1>} mask) must report differing lanes.
 */
class AArch64CCallerAbiTest {
  static final String KERNELS = """
      float fmix(float x, float y) {
        if (x < y) return x * 2.0f - y;
        return y / (x + 1.0f);
      }
      int imix(int a, int k) {
        int r = a;
        for (int i = 0; i < (a & 7); i++) r = r * 3 + k;
        return r;
      }
      double dpoly(double x, long i) {
        double t = x * x + (double)i * 0.5;
        return t > 10.0 ? t - 10.0 : t;
      }
      int idiv(int a, int b) { return a / b + (a % 7); }
      int cmix(signed char c, int k) { return c > 3 ? c * k : c - k; }
      float deref(const float *p, float s) { return *p > 0.0f ? *p * s : -*p; }
      struct pair { float x, y; };
      struct pair polar(float r, float t) { struct pair p; p.x = r * t; p.y = r > t ? r - t : t * 0.5f; return p; }
      struct dpair { double x, y; };
      struct dpair dsplit(double v) { struct dpair p; p.x = v * 0.5; p.y = v < 0 ? -v : v + 1.0; return p; }
      """;

  /** One packet function: scalar, name, parameter letters, width, through the wrapper, masked. */
  record Case(String scalar, String simd, String letters, int width, boolean wrapper, boolean masked) {}

  static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) {
      out.add(new Case("fmix", "fmix_w" + w, "vv", w, false, false));
      out.add(new Case("imix", "imix_w" + w, "vu", w, false, false));
      out.add(new Case("dpoly", "dpoly_w" + w, "vl", w, false, false));
      out.add(new Case("cmix", "cmix_w" + w, "vu", w, false, false));
      out.add(new Case("deref", "deref_w" + w, "vu", w, false, false));
      out.add(new Case("imix", "imix_masked_w" + w, "vu", w, false, true));
      out.add(new Case("idiv", "idiv_masked_w" + w, "vv", w, false, true));
      out.add(new Case("fmix", "fmix_masked_w" + w, "vv", w, false, true));
      // struct results: 2 x 16 bytes a homogeneous short-vector aggregate (q0, q1), wider ones through x8
      out.add(new Case("polar", "polar_w" + w, "vv", w, false, false));
      out.add(new Case("dsplit", "dsplit_w" + w, "v", w, false, false));
      if (w > 4) {
        out.add(new Case("fmix", "fmix_loop_w" + w, "vv", w, true, false));
        out.add(new Case("imix", "imix_loop_w" + w, "vu", w, true, false));
        out.add(new Case("dpoly", "dpoly_loop_w" + w, "vl", w, true, false));
        out.add(new Case("deref", "deref_loop_w" + w, "vu", w, true, false));
      }
    }
    return out;
  }

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {0, 256})
  void separatelyCompiledClangAndGccCallersGetEveryLaneRight(int sveBits) throws Exception {
    CrossTarget target = sveBits == 0 ? CrossTarget.neon() : CrossTarget.sve(sveBits);
    CrossTests.require(target);
    BundledClang clang = BundledClang.locate();
    List<Case> cases = cases();
    Path cForm = build(clang, target, cases, true, "c");
    List<String> march = sveBits == 0 ? List.of("-march=armv8-a")
        : List.of("-march=armv8-a+sve", "-msve-vector-bits=" + sveBits);
    Files.writeString(dir.resolve("caller.c"), caller(cases));
    List<String> cc = new ArrayList<>(List.of("clang", "--target=aarch64-linux-gnu", "-O1"));
    cc.addAll(march);
    cc.addAll(List.of("-c", "caller.c", "-o", "caller.clang.o"));
    run(clang, cc);
    List<String> gcc = new ArrayList<>(List.of(target.gcc(), "-O1", "-Wno-psabi"));
    gcc.addAll(march);
    gcc.addAll(List.of("-c", "caller.c", "-o", "caller.gcc.o"));
    run(clang, gcc);
    for (String compiler : List.of("clang", "gcc")) {
      run(clang, List.of(target.gcc(), "-o", "caller." + compiler, "caller." + compiler + ".o", cForm.toString(), "-lm"));
      String out = qemu(target, "caller." + compiler, 0);
      assertTrue(out.contains("checked " + cases.size() + " functions, 0 lanes differ"), out);
    }
    // mutation: LLVM's own form (no cAbi) under the same names is not what these callers pass
    Path llvmForm = build(clang, target, cases, false, "llvm");
    for (String compiler : List.of("clang", "gcc")) {
      run(clang, List.of(target.gcc(), "-o", "mutant." + compiler, "caller." + compiler + ".o", llvmForm.toString(), "-lm"));
      String out = qemu(target, "mutant." + compiler, -1);
      assertFalse(out.contains(" 0 lanes differ"), () -> "the callers did not notice LLVM's form:\n" + out);
    }
  }

  @Test
  void aFourByteResultHasNoCommonCFormAndIsRefused() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define i8 @f(i8 %x) {\n  %r = add i8 %x, 1\n  ret i8 %r\n}\n", "f")) {
      new TargetSpec("aarch64-linux-gnu", "", "+neon", 0).applyTo(m);
      String before = m.toIr();
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(4)
          .cAbi(true).build()).run(m, "f", "f_simd"));
      assertTrue(e.getMessage().contains("<4 x i8>") && e.getMessage().contains("GCC") && e.getMessage().contains("@f"),
          e::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }

  @Test
  void riscvHasNoCFormAndSaysSo() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define float @f(float %x) {\n  ret float %x\n}\n", "f")) {
      new TargetSpec("riscv64-linux-gnu", "", "+v", 0).applyTo(m);
      String before = m.toIr();
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(8)
          .cAbi(true).build()).run(m, "f", "f_simd"));
      assertTrue(e.getMessage().contains("riscv64") && e.getMessage().contains("AArch64"), e::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }

  /** The scalar kernels and their packet functions (C form or LLVM form) as an object for the target. */
  Path build(BundledClang clang, CrossTarget target, List<Case> cases, boolean cAbi, String tag) throws Exception {
    List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
    flags.add("--target=aarch64-linux-gnu");
    byte[] bc = clang.compileToBitcode(KERNELS, "kernels.c", flags);
    Path obj = dir.resolve("packets." + tag + ".o");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "kernels.c")) {
      target.spec().applyTo(m);
      for (Case c : cases) {
        PacketizerOptions.Builder o = PacketizerOptions.builder().width(c.width()).params(c.letters())
            .verifyEachPhase(true).masked(c.masked()).cAbi(cAbi);
        if (c.wrapper()) o.wrapperMode(WrapperMode.LOOP).hardwareWidth(4);
        else o.wrapperMode(WrapperMode.DIRECT);
        new Packetizer(o.build()).run(m, c.scalar(), c.simd());
      }
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      try (TargetMachine tm = target.spec().targetMachine()) {
        TargetObject.emitModule(m, tm, obj);
      }
    }
    return obj;
  }

  /** The caller: inputs per lane, one call of the packet function, the scalar function per lane. */
  static String caller(List<Case> cases) {
    StringBuilder sb = new StringBuilder();
    sb.append("int printf(const char *, ...);\n");
    sb.append("float fmix(float, float);\nint imix(int, int);\ndouble dpoly(double, long);\nint idiv(int, int);\n");
    sb.append("int cmix(signed char, int);\nfloat deref(const float *, float);\n");
    sb.append("struct pair { float x, y; };\nstruct pair polar(float, float);\n");
    sb.append("struct dpair { double x, y; };\nstruct dpair dsplit(double);\n");
    sb.append("static float cells[64];\n");
    sb.append("static int bad;\n");
    sb.append("static void report(const char *fn, int lane, double got, double want) {\n");
    sb.append("  printf(\"%s lane %d: %a, scalar %a\\n\", fn, lane, got, want);\n  bad++;\n}\n");
    for (Case c : cases) {
      int w = c.width();
      String id = c.simd();
      if (c.scalar().equals("polar") || c.scalar().equals("dsplit")) {
        boolean d = c.scalar().equals("dsplit");
        String e = d ? "double" : "float";
        String vt = "v_" + id;
        sb.append("typedef ").append(e).append(" ").append(vt).append(" __attribute__((vector_size(").append((d ? 8 : 4) * w)
            .append(")));\n");
        sb.append("typedef struct { ").append(vt).append(" x, y; } r_").append(id).append(";\n");
        sb.append("r_").append(id).append(" ").append(id).append("(").append(d ? vt : vt + ", " + vt).append(");\n");
        sb.append("static void check_").append(id).append("(void) {\n  ").append(vt).append(" a, b;\n");
        sb.append("  for (int j = 0; j < ").append(w).append("; j++) { a[j] = (").append(e).append(")((j * 5) % 7) - 2.5;")
            .append(" b[j] = (").append(e).append(")((j * 3) % 4) - 0.75; }\n");
        sb.append("  r_").append(id).append(" r = ").append(id).append(d ? "(a);\n" : "(a, b);\n");
        sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
        sb.append("    struct ").append(d ? "dpair" : "pair").append(" want = ").append(d ? "dsplit(a[j])" : "polar(a[j], b[j])").append(";\n");
        sb.append("    if (r.x[j] != want.x) report(\"").append(id).append(".x\", j, r.x[j], want.x);\n");
        sb.append("    if (r.y[j] != want.y) report(\"").append(id).append(".y\", j, r.y[j], want.y);\n  }\n}\n");
        continue;
      }
      String elem = switch (c.scalar()) {
        case "fmix", "deref" -> "float";
        case "dpoly" -> "double";
        default -> "int";
      };
      int bytes = elem.equals("double") ? 8 : 4;
      String vt = "v_" + id;
      sb.append("typedef ").append(elem).append(" ").append(vt).append(" __attribute__((vector_size(")
          .append(bytes * w).append(")));\n");
      String at = vt;
      if (c.scalar().equals("cmix")) {
        at = "c_" + id;
        sb.append("typedef signed char ").append(at).append(" __attribute__((vector_size(").append(w).append(")));\n");
      } else if (c.scalar().equals("deref")) {
        at = "p_" + id;
        // (C has no vector of pointers: addresses as unsigned long, the same bytes)
        sb.append("typedef unsigned long ").append(at).append(" __attribute__((vector_size(").append(8 * w).append(")));\n");
      }
      String bitsType = w <= 8 ? "unsigned char" : w <= 16 ? "unsigned short" : "unsigned int";
      String params = switch (c.scalar()) {
        case "fmix", "idiv" -> at + ", " + at;
        case "imix", "cmix" -> at + ", int";
        case "deref" -> at + ", float";
        default -> at + ", long";
      };
      sb.append(vt).append(" ").append(id).append("(").append(params).append(c.masked() ? ", " + bitsType : "").append(");\n");
      sb.append("static void check_").append(id).append("(void) {\n");
      sb.append("  ").append(at).append(" a, b; ").append(vt).append(" r;\n");
      sb.append("  unsigned long long bits = 0;\n");
      sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
      switch (c.scalar()) {
        case "fmix" -> sb.append("    a[j] = (float)((j * 5) % 7) - 2.5f; b[j] = (float)((j * 3) % 4) - 0.75f;\n");
        case "imix" -> sb.append("    a[j] = j * 13 - 20;\n");
        case "idiv" -> sb.append("    a[j] = j * 29 - 50; b[j] = j % 3 == 1 ? 0 : j - 7 + (j == 7);\n");
        case "cmix" -> sb.append("    a[j] = (signed char)(j * 3 - 9);\n");
        case "deref" -> sb.append("    cells[(j * 7) % 64] = (float)(j % 5) - 1.5f + j; a[j] = (unsigned long) &cells[(j * 7) % 64];\n");
        default -> sb.append("    a[j] = (double)((j * 5) % 9) * 0.75 - 2.0;\n");
      }
      if (c.masked()) sb.append("    if (j % 3 != 1) bits |= 1ull << j;\n");
      sb.append("  }\n");
      String maskArg = c.masked() ? ", (" + bitsType + ") bits" : "";
      String second = switch (c.scalar()) {
        case "fmix", "idiv" -> "b";
        case "imix", "cmix" -> "7";
        case "deref" -> "1.5f";
        default -> "5";
      };
      sb.append("  r = ").append(id).append("(a, ").append(second).append(maskArg).append(");\n");
      sb.append("  for (int j = 0; j < ").append(w).append("; j++) {\n");
      if (c.masked()) sb.append("    if (j % 3 == 1) continue;\n");
      String want = switch (c.scalar()) {
        case "fmix" -> "fmix(a[j], b[j])";
        case "imix" -> "imix(a[j], 7)";
        case "idiv" -> "idiv(a[j], b[j])";
        case "cmix" -> "cmix(a[j], 7)";
        case "deref" -> "deref((const float *) a[j], 1.5f)";
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

  ProcessResult run(BundledClang clang, List<String> cmd) {
    ProcessResult r = clang.run(new ArrayList<>(cmd), dir);
    assertEquals(0, r.exitCode(), () -> String.join(" ", cmd) + ":\n" + r.stdoutText() + r.stderr());
    return r;
  }

  /** Runs {@code exe} under qemu; {@code wantExit} 0: must succeed; -1: must not succeed. */
  String qemu(CrossTarget target, String exe, int wantExit) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(target.qemu(), "-cpu", target.qemuCpu(), dir.resolve(exe).toString())
        .redirectErrorStream(true);
    pb.environment().put("QEMU_LD_PREFIX", target.sysroot().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    if (wantExit == 0) assertEquals(0, code, () -> exe + " under " + target + ": lanes differ from the scalar function:\n" + out);
    else assertNotEquals(0, code, () -> exe + " under " + target + " should have failed:\n" + out);
    return out;
  }
}
