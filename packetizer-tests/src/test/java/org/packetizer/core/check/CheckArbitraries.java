package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * jqwik generators for {@link DifferentialCheck} inputs: lane values from each slot's {@link
 * ValueDomain} (edge values with raised frequency; NaN and infinities only when the domain asks),
 * lane patterns that make branches agree and diverge (all equal, all different, alternating,
 * independent), active-lane masks, and a buffer seed. jqwik is a test dependency of the project, so
 * these live with the tests; the same domains drive the plain-random {@link InputGenerator}.
 */
public final class CheckArbitraries {
  private CheckArbitraries() {}

  private static final Object BUFFER = new Object();

  /** Values of one scalar slot. */
  public static Arbitrary<Object> values(ValueDomain domain, ScalarKind kind, int bits) {
    Arbitrary<Object> range = switch (domain) {
      case ValueDomain.Ints i -> {
        long lo = Math.max(i.min(), Values.minOf(kind, bits)), hi = Math.min(i.max(), Values.maxOf(kind, bits));
        yield Arbitraries.longs().between(lo, hi).withoutEdgeCases().map(v -> Values.normalize(kind, bits, v));
      }
      case ValueDomain.Floats f -> kind == ScalarKind.FLOAT
          ? Arbitraries.floats().between((float) f.min(), (float) f.max()).withoutEdgeCases().map(v -> Values.normalize(kind, bits, v))
          : Arbitraries.doubles().between(f.min(), f.max()).withoutEdgeCases().map(v -> Values.normalize(kind, bits, v));
    };
    List<Object> edges = domain.edgeValues(kind, bits);
    if (edges.isEmpty()) return range;
    return Arbitraries.frequencyOf(Tuple.of(4, range), Tuple.of(1, Arbitraries.of(edges)));
  }

  public static Arbitrary<Object> values(InputSlot s) { return values(s.domain(), s.kind(), s.bits()); }

  /**
   * W lane values following one of the {@link LanePattern}s; {@code distinct} says whether the value
   * domain has enough values for W pairwise different ones.
   */
  public static Arbitrary<Object[]> lanes(Arbitrary<Object> value, int width, boolean distinct) {
    Arbitrary<Object[]> equal = value.map(v -> {
      Object[] a = new Object[width];
      Arrays.fill(a, v);
      return a;
    });
    Arbitrary<Object[]> alternating = Combinators.combine(value, value).as((x, y) -> {
      Object[] a = new Object[width];
      for (int k = 0; k < width; k++) a[k] = k % 2 == 0 ? x : y;
      return a;
    });
    Arbitrary<Object[]> independent = value.list().ofSize(width).map(l -> l.toArray());
    if (!distinct) return Arbitraries.oneOf(equal, alternating, independent);
    Arbitrary<Object[]> different = value.list().ofSize(width).uniqueElements().map(l -> l.toArray());
    return Arbitraries.oneOf(equal, alternating, independent, different);
  }

  /** Whether a domain holds at least {@code 4 * width} values of the kind (so uniqueness is cheap). */
  static boolean roomy(InputSlot s, int width) {
    return switch (s.domain()) {
      case ValueDomain.Ints i -> {
        long lo = Math.max(i.min(), Values.minOf(s.kind(), s.bits())), hi = Math.min(i.max(), Values.maxOf(s.kind(), s.bits()));
        yield hi - lo >= 4L * width || hi - lo < 0;
      }
      case ValueDomain.Floats f -> f.max() - f.min() > 0;
    };
  }

  /** Active-lane patterns: all, none, alternating, single active, single inactive, random. */
  public static Arbitrary<boolean[]> masks(int width) {
    Arbitrary<boolean[]> random = Arbitraries.of(true, false).list().ofSize(width).map(l -> {
      boolean[] m = new boolean[width];
      for (int k = 0; k < width; k++) m[k] = l.get(k);
      return m;
    });
    Arbitrary<boolean[]> single = Arbitraries.integers().between(0, width - 1).map(i -> {
      boolean[] m = new boolean[width];
      m[i] = true;
      return m;
    });
    Arbitrary<boolean[]> allButOne = Arbitraries.integers().between(0, width - 1).map(i -> {
      boolean[] m = new boolean[width];
      Arrays.fill(m, true);
      m[i] = false;
      return m;
    });
    Arbitrary<boolean[]> fixed = Arbitraries.of(MaskPattern.ALL_ACTIVE, MaskPattern.NONE_ACTIVE, MaskPattern.ALTERNATING, MaskPattern.FIRST_HALF)
        .map(p -> p.mask(width, new java.util.SplittableRandom(0)));
    return Arbitraries.oneOf(random, single, allButOne, fixed);
  }

  /** Whole inputs for a check: one entry per packet parameter plus a buffer seed. */
  public static Arbitrary<Inputs> inputs(DifferentialCheck check) {
    int w = check.width();
    List<Arbitrary<Object>> parts = new ArrayList<>();
    for (InputSlot s : check.inputSlots()) {
      parts.add(switch (s.spec()) {
        case ParamSpec.Varying v -> lanes(values(s), w, roomy(s, w)).map(a -> (Object) a);
        case ParamSpec.Uniform u -> values(s);
        case ParamSpec.Linear l -> values(s);
        case ParamSpec.Mask m -> masks(w).map(a -> (Object) a);
        case ParamSpec.Buffer b -> Arbitraries.just(BUFFER);
      });
    }
    parts.add(Arbitraries.longs().map(x -> (Object) x));
    return Combinators.combine(parts).as(list -> {
      List<Object> args = new ArrayList<>(list.subList(0, list.size() - 1));
      args.replaceAll(x -> x == BUFFER ? null : x);
      return new Inputs(args, (Long) list.get(list.size() - 1));
    });
  }
}
