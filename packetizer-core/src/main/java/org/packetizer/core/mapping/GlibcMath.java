package org.packetizer.core.mapping;

import java.math.BigDecimal;
import java.math.MathContext;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * Vector expf and logf bit-identical to glibc's (2.28 and later), for the bit-exact default vector
 * math mode (issue 16): one vector computation instead of one libm call per lane.
 *
 * <p>glibc computes both in double precision with a small table (Szabolcs Nagy's algorithm, Arm
 * optimized-routines): expf with k = round(x·32/ln2), 2^(k/32) from a 32-entry table of 2^(i/32)
 * and a degree-3 polynomial in the remainder r; logf with x = 2^k·z, a 16-entry table of (1/c, log c)
 * and a degree-3 polynomial in r = z/c − 1. The helpers here compute the same operations in the same
 * order on {@code <W x double>}, then round once to float, as glibc does. The expf table is computed
 * here (2^(i/32) correctly rounded, as BigDecimal; it equals glibc's); the polynomial coefficients, the
 * scaled 1/ln2, ln 2 and the logf table are the published numbers, which this machine's libm holds.
 *
 * <p>On x86-64 glibc selects, by ifunc, a build with fused multiply-adds when the CPU has FMA and
 * AVX2. Which operations that build fuses was read off this machine's libm (the FMA variant fuses
 * k·32/ln2 + shift, the remainder, and every polynomial step; logf fuses z·(1/c) − 1, k·ln2 + log c and
 * every polynomial step); the helper uses the same fusion when the packet's target has FMA and AVX2, and
 * plain multiplies and adds otherwise. Over all 2^32 inputs the two variants differ only on two
 * expf inputs (0x4202422f and 0xc27c65d9) and on no logf input, so the plain helper sends those two
 * inputs to the scalar function: its result is then the same whichever variant the process's libm
 * chose. The FMA helper runs only where the CPU has FMA and AVX2, where glibc picks its FMA build; it
 * computes them as that build does and has them among its probe inputs ({@link #EXP_PROBES_FMA}), so a
 * libm computing the plain build there fails the probe (issue 16, ninth round).
 *
 * <p>Lanes outside the fast path (expf: |x| ≥ 88, NaN, infinities; logf: x ≤ 0, subnormals, infinities,
 * NaN) call the scalar function, masked, so errno and special values are glibc's own. The whole helper
 * is guarded by {@link LibmGuard}: a process whose libm differs on a probe input gets per-lane calls.
 */
public final class GlibcMath {
  private GlibcMath() {}

  /** The float functions this class emits. */
  public static boolean emits(String floatName) {
    return floatName.equals("expf") || floatName.equals("logf");
  }

  /** glibc expf: 32/ln2 (scaled 1/ln2), the rounding shift 1.5·2^52, and the polynomial C0·r³ + C1·r² + C2·r + 1 (coefficients scaled by 1/32^i). */
  static final double EXP_INVLN2N = 0x1.71547652b82fep+5, EXP_SHIFT = 0x1.8p+52;
  static final double EXP_C0 = 0x1.c6af84b912394p-20, EXP_C1 = 0x1.ebfce50fac4f3p-13, EXP_C2 = 0x1.62e42ff0c52d6p-6;

  /** glibc logf: ln 2 and the polynomial A0·r⁴ + A1·r³ + A2·r² (plus r). */
  static final double LOG_LN2 = 0x1.62e42fefa39efp-1;
  static final double LOG_A0 = -0x1.00ea348b88334p-2, LOG_A1 = 0x1.5575b0be00b6ap-2, LOG_A2 = -0x1.ffffef20a4123p-2;

  /** glibc logf's table: (1/c, log c) for the 16 subintervals of [0x3f330000, 2·0x3f330000) (the published numbers). */
  static final double[][] LOG_TABLE = {
      {0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2}, {0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
      {0x1.49539f0f010b0p+0, -0x1.01eae7f513a67p-2}, {0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
      {0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3}, {0x1.25e227b0b8ea0p+0, -0x1.1aa2bc79c8100p-3},
      {0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4}, {0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
      {0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5}, {0x1.0p+0, 0.0},
      {0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5}, {0x1.ca4b31f026aa0p-1, 0x1.c5e53aa362eb4p-4},
      {0x1.b2036576afce6p-1, 0x1.526e57720db08p-3}, {0x1.9c2d163a1aa2dp-1, 0x1.bc2860d224770p-3},
      {0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2}, {0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2}};

  /** expf's table: bits of 2^(i/32), correctly rounded, minus i·2^47 (so that adding k·2^47 scales by 2^(k/32)). */
  static final long[] EXP_TABLE = expTable();

  private static long[] expTable() {
    MathContext mc = new MathContext(60);
    BigDecimal root = new BigDecimal(2);
    for (int j = 0; j < 5; j++) root = root.sqrt(mc); // 2^(1/32)
    long[] t = new long[32];
    BigDecimal p = BigDecimal.ONE;
    for (int i = 0; i < 32; i++) {
      t[i] = Double.doubleToRawLongBits(p.doubleValue()) - ((long) i << 47);
      p = p.multiply(root, mc);
    }
    return t;
  }

  /** The two expf inputs on which glibc's FMA and non-FMA builds differ: always sent to the scalar function. */
  static final int[] EXP_VARIANT_INPUTS = {0x4202422f, 0xc27c65d9};

  /**
   * Probe inputs: values on which glibc's result is not the correctly rounded one (a correctly rounded
   * or a differently approximated libm gives other bits there), spread over the range, plus ordinary
   * and boundary values of the fast path.
   */
  static final long[] EXP_PROBES = {0xc2a002d1L, 0xc28033caL, 0xc1a002dfL, 0xc0a04f6fL, 0xbf801ac5L, 0xbc00008cL, 0x3c00377bL,
      0x3f001569L, 0x3fc0074dL, 0x40a048edL, 0x41a054e7L, 0x42801172L, 0x00000000L, 0xc2af0000L, 0x42a80000L, 0x3f800000L};
  /**
   * The FMA helper's probes: {@link #EXP_PROBES} with two ordinary inputs (0 and 1) replaced by the two
   * inputs on which glibc's FMA and plain builds differ ({@link #EXP_VARIANT_INPUTS}), which the FMA
   * helper computes as the FMA build does instead of calling the scalar function on every call.
   */
  static final long[] EXP_PROBES_FMA = expProbesFma();

  private static long[] expProbesFma() {
    long[] p = EXP_PROBES.clone();
    int j = 0;
    for (int i = 0; i < p.length; i++)
      if (p[i] == 0x00000000L || p[i] == 0x3f800000L) p[i] = EXP_VARIANT_INPUTS[j++] & 0xffffffffL;
    if (j != 2) throw new AssertionError("EXP_PROBES lost its ordinary inputs 0 and 1");
    return p;
  }

  static final long[] LOG_PROBES = {0x0081eb6cL, 0x0f02b730L, 0x1e0150cbL, 0x3a01853dL, 0x3e8103eeL, 0x3f4059d3L, 0x3f7f0658L,
      0x3f810007L, 0x3fc01339L, 0x4100b1bcL, 0x5001c70eL, 0x7f026fcbL, 0x3f800000L, 0x3fb504f3L, 0x40490fdbL, 0x7f7fffffL};

  /** Whether a target with these features gets glibc's FMA variant (glibc's ifunc: FMA and AVX2). */
  public static boolean fmaVariant(String features) {
    return features.contains("+fma") && features.contains("+avx2");
  }

  /** The route of the helper's table lookups for {@code packet}'s target at width {@code w} (for the remark). */
  public static TableLookup.Route tableRoute(Function packet, int w) {
    return TableLookup.route(w, VectorMathRoutes.effectiveFeatures(packet), packet.stringAttribute("target-cpu").orElse(""));
  }

  /** Words for the remark on the routes of the helper's table lookups for {@code packet}'s target at width {@code w}. */
  public static String describeTableRoutes(Function packet, int w) {
    String features = VectorMathRoutes.effectiveFeatures(packet), cpu = packet.stringAttribute("target-cpu").orElse("");
    return TableLookup.describe(tableRoute(packet, w), pairRoute(packet, w), w, features, cpu);
  }

  /** The route of the helper's lookups in two tables indexed alike (logf's, log2f's and powf's (1/c, log c)). */
  public static TableLookup.Route pairRoute(Function packet, int w) {
    return TableLookup.pairRoute(tableRoute(packet, w), w, VectorMathRoutes.effectiveFeatures(packet), packet.stringAttribute("target-cpu").orElse(""));
  }

  /**
   * The helper {@code <W x float> (<W x float> x, <W x i1> activeLanes)} for {@code fn} ("expf" or
   * "logf"), added to {@code m} if absent, compiled for {@code packet}'s target.
   */
  public static Function helper(LlvmModule m, Function packet, String fn, int w) {
    if (!emits(fn)) throw new IllegalArgumentException("no glibc-exact vector IR for " + fn);
    return GlibcTemplate.helper(m, packet, fn, w, Template::new);
  }

  /** IR text of one helper. */
  static final class Template extends GlibcTemplate {
    Template(String fn, int w, String name, boolean fma, String libm) { this(fn, w, name, fma, libm, TableLookup.Route.SCALAR); }

    Template(String fn, int w, String name, boolean fma, String libm, TableLookup.Route route) {
      super(fn, w, name, fma, libm, route);
    }

    @Override
    String module() {
      boolean lean = LibmGuard.leanGuard();
      long[] probes = fn.equals("expf") ? (fma && lean ? EXP_PROBES_FMA : EXP_PROBES) : LOG_PROBES;
      StringBuilder s = new StringBuilder();
      s.append(fn.equals("expf") ? expCore() : logCore());
      StringBuilder sp = new StringBuilder();
      sp.append("  %sp.xb = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
      if (fn.equals("expf")) {
        // glibc's fast path: (bits >> 20) & 0x7ff < 0x42b, i.e. |x| < 88 and not NaN; tested as
        // (bits & 0x7fffffff) > 0x42afffff for the lanes outside it (the same set: one and, one compare)
        String out = fma && lean ? "%special" : "%sp.out";
        if (lean) {
          sp.append("  %sp.abs = and ").append(i32v).append(" %sp.xb, ").append(sp("i32", Integer.toString(0x7fffffff))).append("\n");
          sp.append("  ").append(out).append(" = icmp ugt ").append(i32v).append(" %sp.abs, ").append(sp("i32", Integer.toString(0x42afffff))).append("\n");
        } else {
          sp.append("  %sp.top = lshr ").append(i32v).append(" %sp.xb, ").append(sp("i32", "20")).append("\n");
          sp.append("  %sp.abstop = and ").append(i32v).append(" %sp.top, ").append(sp("i32", "2047")).append("\n");
          sp.append("  %sp.out = icmp uge ").append(i32v).append(" %sp.abstop, ").append(sp("i32", "1067")).append("\n");
        }
        if (!(fma && lean)) {
          // the plain helper: the two inputs on which glibc's FMA and plain builds differ go to the
          // scalar function (a plain-built helper may run where libm picked the FMA build). The
          // FMA helper runs only where the CPU has FMA and AVX2, where glibc picks its FMA build, so
          // it tests them once, in its probe (EXP_PROBES_FMA), not on every call: a libm that
          // computes the plain build there (e.g. FMA hidden by GLIBC_TUNABLES) fails the probe.
          sp.append("  %sp.v0 = icmp eq ").append(i32v).append(" %sp.xb, ").append(sp("i32", Integer.toString(EXP_VARIANT_INPUTS[0]))).append("\n");
          sp.append("  %sp.v1 = icmp eq ").append(i32v).append(" %sp.xb, ").append(sp("i32", Integer.toString(EXP_VARIANT_INPUTS[1]))).append("\n");
          sp.append("  %sp.vv = or ").append(m).append(" %sp.v0, %sp.v1\n");
          sp.append("  %special = or ").append(m).append(" %sp.out, %sp.vv\n");
        }
      } else {
        // glibc's fast path: positive normal finite x (ix - 0x00800000 < 0x7f000000 unsigned)
        sp.append("  %sp.off = sub ").append(i32v).append(" %sp.xb, ").append(sp("i32", "8388608")).append("\n");
        sp.append("  %special = icmp uge ").append(i32v).append(" %sp.off, ").append(sp("i32", "2130706432")).append("\n");
      }
      // glibc's expf for |x| >= 88: x < -0x1.9fe368p6 (log 2^-150) underflows to +0, x < -0x1.9d1d9ep6 (log 2^-149) to
      // the least subnormal (errno ERANGE both), x > 0x1.62e42ep6 (log 2^128) overflows to +inf (ERANGE); the rest of
      // [88, ...) and (..., -88] is its fast code (issue 16, twenty-third round)
      String range = this.range && fn.equals("expf")
          ? expRangeLanes(0xc2b00000L, bits(-0x1.9d1d9ep6f) + 1, bits(-0x1.9fe368p6f) + 1, 0x42b00000L, bits(0x1.62e42ep6f) + 1) : null;
      s.append(LibmGuard.unaryHelper(name, libm, "float", w, probes, sp.toString(), shared, range));
      s.append(tail());
      return s.toString();
    }

    static long bits(float v) { return Float.floatToRawIntBits(v) & 0xffffffffL; }

    String allTrue() { return sp("i1", "true"); }

    /** {@code <W x float> @"NAME.core"(<W x float>)}: glibc expf's fast path on every lane. */
    String expCore() {
      StringBuilder s = new StringBuilder();
      s.append(TableLookup.global(name + ".tab", EXP_TABLE));
      s.append("define internal ").append(f).append(" @\"").append(name).append(".core\"(").append(f).append(" %x) #1 {\nentry:\n");
      s.append("  %xd = fpext ").append(f).append(" %x to ").append(d).append("\n");
      if (fma) {
        s.append(madd("%ks", dc(EXP_INVLN2N), "%xd", dc(EXP_SHIFT)));
        s.append("  %kd = fsub ").append(d).append(" %ks, ").append(dc(EXP_SHIFT)).append("\n");
        s.append("  %nkd = fneg ").append(d).append(" %kd\n");
        s.append(madd("%r", dc(EXP_INVLN2N), "%xd", "%nkd"));
      } else {
        s.append("  %z = fmul ").append(d).append(" %xd, ").append(dc(EXP_INVLN2N)).append("\n");
        s.append("  %ks = fadd ").append(d).append(" %z, ").append(dc(EXP_SHIFT)).append("\n");
        s.append("  %kd = fsub ").append(d).append(" %ks, ").append(dc(EXP_SHIFT)).append("\n");
        s.append("  %r = fsub ").append(d).append(" %z, %kd\n");
      }
      s.append(expTail("%ks", "%r", name + ".tab", EXP_C0, EXP_C1, EXP_C2));
      s.append("  %y = fptrunc ").append(d).append(" %e.y to ").append(f).append("\n  ret ").append(f).append(" %y\n}\n");
      return s.toString();
    }

    /** {@code <W x float> @"NAME.core"(<W x float>)}: glibc logf's fast path (positive normal x) on every lane. */
    String logCore() {
      StringBuilder s = new StringBuilder();
      long[] invcBits = new long[16], logcBits = new long[16];
      for (int i = 0; i < 16; i++) {
        invcBits[i] = Double.doubleToRawLongBits(LOG_TABLE[i][0]);
        logcBits[i] = Double.doubleToRawLongBits(LOG_TABLE[i][1]);
      }
      // (1/c, log c) looked up by the 32-bit index (TableLookup: as 16-byte rows for scalar loads)
      StringBuilder glob = new StringBuilder();
      String lookups = TableLookup.lookupPair(pairRoute, glob, "%invcb", "%logcb", name + ".logtab", invcBits, logcBits, "%i", w);
      s.append(glob);
      s.append("define internal ").append(f).append(" @\"").append(name).append(".core\"(").append(f).append(" %x) #1 {\nentry:\n");
      s.append("  %ix = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
      s.append("  %tmp = sub ").append(i32v).append(" %ix, ").append(sp("i32", Integer.toString(0x3f330000))).append("\n");
      s.append("  %i0 = lshr ").append(i32v).append(" %tmp, ").append(sp("i32", "19")).append("\n");
      s.append("  %i = and ").append(i32v).append(" %i0, ").append(sp("i32", "15")).append("\n");
      s.append("  %k = ashr ").append(i32v).append(" %tmp, ").append(sp("i32", "23")).append("\n");
      s.append("  %hi = and ").append(i32v).append(" %tmp, ").append(sp("i32", Integer.toString(0xff800000))).append("\n");
      s.append("  %iz = sub ").append(i32v).append(" %ix, %hi\n");
      s.append("  %zf = bitcast ").append(i32v).append(" %iz to ").append(f).append("\n");
      s.append("  %z = fpext ").append(f).append(" %zf to ").append(d).append("\n");
      s.append(lookups);
      s.append("  %invc = bitcast ").append(l).append(" %invcb to ").append(d).append("\n");
      s.append("  %logc = bitcast ").append(l).append(" %logcb to ").append(d).append("\n");
      s.append("  %kd = sitofp ").append(i32v).append(" %k to ").append(d).append("\n");
      s.append(madd("%r", "%z", "%invc", dc(-1.0)));
      s.append(madd("%y0", "%kd", dc(LOG_LN2), "%logc"));
      s.append("  %r2 = fmul ").append(d).append(" %r, %r\n");
      s.append(madd("%p1", dc(LOG_A1), "%r", dc(LOG_A2)));
      s.append(madd("%p2", dc(LOG_A0), "%r2", "%p1"));
      s.append("  %y0r = fadd ").append(d).append(" %y0, %r\n");
      s.append(madd("%p3", "%p2", "%r2", "%y0r"));
      s.append("  %yf = fptrunc ").append(d).append(" %p3 to ").append(f).append("\n");
      // glibc returns +0 for x == 1 exactly (the table's c for that subinterval is not 1)
      s.append("  %one = icmp eq ").append(i32v).append(" %ix, ").append(sp("i32", Integer.toString(0x3f800000))).append("\n");
      s.append("  %y = select ").append(m).append(" %one, ").append(f).append(" zeroinitializer, ").append(f).append(" %yf\n");
      s.append("  ret ").append(f).append(" %y\n}\n");
      return s.toString();
    }
  }
}
