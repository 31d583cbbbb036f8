package org.packetizer.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Value;

/**
 * Graphviz drawings of the two CFGs of one packetization.
 *
 * <ul>
 *   <li>The scalar CFG as the packetizer saw it (the prepared copy, from
 *       {@link PacketizationResult#blockInfo()}): each block lists its varying and uniform values;
 *       divergent branches are red, kept uniform branches blue, blocks that may run with only some
 *       lanes active are shaded, loop headers have a double border.
 *   <li>The packet function's CFG as it is in the module: each block with its first instructions.
 * </ul>
 */
final class Dot {
  private Dot() {}

  static final String RED = "#c62828", BLUE = "#1565c0", PARTIAL = "#fff3c4", GREY = "#616161";
  private static final int MAX_VALUES = 8, MAX_INSTRUCTIONS = 10, MAX_LINE = 72;

  static String scalarCfg(PacketizationResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append("digraph \"").append(esc(r.scalarFunction())).append(".scalar\" {\n");
    graphHeader(sb, "@" + r.scalarFunction() + " (scalar, as prepared for packetization): width " + r.width()
        + ", parameters " + (r.signature().isEmpty() ? "-" : r.signature()));
    Map<String, Integer> order = new HashMap<>();
    for (int i = 0; i < r.blockInfo().size(); i++) order.put(r.blockInfo().get(i).name(), i);
    for (PacketizationResult.BlockInfo b : r.blockInfo()) {
      List<String> attrs = new ArrayList<>();
      StringBuilder label = new StringBuilder("<<b>").append(html(b.name())).append("</b>");
      List<String> notes = new ArrayList<>();
      if (b.loopHeader()) notes.add(b.divergentLoop() ? "divergent loop header" : "uniform loop header");
      if (b.partialMask()) notes.add("partial mask");
      if (b.divergentBranch()) notes.add("divergent branch: linearized");
      if (b.keptBranch()) notes.add("uniform branch: kept");
      if (!notes.isEmpty()) label.append("<br/><i>").append(html(String.join(", ", notes))).append("</i>");
      if (!b.varying().isEmpty()) {
        label.append("<br align=\"left\"/><font color=\"").append(RED).append("\">varying: ")
            .append(html(list(b.varying()))).append("</font>");
      }
      if (!b.uniform().isEmpty()) {
        label.append("<br align=\"left\"/><font color=\"").append(BLUE).append("\">uniform: ")
            .append(html(list(b.uniform()))).append("</font>");
      }
      label.append("<br align=\"left\"/>>");
      attrs.add("label=" + label);
      if (b.partialMask()) attrs.add("style=\"rounded,filled\", fillcolor=\"" + PARTIAL + "\"");
      if (b.divergentBranch()) attrs.add("color=\"" + RED + "\", penwidth=2");
      else if (b.keptBranch()) attrs.add("color=\"" + BLUE + "\", penwidth=2");
      if (b.loopHeader()) attrs.add("peripheries=2");
      sb.append("  ").append(id(b.name())).append(" [").append(String.join(", ", attrs)).append("];\n");
    }
    for (PacketizationResult.BlockInfo b : r.blockInfo()) {
      int from = order.get(b.name());
      boolean two = b.successors().size() == 2;
      for (int i = 0; i < b.successors().size(); i++) {
        String s = b.successors().get(i);
        List<String> attrs = new ArrayList<>();
        if (two) attrs.add("label=\"" + (i == 0 ? "T" : "F") + "\"");
        if (b.divergentBranch()) attrs.add("color=\"" + RED + "\", fontcolor=\"" + RED + "\", penwidth=2");
        else if (b.keptBranch()) attrs.add("color=\"" + BLUE + "\", fontcolor=\"" + BLUE + "\"");
        Integer to = order.get(s);
        if (to != null && to <= from) attrs.add("style=dashed"); // back edge in the linearization order
        sb.append("  ").append(id(b.name())).append(" -> ").append(id(s));
        if (!attrs.isEmpty()) sb.append(" [").append(String.join(", ", attrs)).append(']');
        sb.append(";\n");
      }
    }
    legend(sb);
    sb.append("}\n");
    return sb.toString();
  }

  static String packetCfg(Function f, PacketizationResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append("digraph \"").append(esc(f.name())).append(".packet\" {\n");
    graphHeader(sb, "@" + f.name() + " (packet function of @" + r.scalarFunction() + ", width " + r.width() + "): "
        + plural(r.linearizedBranches(), "branch", "branches") + " linearized, " + r.keptBranches() + " kept, "
        + plural(f.instructionCount(), "instruction", "instructions"));
    List<Block> blocks = f.blocks();
    Map<String, Integer> order = new HashMap<>();
    for (int i = 0; i < blocks.size(); i++) order.put(name(blocks.get(i), i), i);
    for (int i = 0; i < blocks.size(); i++) {
      Block b = blocks.get(i);
      List<Value> insts = b.instructions();
      StringBuilder label = new StringBuilder("<<b>").append(html(name(b, i))).append("</b>  <font color=\"")
          .append(GREY).append("\">(").append(insts.size()).append(insts.size() == 1 ? " instruction" : " instructions")
          .append(")</font><br align=\"left\"/>");
      int shown = 0;
      for (Value v : insts) {
        boolean last = shown == insts.size() - 1;
        if (shown >= MAX_INSTRUCTIONS && !last) {
          if (shown == MAX_INSTRUCTIONS) label.append("<font color=\"").append(GREY).append("\">  ...</font><br align=\"left\"/>");
          shown++;
          continue;
        }
        label.append(html(clip(v.print().strip(), MAX_LINE))).append("<br align=\"left\"/>");
        shown++;
      }
      label.append('>');
      sb.append("  ").append(id(name(b, i))).append(" [label=").append(label).append(", fontname=\"monospace\"];\n");
    }
    for (int i = 0; i < blocks.size(); i++) {
      Block b = blocks.get(i);
      List<Block> succ = b.successors();
      for (int k = 0; k < succ.size(); k++) {
        String s = name(succ.get(k), -1);
        List<String> attrs = new ArrayList<>();
        if (succ.size() == 2) attrs.add("label=\"" + (k == 0 ? "T" : "F") + "\"");
        Integer to = order.get(s);
        if (to != null && to <= i) attrs.add("style=dashed");
        sb.append("  ").append(id(name(b, i))).append(" -> ").append(id(s));
        if (!attrs.isEmpty()) sb.append(" [").append(String.join(", ", attrs)).append(']');
        sb.append(";\n");
      }
    }
    sb.append("}\n");
    return sb.toString();
  }

  static String plural(long n, String one, String many) { return n + " " + (n == 1 ? one : many); }

  private static String name(Block b, int index) {
    String n = b.name();
    return n.isEmpty() ? "bb" + (index < 0 ? Long.toHexString(b.ref().address()) : index) : n;
  }

  private static void graphHeader(StringBuilder sb, String title) {
    sb.append("  graph [label=\"").append(esc(title)).append("\", labelloc=t, fontname=\"Helvetica\", fontsize=12];\n");
    sb.append("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n");
    sb.append("  edge [fontname=\"Helvetica\", fontsize=9];\n");
  }

  private static void legend(StringBuilder sb) {
    sb.append("  subgraph cluster_legend {\n    label=\"legend\"; fontsize=9; color=\"#bdbdbd\";\n");
    sb.append("    legend [shape=plaintext, style=\"\", label=<<font point-size=\"9\">")
        .append("<font color=\"").append(RED).append("\">red</font>: divergent branch (linearized), varying values<br/>")
        .append("<font color=\"").append(BLUE).append("\">blue</font>: uniform branch (kept), uniform values<br/>")
        .append("shaded: block may run with only some lanes active<br/>")
        .append("double border: loop header; dashed edge: back edge</font>>];\n  }\n");
  }

  private static String list(List<String> names) {
    if (names.size() <= MAX_VALUES) return String.join(" ", names);
    return String.join(" ", names.subList(0, MAX_VALUES)) + " (+" + (names.size() - MAX_VALUES) + " more)";
  }

  private static String clip(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 3) + "...";
  }

  static String id(String s) { return "\"" + esc(s) + "\""; }

  static String esc(String s) { return s.replace("\\", "\\\\").replace("\"", "\\\""); }

  static String html(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** The Graphviz {@code dot} program on PATH, if any. */
  static Optional<Path> graphviz() {
    String path = System.getenv("PATH");
    if (path == null) return Optional.empty();
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) continue;
      Path p = Path.of(dir, "dot");
      if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
    }
    return Optional.empty();
  }

  /** Renders {@code dotFile} to an .svg beside it; an error message, or empty on success. */
  static Optional<String> renderSvg(Path dotProgram, Path dotFile) {
    String n = dotFile.getFileName().toString();
    Path svg = dotFile.resolveSibling(n.substring(0, n.length() - ".dot".length()) + ".svg");
    try {
      Process p = new ProcessBuilder(dotProgram.toString(), "-Tsvg", dotFile.toString(), "-o", svg.toString())
          .redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.of("dot did not finish within 60 s");
      }
      if (p.exitValue() != 0) return Optional.of("dot failed (exit " + p.exitValue() + "): " + new String(out).strip());
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("cannot run " + dotProgram + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }
}
