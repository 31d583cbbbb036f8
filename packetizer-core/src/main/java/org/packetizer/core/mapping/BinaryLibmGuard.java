package org.packetizer.core.mapping;

/**
 * {@link LibmGuard} for a binary float function (powf, issue 16): the helper
 * {@code <W x float> @"NAME"(<W x float> %x, <W x float> %y, <W x i1> %m)} around a fast path
 * {@code {<W x float>, <W x i1>} @"NAME.core"(<W x float>, <W x float>)} that the caller writes (the
 * result on every lane, and the lanes the fast path does not cover). The same layout as the unary
 * helper: the flag {@code @"NAME.ok"} (0 not checked, 1 verified, 2 differs), the entry (flag test,
 * fast path, per-lane calls for the lanes outside it), {@code @"NAME.slow"} (the first call: the probe,
 * then the entry again; after a failed probe, every active lane per call), {@code @"NAME.lanes"} (the
 * scalar function on the lanes of a mask, so errno and special values are its own) and
 * {@code @"NAME.probe"} (the probe pairs W at a time through the entry with no lane active, then the
 * scalar function on each pair, {@code nobuiltin}, inputs read volatile, compared bit for bit).
 */
final class BinaryLibmGuard {
  private BinaryLibmGuard() {}

  static String helper(String name, String libm, int w, long[] probeX, long[] probeY) { return helper(name, libm, w, probeX, probeY, null); }

  /**
   * The helper; with {@code shared} not null its cold pieces are the module's shared ones
   * ({@link SharedCold}, that stem): the helper keeps its flag and probe pairs and adds the
   * descriptor {@code @"NAME.desc"}.
   */
  static String helper(String name, String libm, int w, long[] probeX, long[] probeY, String shared) {
    return helper(name, libm, w, probeX, probeY, shared, null, null);
  }

  /**
   * The helper with the range lanes finished in the vector ({@code range}: {@link LibmGuard}'s contract, null for
   * none); {@code extra}, when not null, is the type of a third element of the core's result, extracted as {@code %c2}
   * in the fast block for {@code range} to read (powf's y·log2 x).
   */
  static String helper(String name, String libm, int w, long[] probeX, long[] probeY, String shared, String range, String extra) {
    if (probeX.length != probeY.length) throw new IllegalArgumentException("one y per probe x");
    probeX = LibmGuard.padded(probeX, w);
    probeY = LibmGuard.padded(probeY, w);
    int n = probeX.length;
    if (n % w != 0) throw new IllegalArgumentException(n + " probes are not a multiple of W=" + w);
    String vt = "<" + w + " x float>";
    String m = "<" + w + " x i1>";
    String q = "@\"" + name;
    String ct = "{ " + vt + ", " + m + (extra == null ? "" : ", " + extra) + " }";
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append(".ok\" = internal global i8 0, align 1\n");
    s.append(LibmGuard.constants(name + ".px", "float", probeX)).append(LibmGuard.constants(name + ".py", "float", probeY));
    if (shared != null) {
      s.append(SharedCold.descriptor(name, libm, name + ".px", name + ".py", n, w)).append(SharedCold.declarations(shared, w));
    } else {
      // the probe: the entry on the pairs W at a time with no lane active, then the scalar function on each pair
      s.append(LibmGuard.probeLoops(name, libm, "float", w, n, true,
          "  %rv = call " + vt + " " + q + "\"(" + vt + " %xv, " + vt + " %yv, " + m + " zeroinitializer)\n"));
      // the scalar function on the lanes of a mask
      s.append(LibmGuard.lanesLoop("internal ", q + ".lanes\"", "float", w, true, "@\"" + libm + "\"", "#2"));
    }
    // the entry, around the fast path that gives the result and the special lanes
    String fast = "fast:\n  %c = call " + ct + " " + q + ".core\"(" + vt + " %x, " + vt + " %y)\n  %r0 = extractvalue " + ct + " %c, 0\n"
        + "  %special = extractvalue " + ct + " %c, 1\n" + (extra == null ? "" : "  %c2 = extractvalue " + ct + " %c, 2\n");
    LibmGuard.appendEntry(s, name, "float", w, true, fast, "%r0", shared, range);
    if (shared == null) s.append(LibmGuard.ownSlow(name, "float", w, true));
    s.append(LibmGuard.declarations(libm, "float", w, true)).append(LibmGuard.WEIGHTS);
    return s.toString();
  }
}
