package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.packetizer.core.api.PacketizerOptions.VectorMath;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.VectorMathRoutes.Route;
import org.packetizer.core.mapping.VectorMathRoutes.Shape;

/**
 * Emits the vector form of a call of a C99 {@code <math.h>} function by its {@link VectorMathRoutes
 * route}: a call of an {@link ExactMath} helper, of a libmvec or SLEEF variant (in chunks of the
 * variant's width), or of a two-type intrinsic ({@code llvm.lrint}). Routes the widening phase
 * handles itself (one-type intrinsics with libmvec) and per-lane functions give empty.
 */
public final class VectorMathCalls {
  private VectorMathCalls() {}

  /** The packet result and the remark text naming the route taken. */
  public record Emitted(Value value, String remark) {}

  /**
   * The vector call for {@code call} (a call of {@code callee}) on {@code w} lanes; {@code vec} gives
   * an argument's packet; {@code mask} is null when every lane is active.
   */
  public static Optional<Emitted> emit(IrBuilder b, LlvmModule module, Function packet, Value call, Function callee,
      UnaryOperator<Value> vec, Value mask, int w, VectorMath mode) {
    return emit(b, module, packet, call, callee, vec, mask, w, mode, java.util.function.Supplier::get);
  }

  /**
   * As above; {@code guard} emits the call proper (the library call or the exact helper's call, after
   * the arguments), e.g. inside a block skipped when no lane is active.
   */
  public static Optional<Emitted> emit(IrBuilder b, LlvmModule module, Function packet, Value call, Function callee,
      UnaryOperator<Value> vec, Value mask, int w, VectorMath mode, java.util.function.Function<java.util.function.Supplier<Value>, Value> guard) {
    return emit(b, module, packet, call, callee, vec, mask, w, mode, false, guard);
  }

  /**
   * {@link #emit(IrBuilder, LlvmModule, Function, Value, Function, UnaryOperator, Value, int, VectorMath,
   * java.util.function.Function)}, optimizing for size when {@code size} (PacketizerOptions.Optimize.SIZE):
   * no glibc-exact helper (expf, logf, exp2f, log2f, powf) and no exact sinf/cosf; such calls are left to
   * the caller (empty), which loops over the lanes calling libm, bit-identical and small.
   */
  public static Optional<Emitted> emit(IrBuilder b, LlvmModule module, Function packet, Value call, Function callee,
      UnaryOperator<Value> vec, Value mask, int w, VectorMath mode, boolean size,
      java.util.function.Function<java.util.function.Supplier<Value>, Value> guard) {
    String name = callee.name();
    Optional<VectorMathRoutes.Call> c;
    if (name.startsWith("llvm.ldexp.")) {
      c = VectorMathRoutes.lookup("ldexp").map(f -> new VectorMathRoutes.Call(f.function(), call.type().isDouble()));
    } else if (name.startsWith("llvm.")) {
      // clang -fno-math-errno writes sinf as llvm.sin.f32: the same route as the libm call
      Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
      if (mm.isEmpty() || !call.type().isFloat() && !call.type().isDouble()) return Optional.empty();
      c = VectorMathRoutes.lookup(mm.get().intrinsic().substring("llvm.".length()))
          .filter(x -> x.function().kind() == VectorMathRoutes.Kind.LIBRARY)
          .map(x -> new VectorMathRoutes.Call(x.function(), call.type().isDouble()));
    } else {
      if (!callee.isDeclaration()) return Optional.empty(); // a function of the module that happens to have a libm name
      c = VectorMathRoutes.lookup(name);
    }
    if (c.isEmpty()) return Optional.empty();
    VectorMathRoutes.MathFunction fn = c.get().function();
    boolean dbl = c.get().isDouble();
    Type et = dbl ? module.context().doubleType() : module.context().floatType();
    if (!signatureMatches(call, fn.shape(), et)) return Optional.empty();
    String features = VectorMathRoutes.effectiveFeatures(packet);
    // libmvec and SLEEF are x86-64 libraries here: on AArch64 and RISC-V the routes are LLVM's intrinsics,
    // exact IR helpers or per-lane calls (docs/cross-targets.md)
    boolean afn = mode == VectorMath.INTRINSICS && allowsApproximation(call);
    VectorMath targetMode = org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.X86
        ? (afn ? VectorMath.LIBMVEC : mode) : VectorMath.INTRINSICS;
    Route r = VectorMathRoutes.route(fn, dbl, features, w, targetMode);
    if (r instanceof Route.GlibcExact && org.packetizer.core.ir.TargetArch.of(module.targetTriple()) != org.packetizer.core.ir.TargetArch.X86) {
      // verified against glibc's x86-64 builds only: elsewhere the intrinsic's per-lane calls, as before
      r = new Route.Intrinsic(fn.intrinsic());
    }
    // optimizing for size: the caller's loop over the lanes instead of a helper of 100-300 instructions
    if (size && r instanceof Route.GlibcExact) r = new Route.Intrinsic(fn.intrinsic());
    List<Value> args = new ArrayList<>();
    if (!size && targetMode == VectorMath.INTRINSICS && ExactTrig.emits(fn.name(), dbl) && ExactTrig.worthwhile(features)
        && org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.X86) {
      // bit-exact sinf/cosf: glibc's scheme on vectors, libm for the lanes outside its fast range
      Value x = vec.apply(call.operand(0));
      // the fast path of sin and cos together, outside the skip-when-no-lane-active block: a sine and a
      // cosine of one packet make two identical calls, which the clean-up merges
      Value both = b.call(ExactTrig.pair(module, packet, w), List.of(x), "");
      args.add(x);
      args.add(mask != null ? mask : b.splat(b.constInt(module.context().i1(), 1), w, ""));
      args.add(b.extractValue(both, fn.name().equals("sin") ? 0 : 1, ""));
      Function h = ExactTrig.helper(module, packet, fn.name(), w);
      Value v = guard.apply(() -> b.call(h, args, call.name()));
      return Optional.of(new Emitted(v, "call to " + name + " became packetizer vector IR (glibc's " + fn.name(false)
          + (ExactTrig.fused(features) ? ", FMA build" : ", SSE2 build") + ", bit-identical; libm for lanes with |x| >= 120,"
          + " infinities and NaN), @" + h.name()));
    }
    if (r instanceof Route.Emitted && fn.name().equals("fmod")) {
      Optional<Emitted> p2 = fmodByPowerOfTwo(b, module, vec.apply(call.operand(0)), call.operand(1), w, call.name(), "call to " + name, true);
      if (p2.isPresent()) return p2;
    }
    for (int i = 0; i < call.numArgOperands(); i++) args.add(vec.apply(call.operand(i)));
    switch (r) {
      case Route.Emitted e -> {
        Function h = ExactMath.helper(module, packet, fn.name(), dbl, w);
        Value v = guard.apply(() -> b.call(h, args, call.name()));
        return Optional.of(new Emitted(v, "call to " + name + " became " + r.describe() + ", @" + h.name()));
      }
      case Route.GlibcExact g -> {
        boolean pow = GlibcPow.emits(g.function());
        Function h = pow ? GlibcPow.helper(module, packet, g.function(), w) : GlibcMath.helper(module, packet, g.function(), w);
        Value active = mask != null ? mask : b.splat(b.i1(true), w, "");
        List<Value> hargs = new ArrayList<>(args);
        hargs.add(active);
        Value v = guard.apply(() -> b.call(h, hargs, call.name()));
        return Optional.of(new Emitted(v, "call to " + name + " became " + r.describe() + ", @" + h.name()
            + "; its table lookups: " + GlibcMath.describeTableRoutes(packet, w)
            + (LibmGuard.libmSymbol(g.function()).equals(g.function()) ? "" : " checked against " + LibmGuard.libmSymbol(g.function()))));
      }
      case Route.Intrinsic in when fn.shape() == Shape.LONG_OF_T -> {
        Type rt = call.type().vectorOf(w);
        Function f = module.intrinsic(in.intrinsic(), rt, et.vectorOf(w));
        return Optional.of(new Emitted(b.call(f, args, call.name()), "call to " + name + " became " + r.describe() + " on " + rt));
      }
      case Route.Library lib when fn.kind() == VectorMathRoutes.Kind.LIBRARY -> {
        return Optional.of(new Emitted(guard.apply(() -> libraryCall(b, module, call, lib, et, args, mask, w)),
            "call to " + name + " became " + (w / lib.lanes()) + " call(s) of " + r.describe()
                + (afn ? " (the call allows approximate functions: afn)" : "")
                + (lib.library().equals("SLEEF") ? "; link " + Sleef.LIBRARY + " (-lsleef)" : "")));
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  /**
   * Whether the scalar call itself allows an approximate result: the {@code afn} fast-math flag (what
   * clang writes for {@code -ffast-math}, {@code -funsafe-math-optimizations} and {@code -fapprox-func}).
   * Such a call takes the vector library route even in the bit-exact mode, as GCC uses glibc's vector
   * variants only under {@code -ffast-math}.
   */
  public static boolean allowsApproximation(Value call) {
    return call.allowsApproxFunc();
  }

  /** Does the call have the C99 signature of its shape on {@code et}? */
  private static boolean signatureMatches(Value call, Shape shape, Type et) {
    int n = call.numArgOperands();
    Type rt = call.type();
    List<Type> ps = new ArrayList<>();
    for (int i = 0; i < n; i++) ps.add(call.operand(i).type());
    return switch (shape) {
      case UNARY -> n == 1 && rt.equals(et) && ps.get(0).equals(et);
      case BINARY -> n == 2 && rt.equals(et) && ps.get(0).equals(et) && ps.get(1).equals(et);
      case TERNARY -> n == 3 && rt.equals(et) && ps.stream().allMatch(et::equals);
      case T_INT -> n == 2 && rt.equals(et) && ps.get(0).equals(et) && ps.get(1).isInteger(32);
      case T_LONG -> n == 2 && rt.equals(et) && ps.get(0).equals(et) && ps.get(1).isInteger(64);
      case INT_OF_T -> n == 1 && rt.isInteger(32) && ps.get(0).equals(et);
      case LONG_OF_T -> n == 1 && rt.isInteger(64) && ps.get(0).equals(et);
      case OTHER -> false;
    };
  }

  /**
   * Calls of a library variant, one per chunk of its width, results concatenated. Inactive lanes of
   * a partial mask get 1.0: libmvec sends any lane outside a function's fast domain (whatever a
   * linearized branch left there) through its slow scalar fallback.
   */
  static Value libraryCall(IrBuilder b, LlvmModule module, Value call, Route.Library lib, Type et, List<Value> args, Value mask, int w) {
    Type vt = et.vectorOf(w);
    if (mask != null) {
      Value one = b.splat(b.constReal(et, 1.0), w, "");
      List<Value> safe = new ArrayList<>();
      for (Value a : args) safe.add(b.select(mask, a, one, ""));
      args = safe;
    }
    int lanes = lib.lanes();
    Type ct = et.vectorOf(lanes);
    List<Type> ps = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) ps.add(ct);
    Function f = module.getOrInsertFunction(lib.symbol(), module.context().functionType(ct, ps, false));
    f.addEnumAttribute("nounwind");
    f.addEnumAttribute("willreturn");
    List<Value> parts = new ArrayList<>();
    for (int c = 0; c < w / lanes; c++) {
      List<Value> cargs = new ArrayList<>();
      for (Value a : args) cargs.add(lanes == w ? a : b.shuffle(a, b.poison(vt), range(b, c * lanes, lanes), ""));
      parts.add(b.call(f, cargs, call.name() + (lanes == w ? "" : "." + c)));
    }
    while (parts.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < parts.size(); i += 2) {
        int n = parts.get(i).type().vectorSize();
        next.add(b.shuffle(parts.get(i), parts.get(i + 1), range(b, 0, 2 * n), ""));
      }
      parts = next;
    }
    return parts.get(0);
  }

  private static Value range(IrBuilder b, int start, int n) {
    List<Value> idx = new ArrayList<>();
    for (int i = 0; i < n; i++) idx.add(b.i32(start + i));
    return b.constVector(idx);
  }

  /**
   * The fmod helper for an {@code frem} on a packet of float or double (LLVM defines frem as fmod);
   * {@code scalarY} is the scalar instruction's divisor (a constant power of two takes
   * {@link #fmodByPowerOfTwo}).
   */
  public static Optional<Emitted> frem(IrBuilder b, LlvmModule module, Function packet, Value x, Value y, Value scalarY, int w, String name) {
    Type vt = x.type();
    if (!vt.isVector()) return Optional.empty();
    Type et = vt.elementType();
    if (!et.isFloat() && !et.isDouble()) return Optional.empty();
    if (!scalarY.type().isVector()) {
      Optional<Emitted> p2 = fmodByPowerOfTwo(b, module, x, scalarY, vt.vectorSize(), name, "frem", false);
      if (p2.isPresent()) return p2;
    }
    // a vector frem in the scalar code has a packet of W times its lanes
    Function h = ExactMath.helper(module, packet, "fmod", et.isDouble(), vt.vectorSize());
    return Optional.of(new Emitted(b.call(h, List.of(x, y), name), "frem became packetizer vector IR (exact fmod), @" + h.name()));
  }

  /**
   * Measurement knob ({@code -Dpacketizer.fmodPow2=false}): fmod and frem by a constant power of two
   * take the general exact helper like any other divisor.
   */
  static final boolean FMOD_POW2 = !"false".equals(System.getProperty("packetizer.fmodPow2"));

  /**
   * k where {@code y} is the constant ±2^k, a normal number whose reciprocal 2^-k is finite and exact
   * (float: -126 <= k <= 127; double: -1022 <= k <= 1023); else empty.
   */
  public static java.util.OptionalInt powerOfTwoExponent(Value y) {
    if (!y.isConstantFP()) return java.util.OptionalInt.empty();
    boolean dbl = y.type().isDouble();
    if (!dbl && !y.type().isFloat()) return java.util.OptionalInt.empty();
    double v = Math.abs(y.constReal()); // a float constant is exact as a double
    if (!(v > 0) || Double.isInfinite(v)) return java.util.OptionalInt.empty();
    int k = Math.getExponent(v);
    if (v != Math.scalb(1.0, k)) return java.util.OptionalInt.empty();
    int lo = dbl ? Double.MIN_EXPONENT : Float.MIN_EXPONENT, hi = dbl ? Double.MAX_EXPONENT : Float.MAX_EXPONENT;
    return k >= lo && k <= hi ? java.util.OptionalInt.of(k) : java.util.OptionalInt.empty();
  }

  /**
   * fmod(x, ±2^k) on a packet, inline and exact (issue 16): {@code r = x - trunc(x * 2^-k) * 2^k} in
   * the element type, then the sign of x. Every step is exact for finite x: scaling by a power of two
   * is exact when the product is at least 1 in magnitude (when |x| < 2^k, the truncation is 0 whatever
   * the rounding), trunc(...)·2^k is at most |x| with the quotient's at most p significant bits, and the
   * difference is fmod's own result, which is representable, so the subtraction does not round. When
   * |x| >= 2^(p+k) (p = 24 for float, 53 for double) x is a multiple of 2^(k+1) and the result is ±0
   * (selected, because x·2^-k may overflow there when k < 0). For infinite and NaN x the steps give
   * glibc's NaN: x - (±inf) for an infinity (the default NaN, as glibc's (x*y)/(x*y)), x's own NaN
   * quieted for a NaN (the first operand's, as x86 propagates it). No call, no loop, no division.
   *
   * <p>{@code libmNaN} false (an {@code frem}) and k >= 0: the NaN of an infinite x takes x's sign too,
   * because LLVM's own code generator expands a scalar {@code frem} by such a divisor on x86 with SSE4.1
   * or later into the same steps, copysign(x - trunc(x / y) * y, x) (seen in the bundled llc's output; for
   * k < 0 it calls fmodf, whose NaN is glibc's). LLVM leaves a new NaN's sign unspecified; this keeps the
   * packet bit-identical with the scalar code compiled for the same CPU.
   */
  public static Optional<Emitted> fmodByPowerOfTwo(IrBuilder b, LlvmModule module, Value x, Value scalarY, int w, String name, String what,
      boolean libmNaN) {
    if (!FMOD_POW2) return Optional.empty();
    java.util.OptionalInt ko = powerOfTwoExponent(scalarY);
    if (ko.isEmpty()) return Optional.empty();
    Type vt = x.type();
    Type et = vt.elementType();
    if (!et.equals(scalarY.type())) return Optional.empty();
    int k = ko.getAsInt();
    boolean dbl = et.isDouble();
    int p = dbl ? 53 : 24;
    int maxExp = dbl ? Double.MAX_EXPONENT : Float.MAX_EXPONENT;
    double c = Math.scalb(1.0, k);
    double bound = p + k <= maxExp ? Math.scalb(1.0, p + k) : Double.POSITIVE_INFINITY;
    Value inv = b.splat(b.constReal(et, Math.scalb(1.0, -k)), w, "");
    Value cv = b.splat(b.constReal(et, c), w, "");
    Value q = b.fmul(x, inv, name + ".q");
    Value t = b.call(module.intrinsic("llvm.trunc", vt), List.of(q), name + ".t");
    Value prod = b.fmul(t, cv, name + ".p");
    Value r = b.fsub(x, prod, name + ".r");
    if (!libmNaN && k >= 0) {
      // LLVM's own expansion of a scalar frem by 2^k, k >= 0, on this target: copysign(r, x) on every lane
      Value v = b.call(module.intrinsic("llvm.copysign", vt), List.of(r, x), name);
      return Optional.of(new Emitted(v, remarkText(what, scalarY, k, dbl)));
    }
    Value ax = b.call(module.intrinsic("llvm.fabs", vt), List.of(x), name + ".ax");
    Value r0 = r;
    if (k < 0) {
      // |x| >= 2^(p+k): a multiple of 2^(k+1), fmod is 0 (x * 2^-k may have overflowed there); for k >= 0
      // x * 2^-k cannot overflow, and such x give q * 2^k == x, r == 0 by themselves
      Value big = b.fcmp(IrBuilder.FCMP_OGE, ax, b.splat(b.constReal(et, bound), w, ""), name + ".big");
      r0 = b.select(big, b.constNull(vt), r, name + ".r0");
    }
    Value signed = b.call(module.intrinsic("llvm.copysign", vt), List.of(r0, x), name + ".s");
    // infinities and NaN: r is already glibc's NaN (above); unordered-or-equal to +inf picks them
    Value special = b.fcmp(IrBuilder.FCMP_UEQ, ax, b.splat(b.constReal(et, Double.POSITIVE_INFINITY), w, ""), name + ".special");
    Value v = b.select(special, r, signed, name);
    return Optional.of(new Emitted(v, remarkText(what, scalarY, k, dbl)));
  }

  private static String remarkText(String what, Value scalarY, int k, boolean dbl) {
    String y = dbl ? Double.toString(scalarY.constReal()) : Float.toString((float) scalarY.constReal());
    return what + " by the constant " + y + " (a power of two) became inline vector IR"
        + " (exact: x - trunc(x * 2^" + (-k) + ") * 2^" + k + ", the sign of x; no helper, no loop, no division)";
  }
}
