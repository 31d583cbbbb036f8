package org.packetizer.core.mapping;

import java.util.Locale;
import java.util.Optional;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * Vector IR for the C99 functions that are exact and cheap to compute on vectors (issue 16): each is
 * an internal helper function {@code <W x T> @__packetizer_<fn>_v<W>_<features>(...)} added to the
 * module once, written as LLVM IR text below, parsed in the module's context and linked in. Every
 * helper reproduces glibc's result bit for bit, NaN payloads and signed zeros included (glibc
 * computes NaN results of fmod and remainder as {@code (x*y)/(x*y)}, and the helpers do the same
 * arithmetic on the same operands, which x86's vector instructions propagate exactly as the scalar
 * ones), and none sets errno.
 *
 * <p>fmod: exact reduction of |x| by |y| scaled by 2^k, 51 quotient bits per step for double
 * (q = trunc(r/yk), r - q*yk by one fma, exact because the remainder is a multiple of yk's last bit
 * and smaller than yk), 28 bits per step for float computed in double (q*yk exact without fma), in
 * a loop that runs while some lane still has r >= |y|: one iteration when the exponents of x and y
 * differ by less than 28 (float) or 51 (double) bits, at most 10 (float) or 41 (double).
 * remainder: fmod by 2|y|, then glibc's two conditional subtractions. fmin, fmax: glibc's ordered
 * comparison, then its NaN rules (a signalling NaN or two NaNs give x+y, else the number).
 * fdim, nextafter, ilogb, logb: glibc's definitions on the bits. ldexp, scalbn, scalbln: at most two
 * pre-scalings by 2^±emax keep every intermediate exact, one final multiplication rounds once.
 */
public final class ExactMath {
  private ExactMath() {}

  /** The functions this class emits (double names; float names add "f"). */
  public static boolean emits(String base) {
    return switch (base) {
      case "fmod", "remainder", "fmin", "fmax", "fdim", "nextafter", "ldexp", "scalbn", "scalbln", "ilogb", "logb" -> true;
      default -> false;
    };
  }

  /**
   * The helper for {@code base} (double name) on {@code W x float} or {@code W x double}, added to
   * {@code m} if absent, compiled for {@code packet}'s target (its target-cpu, target-features and
   * min-legal-vector-width attributes).
   */
  public static Function helper(LlvmModule m, Function packet, String base, boolean isDouble, int w) {
    if (!emits(base)) throw new IllegalArgumentException("no exact vector IR for " + base);
    String features = packet.stringAttribute("target-features").orElse("");
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String name = "__packetizer_" + base + (isDouble ? "" : "f") + "_v" + w + "_"
        + Integer.toHexString((cpu + "|" + features).hashCode());
    Optional<Function> have = m.function(name);
    if (have.isPresent()) return have.get();
    String text = new Template(base, isDouble, w, name).module();
    return linkHelper(m, packet, name, text, w);
  }

  /**
   * Parses {@code text} (defining {@code @name}, external, and its internal pieces {@code @"name.*"}),
   * links it into {@code m}, makes the helper internal and compiles it and its pieces for
   * {@code packet}'s target (target-cpu, target-features, min-legal-vector-width).
   */
  static Function linkHelper(LlvmModule m, Function packet, String name, String text, int w) {
    String features = packet.stringAttribute("target-features").orElse("");
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    try (LlvmModule src = m.context().parseIr(text, name + ".ll")) {
      src.setTargetTriple(m.targetTriple());
      src.setDataLayout(m.dataLayoutString());
      // the helper's always-inline pieces (a fast path) inlined where the text calls them, here, so that
      // the linked helper has its final shape whatever the user's pipeline runs later
      src.runPasses("always-inline");
      // a helper declaring the module's shared cold pieces (SharedCold) links against their definitions
      SharedCold.linkingAgainst(m, () -> m.link(src));
    }
    Function f = m.function(name).orElseThrow(() -> new IllegalStateException("linked helper " + name + " is missing"));
    f.setInternalLinkage(); // defined external in the text: the linker drops unreferenced internal definitions
    if (!cpu.isEmpty()) f.setStringAttribute("target-cpu", cpu);
    if (!features.isEmpty()) f.setStringAttribute("target-features", features);
    // vectors up to W doubles travel in one register each way (x86-64-v4 prefers 256-bit vectors: without
    // this a <16 x float> argument would be split in two ymm registers in the helper, one zmm in the caller)
    long bits = SignatureAbi.widestVectorBits(f.functionType(), null);
    SignatureAbi.raise(packet, bits);
    String legal = Long.toString(Math.max(w * 64L, bits));
    f.setStringAttribute("min-legal-vector-width", legal);
    // unwind tables as the packet function has them (debuggers and profilers walk through the helper)
    Optional<Long> uwtable = packet.enumAttributeValue("uwtable");
    if (uwtable.isPresent()) f.setEnumAttributeValue("uwtable", uwtable.get());
    for (Function g : m.functions()) {
      // the helper's own pieces (the remainder helper's fmod, a guarded helper's core and probe)
      if (g.name().startsWith(name + ".") && !g.isDeclaration()) {
        if (!cpu.isEmpty()) g.setStringAttribute("target-cpu", cpu);
        if (!features.isEmpty()) g.setStringAttribute("target-features", features);
        g.setStringAttribute("min-legal-vector-width", legal);
        if (uwtable.isPresent()) g.setEnumAttributeValue("uwtable", uwtable.get());
      }
    }
    return f;
  }

  /** The helper's parameter types for a packet of {@code w} lanes of {@code t} (float or double). */
  public static boolean intArgument(String base) { return base.equals("ldexp") || base.equals("scalbn") || base.equals("scalbln"); }

  /** IR text of one helper. */
  private static final class Template {
    final String base, name;
    final boolean dbl;
    final int w;
    final String t, vt, d, l, m, vi, ti, iw;
    final int mant, bias, bits;

    Template(String base, boolean dbl, int w, String name) {
      this.base = base;
      this.dbl = dbl;
      this.w = w;
      this.name = name;
      t = dbl ? "double" : "float";
      vt = vec(t);
      d = vec("double");
      l = vec("i64");
      m = vec("i1");
      ti = dbl ? "i64" : "i32";
      vi = vec(ti);
      iw = "i" + w;
      mant = dbl ? 52 : 23;
      bias = dbl ? 1023 : 127;
      bits = dbl ? 64 : 32;
    }

    String vec(String e) { return "<" + w + " x " + e + ">"; }

    String sp(String type, String v) { return "splat (" + type + " " + v + ")"; }

    String vsuf(String e) { return "v" + w + e; }

    /** A floating-point constant as LLVM writes it (hexadecimal double bits, also for float). */
    static String fp(double v) { return String.format(Locale.ROOT, "0x%016X", Double.doubleToRawLongBits(v)); }

    String module() {
      String body = switch (base) {
        case "fmod" -> fmod(name);
        case "remainder" -> fmod(name + ".fmod") + remainder();
        case "fmin" -> minMax("olt");
        case "fmax" -> minMax("ogt");
        case "fdim" -> fdim();
        case "nextafter" -> nextafter();
        case "ilogb" -> ilogb();
        case "logb" -> logb();
        case "ldexp", "scalbn" -> ldexp(false);
        case "scalbln" -> ldexp(true);
        default -> throw new IllegalArgumentException(base);
      };
      return body + "\nattributes #0 = { nounwind willreturn memory(none) }\n";
    }

    /** The unbiased exponent (i64 lanes) of positive finite doubles {@code in}, subnormals included. */
    String exponent(String out, String in) {
      return String.join("\n",
          "  %" + out + ".b = bitcast " + d + " " + in + " to " + l,
          "  %" + out + ".f = lshr " + l + " %" + out + ".b, " + sp("i64", "52"),
          "  %" + out + ".s = fmul " + d + " " + in + ", " + sp("double", fp(0x1p54)),
          "  %" + out + ".sb = bitcast " + d + " %" + out + ".s to " + l,
          "  %" + out + ".sf = lshr " + l + " %" + out + ".sb, " + sp("i64", "52"),
          "  %" + out + ".sub = icmp eq " + l + " %" + out + ".f, zeroinitializer",
          "  %" + out + ".e1 = sub " + l + " %" + out + ".f, " + sp("i64", "1023"),
          "  %" + out + ".e2 = sub " + l + " %" + out + ".sf, " + sp("i64", "1077"),
          "  %" + out + " = select " + m + " %" + out + ".sub, " + l + " %" + out + ".e2, " + l + " %" + out + ".e1", "");
    }

    /** 2^k as doubles for 0 <= k <= 1023. */
    String pow2(String out, String k) {
      return String.join("\n",
          "  %" + out + ".a = add " + l + " " + k + ", " + sp("i64", "1023"),
          "  %" + out + ".b = shl " + l + " %" + out + ".a, " + sp("i64", "52"),
          "  %" + out + " = bitcast " + l + " %" + out + ".b to " + d, "");
    }

    String any(String out, String mask) {
      return "  %" + out + ".i = bitcast " + m + " " + mask + " to " + iw + "\n"
          + "  %" + out + " = icmp ne " + iw + " %" + out + ".i, 0\n";
    }

    String fmod(String fname) {
      String conv = dbl ? "bitcast" : "fpext";
      String back = dbl ? "bitcast" : "fptrunc";
      int k = dbl ? 51 : 28;
      StringBuilder s = new StringBuilder();
      s.append(fname.equals(name) ? "define " : "define internal ").append(vt).append(" @\"").append(fname).append("\"(").append(vt).append(" %x, ").append(vt)
          .append(" %y) #0 {\nentry:\n");
      s.append("  %xd = ").append(conv).append(" ").append(vt).append(" %x to ").append(d).append("\n");
      s.append("  %yd = ").append(conv).append(" ").append(vt).append(" %y to ").append(d).append("\n");
      s.append("  %ax = call ").append(d).append(" @llvm.fabs.").append(vsuf("f64")).append("(").append(d).append(" %xd)\n");
      s.append("  %ay = call ").append(d).append(" @llvm.fabs.").append(vsuf("f64")).append("(").append(d).append(" %yd)\n");
      s.append("  %yzero = fcmp oeq ").append(d).append(" %yd, zeroinitializer\n");
      s.append("  %ynan = fcmp uno ").append(d).append(" %yd, %yd\n");
      s.append("  %xbad = fcmp ueq ").append(d).append(" %ax, ").append(sp("double", fp(Double.POSITIVE_INFINITY))).append("\n");
      s.append("  %s0 = or ").append(m).append(" %yzero, %ynan\n");
      s.append("  %special = or ").append(m).append(" %s0, %xbad\n");
      s.append("  %small = fcmp olt ").append(d).append(" %ax, %ay\n");
      s.append("  %stop = or ").append(m).append(" %special, %small\n");
      s.append("  %act0 = xor ").append(m).append(" %stop, ").append(sp("i1", "true")).append("\n");
      s.append(exponent("ey", "%ay"));
      s.append("  %eyk = add ").append(l).append(" %ey, ").append(sp("i64", Integer.toString(k))).append("\n");
      s.append(any("any0", "%act0"));
      s.append("  br i1 %any0, label %loop, label %exit\n");
      s.append("loop:\n");
      s.append("  %r = phi ").append(d).append(" [ %ax, %entry ], [ %rn, %loop ]\n");
      s.append("  %act = phi ").append(m).append(" [ %act0, %entry ], [ %actn, %loop ]\n");
      s.append(exponent("er", "%r"));
      s.append("  %dk = sub ").append(l).append(" %er, %eyk\n");
      s.append("  %k = call ").append(l).append(" @llvm.smax.").append(vsuf("i64")).append("(").append(l).append(" %dk, ").append(l)
          .append(" zeroinitializer)\n");
      if (dbl) {
        s.append("  %k1 = lshr ").append(l).append(" %k, ").append(sp("i64", "1")).append("\n");
        s.append("  %k2 = sub ").append(l).append(" %k, %k1\n");
        s.append(pow2("p1", "%k1")).append(pow2("p2", "%k2"));
        s.append("  %yk0 = fmul ").append(d).append(" %ay, %p1\n");
        s.append("  %yk = fmul ").append(d).append(" %yk0, %p2\n");
      } else {
        s.append(pow2("p1", "%k"));
        s.append("  %yk = fmul ").append(d).append(" %ay, %p1\n");
      }
      s.append("  %qd = fdiv ").append(d).append(" %r, %yk\n");
      s.append("  %q = call ").append(d).append(" @llvm.trunc.").append(vsuf("f64")).append("(").append(d).append(" %qd)\n");
      if (dbl) {
        s.append("  %nq = fneg ").append(d).append(" %q\n");
        s.append("  %t = call ").append(d).append(" @llvm.fma.").append(vsuf("f64")).append("(").append(d).append(" %nq, ").append(d)
            .append(" %yk, ").append(d).append(" %r)\n");
      } else {
        s.append("  %prod = fmul ").append(d).append(" %q, %yk\n");
        s.append("  %t = fsub ").append(d).append(" %r, %prod\n");
      }
      s.append("  %neg = fcmp olt ").append(d).append(" %t, zeroinitializer\n");
      s.append("  %tp = fadd ").append(d).append(" %t, %yk\n");
      s.append("  %t2 = select ").append(m).append(" %neg, ").append(d).append(" %tp, ").append(d).append(" %t\n");
      s.append("  %rn = select ").append(m).append(" %act, ").append(d).append(" %t2, ").append(d).append(" %r\n");
      s.append("  %ge = fcmp oge ").append(d).append(" %rn, %ay\n");
      s.append("  %actn = and ").append(m).append(" %act, %ge\n");
      s.append(any("more", "%actn"));
      s.append("  br i1 %more, label %loop, label %exit\n");
      s.append("exit:\n");
      s.append("  %rf = phi ").append(d).append(" [ %ax, %entry ], [ %rn, %loop ]\n");
      s.append("  %rs = call ").append(d).append(" @llvm.copysign.").append(vsuf("f64")).append("(").append(d).append(" %rf, ").append(d)
          .append(" %xd)\n");
      s.append("  %res = ").append(back).append(" ").append(d).append(" %rs to ").append(vt).append("\n");
      s.append(specialNan("nan", "%x", "%y"));
      s.append("  %r1 = select ").append(m).append(" %small, ").append(vt).append(" %x, ").append(vt).append(" %res\n");
      s.append("  %r2 = select ").append(m).append(" %special, ").append(vt).append(" %nan, ").append(vt).append(" %r1\n");
      s.append("  ret ").append(vt).append(" %r2\n}\n");
      return s.toString();
    }

    String header(String params) { return "define " + vt + " @\"" + name + "\"(" + params + ") #0 {\nentry:\n"; }

    String fsuf() { return vsuf(dbl ? "f64" : "f32"); }

    String signMask() { return dbl ? "-9223372036854775808" : "-2147483648"; }

    String remainder() {
      double half = dbl ? 0x1p1023 : 0x1p127;
      return header(vt + " %x, " + vt + " %y")
          + "  %ax = call " + vt + " @llvm.fabs." + fsuf() + "(" + vt + " %x)\n"
          + "  %ay = call " + vt + " @llvm.fabs." + fsuf() + "(" + vt + " %y)\n"
          + "  %yzero = fcmp oeq " + vt + " %y, zeroinitializer\n"
          + "  %ynan = fcmp uno " + vt + " %y, %y\n"
          + "  %xbad = fcmp ueq " + vt + " %ax, " + sp(t, fp(Double.POSITIVE_INFINITY)) + "\n"
          + "  %s0 = or " + m + " %yzero, %ynan\n"
          + "  %special = or " + m + " %s0, %xbad\n"
          + "  %big = fcmp oge " + vt + " %ay, " + sp(t, fp(half)) + "\n"
          + "  %y2 = fadd " + vt + " %ay, %ay\n"
          + "  %fm = call " + vt + " @\"" + name + ".fmod\"(" + vt + " %ax, " + vt + " %y2)\n"
          + "  %r2 = select " + m + " %big, " + vt + " %ax, " + vt + " %fm\n"
          + "  %d1 = fadd " + vt + " %r2, %r2\n"
          + "  %c1 = fcmp ogt " + vt + " %d1, %ay\n"
          + "  %s1 = fsub " + vt + " %r2, %ay\n"
          + "  %r3 = select " + m + " %c1, " + vt + " %s1, " + vt + " %r2\n"
          + "  %d2 = fadd " + vt + " %r3, %r3\n"
          + "  %c2a = fcmp oge " + vt + " %d2, %ay\n"
          + "  %c2 = and " + m + " %c1, %c2a\n"
          + "  %s2 = fsub " + vt + " %r3, %ay\n"
          + "  %r4 = select " + m + " %c2, " + vt + " %s2, " + vt + " %r3\n"
          + "  %rb = bitcast " + vt + " %r4 to " + vi + "\n"
          + "  %xb = bitcast " + vt + " %x to " + vi + "\n"
          + "  %sx = and " + vi + " %xb, " + sp(ti, signMask()) + "\n"
          + "  %ob = xor " + vi + " %rb, %sx\n"
          + "  %res = bitcast " + vi + " %ob to " + vt + "\n"
          + (dbl ? specialNan("nan", "%y", "%x") : specialNan("nan", "%x", "%y"))
          + "  %out = select " + m + " %special, " + vt + " %nan, " + vt + " %res\n"
          + "  ret " + vt + " %out\n}\n";
    }

    /**
     * The NaN an x86 instruction with operands (first, second) gives when at least one is a NaN: the
     * first operand quieted if it is a NaN, else the second quieted. glibc's binaries put x first
     * for fmod, fmin, fmax and remainderf, y for remainder and nextafter; LLVM does not fix the
     * operand order of a commutative operation, so the helpers select the payload explicitly.
     */
    String nanPick(String out, String first, String second) {
      String quiet = dbl ? "2251799813685248" : "4194304";
      return "  %" + out + ".fb = bitcast " + vt + " " + first + " to " + vi + "\n"
          + "  %" + out + ".sb = bitcast " + vt + " " + second + " to " + vi + "\n"
          + "  %" + out + ".fq = or " + vi + " %" + out + ".fb, " + sp(ti, quiet) + "\n"
          + "  %" + out + ".sq = or " + vi + " %" + out + ".sb, " + sp(ti, quiet) + "\n"
          + "  %" + out + ".fn = fcmp uno " + vt + " " + first + ", " + first + "\n"
          + "  %" + out + ".q = select " + m + " %" + out + ".fn, " + vi + " %" + out + ".fq, " + vi + " %" + out + ".sq\n"
          + "  %" + out + " = bitcast " + vi + " %" + out + ".q to " + vt + "\n";
    }

    /** glibc's (x*y)/(x*y) for fmod and remainder: the NaN of the inputs, else the default NaN (negative on x86). */
    String specialNan(String out, String first, String second) {
      String dflt = dbl ? "-2251799813685248" : "-4194304";
      return nanPick(out + ".p", first, second)
          + "  %" + out + ".un = fcmp uno " + vt + " %x, %y\n"
          + "  %" + out + ".d = bitcast " + vi + " " + sp(ti, dflt) + " to " + vt + "\n"
          + "  %" + out + " = select " + m + " %" + out + ".un, " + vt + " %" + out + ".p, " + vt + " %" + out + ".d\n";
    }

    /** Is each lane a signalling NaN ({@code nan} says it is a NaN)? */
    String signalling(String out, String v, String nan) {
      String quiet = dbl ? "2251799813685248" : "4194304";
      return "  %" + out + ".b = bitcast " + vt + " " + v + " to " + vi + "\n"
          + "  %" + out + ".q = and " + vi + " %" + out + ".b, " + sp(ti, quiet) + "\n"
          + "  %" + out + ".z = icmp eq " + vi + " %" + out + ".q, zeroinitializer\n"
          + "  %" + out + " = and " + m + " " + nan + ", %" + out + ".z\n";
    }

    String minMax(String pred) {
      return header(vt + " %x, " + vt + " %y")
          + "  %lt = fcmp " + pred + " " + vt + " %x, %y\n"
          + "  %ord = fcmp ord " + vt + " %x, %y\n"
          + "  %rord = select " + m + " %lt, " + vt + " %x, " + vt + " %y\n"
          + "  %xnan = fcmp uno " + vt + " %x, %x\n"
          + "  %ynan = fcmp uno " + vt + " %y, %y\n"
          + signalling("xs", "%x", "%xnan")
          + signalling("ys", "%y", "%ynan")
          + "  %both = and " + m + " %xnan, %ynan\n"
          + "  %anys = or " + m + " %xs, %ys\n"
          + "  %addit = or " + m + " %anys, %both\n"
          + nanPick("sum", "%x", "%y")
          + "  %pick = select " + m + " %xnan, " + vt + " %y, " + vt + " %x\n"
          + "  %runord = select " + m + " %addit, " + vt + " %sum, " + vt + " %pick\n"
          + "  %r = select " + m + " %ord, " + vt + " %rord, " + vt + " %runord\n"
          + "  ret " + vt + " %r\n}\n";
    }

    String fdim() {
      return header(vt + " %x, " + vt + " %y")
          + "  %le = fcmp ole " + vt + " %x, %y\n"
          + "  %d = fsub " + vt + " %x, %y\n"
          + "  %r = select " + m + " %le, " + vt + " zeroinitializer, " + vt + " %d\n"
          + "  ret " + vt + " %r\n}\n";
    }

    String nextafter() {
      double tiny = dbl ? Double.MIN_VALUE : Float.MIN_VALUE;
      return header(vt + " %x, " + vt + " %y")
          + "  %nan = fcmp uno " + vt + " %x, %y\n"
          + "  %eq = fcmp oeq " + vt + " %x, %y\n"
          + "  %xz = fcmp oeq " + vt + " %x, zeroinitializer\n"
          + "  %xb = bitcast " + vt + " %x to " + vi + "\n"
          + "  %toy = fcmp olt " + vt + " %x, %y\n"
          + "  %xneg = fcmp olt " + vt + " %x, zeroinitializer\n"
          + "  %up = xor " + m + " %toy, %xneg\n"
          + "  %b1 = add " + vi + " %xb, " + sp(ti, "1") + "\n"
          + "  %b2 = sub " + vi + " %xb, " + sp(ti, "1") + "\n"
          + "  %nb = select " + m + " %up, " + vi + " %b1, " + vi + " %b2\n"
          + "  %nv = bitcast " + vi + " %nb to " + vt + "\n"
          + "  %tiny = call " + vt + " @llvm.copysign." + fsuf() + "(" + vt + " " + sp(t, fp(tiny)) + ", " + vt + " %y)\n"
          + nanPick("sum", "%y", "%x")
          + "  %r1 = select " + m + " %xz, " + vt + " %tiny, " + vt + " %nv\n"
          + "  %r2 = select " + m + " %eq, " + vt + " %y, " + vt + " %r1\n"
          + "  %r3 = select " + m + " %nan, " + vt + " %sum, " + vt + " %r2\n"
          + "  ret " + vt + " %r3\n}\n";
    }

    /** The unbiased exponent (in T's integer lanes) of |x| for finite nonzero x, subnormals included. */
    String exponentT(String out, String ax) {
      return "  %" + out + ".b = bitcast " + vt + " " + ax + " to " + vi + "\n"
          + "  %" + out + ".f = lshr " + vi + " %" + out + ".b, " + sp(ti, Integer.toString(mant)) + "\n"
          + "  %" + out + ".s = fmul " + vt + " " + ax + ", " + sp(t, fp(0x1p64)) + "\n"
          + "  %" + out + ".sb = bitcast " + vt + " %" + out + ".s to " + vi + "\n"
          + "  %" + out + ".sf = lshr " + vi + " %" + out + ".sb, " + sp(ti, Integer.toString(mant)) + "\n"
          + "  %" + out + ".sub = icmp eq " + vi + " %" + out + ".f, zeroinitializer\n"
          + "  %" + out + ".e1 = sub " + vi + " %" + out + ".f, " + sp(ti, Integer.toString(bias)) + "\n"
          + "  %" + out + ".e2 = sub " + vi + " %" + out + ".sf, " + sp(ti, Integer.toString(bias + 64)) + "\n"
          + "  %" + out + " = select " + m + " %" + out + ".sub, " + vi + " %" + out + ".e2, " + vi + " %" + out + ".e1\n";
    }

    String ilogb() {
      String v32 = vec("i32");
      String e32 = dbl ? "  %e32 = trunc " + vi + " %e to " + v32 + "\n" : "  %e32 = add " + v32 + " %e, zeroinitializer\n";
      return "define " + v32 + " @\"" + name + "\"(" + vt + " %x) #0 {\nentry:\n"
          + "  %ax = call " + vt + " @llvm.fabs." + fsuf() + "(" + vt + " %x)\n"
          + exponentT("e", "%ax")
          + e32
          + "  %zero = fcmp oeq " + vt + " %x, zeroinitializer\n"
          + "  %nan = fcmp uno " + vt + " %x, %x\n"
          + "  %inf = fcmp oeq " + vt + " %ax, " + sp(t, fp(Double.POSITIVE_INFINITY)) + "\n"
          + "  %zn = or " + m + " %zero, %nan\n"
          + "  %r1 = select " + m + " %inf, " + v32 + " " + sp("i32", "2147483647") + ", " + v32 + " %e32\n"
          + "  %r2 = select " + m + " %zn, " + v32 + " " + sp("i32", "-2147483648") + ", " + v32 + " %r1\n"
          + "  ret " + v32 + " %r2\n}\n";
    }

    String logb() {
      return header(vt + " %x")
          + "  %ax = call " + vt + " @llvm.fabs." + fsuf() + "(" + vt + " %x)\n"
          + exponentT("e", "%ax")
          + "  %ef = sitofp " + vi + " %e to " + vt + "\n"
          + "  %zero = fcmp oeq " + vt + " %x, zeroinitializer\n"
          + "  %bad = fcmp ueq " + vt + " %ax, " + sp(t, fp(Double.POSITIVE_INFINITY)) + "\n"
          + "  %ninf = fdiv " + vt + " " + sp(t, fp(-1.0)) + ", %ax\n"
          + "  %sq = fmul " + vt + " %x, %x\n"
          + "  %r1 = select " + m + " %bad, " + vt + " %sq, " + vt + " %ef\n"
          + "  %r2 = select " + m + " %zero, " + vt + " %ninf, " + vt + " %r1\n"
          + "  ret " + vt + " %r2\n}\n";
    }

    String ldexp(boolean longArg) {
      String v32 = vec("i32");
      int emax = dbl ? 1023 : 127, emin = dbl ? -1022 : -126, p = dbl ? 53 : 24;
      int lowAdj = -emin - p; // 969 / 102
      double hi = dbl ? 0x1p1023 : 0x1p127;
      double lo = dbl ? 0x1p-969 : 0x1p-102;
      StringBuilder s = new StringBuilder();
      if (longArg) {
        s.append("define ").append(vt).append(" @\"").append(name).append("\"(").append(vt).append(" %x, ").append(l)
            .append(" %nl) #0 {\nentry:\n");
        s.append("  %nc0 = call ").append(l).append(" @llvm.smax.").append(vsuf("i64")).append("(").append(l).append(" %nl, ").append(l).append(" ")
            .append(sp("i64", "-1073741824")).append(")\n");
        s.append("  %nc1 = call ").append(l).append(" @llvm.smin.").append(vsuf("i64")).append("(").append(l).append(" %nc0, ").append(l).append(" ")
            .append(sp("i64", "1073741824")).append(")\n");
        s.append("  %n = trunc ").append(l).append(" %nc1 to ").append(v32).append("\n");
      } else {
        s.append(header(vt + " %x, " + v32 + " %n"));
      }
      String hiC = sp(t, fp(hi)), loC = sp(t, fp(lo));
      s.append("  %c1 = icmp sgt ").append(v32).append(" %n, ").append(sp("i32", Integer.toString(emax))).append("\n");
      s.append("  %m1 = fmul ").append(vt).append(" %x, ").append(hiC).append("\n");
      s.append("  %y1 = select ").append(m).append(" %c1, ").append(vt).append(" %m1, ").append(vt).append(" %x\n");
      s.append("  %s1 = sub ").append(v32).append(" %n, ").append(sp("i32", Integer.toString(emax))).append("\n");
      s.append("  %n1 = select ").append(m).append(" %c1, ").append(v32).append(" %s1, ").append(v32).append(" %n\n");
      s.append("  %c2 = icmp sgt ").append(v32).append(" %n1, ").append(sp("i32", Integer.toString(emax))).append("\n");
      s.append("  %m2 = fmul ").append(vt).append(" %y1, ").append(hiC).append("\n");
      s.append("  %y2 = select ").append(m).append(" %c2, ").append(vt).append(" %m2, ").append(vt).append(" %y1\n");
      s.append("  %s2 = sub ").append(v32).append(" %n1, ").append(sp("i32", Integer.toString(emax))).append("\n");
      s.append("  %n2a = select ").append(m).append(" %c2, ").append(v32).append(" %s2, ").append(v32).append(" %n1\n");
      s.append("  %n2 = call ").append(v32).append(" @llvm.smin.").append(vsuf("i32")).append("(").append(v32).append(" %n2a, ").append(v32).append(" ")
          .append(sp("i32", Integer.toString(emax))).append(")\n");
      s.append("  %d1 = icmp slt ").append(v32).append(" %n2, ").append(sp("i32", Integer.toString(emin))).append("\n");
      s.append("  %m3 = fmul ").append(vt).append(" %y2, ").append(loC).append("\n");
      s.append("  %y3 = select ").append(m).append(" %d1, ").append(vt).append(" %m3, ").append(vt).append(" %y2\n");
      s.append("  %a3 = add ").append(v32).append(" %n2, ").append(sp("i32", Integer.toString(lowAdj))).append("\n");
      s.append("  %n3 = select ").append(m).append(" %d1, ").append(v32).append(" %a3, ").append(v32).append(" %n2\n");
      s.append("  %d2 = icmp slt ").append(v32).append(" %n3, ").append(sp("i32", Integer.toString(emin))).append("\n");
      s.append("  %m4 = fmul ").append(vt).append(" %y3, ").append(loC).append("\n");
      s.append("  %y4 = select ").append(m).append(" %d2, ").append(vt).append(" %m4, ").append(vt).append(" %y3\n");
      s.append("  %a4 = add ").append(v32).append(" %n3, ").append(sp("i32", Integer.toString(lowAdj))).append("\n");
      s.append("  %n4a = select ").append(m).append(" %d2, ").append(v32).append(" %a4, ").append(v32).append(" %n3\n");
      s.append("  %n4 = call ").append(v32).append(" @llvm.smax.").append(vsuf("i32")).append("(").append(v32).append(" %n4a, ").append(v32).append(" ")
          .append(sp("i32", Integer.toString(emin))).append(")\n");
      s.append("  %eb = add ").append(v32).append(" %n4, ").append(sp("i32", Integer.toString(bias))).append("\n");
      if (dbl) s.append("  %ebw = zext ").append(v32).append(" %eb to ").append(vi).append("\n");
      else s.append("  %ebw = add ").append(v32).append(" %eb, zeroinitializer\n");
      s.append("  %pb = shl ").append(vi).append(" %ebw, ").append(sp(ti, Integer.toString(mant))).append("\n");
      s.append("  %p = bitcast ").append(vi).append(" %pb to ").append(vt).append("\n");
      s.append("  %r = fmul ").append(vt).append(" %y4, %p\n");
      s.append("  ret ").append(vt).append(" %r\n}\n");
      return s.toString();
    }
  }
}
