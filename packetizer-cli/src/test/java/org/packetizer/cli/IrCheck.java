package org.packetizer.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small FileCheck: an IR check file is a {@code .ll} input whose comments say how to packetize it
 * and what the output must (and must not) contain.
 *
 * <pre>
 * ; RUN: packetize -f f -w 8 --params uv --print-shapes
 * ; CHECK-LABEL: define &lt;8 x float&gt; @f_simd8(
 * ; CHECK:       load &lt;8 x float&gt;, ptr [[P:%[a-z0-9.]+]]
 * ; CHECK-NEXT:  fadd &lt;8 x float&gt;
 * ; CHECK-NOT:   gather
 * ; SHAPES:      block %entry: full mask
 * </pre>
 *
 * <ul>
 *   <li>{@code RUN:} the {@code packetize} arguments (the input, {@code -S} and {@code -o -} are added);
 *       {@code RUN: not packetize ...} expects a non-zero exit code.
 *   <li>{@code SET: name=value} sets a system property (a measurement knob such as
 *       {@code packetizer.allActiveLaneLoads=true}) for this file's run; it is restored afterwards.
 *   <li>{@code CHECK} lines match the textual IR written to standard output; {@code SHAPES} lines match
 *       standard error (the summary line, remarks and the {@code --print-shapes} dump).
 *   <li>Suffixes as in LLVM's FileCheck: none (the next match at or after the previous one),
 *       {@code -NEXT} (on the line right after the previous match), {@code -SAME} (later on the same
 *       line), {@code -NOT} (nowhere between the previous match and the next positive match, or the
 *       end), {@code -LABEL} (like a plain match; use it for {@code define} lines).
 *   <li>Patterns are literal text with runs of blanks matching any run of blanks; {@code {{re}}} is a
 *       Java regular expression; {@code [[NAME:re]]} captures, {@code [[NAME]]} matches what was
 *       captured. Each pattern matches within one line.
 * </ul>
 *
 * A failure names the check file and line, the directive, and shows the output around the place
 * where the match was looked for.
 */
final class IrCheck {
  private IrCheck() {}

  enum Suffix { PLAIN, NEXT, SAME, NOT, LABEL }

  /** One {@code ; PREFIX[-SUFFIX]: pattern} line of a check file. */
  record Directive(String prefix, Suffix suffix, String pattern, int line) {
    String spelled() { return prefix + (suffix == Suffix.PLAIN ? "" : "-" + suffix) + ": " + pattern; }
  }

  /** A parsed check file: its RUN arguments, whether a failure is expected, its directives. */
  record Spec(Path file, List<String> args, boolean expectFailure, List<Directive> directives, Map<String, String> properties) {}

  private static final Pattern SET = Pattern.compile("^\\s*;\\s*SET:\\s*([\\w.]+)=(\\S*)\\s*$");

  private static final Pattern DIRECTIVE =
      Pattern.compile("^\\s*;\\s*(CHECK|SHAPES)(?:-(NEXT|SAME|NOT|LABEL))?:(.*)$");
  private static final Pattern RUN = Pattern.compile("^\\s*;\\s*RUN:\\s*(not\\s+)?packetize\\b(.*)$");

  static Spec parse(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> args = null;
    boolean not = false;
    List<Directive> ds = new ArrayList<>();
    Map<String, String> props = new java.util.LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      Matcher set = SET.matcher(l);
      if (set.matches()) {
        props.put(set.group(1), set.group(2));
        continue;
      }
      Matcher r = RUN.matcher(l);
      if (r.matches()) {
        if (args != null) throw new AssertionError(file + ":" + (i + 1) + ": only one RUN line per file");
        not = r.group(1) != null;
        args = new ArrayList<>(List.of(r.group(2).trim().split("\\s+")));
        args.removeIf(String::isEmpty);
        continue;
      }
      Matcher d = DIRECTIVE.matcher(l);
      if (d.matches()) {
        Suffix s = d.group(2) == null ? Suffix.PLAIN : Suffix.valueOf(d.group(2));
        String pat = d.group(3).strip();
        if (pat.isEmpty()) throw new AssertionError(file + ":" + (i + 1) + ": empty pattern");
        ds.add(new Directive(d.group(1), s, pat, i + 1));
      }
    }
    if (args == null) throw new AssertionError(file + ": no '; RUN: packetize ...' line");
    if (ds.stream().noneMatch(d -> d.suffix() != Suffix.NOT)) {
      throw new AssertionError(file + ": no positive CHECK or SHAPES line (a check file must assert something)");
    }
    return new Spec(file, List.copyOf(args), not, List.copyOf(ds), java.util.Collections.unmodifiableMap(props));
  }

  /**
   * Matches the directives with {@code prefix} against {@code text}.
   *
   * @throws AssertionError naming the failing directive, with the output around the search position
   */
  static void match(Path file, String prefix, List<Directive> all, String text, String streamName) {
    List<Directive> ds = all.stream().filter(d -> d.prefix().equals(prefix)).toList();
    if (ds.isEmpty()) return;
    String[] lines = text.split("\n", -1);
    Map<String, String> vars = new HashMap<>();
    int line = 0;
    int col = 0;
    int lastLine = -1;
    List<Directive> nots = new ArrayList<>();
    for (Directive d : ds) {
      if (d.suffix() == Suffix.NOT) {
        nots.add(d);
        continue;
      }
      Compiled c = compile(file, d, vars);
      int foundLine = -1;
      Matcher found = null;
      switch (d.suffix()) {
        case NEXT -> {
          if (lastLine < 0) throw fail(file, d, "-NEXT needs a previous match", lines, 0, streamName);
          if (lastLine + 1 < lines.length) {
            Matcher m = c.pattern.matcher(lines[lastLine + 1]);
            if (m.find()) {
              foundLine = lastLine + 1;
              found = m;
            }
          }
          if (found == null) {
            throw fail(file, d, "not found on the line after the previous match (line " + (lastLine + 1) + " of " + streamName
                + ")", lines, lastLine, streamName);
          }
        }
        case SAME -> {
          if (lastLine < 0) throw fail(file, d, "-SAME needs a previous match", lines, 0, streamName);
          Matcher m = c.pattern.matcher(lines[lastLine]);
          if (m.find(col)) {
            foundLine = lastLine;
            found = m;
          } else {
            throw fail(file, d, "not found later on the line of the previous match", lines, lastLine, streamName);
          }
        }
        default -> {
          for (int i = line; i < lines.length && found == null; i++) {
            Matcher m = c.pattern.matcher(lines[i]);
            if (m.find(i == line ? Math.min(col, lines[i].length()) : 0)) {
              foundLine = i;
              found = m;
            }
          }
          if (found == null) {
            throw fail(file, d, "not found after line " + (line + 1) + " of " + streamName, lines, line, streamName);
          }
        }
      }
      checkNots(file, nots, vars, lines, line, col, foundLine, found.start(), streamName);
      nots.clear();
      for (Map.Entry<String, String> e : c.captures.entrySet()) vars.put(e.getKey(), found.group(e.getValue()));
      line = foundLine;
      col = found.end();
      lastLine = foundLine;
    }
    checkNots(file, nots, vars, lines, line, col, lines.length - 1, Integer.MAX_VALUE, streamName);
  }

  /** No NOT pattern may match from (fromLine, fromCol) up to (toLine, toCol). */
  private static void checkNots(Path file, List<Directive> nots, Map<String, String> vars, String[] lines, int fromLine,
      int fromCol, int toLine, int toCol, String streamName) {
    for (Directive n : nots) {
      Compiled c = compile(file, n, vars);
      for (int i = fromLine; i <= toLine && i < lines.length; i++) {
        String l = lines[i];
        int start = i == fromLine ? Math.min(fromCol, l.length()) : 0;
        int end = i == toLine ? Math.min(toCol, l.length()) : l.length();
        if (start > end) continue;
        Matcher m = c.pattern.matcher(l).region(start, end);
        if (m.find()) {
          throw fail(file, n, "found where it must not be (line " + (i + 1) + " of " + streamName + ")", lines, i, streamName);
        }
      }
    }
  }

  private record Compiled(Pattern pattern, Map<String, String> captures) {}

  private static final Pattern TOKEN = Pattern.compile("\\{\\{(.*?)\\}\\}|\\[\\[([A-Za-z_][A-Za-z0-9_]*)(?::(.*?))?\\]\\]");

  private static Compiled compile(Path file, Directive d, Map<String, String> vars) {
    StringBuilder re = new StringBuilder();
    Map<String, String> captures = new HashMap<>();
    Matcher t = TOKEN.matcher(d.pattern());
    int at = 0;
    while (t.find()) {
      literal(re, d.pattern().substring(at, t.start()));
      if (t.group(1) != null) {
        re.append("(?:").append(t.group(1)).append(')');
      } else if (t.group(3) != null) {
        String group = "v" + captures.size();
        captures.put(t.group(2), group);
        re.append("(?<").append(group).append('>').append(t.group(3)).append(')');
      } else {
        String v = vars.get(t.group(2));
        if (v == null) {
          throw new AssertionError(file + ":" + d.line() + ": " + d.spelled() + "\n  [[" + t.group(2) + "]] is not defined by an"
              + " earlier match");
        }
        re.append(Pattern.quote(v));
      }
      at = t.end();
    }
    literal(re, d.pattern().substring(at));
    try {
      return new Compiled(Pattern.compile(re.toString()), captures);
    } catch (java.util.regex.PatternSyntaxException e) {
      throw new AssertionError(file + ":" + d.line() + ": " + d.spelled() + "\n  bad regular expression: " + e.getMessage());
    }
  }

  private static void literal(StringBuilder re, String s) {
    String[] parts = s.split("[ \\t]+", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) re.append("[ \\t]+");
      if (!parts[i].isEmpty()) re.append(Pattern.quote(parts[i]));
    }
  }

  private static AssertionError fail(Path file, Directive d, String why, String[] lines, int around, String streamName) {
    StringBuilder sb = new StringBuilder();
    sb.append(file).append(':').append(d.line()).append(": ").append(d.spelled()).append("\n  ").append(why)
        .append("\n  ").append(streamName).append(" around there (> marks where the match was looked for):\n");
    int from = Math.max(0, around - 4);
    int to = Math.min(lines.length, around + 16);
    for (int i = from; i < to; i++) {
      sb.append(i == around ? "  > " : "    ").append(String.format("%4d | ", i + 1)).append(lines[i]).append('\n');
    }
    if (to < lines.length) sb.append("    ... (").append(lines.length - to).append(" more lines)\n");
    return new AssertionError(sb.toString());
  }
}
