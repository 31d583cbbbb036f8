package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * A CPU named in the options (or by the command's {@code --target-cpu}) is also the functions' tuning CPU, as with clang's
 * {@code -march=CPU} (issue 16, nineteenth round). clang writes {@code "tune-cpu"="generic"} on bitcode compiled without
 * {@code -march}; kept on a packet function retargeted to skylake, LLVM's generic tuning expands the packet's AVX2
 * gathers into per-lane loads although skylake has fast ones (the packetizer chose the gather because the CPU has them).
 * Here: a table lookup by clang {@code -O2} for no CPU, packetized at W8 with skylake only in the options: the packet
 * function carries no {@code tune-cpu} (the user's keeps {@code generic}); compiled by the bundled {@code llc} it holds
 * {@code vpgatherdd}, which the same function with {@code tune-cpu=generic} put back does not (so the attribute, not
 * something else, decides); and the object's packet function, called from C built by GCC and by clang, agrees with the
 * scalar function of the same object in every lane, the table ending at a PROT_NONE page.
 */
class TuneCpuCallerTest {
  @TempDir Path dir;

  static final String KERNEL = """
      int lookup(const int *t, int x) { return t[x & 63] + 3 * t[(x >> 6) & 63]; }
      """;

  static final String CALLER = """
      #include <immintrin.h>
      #include <stdio.h>
      #include <sys/mman.h>
      #include <unistd.h>
      int lookup(const int *t, int x);
      __m256i lookup_simd8(const int *t, __m256i x);
      static unsigned long long s = 0x9E3779B97F4A7C15ULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 7); }
      int main(void) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE)) { perror("mmap"); return 2; }
        int *t = (int *)(m + pg) - 64; /* the table's last entry just before the guard page */
        for (int i = 0; i < 64; i++) t[i] = (int)(rnd() % 100000) - 50000;
        int bad = 0;
        for (int p = 0; p < 5000 && bad < 10; p++) {
          int x[8], got[8];
          for (int k = 0; k < 8; k++) x[k] = p < 8 ? (p == 0 ? 4095 : -p * 977) : (int)rnd();
          _mm256_storeu_si256((__m256i *)got, lookup_simd8(t, _mm256_loadu_si256((const __m256i *)x)));
          for (int k = 0; k < 8; k++) {
            int want = lookup(t, x[k]);
            if (got[k] != want) { printf("packet %d lane %d (x=%d): %d, want %d\\n", p, k, x[k], got[k], want); bad++; }
          }
        }
        printf("5000 packets checked, %d differences\\n", bad);
        return bad != 0;
      }
      """;

  @Test
  void aCpuNamedInTheOptionsIsTheTuningCpuAndItsGathersRunFromC() throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("lookup.c"), KERNEL);
    clang.compileToBitcode(dir, Path.of("lookup.c"), Path.of("lookup.bc"), List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("lookup.bc"))) {
      assertEquals("generic", m.function("lookup").orElseThrow().stringAttribute("tune-cpu").orElse(""), "clang's generic bitcode");
      new Packetizer(PacketizerOptions.builder().width(8).params("uv").targetCpu("skylake").build()).run(m, "lookup", "lookup_simd8");
      Function packet = m.function("lookup_simd8").orElseThrow();
      assertEquals("skylake", packet.stringAttribute("target-cpu").orElse(""));
      assertTrue(packet.stringAttribute("tune-cpu").isEmpty(), () -> "tune-cpu " + packet.stringAttribute("tune-cpu"));
      Function scalar = m.function("lookup").orElseThrow();
      assertEquals("generic", scalar.stringAttribute("tune-cpu").orElse(""), "the user's function keeps its tuning");
      assertEquals("x86-64", scalar.stringAttribute("target-cpu").orElse(""), "the user's function keeps its CPU");
      m.write(dir.resolve("tuned.bc"));
      packet.setStringAttribute("tune-cpu", "generic");
      m.write(dir.resolve("generic-tune.bc"));
    }
    String tuned = packetAssembly(clang, "tuned.bc");
    String generic = packetAssembly(clang, "generic-tune.bc");
    assertTrue(tuned.contains("vpgatherdd"), () -> "no hardware gather tuned for skylake:\n" + tuned);
    assertFalse(generic.contains("vpgatherdd"), () -> "the control: generic tuning kept the gather, so this test proves nothing:\n" + generic);

    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic", "tuned.bc", "-o", "lookup.o"), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    Toolchains.requireGcc("TuneCpuCallerTest's C callers");
    Files.writeString(dir.resolve("caller.c"), CALLER);
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=gnu11", "-Werror", "-mavx2"), List.of("lookup.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + ": lanes differ from the scalar function (exit " + r.exitCode() + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("5000 packets checked, 0 differences"), out);
    }
  }

  /** The command's retargeting ({@link TargetSpec#applyTo}): a named CPU drops the tuning CPU, no CPU keeps it. */
  @Test
  void theCommandsTargetSpecTunesForTheNamedCpu() throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("lookup.c"), KERNEL);
    clang.compileToBitcode(dir, Path.of("lookup.c"), Path.of("lookup.bc"), List.of("-O2"));
    for (String cpu : List.of("skylake", "")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("lookup.bc"))) {
        new TargetSpec("x86_64-pc-linux-gnu", cpu, "", 0).applyTo(m);
        Function f = m.function("lookup").orElseThrow();
        if (cpu.isEmpty()) {
          assertEquals("generic", f.stringAttribute("tune-cpu").orElse(""), "no CPU named: the tuning stays");
          assertEquals("x86-64", f.stringAttribute("target-cpu").orElse(""));
        } else {
          assertTrue(f.stringAttribute("tune-cpu").isEmpty(), () -> "tune-cpu " + f.stringAttribute("tune-cpu"));
          assertEquals(cpu, f.stringAttribute("target-cpu").orElse(""));
        }
      }
    }
  }

  /** The assembly of {@code lookup_simd8} in {@code bc} as the bundled llc compiles it (no -mcpu: the attributes rule). */
  private String packetAssembly(BundledClang clang, String bc) throws Exception {
    String out = bc.replace(".bc", ".s");
    ProcessResult r = clang.run(List.of("llc", "-O2", bc, "-o", out), dir);
    assertEquals(0, r.exitCode(), r.stderr());
    String asm = Files.readString(dir.resolve(out));
    int start = asm.indexOf("lookup_simd8:");
    assertTrue(start >= 0, () -> "no lookup_simd8 in\n" + asm);
    int end = asm.indexOf(".size\tlookup_simd8", start);
    return asm.substring(start, end < 0 ? asm.length() : end);
  }
}
