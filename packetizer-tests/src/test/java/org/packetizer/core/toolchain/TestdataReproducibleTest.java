package org.packetizer.core.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * The committed test data are what the build step makes of the committed sources, byte for byte,
 * and the manifest describes the bitcode truthfully.
 */
class TestdataReproducibleTest {

  /**
   * Rebuilds every .bc and the manifest into a temporary folder and compares with the committed
   * files: the repository's testdata-bitcode/src/main when the test runs inside the repository, else
   * the testdata jar on the class path.
   */
  @Test
  void regeneratedBitcodeAndManifestAreByteIdentical(@TempDir Path tmp) throws Exception {
    Path repoMain = findRepoTestdata();
    Path src, bc, manifest;
    if (repoMain != null) {
      src = repoMain.resolve("c");
      bc = repoMain.resolve("bc");
      manifest = repoMain.resolve("manifest/manifest.json");
    } else {
      Path copy = tmp.resolve("classpath");
      copyClasspathFolder("testdata", copy);
      src = copy.resolve("c");
      bc = copy.resolve("bc");
      manifest = copy.resolve("manifest.json");
    }
    List<String> diffs = TestdataBuilder.check(src, bc, manifest);
    assertTrue(diffs.isEmpty(), "committed test data are stale, run testdata-bitcode/regenerate.sh: " + diffs);
  }

  @Test
  void everyManifestEntryMatchesItsBitcode() {
    Manifest manifest = Manifest.load();
    assertEquals(1, manifest.schema());
    assertEquals(BundledClang.KERNEL_FLAGS, manifest.flags());
    Set<String> names = new HashSet<>();
    List<String> problems = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create()) {
      Map<String, LlvmModule> modules = new LinkedHashMap<>();
      try {
        for (Manifest.Entry e : manifest.kernels()) {
          if (!names.add(e.name())) problems.add("duplicate name " + e.name());
          LlvmModule m = modules.computeIfAbsent(e.bitcode(), b -> ctx.load(manifest.bitcode(e), b));
          var fn = m.function(e.function());
          if (fn.isEmpty() || fn.get().isDeclaration()) {
            problems.add(e.name() + ": no definition of " + e.function() + " in " + e.bitcode());
            continue;
          }
          check(e, fn.get(), problems);
        }
      } finally {
        modules.values().forEach(LlvmModule::close);
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  private static void check(Manifest.Entry e, Function f, List<String> problems) {
    List<Type> types = f.functionType().paramTypes();
    if (types.size() != e.params().size()) {
      problems.add(e.name() + ": " + e.params().size() + " parameters declared, " + types.size() + " in the bitcode");
      return;
    }
    StringBuilder sig = new StringBuilder();
    for (int i = 0; i < types.size(); i++) {
      Manifest.Param p = e.params().get(i);
      String actual = TestdataBuilder.typeName(types.get(i));
      if (!actual.equals(p.type())) problems.add(e.name() + "." + p.name() + ": declared " + p.type() + ", bitcode has " + actual);
      if (p.isPointer()) {
        if (p.pointee() == null || p.count() == null || p.direction() == null || p.init() == null) {
          problems.add(e.name() + "." + p.name() + ": pointer without pointee/count/direction/init");
        }
        if (p.range() != null) problems.add(e.name() + "." + p.name() + ": pointer with a range");
      } else {
        if (p.isSoa()) problems.add(e.name() + "." + p.name() + ": soa scalar");
        if (p.range() == null || p.lo() > p.hi()) problems.add(e.name() + "." + p.name() + ": bad range " + p.range());
      }
      if (p.isLinear() && p.step() == null) problems.add(e.name() + "." + p.name() + ": linear without step");
      sig.append(p.letters());
    }
    if (!sig.toString().equals(e.signature())) problems.add(e.name() + ": signature " + e.signature() + " but kinds give " + sig);
    String ret = TestdataBuilder.typeName(f.returnType());
    if (!ret.equals(e.returns().type())) problems.add(e.name() + ": returns " + e.returns().type() + ", bitcode " + ret);
    if (e.registerOnly() && e.hasPointerParams()) problems.add(e.name() + ": registerOnly with pointer parameters");
    if (e.ulps() < 0) problems.add(e.name() + ": negative ulps");
    if (!TestdataBuilder.FAMILIES.contains(e.family())) problems.add(e.name() + ": unknown family " + e.family());
    boolean reducible = TestdataBuilder.isReducible(f);
    if (reducible == e.family().equals("irreducible")) {
      problems.add(e.name() + ": family " + e.family() + " but the CFG is " + (reducible ? "reducible" : "irreducible"));
    }
    for (List<Number> s : e.samples()) {
      if (s.size() != e.params().size()) problems.add(e.name() + ": sample " + s + " has the wrong length");
    }
  }

  @Test
  void familiesHaveTheirKernels() {
    Manifest manifest = Manifest.load();
    Map<String, Integer> minimum = new LinkedHashMap<>();
    minimum.put("thesis", 6);
    minimum.put("kernel", 11);
    minimum.put("if", 12);
    minimum.put("loop", 10);
    minimum.put("loopmx", 12);
    minimum.put("loopns", 15);
    minimum.put("loopnsmx", 15);
    minimum.put("call", 10);
    minimum.put("irreducible", 3);
    minimum.put("mixed", 10);
    minimum.put("types", 8);
    minimum.put("memory", 50);
    minimum.forEach((family, n) -> assertTrue(manifest.family(family).size() >= n,
        family + " has " + manifest.family(family).size() + " kernels, wanted at least " + n));
    int controlFlow = 0;
    for (String f : List.of("if", "loop", "loopmx", "loopns", "loopnsmx", "call", "irreducible", "mixed")) {
      controlFlow += manifest.family(f).size();
      for (Manifest.Entry e : manifest.family(f)) {
        assertEquals("float", e.returns().type(), e.name());
        assertTrue(e.params().stream().allMatch(p -> p.type().equals("float") || p.type().equals("i32")), e.name());
      }
    }
    assertTrue(controlFlow >= 95, "control-flow kernels: " + controlFlow);
    for (String name : List.of("scalarFn", "fig23", "fig47", "fig411", "fig414", "fig417", "mandelbrot", "ao", "bs_call",
        "noise3", "shade", "checker", "brick", "intersect", "integrate", "julia", "march")) {
      assertTrue(manifest.entry(name).isPresent(), name);
    }
    Manifest.Entry mandel = manifest.require("mandelbrot");
    assertEquals("vvu", mandel.signature());
    assertTrue(mandel.registerOnly());
    assertFalse(mandel.mathCalls());
    assertEquals(4, manifest.require("ao").ulps());
    assertEquals("s", manifest.require("mem01").signature());
  }

  @Test
  void sourcesAndBitcodeAreOnTheClassPath() {
    Manifest manifest = Manifest.load();
    Manifest.Entry e = manifest.require("scalarFn");
    assertTrue(manifest.source(e).contains("float scalarFn(float a, float b)"));
    assertTrue(LlvmContext.isBitcode(manifest.bitcode(e)));
    assertEquals(manifest.bitcodeFiles().size(), new HashSet<>(manifest.bitcodeFiles()).size());
  }

  // ---------------------------------------------------------------------------------------------

  /** testdata-bitcode/src/main of the repository this test runs in, or null. */
  private static Path findRepoTestdata() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path candidate = p.resolve("testdata-bitcode/src/main");
      if (Files.isDirectory(candidate.resolve("c")) && Files.isRegularFile(candidate.resolve("manifest/manifest.json"))) {
        return candidate;
      }
    }
    return null;
  }

  /** Copies the class-path folder {@code name} (in a jar or a directory) to {@code target}. */
  private static void copyClasspathFolder(String name, Path target) throws IOException {
    URL url = TestdataReproducibleTest.class.getClassLoader().getResource(name + "/manifest.json");
    assertNotNull(url, "testdata-bitcode is not on the class path");
    URI uri = URI.create(url.toString().substring(0, url.toString().length() - "/manifest.json".length()));
    if (uri.getScheme().equals("jar")) {
      try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of())) {
        copyTree(fs.provider().getPath(uri), target);
      }
    } else if (uri.getScheme().equals("file")) {
      copyTree(Path.of(uri), target);
    } else {
      fail("cannot read test data from " + uri);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) Files.createDirectories(dest);
        else Files.copy(p, dest);
      }
    }
  }
}
