package org.packetizer.core.mapping;

import java.util.Locale;
import java.util.Optional;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * Vector {@code sinf} and {@code cosf} that give glibc's bits (glibc 2.28 and later, x86-64), for
 * the bit-exact math mode (issue 16). Each is an internal helper
 * {@code <W x float> @__packetizer_sinf_v<W>_<target>(<W x float> x, <W x i1> active)}, written as
 * LLVM IR text, linked once per module like {@link ExactMath}'s helpers.
 *
 * <p>The scheme is glibc's (Szabolcs Nagy's, Arm optimized-routines), computed in double on W lanes:
 * the float's top 12 bits below those of pi/4 ({@code |x| < 0.75}) take the polynomial directly, below
 * those of 2^-12 sinf returns x and cosf 1; below those of 120 the argument is reduced by
 * {@code n = ((int)(x * 2^24 * 2/pi) + 2^23) >> 24} and {@code x - n * pi/2}; the quadrant picks the
 * sine polynomial (x + x^3 s1 + x^5 (s2 + x^2 s3)) or the cosine one (c0 + x^2 c1 + x^4 c2 + x^6 (c3 +
 * x^2 c4)) and the signs. Coefficients: the published minimax ones (numbers, cited in {@link #C} and
 * {@link #S}). glibc's x86-64 libm has two builds of this code, selected by ifunc: with FMA and AVX2 the
 * compiler fused every {@code a + b*c} whose product has no other use into one fma, else none. Which
 * ones: found by experiment against this machine's libm (both builds, the second through
 * {@code GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA}); the two differ on 17 positive inputs below 120,
 * e.g. cosf(0x1.1475b6p+4). The helper fuses as the build the packet's target features select:
 * {@code +fma} and {@code +avx2} give the fused one, as glibc's ifunc.
 *
 * <p>Lanes outside the fast range (|x| >= 120, infinities, NaN) call the scalar function, one active
 * lane at a time, so their results and errno are glibc's; inactive lanes call nothing. A once-per-process
 * guard ({@link LibmGuard}, shared with the exact expf/logf) compares the vector code with the linked libm on a probe set at the first
 * call; if any bit differs (another libm, another build), every active lane calls libm from then on.
 *
 * <p>A sine and a cosine of one argument share the fast path ({@link #pair}: one reduction, both
 * polynomials), where the scalar code calls {@code sincosf}.
 */
public final class ExactTrig {
  private ExactTrig() {}

  /** Cosine polynomial c0..c4 (glibc's __sincosf_table). */
  static final double[] C = {0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16};
  /** Sine polynomial s1..s3. */
  static final double[] S = {-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13};
  /** 2/pi * 2^24 (the reduction's scaled multiplier) and pi/2. */
  static final double HPI_INV = 0x1.45F306DC9C883p+23, HPI = 0x1.921FB54442D18p0;

  /**
   * Inputs of the guard's probe: the 17 positive ones below 120 on which glibc's fused and unfused
   * builds differ (cosf, found by an exhaustive comparison of the two), their negatives, and the edges
   * of the ranges (2^-12, 0.75, multiples of pi/4, 120).
   */
  static final float[] PROBES = {
      0x1.1475b6p+4f, 0x1.1475b8p+4f, 0x1.1475bap+4f, 0x1.1475bcp+4f, 0x1.78edb2p+4f, 0x1.05d696p+5f, 0x1.ab6152p+5f,
      0x1.d0f4aap+5f, 0x1.019c5p+6f, 0x1.0e1c8p+6f, 0x1.46b80ep+6f, 0x1.46ba88p+6f, 0x1.52e6cp+6f, 0x1.8abf54p+6f,
      0x1.9eb0a8p+6f, 0x1.b1a47cp+6f, 0x1.d0f4aap+6f,
      -0x1.1475b6p+4f, -0x1.78edb2p+4f, -0x1.05d696p+5f, -0x1.ab6152p+5f, -0x1.019c5p+6f, -0x1.46b80ep+6f, -0x1.b1a47cp+6f,
      0x1p-12f, 0x1.fffffep-13f, 0.74999994f, 0.75f, 0.7853982f, 1.5707964f, 2.3561945f, 3.1415927f, -3.1415927f, 4.712389f,
      6.2831855f, -6.2831855f, 1e-3f, 0.5f, 1.0f, -1.0f, 2.0f, 10.0f, 33.3f, -77.7f, 100.0f, 119.99999f, -119.99999f, 0.1f};

  /**
   * glibc's sinf and cosf on {@link #PROBES} (bits), in its fused build (FMA and AVX2) and its plain one:
   * what the helper's fast path gives there, by construction, so that the guard's probe compares libm
   * with these constants instead of running a copy of the fast path (issue 16, code growth). Measured on
   * glibc 2.36 (the second build through {@code GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA});
   * {@code ExactTrigProbeTableTest} checks them against the linked libm and against the fast path.
   */
  static final int[] SIN_FUSED = {
      0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000, 0xbf7fff80, 0x3f779884, 0xbc7d08a9, 0x3f800000,
      0x3f800000, 0xbf7ff72d, 0xbadaa3b4, 0x3a44b889, 0x3dc7b08a, 0xbf767f39, 0x382ee64e, 0x3f7fea63,
      0xb5d2257c, 0x3f800000, 0x3f7fff80, 0xbf779884, 0x3c7d08a9, 0xbf800000, 0x3adaa3b4, 0xbf7fea63,
      0x39800000, 0x397fffff, 0x3f2e7fe0, 0x3f2e7fe1, 0x3f3504f3, 0x3f800000, 0x3f3504f3, 0xb3bbbd2e,
      0x33bbbd2e, 0xbf800000, 0x343bbd2e, 0xb43bbd2e, 0x3a83126e, 0x3ef57744, 0x3f576aa4, 0xbf576aa4,
      0x3f68c7b7, 0xbf0b44f8, 0x3f738a4c, 0xbf3e9908, 0xbf01a12e, 0x3f14a287, 0xbf14a287, 0x3dcc7577};
  static final int[] COS_FUSED = {
      0xb7b4f770, 0xb7a4f770, 0xb794f770, 0xb784f770, 0xbb803f6b, 0x3e821ce2, 0xbf7ff82f, 0xb552257c,
      0x34fdd672, 0xbc866cc4, 0x3f7fffe9, 0x3f7ffffb, 0xbf7ec7ba, 0xbe8a34d1, 0xbf800000, 0xbcd25ea8,
      0xbf800000, 0xb7b4f770, 0xbb803f6b, 0x3e821ce2, 0xbf7ff82f, 0x34fdd672, 0x3f7fffe9, 0xbcd25ea8,
      0x3f800000, 0x3f800000, 0x3f3b4ff7, 0x3f3b4ff6, 0x3f3504f3, 0xb33bbd2e, 0xbf3504f3, 0xbf800000,
      0xbf800000, 0x324cde2e, 0x3f800000, 0x3f800000, 0x3f7ffff8, 0x3f60a940, 0x3f0a5140, 0x3f0a5140,
      0xbed51133, 0xbf56cd64, 0xbe9dc967, 0xbf2ae7a8, 0x3f5cc0ee, 0x3f506e74, 0x3f506e74, 0x3f7eb898};
  static final int[] SIN_PLAIN = {
      0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000, 0xbf7fff80, 0x3f779884, 0xbc7d08a8, 0x3f800000,
      0x3f800000, 0xbf7ff72d, 0xbadaa3b5, 0x3a44b888, 0x3dc7b089, 0xbf767f39, 0x382ee64f, 0x3f7fea63,
      0xb5d2257b, 0x3f800000, 0x3f7fff80, 0xbf779884, 0x3c7d08a8, 0xbf800000, 0x3adaa3b5, 0xbf7fea63,
      0x39800000, 0x397fffff, 0x3f2e7fe0, 0x3f2e7fe1, 0x3f3504f3, 0x3f800000, 0x3f3504f3, 0xb3bbbd2e,
      0x33bbbd2e, 0xbf800000, 0x343bbd2e, 0xb43bbd2e, 0x3a83126e, 0x3ef57744, 0x3f576aa4, 0xbf576aa4,
      0x3f68c7b7, 0xbf0b44f8, 0x3f738a4c, 0xbf3e9908, 0xbf01a12e, 0x3f14a287, 0xbf14a287, 0x3dcc7577};
  static final int[] COS_PLAIN = {
      0xb7b4f76f, 0xb7a4f76f, 0xb794f76f, 0xb784f76f, 0xbb803f6a, 0x3e821ce3, 0xbf7ff82f, 0xb552257b,
      0x34fdd671, 0xbc866cc3, 0x3f7fffe9, 0x3f7ffffb, 0xbf7ec7ba, 0xbe8a34d2, 0xbf800000, 0xbcd25ea7,
      0xbf800000, 0xb7b4f76f, 0xbb803f6a, 0x3e821ce3, 0xbf7ff82f, 0x34fdd671, 0x3f7fffe9, 0xbcd25ea7,
      0x3f800000, 0x3f800000, 0x3f3b4ff7, 0x3f3b4ff6, 0x3f3504f3, 0xb33bbd2e, 0xbf3504f3, 0xbf800000,
      0xbf800000, 0x324cde2e, 0x3f800000, 0x3f800000, 0x3f7ffff8, 0x3f60a940, 0x3f0a5140, 0x3f0a5140,
      0xbed51133, 0xbf56cd64, 0xbe9dc967, 0xbf2ae7a8, 0x3f5cc0ee, 0x3f506e74, 0x3f506e74, 0x3f7eb898};

  /** The expected probe results of sinf or cosf in the fused or the plain build. */
  static int[] expected(boolean cos, boolean fused) {
    return cos ? (fused ? COS_FUSED : COS_PLAIN) : (fused ? SIN_FUSED : SIN_PLAIN);
  }

  /** Whether {@code name} (C name, "sinf") on float lanes has a helper here. */
  public static boolean emits(String name, boolean isDouble) {
    return !isDouble && (name.equals("sin") || name.equals("cos"));
  }

  /**
   * Whether the packetizer takes this route for a target: when its features select glibc's FMA build.
   * A CPU that runs such code has FMA and AVX2, so glibc's ifunc picks that build there too. For a
   * target without them the helper would reproduce glibc's SSE2 build, which glibc runs only on CPUs
   * without FMA or AVX2; on the others (nearly every x86-64 CPU since 2013) the guard would send every
   * lane to libm, slower than the back end's per-lane sincosf (ao at W4/SSE4.2 on this project's Zen 5
   * host: 2.09x scalar before, 1.29x with the SSE2 helper). {@code -Dpacketizer.exactTrigSse2=true}
   * takes the route for such targets too (tests: glibc's SSE2 build through GLIBC_TUNABLES).
   */
  public static boolean worthwhile(String features) {
    return fused(features) || Boolean.getBoolean("packetizer.exactTrigSse2");
  }

  /** glibc's ifunc: the fused build when the CPU has FMA and AVX2. */
  public static boolean fused(String features) {
    return features.contains("+fma") && features.contains("+avx2");
  }

  /** The name stem of the functions for {@code packet}'s target at width {@code w}. */
  private static String stem(Function packet, int w) {
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String tf = packet.stringAttribute("target-features").orElse("");
    return "_v" + w + "_" + (fused(VectorMathRoutes.effectiveFeatures(packet)) ? "fma_" : "") + Integer.toHexString((cpu + "|" + tf).hashCode());
  }

  /**
   * The fast path of both functions, {@code {<W x float> sin, <W x float> cos} @__packetizer_sincosf_v<W>_...(<W x float>)}
   * (memory(none), always-inline): correct on the lanes with |x| < 120. A sine and a cosine of one
   * packet call it twice with the same argument, and the packetizer's clean-up (early-cse) keeps one
   * call: one reduction and one pair of polynomials for both, as glibc's sincosf.
   */
  public static Function pair(LlvmModule m, Function packet, int w) {
    String name = "__packetizer_sincosf" + stem(packet, w);
    Optional<Function> have = m.function(name);
    if (have.isPresent()) return have.get();
    boolean fma = fused(VectorMathRoutes.effectiveFeatures(packet));
    Template t = new Template(false, w, fma, name);
    t.core(name, Template.Result.BOTH, true);
    t.s.append("declare ").append(t.vd).append(" @llvm.fma.v").append(w).append("f64(").append(t.vd).append(", ").append(t.vd).append(", ")
        .append(t.vd).append(")\n");
    t.s.append("attributes #0 = { nounwind willreturn memory(none) alwaysinline }\n");
    return ExactMath.linkHelper(m, packet, name, t.s.toString(), w);
  }

  /**
   * The helper for {@code base} ("sin" or "cos") on {@code w} float lanes, added to {@code m} if
   * absent, compiled for {@code packet}'s target. Its arguments: the packet x, the mask, and the fast
   * path's result for this function ({@link #pair}); it returns the fast result where the guard allows
   * it, with libm's result on the active lanes outside the fast range.
   */
  public static Function helper(LlvmModule m, Function packet, String base, int w) {
    String name = "__packetizer_" + base + "f" + stem(packet, w);
    Optional<Function> have = m.function(name);
    if (have.isPresent()) return have.get();
    boolean fma = fused(VectorMathRoutes.effectiveFeatures(packet));
    return ExactMath.linkHelper(m, packet, name, new Template(base.equals("cos"), w, fma, name).module(), w);
  }

  /** The IR text of one helper, its fast path, and its guard. */
  static final class Template {
    final boolean cos, fma;
    final int w;
    final String name, vf, vd, vi, m, iw;
    final StringBuilder s = new StringBuilder();

    Template(boolean cos, int w, boolean fma, String name) {
      this.cos = cos;
      this.w = w;
      this.fma = fma;
      this.name = name;
      vf = "<" + w + " x float>";
      vd = "<" + w + " x double>";
      vi = "<" + w + " x i32>";
      m = "<" + w + " x i1>";
      iw = "i" + w;
    }

    static String fp(double v) { return String.format(Locale.ROOT, "0x%016X", Double.doubleToRawLongBits(v)); }

    String d(double v) { return "splat (double " + fp(v) + ")"; }

    String i(long v) { return "splat (i32 " + v + ")"; }

    void line(String t) { s.append("  ").append(t).append('\n'); }

    /** {@code out = a*b + c} on double lanes, fused or not as the selected glibc build. */
    void madd(String out, String a, String b, String c) {
      if (fma) {
        line(out + " = call " + vd + " @llvm.fma.v" + w + "f64(" + vd + " " + a + ", " + vd + " " + b + ", " + vd + " " + c + ")");
      } else {
        line(out + ".p = fmul " + vd + " " + a + ", " + b);
        line(out + " = fadd " + vd + " " + out + ".p, " + c);
      }
    }

    enum Result { SIN, COS, BOTH }

    /**
     * The fast path {@code fname}: every lane as if |x| < 120 (lanes beyond are the helper's to
     * replace); returns the sine, the cosine, or both as a struct.
     */
    void core(String fname, Result what, boolean external) {
      String rt = what == Result.BOTH ? "{ " + vf + ", " + vf + " }" : vf;
      s.append(external ? "define " : "define internal ").append(rt).append(" @\"").append(fname).append("\"(").append(vf).append(" %y) #0 {\n");
      line("%yi = bitcast " + vf + " %y to " + vi);
      line("%top = lshr " + vi + " %yi, " + i(20));
      line("%t = and " + vi + " %top, " + i(0x7ff));
      line("%small = icmp ult " + vi + " %t, " + i(0x3f4)); // |x| < 0.75 by the top 12 bits (pi/4's)
      line("%tiny = icmp ult " + vi + " %t, " + i(0x398)); // 2^-12
      line("%fast = icmp ult " + vi + " %t, " + i(0x42f)); // 120
      line("%xe = fpext " + vf + " %y to " + vd);
      line("%x = select " + m + " %fast, " + vd + " %xe, " + vd + " zeroinitializer");
      line("%r = fmul " + vd + " %x, " + d(HPI_INV));
      line("%ri = fptosi " + vd + " %r to " + vi);
      line("%ra = add " + vi + " %ri, " + i(0x800000));
      line("%nr = ashr " + vi + " %ra, " + i(24));
      line("%n = select " + m + " %small, " + vi + " zeroinitializer, " + vi + " %nr");
      line("%nd = sitofp " + vi + " %n to " + vd);
      line("%nneg = fneg " + vd + " %nd");
      madd("%xred", "%nneg", d(HPI), "%x");
      line("%xr = select " + m + " %small, " + vd + " %x, " + vd + " %xred");
      // sign of the sine's argument: -1 in quadrants 1 and 2
      line("%n1 = add " + vi + " %n, " + i(1));
      line("%q2 = and " + vi + " %n1, " + i(2));
      line("%sneg = icmp ne " + vi + " %q2, zeroinitializer");
      line("%xrn = fneg " + vd + " %xr");
      line("%xs = select " + m + " %sneg, " + vd + " %xrn, " + vd + " %xr");
      line("%x2 = fmul " + vd + " %xr, %xr");
      // sine polynomial on xs
      line("%x3 = fmul " + vd + " %xs, %x2");
      madd("%s1", "%x2", d(S[2]), d(S[1]));
      line("%x7 = fmul " + vd + " %x3, %x2");
      madd("%sa", "%x3", d(S[0]), "%xs");
      madd("%sp", "%x7", "%s1", "%sa");
      // cosine polynomial, negated in quadrants 2 and 3
      line("%x4 = fmul " + vd + " %x2, %x2");
      madd("%c2", "%x2", d(C[4]), d(C[3]));
      madd("%c1", "%x2", d(C[1]), d(C[0]));
      line("%x6 = fmul " + vd + " %x4, %x2");
      madd("%ca", "%x4", d(C[2]), "%c1");
      madd("%cp", "%x6", "%c2", "%ca");
      line("%n2 = and " + vi + " %n, " + i(2));
      line("%cneg = icmp ne " + vi + " %n2, zeroinitializer");
      line("%cpn = fneg " + vd + " %cp");
      line("%cs = select " + m + " %cneg, " + vd + " %cpn, " + vd + " %cp");
      // the quadrant's parity picks the polynomial: sin = odd ? cos poly : sin poly, cos the other way round
      line("%nb = and " + vi + " %n, " + i(1));
      line("%odd = icmp ne " + vi + " %nb, zeroinitializer");
      if (what != Result.COS) {
        line("%psd = select " + m + " %odd, " + vd + " %cs, " + vd + " %sp");
        line("%psf = fptrunc " + vd + " %psd to " + vf);
        line("%rs = select " + m + " %tiny, " + vf + " %y, " + vf + " %psf");
      }
      if (what != Result.SIN) {
        line("%pcd = select " + m + " %odd, " + vd + " %sp, " + vd + " %cs");
        line("%pcf = fptrunc " + vd + " %pcd to " + vf);
        line("%rc = select " + m + " %tiny, " + vf + " splat (float 1.0), " + vf + " %pcf");
      }
      switch (what) {
        case SIN -> line("ret " + vf + " %rs");
        case COS -> line("ret " + vf + " %rc");
        case BOTH -> {
          line("%b0 = insertvalue " + rt + " poison, " + vf + " %rs, 0");
          line("%b1 = insertvalue " + rt + " %b0, " + vf + " %rc, 1");
          line("ret " + rt + " %b1");
        }
      }
      s.append("}\n\n");
    }

    String module() {
      String fn = cos ? "cosf" : "sinf";
      if (LibmGuard.inlinedLayout()) core(name + ".core", cos ? Result.COS : Result.SIN, false); // the old probe's copy
      // the helper: the guard's flag, then the fast result %v (computed by the caller: one call for a sine and a
      // cosine of one packet) with libm on the active lanes outside the fast range; the first call (the
      // probe) and the calls after a failed probe are out of line and cold (LibmGuard's pieces)
      String libm = LibmGuard.libmSymbol(fn);
      String q = "@\"" + name;
      String special = "  %yi = bitcast " + vf + " %y to " + vi + "\n"
          + "  %t = and " + vi + " %yi, " + i(0x7ff00000) + "\n"
          + "  %inrange = icmp ult " + vi + " %t, " + i(0x42f00000) + "\n"
          + "  %outside = xor " + m + " %inrange, splat (i1 true)\n"
          + "  %sm = and " + m + " %outside, %active\n";
      s.append("define ").append(vf).append(" ").append(q).append("\"(").append(vf).append(" %y, ").append(m)
          .append(" %active, ").append(vf).append(" %v) #1 {\nentry:\n");
      line("%guard = load atomic i8, ptr " + q + ".ok\" monotonic, align 1");
      line("%verified = icmp eq i8 %guard, 1");
      line("br i1 %verified, label %fast, label %cold");
      s.append("fast:\n").append(special);
      line("%smi = bitcast " + m + " %sm to " + iw);
      line("%any = icmp ne " + iw + " %smi, 0");
      line("br i1 %any, label %edge, label %done, !prof !0");
      s.append("edge:\n");
      line("%ye = call " + vf + " " + q + ".lanes\"(" + vf + " %y, " + m + " %sm, " + vf + " %v)");
      line("br label %done");
      s.append("cold:\n");
      line("%yc = call " + vf + " " + q + ".slow\"(" + vf + " %y, " + m + " %active, " + vf + " %v)");
      line("br label %done");
      s.append("done:\n");
      line("%r = phi " + vf + " [ %v, %fast ], [ %ye, %edge ], [ %yc, %cold ]");
      line("ret " + vf + " %r");
      s.append("}\n\n");
      s.append(LibmGuard.slowHead(name, vf, vf + " %y, " + m + " %active, " + vf + " %v", "%fast"));
      s.append("fast:\n").append(special);
      line("%ye = call " + vf + " " + q + ".lanes\"(" + vf + " %y, " + m + " %sm, " + vf + " %v)");
      line("ret " + vf + " %ye");
      s.append("perlane:\n");
      line("%ya = call " + vf + " " + q + ".lanes\"(" + vf + " %y, " + m + " %active, " + vf + " poison)");
      line("ret " + vf + " %ya");
      s.append("}\n\n");
      if (LibmGuard.inlinedLayout()) {
        int k = (PROBES.length + w - 1) / w * w;
        long[] probeBits = new long[k];
        for (int j = 0; j < k; j++) probeBits[j] = Float.floatToRawIntBits(PROBES[Math.min(j, PROBES.length - 1)]);
        s.append(LibmGuard.globals(name, "float", probeBits));
        s.append(LibmGuard.probe(name, libm, "float", w, k, ""));
      } else {
        long[] probeBits = new long[PROBES.length];
        long[] expected = new long[PROBES.length];
        int[] table = expected(cos, fma);
        for (int j = 0; j < PROBES.length; j++) {
          probeBits[j] = Float.floatToRawIntBits(PROBES[j]);
          expected[j] = table[j];
        }
        s.append(LibmGuard.globals(name, "float", probeBits));
        s.append(LibmGuard.probeExpected(name, libm, "float", probeBits, expected));
      }
      s.append(LibmGuard.lanes(name, libm, "float", w));
      s.append(LibmGuard.declarations(libm, "float", w));
      s.append("!0 = !{!\"branch_weights\", i32 1, i32 1000}\n");
      s.append("declare ").append(vd).append(" @llvm.fma.v").append(w).append("f64(").append(vd).append(", ").append(vd).append(", ").append(vd)
          .append(")\n");
      s.append("attributes #0 = { nounwind willreturn memory(none) }\n");
      s.append("attributes #1 = { nounwind alwaysinline }\n");
      return s.toString();
    }
  }
}
