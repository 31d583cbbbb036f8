package org.packetizer.core.mapping;

import java.util.Optional;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * What the glibc-exact helpers ({@link GlibcMath}: expf, logf; {@link GlibcPow}: exp2f, log2f, powf)
 * share: the helper's name and linking, the vector types of width W, constants, the multiply-add fused
 * or not as glibc's build for the target is, and the declarations every helper module ends with.
 */
abstract class GlibcTemplate {
  final String fn, name, libm, d, l, f, i32v, m;
  final int w;
  final boolean fma;
  /** The module's shared cold pieces' stem ({@link SharedCold}), or null for the helper's own. */
  String shared;
  final TableLookup.Route route;
  /**
   * Whether the helper finishes its over- and underflow lanes in the vector ({@link LibmGuard#rangeLanes}; expf, exp2f
   * and powf), set by {@link #helper}.
   */
  boolean range;
  /** The route of the lookups in two tables indexed alike ({@link TableLookup#lookupPair}); {@link #route} unless set. */
  TableLookup.Route pairRoute;

  GlibcTemplate(String fn, int w, String name, boolean fma, String libm, TableLookup.Route route) {
    this.route = route;
    this.pairRoute = route;
    this.fn = fn;
    this.w = w;
    this.name = name;
    this.fma = fma;
    this.libm = libm;
    d = "<" + w + " x double>";
    l = "<" + w + " x i64>";
    f = "<" + w + " x float>";
    i32v = "<" + w + " x i32>";
    m = "<" + w + " x i1>";
  }

  /** The helper module's IR text. */
  abstract String module();

  /** Builds a template; {@code Template::new} of each helper class. */
  interface Factory {
    GlibcTemplate make(String fn, int w, String name, boolean fma, String libm, TableLookup.Route route);
  }

  /**
   * The helper for {@code fn} at width {@code w}, added to {@code m} if absent, compiled for {@code
   * packet}'s target: one helper per libm symbol, fusion variant, table route and target.
   */
  static Function helper(LlvmModule m, Function packet, String fn, int w, Factory make) {
    String features = VectorMathRoutes.effectiveFeatures(packet);
    boolean fma = GlibcMath.fmaVariant(features);
    String libm = LibmGuard.libmSymbol(fn);
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String ownFeatures = packet.stringAttribute("target-features").orElse("");
    TableLookup.Route route = GlibcMath.tableRoute(packet, w);
    TableLookup.Route pairRoute = GlibcMath.pairRoute(packet, w);
    boolean shared = SharedCold.enabled();
    boolean rangeFn = fn.equals("expf") || fn.equals("exp2f") || fn.equals("powf");
    boolean range = rangeFn && LibmGuard.rangeLanes(m.targetTriple());
    String tail = (route == TableLookup.Route.SCALAR ? "" : TableLookup.tag(route)) + (pairRoute == route ? "" : "p" + TableLookup.tag(pairRoute))
        + (LibmGuard.leanGuard() ? "" : "m") + (rangeFn && !LibmGuard.rangeLanesKnob() ? "l" : "");
    String stem = "__packetizer_glibc_" + fn + "_v" + w + "_";
    String key = cpu + "|" + ownFeatures + "|" + fma + "|" + libm;
    // the helper with its own cold pieces keeps the name it had before the shared pieces (SharedCold)
    String own = stem + Integer.toHexString(key.hashCode()) + tail;
    String name = shared ? stem + Integer.toHexString((key + "|shared").hashCode()) + tail : own;
    Optional<Function> have = m.function(name);
    if (have.isPresent()) return have.get();
    // one in its own layout, from an earlier packetization (SharedCold.settle): used as it is
    Optional<Function> earlier = m.function(own);
    if (earlier.isPresent()) return earlier.get();
    GlibcTemplate t = make.make(fn, w, name, fma, libm, route);
    t.pairRoute = pairRoute;
    t.range = range;
    if (shared) t.shared = SharedCold.ensure(m, packet, w);
    return ExactMath.linkHelper(m, packet, name, t.module(), w);
  }

  String sp(String type, String v) { return "splat (" + type + " " + v + ")"; }

  String dc(double v) { return sp("double", LibmGuard.fp(v)); }

  /** a*b + c, fused or not as glibc's build for the target does. */
  String madd(String out, String a, String b, String c) {
    if (fma) return "  " + out + " = call " + d + " @llvm.fma.v" + w + "f64(" + d + " " + a + ", " + d + " " + b + ", " + d + " " + c + ")\n";
    return "  " + out + ".mul = fmul " + d + " " + a + ", " + b + "\n  " + out + " = fadd " + d + " " + out + ".mul, " + c + "\n";
  }

  /**
   * The tail that glibc's expf, exp2f and powf (its exp2_inline) share, one emitter for the three: from {@code ks}, the
   * reduction's shifted double (its low bits are k, the scaled argument rounded to 1/32), and the reduced argument
   * {@code r}, the scale s = 2^(k/32) (the table {@code @"tableName"} of 32 entries, which the caller defines, indexed by
   * k mod 32 through {@link TableLookup}'s route, plus k/32 in the exponent) times the polynomial
   * (c0·r + c1)·r² + (c2·r + 1). Defines {@code %e.y}; every value it names starts with {@code %e.}.
   */
  String expTail(String ks, String r, String tableName, double c0, double c1, double c2) {
    StringBuilder s = new StringBuilder();
    s.append("  %e.ki = bitcast ").append(d).append(" ").append(ks).append(" to ").append(l).append("\n");
    // the table index k mod 32 from a uniform base (TableLookup: permute, gather or scalar loads; 32-bit lanes, or the
    // 64-bit lanes themselves for the AVX2 gather)
    s.append(TableLookup.lookupByLowBits(route, "%e.t0", tableName, GlibcMath.EXP_TABLE, "%e.ki", "%e.k32", "%e.idx", w));
    s.append("  %e.kh = shl ").append(l).append(" %e.ki, ").append(sp("i64", "47")).append("\n");
    s.append("  %e.t = add ").append(l).append(" %e.t0, %e.kh\n");
    s.append("  %e.s = bitcast ").append(l).append(" %e.t to ").append(d).append("\n");
    s.append(madd("%e.z", dc(c0), r, dc(c1)));
    s.append("  %e.r2 = fmul ").append(d).append(" ").append(r).append(", ").append(r).append("\n");
    s.append(madd("%e.y1", dc(c2), r, dc(1.0)));
    s.append(madd("%e.y2", "%e.z", "%e.r2", "%e.y1"));
    s.append("  %e.y = fmul ").append(d).append(" %e.y2, %e.s\n");
    return s.toString();
  }

  /** {@code <W x i1> %out = lo <= bits <= hi} (unsigned) for the {@code <W x i32>} value {@code bits}: one subtract, one compare. */
  String inRange(String out, String bits, long lo, long hi) {
    return "  " + out + ".off = sub " + i32v + " " + bits + ", " + sp("i32", Integer.toString((int) lo)) + "\n"
        + "  " + out + " = icmp ule " + i32v + " " + out + ".off, " + sp("i32", Integer.toString((int) (hi - lo))) + "\n";
  }

  /**
   * The range lanes of glibc's expf and exp2f ({@link LibmGuard}'s contract, on the cold edge): from {@code %x}'s bits
   * and the fast block's {@code %y}, the lanes of [negLo, -inf) and [posLo, +inf) (the special lanes that are finite and
   * not NaN), of which those from the bits {@code uflowMin} on (more negative) round to the least subnormal, those from
   * {@code uflowZero} on to +0, and those from {@code oflow} on (positive) to +inf, each with ERANGE; glibc computes the
   * rest of them by its fast code, as {@code %y} holds them.
   */
  String expRangeLanes(long negLo, long uflowMin, long uflowZero, long posLo, long oflow) {
    StringBuilder s = new StringBuilder();
    s.append("  %t.b = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
    s.append(inRange("%t.neg", "%t.b", negLo, 0xff7fffffL));
    s.append(inRange("%t.pos", "%t.b", posLo, 0x7f7fffffL));
    s.append("  %t.ok = or ").append(m).append(" %t.neg, %t.pos\n");
    s.append(inRange("%t.ov", "%t.b", oflow, 0x7f7fffffL));
    s.append(inRange("%t.um", "%t.b", uflowMin, 0xff7fffffL));
    s.append(inRange("%t.uz", "%t.b", uflowZero, 0xff7fffffL));
    s.append("  %t.err = or ").append(m).append(" %t.ov, %t.um\n");
    s.append("  %t.y0 = select ").append(m).append(" %t.um, ").append(f).append(" ").append(sp("float", LibmGuard.fp(Float.MIN_VALUE))).append(", ").append(f).append(" %y\n");
    s.append("  %t.y1 = select ").append(m).append(" %t.uz, ").append(f).append(" zeroinitializer, ").append(f).append(" %t.y0\n");
    s.append("  %t.y = select ").append(m).append(" %t.ov, ").append(f).append(" ").append(sp("float", LibmGuard.fp(Double.POSITIVE_INFINITY))).append(", ").append(f).append(" %t.y1\n");
    return s.toString();
  }

  /** The declarations and attribute groups every helper module ends with. */
  String tail() {
    return "declare " + d + " @llvm.fma.v" + w + "f64(" + d + ", " + d + ", " + d + ")\n"
        + TableLookup.declarations(route, w) + (pairRoute == route ? "" : TableLookup.declarations(pairRoute, w))
        + "attributes #0 = { nounwind }\nattributes #1 = { alwaysinline nounwind willreturn memory(read) }\n";
  }
}
