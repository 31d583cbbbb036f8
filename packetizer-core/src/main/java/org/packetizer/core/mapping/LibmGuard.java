package org.packetizer.core.mapping;

import java.util.Locale;

/**
 * A once-per-process check that a vector helper still gives the bits of the libm it stands for
 * (issue 16): the first call compares the helper's vector code with the scalar libm function on a
 * fixed probe set, one lane at a time, and records the verdict in an internal global (0 unknown, 1
 * identical, 2 different); every later call reads it with one atomic load. A different libm (another
 * glibc version, musl, a build selected by another ifunc) makes the verdict 2, and the helper then
 * calls libm for every active lane, for the rest of the process.
 *
 * <p>The check emits, next to a helper named {@code H} whose vector code is
 * {@code <W x float> @"H.fast"(<W x float>)}: {@code i1 @"H.guard"()} (true when the vector code may
 * be used), {@code @"H.probe"} and the globals {@code @"H.state"} and {@code @"H.probes"}. Two threads
 * racing on the first call both probe and store the same verdict.
 */
public final class LibmGuard {
  private LibmGuard() {}

  /** IR text of the guard of helper {@code name} comparing with the scalar float function {@code fn}. */
  public static String text(String name, String fn, int w, float[] probes) {
    int k = (probes.length + w - 1) / w * w;
    StringBuilder s = new StringBuilder();
    String vf = "<" + w + " x float>";
    String q = "@\"" + name;
    s.append(q).append(".state\" = internal global i32 0, align 4\n");
    s.append(q).append(".probes\" = internal unnamed_addr constant [").append(k).append(" x float] [");
    for (int i = 0; i < k; i++) {
      float v = probes[Math.min(i, probes.length - 1)];
      s.append(i == 0 ? "" : ", ").append("float ").append(String.format(Locale.ROOT, "0x%016X", Double.doubleToRawLongBits(v)));
    }
    s.append("], align 64\n\n");
    s.append("define internal i1 ").append(q).append(".guard\"() #2 {\nentry:\n");
    s.append("  %st = load atomic i32, ptr ").append(q).append(".state\" monotonic, align 4\n");
    s.append("  %known = icmp ne i32 %st, 0\n");
    s.append("  br i1 %known, label %ret, label %probe, !prof !{!\"branch_weights\", i32 1048575, i32 1}\n");
    s.append("probe:\n  %p = call i32 ").append(q).append(".probe\"()\n  br label %ret\n");
    s.append("ret:\n  %v = phi i32 [ %st, %entry ], [ %p, %probe ]\n  %ok = icmp eq i32 %v, 1\n  ret i1 %ok\n}\n\n");
    s.append("define internal i32 ").append(q).append(".probe\"() #3 {\nentry:\n");
    s.append("  %out = alloca ").append(vf).append(", align 64\n  br label %chunk\n");
    s.append("chunk:\n  %i = phi i64 [ 0, %entry ], [ %inext, %check ]\n  %bad = phi i1 [ false, %entry ], [ %bad2, %check ]\n");
    s.append("  %pp = getelementptr inbounds float, ptr ").append(q).append(".probes\", i64 %i\n");
    s.append("  %pv = load volatile ").append(vf).append(", ptr %pp, align 4\n");
    s.append("  %vv = call ").append(vf).append(" ").append(q).append(".fast\"(").append(vf).append(" %pv)\n");
    s.append("  store ").append(vf).append(" %vv, ptr %out, align 64\n  br label %lane\n");
    s.append("lane:\n  %j = phi i64 [ 0, %chunk ], [ %jn, %lane ]\n  %b = phi i1 [ %bad, %chunk ], [ %b2, %lane ]\n");
    s.append("  %ij = add i64 %i, %j\n");
    s.append("  %xp = getelementptr inbounds float, ptr ").append(q).append(".probes\", i64 %ij\n");
    s.append("  %x = load volatile float, ptr %xp, align 4\n"); // volatile: no constant folding of the libm call
    s.append("  %r = call float @").append(fn).append("(float %x)\n");
    s.append("  %rb = bitcast float %r to i32\n");
    s.append("  %op = getelementptr inbounds float, ptr %out, i64 %j\n");
    s.append("  %o = load float, ptr %op, align 4\n  %ob = bitcast float %o to i32\n");
    s.append("  %ne = icmp ne i32 %rb, %ob\n  %b2 = or i1 %b, %ne\n");
    s.append("  %jn = add i64 %j, 1\n  %jm = icmp ult i64 %jn, ").append(w).append("\n  br i1 %jm, label %lane, label %check\n");
    s.append("check:\n  %bad2 = phi i1 [ %b2, %lane ]\n  %inext = add i64 %i, ").append(w).append("\n");
    s.append("  %more = icmp ult i64 %inext, ").append(k).append("\n  br i1 %more, label %chunk, label %done\n");
    s.append("done:\n  %verdict = select i1 %bad2, i32 2, i32 1\n");
    s.append("  store atomic i32 %verdict, ptr ").append(q).append(".state\" monotonic, align 4\n  ret i32 %verdict\n}\n\n");
    s.append("attributes #2 = { nounwind alwaysinline }\n");
    s.append("attributes #3 = { nounwind noinline cold }\n");
    return s.toString();
  }
}
