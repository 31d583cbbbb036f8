package org.packetizer.core.mapping;

import java.util.Locale;

/**
 * Lookups in a small constant table that the packetizer's own vector IR makes (issue 16): glibc's expf
 * table of 32 64-bit entries and logf's two 16-entry columns. The table has a uniform base (a constant)
 * and a varying 32-bit index per lane; the route that turns this into machine code is chosen per target,
 * by measurement (docs/performance.md, "Table lookups of the glibc-exact helpers"):
 * <ul>
 *   <li>{@link Route#PERMUTE}: the table held in registers and indexed by a two-source permute
 *       (AVX-512 {@code vpermi2q}/{@code vpermt2q}: 16 64-bit entries in two zmm; 32 entries are two
 *       such permutes and a select on bit 4 of the index). Needs AVX-512F and W a multiple of 8.</li>
 *   <li>{@link Route#HALVES}: AVX2, W a multiple of 8: the table's low and high 32-bit halves held in
 *       ymm constants and permuted by {@code vpermd}, 8-entry blocks chosen by index bits 3 and 4,
 *       the halves interleaved into 64-bit lanes; vector operations only. Only by the knob: fewer
 *       instructions than scalar loads (llvm-mca), no faster on the benchmark where measured.</li>
 *   <li>{@link Route#GATHER}: a hardware gather with 32-bit indices from the uniform base (AVX2
 *       {@code vpgatherdq} through LLVM's x86 gather intrinsic, 4 lanes each: LLVM itself does not
 *       form hardware gathers from {@code masked.gather} for haswell or the generic AVX2 levels), or
 *       with the 64-bit lanes of expf's and exp2's k as the index ({@code vpgatherqq}, {@link
 *       #lookupByLowBits}). The default for single lookups on Intel's AVX2 cores at W a multiple of 8
 *       (twenty-first round, measured on a Sapphire Rapids host); on Zen no faster than scalar loads
 *       (eighth round).</li>
 *   <li>{@link Route#SCALAR}: per lane, the 32-bit index extracted and one scalar load from the base
 *       ({@code vpextrd} + {@code vmovsd tab(,%r,8)}), the results inserted.</li>
 *   <li>{@link Route#POINTER}: the earlier form, a {@code masked.gather} of a {@code <W x ptr>} vector
 *       of 64-bit addresses (on AVX2 LLVM expands it into {@code vpextrq}/{@code vmovq} of each
 *       address, a load and unpacks). Kept for side-by-side measurements.</li>
 * </ul>
 * The default ({@link #route}): permute on AVX-512 at W a multiple of 8; on Intel's AVX2 cores at W a
 * multiple of 8 ({@link #intelAvx2}) gathers for single lookups and, for pairs of tables indexed alike
 * ({@link #pairRoute}), the halves at W8 and scalar loads from W16; scalar loads elsewhere (AMD's AVX2
 * cores, SSE, W4, other architectures). The knob {@code
 * -Dpacketizer.tableLookup=auto|permute|halves|gather|scalar|pointer} forces a route for every lookup and
 * {@code -Dpacketizer.tableLookup.pairs=...} the pairs' alone (a route the target cannot run falls back to
 * the default); {@code -Dpacketizer.tableLookup.perCpu=false} gives Intel's AVX2 cores scalar loads again;
 * helper names carry the routes.
 */
public final class TableLookup {
  private TableLookup() {}

  /** How a lookup becomes machine code. */
  public enum Route {
    PERMUTE("permute in registers (AVX-512 vpermi2q)"),
    HALVES("32-bit halves permuted in registers (AVX2 vpermd)"),
    GATHER("hardware gather (AVX2 vpgatherdq by 32-bit index, vpgatherqq by the 64-bit lanes of expf's k)"),
    SCALAR("scalar loads by 32-bit index"),
    POINTER("gather of 64-bit pointers");

    final String description;

    Route(String description) { this.description = description; }

    /** Words for a remark. */
    public String describe() { return description; }
  }

  /** The knob's value, or null for auto. */
  static Route forced() { return parse("packetizer.tableLookup"); }

  /** The pair knob's value ({@code -Dpacketizer.tableLookup.pairs}), or null for auto. */
  static Route forcedPairs() { return parse("packetizer.tableLookup.pairs"); }

  private static Route parse(String knob) {
    String s = System.getProperty(knob, "auto").strip().toLowerCase(Locale.ROOT);
    return switch (s) {
      case "", "auto" -> null;
      case "permute" -> Route.PERMUTE;
      case "halves", "vpermd" -> Route.HALVES;
      case "gather" -> Route.GATHER;
      case "scalar" -> Route.SCALAR;
      case "pointer", "ptr" -> Route.POINTER;
      default -> throw new IllegalArgumentException("-D" + knob + "=" + s + ": expected auto, permute, halves, gather, scalar or pointer");
    };
  }

  /**
   * The route for tables of up to 32 64-bit entries at width {@code w} on a target with these
   * (effective) features, by measurement (docs/performance.md, "Table lookups of the glibc-exact
   * helpers"): AVX-512 and W a multiple of 8: permute; otherwise scalar loads by 32-bit index. AVX2's
   * hardware gather ({@code -Dpacketizer.tableLookup=gather}) was as fast as scalar loads on the
   * benchmark's bs_call and 30% slower on binomial at W8 (znver5 host), so it is not the default there;
   * {@link #route(int, String, String)} chooses per CPU.
   */
  public static Route route(int w, String features) { return route(w, features, ""); }

  /**
   * The route of the single lookups (expf's and exp2's 2^(i/32)) for the CPU {@code cpu} (an LLVM CPU name; empty: not
   * named) at width {@code w}: the knob {@code -Dpacketizer.tableLookup} when set and the target runs it; else permute
   * on AVX-512 at W a multiple of 8; on an Intel core with AVX2 ({@link #intelAvx2}) at W a multiple of 8 the hardware
   * gather, {@code vpgatherqq} from the 64-bit lanes themselves ({@link #lookupByLowBits}); else scalar loads.
   */
  public static Route route(int w, String features, String cpu) {
    Route f = forced();
    Route auto = autoRoute(w, features, cpu);
    if (f == null) return auto;
    return runs(f, w, features) ? f : auto;
  }

  /**
   * The route of lookups in two tables indexed alike ({@link #lookupPair}: logf's and log2's (1/c, log c)) for the CPU
   * {@code cpu} at width {@code w}, where {@code single} is the route of the helper's single lookups: the knob
   * {@code -Dpacketizer.tableLookup.pairs} when set and the target runs it; with {@code -Dpacketizer.tableLookup} set,
   * {@code single}, as before the twenty-first round; on an Intel core with AVX2 ({@link #intelAvx2}) and no AVX-512,
   * the 32-bit halves permuted in registers at W8 and scalar loads of 16-byte rows at W16 and above (measured: a C loop
   * over the packet functions on a Sapphire Rapids host, docs/performance.md, twenty-first round); else {@code single}.
   */
  public static Route pairRoute(Route single, int w, String features, String cpu) {
    Route f = forcedPairs();
    if (f != null && runs(f, w, features)) return f;
    if (forced() != null || single != Route.GATHER || !intelAvx2(w, features, cpu)) return single;
    return w == 8 ? Route.HALVES : Route.SCALAR;
  }

  /**
   * Whether {@code cpu} is one of Intel's cores with AVX2 and no AVX-512 in {@code features} at a width W that is a
   * multiple of 8, where the glibc-exact helpers' single lookups are hardware gathers ({@link Route#GATHER}): the family
   * of {@link org.packetizer.core.ir.CpuFamily#of} (Intel's big cores from Haswell, and {@code x86-64-v3}, which LLVM schedules
   * as Haswell; {@code -Dpacketizer.latency.genericNames=generic} leaves the generic names out). On this host (Sapphire
   * Rapids class, KVM), code for haswell: expf 25 % more calls per second at W8 than with scalar loads (0.86 against 1.14
   * ns per element), powf 10 %, logf's pairs by the halves 5 % shorter latency; W4 not (a gather's latency lost more
   * than its throughput gained). AMD's cores keep scalar loads: the eighth round measured the AVX2 gather no faster on
   * Zen (docs/performance.md).
   */
  static boolean intelAvx2(int w, String features, String cpu) {
    if (!perCpu()) return false;
    if (w % 8 != 0 || Integer.bitCount(w) != 1 || !avx2(features) || avx512(features) || cpu == null) return false;
    return org.packetizer.core.ir.CpuFamily.of(cpu, false) == org.packetizer.core.ir.CpuFamily.INTEL;
  }

  /**
   * Knob {@code -Dpacketizer.tableLookup.perCpu=false} (read at each use; a measuring switch): Intel's AVX2 cores take
   * the routes of every other AVX2 target again (scalar loads), as before the twenty-first round.
   */
  static boolean perCpu() { return !"false".equals(System.getProperty("packetizer.tableLookup.perCpu", "true").strip()); }

  /**
   * Words for a remark on the routes of a helper's lookups: the single route's, the pair route's where it differs, and
   * why where the CPU chose them.
   */
  public static String describe(Route single, Route pair, int w, String features, String cpu) {
    String s = single.describe() + (pair == single ? "" : ", pairs of tables: " + pair.describe());
    if (forced() == null && forcedPairs() == null && intelAvx2(w, features, cpu))
      s += " (an Intel core, " + cpu + ", with AVX2: gathers, measured faster there than scalar loads;"
          + " -Dpacketizer.tableLookup.perCpu=false: scalar loads)";
    return s;
  }

  static boolean avx512(String features) { return features.contains("+avx512f"); }

  static boolean avx2(String features) { return features.contains("+avx2"); }

  static boolean runs(Route r, int w, String features) {
    if (Integer.bitCount(w) != 1) return r == Route.SCALAR || r == Route.POINTER;
    return switch (r) {
      case PERMUTE -> avx512(features) && w % 8 == 0;
      case HALVES -> avx2(features) && w % 8 == 0;
      case GATHER -> avx2(features) && w % 4 == 0;
      case SCALAR, POINTER -> true;
    };
  }

  static Route autoRoute(int w, String features, String cpu) {
    if (runs(Route.PERMUTE, w, features)) return Route.PERMUTE;
    if (intelAvx2(w, features, cpu)) return Route.GATHER;
    // HALVES (AVX2) is not the default: no faster than scalar loads on the benchmark where measured
    // (znver5), and binomial's loop ran 30% slower with it, a code-placement effect (docs/performance.md)
    return Route.SCALAR;
  }

  /** A short tag for helper names. */
  static String tag(Route r) { return r.name().substring(0, 1).toLowerCase(Locale.ROOT); }

  /**
   * The table global {@code @"NAME"}: {@code [N x i64]} with these bits (64-byte aligned).
   */
  static String global(String name, long[] bits) {
    StringBuilder s = new StringBuilder();
    s.append("@\"").append(name).append("\" = internal constant [").append(bits.length).append(" x i64] [");
    for (int i = 0; i < bits.length; i++) s.append(i > 0 ? ", " : "").append("i64 ").append(bits[i]);
    s.append("], align 64\n");
    return s.toString();
  }

  /**
   * IR instructions that define {@code out} ({@code <W x i64>}) as {@code table[idx]} per lane, where
   * {@code idx} is a {@code <W x i32>} value in [0, N) and the table global {@code @"tableName"} (see
   * {@link #global}) holds {@code bits} (N ≤ 32). Temporaries are named {@code out} plus a suffix.
   */
  static String lookup(Route r, String out, String tableName, long[] bits, String idx, int w) {
    int n = bits.length;
    if (n > 32) throw new IllegalArgumentException("table of " + n + " entries: at most 32");
    String l = "<" + w + " x i64>", i32v = "<" + w + " x i32>";
    String tab = "@\"" + tableName + "\"";
    StringBuilder s = new StringBuilder();
    switch (r) {
      case POINTER -> {
        s.append("  ").append(out).append(".ix = zext ").append(i32v).append(" ").append(idx).append(" to ").append(l).append("\n");
        s.append("  ").append(out).append(".p = getelementptr inbounds [").append(n).append(" x i64], ptr ").append(tab).append(", i64 0, ")
            .append(l).append(" ").append(out).append(".ix\n");
        s.append("  ").append(out).append(" = call ").append(l).append(" @llvm.masked.gather.v").append(w).append("i64.v").append(w)
            .append("p0(<").append(w).append(" x ptr> ").append(out).append(".p, i32 8, <").append(w).append(" x i1> splat (i1 true), ")
            .append(l).append(" poison)\n");
      }
      case SCALAR -> {
        // the byte offsets by one vector shift (not one scalar shift per lane)
        s.append("  ").append(out).append(".off = shl ").append(i32v).append(" ").append(idx).append(", splat (i32 3)\n");
        String prev = "poison";
        for (int k = 0; k < w; k++) {
          String p = out + ".s" + k;
          s.append("  ").append(p).append(".i = extractelement ").append(i32v).append(" ").append(out).append(".off, i32 ").append(k).append("\n");
          s.append("  ").append(p).append(".z = zext i32 ").append(p).append(".i to i64\n");
          s.append("  ").append(p).append(".p = getelementptr inbounds i8, ptr ").append(tab).append(", i64 ").append(p).append(".z\n");
          s.append("  ").append(p).append(".v = load i64, ptr ").append(p).append(".p, align 8\n");
          String next = k == w - 1 ? out : out + ".v" + k;
          s.append("  ").append(next).append(" = insertelement ").append(l).append(" ").append(prev).append(", i64 ").append(p)
              .append(".v, i32 ").append(k).append("\n");
          prev = next;
        }
      }
      case GATHER -> {
        // 4 lanes per vpgatherdq ymm (the AVX2 intrinsic: LLVM does not form hardware gathers from
        // masked.gather on AVX2 targets it deems slow at gathers, haswell and the AMD ones included)
        int parts = w / 4;
        for (int p = 0; p < parts; p++) {
          String q = out + ".g" + p;
          sliceLanes(s, q + ".i", i32v, idx, p * 4, new int[] {0, 1, 2, 3});
          s.append("  ").append(q).append(" = call <4 x i64> @llvm.x86.avx2.gather.d.q.256(<4 x i64> zeroinitializer, ptr ").append(tab)
              .append(", <4 x i32> ").append(q).append(".i, <4 x i64> splat (i64 -1), i8 8)\n");
        }
        s.append(concat(out, out + ".g", parts, 4, "i64"));
      }
      case PERMUTE -> {
        // per 8 lanes: entries 0-15 by vpermi2q of two zmm (index bits 0-3), 16-31 likewise, a select on bit 4
        String[] regs = new String[(n + 7) / 8];
        for (int j = 0; j < regs.length; j++) {
          StringBuilder c = new StringBuilder("<");
          for (int k = 0; k < 8; k++) c.append(k > 0 ? ", " : "").append("i64 ").append(8 * j + k < n ? bits[8 * j + k] : 0L);
          regs[j] = c.append(">").toString();
        }
        int parts = w / 8;
        for (int p = 0; p < parts; p++) {
          String q = out + ".q" + p;
          sliceLanes(s, q + ".i32", i32v, idx, p * 8, new int[] {0, 1, 2, 3, 4, 5, 6, 7});
          s.append("  ").append(q).append(".i = zext <8 x i32> ").append(q).append(".i32 to <8 x i64>\n");
          String lo = permute2(s, q + ".lo", regs, 0, q + ".i");
          if (regs.length > 2) {
            String hi = permute2(s, q + ".hi", regs, 2, q + ".i");
            s.append("  ").append(q).append(".b4 = and <8 x i64> ").append(q).append(".i, splat (i64 16)\n");
            s.append("  ").append(q).append(".up = icmp ne <8 x i64> ").append(q).append(".b4, zeroinitializer\n");
            s.append("  ").append(q).append(" = select <8 x i1> ").append(q).append(".up, <8 x i64> ").append(hi).append(", <8 x i64> ").append(lo).append("\n");
          } else {
            s.append("  ").append(q).append(" = or <8 x i64> ").append(lo).append(", zeroinitializer\n");
          }
        }
        s.append(concat(out, out + ".q", parts, 8, "i64"));
      }
      case HALVES -> halves(s, out, bits, idx, w);
    }
    return s.toString();
  }

  /**
   * {@code out} ({@code <W x i64>}) = {@code table[key & (N - 1)]} per lane, for a table of N = 2^k entries whose index
   * is the low bits of the 64-bit lanes {@code key} ({@code <W x i64>}; expf's and exp2's shifted double): by
   * {@link Route#GATHER} with W a multiple of 4, {@code vpgatherqq} straight from those lanes (the index masked in
   * place: no packing of the 64-bit lanes into 32-bit ones, which on AVX2 is two cross-lane permutes and an insert);
   * by the other routes the 32-bit index {@code k32 = trunc(key)}, {@code idx = k32 & (N - 1)} (the names given) and
   * {@link #lookup}.
   */
  static String lookupByLowBits(Route r, String out, String tableName, long[] bits, String key, String k32, String idx, int w) {
    int n = bits.length;
    if (Integer.bitCount(n) != 1) throw new IllegalArgumentException("table of " + n + " entries: a power of two");
    String l = "<" + w + " x i64>", i32v = "<" + w + " x i32>";
    StringBuilder s = new StringBuilder();
    if (r == Route.GATHER && w % 4 == 0 && Integer.bitCount(w) == 1) {
      s.append("  ").append(out).append(".k = and ").append(l).append(" ").append(key).append(", splat (i64 ").append(n - 1).append(")\n");
      int parts = w / 4;
      for (int p = 0; p < parts; p++) {
        String q = out + ".g" + p;
        sliceLanes(s, q + ".i", l, out + ".k", p * 4, new int[] {0, 1, 2, 3});
        s.append("  ").append(q).append(" = call <4 x i64> @llvm.x86.avx2.gather.q.q.256(<4 x i64> zeroinitializer, ptr @\"").append(tableName)
            .append("\", <4 x i64> ").append(q).append(".i, <4 x i64> splat (i64 -1), i8 8)\n");
      }
      s.append(concat(out, out + ".g", parts, 4, "i64"));
      return s.toString();
    }
    s.append("  ").append(k32).append(" = trunc ").append(l).append(" ").append(key).append(" to ").append(i32v).append("\n");
    s.append("  ").append(idx).append(" = and ").append(i32v).append(" ").append(k32).append(", splat (i32 ").append(n - 1).append(")\n");
    s.append(lookup(r, out, tableName, bits, idx, w));
    return s.toString();
  }

  /**
   * The {@link Route#HALVES} lookup: the table split into its low and high 32-bit halves, each held in
   * ymm constants of 8 entries ({@code N/8} per half) and indexed by AVX2 {@code vpermd} (index bits
   * 0-2), the 8-entry blocks chosen by selects on index bits 3 and 4 (sign-bit blends); the two halves
   * are then interleaved into 64-bit lanes. Per 8 lanes the index is first permuted by
   * {@code <0,1,4,5,2,3,6,7>}, so that the interleave is the in-lane {@code vpunpckldq}/{@code
   * vpunpckhdq} pair (which interleaves 128-bit lane by 128-bit lane) with no cross-lane fix-up.
   * No scalar loads, no vector-to-integer moves: every step is a vector operation.
   */
  private static void halves(StringBuilder s, String out, long[] bits, String idx, int w) {
    int n = bits.length;
    int blocks = Math.max(1, (n + 7) / 8);
    if (blocks == 3) blocks = 4;
    String[][] regs = new String[2][blocks];
    for (int h = 0; h < 2; h++)
      for (int j = 0; j < blocks; j++) {
        StringBuilder c = new StringBuilder("<");
        for (int k = 0; k < 8; k++) {
          long v = 8 * j + k < n ? bits[8 * j + k] : 0L;
          c.append(k > 0 ? ", " : "").append("i32 ").append(h == 0 ? (int) v : (int) (v >>> 32));
        }
        regs[h][j] = c.append(">").toString();
      }
    String i32v = "<" + w + " x i32>";
    int parts = w / 8;
    for (int p = 0; p < parts; p++) {
      String q = out + ".h" + p;
      sliceLanes(s, q + ".i", i32v, idx, p * 8, new int[] {0, 1, 4, 5, 2, 3, 6, 7});
      // index bits 3 and 4 moved to the sign bit: the selects become blends on the sign
      if (blocks > 1) {
        s.append("  ").append(q).append(".s3 = shl <8 x i32> ").append(q).append(".i, splat (i32 28)\n");
        s.append("  ").append(q).append(".b3 = icmp slt <8 x i32> ").append(q).append(".s3, zeroinitializer\n");
      }
      if (blocks > 2) {
        s.append("  ").append(q).append(".s4 = shl <8 x i32> ").append(q).append(".i, splat (i32 27)\n");
        s.append("  ").append(q).append(".b4 = icmp slt <8 x i32> ").append(q).append(".s4, zeroinitializer\n");
      }
      String[] half = new String[2];
      for (int h = 0; h < 2; h++) {
        String[] r = new String[blocks];
        for (int j = 0; j < blocks; j++) {
          r[j] = q + ".x" + h + j;
          s.append("  ").append(r[j]).append(" = call <8 x i32> @llvm.x86.avx2.permd(<8 x i32> ").append(regs[h][j]).append(", <8 x i32> ")
              .append(q).append(".i)\n");
        }
        if (blocks == 1) { half[h] = r[0]; continue; }
        String lo = q + ".y" + h + "0";
        s.append("  ").append(lo).append(" = select <8 x i1> ").append(q).append(".b3, <8 x i32> ").append(r[1]).append(", <8 x i32> ").append(r[0]).append("\n");
        if (blocks == 2) { half[h] = lo; continue; }
        String hi = q + ".y" + h + "1";
        s.append("  ").append(hi).append(" = select <8 x i1> ").append(q).append(".b3, <8 x i32> ").append(r[3]).append(", <8 x i32> ").append(r[2]).append("\n");
        half[h] = q + ".y" + h;
        s.append("  ").append(half[h]).append(" = select <8 x i1> ").append(q).append(".b4, <8 x i32> ").append(hi).append(", <8 x i32> ").append(lo).append("\n");
      }
      // vpunpckldq / vpunpckhdq: 64-bit lanes 0,1 | 2,3 of the first, 4,5 | 6,7 of the second 128-bit lanes
      s.append("  ").append(q).append(".l = shufflevector <8 x i32> ").append(half[0]).append(", <8 x i32> ").append(half[1])
          .append(", <8 x i32> <i32 0, i32 8, i32 1, i32 9, i32 4, i32 12, i32 5, i32 13>\n");
      s.append("  ").append(q).append(".u = shufflevector <8 x i32> ").append(half[0]).append(", <8 x i32> ").append(half[1])
          .append(", <8 x i32> <i32 2, i32 10, i32 3, i32 11, i32 6, i32 14, i32 7, i32 15>\n");
      s.append("  ").append(q).append(".lq = bitcast <8 x i32> ").append(q).append(".l to <4 x i64>\n");
      s.append("  ").append(q).append(".uq = bitcast <8 x i32> ").append(q).append(".u to <4 x i64>\n");
      s.append("  ").append(q).append(" = shufflevector <4 x i64> ").append(q).append(".lq, <4 x i64> ").append(q).append(".uq, ").append(mask(8)).append("\n");
    }
    s.append(concat(out, out + ".h", parts, 8, "i64"));
  }

  /**
   * Two tables indexed alike ({@code bits0[idx]} into {@code out0}, {@code bits1[idx]} into {@code out1},
   * both {@code <W x i64>}): the globals and the instructions, appended to {@code globals} and returned.
   * By scalar loads the two tables are one table of 16-byte rows ({@code @"name.rows"}), one
   * {@code <2 x i64>} load per lane and unpacks (glibc logf's (1/c, log c) pairs are such rows);
   * by the other routes two lookups in {@code @"name.0"} and {@code @"name.1"}.
   */
  static String lookupPair(Route r, StringBuilder globals, String out0, String out1, String name, long[] bits0, long[] bits1, String idx, int w) {
    if (bits0.length != bits1.length) throw new IllegalArgumentException("tables of different lengths");
    if (r != Route.SCALAR || Integer.bitCount(w) != 1 || w < 2) {
      globals.append(global(name + ".0", bits0)).append(global(name + ".1", bits1));
      return lookup(r, out0, name + ".0", bits0, idx, w) + lookup(r, out1, name + ".1", bits1, idx, w);
    }
    int n = bits0.length;
    long[] rows = new long[2 * n];
    for (int i = 0; i < n; i++) {
      rows[2 * i] = bits0[i];
      rows[2 * i + 1] = bits1[i];
    }
    globals.append(global(name + ".rows", rows));
    String i32v = "<" + w + " x i32>";
    StringBuilder s = new StringBuilder();
    // the byte offset of each lane's row, one vector shift
    s.append("  ").append(out0).append(".off = shl ").append(i32v).append(" ").append(idx).append(", splat (i32 4)\n");
    String[] lo = new String[w / 2], hi = new String[w / 2];
    for (int k = 0; k < w; k++) {
      String p = out0 + ".r" + k;
      s.append("  ").append(p).append(".i = extractelement ").append(i32v).append(" ").append(out0).append(".off, i32 ").append(k).append("\n");
      s.append("  ").append(p).append(".z = zext i32 ").append(p).append(".i to i64\n");
      s.append("  ").append(p).append(".p = getelementptr inbounds i8, ptr @\"").append(name).append(".rows\", i64 ").append(p).append(".z\n");
      s.append("  ").append(p).append(" = load <2 x i64>, ptr ").append(p).append(".p, align 16\n");
      if (k % 2 == 1) {
        String a = out0 + ".r" + (k - 1);
        lo[k / 2] = out0 + ".l" + (k / 2);
        hi[k / 2] = out1 + ".h" + (k / 2);
        s.append("  ").append(lo[k / 2]).append(" = shufflevector <2 x i64> ").append(a).append(", <2 x i64> ").append(p).append(", <2 x i32> <i32 0, i32 2>\n");
        s.append("  ").append(hi[k / 2]).append(" = shufflevector <2 x i64> ").append(a).append(", <2 x i64> ").append(p).append(", <2 x i32> <i32 1, i32 3>\n");
      }
    }
    s.append(concat(out0, out0 + ".l", w / 2, 2, "i64"));
    s.append(concat(out1, out1 + ".h", w / 2, 2, "i64"));
    return s.toString();
  }

  /** vpermi2q of table registers {@code regs[from]} and {@code regs[from+1]} (zeros if absent) by the low 4 bits of {@code idx}. */
  private static String permute2(StringBuilder s, String out, String[] regs, int from, String idx) {
    String a = regs[from];
    String b = from + 1 < regs.length ? regs[from + 1] : "zeroinitializer";
    s.append("  ").append(out).append(" = call <8 x i64> @llvm.x86.avx512.vpermi2var.q.512(<8 x i64> ").append(a).append(", <8 x i64> ")
        .append(idx).append(", <8 x i64> ").append(b).append(")\n");
    return out;
  }

  /**
   * Appends {@code out = shufflevector vt idx, poison} taking lanes {@code first + order[k]} of the index
   * vector {@code idx} (type {@code vt}: 32- or 64-bit lanes) into a vector of {@code order.length} such lanes.
   */
  private static void sliceLanes(StringBuilder s, String out, String vt, String idx, int first, int[] order) {
    s.append("  ").append(out).append(" = shufflevector ").append(vt).append(" ").append(idx).append(", ").append(vt)
        .append(" poison, <").append(order.length).append(" x i32> <");
    for (int k = 0; k < order.length; k++) s.append(k > 0 ? ", " : "").append("i32 ").append(first + order[k]);
    s.append(">\n");
  }

  /** {@code out} = the concatenation of {@code prefix0 .. prefix(parts-1)}, each {@code <lanes x T>}. */
  private static String concat(String out, String prefix, int parts, int lanes, String t) {
    if (parts == 1) return "  " + out + " = shufflevector <" + lanes + " x " + t + "> " + prefix + "0, <" + lanes + " x " + t + "> poison, "
        + mask(lanes) + "\n";
    StringBuilder s = new StringBuilder();
    String[] level = new String[parts];
    for (int p = 0; p < parts; p++) level[p] = prefix + p;
    int width = lanes, step = 0;
    while (level.length > 1) {
      String[] next = new String[level.length / 2];
      for (int j = 0; j < next.length; j++) {
        next[j] = next.length == 1 ? out : out + ".c" + step + "_" + j;
        s.append("  ").append(next[j]).append(" = shufflevector <").append(width).append(" x ").append(t).append("> ").append(level[2 * j])
            .append(", <").append(width).append(" x ").append(t).append("> ").append(level[2 * j + 1]).append(", ").append(mask(2 * width)).append("\n");
      }
      level = next;
      width *= 2;
      step++;
    }
    return s.toString();
  }

  private static String mask(int n) {
    StringBuilder s = new StringBuilder("<" + n + " x i32> <");
    for (int k = 0; k < n; k++) s.append(k > 0 ? ", " : "").append("i32 ").append(k);
    return s.append(">").toString();
  }

  /** Declarations the routes use at width {@code w}. */
  static String declarations(Route r, int w) {
    return switch (r) {
      case POINTER -> "declare <" + w + " x i64> @llvm.masked.gather.v" + w + "i64.v" + w + "p0(<" + w + " x ptr>, i32, <" + w + " x i1>, <" + w
          + " x i64>)\n";
      case GATHER -> "declare <4 x i64> @llvm.x86.avx2.gather.d.q.256(<4 x i64>, ptr, <4 x i32>, <4 x i64>, i8)\n"
          + "declare <4 x i64> @llvm.x86.avx2.gather.q.q.256(<4 x i64>, ptr, <4 x i64>, <4 x i64>, i8)\n";
      case PERMUTE -> "declare <8 x i64> @llvm.x86.avx512.vpermi2var.q.512(<8 x i64>, <8 x i64>, <8 x i64>)\n";
      case HALVES -> "declare <8 x i32> @llvm.x86.avx2.permd(<8 x i32>, <8 x i32>)\n";
      case SCALAR -> "";
    };
  }
}
