package org.packetizer.core;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of the layout (docs/architecture in the README's Layout section), checked on
 * the sources with a small import scan (comments and string literals removed first, so a javadoc
 * link or a message does not count; fully qualified names in code do):
 *
 * <ul>
 *   <li>packetizer-core: no package cycles; only {@code ir} uses {@code org.bytedeco} (the facade),
 *       except the borrowed-module entry points of {@code Packetizer}; nothing of the JIT, the
 *       testkit, the benchmark, Jackson or Guava;
 *   <li>packetizer-analysis: pure Java, no LLVM and nothing of the packetizer's other modules;
 *   <li>the modules point one way: jit uses core, testkit uses jit, bench uses testkit, never back.
 * </ul>
 */
class ArchitectureTest {
  private static Path repo() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("packetizer-core/src/main/java"))) p = p.getParent();
    assertNotNull(p, "cannot find the checkout (packetizer-core/src/main/java) above " + Path.of("").toAbsolutePath());
    return p;
  }

  /** One source file: its package and the code with comments and literals blanked out. */
  record Source(Path file, String pkg, String code) {}

  private static List<Source> sources(String module) throws IOException {
    Path root = repo().resolve(module).resolve("src/main/java");
    List<Source> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(root)) {
      // (module-info.java names the bindings' modules it requires: that is the descriptor, not a use)
      for (Path f : s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("module-info.java")).sorted().toList()) {
        String code = stripCommentsAndLiterals(Files.readString(f));
        Matcher m = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;").matcher(code);
        out.add(new Source(f, m.find() ? m.group(1) : "", code));
      }
    }
    assertFalse(out.isEmpty(), "no sources in " + root);
    return out;
  }

  /** Removes comments, string and character literals and text blocks (keeping line breaks). */
  static String stripCommentsAndLiterals(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
        while (i < n && s.charAt(i) != '\n') i++;
      } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
        i += 2;
        while (i + 1 < n && !(s.charAt(i) == '*' && s.charAt(i + 1) == '/')) {
          if (s.charAt(i) == '\n') out.append('\n');
          i++;
        }
        i += 2;
      } else if (s.startsWith("\"\"\"", i)) {
        i += 3;
        while (i < n && !s.startsWith("\"\"\"", i)) i++;
        i += 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        i++;
        while (i < n && s.charAt(i) != c) {
          if (s.charAt(i) == '\\') i++;
          i++;
        }
        i++;
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static final Pattern CORE_REF = Pattern.compile("\\borg\\.packetizer\\.core\\.([a-z]\\w*|[A-Z]\\w*)");

  /** Package (relative to org.packetizer.core; "" for the root) -> the core packages its files use. */
  private static Map<String, Set<String>> corePackageGraph(List<Source> srcs) {
    Map<String, Set<String>> g = new TreeMap<>();
    for (Source s : srcs) {
      String from = rel(s.pkg());
      Set<String> to = g.computeIfAbsent(from, k -> new TreeSet<>());
      Matcher m = CORE_REF.matcher(s.code());
      while (m.find()) {
        String target = Character.isUpperCase(m.group(1).charAt(0)) ? "" : m.group(1);
        if (!target.equals(from)) to.add(target);
      }
      // a class of the root package used by simple name from a subpackage would need an import: seen above
    }
    return g;
  }

  private static String rel(String pkg) {
    return pkg.equals("org.packetizer.core") ? "" : pkg.startsWith("org.packetizer.core.") ? pkg.substring(20) : pkg;
  }

  @Test
  void coreHasNoPackageCycles() throws IOException {
    Map<String, Set<String>> g = corePackageGraph(sources("packetizer-core"));
    List<List<String>> cycles = stronglyConnected(g).stream().filter(c -> c.size() > 1).toList();
    StringBuilder why = new StringBuilder();
    for (List<String> c : cycles) {
      why.append("\n  cycle among ").append(c.stream().map(p -> p.isEmpty() ? "(root)" : p).toList()).append(':');
      for (String p : c) {
        for (String q : g.get(p)) if (c.contains(q)) why.append("\n    ").append(name(p)).append(" -> ").append(name(q));
      }
    }
    assertTrue(cycles.isEmpty(), "package cycles in packetizer-core:" + why + "\n  package graph: " + g);
  }

  private static String name(String p) { return p.isEmpty() ? "(root)" : p; }

  @Test
  void onlyTheFacadeUsesTheLlvmBindings() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (Source s : sources("packetizer-core")) {
      if (rel(s.pkg()).equals("ir")) continue;
      for (String line : s.code().split("\n")) {
        if (!line.contains("org.bytedeco")) continue;
        // the embedding entry points take the caller's LLVMModuleRef (and hand it to ir.LlvmModule.borrow)
        if (s.file().endsWith("Packetizer.java") && line.strip().equals("import org.bytedeco.llvm.LLVM.LLVMModuleRef;")) continue;
        offenders.add(repo().relativize(s.file()) + ": " + line.strip());
      }
    }
    assertTrue(offenders.isEmpty(), "org.bytedeco outside packetizer-core's ir package (grow the facade instead):\n  "
        + String.join("\n  ", offenders));
  }

  @Test
  void coreUsesNeitherToolingNorItsLibraries() throws IOException {
    List<String> offenders = new ArrayList<>();
    Pattern tooling = Pattern.compile("\\borg\\.packetizer\\.core\\.(jit|check|toolchain|bench)\\b|\\bcom\\.fasterxml\\b"
        + "|\\bcom\\.google\\b|\\borg\\.packetizer\\.testdata\\b");
    for (Source s : sources("packetizer-core")) {
      Matcher m = tooling.matcher(s.code());
      if (m.find()) offenders.add(repo().relativize(s.file()) + ": " + m.group());
    }
    assertTrue(offenders.isEmpty(), "packetizer-core must be the transformation only:\n  " + String.join("\n  ", offenders));
  }

  @Test
  void analysisIsPureJava() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (Source s : sources("packetizer-analysis")) {
      Matcher m = Pattern.compile("\\borg\\.bytedeco\\b|\\borg\\.packetizer\\.(core|cli)\\b").matcher(s.code());
      if (m.find()) offenders.add(repo().relativize(s.file()) + ": " + m.group());
    }
    assertTrue(offenders.isEmpty(), "packetizer-analysis must not use LLVM or the other modules:\n  " + String.join("\n  ", offenders));
  }

  @Test
  void modulesPointOneWay() throws IOException {
    // each module may use the packages of the modules below it, never those above
    Map<String, Set<String>> above = Map.of(
        "packetizer-jit", Set.of("check", "toolchain", "bench"),
        "packetizer-testkit", Set.of("bench"));
    List<String> offenders = new ArrayList<>();
    for (var e : above.entrySet()) {
      for (Source s : sources(e.getKey())) {
        Matcher m = CORE_REF.matcher(s.code());
        while (m.find()) if (e.getValue().contains(m.group(1))) offenders.add(repo().relativize(s.file()) + ": " + m.group());
      }
    }
    for (String module : List.of("packetizer-core", "packetizer-jit", "packetizer-testkit", "packetizer-bench")) {
      for (Source s : sources(module)) {
        if (s.code().contains("org.packetizer.cli")) offenders.add(repo().relativize(s.file()) + ": org.packetizer.cli");
      }
    }
    assertTrue(offenders.isEmpty(), "a module uses one above it:\n  " + String.join("\n  ", offenders));
  }

  @Test
  void theScanSeesWhatItShould() {
    // the scan itself: comments and literals do not count, code does
    String code = stripCommentsAndLiterals("""
        package org.packetizer.core.widen;
        // import org.bytedeco.llvm.LLVM;
        /** {@link org.packetizer.core.wrapper.LoopWrapper} */
        class X { String s = "org.bytedeco"; Object o = org.packetizer.core.mask.MaskOps.class; }
        """);
    assertFalse(code.contains("org.bytedeco"), code);
    assertFalse(code.contains("wrapper"), code);
    Map<String, Set<String>> g = corePackageGraph(List.of(new Source(Path.of("X.java"), "org.packetizer.core.widen", code)));
    assertEquals(Map.of("widen", Set.of("mask")), g);
    assertEquals(List.of(List.of("a", "b")), stronglyConnected(Map.of("a", Set.of("b"), "b", Set.of("a"))).stream()
        .map(c -> c.stream().sorted().toList()).toList());
  }

  /** Tarjan's strongly connected components (iterative enough for a few dozen packages). */
  static List<List<String>> stronglyConnected(Map<String, Set<String>> g) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new LinkedHashSet<>();
    List<List<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String v : new TreeSet<>(g.keySet())) if (!index.containsKey(v)) strong(v, g, index, low, stack, onStack, out, counter);
    return out;
  }

  private static void strong(String v, Map<String, Set<String>> g, Map<String, Integer> index, Map<String, Integer> low,
      Deque<String> stack, Set<String> onStack, List<List<String>> out, int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]++);
    stack.push(v);
    onStack.add(v);
    for (String w : g.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        strong(w, g, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> c = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        c.add(w);
      } while (!w.equals(v));
      out.add(c);
    }
  }
}
