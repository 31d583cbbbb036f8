package org.packetizer.core.check;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The harness on the thesis' running example: {@code scalarFn} of Fig 4.2 and its packet version of
 * Fig 4.15, built by hand for W = 4, 8 and 16, agree on jqwik-generated inputs — including NaN,
 * infinities, ±0 and lane patterns where lanes agree, alternate and all differ.
 */
class Fig42PropertyTest {
  private static final Map<Integer, HandBuilt> MODULES = new HashMap<>();
  private static final Map<Integer, DifferentialCheck> CHECKS = new HashMap<>();

  private static synchronized DifferentialCheck check(int w) {
    return CHECKS.computeIfAbsent(w, width -> {
      HandBuilt h = new HandBuilt("fig42-w" + width);
      MODULES.put(width, h);
      h.fig42("scalarFn", h.f32(), -1);
      h.fig42("generatedFn", h.v(h.f32(), width), -1);
      ValueDomain.Floats d = ValueDomain.floats(-1e4, 1e4).withSpecials();
      return DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", width)
          .params(ParamSpec.varying(d), ParamSpec.varying(d))
          .build();
    });
  }

  @AfterContainer
  static synchronized void closeAll() {
    CHECKS.values().forEach(DifferentialCheck::close);
    MODULES.values().forEach(HandBuilt::close);
    CHECKS.clear();
    MODULES.clear();
  }

  @Provide Arbitrary<Inputs> w4() { return CheckArbitraries.inputs(check(4)); }
  @Provide Arbitrary<Inputs> w8() { return CheckArbitraries.inputs(check(8)); }
  @Provide Arbitrary<Inputs> w16() { return CheckArbitraries.inputs(check(16)); }

  @Property(tries = 300)
  void packetAgreesWithScalarAtWidth4(@ForAll("w4") Inputs in) { assertPasses(check(4).run(in), 4); }

  @Property(tries = 300)
  void packetAgreesWithScalarAtWidth8(@ForAll("w8") Inputs in) { assertPasses(check(8).run(in), 8); }

  @Property(tries = 300)
  void packetAgreesWithScalarAtWidth16(@ForAll("w16") Inputs in) { assertPasses(check(16).run(in), 16); }

  private static void assertPasses(CheckResult r, int w) {
    assertTrue(r.passed(), r::report);
    assertTrue(r.lanesCompared() == w && r.bytesCompared() == 4L * w, r::report);
  }
}
