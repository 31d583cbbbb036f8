package org.packetizer.core.check;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.toolchain.Manifest;

/**
 * Turns a bundled kernel's manifest entry into what packetization and the differential check need:
 * parameter kinds, parameter specs with ranges and buffers, and the entry's sample inputs.
 */
public final class KernelChecks {
  private KernelChecks() {}

  /** The packet parameter kinds the manifest asks for. */
  public static List<ParamKind> paramKinds(Manifest.Entry e) {
    return ParamKind.parseLetters(e.signature());
  }

  /** Parses an LLVM type written as text (e.g. {@code { float, [4 x i32] }}) in the given context. */
  public static Type parseType(LlvmContext ctx, String text) {
    String ir = "declare void @__packetizer_type_probe(" + text + ")\n";
    try (LlvmModule m = ctx.parseIr(ir, "<type " + text + ">")) {
      return m.function("__packetizer_type_probe").orElseThrow().functionType().paramTypes().getFirst();
    }
  }

  static ValueDomain domain(Manifest.Param p) {
    if (p.range() == null) return null;
    boolean fp = p.type().equals("float") || p.type().equals("double");
    return fp ? ValueDomain.floats(p.lo(), p.hi()) : ValueDomain.ints((long) p.lo(), (long) p.hi());
  }

  static BufferInit init(Manifest.Param p, Type pointee) {
    Manifest.Init in = p.init();
    if (in == null) return BufferInit.random();
    return switch (in.kind()) {
      case ZERO -> BufferInit.zero();
      case IOTA -> BufferInit.of((lane, el) -> in.a() + el * in.b());
      case RANDOM -> {
        boolean fp = containsFloat(pointee);
        yield BufferInit.from(fp ? ValueDomain.floats(in.lo(), in.hi()).withoutEdges()
            : ValueDomain.ints((long) in.lo(), (long) in.hi()).withoutEdges());
      }
    };
  }

  private static boolean containsFloat(Type t) {
    if (t.isFloatingPoint()) return true;
    if (t.isStruct()) return t.structElements().stream().anyMatch(KernelChecks::containsFloat);
    if (t.isArray() || t.isVector()) return containsFloat(t.elementType());
    return false;
  }

  /** The differential check's parameter specs for a kernel (packet parameter order). */
  public static List<ParamSpec> paramSpecs(Manifest.Entry e, LlvmModule m) {
    LlvmContext ctx = m.context();
    List<ParamSpec> out = new ArrayList<>();
    for (Manifest.Param p : e.params()) {
      if (!p.isPointer()) {
        ValueDomain d = domain(p);
        out.add(switch (p.kind()) {
          case "varying" -> ParamSpec.varying(d);
          case "uniform" -> ParamSpec.uniform(d);
          case "linear" -> ParamSpec.linear(p.step() == null ? 1 : p.step(), d);
          default -> throw new IllegalArgumentException(e.name() + ": parameter " + p.name() + " has kind " + p.kind());
        });
        continue;
      }
      Type pointee = parseType(ctx, p.pointee());
      long count = p.count() == null ? 1 : p.count();
      ParamSpec.Direction dir = switch (p.direction() == null ? "inout" : p.direction()) {
        case "in" -> ParamSpec.Direction.IN;
        case "out" -> ParamSpec.Direction.OUT;
        default -> ParamSpec.Direction.INOUT;
      };
      BufferInit init = init(p, pointee);
      out.add(switch (p.kind()) {
        case "soa" -> new ParamSpec.SoaPtr(pointee, count, dir, init);
        case "uniform" -> new ParamSpec.UniformPtr(pointee, count, dir, init);
        case "varying" -> new ParamSpec.VaryingPtr(pointee, count, dir, init);
        case "linear" -> new ParamSpec.LinearPtr(pointee, count, p.step() == null ? m.allocSize(pointee) : p.step(), dir, init);
        default -> throw new IllegalArgumentException(e.name() + ": pointer " + p.name() + " has kind " + p.kind());
      });
    }
    return out;
  }

  /**
   * A check builder for a kernel whose packet version {@code packetFn} is in {@code m}: specs, ulps,
   * and the side-effecting {@code record(int)} callback recorded when the module declares it.
   */
  public static DifferentialCheck.Builder checkBuilder(Manifest.Entry e, LlvmModule m, String packetFn, int width) {
    // a packet function that uses libmvec is compared against a reference using the same variants
    boolean libmvec = callsLibmvec(m, packetFn);
    String scalar = libmvec ? VectorMathReference.referenceFor(m, e.function(), packetFn, width,
        org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC) : e.function();
    return checkBuilder(e, m, scalar, packetFn, width);
  }

  /** Whether the function (or a packet version it calls) calls a libmvec {@code _ZGV} (or SLEEF) function. */
  static boolean callsLibmvec(LlvmModule m, String fn) {
    return !VectorMathReference.librarySymbolsReached(m, fn).isEmpty();
  }

  /** The same with another scalar reference function of the same signature (e.g. a libmvec reference). */
  public static DifferentialCheck.Builder checkBuilder(Manifest.Entry e, LlvmModule m, String scalarFn, String packetFn, int width) {
    DifferentialCheck.Builder b = DifferentialCheck.builder(m, scalarFn, packetFn, width).params(paramSpecs(e, m));
    if (e.ulps() > 0) b.ulps(e.ulps());
    if (m.function("record").map(f -> f.isDeclaration()).orElse(false)) {
      b.recordCalls("record", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
    }
    return b;
  }

  /**
   * The entry's sample tuples as packets: lane k takes sample (k mod #samples); uniform parameters
   * take the first sample's value, linear ones use it as the base. Empty when the entry has no samples.
   */
  public static List<Inputs> sampleInputs(Manifest.Entry e, int width) {
    List<List<Number>> samples = e.samples();
    if (samples.isEmpty()) return List.of();
    List<Inputs> out = new ArrayList<>();
    // one packet with the samples in order, one with them rotated, so each sample meets different neighbours
    for (int rot = 0; rot < Math.min(2, samples.size()); rot++) {
      List<Object> args = new ArrayList<>();
      for (int i = 0; i < e.params().size(); i++) {
        Manifest.Param p = e.params().get(i);
        if (p.isPointer()) {
          args.add(null);
        } else if (p.isVarying()) {
          Object[] lanes = new Object[width];
          for (int k = 0; k < width; k++) lanes[k] = samples.get((k + rot) % samples.size()).get(i);
          args.add(lanes);
        } else {
          args.add(samples.get(rot % samples.size()).get(i));
        }
      }
      out.add(new Inputs(args, 1234 + rot));
    }
    return out;
  }
}
