package org.packetizer.core.mapping;

import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * Vector exp2f, log2f and powf bit-identical to glibc's (2.28 and later), for the bit-exact default
 * vector math mode (issue 16), the companions of {@link GlibcMath}'s expf and logf: one vector
 * computation instead of one libm call per active lane.
 *
 * <p>glibc computes all three in double precision with the tables expf and logf use (Szabolcs Nagy's
 * algorithm): exp2f with k = round(32·x), 2^(k/32) from the 32-entry table of 2^(i/32) and a degree-3
 * polynomial in r = x − k/32; log2f with x = 2^k·z, the 16-entry table of (1/c, log2 c) and a degree-4
 * polynomial in r = z/c − 1; powf as exp2(y·log2 x) with a degree-5 log2 polynomial on the same table
 * and exp2f's exp2 on the double product. The helpers compute the same operations in the same order on
 * {@code <W x double>} and round once to float, as glibc does. The numbers (polynomials, shift, the
 * log2 table) are the published ones, which this machine's libm holds (read off its data; the test
 * {@code GlibcPowTest} recomputes the table's logc as log2(c) and checks it).
 *
 * <p>Fusion: glibc's x86-64 FMA build (chosen by ifunc on CPUs with FMA and AVX2) fuses, read off this
 * machine's libm: exp2f (and powf's exp2) every polynomial step, not the rounding shift nor the
 * remainder; log2f z·(1/c) − 1 and every polynomial step, not k + log2 c; powf's log2 z·(1/c) − 1 and
 * every polynomial step, not k + log2 c nor y·log2 x. The helper fuses the same operations when the
 * packet's target has FMA and AVX2, and uses plain multiplies and adds otherwise. Over all 2^32 inputs
 * glibc's two builds of exp2f agree, and so do its two builds of log2f (compared on this machine by
 * calling both ifunc variants; {@link #EXP2_VARIANT_INPUTS} and {@link #LOG2_VARIANT_INPUTS}, sent to
 * the scalar function, are empty), so their helpers give glibc's bits whichever build the process's
 * libm chose. powf's builds cannot be compared exhaustively (2^64 pairs; 4·10^8 random pairs agree):
 * its helper is emitted only for targets with FMA and AVX2, where the process runs on a CPU for which
 * glibc's ifunc chooses the FMA build; elsewhere powf keeps its per-lane calls.
 *
 * <p>Lanes outside the fast path call the scalar function, masked, so errno and special values are
 * glibc's own: exp2f |x| ≥ 128, NaN and infinities; log2f x ≤ 0, subnormals, infinities and NaN;
 * powf x ≤ 0 (with the integer-y sign rule), subnormal x, y zero, infinite or NaN, x infinite or NaN,
 * and |y·log2 x| ≥ 126 (overflow and underflow). Guarded by {@link LibmGuard} (exp2f, log2f) and
 * {@link BinaryLibmGuard} (powf).
 *
 * <p>Every table lookup goes through {@link Template#lookup}, one method, so that how a lookup is
 * lowered (gather, permutes) can change in one place.
 */
public final class GlibcPow {
  private GlibcPow() {}

  /**
   * Measurement knob ({@code -Dpacketizer.glibcPow=off}): exp2f, log2f and powf take their former route
   * (one libm call per active lane), for side-by-side figures; {@code -Dpacketizer.glibcMath=off} turns
   * off this route and {@link GlibcMath}'s together.
   */
  static final boolean OFF = "off".equals(System.getProperty("packetizer.glibcPow"));

  /** The float functions this class emits. */
  public static boolean emits(String floatName) {
    return !OFF && (floatName.equals("exp2f") || floatName.equals("log2f") || floatName.equals("powf"));
  }

  /** Whether {@code floatName}'s helper may be emitted for a target with these features (powf: see the class comment). */
  public static boolean available(String floatName, String features) {
    return emits(floatName) && (!floatName.equals("powf") || GlibcMath.fmaVariant(features));
  }

  /** exp2f (and powf's exp2): the rounding shift 1.5·2^52/32 and the polynomial C0·r³ + C1·r² + C2·r + 1. */
  static final double EXP2_SHIFT = 0x1.8p+47;
  static final double EXP2_C0 = 0x1.c6af84b912394p-5, EXP2_C1 = 0x1.ebfce50fac4f3p-3, EXP2_C2 = 0x1.62e42ff0c52d6p-1;

  /** log2f: the polynomial A0·r⁴ + A1·r³ + A2·r² + A3·r. */
  static final double[] LOG2_A = {-0x1.712b6f70a7e4dp-2, 0x1.ecabf496832e0p-2, -0x1.715479ffae3dep-1, 0x1.715475f35c8b8p+0};

  /** powf's log2: the polynomial A0·r⁵ + A1·r⁴ + A2·r³ + A3·r² + A4·r. */
  static final double[] POW_A = {0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1,
      0x1.71547652ab82bp+0};

  /** log2f's and powf's table: (1/c, log2 c) for the 16 subintervals of [0x3f330000, 2·0x3f330000); 1/c is logf's. */
  static final double[] LOG2_LOGC = {-0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
      -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7af0p-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4, -0x1.a6f9db6475fcep-5, 0.0,
      0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3, 0x1.e840b4ac4e4d2p-3, 0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2,
      0x1.ce0a44eb17bccp-2};

  /** The log2 table's columns as bits. */
  static final long[] INVC_BITS = new long[16], LOGC_BITS = new long[16];

  static {
    for (int i = 0; i < 16; i++) {
      INVC_BITS[i] = Double.doubleToRawLongBits(GlibcMath.LOG_TABLE[i][0]);
      LOGC_BITS[i] = Double.doubleToRawLongBits(LOG2_LOGC[i]);
    }
  }

  /** The exp2f and log2f inputs on which glibc's FMA and plain builds differ (all 2^32 compared): sent to the scalar function. */
  static final int[] EXP2_VARIANT_INPUTS = {};
  static final int[] LOG2_VARIANT_INPUTS = {};

  /**
   * Probe inputs: values on which glibc's result is not the correctly rounded one (spread over the
   * fast range), plus ordinary values.
   */
  static final long[] EXP2_PROBES = {0xc2fb5456L, 0xc2d75488L, 0xc2b35488L, 0xc28f04e1L, 0xc2554799L, 0xc20cac44L, 0xc188aed6L,
      0x3f807f50L, 0x4199ac53L, 0x4215370cL, 0x425dcc87L, 0x429377d5L, 0x42b7a9deL, 0x42dbb8fcL, 0x00000000L, 0x3f800000L};
  static final long[] LOG2_PROBES = {0x00845b06L, 0x09975289L, 0x12a4b739L, 0x1bb98640L, 0x24cbd53eL, 0x2de28cafL, 0x36f181b6L,
      0x4000a5e1L, 0x4913a9b9L, 0x5224ef66L, 0x5b38436aL, 0x644f74a5L, 0x6d7f2316L, 0x767f2316L, 0x3f800000L, 0x40000000L};
  /** powf's probe pairs (x bits, y bits). */
  static final long[] POW_PROBES_X = {0x2b28929aL, 0x455b757dL, 0x38ef00e8L, 0x3135adafL, 0x2f864236L, 0x6e10b9ccL, 0x329f5f2eL,
      0x4a4d0c7dL, 0x3ddf17fbL, 0x415619cbL, 0x2919286eL, 0x36f14f8cL, 0x4cb17e7dL, 0x0875c691L, 0x40000000L, 0x3f800000L};
  static final long[] POW_PROBES_Y = {0x3fdcd5eeL, 0x40288d22L, 0xbf8f9a1eL, 0x402ba90eL, 0x4025055aL, 0x3dc4e630L, 0x40701e0cL,
      0x3f08fcd6L, 0x3c81372cL, 0xbcab9c63L, 0x3ece90f6L, 0xbfda26c8L, 0x40427e69L, 0x3b86f134L, 0x3f000000L, 0x42f60000L};

  /**
   * The helper for {@code fn}: {@code <W x float> (<W x float> x, <W x i1> activeLanes)} for exp2f and
   * log2f, {@code <W x float> (<W x float> x, <W x float> y, <W x i1> activeLanes)} for powf, added to
   * {@code m} if absent, compiled for {@code packet}'s target.
   */
  public static Function helper(LlvmModule m, Function packet, String fn, int w) {
    if (!emits(fn)) throw new IllegalArgumentException("no glibc-exact vector IR for " + fn);
    return GlibcTemplate.helper(m, packet, fn, w, Template::new);
  }

  /** IR text of one helper. */
  static final class Template extends GlibcTemplate {
    /** Globals the lookups add (the tables, in the layout of the route). */
    final StringBuilder globals = new StringBuilder();

    Template(String fn, int w, String name, boolean fma, String libm, TableLookup.Route route) {
      super(fn, w, name, fma, libm, route);
    }

    String ic(int v) { return sp("i32", Integer.toString(v)); }

    /** Two tables indexed alike (log2's 1/c and log2 c): {@link TableLookup#lookupPair}. */
    String lookupPair(String out0, String out1, String tableName, long[] bits0, long[] bits1, String idx) {
      return TableLookup.lookupPair(pairRoute, globals, out0, out1, tableName, bits0, bits1, idx, w);
    }

    @Override
    String module() {
      StringBuilder s = new StringBuilder();
      if (fn.equals("powf")) {
        s.append(powCore());
        s.append(BinaryLibmGuard.helper(name, libm, w, POW_PROBES_X, POW_PROBES_Y, shared, range ? powRangeLanes() : null, range ? d : null));
      } else {
        s.append(fn.equals("exp2f") ? exp2Core() : log2Core());
        // glibc's exp2f for |x| >= 128: x <= -150 underflows to +0, x < -149 to the least subnormal, x >= 128 overflows
        // to +inf (errno ERANGE each); (-149, -128] is its fast code (issue 16, twenty-third round)
        String range = this.range && fn.equals("exp2f") ? expRangeLanes(0xc3000000L, 0xc3150001L, 0xc3160000L, 0x43000000L, 0x43000000L) : null;
        s.append(LibmGuard.unaryHelper(name, libm, "float", w, fn.equals("exp2f") ? EXP2_PROBES : LOG2_PROBES, unarySpecial(), shared, range));
      }
      s.append(tail());
      return globals + s.toString();
    }

    /** exp2f's and log2f's lanes outside the fast path, and the inputs on which glibc's builds differ. */
    String unarySpecial() {
      StringBuilder sp = new StringBuilder();
      sp.append("  %sp.xb = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
      if (fn.equals("exp2f")) {
        // glibc's fast path: (bits >> 20) & 0x7ff < 0x430, i.e. |x| < 128 and not NaN
        sp.append("  %sp.top = lshr ").append(i32v).append(" %sp.xb, ").append(ic(20)).append("\n");
        sp.append("  %sp.abstop = and ").append(i32v).append(" %sp.top, ").append(ic(2047)).append("\n");
        sp.append("  %sp.s0 = icmp uge ").append(i32v).append(" %sp.abstop, ").append(ic(0x430)).append("\n");
      } else {
        // glibc's fast path: positive normal finite x (ix - 0x00800000 < 0x7f000000 unsigned)
        sp.append("  %sp.off = sub ").append(i32v).append(" %sp.xb, ").append(ic(0x00800000)).append("\n");
        sp.append("  %sp.s0 = icmp uge ").append(i32v).append(" %sp.off, ").append(ic(0x7f000000)).append("\n");
      }
      int[] variant = fn.equals("exp2f") ? EXP2_VARIANT_INPUTS : LOG2_VARIANT_INPUTS;
      String acc = "%sp.s0";
      for (int i = 0; i < variant.length; i++) {
        sp.append("  %sp.v").append(i).append(" = icmp eq ").append(i32v).append(" %sp.xb, ").append(ic(variant[i])).append("\n");
        sp.append("  %sp.s").append(i + 1).append(" = or ").append(m).append(" ").append(acc).append(", %sp.v").append(i).append("\n");
        acc = "%sp.s" + (i + 1);
      }
      sp.append("  %special = or ").append(m).append(" ").append(acc).append(", zeroinitializer\n");
      return sp.toString();
    }

    /**
     * powf's range lanes ({@link LibmGuard}'s contract, on the cold edge): the special lanes with a positive normal
     * finite x and a finite nonzero y, special only for |y·log2 x| >= 126 ({@code %c2}, the core's y·log2 x). glibc
     * rounds y·log2 x > 0x1.fffffffd1d571p+6 to +inf, <= -150 to +0 and < -149 to the least subnormal (errno ERANGE
     * each; x > 0, so no sign), and computes the rest by its fast code (round to nearest: its round-up test of
     * (0x1.fffffffa3aae2p+6, 0x1.fffffffd1d571p+6] fails), as {@code %r0} holds them (issue 16, twenty-third round).
     */
    String powRangeLanes() {
      StringBuilder s = new StringBuilder();
      s.append("  %t.ix = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
      s.append("  %t.iy = bitcast ").append(f).append(" %y to ").append(i32v).append("\n");
      s.append(inRange("%t.xok", "%t.ix", 0x00800000L, 0x7f7fffffL));
      // y finite and nonzero: 2·iy − 1 below 2·0x7f800000 − 1 (unsigned), the complement of the core's y test
      s.append("  %t.iy2 = shl ").append(i32v).append(" %t.iy, ").append(ic(1)).append("\n");
      s.append("  %t.iy2m = sub ").append(i32v).append(" %t.iy2, ").append(ic(1)).append("\n");
      s.append("  %t.yok = icmp ult ").append(i32v).append(" %t.iy2m, ").append(ic(2 * 0x7f800000 - 1)).append("\n");
      s.append("  %t.ok = and ").append(m).append(" %t.xok, %t.yok\n");
      s.append("  %t.ov = fcmp ogt ").append(d).append(" %c2, ").append(dc(0x1.fffffffd1d571p+6)).append("\n");
      s.append("  %t.uz = fcmp ole ").append(d).append(" %c2, ").append(dc(-150.0)).append("\n");
      s.append("  %t.um = fcmp olt ").append(d).append(" %c2, ").append(dc(-149.0)).append("\n");
      s.append("  %t.err = or ").append(m).append(" %t.ov, %t.um\n");
      s.append("  %t.y0 = select ").append(m).append(" %t.um, ").append(f).append(" ").append(sp("float", LibmGuard.fp(Float.MIN_VALUE))).append(", ").append(f).append(" %r0\n");
      s.append("  %t.y1 = select ").append(m).append(" %t.uz, ").append(f).append(" zeroinitializer, ").append(f).append(" %t.y0\n");
      s.append("  %t.y = select ").append(m).append(" %t.ov, ").append(f).append(" ").append(sp("float", LibmGuard.fp(Double.POSITIVE_INFINITY))).append(", ").append(f).append(" %t.y1\n");
      return s.toString();
    }

    /** glibc's exp2 in double of {@code xd} (powf's exp2_inline with sign bias 0, exp2f's body): defines {@code %e.y}. */
    String exp2(String xd) {
      StringBuilder s = new StringBuilder();
      s.append("  %e.ks = fadd ").append(d).append(" ").append(xd).append(", ").append(dc(EXP2_SHIFT)).append("\n");
      s.append("  %e.kd = fsub ").append(d).append(" %e.ks, ").append(dc(EXP2_SHIFT)).append("\n");
      s.append("  %e.r = fsub ").append(d).append(" ").append(xd).append(", %e.kd\n");
      globals.append(TableLookup.global(name + ".exp", GlibcMath.EXP_TABLE));
      s.append(expTail("%e.ks", "%e.r", name + ".exp", EXP2_C0, EXP2_C1, EXP2_C2));
      return s.toString();
    }

    /** glibc's reduction of x for log2: defines {@code %g.r} (z/c − 1) and {@code %g.y0} (log2 c + k) from {@code %x}. */
    String log2Reduce() {
      StringBuilder s = new StringBuilder();
      s.append("  %g.ix = bitcast ").append(f).append(" %x to ").append(i32v).append("\n");
      s.append("  %g.tmp = sub ").append(i32v).append(" %g.ix, ").append(ic(0x3f330000)).append("\n");
      s.append("  %g.i0 = lshr ").append(i32v).append(" %g.tmp, ").append(ic(19)).append("\n");
      s.append("  %g.i = and ").append(i32v).append(" %g.i0, ").append(ic(15)).append("\n");
      s.append("  %g.k = ashr ").append(i32v).append(" %g.tmp, ").append(ic(23)).append("\n");
      s.append("  %g.hi = and ").append(i32v).append(" %g.tmp, ").append(ic(0xff800000)).append("\n");
      s.append("  %g.iz = sub ").append(i32v).append(" %g.ix, %g.hi\n");
      s.append("  %g.zf = bitcast ").append(i32v).append(" %g.iz to ").append(f).append("\n");
      s.append("  %g.z = fpext ").append(f).append(" %g.zf to ").append(d).append("\n");
      s.append(lookupPair("%g.invcb", "%g.logcb", name + ".log2", INVC_BITS, LOGC_BITS, "%g.i"));
      s.append("  %g.invc = bitcast ").append(l).append(" %g.invcb to ").append(d).append("\n");
      s.append("  %g.logc = bitcast ").append(l).append(" %g.logcb to ").append(d).append("\n");
      s.append("  %g.kd = sitofp ").append(i32v).append(" %g.k to ").append(d).append("\n");
      s.append(madd("%g.r", "%g.z", "%g.invc", dc(-1.0)));
      s.append("  %g.y0 = fadd ").append(d).append(" %g.logc, %g.kd\n");
      return s.toString();
    }

    /** {@code <W x float> @"NAME.core"(<W x float>)}: glibc exp2f's fast path on every lane. */
    String exp2Core() {
      return "define internal " + f + " @\"" + name + ".core\"(" + f + " %x) #1 {\nentry:\n"
          + "  %xd = fpext " + f + " %x to " + d + "\n" + exp2("%xd")
          + "  %y = fptrunc " + d + " %e.y to " + f + "\n  ret " + f + " %y\n}\n";
    }

    /** {@code <W x float> @"NAME.core"(<W x float>)}: glibc log2f's fast path (positive normal x) on every lane. */
    String log2Core() {
      StringBuilder s = new StringBuilder();
      s.append("define internal ").append(f).append(" @\"").append(name).append(".core\"(").append(f).append(" %x) #1 {\nentry:\n");
      s.append(log2Reduce());
      s.append("  %r2 = fmul ").append(d).append(" %g.r, %g.r\n");
      s.append(madd("%p1", dc(LOG2_A[1]), "%g.r", dc(LOG2_A[2])));
      s.append(madd("%p2", dc(LOG2_A[0]), "%r2", "%p1"));
      s.append(madd("%p", dc(LOG2_A[3]), "%g.r", "%g.y0"));
      s.append(madd("%y3", "%p2", "%r2", "%p"));
      s.append("  %yf = fptrunc ").append(d).append(" %y3 to ").append(f).append("\n");
      // glibc returns +0 for x == 1 exactly
      s.append("  %one = icmp eq ").append(i32v).append(" %g.ix, ").append(ic(0x3f800000)).append("\n");
      s.append("  %y = select ").append(m).append(" %one, ").append(f).append(" zeroinitializer, ").append(f).append(" %yf\n");
      s.append("  ret ").append(f).append(" %y\n}\n");
      return s.toString();
    }

    /**
     * {@code {<W x float>, <W x i1>} @"NAME.core"(<W x float> %x, <W x float> %y)}: glibc powf's fast
     * path on every lane, and the lanes outside it (x not positive normal finite, y zero, infinite or
     * NaN, |y·log2 x| ≥ 126).
     */
    String powCore() {
      String rt = "{ " + f + ", " + m + (range ? ", " + d : "") + " }";
      StringBuilder s = new StringBuilder();
      s.append("define internal ").append(rt).append(" @\"").append(name).append(".core\"(").append(f).append(" %x, ").append(f).append(" %y) #1 {\nentry:\n");
      s.append(log2Reduce());
      s.append("  %r2 = fmul ").append(d).append(" %g.r, %g.r\n");
      s.append(madd("%ya", dc(POW_A[0]), "%g.r", dc(POW_A[1])));
      s.append(madd("%pa", dc(POW_A[2]), "%g.r", dc(POW_A[3])));
      s.append("  %r4 = fmul ").append(d).append(" %r2, %r2\n");
      s.append(madd("%qa", dc(POW_A[4]), "%g.r", "%g.y0"));
      s.append(madd("%qb", "%pa", "%r2", "%qa"));
      s.append(madd("%logx", "%ya", "%r4", "%qb"));
      s.append("  %yd = fpext ").append(f).append(" %y to ").append(d).append("\n");
      s.append("  %ylogx = fmul ").append(d).append(" %yd, %logx\n");
      s.append(exp2("%ylogx"));
      s.append("  %res = fptrunc ").append(d).append(" %e.y to ").append(f).append("\n");
      // the lanes outside the fast path
      s.append("  %iy = bitcast ").append(f).append(" %y to ").append(i32v).append("\n");
      s.append("  %xoff = sub ").append(i32v).append(" %g.ix, ").append(ic(0x00800000)).append("\n");
      s.append("  %xsp = icmp uge ").append(i32v).append(" %xoff, ").append(ic(0x7f000000)).append("\n");
      s.append("  %iy2 = shl ").append(i32v).append(" %iy, ").append(ic(1)).append("\n");
      s.append("  %iy2m = sub ").append(i32v).append(" %iy2, ").append(ic(1)).append("\n");
      s.append("  %ysp = icmp uge ").append(i32v).append(" %iy2m, ").append(ic(2 * 0x7f800000 - 1)).append("\n");
      s.append("  %lb = bitcast ").append(d).append(" %ylogx to ").append(l).append("\n");
      s.append("  %lt = lshr ").append(l).append(" %lb, ").append(sp("i64", "47")).append("\n");
      s.append("  %lta = and ").append(l).append(" %lt, ").append(sp("i64", "65535")).append("\n");
      s.append("  %lsp = icmp uge ").append(l).append(" %lta, ").append(sp("i64", Long.toString(Double.doubleToRawLongBits(126.0) >>> 47))).append("\n");
      s.append("  %sp0 = or ").append(m).append(" %xsp, %ysp\n");
      s.append("  %special = or ").append(m).append(" %sp0, %lsp\n");
      s.append("  %o0 = insertvalue ").append(rt).append(" poison, ").append(f).append(" %res, 0\n");
      s.append("  %o1 = insertvalue ").append(rt).append(" %o0, ").append(m).append(" %special, 1\n");
      if (range) s.append("  %o2 = insertvalue ").append(rt).append(" %o1, ").append(d).append(" %ylogx, 2\n");
      s.append("  ret ").append(rt).append(range ? " %o2" : " %o1").append("\n}\n");
      return s.toString();
    }
  }
}
