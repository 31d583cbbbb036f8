package org.packetizer.core.mapping;

import java.util.Locale;

/**
 * The run-time guard of a vector helper that reproduces a libm function bit for bit (issue 16): the
 * helper's vector fast path is only right when the libm the program is linked with computes the
 * function with the same algorithm (glibc 2.28 and later on x86-64 for expf and logf). Another libm
 * (musl, an older glibc, another OS, a correctly rounded one) may give other bits. So the helper
 * checks, once per process, a probe set of inputs chosen to discriminate algorithms: its own vector
 * fast path against the linked libm's scalar function. While the check has not run, it runs it; if
 * any probe differs, the helper calls the scalar function on every active lane from then on.
 *
 * <p>{@link #unaryHelper} writes the IR of a guarded unary helper {@code @"NAME"(<W x T> %x, <W x i1> %m)}
 * around a fast path {@code @"NAME.core"} that the caller writes. The helper is a real function,
 * defined once per module, width and target (internal, its name carries W and a hash of the target),
 * that every packet function of the module calls; its fast path has one copy, in the entry (issue 16,
 * code growth):
 * <ul>
 *   <li>the flag {@code @"NAME.ok"} (internal i8: 0 not checked, 1 verified, 2 differs; written once
 *       with a benign race, monotonic atomics) and the probe inputs;</li>
 *   <li>the entry: the flag test, the fast path, the test for lanes outside it; a call with no lane
 *       active takes the fast path whatever the flag (nothing observes its result);</li>
 *   <li>{@code i1 @"NAME.probe"()} runs the entry with no lane active on the probe inputs, W at a time,
 *       then calls the scalar function on each (calls marked {@code nobuiltin}, inputs read volatile:
 *       no compiler may fold them with its own libm), compares the bits, stores the flag; two loops
 *       ({@link #probeExpected}: one loop against constants, for helpers whose fast path the probe
 *       cannot reach through the entry);</li>
 *   <li>{@code @"NAME.lanes"}: the scalar function on the lanes of a mask (the active lanes outside
 *       the fast path, or every active lane when the guard failed), so errno and special values are
 *       the scalar function's own; it and {@code @"NAME.slow"} (the first call: the probe, then the
 *       entry again) are out-of-line and cold.</li>
 * </ul>
 * Test hook: the system property {@code packetizer.test.libmSymbol.<fn>} (e.g.
 * {@code packetizer.test.libmSymbol.expf=fake_expf}) names another scalar function for the probe and
 * the per-lane calls, so that tests can pretend the linked libm differs.
 */
public final class LibmGuard {
  private LibmGuard() {}

  /** Prefix of the test-hook system property. */
  public static final String HOOK_PREFIX = "packetizer.test.libmSymbol.";

  /**
   * Measurement knob {@code -Dpacketizer.mathHelpers=inlined}: the helpers' layout before issue 16's
   * code-growth round (the fast path copied into the entry, the first call and the probe; the probe
   * unrolled over the lanes), for side-by-side runs. The helpers' names carry the layout.
   */
  public static boolean inlinedLayout() { return "inlined".equals(System.getProperty("packetizer.mathHelpers")); }

  /**
   * Measurement knob {@code -Dpacketizer.helperGuard=masked}: the helpers' hot-path test before issue 16's
   * ninth round (the special lanes and-ed with the active-lane mask on the hot path; expf's test by shift,
   * and and compare, and its two FMA/plain variant inputs compared on every call), for side-by-side
   * runs. Default {@code lean}. The helpers' names carry it.
   */
  public static boolean leanGuard() { return !"masked".equals(System.getProperty("packetizer.helperGuard", "lean").strip()); }

  /** ERANGE on Linux, what glibc's over- and underflow paths store in errno. */
  static final int ERANGE = 34;

  /**
   * Knob {@code -Dpacketizer.helperRangeLanes=vector|libm} (read at each use; a measuring switch): whether the glibc-exact
   * helpers of expf, exp2f and powf finish the lanes whose result over- or underflows in the vector (the default,
   * {@code vector}, on Linux targets, where errno is {@code *__errno_location()}) or send them to the scalar function
   * as before (issue 16, twenty-third round). The helpers' names carry it.
   */
  public static boolean rangeLanesKnob() { return !"libm".equals(System.getProperty("packetizer.helperRangeLanes", "vector").strip()); }

  /**
   * Whether a helper for a module of target {@code triple} finishes its range lanes in the vector: the knob, the lean
   * guard (the range lanes sit on its cold edge), and a Linux target (glibc's and musl's errno is {@code *__errno_location()}).
   */
  public static boolean rangeLanes(String triple) { return rangeLanesKnob() && leanGuard() && triple != null && triple.contains("linux"); }

  /** The scalar function the helper checks against and calls per lane: {@code fn}, unless a test hook renames it. */
  public static String libmSymbol(String fn) {
    String s = System.getProperty(HOOK_PREFIX + fn);
    return s == null || s.isBlank() ? fn : s.strip();
  }

  /** The flag global and the probe inputs of helper {@code name} ({@code t} = float or double). */
  public static String globals(String name, String t, long[] probeBits) {
    return "@\"" + name + ".ok\" = internal global i8 0, align 1\n" + constants(name + ".probes", t, probeBits);
  }

  /** The constant array {@code @"NAME"} of {@code t} values with these bits (probe inputs). */
  static String constants(String name, String t, long[] bits) {
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append("\" = internal constant [").append(bits.length).append(" x ").append(t).append("] [");
    for (int i = 0; i < bits.length; i++) {
      if (i > 0) s.append(", ");
      double v = t.equals("float") ? Float.intBitsToFloat((int) bits[i]) : Double.longBitsToDouble(bits[i]);
      s.append(t).append(' ').append(fp(v));
    }
    s.append("], align 64\n");
    return s.toString();
  }

  /**
   * {@code i1 @"NAME.probe"()}: every probe input through the helper's fast path and through the scalar
   * {@code libm}; stores 1 in the flag when all agree bit for bit, else 2. Two loops that do not grow
   * with W (issue 16, code growth): the probes W at a time through the fast path ({@code fastCall}: IR
   * that defines {@code %y} from {@code %xv}, the W probes of one chunk) into a stack array, then the
   * scalar function on each probe and a comparison of the bits. Inputs are read with volatile loads and
   * the libm calls are {@code nobuiltin}, so that no compiler folds either side with its own libm.
   */
  public static String probe(String name, String libm, String t, int w, int probes, String fastCall) {
    if (inlinedLayout()) return probeUnrolled(name, libm, t, w, probes);
    return probeLoops(name, libm, t, w, probes, false, fastCall);
  }

  /**
   * {@link #probe}'s two loops for a unary helper (inputs {@code @"NAME.probes"}, {@code fastCall} defines
   * {@code %y} from {@code %xv}) or a binary one ({@link BinaryLibmGuard}: inputs {@code @"NAME.px"} and
   * {@code @"NAME.py"}, {@code fastCall} defines {@code %rv} from {@code %xv} and {@code %yv}).
   */
  static String probeLoops(String name, String libm, String t, int w, int probes, boolean binary, String fastCall) {
    if (probes % w != 0) throw new IllegalArgumentException(probes + " probes are not a multiple of W=" + w);
    String vt = "<" + w + " x " + t + ">";
    String it = t.equals("float") ? "i32" : "i64";
    String q = "@\"" + name;
    int size = t.equals("float") ? 4 : 8;
    StringBuilder s = new StringBuilder();
    s.append("define internal i1 ").append(q).append(".probe\"() #2 {\nentry:\n");
    s.append("  %res = alloca [").append(probes).append(" x ").append(t).append("], align 64\n  br label %chunk\n");
    s.append("chunk:\n  %c = phi i64 [ 0, %entry ], [ %cn, %chunk ]\n");
    if (binary) {
      s.append("  %ppx = getelementptr inbounds ").append(t).append(", ptr ").append(q).append(".px\", i64 %c\n");
      s.append("  %ppy = getelementptr inbounds ").append(t).append(", ptr ").append(q).append(".py\", i64 %c\n");
      s.append("  %xv = load volatile ").append(vt).append(", ptr %ppx, align ").append(size).append("\n");
      s.append("  %yv = load volatile ").append(vt).append(", ptr %ppy, align ").append(size).append("\n");
    } else {
      s.append("  %pp = getelementptr inbounds ").append(t).append(", ptr ").append(q).append(".probes\", i64 %c\n");
      s.append("  %xv = load volatile ").append(vt).append(", ptr %pp, align ").append(size).append("\n");
    }
    s.append(fastCall);
    s.append("  %rp = getelementptr inbounds ").append(t).append(", ptr %res, i64 %c\n");
    s.append("  store ").append(vt).append(binary ? " %rv" : " %y").append(", ptr %rp, align ").append(size).append("\n");
    s.append("  %cn = add i64 %c, ").append(w).append("\n");
    s.append("  %more = icmp ult i64 %cn, ").append(probes).append("\n  br i1 %more, label %chunk, label %cmp, !llvm.loop !10\n");
    s.append("cmp:\n  %i = phi i64 [ 0, %chunk ], [ %in, %cmp ]\n  %bad = phi i1 [ false, %chunk ], [ %badn, %cmp ]\n");
    s.append(scalarOnProbe(name, libm, t, binary));
    s.append("  %pe = getelementptr inbounds ").append(t).append(", ptr %res, i64 %i\n");
    s.append("  %e = load ").append(t).append(", ptr %pe, align ").append(size).append("\n");
    s.append("  %sb = bitcast ").append(t).append(" %s to ").append(it).append("\n");
    s.append("  %eb = bitcast ").append(t).append(" %e to ").append(it).append("\n");
    s.append("  %d = icmp ne ").append(it).append(" %sb, %eb\n  %badn = or i1 %bad, %d\n");
    s.append("  %in = add i64 %i, 1\n  %more2 = icmp ult i64 %in, ").append(probes).append("\n");
    s.append("  br i1 %more2, label %cmp, label %done, !llvm.loop !12\n");
    s.append(probeDone(name));
    return s.toString();
  }

  /**
   * The probe's scalar call on probe {@code %i}, defining {@code %s}: the input(s) read volatile from
   * {@code @"NAME.probes"} (binary: {@code @"NAME.px"} and {@code @"NAME.py"}), the call {@code nobuiltin} (#3).
   */
  private static String scalarOnProbe(String name, String libm, String t, boolean binary) {
    String q = "@\"" + name;
    int size = t.equals("float") ? 4 : 8;
    if (binary) {
      return "  %pxs = getelementptr inbounds " + t + ", ptr " + q + ".px\", i64 %i\n"
          + "  %pys = getelementptr inbounds " + t + ", ptr " + q + ".py\", i64 %i\n"
          + "  %xs = load volatile " + t + ", ptr %pxs, align " + size + "\n"
          + "  %ys = load volatile " + t + ", ptr %pys, align " + size + "\n"
          + "  %s = call " + t + " @\"" + libm + "\"(" + t + " %xs, " + t + " %ys) #3\n";
    }
    return "  %px = getelementptr inbounds " + t + ", ptr " + q + ".probes\", i64 %i\n"
        + "  %x = load volatile " + t + ", ptr %px, align " + size + "\n"
        + "  %s = call " + t + " @\"" + libm + "\"(" + t + " %x) #3\n";
  }

  /** The probe's last block: the flag stored from {@code %badn} (1 all agree, 2 one differs), whether all agree returned. */
  private static String probeDone(String name) {
    return "done:\n  %flag = select i1 %badn, i8 2, i8 1\n"
        + "  store atomic i8 %flag, ptr @\"" + name + ".ok\" monotonic, align 1\n"
        + "  %ok = xor i1 %badn, true\n  ret i1 %ok\n}\n";
  }

  /**
   * {@code i1 @"NAME.probe"()} against constants: the scalar {@code libm} on each probe input compared
   * with {@code expectedBits}, the bits the helper's fast path gives there (which are glibc's: the
   * helper reproduces glibc bit for bit); stores 1 in the flag when all agree, else 2. One loop, no
   * copy of the fast path (issue 16, code growth). Inputs read volatile, libm calls {@code nobuiltin}.
   */
  public static String probeExpected(String name, String libm, String t, long[] probeBits, long[] expectedBits) {
    if (probeBits.length != expectedBits.length) throw new IllegalArgumentException("one expected result per probe");
    String it = t.equals("float") ? "i32" : "i64";
    int n = probeBits.length;
    int size = t.equals("float") ? 4 : 8;
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append(".expect\" = internal constant [").append(n).append(" x ").append(it).append("] [");
    for (int i = 0; i < n; i++) s.append(i > 0 ? ", " : "").append(it).append(' ').append(t.equals("float") ? (int) expectedBits[i] : expectedBits[i]);
    s.append("], align 64\n");
    s.append("define internal i1 @\"").append(name).append(".probe\"() #2 {\nentry:\n  br label %cmp\n");
    s.append("cmp:\n  %i = phi i64 [ 0, %entry ], [ %in, %cmp ]\n  %bad = phi i1 [ false, %entry ], [ %badn, %cmp ]\n");
    s.append(scalarOnProbe(name, libm, t, false));
    s.append("  %pe = getelementptr inbounds ").append(it).append(", ptr @\"").append(name).append(".expect\", i64 %i\n");
    s.append("  %eb = load ").append(it).append(", ptr %pe, align ").append(size).append("\n");
    s.append("  %sb = bitcast ").append(t).append(" %s to ").append(it).append("\n");
    s.append("  %d = icmp ne ").append(it).append(" %sb, %eb\n  %badn = or i1 %bad, %d\n");
    s.append("  %in = add i64 %i, 1\n  %more = icmp ult i64 %in, ").append(n).append("\n");
    s.append("  br i1 %more, label %cmp, label %done, !llvm.loop !12\n");
    s.append(probeDone(name));
    return s.toString();
  }

  /**
   * The whole guarded unary helper around a fast path: {@code <W x T> @"NAME"(<W x T> %x, <W x i1> %m)},
   * the entry the packet function calls (the flag test, the fast path {@code @"NAME.core"} inlined, the
   * test for lanes outside it), and its out-of-line cold pieces, each defined once per module:
   * {@code @"NAME.slow"} (first call: the probe, then the entry again; after a failed probe: every
   * active lane per call), {@code @"NAME.lanes"} (the scalar function on the lanes of a mask) and
   * {@code @"NAME.probe"}, plus the flag, the probe inputs and declarations. The fast path has one
   * copy, in the entry (issue 16, code growth): the probe reaches it through the entry with no lane
   * active, which takes the fast path whatever the flag (no lane's result is used, and the fast path
   * calls nothing), and the first call re-enters the entry once the flag is set. The caller supplies
   * {@code @"NAME.core"} ({@code <W x T> (<W x T>)}, attribute group #1 free for it) and
   * {@code special}: instructions that define {@code %special} ({@code <W x i1>}, the lanes the fast
   * path does not cover) from {@code %x}, defining only names starting with {@code %sp.}.
   */
  public static String unaryHelper(String name, String libm, String t, int w, long[] probeBits, String special) {
    return unaryHelper(name, libm, t, w, probeBits, special, null);
  }

  /**
   * {@link #unaryHelper(String, String, String, int, long[], String)} with the cold pieces shared by the
   * module's helpers ({@link SharedCold}, stem {@code shared}; float only) instead of its own, when
   * {@code shared} is not null: the helper keeps its flag and probe inputs and adds the descriptor
   * {@code @"NAME.desc"}; its entry calls the shared {@code .slow} and {@code .lanes}.
   */
  static String unaryHelper(String name, String libm, String t, int w, long[] probeBits, String special, String shared) {
    return unaryHelper(name, libm, t, w, probeBits, special, shared, null);
  }

  /**
   * {@link #unaryHelper(String, String, String, int, long[], String, String)} with the range lanes finished in
   * the vector when {@code range} is not null: instructions for the cold edge, after {@code %sm} (the special active
   * lanes), that define {@code %t.ok} ({@code <W x i1>}, lanes the vector finishes: a special lane in it is one whose
   * scalar result is the fast block's result or the value {@code %t.y} gives it, its errno effect at most ERANGE),
   * {@code %t.err} (lanes whose scalar call stores ERANGE in errno) and {@code %t.y} (the result with those lanes'
   * values), naming only values starting with {@code %t.}. When every special active lane is in {@code %t.ok} the
   * helper returns {@code %t.y} and stores ERANGE once if one of them is in {@code %t.err}; else every special active
   * lane calls the scalar function, as without {@code range}.
   */
  static String unaryHelper(String name, String libm, String t, int w, long[] probeBits, String special, String shared, String range) {
    probeBits = padded(probeBits, w);
    if (inlinedLayout()) return unaryHelperInlined(name, libm, t, w, probeBits, special);
    if (shared != null && !t.equals("float")) throw new IllegalArgumentException("shared cold pieces are float only");
    String vt = "<" + w + " x " + t + ">";
    String m = "<" + w + " x i1>";
    String q = "@\"" + name;
    StringBuilder s = new StringBuilder();
    s.append(globals(name, t, probeBits));
    if (shared == null) {
      s.append(probe(name, libm, t, w, probeBits.length,
          "  %y = call " + vt + " " + q + "\"(" + vt + " %xv, " + m + " zeroinitializer)\n"));
      s.append(lanes(name, libm, t, w));
    } else {
      s.append(SharedCold.descriptor(name, libm, name + ".probes", null, probeBits.length, w));
      s.append(SharedCold.declarations(shared, w));
    }
    appendEntry(s, name, t, w, false, "fast:\n  %y = call " + vt + " " + q + ".core\"(" + vt + " %x)\n" + special, "%y", shared, range);
    if (shared == null) s.append(ownSlow(name, t, w, false));
    s.append(declarations(libm, t, w)).append(WEIGHTS);
    return s.toString();
  }

  /** The branch weights {@code !0} (cold edge) and {@code !1} (the flag verified) of a helper's entry. */
  static final String WEIGHTS = "!0 = !{!\"branch_weights\", i32 1, i32 1000}\n!1 = !{!\"branch_weights\", i32 1000, i32 1}\n";

  /** A helper entry's parameter list, {@code <W x T> %x[, <W x T> %y], <W x i1> MASK}. */
  private static String params(String vt, String m, boolean binary, String mask) {
    return vt + " %x, " + (binary ? vt + " %y, " : "") + m + " " + mask;
  }

  /**
   * The entry of a guarded helper, unary ({@link #unaryHelper}) or binary ({@link BinaryLibmGuard}):
   * {@code define <W x T> @"NAME"(<W x T> %x[, <W x T> %y], <W x i1> %m) #0}, the flag test (verified: the
   * fast path; a call with no lane active takes it too, whatever the flag, else the cold block), then
   * {@link #appendEntryTail} with the fast block {@code fast} that defines {@code result} and {@code %special}.
   */
  static void appendEntry(StringBuilder s, String name, String t, int w, boolean binary, String fast, String result, String shared) {
    appendEntry(s, name, t, w, binary, fast, result, shared, null);
  }

  /** {@link #appendEntry(StringBuilder, String, String, int, boolean, String, String, String)} with the range lanes ({@code range}, or null: {@link #unaryHelper(String, String, String, int, long[], String, String, String)}). */
  static void appendEntry(StringBuilder s, String name, String t, int w, boolean binary, String fast, String result, String shared, String range) {
    String vt = "<" + w + " x " + t + ">";
    String m = "<" + w + " x i1>";
    String iw = "i" + w;
    String q = "@\"" + name;
    s.append("define ").append(vt).append(" ").append(q).append("\"(").append(params(vt, m, binary, "%m")).append(") #0 {\nentry:\n");
    s.append("  %guard = load atomic i8, ptr ").append(q).append(".ok\" monotonic, align 1\n");
    s.append("  %verified = icmp eq i8 %guard, 1\n  br i1 %verified, label %fast, label %check, !prof !1\n");
    s.append("check:\n  %mi = bitcast ").append(m).append(" %m to ").append(iw).append("\n  %none = icmp eq ").append(iw).append(" %mi, 0\n");
    s.append("  br i1 %none, label %fast, label %cold\n");
    appendEntryTail(s, name, t, w, binary, fast, result, shared, range);
  }

  /**
   * The head of a guarded helper's own {@code .slow} (the first call, and the calls after a failed probe) up
   * to the branch on the flag: {@code define internal <W x T> @"NAME.slow"(PARAMS) #2}, the probe while the
   * flag is unknown, then to {@code next} when the fast path is verified, else to {@code %perlane}. The
   * caller writes both blocks (the unary and binary helpers by {@link #ownSlow}, the inlined layout and
   * {@link ExactTrig} their own).
   */
  static String slowHead(String name, String vt, String params, String next) {
    String q = "@\"" + name;
    return "define internal " + vt + " " + q + ".slow\"(" + params + ") #2 {\nentry:\n"
        + "  %guard = load atomic i8, ptr " + q + ".ok\" monotonic, align 1\n"
        + "  %unknown = icmp eq i8 %guard, 0\n  br i1 %unknown, label %probe, label %known\n"
        + "probe:\n  %probed = call i1 " + q + ".probe\"()\n  br label %known\n"
        + "known:\n  %ok = phi i1 [ %probed, %probe ], [ false, %entry ]\n"
        + "  %ok1 = icmp eq i8 %guard, 1\n  %verified = or i1 %ok, %ok1\n  br i1 %verified, label " + next + ", label %perlane\n";
  }

  /**
   * A unary or binary helper's own {@code .slow}, with its entry's parameters: {@link #slowHead}, then the
   * entry again (the flag is verified now) or every active lane by {@code .lanes} (the probe failed).
   */
  static String ownSlow(String name, String t, int w, boolean binary) {
    String vt = "<" + w + " x " + t + ">";
    String q = "@\"" + name;
    String args = params(vt, "<" + w + " x i1>", binary, "%m");
    String again = binary ? "%ra" : "%y", perlane = binary ? "%rl" : "%ya";
    return slowHead(name, vt, args, "%again")
        + "again:\n  " + again + " = tail call " + vt + " " + q + "\"(" + args + ")\n  ret " + vt + " " + again + "\n"
        + "perlane:\n  " + perlane + " = call " + vt + " " + q + ".lanes\"(" + args + ", " + vt + " poison)\n  ret " + vt + " " + perlane + "\n}\n";
  }

  /**
   * The layout before issue 16's code-growth round ({@code -Dpacketizer.mathHelpers=inlined}, a measurement
   * knob): {@code i1 @"NAME.probe"()}: every probe input through {@code <W x T> @"NAME.core"(<W x T>)} and
   * through the scalar {@code libm}; stores 1 in the flag when all agree bit for bit, else 2.
   */
  static String probeUnrolled(String name, String libm, String t, int w, int probes) {
    if (probes % w != 0) throw new IllegalArgumentException(probes + " probes are not a multiple of W=" + w);
    String vt = "<" + w + " x " + t + ">";
    String it = t.equals("float") ? "i32" : "i64";
    StringBuilder s = new StringBuilder();
    s.append("define internal i1 @\"").append(name).append(".probe\"() #2 {\nentry:\n  br label %chunk\n");
    s.append("chunk:\n  %c = phi i32 [ 0, %entry ], [ %cn, %next ]\n  %bad = phi i1 [ false, %entry ], [ %badn, %next ]\n");
    s.append("  %base = mul i32 %c, ").append(w).append("\n");
    s.append("  %v0 = insertelement ").append(vt).append(" poison, ").append(t).append(" 0.0, i32 0\n");
    StringBuilder cmp = new StringBuilder();
    String prevVec = "%v0";
    for (int k = 0; k < w; k++) {
      s.append("  %i").append(k).append(" = add i32 %base, ").append(k).append("\n");
      s.append("  %p").append(k).append(" = getelementptr inbounds [").append(probes).append(" x ").append(t).append("], ptr @\"").append(name)
          .append(".probes\", i32 0, i32 %i").append(k).append("\n");
      s.append("  %x").append(k).append(" = load volatile ").append(t).append(", ptr %p").append(k).append("\n");
      s.append("  %v").append(k + 1).append(" = insertelement ").append(vt).append(" ").append(prevVec).append(", ").append(t).append(" %x").append(k)
          .append(", i32 ").append(k).append("\n");
      prevVec = "%v" + (k + 1);
      cmp.append("  %s").append(k).append(" = call ").append(t).append(" @\"").append(libm).append("\"(").append(t).append(" %x").append(k)
          .append(") #3\n");
      cmp.append("  %e").append(k).append(" = extractelement ").append(vt).append(" %y, i32 ").append(k).append("\n");
      cmp.append("  %sb").append(k).append(" = bitcast ").append(t).append(" %s").append(k).append(" to ").append(it).append("\n");
      cmp.append("  %eb").append(k).append(" = bitcast ").append(t).append(" %e").append(k).append(" to ").append(it).append("\n");
      cmp.append("  %d").append(k).append(" = icmp ne ").append(it).append(" %sb").append(k).append(", %eb").append(k).append("\n");
      cmp.append("  %b").append(k + 1).append(" = or i1 ").append(k == 0 ? "%bad" : "%b" + k).append(", %d").append(k).append("\n");
    }
    s.append("  %y = call ").append(vt).append(" @\"").append(name).append(".core\"(").append(vt).append(" ").append(prevVec).append(")\n");
    s.append(cmp);
    s.append("  %badn = or i1 %b").append(w).append(", false\n");
    s.append("  %cn = add i32 %c, 1\n  br label %next\nnext:\n");
    s.append("  %more = icmp ult i32 %cn, ").append(probes / w).append("\n  br i1 %more, label %chunk, label %done\n");
    s.append(probeDone(name));
    return s.toString();
  }

  /**
   * The layout before issue 16's code-growth round ({@code -Dpacketizer.mathHelpers=inlined}): the whole guarded unary helper around a fast path: {@code <W x T> @"NAME"(<W x T> %x, <W x i1> %m)}
   * (small, inlined into the packet function: the flag test, {@code @"NAME.core"}, the test for lanes
   * outside the fast path) and its out-of-line cold pieces {@code @"NAME.slow"} (first call: the probe;
   * after a failed probe: every active lane per call), {@code @"NAME.lanes"} (the scalar function on
   * the lanes of a mask) and {@code @"NAME.probe"}, plus the flag, the probe inputs and declarations.
   * The caller supplies {@code @"NAME.core"} ({@code <W x T> (<W x T>)}, attribute group #1 free for
   * it) and {@code special}: instructions that define {@code %special} ({@code <W x i1>}, the lanes
   * the fast path does not cover) from {@code %x}, defining only names starting with {@code %sp.}.
   */
  /**
   * The probe inputs filled up to a multiple of W with the last one (the probe runs them W at a time):
   * 16 probes and a 32-wide helper (-w 32, or W16 interleaved twice) made an internal error before.
   */
  static long[] padded(long[] probes, int w) {
    int k = (probes.length + w - 1) / w * w;
    if (k == probes.length) return probes;
    long[] p = java.util.Arrays.copyOf(probes, k);
    for (int j = probes.length; j < k; j++) p[j] = probes[probes.length - 1];
    return p;
  }

  static String unaryHelperInlined(String name, String libm, String t, int w, long[] probeBits, String special) {
    probeBits = padded(probeBits, w);
    String vt = "<" + w + " x " + t + ">";
    String m = "<" + w + " x i1>";
    String q = "@\"" + name;
    StringBuilder s = new StringBuilder();
    s.append(globals(name, t, probeBits));
    s.append(probeUnrolled(name, libm, t, w, probeBits.length));
    s.append(lanes(name, libm, t, w));
    // the inlined part
    s.append("define ").append(vt).append(" ").append(q).append("\"(").append(vt).append(" %x, ").append(m).append(" %m) #0 {\nentry:\n");
    s.append("  %guard = load atomic i8, ptr ").append(q).append(".ok\" monotonic, align 1\n");
    s.append("  %verified = icmp eq i8 %guard, 1\n  br i1 %verified, label %fast, label %cold\n");
    appendEntryTail(s, name, t, w, false, "fast:\n  %y = call " + vt + " " + q + ".core\"(" + vt + " %x)\n" + special, "%y", null, null);
    // the first call (probe) and the calls after a failed probe
    s.append(slowHead(name, vt, vt + " %x, " + m + " %m", "%fast"));
    s.append("fast:\n  %y = call ").append(vt).append(" ").append(q).append(".core\"(").append(vt).append(" %x)\n");
    s.append(special);
    s.append("  %sm = and ").append(m).append(" %special, %m\n");
    s.append("  %ye = call ").append(vt).append(" ").append(q).append(".lanes\"(").append(vt).append(" %x, ").append(m).append(" %sm, ")
        .append(vt).append(" %y)\n  ret ").append(vt).append(" %ye\n");
    s.append("perlane:\n  %ya = call ").append(vt).append(" ").append(q).append(".lanes\"(").append(vt).append(" %x, ").append(m).append(" %m, ")
        .append(vt).append(" poison)\n  ret ").append(vt).append(" %ya\n}\n");
    s.append(declarations(libm, t, w));
    s.append("!0 = !{!\"branch_weights\", i32 1, i32 1000}\n");
    return s.toString();
  }

  /**
   * {@code <W x T> @"NAME.lanes"(<W x T> %x, <W x i1> %mask, <W x T> %acc)}: the scalar {@code libm}
   * on each lane of {@code x} whose bit is set in {@code mask}, in lane order, its result inserted
   * into {@code acc}; the other lanes of {@code acc} unchanged.
   */
  static String lanes(String name, String libm, String t, int w) {
    return lanesLoop("internal ", "@\"" + name + ".lanes\"", t, w, false, "@\"" + libm + "\"", "#2");
  }

  /**
   * The per-lane loop of every guarded helper's cold path, one emitter for the unary helper's own
   * {@code .lanes} ({@link #lanes}), the binary helper's own ({@link BinaryLibmGuard}) and the module's
   * shared one ({@link SharedCold}): {@code <W x T> SYMBOL(<W x T> %x[, <W x T> %y], <W x i1> %mask,
   * <W x T> %acc[, ptr %d]) ATTRS}, the scalar function on each lane whose bit is set in {@code mask}
   * (on {@code x[k]}, and {@code y[k]} when {@code binary}), in lane order, its result inserted into
   * {@code acc}; the other lanes of {@code acc} unchanged. An empty mask returns {@code acc} without a call.
   *
   * @param linkage {@code "internal "} or {@code ""} (the shared piece is linked in, then made internal)
   * @param symbol the function's name as IR writes it ({@code @"NAME.lanes"})
   * @param callee the scalar function as IR writes it ({@code @"expf"}); null: the last parameter is a
   *     descriptor {@code ptr %d} ({@link SharedCold}) whose field at offset 8 is the scalar function,
   *     loaded once in a block {@code head} between the mask test and the loop, and called through
   * @param attrs the function's attribute group ({@code #2} in a helper's text, {@code #0} in the shared pieces')
   */
  static String lanesLoop(String linkage, String symbol, String t, int w, boolean binary, String callee, String attrs) {
    String vt = "<" + w + " x " + t + ">";
    String m = "<" + w + " x i1>";
    String iw = "i" + w;
    boolean desc = callee == null;
    String pred = desc ? "%head" : "%entry";
    String idx = w < 32 ? "  %k32 = zext " + iw + " %k to i32\n" : w == 32 ? "  %k32 = add i32 %k, 0\n" : "  %k32 = trunc " + iw + " %k to i32\n";
    StringBuilder s = new StringBuilder();
    s.append("define ").append(linkage).append(vt).append(" ").append(symbol).append("(").append(vt).append(" %x, ");
    if (binary) s.append(vt).append(" %y, ");
    s.append(m).append(" %mask, ").append(vt).append(" %acc").append(desc ? ", ptr %d" : "").append(") ").append(attrs).append(" {\nentry:\n");
    s.append("  %mi = bitcast ").append(m).append(" %mask to ").append(iw).append("\n  %any = icmp ne ").append(iw).append(" %mi, 0\n");
    s.append("  br i1 %any, label ").append(desc ? "%head" : "%loop").append(", label %done\n");
    if (desc) s.append("head:\n  %fnp = getelementptr inbounds i8, ptr %d, i64 8\n  %fn = load ptr, ptr %fnp, align 8\n  br label %loop\n");
    s.append("loop:\n  %bits = phi ").append(iw).append(" [ %mi, ").append(pred).append(" ], [ %rest, %loop ]\n");
    s.append("  %a = phi ").append(vt).append(" [ %acc, ").append(pred).append(" ], [ %na, %loop ]\n");
    s.append("  %k = call ").append(iw).append(" @llvm.cttz.").append(iw).append("(").append(iw).append(" %bits, i1 true)\n").append(idx);
    s.append("  %xi = extractelement ").append(vt).append(" %x, i32 %k32\n");
    if (binary) s.append("  %yi = extractelement ").append(vt).append(" %y, i32 %k32\n");
    s.append("  %ri = call ").append(t).append(" ").append(desc ? "%fn" : callee).append("(").append(t).append(" %xi")
        .append(binary ? ", " + t + " %yi" : "").append(")\n");
    s.append("  %na = insertelement ").append(vt).append(" %a, ").append(t).append(" %ri, i32 %k32\n");
    s.append("  %m1 = sub ").append(iw).append(" %bits, 1\n  %rest = and ").append(iw).append(" %bits, %m1\n");
    s.append("  %more = icmp ne ").append(iw).append(" %rest, 0\n  br i1 %more, label %loop, label %done\n");
    s.append("done:\n  %r = phi ").append(vt).append(" [ %acc, %entry ], [ %na, %loop ]\n  ret ").append(vt).append(" %r\n}\n");
    return s.toString();
  }

  /** Declarations, attribute groups (#2 the probe, #3 its libm calls) and loop metadata (!10-!12) the pieces use. */
  public static String declarations(String libm, String t, int w) { return declarations(libm, t, w, false); }

  /** {@link #declarations(String, String, int)} for a unary or a binary ({@code T libm(T, T)}) scalar function. */
  static String declarations(String libm, String t, int w, boolean binary) {
    return "declare " + t + " @\"" + libm + "\"(" + t + (binary ? ", " + t : "") + ")\n"
        + "declare i" + w + " @llvm.cttz.i" + w + "(i" + w + ", i1)\n"
        + "attributes #2 = { noinline cold nounwind }\n"
        + "attributes #3 = { nobuiltin }\n"
        // the probe's two loops stay loops (no unrolling: they run once per process)
        + "!10 = distinct !{!10, !11}\n!11 = !{!\"llvm.loop.unroll.disable\"}\n!12 = distinct !{!12, !11}\n";
  }

  /** A floating-point constant as LLVM writes it (hexadecimal double bits, also for float). */
  static String fp(double v) { return String.format(Locale.ROOT, "0x%016X", Double.doubleToRawLongBits(v)); }

  /**
   * The entry's blocks after the guard test, the same for every helper, unary or binary: the fast block
   * {@code fast} (defining {@code result} and {@code %special}, the lanes outside the fast path), the
   * per-lane calls for its special lanes (own or shared {@code .lanes}), the first call's or failed probe's
   * cold path (own or shared {@code .slow}), and the join.
   */
  private static void appendEntryTail(StringBuilder s, String name, String t, int w, boolean binary, String fast, String result, String shared,
      String range) {
    String vt = "<" + w + " x " + t + ">";
    String m = "<" + w + " x i1>";
    String iw = "i" + w;
    String q = "@\"" + name;
    // the call of the per-lane piece for the special lanes %sm, defining %ye
    String lanesCall = shared != null ? SharedCold.lanesCall("%ye", shared, name, w, "%x", "%sm", result, binary ? "%y" : "poison")
        : "  %ye = call " + vt + " " + q + ".lanes\"(" + params(vt, m, binary, "%sm") + ", " + vt + " " + result + ")\n";
    s.append(fast);
    if (!leanGuard()) {
      s.append("  %sm = and ").append(m).append(" %special, %m\n");
      s.append("  %smi = bitcast ").append(m).append(" %sm to ").append(iw).append("\n  %any = icmp ne ").append(iw).append(" %smi, 0\n");
      s.append("  br i1 %any, label %edge, label %done, !prof !0\n");
      s.append("edge:\n").append(lanesCall).append("  br label %done\n");
    } else {
      // the hot test is on the special lanes alone (one vmovmskps and a test on AVX); the active-lane
      // mask is applied only on the cold edge (.lanes calls nothing for an empty mask): an inactive
      // lane outside the fast path costs one call that does nothing, and the hot path skips the
      // conversion of the <W x i1> argument (an xmm of i16 at W8) and its and
      s.append("  %spi = bitcast ").append(m).append(" %special to ").append(iw).append("\n  %any = icmp ne ").append(iw).append(" %spi, 0\n");
      s.append("  br i1 %any, label %edge, label %done, !prof !0\n");
      s.append("edge:\n  %sm = and ").append(m).append(" %special, %m\n");
      if (range == null) {
        s.append(lanesCall).append("  br label %done\n");
      } else {
        // the range lanes (over- and underflow, rounded by glibc to a constant or computed by its fast
        // code) finished here when they are the only special active lanes: no call, errno set to ERANGE
        // once when one of them is an over- or underflow, as the scalar calls leave it (they set nothing
        // else, and a successful call does not touch errno). Any other special active lane (NaN, an
        // infinity, x <= 0 for powf...) sends all of them to the scalar function, in lane order, as before.
        s.append(range);
        s.append("  %t.notok = xor ").append(m).append(" %t.ok, ").append("splat (i1 true)\n");
        s.append("  %t.wild = and ").append(m).append(" %sm, %t.notok\n");
        s.append("  %t.wi = bitcast ").append(m).append(" %t.wild to ").append(iw).append("\n  %t.anyw = icmp ne ").append(iw).append(" %t.wi, 0\n");
        s.append("  br i1 %t.anyw, label %lanes, label %range\n");
        s.append("lanes:\n").append(lanesCall).append("  br label %done\n");
        s.append("range:\n  %t.e = and ").append(m).append(" %sm, %t.err\n");
        s.append("  %t.ei = bitcast ").append(m).append(" %t.e to ").append(iw).append("\n  %t.anye = icmp ne ").append(iw).append(" %t.ei, 0\n");
        s.append("  br i1 %t.anye, label %erange, label %done\n");
        s.append("erange:\n  %t.ep = call ptr @__errno_location()\n  store i32 ").append(ERANGE).append(", ptr %t.ep, align 4\n  br label %done\n");
      }
    }
    if (shared == null) {
      s.append("cold:\n  %yc = call ").append(vt).append(" ").append(q).append(".slow\"(").append(params(vt, m, binary, "%m")).append(")\n  br label %done\n");
    } else {
      s.append(SharedCold.coldBlocks(shared, name, w, binary ? "%y" : "poison"));
    }
    String fromLanes = range == null || !leanGuard() ? "[ %ye, %edge ], " : "[ %ye, %lanes ], [ %t.y, %range ], [ %t.y, %erange ], ";
    s.append("done:\n  %r = phi ").append(vt).append(" [ ").append(result).append(", %fast ], ").append(fromLanes)
        .append(shared == null ? "[ %yc, %cold ]" : SharedCold.coldIncoming()).append("\n  ret ").append(vt).append(" %r\n}\n");
    if (range != null && leanGuard()) s.append("declare ptr @__errno_location()\n");
  }
}
