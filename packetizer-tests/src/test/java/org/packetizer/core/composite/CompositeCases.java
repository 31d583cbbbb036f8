package org.packetizer.core.composite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.LlvmContext;

/**
 * The hand-written IR cases of vector and aggregate values ({@code src/test/resources/composite}):
 * each file names the functions to check in comment lines
 * {@code ; check @fn: spec, spec, ...} with one spec per parameter: {@code varying}, {@code uniform},
 * {@code linear:STEP}, or a buffer {@code uptr|vptr|sptr:TYPE:COUNT:DIR} (sptr: struct of arrays) / {@code lptr:TYPE:COUNT:STEPBYTES:DIR}
 * (DIR in, out or inout; TYPE an LLVM type without spaces or with underscores for spaces).
 */
record CompositeCases(Path file, String text, List<Case> cases) {
  record Case(String function, List<String> specs) {}

  private static final Pattern CHECK = Pattern.compile("^(?:;|//) check @([\\w.]+):\\s*(.*)$", Pattern.MULTILINE);

  static List<CompositeCases> all() { return all(".ll"); }

  /** The files of the folder ending in {@code suffix} (".ll" cases, ".c" sources). */
  static List<CompositeCases> all(String suffix) {
    try {
      Path dir = Path.of(CompositeCases.class.getResource("/composite").toURI());
      List<CompositeCases> out = new ArrayList<>();
      try (Stream<Path> s = Files.list(dir)) {
        for (Path p : s.filter(x -> x.toString().endsWith(suffix)).sorted().toList()) out.add(parse(p));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static CompositeCases parse(Path p) throws IOException {
    String text = Files.readString(p);
    List<Case> cases = new ArrayList<>();
    Matcher m = CHECK.matcher(text);
    while (m.find()) {
      List<String> specs = new ArrayList<>();
      int depth = 0;
      StringBuilder cur = new StringBuilder();
      for (char ch : (m.group(2) + ",").toCharArray()) {
        if (ch == '{' || ch == '[' || ch == '<') depth++;
        if (ch == '}' || ch == ']' || ch == '>') depth--;
        if (ch == ',' && depth == 0) {
          if (!cur.toString().isBlank()) specs.add(cur.toString().trim());
          cur.setLength(0);
        } else {
          cur.append(ch);
        }
      }
      cases.add(new Case(m.group(1), specs));
    }
    if (cases.isEmpty()) throw new IllegalStateException(p + " names no function to check");
    return new CompositeCases(p, text, cases);
  }

  static List<ParamKind> kinds(Case c) {
    List<ParamKind> out = new ArrayList<>();
    for (String s : c.specs()) {
      String[] f = s.split(":");
      out.add(switch (f[0]) {
        case "varying", "vptr" -> ParamKind.VARYING;
        case "uniform", "uptr" -> ParamKind.UNIFORM;
        case "sptr" -> ParamKind.SOA;
        case "linear" -> ParamKind.linear(Long.parseLong(f[1]));
        case "lptr" -> ParamKind.linear(Long.parseLong(f[3]));
        default -> throw new IllegalArgumentException("unknown spec " + s);
      });
    }
    return out;
  }

  static List<ParamSpec> specs(Case c, LlvmContext ctx) {
    List<ParamSpec> out = new ArrayList<>();
    for (String s : c.specs()) {
      String[] f = s.split(":");
      out.add(switch (f[0]) {
        case "varying" -> ParamSpec.varying();
        case "uniform" -> ParamSpec.uniform();
        case "linear" -> ParamSpec.linear(Long.parseLong(f[1]));
        case "uptr" -> ParamSpec.uniformPtr(KernelChecks.parseType(ctx, f[1].replace('_', ' ')), Long.parseLong(f[2]), dir(f[3]));
        case "sptr" -> ParamSpec.soaPtr(KernelChecks.parseType(ctx, f[1].replace('_', ' ')), Long.parseLong(f[2]), dir(f[3]));
        case "vptr" -> ParamSpec.varyingPtr(KernelChecks.parseType(ctx, f[1].replace('_', ' ')), Long.parseLong(f[2]), dir(f[3]));
        case "lptr" -> ParamSpec.linearPtr(KernelChecks.parseType(ctx, f[1].replace('_', ' ')), Long.parseLong(f[2]),
            Long.parseLong(f[3]), dir(f[4]));
        default -> throw new IllegalArgumentException("unknown spec " + s);
      });
    }
    return out;
  }

  private static ParamSpec.Direction dir(String d) {
    return switch (d) {
      case "in" -> ParamSpec.Direction.IN;
      case "out" -> ParamSpec.Direction.OUT;
      case "inout" -> ParamSpec.Direction.INOUT;
      default -> throw new IllegalArgumentException("direction " + d);
    };
  }
}
