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
    if (probeX.length != probeY.length) throw new IllegalArgumentException("one y per probe x");
    probeX = LibmGuard.padded(probeX, w);
    probeY = LibmGuard.padded(probeY, w);
    int n = probeX.length;
    if (n % w != 0) throw new IllegalArgumentException(n + " probes are not a multiple of W=" + w);
    String vt = "<" + w + " x float>";
    String m = "<" + w + " x i1>";
    String q = "@\"" + name;
    String ct = "{ " + vt + ", " + m + " }";
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append(".ok\" = internal global i8 0, align 1\n");
    for (int k = 0; k < 2; k++) {
      long[] p = k == 0 ? probeX : probeY;
      s.append(q).append(k == 0 ? ".px\"" : ".py\"").append(" = internal constant [").append(n).append(" x float] [");
      for (int i = 0; i < n; i++) s.append(i > 0 ? ", " : "").append("float ").append(LibmGuard.fp(Float.intBitsToFloat((int) p[i])));
      s.append("], align 64\n");
    }
    if (shared != null) {
      s.append(SharedCold.descriptor(name, libm, name + ".px", name + ".py", n, w)).append(SharedCold.declarations(shared, w));
    } else {
      // the probe
      s.append("define internal i1 ").append(q).append(".probe\"() #2 {\nentry:\n");
      s.append("  %res = alloca [").append(n).append(" x float], align 64\n  br label %chunk\n");
      s.append("chunk:\n  %c = phi i64 [ 0, %entry ], [ %cn, %chunk ]\n");
      s.append("  %ppx = getelementptr inbounds float, ptr ").append(q).append(".px\", i64 %c\n");
      s.append("  %ppy = getelementptr inbounds float, ptr ").append(q).append(".py\", i64 %c\n");
      s.append("  %xv = load volatile ").append(vt).append(", ptr %ppx, align 4\n");
      s.append("  %yv = load volatile ").append(vt).append(", ptr %ppy, align 4\n");
      s.append("  %rv = call ").append(vt).append(" ").append(q).append("\"(").append(vt).append(" %xv, ").append(vt).append(" %yv, ").append(m)
          .append(" zeroinitializer)\n");
      s.append("  %rp = getelementptr inbounds float, ptr %res, i64 %c\n");
      s.append("  store ").append(vt).append(" %rv, ptr %rp, align 4\n");
      s.append("  %cn = add i64 %c, ").append(w).append("\n");
      s.append("  %more = icmp ult i64 %cn, ").append(n).append("\n  br i1 %more, label %chunk, label %cmp, !llvm.loop !10\n");
      s.append("cmp:\n  %i = phi i64 [ 0, %chunk ], [ %in, %cmp ]\n  %bad = phi i1 [ false, %chunk ], [ %badn, %cmp ]\n");
      s.append("  %pxs = getelementptr inbounds float, ptr ").append(q).append(".px\", i64 %i\n");
      s.append("  %pys = getelementptr inbounds float, ptr ").append(q).append(".py\", i64 %i\n");
      s.append("  %xs = load volatile float, ptr %pxs, align 4\n");
      s.append("  %ys = load volatile float, ptr %pys, align 4\n");
      s.append("  %s = call float @\"").append(libm).append("\"(float %xs, float %ys) #3\n");
      s.append("  %pe = getelementptr inbounds float, ptr %res, i64 %i\n");
      s.append("  %e = load float, ptr %pe, align 4\n");
      s.append("  %sb = bitcast float %s to i32\n  %eb = bitcast float %e to i32\n");
      s.append("  %d = icmp ne i32 %sb, %eb\n  %badn = or i1 %bad, %d\n");
      s.append("  %in = add i64 %i, 1\n  %more2 = icmp ult i64 %in, ").append(n).append("\n");
      s.append("  br i1 %more2, label %cmp, label %done, !llvm.loop !12\n");
      s.append("done:\n  %flag = select i1 %badn, i8 2, i8 1\n");
      s.append("  store atomic i8 %flag, ptr ").append(q).append(".ok\" monotonic, align 1\n");
      s.append("  %ok = xor i1 %badn, true\n  ret i1 %ok\n}\n");
      // the scalar function on the lanes of a mask
      s.append(LibmGuard.lanesLoop("internal ", q + ".lanes\"", "float", w, true, "@\"" + libm + "\"", "#2"));
    }
    // the entry, around the fast path that gives the result and the special lanes
    String fast = "fast:\n  %c = call " + ct + " " + q + ".core\"(" + vt + " %x, " + vt + " %y)\n  %r0 = extractvalue " + ct + " %c, 0\n"
        + "  %special = extractvalue " + ct + " %c, 1\n";
    LibmGuard.appendEntry(s, name, "float", w, true, fast, "%r0", shared);
    if (shared == null) s.append(LibmGuard.ownSlow(name, "float", w, true));
    s.append(LibmGuard.declarations(libm, "float", w, true)).append(LibmGuard.WEIGHTS);
    return s.toString();
  }
}
