package org.packetizer.cli;

import java.util.List;
import java.util.Locale;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.Remark;

/**
 * Remarks as YAML documents in the format of LLVM's optimization records
 * ({@code -fsave-optimization-record}, {@code -pass-remarks-output}): one document per remark, tagged
 * {@code !Passed}, {@code !Missed}, {@code !Analysis} or {@code !Failure}, with {@code Pass: packetize},
 * {@code Name}, {@code DebugLoc} (the input file; IR has no line for it), {@code Function} and
 * {@code Args}. The block and the instruction are {@code Args} entries ({@code Block:},
 * {@code Instruction:}) because LLVM's remark parser accepts no other top-level keys, so the file
 * stays readable by {@code llvm-remarkutil} and {@code opt-viewer}.
 */
final class RemarkYaml {
  private RemarkYaml() {}

  static String tag(Remark.Kind k) {
    return switch (k) {
      case VARYING, MEMORY, NOTE -> "Analysis";
      case SCALARIZED_CALL, CROSS_LANE_RACE, REJECTED -> "Missed";
      case LINEARIZED, UNIFORM_BRANCH, DIVERGENT_LOOP, VECTORIZED_CALL, SKIP_IF_EMPTY -> "Passed";
    };
  }

  static String name(Remark.Kind k) {
    return switch (k) {
      case VARYING -> "Varying";
      case LINEARIZED -> "Linearized";
      case UNIFORM_BRANCH -> "UniformBranchKept";
      case DIVERGENT_LOOP -> "DivergentLoop";
      case MEMORY -> "MemoryAccess";
      case VECTORIZED_CALL -> "VectorizedCall";
      case SCALARIZED_CALL -> "ScalarizedCall";
      case SKIP_IF_EMPTY -> "SkipIfNoLaneActive";
      case CROSS_LANE_RACE -> "CrossLaneRace";
      case REJECTED -> "Rejected";
      case NOTE -> "Note";
    };
  }

  static void remark(StringBuilder out, String file, Remark r) {
    header(out, tag(r.kind()), name(r.kind()), file, r.function());
    out.append("Args:\n");
    if (r.block() != null) arg(out, "Block", r.block());
    arg(out, "String", r.message());
    if (r.instruction() != null) arg(out, "Instruction", r.instruction().strip());
    out.append("...\n");
  }

  /** The closing summary of one packetized function. */
  static void packetized(StringBuilder out, String file, PacketizationResult r) {
    header(out, "Passed", "Packetized", file, r.scalarFunction());
    out.append("Args:\n");
    arg(out, "String", "packetized into ");
    arg(out, "PacketFunction", r.packetFunction());
    arg(out, "String", " with width ");
    arg(out, "Width", Integer.toString(r.width()));
    arg(out, "String", ", parameters ");
    arg(out, "Params", r.signature().isEmpty() ? "-" : r.signature());
    arg(out, "String", ": ");
    arg(out, "LinearizedBranches", Integer.toString(r.linearizedBranches()));
    arg(out, "String", " branches linearized, ");
    arg(out, "KeptBranches", Integer.toString(r.keptBranches()));
    arg(out, "String", " kept; ");
    arg(out, "ScalarInstructions", Integer.toString(r.scalarInstructions()));
    arg(out, "String", " -> ");
    arg(out, "PacketInstructions", Integer.toString(r.packetInstructions()));
    arg(out, "String", " instructions");
    out.append("...\n");
  }

  static void failure(StringBuilder out, String file, String function, PacketizationException e) {
    header(out, "Failure", switch (e.kind()) {
      case INVALID_INPUT -> "InvalidInput";
      case UNSUPPORTED -> "Unsupported";
      case INTERNAL -> "InternalError";
    }, file, function);
    out.append("Args:\n");
    e.block().ifPresent(b -> arg(out, "Block", b));
    arg(out, "String", firstLine(e.getMessage()));
    e.instruction().ifPresent(i -> arg(out, "Instruction", i.strip()));
    out.append("...\n");
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static void header(StringBuilder out, String tag, String name, String file, String function) {
    out.append("--- !").append(tag).append('\n');
    key(out, "Pass", "packetize");
    key(out, "Name", name);
    out.append(pad("DebugLoc:")).append("{ File: ").append(quote(file)).append(", Line: 0, Column: 0 }\n");
    key(out, "Function", function);
  }

  private static void key(StringBuilder out, String k, String v) {
    out.append(pad(k + ":")).append(quote(v)).append('\n');
  }

  private static void arg(StringBuilder out, String k, String v) {
    out.append("  - ").append(pad(k + ":")).append(quote(v)).append('\n');
  }

  /** The key padded to LLVM's column (18), with at least one space after it. */
  private static String pad(String k) { return k.length() >= 17 ? k + " " : String.format(Locale.ROOT, "%-17s", k); }

  private static final java.util.regex.Pattern PLAIN = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*|-?[0-9]+");

  /** Plain when safe (names, integers), else a YAML single-quoted scalar ('' escapes a quote). */
  static String quote(String s) {
    String t = s.replace("\r", " ").replace("\n", " ");
    if (PLAIN.matcher(t).matches() && !List.of("true", "false", "null", "yes", "no", "on", "off", "y", "n")
        .contains(t.toLowerCase(Locale.ROOT))) {
      return t;
    }
    return "'" + t.replace("'", "''") + "'";
  }

  static List<String> tags() { return List.of("Passed", "Missed", "Analysis", "Failure"); }
}
