package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;

/**
 * Every bundled kernel's C source compiled with clang's <em>default</em> {@code -O2} pipeline (SLP and
 * loop vectorizer on, default FP contraction and math-errno; only {@code -nostdlibinc} so no system
 * header is read), packetized at W = 4, 8 and 16 and checked by differential execution, every lane.
 * A kernel must either pass or be refused with a clear reason (an UNSUPPORTED or INVALID_INPUT
 * {@link PacketizationException} naming the function, never an internal error); the refusals are
 * printed at the end with their counts.
 */
class DefaultPipelineKernelsTest {
  static final List<String> DEFAULT_O2 = List.of("-O2", "-nostdlibinc");
  static final int RANDOM_RUNS = Integer.getInteger("packetizer.test.runs", 8);

  private static final Map<String, byte[]> BITCODE = new ConcurrentHashMap<>();
  private static final Map<String, String> OUTCOME = new ConcurrentHashMap<>();

  @TestFactory
  Stream<DynamicTest> defaultO2() {
    Manifest manifest = Manifest.load();
    java.util.regex.Pattern filter = java.util.regex.Pattern.compile(System.getProperty("packetizer.test.filter", ".*"));
    List<DynamicTest> tests = new ArrayList<>();
    for (Manifest.Entry e : manifest.kernels()) {
      if (!filter.matcher(e.name()).matches() && !filter.matcher(e.family()).matches()) continue;
      for (int w : new int[] {4, 8, 16}) {
        tests.add(DynamicTest.dynamicTest(e.name() + " -O2 W=" + w, () -> check(manifest, e, w)));
      }
    }
    return tests.stream();
  }

  static void check(Manifest manifest, Manifest.Entry e, int w) {
    byte[] bc = BITCODE.computeIfAbsent(e.file(), f -> compile(manifest, e));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, e.file())) {
      byte[] before = m.toBitcode();
      String simd = e.function() + "_simd" + w;
      PacketizationResult r;
      try {
        r = new Packetizer(PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e))
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).build())
            .run(m, e.function(), simd);
      } catch (PacketizationException ex) {
        assertNotEquals(PacketizationException.Kind.INTERNAL, ex.kind(), () -> e + " W=" + w + ": internal error: " + ex.getMessage());
        assertTrue(ex.getMessage().contains(e.function()), () -> "the refusal does not name @" + e.function() + ": " + ex.getMessage());
        assertArrayEquals(before, m.toBitcode(), "a refused packetization changed the module");
        OUTCOME.put(e.name() + " W=" + w, "refused: " + firstLine(ex.getMessage()));
        return;
      }
      assertTrue(m.verify().isEmpty(), () -> "module invalid: " + m.verify().get());
      try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, e.function(), simd, w).build()) {
        for (Inputs in : KernelChecks.sampleInputs(e, w)) {
          CheckResult res = c.run(in);
          assertTrue(res.passed(), () -> e + " -O2 W=" + w + " samples:\n" + res.report() + "\n" + r.summary());
        }
        CheckResult res = c.runMany(RANDOM_RUNS, 0xD0F2 + w);
        assertTrue(res.passed(), () -> e + " -O2 W=" + w + ":\n" + res.report() + "\n" + r.summary());
      }
      OUTCOME.put(e.name() + " W=" + w, "passed");
    }
  }

  private static String firstLine(String s) {
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl) + " " + t.substring(nl + 1).strip().replace('\n', ' ');
  }

  @AfterAll
  static void summary() {
    long passed = OUTCOME.values().stream().filter("passed"::equals).count();
    Map<String, String> refused = new TreeMap<>();
    OUTCOME.forEach((k, v) -> { if (!v.equals("passed")) refused.put(k, v); });
    System.out.println("[default -O2] " + OUTCOME.size() + " kernel packetizations: " + passed + " packetized and passed, "
        + refused.size() + " refused");
    refused.forEach((k, v) -> System.out.println("[default -O2]   " + k + ": " + v));
  }

  /** Compiles the entry's C file (and kernel.h beside its folder) with the default -O2 pipeline. */
  static byte[] compile(Manifest manifest, Manifest.Entry e) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-o2-");
      Path src = dir.resolve(e.file());
      Files.createDirectories(src.getParent());
      Files.writeString(src, manifest.source(e));
      try (InputStream in = DefaultPipelineKernelsTest.class.getClassLoader().getResourceAsStream(Manifest.RESOURCE_ROOT + "c/kernel.h")) {
        Files.write(dir.resolve("kernel.h"), in.readAllBytes());
      }
      BundledClang.locate().compileToBitcode(dir, Path.of(e.file()), Path.of("out.bc"), DEFAULT_O2);
      return Files.readAllBytes(dir.resolve("out.bc"));
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    } finally {
      if (dir != null) {
        try (Stream<Path> s = Files.walk(dir)) {
          s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
          // a temporary folder
        }
      }
    }
  }
}
