package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Issue 14 through the command: {@code --declared-variants} makes every {@code _ZGV} variant that
 * clang's {@code #pragma omp declare simd} recorded, in the vector function ABI's form; several
 * inputs with {@code -o FILE} are a usage error (no directory named like a file); {@code --remarks
 * FILE} with a space writes FILE; output files get the usual umask-based mode.
 */
class CallingConventionCliTest {
  @TempDir Path dir;

  static final String DECLARE_SIMD_C = """
      #pragma omp declare simd notinbranch
      #pragma omp declare simd inbranch
      float f(float x, float y) { return x > y ? x - y : y * 0.5f; }

      #pragma omp declare simd uniform(k) linear(i) simdlen(8) notinbranch
      int g(int a, int k, int i) { return a * k + i; }

      int plain(int a) { return a + 1; }
      """;

  private Path declareSimdBitcode(String march) {
    try {
      Files.writeString(dir.resolve("ds.c"), DECLARE_SIMD_C);
      List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
      flags.addAll(List.of("-fopenmp-simd", "-march=" + march));
      BundledClang.locate().compileToBitcode(dir, Path.of("ds.c"), Path.of("ds.bc"), flags);
      return dir.resolve("ds.bc");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Set<String> defined(Path bc) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
      Set<String> out = new TreeSet<>();
      for (Function f : m.functions()) if (!f.isDeclaration()) out.add(f.name());
      return out;
    }
  }

  @Test
  void declaredVariantsMakesEveryVariantTheTargetSupports() throws IOException {
    Path bc = declareSimdBitcode("x86-64-v3");
    Path out = dir.resolve("out.bc");
    Cli.Run r = Cli.run(bc.toString(), "--declared-variants", "--check=20", "-o", out.toString());
    assertEquals(0, r.code(), r.toString());
    Set<String> names = defined(out);
    // AVX2 target: b, c and d variants (default vlen per ISA for f, simdlen 8 for g); no e; plain untouched
    for (String v : List.of("_ZGVbN4vv_f", "_ZGVbM4vv_f", "_ZGVcN8vv_f", "_ZGVcM8vv_f", "_ZGVdN8vv_f", "_ZGVdM8vv_f",
        "_ZGVbN8vul_g", "_ZGVcN8vul_g", "_ZGVdN8vul_g")) {
      assertTrue(names.contains(v), () -> v + " missing: " + names);
    }
    assertTrue(names.stream().noneMatch(n -> n.startsWith("_ZGVe")), names::toString);
    assertTrue(names.stream().noneMatch(n -> n.contains("plain") && !n.equals("plain")), names::toString);
    assertTrue(r.err().contains("not made, the ISA is above @f's target-features: ") && r.err().contains("_ZGVeN16vv_f"),
        r.err());
    // every variant checked (LLVM's form where the ABI's form wraps it)
    assertTrue(r.err().contains("check @_ZGVdM8vv_f against @f") && !r.err().contains("differs"), r.err());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(out)) {
      // the ABI's mask for b/c/d: a vector of the characteristic type's width
      assertEquals("<8 x i32>", m.function("_ZGVdM8vv_f").orElseThrow().functionType().paramTypes().getLast().toString());
      // b with 8 ints: two xmm registers in, the result through memory
      assertTrue(m.function("_ZGVbN8vul_g").orElseThrow().returnType().isVoid());
    }
  }

  @Test
  void declaredVariantsOfOneFunctionAndItsUsageErrors() throws IOException {
    Path bc = declareSimdBitcode("x86-64-v4");
    Path out = dir.resolve("g.bc");
    Cli.Run r = Cli.run(bc.toString(), "--declared-variants", "-f", "g", "-o", out.toString());
    assertEquals(0, r.code(), r.toString());
    Set<String> names = defined(out);
    assertTrue(names.containsAll(List.of("_ZGVbN8vul_g", "_ZGVcN8vul_g", "_ZGVdN8vul_g", "_ZGVeN8vul_g")), names::toString);
    assertTrue(names.stream().noneMatch(n -> n.endsWith("_f")), names::toString);

    Cli.Run masked = Cli.run(bc.toString(), "--declared-variants", "--masked", "-o", out.toString());
    assertEquals(2, masked.code(), masked.toString());
    assertTrue(masked.err().contains("--masked does not apply to --declared-variants"), masked.err());
    Cli.Run named = Cli.run(bc.toString(), "--declared-variants", "-f", "g:gv", "-o", out.toString());
    assertEquals(2, named.code(), named.toString());
    Cli.Run none = Cli.run(Cli.copy(dir, "single.ll").toString(), "--declared-variants", "-o", dir.resolve("n.bc").toString());
    assertEquals(2, none.code(), none.toString());
    assertTrue(none.err().contains("no function declares vector variants"), none.err());
    Cli.Run plain = Cli.run(bc.toString(), "--declared-variants", "-f", "plain", "-o", dir.resolve("p.bc").toString());
    assertTrue(plain.err().contains("@plain declares no vector variant"), plain.err());
  }

  @Test
  void cAbiPublishesTheCFormAndChecksLlvmsForm() {
    // vabi_caller.ll is an SSE module: 16 ints are wider than an xmm register, so C passes them in memory
    Cli.Run r = Cli.run(Cli.copy(dir, "vabi_caller.ll").toString(), "-f", "steps", "-w", "16", "--masked", "--c-abi",
        "--check=20", "--range", "0:40", "-S", "-o", "-");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("define void @steps_simd16(ptr sret(<16 x i32>) align 16 %result, ptr byval(<16 x i32>)"
        + " align 64 %n, i16 %mask)"), r.out());
    assertTrue(r.out().contains("@steps_simd16.ir(<16 x i32> %n, <16 x i1> %mask)"), r.out());
    assertTrue(r.err().contains("published in the C calling convention as @steps_simd16") && r.err().contains("all equal"),
        r.err());
    Cli.Run both = Cli.run(Cli.copy(dir, "vabi_caller.ll").toString(), "-f", "steps", "--c-abi", "--vector-abi", "-o", "-");
    assertEquals(2, both.code(), both.toString());
  }

  @Test
  void severalInputsNeedADirectoryForMinusO() throws IOException {
    Path a = Cli.copy(dir, "single.ll");
    Path b = Cli.copy(dir, "stateful.ll");
    Cli.Run r = Cli.run(a.toString(), b.toString(), "-o", dir.resolve("out.bc").toString());
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("-o must name an existing directory, or end in '/'"), r.err());
    assertFalse(Files.exists(dir.resolve("out.bc")), "no directory named out.bc");
    // a trailing '/' creates it; an existing directory is used
    Cli.Run slash = Cli.run(a.toString(), b.toString(), "-o", dir.resolve("new") + "/");
    assertEquals(0, slash.code(), slash.toString());
    assertTrue(Files.isRegularFile(dir.resolve("new/single.packet.bc")));
    Cli.Run existing = Cli.run(a.toString(), b.toString(), "-o", dir.resolve("new").toString());
    assertEquals(0, existing.code(), existing.toString());
  }

  @Test
  void remarksWithASpaceWriteTheFile() throws IOException {
    Path in = Cli.copy(dir, "branchy.ll");
    Path yaml = dir.resolve("r.yaml");
    Cli.Run r = Cli.run("--remarks", yaml.toString(), in.toString(), "-f", "triangle", "-o", dir.resolve("o.bc").toString());
    assertEquals(0, r.code(), r.toString());
    assertTrue(Files.readString(yaml).contains("--- !"), "YAML remarks in " + yaml);
    // an input right after --remarks stays an input (remarks on stderr)
    Cli.Run lines = Cli.run("--remarks", in.toString(), "-f", "triangle", "-o", dir.resolve("o2.bc").toString());
    assertEquals(0, lines.code(), lines.toString());
    assertTrue(Files.exists(dir.resolve("o2.bc")));
    assertTrue(lines.err().contains("triangle"), lines.err());
    // an existing file that is not YAML is never taken as the remarks file (it would be overwritten)
    Path other = Files.writeString(dir.resolve("notes.txt"), "keep me");
    Cli.Run kept = Cli.run("--remarks", other.toString(), in.toString(), "-f", "triangle", "-o", dir.resolve("o3.bc").toString());
    assertNotEquals(0, kept.code(), kept.toString());
    assertEquals("keep me", Files.readString(other));
  }

  @Test
  void outputFilesGetTheUsualMode() throws IOException {
    Path in = Cli.copy(dir, "branchy.ll");
    Path out = dir.resolve("o.bc");
    Path yaml = dir.resolve("r.yaml");
    Cli.Run r = Cli.run(in.toString(), "-f", "triangle", "--remarks=" + yaml, "-o", out.toString());
    assertEquals(0, r.code(), r.toString());
    // what any new file gets here (0666 minus the umask)
    Path reference = dir.resolve("reference");
    Files.newOutputStream(reference).close();
    Set<PosixFilePermission> usual = Files.getPosixFilePermissions(reference);
    assertEquals(PosixFilePermissions.toString(usual), PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
    assertEquals(PosixFilePermissions.toString(usual), PosixFilePermissions.toString(Files.getPosixFilePermissions(yaml)));
    if (usual.contains(PosixFilePermission.GROUP_READ)) {
      assertTrue(Files.getPosixFilePermissions(out).contains(PosixFilePermission.GROUP_READ), "not 0600");
    }
  }
}
