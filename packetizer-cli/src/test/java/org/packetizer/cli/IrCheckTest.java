package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The IR check files under {@code src/test/resources/irchecks/} (see {@link IrCheck} for the form):
 * each is packetized by the {@code packetize} command in this JVM as its RUN line says, and its CHECK
 * lines are matched against the textual IR, its SHAPES lines against standard error. These tests
 * look at the shape of the emitted code — which loads became vector loads, which branch was kept,
 * where a blend is and is not — so that a code-quality regression fails a test even when the
 * differential checks still pass. Filter with {@code -Dpacketizer.irchecks.filter=REGEX}.
 */
class IrCheckTest {
  static Path root() {
    try {
      return Path.of(IrCheckTest.class.getResource("/irchecks").toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError(e);
    }
  }

  static List<Path> files() throws IOException {
    try (Stream<Path> s = Files.walk(root())) {
      String filter = System.getProperty("packetizer.irchecks.filter", "");
      return s.filter(p -> p.toString().endsWith(".ll"))
          .filter(p -> filter.isEmpty() || java.util.regex.Pattern.compile(filter).matcher(p.toString()).find())
          .sorted().toList();
    }
  }

  @TestFactory
  Stream<DynamicTest> checkFiles() throws IOException {
    return files().stream().map(f -> DynamicTest.dynamicTest(root().relativize(f).toString(), () -> run(f)));
  }

  static void run(Path file) {
    IrCheck.Spec spec = IrCheck.parse(file);
    List<String> args = new ArrayList<>(spec.args());
    args.add(file.toString());
    if (!args.contains("-S")) args.add("-S");
    args.addAll(List.of("-o", "-"));
    java.util.Map<String, String> saved = new java.util.HashMap<>();
    spec.properties().forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
    Cli.Run r;
    try {
      r = Cli.run(args.toArray(String[]::new));
    } finally {
      saved.forEach((k, v) -> {
        if (v == null) System.clearProperty(k);
        else System.setProperty(k, v);
      });
    }
    String cmd = (spec.properties().isEmpty() ? "" : spec.properties() + " ") + "packetize " + String.join(" ", args);
    if (spec.expectFailure()) {
      assertNotEquals(0, r.code(), file + ": expected a failure of\n  " + cmd + "\n" + r);
    } else {
      assertEquals(0, r.code(), file + ": " + cmd + " failed\n" + r);
    }
    IrCheck.match(file, "CHECK", spec.directives(), r.out(), "standard output (IR)");
    IrCheck.match(file, "SHAPES", spec.directives(), r.err(), "standard error");
  }

  /** The suite is the point: at least 40 files, each phase covered (a directory per phase). */
  @Test
  void thereAreEnoughFilesForEveryPhase() throws IOException {
    if (!System.getProperty("packetizer.irchecks.filter", "").isEmpty()) return;
    List<Path> fs = files();
    assertTrue(fs.size() >= 40, "only " + fs.size() + " IR check files");
    for (String phase : List.of("prepare", "shapes", "masks", "blend", "linearize", "memory", "arith", "calls", "wrapper",
        "vector-abi", "cleanup", "errors")) {
      assertTrue(Files.isDirectory(root().resolve(phase)), "no IR check files for phase " + phase);
    }
  }
}
