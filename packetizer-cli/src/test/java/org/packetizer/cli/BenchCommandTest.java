package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.bench.BenchOptions;
import org.packetizer.core.bench.BenchTarget;
import picocli.CommandLine;

/**
 * Smoke test of {@code packetize bench --quick}: every quick kernel is measured at every target this
 * host can run, every packet loop computed what the scalar loop computed (the benchmark compares
 * after every run and reports nothing else), and the table, JSON and SVG have their structure.
 */
class BenchCommandTest {
  static final List<String> REQUIRED = List.of("kernel", "width", "isa", "scalar_ns_per_elem", "autovec_ns_per_elem",
      "packet_ns_per_elem", "scalar_instructions", "packet_instructions", "packetize_ms", "speedup_vs_scalar", "speedup_vs_autovec");

  @Test
  void quickModeMeasuresEveryKernelAndTargetCorrectly(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("bench.json");
    Path svg = dir.resolve("bench.svg");
    StringWriter out = new StringWriter(), err = new StringWriter();
    CommandLine cl = new CommandLine(new BenchCommand());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("--quick", "--strict", "--json", json.toString(), "--svg", svg.toString());
    String table = out.toString();
    assertEquals(0, exit, "exit status; table:\n" + table + "\nlog:\n" + err);

    long runnable = BenchTarget.defaults().stream().filter(t -> t.isa().missingOnHost().isEmpty()).count();
    assertTrue(runnable >= 1, "this host runs none of the default targets");

    // the table
    for (String k : BenchOptions.QUICK_KERNELS) assertTrue(table.contains(k), "table lacks " + k + ":\n" + table);
    assertTrue(table.contains("scalar") && table.contains("autovec") && table.contains("packet"), table);
    assertTrue(table.contains("Goals:"), table);
    assertTrue(table.contains("asm") && table.contains("code growth in machine instructions"), table);
    assertFalse(table.contains("Not reported"), table);

    // the JSON
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertEquals(1, root.get("schema").asInt());
    JsonNode results = root.get("results");
    assertEquals(BenchOptions.QUICK_KERNELS.size() * runnable, results.size(), root.toPrettyString());
    assertEquals(0, root.get("failures").size(), root.get("failures").toPrettyString());
    Set<String> seen = new HashSet<>();
    for (JsonNode r : results) {
      for (String key : REQUIRED) assertTrue(r.has(key), "result lacks " + key + ": " + r);
      for (String key : List.of("scalar_ns_per_elem", "autovec_ns_per_elem", "packet_ns_per_elem")) {
        assertTrue(r.get(key).asDouble() > 0, key + " in " + r);
      }
      // the GCC declare-simd loop (issue 16) when Debian's gcc is installed (bin/install-test-deps.sh installs it)
      assertTrue(r.has("gcc_ns_per_elem") && r.has("gcc_matches"), r.toString());
      if (java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
          .anyMatch(d -> Files.isExecutable(Path.of(d, "gcc")))) {
        assertTrue(r.get("gcc_ns_per_elem").asDouble() > 0, "gcc_ns_per_elem in " + r);
      } else {
        System.err.println("SKIPPED (LOUD): gcc is not installed; the GCC column of BenchCommandTest is not checked");
      }
      assertTrue(r.get("scalar_instructions").asInt() > 0);
      assertTrue(r.get("packet_instructions").asInt() > 0);
      // machine code of both functions compiled for the target CPU, and its ratio (the code-growth goal's figure)
      int sm = r.get("scalar_machine_instructions").asInt(), pm = r.get("packet_machine_instructions").asInt();
      assertTrue(sm > 0 && pm > 0, "machine instructions in " + r);
      assertEquals((double) pm / sm, r.get("machine_code_growth").asDouble(), 1e-9, r.toString());
      assertEquals(1024, r.get("elements").asInt());
      assertTrue(seen.add(r.get("kernel").asText() + "/" + r.get("width").asInt() + "/" + r.get("isa").asText()), "duplicate " + r);
    }
    assertTrue(root.get("geomeans").isArray());
    assertEquals(6, root.get("goals").size());

    // the chart
    String text = Files.readString(svg);
    assertTrue(text.startsWith("<svg"), text);
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
    assertEquals("svg", doc.getDocumentElement().getNodeName());
    assertTrue(doc.getElementsByTagName("rect").getLength() > results.size(), "one bar per result at least");
  }

  @Test
  void badArgumentsAreUsageErrors() {
    CommandLine cl = new CommandLine(new BenchCommand());
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(2, cl.execute("--targets", "8:neon"));
    assertEquals(2, cl.execute("--vector-math", "svml"));
  }
}
