package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.LlvmContext;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;

/** The packetize command in this JVM (picocli with captured streams): every option and error path. */
class PacketizeCommandTest {
  @TempDir Path dir;

  private static void ok(Cli.Run r) { assertEquals(0, r.code(), r.toString()); }

  private static void fails(int code, Cli.Run r, String... mustMention) {
    assertEquals(code, r.code(), r.toString());
    for (String s : mustMention) assertTrue(r.err().contains(s), "stderr should mention '" + s + "':\n" + r);
    assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace without --debug:\n" + r);
  }

  private String p(String name) { return Cli.copy(dir, name).toString(); }

  // ---- help, version, usage ----

  @Test
  void helpListsOptionsExitCodesAndExamples() {
    Cli.Run r = Cli.run("--help");
    ok(r);
    for (String s : List.of("--function", "--width", "--hardware-width", "--wrapper=auto|loop|direct", "--target-cpu",
        "--target-features", "--params", "--masked", "--vector-abi", "--memory", "--integer-masks=auto|always|never", "-o", "-S", "--jobs", "--check[=N]", "--range", "--buffer", "--dot", "--remarks[=FILE]", "--debug",
        "--version", "Exit codes:", "demo", "Examples:")) {
      assertTrue(r.out().contains(s), "help mentions " + s + "\n" + r.out());
    }
  }

  @Test
  void versionComesFromTheMavenProject() {
    Cli.Run r = Cli.run("--version");
    ok(r);
    assertTrue(r.out().startsWith("packetize " + VersionProvider.version()), r.out());
    assertNotEquals("unknown", VersionProvider.version());
    assertTrue(r.out().contains("LLVM 20."), r.out());
  }

  @Test
  void usageErrorsExitTwoWithAHint() {
    fails(2, Cli.run(), "no input files");
    fails(2, Cli.run("--widht", "4", p("single.ll")), "Unknown option", "--width", "--help");
    fails(2, Cli.run("-w", "abc", p("single.ll")), "'abc' is not an int");
    fails(2, Cli.run("--memory", "scatter", p("single.ll")), "expected gather or cascade");
    fails(2, Cli.run("--vector-math", "sleef", p("single.ll")), "expected intrinsics or libmvec");
    fails(2, Cli.run("--wrapper", "foo", p("single.ll")), "--wrapper foo: expected auto, loop or direct");
    fails(2, Cli.run("--integer-masks", "maybe", p("single.ll")), "--integer-masks maybe: expected auto, always or never");
    fails(2, Cli.run("-j", "0", p("single.ll")), "-j needs at least 1");
    fails(2, Cli.run("--check=0", p("single.ll")), "--check=N needs N >= 1");
  }

  // ---- transforming ----

  @Test
  void defaultOutputIsTheInputWithPacketBcAndHoldsBothFunctions() throws IOException {
    Cli.Run r = Cli.run(p("branchy.ll"), "-f", "clamp_scale");
    ok(r);
    Path out = dir.resolve("branchy.packet.bc");
    assertTrue(LlvmContext.isBitcode(Files.readAllBytes(out)), "bitcode by default");
    Cli.Loaded m = Cli.load(out);
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    assertTrue(m.definedFunctions().containsAll(List.of("clamp_scale", "triangle", "clamp_scale_simd8")), m.definedFunctions().toString());
    assertTrue(r.err().contains("@clamp_scale -> @clamp_scale_simd8 (width 8, params vv)"), r.err());
    assertTrue(r.err().contains("wrote " + out), r.err());
  }

  @Test
  void textualOutputWithDashSAndExplicitNames() throws IOException {
    ok(Cli.run(p("branchy.ll"), "-f", "clamp_scale:cs4", "-w", "4", "-S"));
    String ir = Files.readString(dir.resolve("branchy.packet.ll"));
    assertTrue(ir.contains("define <4 x float> @cs4(<4 x float> %a, <4 x float> %b)"), ir);
    Path o = dir.resolve("custom.ll");
    ok(Cli.run(p("branchy.ll"), "-f", "clamp_scale", "-w", "16", "-S", "-o", o.toString()));
    assertTrue(Files.readString(o).contains("@clamp_scale_simd16(<16 x float>"));
  }

  @Test
  void bitcodeInputStdinAndStdout() throws IOException {
    Path bc = dir.resolve("single.bc");
    ok(Cli.run(p("single.ll"), "-o", bc.toString()));
    // a .bc input, written to standard output as text
    Cli.Run r = Cli.run(bc.toString(), "-f", "absdiff:again", "-w", "4", "-S", "-o", "-");
    ok(r);
    Cli.Loaded m = Cli.load(r.stdout(), "stdout");
    assertTrue(m.verifierMessage().isEmpty());
    assertEquals(List.of("absdiff", "absdiff_simd8", "again"), m.definedFunctions());
    // standard input in, standard output (bitcode) out by default
    Cli.Run s = Cli.run(Files.readAllBytes(dir.resolve("single.ll")), false, "-");
    ok(s);
    assertTrue(LlvmContext.isBitcode(s.stdout()));
    assertTrue(Cli.load(s.stdout(), "stdout").definedFunctions().contains("absdiff_simd8"));
    assertTrue(s.err().contains("<stdin>: @absdiff"), s.err());
  }

  @Test
  void refusesBitcodeOnATerminal() {
    fails(2, Cli.run(new byte[0], true, p("single.ll"), "-o", "-"), "refusing to write bitcode to a terminal", "-S");
    ok(Cli.run(new byte[0], true, p("single.ll"), "-o", "-", "-S"));
  }

  @Test
  void severalFunctionsOfOneModuleWithTheirOwnParams() {
    Path out = dir.resolve("both.ll");
    Cli.Run r = Cli.run(p("branchy.ll"), "-f", "clamp_scale", "-f", "triangle:tri8", "--params", "vu", "--params", "v",
        "-S", "-o", out.toString());
    ok(r);
    Cli.Loaded m = Cli.load(out);
    assertEquals(List.of("clamp_scale", "triangle", "clamp_scale_simd8", "tri8"), m.definedFunctions());
    assertTrue(m.ir().contains("@clamp_scale_simd8(<8 x float> %a, float %b)"), "vu: b uniform");
    assertTrue(r.err().contains("params vu") && r.err().contains("params v)"), r.err());
    fails(2, Cli.run(p("branchy.ll"), "-f", "clamp_scale", "-f", "triangle", "--params", "vv", "--params", "v", "--params", "v"),
        "--params is given 3 times for 2 functions");
    fails(2, Cli.run(p("branchy.ll"), "-f", "clamp_scale", "-f", "triangle:clamp_scale_simd8"), "already the SIMD name");
  }

  @Test
  void withoutDashFTheOnlyFunctionOrAListOfChoices() {
    ok(Cli.run(p("single.ll")));
    fails(2, Cli.run(p("branchy.ll")), "which function?", "@clamp_scale", "@triangle", "-f");
  }

  @Test
  void widths() {
    for (String w : List.of("2", "4", "16", "256")) ok(Cli.run(p("single.ll"), "-w", w, "-o", dir.resolve("w" + w + ".bc").toString()));
    fails(2, Cli.run(p("single.ll"), "-w", "0"), "invalid width 0", "positive");
    fails(2, Cli.run(p("single.ll"), "-w", "3"), "invalid width 3", "power of two");
    fails(2, Cli.run(p("single.ll"), "-w", "-4"), "invalid width -4");
    fails(2, Cli.run(p("single.ll"), "-w", "1000000"), "invalid width 1000000", "larger than 256");
    fails(2, Cli.run(p("single.ll"), "-w", "1"), "the scalar function itself");
  }

  @Test
  void paramLetters() {
    ok(Cli.run(p("single.ll"), "--params", "vl", "-S", "-o", dir.resolve("l.ll").toString()));
    ok(Cli.run(p("single.ll"), "--params", "ua4l2", "-o", dir.resolve("a.bc").toString()));
    fails(2, Cli.run(p("single.ll"), "--params", "vx"), "--params vx", "bad parameter letter 'x'");
    fails(2, Cli.run(p("single.ll"), "--params", "v"), "@absdiff has 2 parameters but 1 parameter kinds were given");
    fails(2, Cli.run(p("single.ll"), "--params", "va"), "alignment number");
  }

  @Test
  void declaredPrototypesFitOrAreExplained() {
    Cli.Run good = Cli.run(p("good_prototype.ll"), "-f", "scale", "-S", "-o", "-");
    ok(good);
    assertTrue(good.out().contains("define <8 x float> @scale_simd8(<8 x float> %a, float %b)"), good.out());
    assertTrue(good.err().contains("params vu"), good.err());
    fails(2, Cli.run(p("bad_prototype.ll"), "-f", "scale"), "bad_prototype.ll", "@scale_simd8", "<4 x float>", "<8 x float> (varying)");
    assertFalse(Files.exists(dir.resolve("bad_prototype.packet.bc")), "no output on failure");
  }

  @Test
  void maskedAddsAMaskParameter() {
    Cli.Run r = Cli.run(p("single.ll"), "--masked", "--check=20", "-S", "-o", "-");
    ok(r);
    assertTrue(r.out().contains("@absdiff_simd8(<8 x i32> %a, <8 x i32> %b, <8 x i1>"), r.out());
    assertTrue(r.err().contains("all equal"), r.err());
  }

  @Test
  void memoryStrategies() {
    Cli.Run g = Cli.run(p("table.ll"), "--params", "uv", "--memory", "gather", "-S", "-o", "-");
    ok(g);
    assertTrue(g.err().contains("1 gather") && g.out().contains("llvm.masked.gather"), g.toString());
    Cli.Run c = Cli.run(p("table.ll"), "--params", "uv", "--memory", "CASCADE", "-S", "-o", "-");
    ok(c);
    assertTrue(c.err().contains("1 if-cascade") && !c.out().contains("llvm.masked.gather"), c.toString());
  }

  @Test
  void integerMasks() {
    // a loop with per-lane trip counts: its masks live across iterations
    Cli.Run always = Cli.run(p("vabi_caller.ll"), "-f", "steps", "-w", "8", "--integer-masks", "always", "--check=20",
        "--range", "0:40", "-S", "-o", "-");
    ok(always);
    assertTrue(always.out().contains("phi <8 x i32>") && !always.out().contains("phi <8 x i1>"), always.out());
    assertTrue(always.err().contains("all equal"), always.err());
    Cli.Run never = Cli.run(p("vabi_caller.ll"), "-f", "steps", "-w", "8", "--integer-masks", "never", "--check=20",
        "--range", "0:40", "-S", "-o", "-");
    ok(never);
    assertTrue(never.out().contains("phi <8 x i1>"), never.out());
    // auto: a haswell target (no mask registers) gets them, an AVX-512 one does not
    Cli.Run avx2 = Cli.run(p("vabi_caller.ll"), "-f", "steps", "-w", "8", "--target-cpu", "haswell", "--target-features", "+avx2",
        "-S", "-o", "-");
    ok(avx2);
    assertTrue(avx2.out().contains("phi <8 x i32>") && !avx2.out().contains("phi <8 x i1>"), avx2.out());
    Cli.Run avx512 = Cli.run(p("vabi_caller.ll"), "-f", "steps", "-w", "8", "--target-cpu", "skylake-avx512",
        "--target-features", "+avx512f,+avx512vl,+avx512bw", "-S", "-o", "-");
    ok(avx512);
    assertTrue(avx512.out().contains("phi <8 x i1>"), avx512.out());
  }

  @Test
  void targetOptionsAndHardwareWidth() {
    Cli.Run r = Cli.run(p("single.ll"), "--target-cpu", "x86-64-v2", "--target-features", "+sse4.2", "--check=10", "-S", "-o", "-");
    ok(r);
    assertTrue(r.out().contains("\"target-cpu\"=\"x86-64-v2\"") && r.out().contains("\"target-features\"=\"+sse4.2\""), r.out());
    Cli.Run hw = Cli.run(p("single.ll"), "-w", "16", "--hardware-width", "8", "--check=20", "-S", "-o", "-");
    ok(hw);
    // the 8-wide packet function and the 16-wide wrapper around it, checked lane by lane
    assertTrue(hw.out().contains(".n8("), "expected an 8-wide inner function:\n" + hw.out());
    assertTrue(hw.out().contains("<16 x "), hw.out());
    fails(2, Cli.run(p("single.ll"), "-w", "8", "--hardware-width", "16"), "must divide the width 8");
    fails(2, Cli.run(p("single.ll"), "-w", "8", "--hardware-width", "3"), "invalid hardware width 3");
  }

  @Test
  void checkThroughTheLoopWrapperComparesAgainstTheLibmvecVariantsTheNarrowFunctionCalls() {
    // an AVX2 function: the 16-wide route would be _ZGVdN8v_*, the 4-wide function calls _ZGVbN4v_*,
    // the 8-wide one _ZGVdN8v_*; --check compares against the same variants, bit for bit (no ulps)
    for (String n : List.of("4", "8")) {
      Cli.Run r = Cli.run(p("loop_math.ll"), "-f", "f", "-w", "16", "--hardware-width", n, "--range", "-20:20", "--check=200", "-S",
          "-o", "-");
      ok(r);
      String v = n.equals("4") ? "_ZGVbN4v_" : "_ZGVdN8v_";
      assertTrue(r.out().contains("@" + v + "expf") && r.out().contains("@" + v + "sinf"), r.out());
      assertTrue(r.err().contains("all equal") && !r.err().contains("ulps"), r.err());
    }
  }

  // ---- wrapper (thesis 4.6) and vector function ABI ----

  /** The defined functions of an output and the IR line that defines {@code name} (or null). */
  private static String define(Cli.Loaded m, String name) {
    return m.ir().lines().filter(l -> l.startsWith("define ") && l.contains(" @" + name + "(")).findFirst().orElse(null);
  }

  /** The text of the attribute group on the definition of {@code name} ("" when it has none). */
  private static String attributes(Cli.Loaded m, String name) {
    Matcher g = Pattern.compile(" #(\\d+) \\{$").matcher(define(m, name));
    if (!g.find()) return "";
    return m.ir().lines().filter(l -> l.startsWith("attributes #" + g.group(1) + " = ")).findFirst().orElseThrow();
  }

  @Test
  void wrapperLoopEmitsTheNWideFunctionAndTheWWideWrapperBothChecked() {
    Path bc = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("loop.ll");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--wrapper", "loop", "--hardware-width", "4",
        "-w", "16", "--check=30", "-S", "-o", out.toString());
    ok(r);
    Cli.Loaded m = Cli.load(out);
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    assertEquals(List.of("mandelbrot", "mandelbrot_simd16.n4", "mandelbrot_simd16"), m.definedFunctions());
    String inner = define(m, "mandelbrot_simd16.n4");
    assertTrue(inner.startsWith("define internal <4 x i32>") && inner.contains("(<4 x float> %x0, <4 x float> %y0, i32 %maxIter)"),
        inner);
    String outer = define(m, "mandelbrot_simd16");
    assertTrue(outer.contains("<16 x i32> @mandelbrot_simd16(<16 x float> %x0, <16 x float> %y0, i32 %maxIter)"), outer);
    assertTrue(m.ir().contains("call <4 x i32> @mandelbrot_simd16.n4("), "the wrapper calls the 4-wide function");
    assertTrue(r.err().contains("wrapper: @mandelbrot_simd16 calls the 4-wide @mandelbrot_simd16.n4 4 times (--wrapper loop)"),
        r.err());
    assertTrue(r.err().contains("check @mandelbrot_simd16 against @mandelbrot: 30 runs, 480 lanes") && r.err().contains("all equal"),
        r.err());
  }

  @Test
  void wrapperDirectWinsOverAHardwareWidthAndIsChecked() {
    Path bc = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("direct.ll");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--wrapper", "direct", "--hardware-width", "4",
        "-w", "16", "--check=30", "-S", "-o", out.toString());
    ok(r);
    Cli.Loaded m = Cli.load(out);
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    assertEquals(List.of("mandelbrot", "mandelbrot_simd16"), m.definedFunctions(), "no N-wide function");
    assertFalse(m.ir().contains(".n4"), m.ir());
    assertTrue(define(m, "mandelbrot_simd16").contains("(<16 x float> %x0, <16 x float> %y0, i32 %maxIter)"), m.ir());
    assertTrue(r.err().contains("warning: --hardware-width 4 has no effect with --wrapper direct"), r.err());
    assertFalse(r.err().contains("wrapper: @"), r.err());
    assertTrue(r.err().contains("check @mandelbrot_simd16 against @mandelbrot: 30 runs, 480 lanes") && r.err().contains("all equal"),
        r.err());
  }

  @Test
  void wrapperLoopWithoutAHardwareWidthTakesTheTargets() {
    // N from --target-cpu / --target-features (as the core's HardwareWidth reads them): SSE 4, AVX2 8
    Cli.Run sse = Cli.run(p("single.ll"), "--wrapper", "loop", "--target-cpu", "x86-64", "-w", "16", "--check=20", "-S", "-o", "-");
    ok(sse);
    Cli.Loaded m = Cli.load(sse.stdout(), "sse");
    assertEquals(List.of("absdiff", "absdiff_simd16.n4", "absdiff_simd16"), m.definedFunctions());
    // the N-wide function does the work: it is compiled for the target too
    assertTrue(attributes(m, "absdiff_simd16.n4").contains("\"target-cpu\"=\"x86-64\""), m.ir());
    assertTrue(sse.err().contains("calls the 4-wide @absdiff_simd16.n4 4 times") && sse.err().contains("all equal"), sse.err());
    Cli.Run avx = Cli.run(p("single.ll"), "--wrapper", "loop", "--target-cpu", "x86-64", "--target-features", "+avx2", "-w", "16",
        "-q", "-S", "-o", "-");
    ok(avx);
    assertEquals(List.of("absdiff", "absdiff_simd16.n8", "absdiff_simd16"), Cli.load(avx.stdout(), "avx").definedFunctions());
    // W not above N: the direct form, and the command says why
    Cli.Run narrow = Cli.run(p("single.ll"), "--wrapper", "loop", "--target-cpu", "x86-64", "-w", "4", "-S", "-o", "-");
    ok(narrow);
    assertEquals(List.of("absdiff", "absdiff_simd4"), Cli.load(narrow.stdout(), "narrow").definedFunctions());
    assertTrue(narrow.err().contains("no wrapper: the width 4 is not above the hardware width 4 (detected)"), narrow.err());
    // no vector registers to loop over: an input error that names the way out
    fails(2, Cli.run(p("single.ll"), "--wrapper", "loop", "--target-cpu", "i686", "-w", "8"), "the hardware width is 1",
        "--wrapper direct");
  }

  @Test
  void wrapperDefaultsLoopWithAHardwareWidthElseAuto() {
    // --hardware-width alone: loop (as before --wrapper existed)
    Cli.Run hw = Cli.run(p("single.ll"), "--hardware-width", "4", "-w", "8", "-S", "-o", "-");
    ok(hw);
    assertEquals(List.of("absdiff", "absdiff_simd8.n4", "absdiff_simd8"), Cli.load(hw.stdout(), "hw").definedFunctions());
    // nothing: auto, which serves straight-line code directly (docs/wrapper.md) ...
    Cli.Run auto = Cli.run(p("single.ll"), "--target-cpu", "x86-64", "-w", "32", "-S", "-o", "-");
    ok(auto);
    assertEquals(List.of("absdiff", "absdiff_simd32"), Cli.load(auto.stdout(), "auto").definedFunctions());
    // ... and a divergent loop at W/N >= 8 through the wrapper
    Cli.Run loop = Cli.run(p("branchy.ll"), "-f", "triangle", "--wrapper", "auto", "--hardware-width", "4", "-w", "32",
        "--check=20", "--range", "-5:40", "-S", "-o", "-");
    ok(loop);
    assertEquals(List.of("clamp_scale", "triangle", "triangle_simd32.n4", "triangle_simd32"),
        Cli.load(loop.stdout(), "loop").definedFunctions());
    assertTrue(loop.err().contains("(--wrapper auto chose loop)") && loop.err().contains("all equal"), loop.err());
  }

  @Test
  void vectorAbiNamesThePacketFunctionAnnotatesCallsAndIsChecked() {
    Cli.Run r = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--check=30", "--range", "-5:40", "-S", "-o", "-");
    ok(r);
    Cli.Loaded m = Cli.load(r.stdout(), "vabi");
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    // SSE2 module (b), unmasked (N), 8 lanes, one varying parameter
    // 8 x i32 needs two xmm registers: the ABI (as GCC) returns it through memory, so _ZGVbN8v_steps is that thin
    // form around LLVM's form _ZGVbN8v_steps.ir, which the loop vectorizer is told about and --check checks
    assertEquals(List.of("steps", "all_steps", "_ZGVbN8v_steps.ir", "_ZGVbN8v_steps"), m.definedFunctions());
    assertTrue(define(m, "_ZGVbN8v_steps.ir").contains("<8 x i32> @_ZGVbN8v_steps.ir(<8 x i32> %n)"), m.ir());
    assertTrue(define(m, "_ZGVbN8v_steps").contains("void @_ZGVbN8v_steps(ptr sret(<8 x i32>) align 16 %result, <8 x i32> %n)"),
        m.ir());
    assertTrue(m.ir().contains("\"vector-function-abi-variant\"=\"_ZGVbN8v_steps(_ZGVbN8v_steps.ir)\""), m.ir());
    assertTrue(r.err().contains("@steps -> @_ZGVbN8v_steps (width 8, params v)"), r.err());
    assertTrue(r.err().contains("published under the vector function ABI as _ZGVbN8v_steps(_ZGVbN8v_steps.ir); 1 call site(s)"
        + " of @steps annotated"), r.err());
    assertTrue(r.err().contains("check @_ZGVbN8v_steps against @steps: 30 runs, 240 lanes") && r.err().contains("all equal"),
        r.err());
    // masked: M and the mask parameter
    Cli.Run masked = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--masked", "-w", "4", "--check=20", "--range",
        "0:30", "-S", "-o", "-");
    ok(masked);
    // the ABI's mask: a vector of the characteristic type (int), non-zero lanes active; LLVM's form keeps <4 x i1>
    assertTrue(masked.out().contains("@_ZGVbM4v_steps(<4 x i32> %n, <4 x i32> %mask)"), masked.out());
    assertTrue(masked.out().contains("@_ZGVbM4v_steps.ir(<4 x i32> %n, <4 x i1> %mask)"), masked.out());
    // a SIMD name of one's own: published under it, announced under the ABI's
    Cli.Run named = Cli.run(p("vabi_caller.ll"), "-f", "steps:steps8", "--vector-abi", "-S", "-o", "-");
    ok(named);
    // (8 lanes on b: steps8 is the ABI's form, LLVM's form steps8.ir is what the loop vectorizer calls)
    assertTrue(named.out().contains("\"vector-function-abi-variant\"=\"_ZGVbN8v_steps(steps8.ir)\""), named.out());
  }

  @Test
  void vectorAbiOnABundledKernel() {
    Path bc = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("abi.bc");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--vector-abi", "--check=30", "-o", out.toString());
    ok(r);
    Cli.Loaded m = Cli.load(out);
    assertTrue(m.verifierMessage().isEmpty(), m.verifierMessage().orElse(""));
    // 8 x i32 results need two xmm registers: the ABI's form returns them through memory around LLVM's form
    assertEquals(List.of("mandelbrot", "_ZGVbN8vvu_mandelbrot.ir", "_ZGVbN8vvu_mandelbrot"), m.definedFunctions());
    assertTrue(r.err().contains("@mandelbrot -> @_ZGVbN8vvu_mandelbrot") && r.err().contains("all equal"), r.err());
  }

  @Test
  void vectorAbiMistakesAreExplained() {
    // pointers default to s, which has no ABI letter
    fails(2, Cli.run(p("table.ll"), "--vector-abi"), "cannot publish @lookup under the vector function ABI", "give the kinds");
    fails(2, Cli.run(p("vabi_caller.ll"), "-f", "steps", "-f", "steps", "--vector-abi"),
        "@steps is already published under its vector-function-ABI name by an earlier -f");
    // the variant is compiled for its ISA: another --target-cpu keeps b's registers (its features switch AVX off) ...
    Cli.Run cpu = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--target-cpu", "haswell", "-q", "-S", "-o", "-");
    ok(cpu);
    assertEquals("", cpu.err());
    assertTrue(cpu.out().matches("(?s).*\"target-cpu\"=\"haswell\" \"target-features\"=\"[^\"]*-avx[\",].*"), cpu.out());
    // ... --target-features names the ISA the run decides for (RunTarget, nineteenth round): +avx2 publishes the AVX2
    // variant, 'd', consistent with the registers it is compiled for
    Cli.Run avx2 = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--target-features", "+avx2", "-q", "-S", "-o", "-");
    ok(avx2);
    assertEquals("", avx2.err());
    assertTrue(avx2.out().contains("define <8 x i32> @_ZGVdN8v_steps(") && !avx2.out().contains("_ZGVbN8v_steps"), avx2.out());
    // ... but a name that spells another ISA than the features' registers is the mistake the warning explains
    Cli.Run wider = Cli.run(p("vabi_caller.ll"), "-f", "steps:_ZGVbN8v_steps", "--vector-abi", "--target-features", "+avx2", "-q",
        "-S", "-o", "-");
    ok(wider);
    assertTrue(wider.err().contains("warning: --vector-abi: @_ZGVbN8v_steps is compiled for 256-bit vector registers")
        && wider.err().contains("ISA letter 'b'"), wider.err());
    Cli.Run same = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--target-features", "+sse4.2", "-q", "-S", "-o", "-");
    ok(same);
    assertEquals("", same.err());
  }

  @Test
  void vectorAbiWithTheLoopWrapperAnnouncesTheWWideFunction() {
    Cli.Run r = Cli.run(p("vabi_caller.ll"), "-f", "steps", "--vector-abi", "--wrapper", "loop", "--hardware-width", "4", "-w", "16",
        "--check=20", "--range", "0:40", "-S", "-o", "-");
    ok(r);
    Cli.Loaded m = Cli.load(r.stdout(), "vabi-loop");
    assertEquals(List.of("steps", "all_steps", "_ZGVbN16v_steps.n4", "_ZGVbN16v_steps.ir", "_ZGVbN16v_steps"),
        m.definedFunctions());
    assertTrue(r.err().contains("check @_ZGVbN16v_steps against @steps") && r.err().contains("all equal"), r.err());
    assertFalse(m.ir().contains("_ZGVbN16v_steps.n4)"), "the internal 4-wide function must not be announced:\n" + m.ir());
    assertTrue(m.ir().contains("\"vector-function-abi-variant\"=\"_ZGVbN16v_steps(_ZGVbN16v_steps.ir)\""), m.ir());
  }

  // ---- check ----

  @Test
  void checkPassesAndSaysOnWhat() {
    Cli.Run r = Cli.run("--check", p("branchy.ll"), "-f", "clamp_scale", "-f", "triangle", "--range", "n=-5:40", "--range", "-9:9");
    ok(r);
    assertTrue(r.err().contains("check @clamp_scale_simd8 against @clamp_scale: 100 runs, 800 lanes"), r.err());
    assertTrue(r.err().contains("check @triangle_simd8 against @triangle: 100 runs"), r.err());
    assertTrue(r.err().contains("--range for %a, %b") && r.err().contains("--range for %n"), r.err());
    Cli.Run few = Cli.run(p("single.ll"), "--check=7", "--seed", "42");
    ok(few);
    assertTrue(few.err().contains("7 runs, 56 lanes") && few.err().contains("seed 42"), few.err());
  }

  @Test
  void checkTakesRangesFromTheManifestForBundledKernels() {
    Path bc = Cli.bundled(dir, "checker");
    Cli.Run r = Cli.run(bc.toString(), "-f", "checker", "--check=20");
    ok(r);
    assertTrue(r.err().contains("ranges of bundled kernel checker (kernels/textures.c)"), r.err());
  }

  @Test
  void checkMismatchExitsOneWithTheFirstLaneAndItsInputs() {
    Cli.Run r = Cli.run(p("stateful.ll"), "--check", "-o", dir.resolve("s.bc").toString());
    fails(1, r, "check failed", "@next_id_simd8 differs from @next_id", "first differing lane 0", "lane 0: return value: expected",
        "inputs: base=");
  }

  @Test
  void checkWithBuffersForPointerParameters() {
    for (String kinds : List.of("uv", "sv", "vv", "l4v")) {
      Cli.Run r = Cli.run(p("table.ll"), "--params", kinds, "--check=30", "--buffer", "table=float*16:in", "--range", "i=-40:40",
          "-o", dir.resolve("t.bc").toString());
      ok(r);
      assertTrue(r.err().contains("30 runs, 240 lanes") && r.err().contains("--range for %i; --buffer for %table"), r.err());
    }
    Cli.Run cascade = Cli.run(p("table.ll"), "--params", "uv", "--memory", "cascade", "--check=30", "--buffer", "0=float*16:in",
        "-o", dir.resolve("c.bc").toString());
    ok(cascade);
    Cli.Run typo = Cli.run(p("table.ll"), "--check=3", "--buffer", "table=float*16", "--buffer", "tabel=i32", "-o",
        dir.resolve("x.bc").toString());
    ok(typo);
    assertTrue(typo.err().contains("warning: --buffer tabel=...: @lookup has no parameter named or numbered 'tabel'"), typo.err());
  }

  @Test
  void checkExplainsWhatItCannotDo() {
    fails(2, Cli.run(p("table.ll"), "--params", "uv", "--check"), "--check needs to know what memory parameter 0 (%table)",
        "--buffer table=float*16:in");
    fails(2, Cli.run(p("table.ll"), "--check", "--buffer", "table=flot*16"), "'flot' is not an LLVM type");
    fails(2, Cli.run(p("table.ll"), "--check", "--buffer", "table=float*x"), "the count after '*' must be a number");
    fails(2, Cli.run(p("table.ll"), "--check", "--buffer", "table=float:sideways"), "must be in, out or inout");
    fails(2, Cli.run(p("table.ll"), "--check", "--buffer", "float*4"), "expected NAME=TYPE");
    fails(2, Cli.run(p("single.ll"), "--check", "--range", "3:1"), "LO must not be greater than HI");
    fails(2, Cli.run(p("single.ll"), "--check", "--range", "x"), "expected LO:HI");
    Cli.Run typo = Cli.run(p("single.ll"), "--check=3", "--range", "nope=1:2");
    ok(typo);
    assertTrue(typo.err().contains("warning: --range nope=...: @absdiff has no parameter named or numbered 'nope'"), typo.err());
  }

  // ---- dot and remarks ----

  @Test
  void dotDrawsBothCfgsWithTheAnalysis() throws IOException {
    Path d = dir.resolve("cfg");
    ok(Cli.run(p("branchy.ll"), "-f", "triangle", "--dot", d.toString(), "-o", dir.resolve("t.bc").toString()));
    String scalar = Files.readString(d.resolve("triangle.scalar.dot"));
    String packet = Files.readString(d.resolve("triangle_simd8.packet.dot"));
    assertTrue(scalar.startsWith("digraph") && packet.startsWith("digraph"));
    assertTrue(scalar.contains("divergent loop header") && scalar.contains("divergent branch: linearized"), scalar);
    assertTrue(scalar.contains("varying: ") && scalar.contains(Dot.RED) && scalar.contains("peripheries=2"), scalar);
    assertTrue(packet.contains("instructions)") && packet.contains("ret &lt;8 x i32&gt;"), packet);
    assertBalanced(scalar);
    assertBalanced(packet);
    if (Dot.graphviz().isPresent()) {
      // Graphviz is installed here: it must accept what we wrote
      assertTrue(Files.readString(d.resolve("triangle.scalar.svg")).contains("<svg"));
      assertTrue(Files.readString(d.resolve("triangle_simd8.packet.svg")).contains("<svg"));
    }
  }

  @Test
  void keptUniformBranchesAreBlue() throws IOException {
    Path d = dir.resolve("cfg");
    Cli.Run r = Cli.run(p("uniform_branch.ll"), "--params", "vu", "--dot", d.toString(), "--check=20", "-o", dir.resolve("u.bc").toString());
    ok(r);
    String scalar = Files.readString(d.resolve("poly.scalar.dot"));
    assertTrue(scalar.contains("uniform branch: kept") && scalar.contains("color=\"" + Dot.BLUE + "\", penwidth=2"), scalar);
    assertTrue(r.err().contains("1 kept"), r.err());
  }

  private static void assertBalanced(String dot) {
    int depth = 0;
    for (char c : dot.toCharArray()) {
      if (c == '{') depth++;
      if (c == '}') depth--;
      assertTrue(depth >= 0);
    }
    assertEquals(0, depth, dot);
  }

  @Test
  void remarksAsLinesOnStderr() {
    Cli.Run r = Cli.run(p("branchy.ll"), "-f", "triangle", "--remarks", "-o", dir.resolve("t.bc").toString());
    ok(r);
    assertTrue(r.err().contains("branchy.ll: remark: triangle:h: linearized: divergent branch linearized: operand %n is varying"
        + "  [br i1 %c, label %h, label %x]"), r.err());
  }

  @Test
  void remarksAsYamlOptimizationRecords() throws IOException {
    Path y = dir.resolve("remarks.yaml");
    String in = p("branchy.ll");
    ok(Cli.run(in, "-f", "triangle", "-f", "clamp_scale", "--remarks=" + y, "-o", dir.resolve("t.bc").toString()));
    // a failure is recorded too
    Path y2 = dir.resolve("failed.yaml");
    fails(3, Cli.run(p("indirectbr.ll"), "--remarks=" + y2));
    for (Path file : List.of(y, y2)) {
      List<Map<String, Object>> docs = yamlDocuments(Files.readString(file));
      assertFalse(docs.isEmpty(), file.toString());
      for (Map<String, Object> d : docs) {
        assertEquals("packetize", d.get("Pass"));
        assertTrue(d.keySet().stream().allMatch(k -> List.of("Pass", "Name", "DebugLoc", "Function", "Args").contains(k)),
            "only keys LLVM's remark parser knows: " + d.keySet());
        assertInstanceOf(List.class, d.get("Args"));
      }
    }
    String text = Files.readString(y);
    assertTrue(text.contains("--- !Passed\nPass:            packetize\nName:            Linearized\n"
        + "DebugLoc:        { File: '" + in + "', Line: 0, Column: 0 }\nFunction:        triangle\nArgs:\n"
        + "  - Block:           h\n  - String:          'divergent branch linearized: operand %n is varying'\n"), text);
    assertTrue(text.contains("Name:            Packetized"), text);
    String failed = Files.readString(y2);
    assertTrue(failed.contains("--- !Failure") && failed.contains("Name:            Unsupported")
        && failed.contains("  - Instruction:     'indirectbr ptr %target, [label %one, label %two]'"), failed);
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> yamlDocuments(String text) {
    SafeConstructor c = new SafeConstructor(new LoaderOptions()) {
      {
        for (String t : RemarkYaml.tags()) this.yamlConstructors.put(new Tag("!" + t), new ConstructYamlMap());
      }
    };
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object o : new Yaml(c).loadAll(text)) out.add((Map<String, Object>) o);
    return out;
  }

  // ---- batches ----

  @Test
  void severalInputsInParallelGiveTheSameBytesAsOneByOne() throws IOException {
    List<String> names = new ArrayList<>();
    for (String k : List.of("bs_call", "march", "noise3", "intersect")) names.add(Cli.bundled(dir, k).getFileName().toString());
    Path par = dir.resolve("parallel"), seq = dir.resolve("sequential");
    List<String> args = new ArrayList<>(List.of("-j", "2", "-o", par + "/"));
    for (String n : names) args.add(dir.resolve(n).toString());
    Cli.Run r = Cli.run(args.toArray(String[]::new));
    ok(r);
    assertTrue(r.err().contains("4 inputs, 4 done"), r.err());
    // messages come in input order, whatever finished first
    List<Integer> at = names.stream().map(n -> r.err().indexOf(n + ": @")).toList();
    assertEquals(at.stream().sorted().toList(), at, r.err());
    Files.createDirectories(seq);
    for (String n : names) {
      String out = seq.resolve(n.replace(".bc", ".packet.bc")).toString();
      ok(Cli.run(dir.resolve(n).toString(), "-o", out));
    }
    for (String n : names) {
      String o = n.replace(".bc", ".packet.bc");
      assertArrayEquals(Files.readAllBytes(seq.resolve(o)), Files.readAllBytes(par.resolve(o)), o);
      assertTrue(Cli.load(par.resolve(o)).verifierMessage().isEmpty());
    }
  }

  @Test
  void batchOutputRules() throws IOException {
    Path a = Cli.copy(dir, "single.ll");
    Files.createDirectories(dir.resolve("sub"));
    Path b = Files.copy(a, dir.resolve("sub/single.ll"));
    fails(2, Cli.run("-o", dir.resolve("out") + "/", a.toString(), b.toString()), "would both be written to");
    Path file = Files.writeString(dir.resolve("file.txt"), "x");
    fails(2, Cli.run("-o", file.toString(), a.toString(), p("stateful.ll")), "-o must name a directory");
    fails(2, Cli.run("-o", "-", a.toString(), p("stateful.ll")), "takes one input");
    fails(2, Cli.run(a.toString(), "-o", a.toString()), "would overwrite the input");
    // a failing input does not stop the others; the exit code is the worst one
    Cli.Run mixed = Cli.run("-o", dir.resolve("mixed") + "/", a.toString(), p("invoke.ll"), p("syntax_error.ll"));
    assertEquals(3, mixed.code(), mixed.toString());
    assertTrue(Files.exists(dir.resolve("mixed/single.packet.bc")));
    assertTrue(mixed.err().contains("3 inputs, 1 done, 2 failed"), mixed.err());
  }

  // ---- input errors ----

  @Test
  void inputErrorsNameTheFileAndExitTwo() throws IOException {
    fails(2, Cli.run(dir.resolve("missing.bc").toString()), "missing.bc: error: no such file");
    Path empty = Files.write(dir.resolve("empty.bc"), new byte[0]);
    fails(2, Cli.run(empty.toString()), "empty.bc: error: empty input (0 bytes)");
    Path good = dir.resolve("good.bc");
    ok(Cli.run(p("single.ll"), "-o", good.toString()));
    byte[] bc = Files.readAllBytes(good);
    Path trunc = Files.write(dir.resolve("trunc.bc"), java.util.Arrays.copyOf(bc, bc.length / 3));
    fails(2, Cli.run(trunc.toString()), "trunc.bc: error: invalid bitcode");
    byte[] noise = new byte[512];
    new java.util.Random(3).nextBytes(noise);
    noise[0] = 0x11;
    Path random = Files.write(dir.resolve("random.bc"), noise);
    fails(2, Cli.run(random.toString()), "random.bc: error: not LLVM bitcode");
    byte[] badMagic = bc.clone();
    for (int i = 40; i < badMagic.length; i += 7) badMagic[i] ^= 0x5a;
    Path corrupt = Files.write(dir.resolve("corrupt.bc"), badMagic);
    fails(2, Cli.run(corrupt.toString()), "corrupt.bc: error: invalid bitcode");
    fails(2, Cli.run(p("syntax_error.ll")), "syntax_error.ll:4:3: error: expected value token", "ret i32 %x");
    fails(2, Cli.run(dir.toString()), "is a directory");
  }

  @Test
  void unknownFunctionSuggestsTheClosestName() {
    fails(2, Cli.run(p("branchy.ll"), "-f", "clamp_scal"), "no function @clamp_scal", "did you mean @clamp_scale?");
    fails(2, Cli.run(p("branchy.ll"), "-f", "zzz"), "no function @zzz", "it defines @clamp_scale, @triangle");
  }

  @Test
  void unsupportedConstructsExitThreeAndSayWhere() {
    fails(3, Cli.run(p("indirectbr.ll")), "indirectbr.ll: error: in function @jump, block %entry",
        "indirect branches ('indirectbr') are not supported", "at: indirectbr ptr %target");
    fails(3, Cli.run(p("invoke.ll")), "in function @guarded, block %entry", "exception handling ('invoke')", "at: %r = invoke");
    assertFalse(Files.exists(dir.resolve("invoke.packet.bc")));
  }

  @Test
  void debugShowsStackTraces() {
    Cli.Run r = Cli.run(p("invoke.ll"), "--debug");
    assertEquals(3, r.code());
    assertTrue(r.err().contains("PacketizationException") && r.err().contains("\tat org.packetizer"), r.err());
  }

  // ---- demo ----

  @Test
  void demoListsKernels() {
    Cli.Run r = Cli.run("demo", "--list");
    ok(r);
    assertTrue(r.out().contains("mandelbrot") && r.out().contains("vvu") && r.out().contains("--list --all"), r.out());
    Cli.Run all = Cli.run("demo", "--list", "--all");
    ok(all);
    assertTrue(all.out().lines().count() > 100, "all kernels");
    fails(2, Cli.run("demo", "--kernel", "mandelbrod"), "no bundled kernel 'mandelbrod'", "did you mean 'mandelbrot'?");
  }

  static final Pattern SPEEDUP = Pattern.compile("([0-9.]+)x faster");

  @Test
  void demoTourOnAKernel() {
    long t0 = System.nanoTime();
    Cli.Run r = Cli.run("demo", "--kernel", "checker", "--runs", "3");
    double seconds = (System.nanoTime() - t0) / 1e9;
    ok(r);
    String out = r.out();
    for (String s : List.of("packetize demo: checker at width 8", "1. Packetize", "@checker -> @checker_simd8",
        "2. Scalar and packet IR", "define", "3. Remarks", "4. Differential check", "lanes and", "bytes equal",
        "5. Speed", "scalar loop, 8 calls per step:", "packet loop, 1 call per step:", "results identical")) {
      assertTrue(out.contains(s), "demo output mentions '" + s + "':\n" + out);
    }
    Matcher m = SPEEDUP.matcher(out);
    assertTrue(m.find(), out);
    assertTrue(Double.parseDouble(m.group(1)) > 0, out);
    System.out.println("demo --kernel checker took " + seconds + " s:\n" + out);
    assertTrue(seconds < 60, "the demo took " + seconds + " s");
  }

  @Test
  void demoDefaultKernel() {
    Cli.Run r = Cli.run("demo", "--runs", "3");
    ok(r);
    assertTrue(r.out().contains("@mandelbrot -> @mandelbrot_simd8") && r.out().contains("faster"), r.out());
  }

  static String utf8(byte[] b) { return new String(b, StandardCharsets.UTF_8); }
}
