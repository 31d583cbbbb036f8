package org.packetizer.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.check.BufferInit;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.Manifest;

/**
 * How {@code --check} feeds one packet function: a {@link ParamSpec} per packet parameter, from the
 * parameter kinds the packetizer used plus the value ranges of the bundled kernel's manifest entry
 * (when the input is one), {@code --range} options, or the default range.
 *
 * @param specs       packet parameter order (a trailing mask for masked functions)
 * @param ulps        allowed floating-point difference (the manifest's, else 0: bit-identical)
 * @param description how the inputs were chosen, for the summary line
 */
record CheckPlan(List<ParamSpec> specs, long ulps, String description) {

  /** {@code --range} values: a default for all scalar parameters and per-parameter ones. */
  record Ranges(Optional<double[]> all, Map<String, double[]> byParam) {
    static final Ranges NONE = new Ranges(Optional.empty(), Map.of());

    /** Parses {@code LO:HI} or {@code NAME=LO:HI} (NAME: parameter name without %, or its index). */
    static Ranges parse(List<String> args) {
      Optional<double[]> all = Optional.empty();
      Map<String, double[]> by = new LinkedHashMap<>();
      for (String a : args == null ? List.<String>of() : args) {
        int eq = a.indexOf('=');
        String name = eq < 0 ? null : a.substring(0, eq).strip();
        if (name != null && name.startsWith("%")) name = name.substring(1);
        double[] r = bounds(eq < 0 ? a : a.substring(eq + 1), a);
        if (name == null) all = Optional.of(r);
        else if (name.isEmpty()) throw CliException.usage("--range '" + a + "': empty parameter name before '='");
        else by.put(name, r);
      }
      return new Ranges(all, by);
    }

    private static double[] bounds(String s, String whole) {
      // LO:HI where LO may be negative: split at the ':' that follows the first character
      int c = s.indexOf(':', 1);
      if (c < 0) throw CliException.usage("--range '" + whole + "': expected LO:HI (e.g. -2:1.5) or NAME=LO:HI");
      try {
        double lo = Double.parseDouble(s.substring(0, c).strip());
        double hi = Double.parseDouble(s.substring(c + 1).strip());
        if (Double.isNaN(lo) || Double.isNaN(hi) || lo > hi) {
          throw CliException.usage("--range '" + whole + "': LO must not be greater than HI");
        }
        return new double[] {lo, hi};
      } catch (NumberFormatException e) {
        throw CliException.usage("--range '" + whole + "': '" + s + "' is not LO:HI with two numbers");
      }
    }

    Optional<double[]> forParam(int index, String name) {
      double[] r = byParam.get(Integer.toString(index));
      if (r == null && !name.isEmpty()) r = byParam.get(name);
      return r != null ? Optional.of(r) : all;
    }
  }

  /**
   * {@code --buffer} values: what a pointer parameter points to, for checking functions that are not
   * bundled kernels. {@code [NAME=]TYPE[*COUNT][:in|out|inout]}: COUNT elements of the LLVM type TYPE
   * (per lane for varying and struct-of-arrays pointers, in all for uniform and linear ones).
   */
  record Buffers(Map<String, Buffer> byParam) {
    static final Buffers NONE = new Buffers(Map.of());

    record Buffer(String type, long count, ParamSpec.Direction direction, String text) {}

    static Buffers parse(List<String> args) {
      Map<String, Buffer> by = new LinkedHashMap<>();
      for (String a : args == null ? List.<String>of() : args) {
        int eq = a.indexOf('=');
        if (eq <= 0) throw CliException.usage("--buffer '" + a + "': expected NAME=TYPE[*COUNT][:in|out|inout], e.g. table=float*16:in");
        String name = a.substring(0, eq).strip();
        if (name.startsWith("%")) name = name.substring(1);
        String rest = a.substring(eq + 1).strip();
        ParamSpec.Direction dir = ParamSpec.Direction.INOUT;
        int colon = rest.lastIndexOf(':');
        if (colon >= 0) {
          dir = switch (rest.substring(colon + 1).strip().toLowerCase(Locale.ROOT)) {
            case "in" -> ParamSpec.Direction.IN;
            case "out" -> ParamSpec.Direction.OUT;
            case "inout" -> ParamSpec.Direction.INOUT;
            default -> throw CliException.usage("--buffer '" + a + "': the direction after ':' must be in, out or inout");
          };
          rest = rest.substring(0, colon).strip();
        }
        long count = 1;
        int star = rest.lastIndexOf('*');
        if (star >= 0) {
          try {
            count = Long.parseLong(rest.substring(star + 1).strip());
          } catch (NumberFormatException e) {
            throw CliException.usage("--buffer '" + a + "': the count after '*' must be a number");
          }
          if (count < 1 || count > (1 << 24)) throw CliException.usage("--buffer '" + a + "': the count must be 1 to 16777216");
          rest = rest.substring(0, star).strip();
        }
        if (rest.isEmpty()) throw CliException.usage("--buffer '" + a + "': no element type");
        by.put(name, new Buffer(rest, count, dir, a));
      }
      return new Buffers(by);
    }

    Optional<Buffer> forParam(int index, String name) {
      Buffer b = byParam.get(Integer.toString(index));
      if (b == null && !name.isEmpty()) b = byParam.get(name);
      return Optional.ofNullable(b);
    }
  }

  /** Names given to --range that match no parameter of {@code scalar} (to report a typo). */
  static List<String> unknownNames(java.util.Collection<String> names, Function scalar) {
    List<String> out = new ArrayList<>();
    for (String n : names) {
      boolean found = false;
      for (int i = 0; i < scalar.paramCount(); i++) {
        if (n.equals(Integer.toString(i)) || n.equals(scalar.param(i).name())) found = true;
      }
      if (!found) out.add(n);
    }
    return out;
  }

  static CheckPlan build(LlvmModule module, Function scalar, List<ParamKind> kinds, boolean masked, int width,
      Optional<Manifest.Entry> kernel, Ranges ranges, Buffers buffers) {
    List<ParamSpec> specs = new ArrayList<>();
    List<String> fromBuffer = new ArrayList<>();
    List<String> fromRange = new ArrayList<>();
    boolean fromManifest = false;
    boolean usedDefault = false;
    for (int i = 0; i < scalar.paramCount(); i++) {
      Value p = scalar.param(i);
      Type t = p.type();
      ParamKind k = kinds.get(i);
      String label = "parameter " + i + (p.name().isEmpty() ? "" : " (%" + p.name() + ")") + " of @" + scalar.name();
      final int at = i;
      Optional<Manifest.Param> mp = kernel.map(e -> e.params().get(at));
      if (t.isPointer()) {
        Optional<Buffers.Buffer> given = buffers.forParam(i, p.name());
        if (given.isPresent()) {
          Buffers.Buffer b = given.get();
          Type pointee;
          try {
            pointee = KernelChecks.parseType(module.context(), b.type());
          } catch (RuntimeException e) {
            throw CliException.usage("--buffer " + b.text() + ": '" + b.type() + "' is not an LLVM type (e.g. float, i32,"
                + " [4 x float], { float, i32 })");
          }
          Optional<double[]> r = ranges.forParam(i, p.name());
          BufferInit init = r.isPresent() ? init(Manifest.Init.random(r.get()[0], r.get()[1])) : BufferInit.random();
          specs.add(buffer(module, pointee, b.count(), b.direction(), init, k, width, label));
          fromBuffer.add(p.name().isEmpty() ? "#" + i : "%" + p.name());
          continue;
        }
        if (mp.isEmpty() || mp.get().pointee() == null) {
          String name = p.name().isEmpty() ? Integer.toString(i) : p.name();
          throw CliException.usage("--check needs to know what memory " + label + " (ptr) points to: give --buffer "
              + name + "=TYPE*COUNT[:in|out|inout], e.g. --buffer " + name + "=float*16:in (the bundled kernels bring"
              + " their own)");
        }
        specs.add(buffer(module, mp.get(), k, width, label));
        fromManifest = true;
        continue;
      }
      Optional<double[]> r = ranges.forParam(i, p.name());
      ValueDomain d;
      if (r.isPresent()) {
        d = domain(t, r.get()[0], r.get()[1], label);
        fromRange.add(p.name().isEmpty() ? "#" + i : "%" + p.name());
      } else if (mp.isPresent() && mp.get().range() != null) {
        d = domain(t, mp.get().lo(), mp.get().hi(), label);
        fromManifest = true;
      } else {
        d = null; // the checker's default for the type
        usedDefault = true;
      }
      specs.add(switch (k) {
        case ParamKind.Varying v -> ParamSpec.varying(d);
        case ParamKind.Uniform u -> ParamSpec.uniform(d);
        case ParamKind.Linear l -> ParamSpec.linear(l.step(), d);
        case ParamKind.SoaPointer s -> throw new IllegalStateException("soa kind on a non-pointer " + label);
      });
    }
    if (masked) specs.add(ParamSpec.mask());
    List<String> how = new ArrayList<>();
    if (fromManifest) how.add("ranges of bundled kernel " + kernel.get().name() + " (" + kernel.get().file() + ")");
    if (!fromRange.isEmpty()) how.add("--range for " + String.join(", ", fromRange));
    if (!fromBuffer.isEmpty()) how.add("--buffer for " + String.join(", ", fromBuffer));
    if (usedDefault) how.add("default range [-1000, 1000] (give --range LO:HI)");
    if (how.isEmpty()) how.add("no parameters");
    return new CheckPlan(specs, kernel.map(Manifest.Entry::ulps).orElse(0), String.join("; ", how));
  }

  private static ValueDomain domain(Type t, double lo, double hi, String label) {
    if (t.isFloatingPoint()) return ValueDomain.floats(lo, hi);
    if (t.isInteger()) {
      long l = (long) Math.ceil(lo), h = (long) Math.floor(hi);
      if (l > h) throw CliException.usage("the range [" + fmt(lo) + ", " + fmt(hi) + "] holds no integer for " + label);
      return ValueDomain.ints(l, h);
    }
    throw CliException.usage("--check cannot generate values of type " + t + " for " + label);
  }

  private static ParamSpec buffer(LlvmModule module, Manifest.Param mp, ParamKind k, int width, String label) {
    Type pointee = parseType(module.context(), mp.pointee(), label);
    ParamSpec.Direction dir = switch (mp.direction() == null ? "inout" : mp.direction()) {
      case "in" -> ParamSpec.Direction.IN;
      case "out" -> ParamSpec.Direction.OUT;
      default -> ParamSpec.Direction.INOUT;
    };
    return buffer(module, pointee, mp.count() == null ? 1 : mp.count(), dir, init(mp.init()), k, width, label);
  }

  private static ParamSpec buffer(LlvmModule module, Type pointee, long count, ParamSpec.Direction dir, BufferInit init,
      ParamKind k, int width, String label) {
    return switch (k) {
      case ParamKind.SoaPointer s -> ParamSpec.soaPtr(pointee, count, dir, init);
      case ParamKind.Varying v -> ParamSpec.varyingPtr(pointee, count, dir, init);
      case ParamKind.Uniform u -> ParamSpec.uniformPtr(pointee, count, dir, init);
      case ParamKind.Linear l -> {
        long size = module.allocSize(pointee);
        long step = l.step();
        if (step < 0) throw CliException.usage("--check does not support a negative pointer step for " + label);
        long need = (long) Math.ceil(((width - 1) * (double) step + count * size) / size);
        yield ParamSpec.linearPtr(pointee, Math.max(count, need), step, dir, init);
      }
    };
  }

  private static BufferInit init(Manifest.Init i) {
    if (i == null) return BufferInit.random();
    return switch (i.kind()) {
      case ZERO -> BufferInit.zero();
      case RANDOM -> {
        double lo = i.lo(), hi = i.hi();
        yield (f, lane, e, rnd) -> switch (f.kind()) {
          case FLOAT, DOUBLE, HALF -> rnd.nextDouble(lo, Math.nextUp(hi));
          case INT -> rnd.nextLong((long) Math.ceil(lo), (long) Math.floor(hi) + 1);
          case BOOL -> rnd.nextBoolean();
          default -> 0;
        };
      }
      case IOTA -> {
        double start = i.lo(), step = i.hi();
        yield (f, lane, e, rnd) -> start + e * step;
      }
    };
  }

  /** Parses an LLVM type spelled as text (e.g. "{ float, float }") in the module's context. */
  static Type parseType(LlvmContext ctx, String text, String label) {
    try {
      return KernelChecks.parseType(ctx, text);
    } catch (RuntimeException e) {
      throw new CliException(ExitCodes.INTERNAL, "the manifest's pointee type '" + text + "' for " + label
          + " is not an LLVM type: " + e.getMessage());
    }
  }

  static String fmt(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
  }
}
