package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Value;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * The cold pieces of the guarded glibc-exact helpers ({@link LibmGuard}, {@link BinaryLibmGuard}),
 * shared by the helpers one packetization adds at one width and target (issue 16, code growth, fifteenth
 * round). Before, each helper carried its own {@code .lanes} (the scalar function on the lanes of a
 * mask), {@code .probe} (the once-per-process comparison with the linked libm) and {@code .slow} (the
 * first call); they differ between helpers only in the functions and globals they name. Here they are
 * three functions per module, width and target, {@code @"__packetizer_cold_v<W>_<hash>.lanes"},
 * {@code .verify} and {@code .slow}, that read what differs from a per-helper descriptor
 * {@code @"NAME.desc"} = {@code { ptr entry, ptr scalar, ptr flag, ptr probe xs, ptr probe ys, i64 n }}
 * and call the entry and the scalar function through its pointers. Both have the binary shape
 * ({@code <W x float>(<W x float> x, <W x float> y, <W x i1> m)} and {@code float(float, float)}): a unary
 * helper's descriptor names its thunks {@code NAME.v2} (the entry on x and m) and {@code NAME.s2} (libm(x)),
 * and its probe inputs serve as ys too.
 * <ul>
 *   <li>{@code <W x float> .lanes(x, y, <W x i1> mask, <W x float> acc, ptr desc)}: per set lane of the mask,
 *       scalar(x[k], y[k]) into acc (the arguments in the binary entry's order: its hot path keeps x and y
 *       where they came);</li>
 *   <li>{@code i1 .verify(ptr desc)}: while the flag is unknown, the probes W at a time through the entry with
 *       no lane active, then the scalar function on each (inputs read volatile, calls {@code nobuiltin}), the
 *       bits compared, the flag stored (1 verified, 2 differs); returns whether the flag is 1;</li>
 *   <li>{@code <W x float> .slow(x, y, m, ptr desc)}: the entry's cold path, one call with its arguments as
 *       they came: verify, then the entry again or every active lane by {@code .lanes}.</li>
 * </ul>
 * Shared pieces cost more than one helper's own, so {@link #settle} gives a helper that is alone on its
 * pieces after a packetization its own layout back. Knob {@code -Dpacketizer.mathHelpers.sharedCold=false}:
 * one set of pieces per helper always, as before the fifteenth round.
 */
public final class SharedCold {
  private SharedCold() {}

  /** Name prefix of the shared pieces. */
  public static final String PREFIX = "__packetizer_cold_v";

  /** The most probe inputs a helper may have (the probe's result buffer is this long). */
  static final int MAX_PROBES = 256;

  /** The descriptor's type. */
  static final String DESC_TYPE = "{ ptr, ptr, ptr, ptr, ptr, i64 }";

  /** Set while {@link #settle} rewrites a helper in its own layout. */
  private static final ThreadLocal<Boolean> OWN = ThreadLocal.withInitial(() -> false);

  /** The knob: shared pieces (default) or one set per helper. */
  public static boolean enabled() {
    if (OWN.get()) return false;
    String v = System.getProperty("packetizer.mathHelpers.sharedCold", "true").strip();
    return switch (v) {
      case "", "true" -> !LibmGuard.inlinedLayout();
      case "false" -> false;
      default -> throw new IllegalArgumentException("-Dpacketizer.mathHelpers.sharedCold=" + v + ": expected true or false");
    };
  }

  /** The shared pieces' name stem for width {@code w} and this target. */
  static String stem(int w, String cpu, String features) {
    return PREFIX + w + "_" + Integer.toHexString((cpu + "|" + features).hashCode());
  }

  /**
   * The shared pieces for {@code packet}'s target at width {@code w}, linked into {@code m} if absent
   * (internal, compiled for the packet function's target); returns their name stem.
   */
  static String ensure(LlvmModule m, Function packet, int w) {
    String features = packet.stringAttribute("target-features").orElse("");
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String stem = stem(w, cpu, features);
    Optional<Function> have = m.function(stem + ".verify");
    if (have.isPresent() && !have.get().isDeclaration()) return stem;
    try (LlvmModule src = m.context().parseIr(text(stem, w), stem + ".ll")) {
      src.setTargetTriple(m.targetTriple());
      src.setDataLayout(m.dataLayoutString());
      m.link(src);
    }
    String legal = Long.toString(w * 64L);
    Optional<Long> uwtable = packet.enumAttributeValue("uwtable");
    for (String piece : new String[] {".lanes", ".verify", ".slow"}) {
      Function g = m.function(stem + piece).orElseThrow(() -> new IllegalStateException("linked " + stem + piece + " is missing"));
      g.setInternalLinkage();
      if (!cpu.isEmpty()) g.setStringAttribute("target-cpu", cpu);
      if (!features.isEmpty()) g.setStringAttribute("target-features", features);
      g.setStringAttribute("min-legal-vector-width", legal);
      if (uwtable.isPresent()) g.setEnumAttributeValue("uwtable", uwtable.get());
    }
    return stem;
  }

  /**
   * Runs {@code link} with the module's shared pieces visible to the linker (external), so that a
   * helper text declaring them links against them; internal again afterwards.
   */
  static void linkingAgainst(LlvmModule m, Runnable link) {
    java.util.List<Function> opened = new java.util.ArrayList<>();
    for (Function g : m.functions()) {
      if (g.name().startsWith(PREFIX) && !g.isDeclaration() && g.linkage() != 0) {
        g.setExternalLinkage();
        opened.add(g);
      }
    }
    try {
      link.run();
    } finally {
      for (Function g : opened) g.setInternalLinkage();
    }
  }

  /**
   * After a packetization (the outermost {@code Pipeline.run}, when no packet function is being built):
   * shared pieces that only one helper of the module calls cost more than that helper's own pieces (the
   * descriptor reads, the binary shape; measured +25 machine instructions at W4, e.g. binomial's one expf
   * helper at W4, volume's at W16), so such a helper is rewritten in its own layout, as with the knob off,
   * and the shared pieces, its descriptor and thunks are removed. A later packetization that adds a second
   * helper at that width and target makes that one in the shared layout (alone, and rewritten again) and
   * leaves the first as it is: sharing happens among the helpers one packetization adds.
   */
  public static void settle(LlvmModule m) {
    List<Function> stems = new ArrayList<>();
    for (Function f : m.functions()) {
      if (f.name().startsWith(PREFIX) && f.name().endsWith(".slow") && !f.isDeclaration()) stems.add(f);
    }
    for (Function slow : stems) {
      java.util.Set<String> callers = new java.util.LinkedHashSet<>();
      for (Value u : slow.users()) u.block().ifPresent(b -> callers.add(b.parent().name()));
      callers.remove(slow.name());
      String stem = slow.name().substring(0, slow.name().length() - ".slow".length());
      if (callers.size() > 1) continue;
      for (String h : callers) ownLayout(m, m.function(h).orElseThrow());
      for (String piece : new String[] {".slow", ".verify", ".lanes"}) {
        m.function(stem + piece).ifPresent(g -> {
          if (!g.hasUses()) g.delete();
        });
      }
    }
  }

  /** Helper {@code hs} (shared layout) rewritten in its own layout: its users call the new one; it and its globals are removed. */
  private static void ownLayout(LlvmModule m, Function hs) {
    String name = hs.name();
    String rest = name.substring("__packetizer_glibc_".length());
    String fn = rest.substring(0, rest.indexOf("_v"));
    String ws = rest.substring(rest.indexOf("_v") + 2);
    int w = Integer.parseInt(ws.substring(0, ws.indexOf('_')));
    Function own;
    OWN.set(true);
    try {
      // the helper's target attributes are the packet function's (ExactMath.linkHelper), so the same helper results
      own = fn.equals("expf") || fn.equals("logf") ? GlibcMath.helper(m, hs, fn, w) : GlibcPow.helper(m, hs, fn, w);
    } finally {
      OWN.set(false);
    }
    hs.replaceAllUsesWith(own);
    hs.delete();
    m.global(name + ".desc").ifPresent(Value::deleteGlobal);
    // the descriptor's initializer outlives it as a dead constant that still uses the thunks and the
    // globals: those uses are replaced by null first (LLVM rebuilds the constant without them)
    try (IrBuilder b = new IrBuilder(m.context())) {
      for (String thunk : new String[] {".v2", ".s2"}) m.function(name + thunk).ifPresent(g -> {
        if (onlyConstantUsers(g)) {
          g.replaceAllUsesWith(b.constNull(g.type()));
          g.delete();
        }
      });
      for (Value g : m.globals()) {
        if (g.name().startsWith(name + ".") && onlyConstantUsers(g)) {
          g.replaceAllUsesWith(b.constNull(g.type()));
          g.deleteGlobal();
        }
      }
    }
  }

  /** No instruction uses {@code v} (at most dead constants). */
  private static boolean onlyConstantUsers(Value v) {
    for (Value u : v.users()) if (u.isInstruction() || u.isGlobalValue()) return false;
    return true;
  }

  /**
   * The descriptor global of helper {@code name} and, for a unary helper ({@code ys} null), its two
   * binary-shaped thunks: {@code float @"NAME.s2"(float x, float y)} (libm(x), a tail call) and
   * {@code <W x float> @"NAME.v2"(<W x float> x, <W x float> y, <W x i1> m)} (the entry on x and m), so
   * that the shared pieces call every helper alike; a unary helper's probe reads its inputs as y too.
   */
  static String descriptor(String name, String libm, String xs, String ys, int n, int w) {
    if (n > MAX_PROBES) throw new IllegalArgumentException(n + " probes: the shared probe takes at most " + MAX_PROBES);
    String vt = "<" + w + " x float>", m = "<" + w + " x i1>";
    boolean unary = ys == null;
    String vec = unary ? name + ".v2" : name, scalar = unary ? name + ".s2" : libm;
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append(".desc\" = internal constant ").append(DESC_TYPE).append(" { ptr @\"").append(vec).append("\", ptr @\"")
        .append(scalar).append("\", ptr @\"").append(name).append(".ok\", ptr @\"").append(xs).append("\", ptr @\"").append(unary ? xs : ys)
        .append("\", i64 ").append(n).append(" }\n");
    if (unary) {
      s.append("define internal float @\"").append(name).append(".s2\"(float %x, float %y) #2 {\nentry:\n  %r = tail call float @\"").append(libm)
          .append("\"(float %x) #3\n  ret float %r\n}\n");
      s.append("define internal ").append(vt).append(" @\"").append(name).append(".v2\"(").append(vt).append(" %x, ").append(vt).append(" %y, ").append(m)
          .append(" %m) #2 {\nentry:\n  %r = tail call ").append(vt).append(" @\"").append(name).append("\"(").append(vt).append(" %x, ").append(m)
          .append(" %m)\n  ret ").append(vt).append(" %r\n}\n");
    }
    return s.toString();
  }

  /** Declarations of the shared pieces, for a helper's text. */
  static String declarations(String stem, int w) {
    String vt = "<" + w + " x float>", m = "<" + w + " x i1>";
    return "declare " + vt + " @\"" + stem + ".lanes\"(" + vt + ", " + vt + ", " + m + ", " + vt + ", ptr)\n"
        + "declare " + vt + " @\"" + stem + ".slow\"(" + vt + ", " + vt + ", " + m + ", ptr)\n";
  }

  /** A call of the shared {@code .lanes} (IR defining {@code out}). */
  static String lanesCall(String out, String stem, String name, int w, String x, String mask, String acc, String y) {
    String vt = "<" + w + " x float>";
    return "  " + out + " = call " + vt + " @\"" + stem + ".lanes\"(" + vt + " " + x + ", " + vt + " " + y + ", <" + w + " x i1> " + mask + ", " + vt
        + " " + acc + ", ptr @\"" + name + ".desc\")\n";
  }

  /**
   * The entry's cold block {@code cold} with the shared pieces: one call of the shared {@code .slow}
   * (the probe if the flag is unknown, then the entry again or every active lane by the per-lane piece),
   * defining {@code %yc} for the join {@code %done}. One call with the arguments as they came, so that
   * nothing of the entry lives across a call (a call of the probe here, then a jump back into the fast
   * path or a call of the entry, kept x and y in other registers on the hot path: two more moves at the
   * start of powf's entry, W8 haswell).
   */
  static String coldBlocks(String stem, String name, int w, String y) {
    String vt = "<" + w + " x float>", m = "<" + w + " x i1>";
    return "cold:\n  %yc = call " + vt + " @\"" + stem + ".slow\"(" + vt + " %x, " + vt + " " + y + ", " + m + " %m, ptr @\"" + name
        + ".desc\")\n  br label %done\n";
  }

  /** The join's incoming value from {@link #coldBlocks}. */
  static String coldIncoming() { return "[ %yc, %cold ]"; }

  /** The three pieces' IR text. */
  static String text(String stem, int w) {
    String vt = "<" + w + " x float>";
    String m = "<" + w + " x i1>";
    String iw = "i" + w;
    String q = "@\"" + stem;
    StringBuilder s = new StringBuilder();
    // .lanes: the scalar function read from the descriptor
    s.append(LibmGuard.lanesLoop("", q + ".lanes\"", "float", w, true, null, "#0"));
    // .verify: the probe when the flag is unknown
    s.append("define i1 ").append(q).append(".verify\"(ptr %d) #0 {\nentry:\n");
    // a static buffer (in the entry block, 16-byte aligned: no dynamic stack, no realignment)
    s.append("  %res = alloca [").append(MAX_PROBES).append(" x float], align 16\n");
    s.append("  %okpp = getelementptr inbounds i8, ptr %d, i64 16\n  %okp = load ptr, ptr %okpp, align 8\n");
    s.append("  %guard = load atomic i8, ptr %okp monotonic, align 1\n");
    s.append("  %unknown = icmp eq i8 %guard, 0\n  br i1 %unknown, label %probe, label %known\n");
    s.append("known:\n  %was = icmp eq i8 %guard, 1\n  ret i1 %was\n");
    // the fields are read where they are used (after each call: the calls could write memory, so nothing is
    // hoisted and held in callee-saved registers across the loops)
    s.append("probe:\n  br label %chunk\n");
    s.append("chunk:\n  %c = phi i64 [ 0, %probe ], [ %cn, %chunk ]\n");
    s.append("  %ef = load ptr, ptr %d, align 8\n");
    s.append("  %pxp = getelementptr inbounds i8, ptr %d, i64 24\n  %px = load ptr, ptr %pxp, align 8\n");
    s.append("  %pyp = getelementptr inbounds i8, ptr %d, i64 32\n  %py = load ptr, ptr %pyp, align 8\n");
    s.append("  %pp = getelementptr inbounds float, ptr %px, i64 %c\n  %xv = load volatile ").append(vt).append(", ptr %pp, align 4\n");
    s.append("  %ppy = getelementptr inbounds float, ptr %py, i64 %c\n  %yv = load volatile ").append(vt).append(", ptr %ppy, align 4\n");
    s.append("  %v = call ").append(vt).append(" %ef(").append(vt).append(" %xv, ").append(vt).append(" %yv, ").append(m).append(" zeroinitializer)\n");
    s.append("  %rp = getelementptr inbounds float, ptr %res, i64 %c\n  store ").append(vt).append(" %v, ptr %rp, align 4\n");
    s.append("  %np = getelementptr inbounds i8, ptr %d, i64 40\n  %n = load i64, ptr %np, align 8\n");
    s.append("  %cn = add i64 %c, ").append(w).append("\n  %cmore = icmp ult i64 %cn, %n\n");
    s.append("  br i1 %cmore, label %chunk, label %cmp, !llvm.loop !10\n");
    s.append("cmp:\n  %i = phi i64 [ 0, %chunk ], [ %in, %cmp ]\n  %bad = phi i1 [ false, %chunk ], [ %badn, %cmp ]\n");
    s.append("  %fnp = getelementptr inbounds i8, ptr %d, i64 8\n  %fn = load ptr, ptr %fnp, align 8\n");
    s.append("  %pxp2 = getelementptr inbounds i8, ptr %d, i64 24\n  %px2 = load ptr, ptr %pxp2, align 8\n");
    s.append("  %pyp2 = getelementptr inbounds i8, ptr %d, i64 32\n  %py2 = load ptr, ptr %pyp2, align 8\n");
    s.append("  %pxs = getelementptr inbounds float, ptr %px2, i64 %i\n  %xs = load volatile float, ptr %pxs, align 4\n");
    s.append("  %pys = getelementptr inbounds float, ptr %py2, i64 %i\n  %ys = load volatile float, ptr %pys, align 4\n");
    s.append("  %t = call float %fn(float %xs, float %ys) #1\n");
    s.append("  %pe = getelementptr inbounds float, ptr %res, i64 %i\n  %e = load float, ptr %pe, align 4\n");
    s.append("  %tb = bitcast float %t to i32\n  %eb = bitcast float %e to i32\n");
    s.append("  %dif = icmp ne i32 %tb, %eb\n  %badn = or i1 %bad, %dif\n");
    s.append("  %np2 = getelementptr inbounds i8, ptr %d, i64 40\n  %n2 = load i64, ptr %np2, align 8\n");
    s.append("  %in = add i64 %i, 1\n  %smore = icmp ult i64 %in, %n2\n  br i1 %smore, label %cmp, label %out, !llvm.loop !12\n");
    s.append("out:\n  %flag = select i1 %badn, i8 2, i8 1\n  %okpp2 = getelementptr inbounds i8, ptr %d, i64 16\n");
    s.append("  %okp2 = load ptr, ptr %okpp2, align 8\n  store atomic i8 %flag, ptr %okp2 monotonic, align 1\n");
    s.append("  %good = xor i1 %badn, true\n  ret i1 %good\n}\n");
    // .slow: the first call and the calls after a failed probe
    s.append("define ").append(vt).append(" ").append(q).append(".slow\"(").append(vt).append(" %x, ").append(vt).append(" %y, ").append(m)
        .append(" %m, ptr %d) #0 {\nentry:\n");
    s.append("  %ok = call i1 ").append(q).append(".verify\"(ptr %d)\n  br i1 %ok, label %again, label %perlane\n");
    s.append("again:\n  %ef = load ptr, ptr %d, align 8\n  %ya = tail call ").append(vt).append(" %ef(").append(vt).append(" %x, ").append(vt)
        .append(" %y, ").append(m).append(" %m)\n  ret ").append(vt).append(" %ya\n");
    s.append("perlane:\n  %yp = tail call ").append(vt).append(" ").append(q).append(".lanes\"(").append(vt).append(" %x, ").append(vt).append(" %y, ")
        .append(m).append(" %m, ").append(vt).append(" poison, ptr %d)\n  ret ").append(vt).append(" %yp\n}\n");
    s.append("declare ").append(iw).append(" @llvm.cttz.").append(iw).append("(").append(iw).append(", i1)\n");
    s.append("attributes #0 = { noinline cold nounwind minsize optsize }\nattributes #1 = { nobuiltin }\n");
    s.append("!10 = distinct !{!10, !11}\n!11 = !{!\"llvm.loop.unroll.disable\"}\n!12 = distinct !{!12, !11}\n");
    return s.toString();
  }
}
