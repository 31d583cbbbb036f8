package org.packetizer.analysis.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.TestFunction.Val;

/**
 * Random expression DAGs evaluated concretely for W lanes with lane-affine inputs: whatever shape the
 * analysis reports must hold for the concrete lane values (UNIFORM: all lanes equal; LINEAR(s): lane k
 * = lane 0 + k·s in wrap-around 64-bit arithmetic; alignment a: lane 0 is a multiple of a).
 */
class ShapeProperties {

  static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    return x ^ (x >>> 33);
  }

  @Property(tries = 2000)
  void reportedShapesHoldForConcreteLanes(@ForAll long seed, @ForAll @IntRange(min = 4, max = 8) int width) {
    Random r = new Random(seed);
    TestFunction fn = new TestFunction();
    fn.block("entry");
    Map<Val, long[]> lanes = new HashMap<>();
    Map<Val, Shape> seeds = new HashMap<>();
    List<Val> pool = new ArrayList<>();
    int np = 1 + r.nextInt(4);
    for (int i = 0; i < np; i++) {
      Val p = fn.param("p" + i);
      long align = 1L << r.nextInt(6);
      long base = align * (r.nextInt(2000) - 1000);
      long[] v = new long[width];
      int kind = r.nextInt(3);
      long stride = kind == 1 ? pick(r, -16, -8, -4, -1, 1, 2, 3, 4, 8, 12) : 0;
      for (int k = 0; k < width; k++) v[k] = kind == 2 ? r.nextLong() : base + k * stride;
      if (kind == 0) seeds.put(p, Shape.uniform(align));
      else if (kind == 1) seeds.put(p, Shape.linear(stride, align));
      else if (r.nextBoolean()) seeds.put(p, Shape.VARYING); // else: absent = varying
      lanes.put(p, v);
      pool.add(p);
    }
    int m = 1 + r.nextInt(25);
    List<Val> insts = new ArrayList<>();
    for (int i = 0; i < m; i++) {
      String name = "v" + i;
      OpKind k = OpKind.values()[r.nextInt(OpKind.values().length)];
      Val a = operand(r, fn, pool, lanes, width), b = operand(r, fn, pool, lanes, width);
      long[] la = lanes.get(a), lb = lanes.get(b);
      long[] out = new long[width];
      Val v;
      switch (k) {
        case ADD, OR_DISJOINT, SUB, MUL -> {
          v = fn.inst("entry", name, k, a, b);
          for (int l = 0; l < width; l++) {
            out[l] = k == OpKind.SUB ? la[l] - lb[l] : k == OpKind.MUL ? la[l] * lb[l] : la[l] + lb[l];
          }
        }
        case SHL -> {
          Val sh = r.nextInt(4) > 0 ? konst(fn, lanes, width, r.nextInt(6)) : b;
          v = fn.inst("entry", name, k, a, sh);
          long[] ls = lanes.get(sh);
          for (int l = 0; l < width; l++) out[l] = la[l] << ls[l];
        }
        case SEXT, ZEXT, TRUNC, PASS_THROUGH -> {
          v = fn.inst("entry", name, k, a);
          out = la.clone();
        }
        case OTHER_PURE -> {
          v = fn.inst("entry", name, k, a, b);
          boolean cmp = r.nextBoolean();
          for (int l = 0; l < width; l++) out[l] = cmp ? (la[l] < lb[l] ? 1 : 0) : la[l] ^ (lb[l] * 31);
        }
        case SELECT -> {
          Val c = operand(r, fn, pool, lanes, width);
          Val y = r.nextInt(5) == 0 ? a : b;
          v = fn.inst("entry", name, k, c, a, y);
          long[] lc = lanes.get(c), ly = lanes.get(y);
          for (int l = 0; l < width; l++) out[l] = (lc[l] & 1) != 0 ? la[l] : ly[l];
        }
        case GEP -> {
          int nidx = 1 + r.nextInt(3);
          Object[] args = new Object[2 * nidx];
          out = la.clone();
          for (int j = 0; j < nidx; j++) {
            Val idx = r.nextInt(3) == 0 ? konst(fn, lanes, width, r.nextInt(10) - 3) : operand(r, fn, pool, lanes, width);
            long scale = pick(r, 1, 2, 4, 8, 12, 16, 24);
            args[2 * j] = idx;
            args[2 * j + 1] = scale;
            long[] li = lanes.get(idx);
            for (int l = 0; l < width; l++) out[l] += li[l] * scale;
          }
          v = fn.gep("entry", name, a, args);
        }
        case LOAD -> {
          v = fn.inst("entry", name, k, a);
          for (int l = 0; l < width; l++) out[l] = mix(la[l]);
        }
        case CALL -> {
          boolean pure = r.nextBoolean();
          v = fn.call("entry", name, pure, a, b);
          for (int l = 0; l < width; l++) out[l] = mix(la[l] * 7 + lb[l]) + (pure ? 0 : l);
        }
        case ALLOCA -> {
          long size = r.nextInt(5) == 0 ? 0 : pick(r, 1, 4, 8, 16, 40);
          v = fn.alloca("entry", name, size);
          long base = r.nextLong();
          for (int l = 0; l < width; l++) out[l] = base + l * size;
        }
        default -> { // PHI (no predecessors here), PARAMETER, constants, OTHER: an opaque value
          v = fn.inst("entry", name, OpKind.OTHER, a);
          for (int l = 0; l < width; l++) out[l] = r.nextLong();
        }
      }
      lanes.put(v, out);
      pool.add(v);
      insts.add(v);
    }
    DivergenceInfo<String, Val> info = DivergenceAnalysis.run(fn, CfgAnalyses.of(fn.cfg()), seeds, false);
    boolean linear = false, uniform = false;
    for (Val v : pool) {
      Shape s = info.shape(v);
      long[] l = lanes.get(v);
      linear |= s.isLinear() && v.kind != OpKind.PARAMETER;
      uniform |= s.isUniform() && v.kind != OpKind.PARAMETER;
      String msg = v + " (" + v.kind + ") reported " + s + " lanes " + java.util.Arrays.toString(l);
      for (int k = 0; k < width; k++) {
        if (s.isUniform()) assertEquals(l[0], l[k], msg);
        if (s.isLinear()) assertEquals(l[0] + k * s.stride(), l[k], msg);
      }
      if (!s.isVarying()) assertEquals(0, l[0] & (s.alignment() - 1), "alignment: " + msg);
      assertTrue(!info.reason(v).isEmpty());
      if (s.isUniform()) assertEquals("uniform", info.reason(v));
    }
    Statistics.label("derived linear value").collect(linear);
    Statistics.label("derived uniform value").collect(uniform);
  }

  private static long pick(Random r, long... options) { return options[r.nextInt(options.length)]; }

  private static Val operand(Random r, TestFunction fn, List<Val> pool, Map<Val, long[]> lanes, int width) {
    if (r.nextInt(4) == 0) {
      return konst(fn, lanes, width, r.nextInt(3) == 0 ? 1L << r.nextInt(13) : r.nextInt(41) - 20);
    }
    return pool.get(r.nextInt(pool.size()));
  }

  private static Val konst(TestFunction fn, Map<Val, long[]> lanes, int width, long c) {
    Val v = fn.c(c);
    long[] l = new long[width];
    java.util.Arrays.fill(l, c);
    lanes.put(v, l);
    return v;
  }
}
