package org.packetizer.core.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

class BundledClangTest {
  private static final String ADD_SOURCE = """
      float add_scaled(float a, float b) { return a * 2.0f + b; }
      """;

  @Test
  void locatesClangAndTheLlvmPrograms() {
    BundledClang clang = BundledClang.locate();
    assertTrue(Files.isExecutable(clang.clangPath()), clang.clangPath().toString());
    assertTrue(Files.isSymbolicLink(clang.libraryLinkDirectory().resolve("libLLVM.so.20.1")));
    for (String tool : List.of("llvm-stress", "llvm-dis", "llvm-as", "lli", "llc")) {
      assertTrue(Files.isExecutable(clang.toolPath(tool)), tool);
    }
    assertThrows(ToolchainException.class, () -> clang.toolPath("no-such-program"));
    ProcessResult version = clang.run(List.of("clang", "--version"), null);
    assertEquals(0, version.exitCode(), version.stderr());
    assertTrue(version.stdoutText().contains("clang version 20."), version.stdoutText());
    assertTrue(BundledClang.locate() == clang, "the location is computed once");
  }

  @Test
  void compilesCSourceToBitcodeThatLlvmParses() {
    byte[] bc = BundledClang.locate().compileToBitcode(ADD_SOURCE, "add.c", BundledClang.KERNEL_FLAGS);
    assertTrue(LlvmContext.isBitcode(bc));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "add.bc")) {
      assertEquals(BundledClang.TARGET_TRIPLE, m.targetTriple());
      Function f = m.function("add_scaled").orElseThrow();
      assertEquals(2, f.paramCount());
      assertTrue(f.returnType().isFloat());
      assertTrue(f.param(0).type().isFloat() && f.param(1).type().isFloat());
      assertTrue(m.verify().isEmpty());
      assertTrue(m.toIr().contains("source_filename = \"add.c\""), "relative name recorded");
    }
  }

  @Test
  void compilesAFileToBitcode(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("k.c"), ADD_SOURCE);
    CompileResult r = BundledClang.locate().compileToBitcode(dir, Path.of("k.c"), Path.of("out/k.bc"), BundledClang.KERNEL_FLAGS);
    assertEquals(dir.resolve("out/k.bc"), r.output());
    assertFalse(r.hasWarnings(), r.diagnostics());
    byte[] bytes = Files.readAllBytes(r.output());
    // the same source compiled from memory gives the same bytes: nothing machine- or path-specific
    assertTrue(java.util.Arrays.equals(bytes, BundledClang.locate().compileToBitcode(ADD_SOURCE, "k.c", BundledClang.KERNEL_FLAGS)));
  }

  @Test
  void aCompileErrorCarriesClangsMessage() {
    ToolchainException e = assertThrows(ToolchainException.class, () ->
        BundledClang.locate().compileToBitcode("float broken(float a) { return a +; }\n", "broken.c", BundledClang.KERNEL_FLAGS));
    assertTrue(e.exitCode() > 0);
    assertTrue(e.stderr().contains("broken.c:1:"), e.stderr());
    assertTrue(e.stderr().contains("error: expected expression"), e.stderr());
    assertTrue(e.getMessage().contains("error: expected expression"), e.getMessage());
  }

  @Test
  void kernelFlagsKeepSystemHeadersOut() {
    // -nostdlibinc: the machine's libc headers must not leak into the test kernels
    ToolchainException e = assertThrows(ToolchainException.class, () ->
        BundledClang.locate().compileToBitcode("#include <math.h>\n", "m.c", BundledClang.KERNEL_FLAGS));
    assertTrue(e.stderr().contains("'math.h' file not found"), e.stderr());
    // clang's own freestanding headers come from the jar
    BundledClang.locate().compileToBitcode("#include <stdint.h>\nint64_t f(int8_t x) { return x; }\n", "s.c",
        BundledClang.KERNEL_FLAGS);
  }

  @Test
  void linksAndRunsAnExecutable(@TempDir Path dir) throws Exception {
    BundledClang clang = BundledClang.locate();
    String main = """
        int printf(const char *, ...);
        float add_scaled(float a, float b);
        int main(int argc, char **argv) {
          printf("hello %d %g\\n", argc * 42, (double)add_scaled(1.5f, 0.25f));
          return 3;
        }
        """;
    Files.write(dir.resolve("main.bc"), clang.compileToBitcode(main, "main.c", BundledClang.KERNEL_FLAGS));
    Files.write(dir.resolve("add.bc"), clang.compileToBitcode(ADD_SOURCE, "add.c", BundledClang.KERNEL_FLAGS));
    CompileResult exe = clang.linkExecutable(List.of(dir.resolve("main.bc"), dir.resolve("add.bc")), dir.resolve("hello"), List.of("-O1"));
    ProcessResult r = clang.run(List.of(exe.output().toString()), dir);
    assertEquals(3, r.exitCode(), r.stderr());
    assertEquals("hello 42 3.25\n", r.stdoutText());
  }

  @Test
  void llvmStressGeneratesParsableIr() {
    BundledClang clang = BundledClang.locate();
    ProcessResult r = clang.run(List.of("llvm-stress", "-size=20", "-seed=7", "-o", "-"), null).orThrow("llvm-stress");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(r.stdout(), "stress.ll")) {
      assertFalse(m.functions().isEmpty());
      assertTrue(m.verify().isEmpty());
    }
    // and llvm-as turns it into bitcode read from stdin
    ProcessResult as = clang.run(List.of("llvm-as", "-", "-o", "-"), null, r.stdout(), Duration.ofMinutes(1)).orThrow("llvm-as");
    assertTrue(LlvmContext.isBitcode(as.stdout()));
  }

  @Test
  void parallelCompilationsDoNotInterfere() throws Exception {
    BundledClang clang = BundledClang.locate();
    try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
      List<Future<byte[]>> fs = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String src = "int f" + i + "(int x) { return x * " + (i + 3) + "; }\n";
        fs.add(pool.submit(() -> clang.compileToBitcode(src, "p.c", BundledClang.KERNEL_FLAGS)));
      }
      for (int i = 0; i < fs.size(); i++) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(fs.get(i).get(), "p" + i)) {
          assertTrue(m.function("f" + i).isPresent());
        }
      }
    }
  }
}
