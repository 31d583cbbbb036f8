package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizationResult.BlockInfo;
import org.packetizer.core.api.ParamKind;

/** The scalar-CFG drawing from analysis facts alone (no LLVM): every kind of block is marked. */
class DotTest {
  static PacketizationResult result(List<BlockInfo> blocks) {
    return new PacketizationResult("f", "f_simd4", 4, List.of(ParamKind.VARYING, ParamKind.UNIFORM), Map.of(), 1, 2,
        blocks.size(), 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 10, 20, 15, List.of(), blocks, 1_000_000);
  }

  @Test
  void marksDivergentKeptPartialAndLoops() {
    String dot = Dot.scalarCfg(result(List.of(
        new BlockInfo("entry", List.of("loop", "exit"), false, false, true, false, false, List.of(), List.of("%u")),
        new BlockInfo("loop", List.of("loop", "exit"), true, true, false, true, true, List.of("%x", "%c"), List.of()),
        new BlockInfo("exit", List.of(), false, false, false, false, false, List.of("%r<\"&>"), List.of()))));
    assertTrue(dot.startsWith("digraph \"f.scalar\" {"), dot);
    assertTrue(dot.contains("uniform branch: kept") && dot.contains("\"entry\" -> \"loop\" [label=\"T\", color=\"" + Dot.BLUE), dot);
    assertTrue(dot.contains("divergent loop header, partial mask, divergent branch: linearized"), dot);
    assertTrue(dot.contains("fillcolor=\"" + Dot.PARTIAL + "\"") && dot.contains("peripheries=2"), dot);
    assertTrue(dot.contains("\"loop\" -> \"loop\" [label=\"T\", color=\"" + Dot.RED + "\", fontcolor=\"" + Dot.RED
        + "\", penwidth=2, style=dashed]"), "a red back edge: " + dot);
    assertTrue(dot.contains("varying: %r&lt;&quot;&amp;&gt;"), "HTML-escaped names: " + dot);
    assertTrue(dot.contains("uniform: %u"), dot);
  }

  @Test
  void escapesNamesInIds() {
    assertEquals("\"a\\\"b\"", Dot.id("a\"b"));
    assertEquals("&lt;4 x i1&gt;", Dot.html("<4 x i1>"));
  }
}
