package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Hand-built scalar/packet function pairs for the harness tests, made with the facade's IrBuilder (no
 * IR text). Owns a context, a module and a builder.
 */
final class HandBuilt implements AutoCloseable {
  final LlvmContext ctx = LlvmContext.create();
  final LlvmModule m;
  final IrBuilder b = new IrBuilder(ctx);

  HandBuilt(String name) { m = ctx.createModule(name); }

  Type f32() { return ctx.floatType(); }
  Type i32() { return ctx.i32(); }
  Type ptr() { return ctx.ptrType(); }
  Type v(Type t, int w) { return t.vectorOf(w); }

  /** Adds {@code name(params) -> ret}, names its parameters, positions the builder in its entry block. */
  Function define(String name, Type ret, List<String> names, Type... params) {
    Function f = m.addFunction(name, ctx.functionType(ret, List.of(params), false));
    for (int i = 0; i < names.size(); i++) f.param(i).setName(names.get(i));
    b.atEnd(f.appendBlock("entry"));
    return f;
  }

  Value splat(Value s, int w) { return b.splat(s, w, ""); }

  Value fconst(Type t, double v) { return b.constReal(t, v); }

  /** A constant float vector with {@code lane} set to {@code v} and every other lane -0.0 (x + -0.0 == x). */
  Value oneLane(int w, int lane, double v) {
    List<Value> es = new ArrayList<>();
    for (int k = 0; k < w; k++) es.add(fconst(f32(), k == lane ? v : -0.0));
    return b.constVector(es);
  }

  // ---- Fig 4.2 / Fig 4.15 ----

  /**
   * The thesis' Fig 4.2 {@code scalarFn(a, b) { x = a + b; y = x*x - b; return x + y; }} on type
   * {@code t} (float: the scalar function; {@code <W x float>}: its packet version, Fig 4.15). With
   * {@code wrongLane >= 0} the result of that lane gets +1.0 (a deliberately broken packet function).
   */
  Function fig42(String name, Type t, int wrongLane) {
    Function f = define(name, t, List.of("a", "b"), t, t);
    Value a = f.param(0), bb = f.param(1);
    Value x = b.fadd(a, bb, "x");
    Value y = b.fsub(b.fmul(x, x, "xx"), bb, "y");
    Value r = b.fadd(x, y, "r");
    if (wrongLane >= 0) r = b.fadd(r, oneLane(t.vectorSize(), wrongLane, 1.0), "r.wrong");
    b.ret(r);
    return f;
  }

  @Override
  public void close() {
    b.close();
    m.close();
    ctx.close();
  }

  static Value[] lanes(IrBuilder b, Value vec, int w, String name) {
    Value[] out = new Value[w];
    for (int k = 0; k < w; k++) out[k] = b.extractElement(vec, k, name + k);
    return out;
  }

  static Value bitcast(IrBuilder b, Value v, Type t) { return b.cast(Opcode.BITCAST, v, t, ""); }
}
