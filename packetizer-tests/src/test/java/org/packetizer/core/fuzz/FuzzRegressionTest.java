package org.packetizer.core.fuzz;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every failure the fuzzer found, checked in under src/test/resources/fuzz-regressions/ (see its README). */
class FuzzRegressionTest {
  private static final Pattern FIELD = Pattern.compile("^\\s*[*;]\\s*(\\w+):\\s*(.*)$", Pattern.MULTILINE);

  static Map<String, String> header(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    int end = text.indexOf(text.startsWith("/*") ? "*/" : "\n\n");
    Matcher m = FIELD.matcher(end < 0 ? text : text.substring(0, end));
    while (m.find()) out.putIfAbsent(m.group(1), m.group(2).strip());
    return out;
  }

  static List<Path> files() throws IOException, URISyntaxException {
    var url = FuzzRegressionTest.class.getResource("/fuzz-regressions");
    assertNotNull(url, "no fuzz-regressions resource folder");
    try (Stream<Path> s = Files.list(Path.of(url.toURI()))) {
      return s.filter(p -> p.toString().endsWith(".c") || p.toString().endsWith(".ll")).sorted().toList();
    }
  }

  @TestFactory
  Stream<DynamicTest> regressions() throws Exception {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path p : files()) tests.add(DynamicTest.dynamicTest(p.getFileName().toString(), () -> run(p)));
    return tests.stream();
  }

  static void run(Path p) throws IOException {
    String text = Files.readString(p);
    Map<String, String> h = header(text);
    String expect = h.getOrDefault("expect", "");
    FuzzRunner runner = new FuzzRunner(12);
    List<FuzzRunner.Outcome> os;
    if (p.toString().endsWith(".c")) {
      assertEquals("pass", expect, p + ": a C regression must say 'expect: pass'");
      String fn = h.get("function");
      String kinds = h.get("kinds");
      assertNotNull(fn, p + ": no 'function:' in the header");
      assertNotNull(kinds, p + ": no 'kinds:' in the header");
      int[] widths = Arrays.stream(h.getOrDefault("widths", "4,8,16").split(",")).map(String::strip)
          .mapToInt(Integer::parseInt).toArray();
      byte[] bc = FuzzRunner.compile(text, p.getFileName().toString());
      os = runner.runC(fn, kinds, bc, widths, fn.hashCode());
      for (FuzzRunner.Outcome o : os) assertEquals(FuzzRunner.Status.PASSED, o.status(), o::toString);
    } else if (expect.equals("pass")) {
      String fn = h.get("function");
      String kinds = h.get("kinds");
      assertNotNull(fn, p + ": no 'function:' in the header");
      assertNotNull(kinds, p + ": no 'kinds:' in the header");
      int[] widths = Arrays.stream(h.getOrDefault("widths", "4,8,16").split(",")).map(String::strip)
          .mapToInt(Integer::parseInt).toArray();
      os = runner.runIr(text, p.getFileName().toString(), fn, kinds, widths, fn.hashCode());
      for (FuzzRunner.Outcome o : os) assertEquals(FuzzRunner.Status.PASSED, o.status(), o::toString);
    } else {
      assertEquals("clean", expect, p + ": an IR regression must say 'expect: clean' or 'expect: pass'");
      os = runner.runStressIr(text, p.getFileName().toString());
      assertFalse(os.isEmpty());
      for (FuzzRunner.Outcome o : os) assertNotEquals(FuzzRunner.Status.FAILED, o.status(), o::toString);
    }
    System.out.println(p.getFileName() + ": " + FuzzRunner.tally(os));
  }
}
