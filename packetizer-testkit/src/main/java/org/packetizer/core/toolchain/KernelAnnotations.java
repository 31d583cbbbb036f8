package org.packetizer.core.toolchain;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parser for the manifest annotations in the kernels' C sources: comments that start with
 * {@code /*@}. Two kinds exist:
 *
 * <pre>
 * /*@ file
 * family: if
 * type struct.Color = { float, float, float }
 * param a: varying range=[-10,10] -- first input          (defaults for kernels without params)
 * returns: the blended value                               (default meaning of the result)
 * sample: 1, 2                                             (default lane samples)
 * *&#47;
 *
 * /*@ kernel if01: one-line description *&#47;
 *
 * /*@ kernel mandelbrot
 * desc: escape-time iteration ...        (continuation lines are appended)
 * family: kernel                         (overrides the file's)
 * function: mandelbrot                   (defaults to the kernel name)
 * param x0: varying range=[-2,1] -- real part
 * param out: soa pointee=struct.Color count=1 dir=out init=zero -- result colour
 * param i: linear step=1 range=[0,15] -- the lane's index
 * returns: the iteration count
 * sample: -0.5, 0, 100                   (one value per parameter, _ for pointers)
 * ulps: 4                                (overrides the computed bound)
 * *&#47;
 * </pre>
 *
 * Pointer parameter keys: {@code pointee} (an LLVM type, or a name declared with {@code type}),
 * {@code count}, {@code dir} (in, out, inout), {@code init} ({@code zero}, {@code random[lo,hi]},
 * {@code iota[start,step]}); {@code step} for linear pointers is in bytes.
 */
final class KernelAnnotations {
  private KernelAnnotations() {}

  /** A parameter as annotated; the type comes from the bitcode later. */
  record ParamSpec(String name, String kind, Long step, List<Number> range, String pointee, Long count,
      String direction, Manifest.Init init, String meaning, int line) {}

  /** File-level defaults. */
  record FileSpec(String family, List<ParamSpec> params, String returns, List<List<String>> samples,
      Map<String, String> types) {}

  record KernelSpec(String name, String function, String family, String description, List<ParamSpec> params,
      String returns, List<List<String>> samples, Integer ulps, int line) {}

  record Parsed(FileSpec file, List<KernelSpec> kernels) {}

  /** An annotation error with the file and line. */
  static final class AnnotationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AnnotationException(String file, int line, String message) {
      super(file + ":" + line + ": " + message);
    }
  }

  private static final Pattern BLOCK = Pattern.compile("/\\*@(.*?)\\*/", Pattern.DOTALL);
  private static final Pattern PARAM = Pattern.compile("param\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*:\\s*(.*)");
  private static final Pattern TYPE = Pattern.compile("type\\s+([A-Za-z_][A-Za-z0-9_.]*)\\s*=\\s*(.+)");
  private static final Pattern KEY = Pattern.compile("(desc|family|function|returns|sample|ulps)\\s*:\\s*(.*)");

  static Parsed parse(String text, String fileName) {
    FileSpec file = null;
    List<KernelSpec> kernels = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      int startLine = lineOf(text, m.start());
      String body = m.group(1);
      List<String> lines = body.lines().map(KernelAnnotations::stripDecoration).toList();
      String head = lines.isEmpty() ? "" : lines.get(0).strip();
      List<String> rest = lines.subList(Math.min(1, lines.size()), lines.size());
      if (head.equals("file")) {
        if (file != null) throw new AnnotationException(fileName, startLine, "a second /*@ file block");
        file = parseFile(rest, fileName, startLine);
      } else if (head.startsWith("kernel ")) {
        kernels.add(parseKernel(head.substring("kernel ".length()).strip(), rest, fileName, startLine));
      } else {
        throw new AnnotationException(fileName, startLine, "annotation must start with 'file' or 'kernel NAME': " + head);
      }
    }
    if (file == null) file = new FileSpec(null, List.of(), null, List.of(), Map.of());
    return new Parsed(file, kernels);
  }

  private static String stripDecoration(String line) {
    String s = line.strip();
    if (s.startsWith("* ")) s = s.substring(2);
    else if (s.equals("*")) s = "";
    return s;
  }

  private static int lineOf(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) if (text.charAt(i) == '\n') line++;
    return line;
  }

  private static FileSpec parseFile(List<String> lines, String fileName, int startLine) {
    String family = null;
    String returns = null;
    List<ParamSpec> params = new ArrayList<>();
    List<List<String>> samples = new ArrayList<>();
    Map<String, String> types = new LinkedHashMap<>();
    int n = startLine;
    for (String raw : lines) {
      n++;
      String line = raw.strip();
      if (line.isEmpty()) continue;
      Matcher pm = PARAM.matcher(line);
      Matcher tm = TYPE.matcher(line);
      Matcher km = KEY.matcher(line);
      if (pm.matches()) {
        params.add(parseParam(pm.group(1), pm.group(2), fileName, n));
      } else if (tm.matches()) {
        types.put(tm.group(1), tm.group(2).strip());
      } else if (km.matches()) {
        switch (km.group(1)) {
          case "family" -> family = km.group(2).strip();
          case "returns" -> returns = km.group(2).strip();
          case "sample" -> samples.add(splitSample(km.group(2)));
          default -> throw new AnnotationException(fileName, n, "'" + km.group(1) + "' is not allowed in a file block");
        }
      } else {
        throw new AnnotationException(fileName, n, "cannot read annotation line: " + line);
      }
    }
    return new FileSpec(family, List.copyOf(params), returns, List.copyOf(samples), Map.copyOf(types));
  }

  private static KernelSpec parseKernel(String head, List<String> lines, String fileName, int startLine) {
    String name = head;
    String desc = null;
    int colon = head.indexOf(':');
    if (colon >= 0) {
      name = head.substring(0, colon).strip();
      desc = head.substring(colon + 1).strip();
    }
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new AnnotationException(fileName, startLine, "bad kernel name: " + name);
    String function = name;
    String family = null;
    String returns = null;
    Integer ulps = null;
    List<ParamSpec> params = new ArrayList<>();
    List<List<String>> samples = new ArrayList<>();
    StringBuilder description = new StringBuilder(desc == null ? "" : desc);
    boolean inDesc = desc != null;
    int n = startLine;
    for (String raw : lines) {
      n++;
      String line = raw.strip();
      if (line.isEmpty()) {
        inDesc = false;
        continue;
      }
      Matcher pm = PARAM.matcher(line);
      Matcher km = KEY.matcher(line);
      if (pm.matches()) {
        params.add(parseParam(pm.group(1), pm.group(2), fileName, n));
        inDesc = false;
      } else if (km.matches()) {
        String v = km.group(2).strip();
        inDesc = false;
        switch (km.group(1)) {
          case "desc" -> {
            if (!description.isEmpty()) description.append(' ');
            description.append(v);
            inDesc = true;
          }
          case "family" -> family = v;
          case "function" -> function = v;
          case "returns" -> returns = v;
          case "sample" -> samples.add(splitSample(v));
          case "ulps" -> {
            try {
              ulps = Integer.parseInt(v);
            } catch (NumberFormatException e) {
              throw new AnnotationException(fileName, n, "ulps must be an integer: " + v);
            }
          }
          default -> throw new AssertionError(km.group(1));
        }
      } else if (inDesc) {
        description.append(' ').append(line);
      } else {
        throw new AnnotationException(fileName, n, "cannot read annotation line: " + line);
      }
    }
    if (description.isEmpty()) throw new AnnotationException(fileName, startLine, "kernel " + name + " has no description");
    return new KernelSpec(name, function, family, description.toString(), List.copyOf(params), returns,
        List.copyOf(samples), ulps, startLine);
  }

  private static List<String> splitSample(String s) {
    List<String> out = new ArrayList<>();
    for (String part : s.split(",")) out.add(part.strip());
    return List.copyOf(out);
  }

  private static ParamSpec parseParam(String name, String spec, String fileName, int line) {
    String meaning = "";
    int dash = spec.indexOf(" -- ");
    if (dash >= 0) {
      meaning = spec.substring(dash + 4).strip();
      spec = spec.substring(0, dash);
    } else if (spec.strip().endsWith("--")) {
      spec = spec.strip().substring(0, spec.strip().length() - 2);
    }
    List<String> tokens = tokenize(spec.strip(), fileName, line);
    if (tokens.isEmpty()) throw new AnnotationException(fileName, line, "parameter " + name + " has no kind");
    String kind = tokens.get(0);
    if (!List.of("varying", "uniform", "linear", "soa").contains(kind)) {
      throw new AnnotationException(fileName, line, "parameter " + name + ": unknown kind '" + kind
          + "' (varying, uniform, linear, soa)");
    }
    Long step = null;
    List<Number> range = null;
    String pointee = null;
    Long count = null;
    String dir = null;
    Manifest.Init init = null;
    for (String t : tokens.subList(1, tokens.size())) {
      int eq = t.indexOf('=');
      if (eq <= 0) throw new AnnotationException(fileName, line, "parameter " + name + ": expected key=value, got " + t);
      String k = t.substring(0, eq);
      String v = t.substring(eq + 1);
      try {
        switch (k) {
          case "step" -> step = Long.parseLong(v);
          case "range" -> range = parsePair(v);
          case "pointee" -> pointee = v;
          case "count" -> count = Long.parseLong(v);
          case "dir" -> {
            if (!List.of("in", "out", "inout").contains(v)) throw new IllegalArgumentException("dir must be in, out or inout");
            dir = v;
          }
          case "init" -> {
            if (v.equals("zero")) init = Manifest.Init.ZERO;
            else if (v.startsWith("random")) {
              List<Number> p = parsePair(v.substring("random".length()));
              init = Manifest.Init.random(p.get(0).doubleValue(), p.get(1).doubleValue());
            } else if (v.startsWith("iota")) {
              List<Number> p = parsePair(v.substring("iota".length()));
              init = Manifest.Init.iota(p.get(0).doubleValue(), p.get(1).doubleValue());
            } else throw new IllegalArgumentException("init must be zero, random[lo,hi] or iota[start,step]");
          }
          default -> throw new IllegalArgumentException("unknown key " + k);
        }
      } catch (IllegalArgumentException e) {
        throw new AnnotationException(fileName, line, "parameter " + name + ": " + t + ": " + e.getMessage());
      }
    }
    return new ParamSpec(name, kind, step, range, pointee, count, dir, init, meaning, line);
  }

  /** Splits on white space outside brackets and braces. */
  private static List<String> tokenize(String s, String fileName, int line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int depth = 0;
    for (char c : s.toCharArray()) {
      if (c == '[' || c == '{' || c == '(') depth++;
      if (c == ']' || c == '}' || c == ')') depth--;
      if (depth < 0) throw new AnnotationException(fileName, line, "unbalanced brackets in: " + s);
      if (Character.isWhitespace(c) && depth == 0) {
        if (!cur.isEmpty()) out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (depth != 0) throw new AnnotationException(fileName, line, "unbalanced brackets in: " + s);
    if (!cur.isEmpty()) out.add(cur.toString());
    return out;
  }

  /** "[lo,hi]" to two numbers. */
  static List<Number> parsePair(String v) {
    String s = v.strip();
    if (!s.startsWith("[") || !s.endsWith("]")) throw new IllegalArgumentException("expected [a,b]: " + v);
    String[] parts = s.substring(1, s.length() - 1).split(",");
    if (parts.length != 2) throw new IllegalArgumentException("expected two numbers: " + v);
    return List.of(parseNumber(parts[0]), parseNumber(parts[1]));
  }

  /** An integer literal as a Long, anything else as a Double. */
  static Number parseNumber(String s) {
    String t = s.strip();
    if (t.matches("[+-]?[0-9]+")) return Long.parseLong(t.startsWith("+") ? t.substring(1) : t);
    double d = Double.parseDouble(t);
    if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("numbers must be finite: " + s);
    return d;
  }
}
