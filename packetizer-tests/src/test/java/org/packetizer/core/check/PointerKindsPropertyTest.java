package org.packetizer.core.check;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * jqwik-generated inputs (masks, buffer seeds, lane patterns) through buffers: a masked
 * consecutive-access kernel (LINEAR_PTR + MASK, W = 8) and the Color kernel (SOA_PTR, W = 16).
 */
class PointerKindsPropertyTest {
  private static HandBuilt module;
  private static DifferentialCheck masked, soa;

  private static synchronized void setUp() {
    if (module != null) return;
    module = new HandBuilt("pointer-kinds");
    HandBuilt h = module;
    IrBuilder b = h.b;
    int w = 8;
    Type vf = h.v(h.f32(), w), vm = h.v(h.ctx.i1(), w);
    // void scale(float* p, float s) { *p = *p * s + 1; }  and its masked packet form
    Function s = h.define("scale", h.ctx.voidType(), List.of("p", "s"), h.ptr(), h.f32());
    b.store(b.fadd(b.fmul(b.load(h.f32(), s.param(0), "x"), s.param(1), ""), h.fconst(h.f32(), 1), ""), s.param(0));
    b.retVoid();
    Function load = h.m.intrinsic("llvm.masked.load", vf, h.ptr());
    Function store = h.m.intrinsic("llvm.masked.store", vf, h.ptr());
    Function pm = h.define("scale_m", h.ctx.voidType(), List.of("p", "s", "m"), h.ptr(), h.f32(), vm);
    Value x = b.call(load, List.of(pm.param(0), b.i32(4), pm.param(2), b.poison(vf)), "x");
    Value y = b.fadd(b.fmul(x, h.splat(pm.param(1), w), ""), h.splat(h.fconst(h.f32(), 1), w), "");
    b.call(store, List.of(y, pm.param(0), b.i32(4), pm.param(2)), "");
    b.retVoid();
    masked = DifferentialCheck.builder(h.m, "scale", "scale_m", w)
        .params(ParamSpec.linearPtr(h.f32(), w + 3, 4, Direction.INOUT, BufferInit.from(ValueDomain.floats(-50, 50).withSpecials())),
            ParamSpec.uniform(ValueDomain.floats(-4, 4).withNaN()), ParamSpec.mask())
        .build();

    int w16 = 16;
    Type color = h.ctx.structType(List.of(h.f32(), h.f32(), h.f32()), false);
    Type soaT = DifferentialCheck.soaType(color, w16);
    for (boolean packet : new boolean[] {false, true}) {
      Type t = packet ? h.v(h.f32(), w16) : h.f32();
      Type ct = packet ? soaT : color;
      Function f = h.define(packet ? "shade_v" : "shade", h.ctx.voidType(), List.of("a", "b", "out"), t, t, h.ptr());
      Value sum = b.fadd(f.param(0), f.param(1), "x");
      Value[] vals = {sum, b.fmul(sum, f.param(1), "y"), b.fsub(sum, f.param(0), "z")};
      for (int i = 0; i < 3; i++) b.store(vals[i], b.gep(ct, f.param(2), List.of(b.i32(0), b.i32(i)), true, ""));
      b.retVoid();
    }
    ValueDomain d = ValueDomain.floats(-1e3, 1e3).withSpecials();
    soa = DifferentialCheck.builder(h.m, "shade", "shade_v", w16)
        .params(ParamSpec.varying(d), ParamSpec.varying(d), ParamSpec.soaPtr(color, 1, Direction.OUT))
        .build();
  }

  @AfterContainer
  static synchronized void tearDown() {
    if (module == null) return;
    masked.close();
    soa.close();
    module.close();
    module = null;
  }

  @Provide Arbitrary<Inputs> maskedInputs() {
    setUp();
    return CheckArbitraries.inputs(masked);
  }

  @Provide Arbitrary<Inputs> soaInputs() {
    setUp();
    return CheckArbitraries.inputs(soa);
  }

  @Property(tries = 200)
  void maskedLinearAccessAgrees(@ForAll("maskedInputs") Inputs in) {
    CheckResult r = masked.run(in);
    assertTrue(r.passed(), r::report);
  }

  @Property(tries = 200)
  void soaOutputAgrees(@ForAll("soaInputs") Inputs in) {
    CheckResult r = soa.run(in);
    assertTrue(r.passed(), r::report);
  }
}
