package org.packetizer.core.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Compares two {@link PacketOutputDump} directories file by file ({@code bin/dump-packets --compare
 * BEFORE AFTER}) and sorts each pair into: identical; equal up to local value and block names
 * (every {@code %name} renamed, per function, in order of first appearance: a change that creates or
 * erases a named instruction shifts the numeric suffixes LLVM gives later names); equal up to
 * declarations (their order, or one that nothing uses any more); or different (listed). Exit status 1
 * when any file differs.
 */
final class DumpCompare {
  private DumpCompare() {}

  private static final Pattern LOCAL = Pattern.compile("%([-a-zA-Z$._0-9]+|\"[^\"]*\")");
  private static final Pattern LABEL = Pattern.compile("^([-a-zA-Z$._0-9]+|\"[^\"]*\"):");

  static int run(Path a, Path b) throws IOException {
    int identical = 0;
    int names = 0;
    int declarations = 0;
    List<String> differ = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(a)) {
      files = s.filter(p -> p.toString().endsWith(".ll")).sorted().toList();
    }
    for (Path fa : files) {
      Path fb = b.resolve(fa.getFileName().toString());
      if (!Files.exists(fb)) {
        differ.add(fa.getFileName() + " (missing)");
        continue;
      }
      String ta = Files.readString(fa);
      String tb = Files.readString(fb);
      if (ta.equals(tb)) {
        identical++;
        continue;
      }
      List<String> na = normalize(ta);
      List<String> nb = normalize(tb);
      if (na.equals(nb)) {
        names++;
      } else if (withoutDeclarations(na).equals(withoutDeclarations(nb))) {
        declarations++;
      } else {
        differ.add(fa.getFileName().toString());
      }
    }
    System.out.printf("%d files: %d identical, %d equal up to value names, %d equal up to declarations, %d differ%n",
        files.size(), identical, names, declarations, differ.size());
    differ.forEach(f -> System.out.println("  differs: " + f));
    return differ.isEmpty() ? 0 : 1;
  }

  /**
   * The lines with local names numbered per function in order of appearance ({@code ; preds} comments dropped).
   * An entry block without a label (a module made with value names off) gets one: LLVM numbers it after the
   * unnamed parameters ({@code %0 .. %(n-1)}, the block {@code %n}), and with names it would be a label
   * ({@code entry:}) at the same place, so both read the same here.
   */
  static List<String> normalize(String text) {
    List<String> out = new ArrayList<>();
    Map<String, String> ids = new HashMap<>();
    int entrySlot = -1;  // after a define line: the entry block's number if it has no label
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("define ")) {
        ids.clear();
        entrySlot = -1;
      }
      if (line.startsWith("%") && line.contains(" = type ")) {  // a named struct type
        out.add(line);
        continue;
      }
      Matcher lm = LABEL.matcher(line);
      if (entrySlot >= 0 && !lm.find(0) && !line.isBlank()) {
        String id = ids.computeIfAbsent(Integer.toString(entrySlot), k -> "v" + ids.size());
        out.add(id + ":");
      }
      entrySlot = line.startsWith("define ") && line.endsWith("{") ? unnamedParameters(line) : -1;
      lm = LABEL.matcher(line);
      if (lm.find()) {
        String id = ids.computeIfAbsent(lm.group(1), k -> "v" + ids.size());
        line = id + ":";
      }
      Matcher m = LOCAL.matcher(line);
      StringBuilder sb = new StringBuilder();
      while (m.find()) m.appendReplacement(sb, Matcher.quoteReplacement("%" + ids.computeIfAbsent(m.group(1), k -> "v" + ids.size())));
      m.appendTail(sb);
      out.add(sb.toString().stripTrailing());
    }
    return out;
  }

  /** How many parameters of a define line are unnamed ({@code %0}, {@code %1}, ...: LLVM numbers them first). */
  static int unnamedParameters(String define) {
    int open = define.indexOf('(');
    int close = define.lastIndexOf(')');
    if (open < 0 || close < open) return 0;
    Matcher m = NUMBERED.matcher(define.substring(open, close));
    int n = 0;
    while (m.find()) n++;
    return n;
  }

  private static final Pattern NUMBERED = Pattern.compile("%[0-9]+\\b");

  private static List<String> withoutDeclarations(List<String> lines) {
    return lines.stream().filter(l -> !l.isBlank() && !l.startsWith("declare ") && !l.startsWith("; Function Attrs")).toList();
  }
}
