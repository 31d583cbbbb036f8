package org.packetizer.core.check;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * The proof the harness works: correct hand-built packet functions pass, and each kind of wrong one
 * (a lane off, a field swapped, an inactive lane written, a byte past a buffer, a call missing) is
 * caught and reported at the right lane with that lane's inputs.
 */
class DifferentialCheckTest {
  private static final int W = 4;

  // ---- return values ----

  @Test
  void wrongLaneIsCaughtAndNamed() {
    try (HandBuilt h = new HandBuilt("fig42-wrong")) {
      h.fig42("scalarFn", h.f32(), -1);
      h.fig42("generatedFn", h.v(h.f32(), W), 2);
      byte[] before = h.m.toBitcode();
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", W).build()) {
        assertEquals(List.of(ParamSpec.varying(), ParamSpec.varying()), c.params(), "inferred specs");
        CheckResult r = c.run(Inputs.of(0, new Object[] {0.5f, 0.6f, 0.7f, 0.8f}, new Object[] {1f, 2f, 3f, 4f}));
        assertFalse(r.passed());
        assertEquals(1, r.mismatchCount(), r::report);
        CheckResult.Mismatch m = r.firstMismatch().orElseThrow();
        assertEquals(2, m.lane());
        assertEquals(2, r.firstDifferingLane());
        assertTrue(m.where().contains("return value"), m.where());
        assertTrue(m.laneInputs().contains("a=0.7") && m.laneInputs().contains("b=3.0"), m.laneInputs());
        // x = 3.7, y = x*x - 3: expected x + y, packet one more
        float x = 0.7f + 3f, expected = x + (x * x - 3f);
        assertTrue(m.expected().startsWith(Float.toString(expected)), m.expected());
        assertTrue(m.actual().startsWith(Float.toString(expected + 1f)), m.actual());
        assertTrue(r.report().contains("lane 2"), r.report());
        // generated inputs find it too
        CheckResult g = c.runMany(50, 42);
        assertFalse(g.passed());
        assertEquals(2, g.firstDifferingLane(), g::report);
      }
      assertArrayEquals(before, h.m.toBitcode(), "the check does not change the caller's module");
    }
  }

  @Test
  void ulpToleranceIsPerCheck() {
    try (HandBuilt h = new HandBuilt("ulps")) {
      h.fig42("scalarFn", h.f32(), -1);
      // the packet result, one ULP up: bitcast to ints, add 1, bitcast back
      Type vf = h.v(h.f32(), W), vi = h.v(h.i32(), W);
      Function f = h.define("off_by_one_ulp", vf, List.of("a", "b"), vf, vf);
      IrBuilder b = h.b;
      Value x = b.fadd(f.param(0), f.param(1), "x");
      Value r = b.fadd(x, b.fsub(b.fmul(x, x, ""), f.param(1), ""), "r");
      Value bits = b.add(HandBuilt.bitcast(b, r, vi), h.splat(b.i32(1), W), "bits");
      b.ret(HandBuilt.bitcast(b, bits, vf));
      ValueDomain d = ValueDomain.floats(1, 100); // positive: +1 in the bits is +1 ULP
      try (DifferentialCheck exact = DifferentialCheck.builder(h.m, "scalarFn", "off_by_one_ulp", W)
              .params(ParamSpec.varying(d), ParamSpec.varying(d)).build();
           DifferentialCheck loose = DifferentialCheck.builder(h.m, "scalarFn", "off_by_one_ulp", W)
              .params(ParamSpec.varying(d), ParamSpec.varying(d)).ulps(1).build()) {
        assertFalse(exact.runMany(5, 1).passed());
        CheckResult lr = loose.runMany(100, 1);
        assertTrue(lr.passed(), lr::report);
        assertEquals(400, lr.lanesCompared());
      }
    }
  }

  @Test
  void uniformAndStructReturnsAndBooleanLanes() {
    try (HandBuilt h = new HandBuilt("returns")) {
      IrBuilder b = h.b;
      Type i1 = h.ctx.i1();
      // i32 pick(i1 c, i32 a, i32 b) = c ? a : b    and its packet form on <W x i1>
      Function s = h.define("pick", h.i32(), List.of("c", "a", "b"), i1, h.i32(), h.i32());
      b.ret(b.select(s.param(0), s.param(1), s.param(2), "r"));
      Function p = h.define("pick_v", h.v(h.i32(), W), List.of("c", "a", "b"), h.v(i1, W), h.v(h.i32(), W), h.v(h.i32(), W));
      b.ret(b.select(p.param(0), p.param(1), p.param(2), "r"));
      // {float, i32} pair(float a, i32 k) = {a * 2, k + 1}, with a uniform and k varying:
      // the packet returns {float, <W x i32>}: a uniform field and a varying one
      Type st = h.ctx.structType(List.of(h.f32(), h.i32()), false);
      Function s2 = h.define("pair", st, List.of("a", "k"), h.f32(), h.i32());
      Value v1 = b.insertValue(b.poison(st), b.fmul(s2.param(0), h.fconst(h.f32(), 2), ""), 0, "");
      b.ret(b.insertValue(v1, b.add(s2.param(1), b.i32(1), ""), 1, ""));
      Type pst = h.ctx.structType(List.of(h.f32(), h.v(h.i32(), W)), false);
      Function p2 = h.define("pair_v", pst, List.of("a", "k"), h.f32(), h.v(h.i32(), W));
      Value w1 = b.insertValue(b.poison(pst), b.fmul(p2.param(0), h.fconst(h.f32(), 2), ""), 0, "");
      b.ret(b.insertValue(w1, b.add(p2.param(1), h.splat(b.i32(1), W), ""), 1, ""));

      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "pick", "pick_v", W).build()) {
        assertEquals(ScalarKind.BOOL, c.inputSlots().get(0).kind());
        CheckResult r = c.run(Inputs.of(0, new boolean[] {true, false, true, false}, new int[] {1, 2, 3, 4}, new int[] {-1, -2, -3, -4}));
        assertTrue(r.passed(), r::report);
        assertTrue(c.runMany(100, 3).passed());
      }
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "pair", "pair_v", W).build()) {
        assertEquals(List.of(ParamSpec.uniform(), ParamSpec.varying()), c.params());
        CheckResult r = c.runMany(100, 4);
        assertTrue(r.passed(), r::report);
        assertEquals(100L * W * 8, r.bytesCompared());
      }
    }
  }

  @Test
  void linearIntegerParameter() {
    try (HandBuilt h = new HandBuilt("linear")) {
      IrBuilder b = h.b;
      // i32 tri(i32 i) = 3 * i + 1; packet: tri_v(i32 base) with lane k at base + 2k
      Function s = h.define("tri", h.i32(), List.of("i"), h.i32());
      b.ret(b.add(b.mul(s.param(0), b.i32(3), ""), b.i32(1), ""));
      Function p = h.define("tri_v", h.v(h.i32(), W), List.of("base"), h.i32());
      Value lanes = b.add(h.splat(p.param(0), W), b.mul(b.laneIndices(h.i32(), W), h.splat(b.i32(2), W), ""), "i");
      b.ret(b.add(b.mul(lanes, h.splat(b.i32(3), W), ""), h.splat(b.i32(1), W), ""));
      try (DifferentialCheck ok = DifferentialCheck.builder(h.m, "tri", "tri_v", W)
              .params(ParamSpec.linear(2, ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE))).build();
           DifferentialCheck wrongStep = DifferentialCheck.builder(h.m, "tri", "tri_v", W).params(ParamSpec.linear(1)).build()) {
        CheckResult r = ok.runMany(200, 5);
        assertTrue(r.passed(), r::report);
        CheckResult bad = wrongStep.run(Inputs.of(0, 10));
        assertEquals(1, bad.firstDifferingLane(), bad::report);
        assertTrue(bad.firstMismatch().orElseThrow().laneInputs().contains("i=11"), bad::report);
      }
    }
  }

  // ---- pointer kinds ----

  /** {@code shade(a, b, out)}: the thesis' Color example, writing x, y, x + y into a Color. */
  private static void shade(HandBuilt h, Type colorOrSoa, Type t, String name, boolean swap) {
    IrBuilder b = h.b;
    Function f = h.define(name, h.ctx.voidType(), List.of("a", "b", "out"), t, t, h.ptr());
    Value x = b.fadd(f.param(0), f.param(1), "x");
    Value y = b.fsub(b.fmul(x, x, ""), f.param(1), "y");
    Value z = b.fadd(x, y, "z");
    Value[] vals = swap ? new Value[] {x, z, y} : new Value[] {x, y, z};
    for (int i = 0; i < 3; i++) {
      Value gep = b.gep(colorOrSoa, f.param(2), List.of(b.i32(0), b.i32(i)), true, "f" + i);
      b.store(vals[i], gep);
    }
    b.retVoid();
  }

  @Test
  void soaPointerColorOutput() {
    try (HandBuilt h = new HandBuilt("soa")) {
      Type color = h.ctx.namedStruct("Color", List.of(h.f32(), h.f32(), h.f32()), false);
      Type soa = DifferentialCheck.soaType(color, W);
      assertEquals(h.ctx.structType(List.of(h.v(h.f32(), W), h.v(h.f32(), W), h.v(h.f32(), W)), false), soa);
      shade(h, color, h.f32(), "shade", false);
      shade(h, soa, h.v(h.f32(), W), "shade_v", false);
      shade(h, soa, h.v(h.f32(), W), "shade_swapped", true);
      List<ParamSpec> specs = List.of(ParamSpec.varying(), ParamSpec.varying(), ParamSpec.soaPtr(color, 1, Direction.OUT));
      try (DifferentialCheck ok = DifferentialCheck.builder(h.m, "shade", "shade_v", W).params(specs).build();
           DifferentialCheck bad = DifferentialCheck.builder(h.m, "shade", "shade_swapped", W).params(specs).build()) {
        CheckResult r = ok.runMany(200, 6);
        assertTrue(r.passed(), r::report);
        assertEquals(200L * W * 12, r.bytesCompared(), "12 bytes of Color per lane");
        CheckResult f = bad.run(Inputs.of(1, new float[] {1, 2, 3, 4}, new float[] {5, 6, 7, 8}, null));
        assertFalse(f.passed());
        CheckResult.Mismatch m = f.firstMismatch().orElseThrow();
        assertEquals(0, m.lane());
        assertTrue(m.where().contains("SoA buffer 'out'") && m.where().contains("field .1"), m.where());
        assertTrue(m.laneInputs().contains("a=1.0") && m.laneInputs().contains("b=5.0"), m.laneInputs());
        assertEquals(2 * W, f.mismatchCount(), f::report);
      }
    }
  }

  @Test
  void nestedSoaWithInOutArrays() {
    try (HandBuilt h = new HandBuilt("soa-nested")) {
      IrBuilder b = h.b;
      // struct P { i32 n; [2 x double] v; } ; bump(P* p, double d): p->v[1] += d * p->n; p->n += 1
      Type st = h.ctx.structType(List.of(h.i32(), h.ctx.doubleType().arrayOf(2)), false);
      Type soa = DifferentialCheck.soaType(st, W);
      for (boolean packet : new boolean[] {false, true}) {
        Type t = packet ? soa : st;
        Type dt = packet ? h.v(h.ctx.doubleType(), W) : h.ctx.doubleType();
        Type it = packet ? h.v(h.i32(), W) : h.i32();
        Function f = h.define(packet ? "bump_v" : "bump", h.ctx.voidType(), List.of("p", "d"), h.ptr(), dt);
        Value np = b.gep(t, f.param(0), List.of(b.i32(0), b.i32(0)), true, "np");
        Value vp = b.gep(t, f.param(0), List.of(b.i32(0), b.i32(1), b.i32(1)), true, "vp");
        Value n = b.load(it, np, "n");
        Value nd = b.cast(Opcode.SITOFP, n, dt, "nd");
        b.store(b.fadd(b.load(dt, vp, "v"), b.fmul(f.param(1), nd, ""), ""), vp);
        b.store(b.add(n, packet ? h.splat(b.i32(1), W) : b.i32(1), ""), np);
        b.retVoid();
      }
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "bump", "bump_v", W)
          .params(ParamSpec.soaPtr(st, 1, Direction.INOUT), ParamSpec.varying(ValueDomain.floats(-10, 10).withSpecials())).build()) {
        CheckResult r = c.runMany(200, 7);
        assertTrue(r.passed(), r::report);
      }
    }
  }

  @Test
  void uniformPointerTableRead() {
    try (HandBuilt h = new HandBuilt("table")) {
      IrBuilder b = h.b;
      // float lookup(i32 i, float* table) = table[i & 15]
      Function s = h.define("lookup", h.f32(), List.of("i", "table"), h.i32(), h.ptr());
      Value idx = b.cast(Opcode.SEXT, b.and(s.param(0), b.i32(15), ""), h.ctx.i64(), "idx");
      b.ret(b.load(h.f32(), b.gep(h.f32(), s.param(1), List.of(idx), true, "p"), "v"));
      // packet: a gather as W scalar loads (extract, load, insert)
      for (boolean wrong : new boolean[] {false, true}) {
        Function p = h.define(wrong ? "lookup_wrong" : "lookup_v", h.v(h.f32(), W), List.of("i", "table"), h.v(h.i32(), W), h.ptr());
        Value vi = b.and(p.param(0), h.splat(b.i32(wrong ? 7 : 15), W), "vi");
        Value acc = b.poison(h.v(h.f32(), W));
        for (int k = 0; k < W; k++) {
          Value e = b.cast(Opcode.SEXT, b.extractElement(vi, k, ""), h.ctx.i64(), "");
          acc = b.insertElement(acc, b.load(h.f32(), b.gep(h.f32(), p.param(1), List.of(e), true, ""), ""), k, "");
        }
        b.ret(acc);
      }
      List<ParamSpec> specs = List.of(ParamSpec.varying(ValueDomain.ints(-64, 64)),
          ParamSpec.uniformPtr(h.f32(), 16, Direction.IN, BufferInit.ramp()));
      try (DifferentialCheck ok = DifferentialCheck.builder(h.m, "lookup", "lookup_v", W).params(specs).build();
           DifferentialCheck bad = DifferentialCheck.builder(h.m, "lookup", "lookup_wrong", W).params(specs).build()) {
        CheckResult r = ok.runMany(200, 8);
        assertTrue(r.passed(), r::report);
        CheckResult f = bad.run(Inputs.of(0, new int[] {1, 9, 3, 15}, null));
        assertEquals(1, f.firstDifferingLane(), f::report);
        assertTrue(f.firstMismatch().orElseThrow().laneInputs().contains("i=9"), f::report);
        assertTrue(f.firstMismatch().orElseThrow().laneInputs().contains("table=shared buffer"), f::report);
      }
    }
  }

  @Test
  void varyingPointersInOut() {
    try (HandBuilt h = new HandBuilt("varying-ptr")) {
      IrBuilder b = h.b;
      // void accumulate(float* p, float v) { *p += v; }
      Function s = h.define("accumulate", h.ctx.voidType(), List.of("p", "v"), h.ptr(), h.f32());
      b.store(b.fadd(b.load(h.f32(), s.param(0), "old"), s.param(1), ""), s.param(0));
      b.retVoid();
      Function p = h.define("accumulate_v", h.ctx.voidType(), List.of("p", "v"), h.v(h.ptr(), W), h.v(h.f32(), W));
      for (int k = 0; k < W; k++) {
        Value pk = b.extractElement(p.param(0), k, "p" + k);
        b.store(b.fadd(b.load(h.f32(), pk, ""), b.extractElement(p.param(1), k, ""), ""), pk);
      }
      b.retVoid();
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "accumulate", "accumulate_v", W)
          .params(ParamSpec.varyingPtr(h.f32(), 1, Direction.INOUT), ParamSpec.varying()).build()) {
        CheckResult r = c.runMany(200, 9);
        assertTrue(r.passed(), r::report);
      }
    }
  }

  /** {@code scale(p, s)}: {@code *p *= s} for consecutive p, and masked/unmasked packet forms. */
  private static void scaleKernels(HandBuilt h) {
    IrBuilder b = h.b;
    Type vf = h.v(h.f32(), W), vm = h.v(h.ctx.i1(), W);
    Function s = h.define("scale", h.ctx.voidType(), List.of("p", "s"), h.ptr(), h.f32());
    b.store(b.fmul(b.load(h.f32(), s.param(0), "x"), s.param(1), ""), s.param(0));
    b.retVoid();
    // unmasked packet: one vector load and store
    Function p = h.define("scale_v", h.ctx.voidType(), List.of("p", "s"), h.ptr(), h.f32());
    b.store(b.fmul(b.load(vf, p.param(0), 4, "x"), h.splat(p.param(1), W), ""), p.param(0), 4);
    b.retVoid();
    // masked packet: llvm.masked.load / llvm.masked.store
    Function load = h.m.intrinsic("llvm.masked.load", vf, h.ptr());
    Function store = h.m.intrinsic("llvm.masked.store", vf, h.ptr());
    Function pm = h.define("scale_m", h.ctx.voidType(), List.of("p", "s", "m"), h.ptr(), h.f32(), vm);
    Value x = b.call(load, List.of(pm.param(0), b.i32(4), pm.param(2), b.poison(vf)), "x");
    b.call(store, List.of(b.fmul(x, h.splat(pm.param(1), W), ""), pm.param(0), b.i32(4), pm.param(2)), "");
    b.retVoid();
    // "masked" packet that ignores the mask
    Function pw = h.define("scale_ignores_mask", h.ctx.voidType(), List.of("p", "s", "m"), h.ptr(), h.f32(), vm);
    b.store(b.fmul(b.load(vf, pw.param(0), 4, "x"), h.splat(pw.param(1), W), ""), pw.param(0), 4);
    b.retVoid();
  }

  @Test
  void linearPointerAndMasks() {
    try (HandBuilt h = new HandBuilt("linear-ptr")) {
      scaleKernels(h);
      ParamSpec buf = ParamSpec.linearPtr(h.f32(), W, 4, Direction.INOUT);
      try (DifferentialCheck unmasked = DifferentialCheck.builder(h.m, "scale", "scale_v", W).params(buf, ParamSpec.uniform()).build();
           DifferentialCheck masked = DifferentialCheck.builder(h.m, "scale", "scale_m", W)
               .params(buf, ParamSpec.uniform(), ParamSpec.mask()).build();
           DifferentialCheck ignores = DifferentialCheck.builder(h.m, "scale", "scale_ignores_mask", W)
               .params(buf, ParamSpec.uniform(), ParamSpec.mask()).build()) {
        CheckResult r = unmasked.runMany(200, 10);
        assertTrue(r.passed(), r::report);
        CheckResult m = masked.runMany(300, 11);
        assertTrue(m.passed(), m::report);
        CheckResult half = masked.run(Inputs.of(2, null, 2.0f, new boolean[] {true, false, true, true}));
        assertTrue(half.passed(), half::report);
        assertEquals(3, half.lanesCompared());

        // ignoring the mask writes lane 1's element although lane 1 is inactive
        CheckResult f = ignores.run(Inputs.of(2, null, 2.0f, new boolean[] {true, false, true, true}));
        assertFalse(f.passed());
        CheckResult.Mismatch mm = f.firstMismatch().orElseThrow();
        assertEquals(1, mm.lane(), f::report);
        assertTrue(mm.where().contains("buffer 'p'") && mm.where().contains("byte offset 4"), mm.where());
        assertTrue(mm.laneInputs().contains("m=INACTIVE"), mm.laneInputs());
        assertEquals(1, f.mismatchCount(), f::report);
        // generated masks find it as well
        assertFalse(ignores.runMany(100, 12).passed());
      }
    }
  }

  @Test
  void writeOnePastTheBufferIsCaughtByCanaries() {
    try (HandBuilt h = new HandBuilt("canary")) {
      IrBuilder b = h.b;
      // void set(float* p, float v) { *p = v; }
      Function s = h.define("set", h.ctx.voidType(), List.of("p", "v"), h.ptr(), h.f32());
      b.store(s.param(1), s.param(0));
      b.retVoid();
      // packet: correct stores, plus lane 1 also writes the byte just after its 4-byte buffer
      Function p = h.define("set_v", h.ctx.voidType(), List.of("p", "v"), h.v(h.ptr(), W), h.v(h.f32(), W));
      for (int k = 0; k < W; k++) {
        Value pk = b.extractElement(p.param(0), k, "p" + k);
        b.store(b.extractElement(p.param(1), k, ""), pk);
        if (k == 1) b.store(b.constInt(h.ctx.i8(), 0x5A), b.gep(h.ctx.i8(), pk, List.of(b.i64(4)), false, "past"));
      }
      b.retVoid();
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "set", "set_v", W)
          .params(ParamSpec.varyingPtr(h.f32(), 1, Direction.OUT), ParamSpec.varying()).build()) {
        CheckResult r = c.run(Inputs.of(3, null, new float[] {1, 2, 3, 4}));
        assertFalse(r.passed());
        assertEquals(1, r.mismatchCount(), r::report);
        CheckResult.Mismatch m = r.firstMismatch().orElseThrow();
        assertEquals(1, m.lane());
        assertTrue(m.where().contains("canary") && m.where().contains("byte 0 past its end") && m.where().contains("packet run"), m.where());
        assertEquals("0x5a", m.actual());
      }
    }
  }

  // ---- external calls with side effects ----

  @Test
  void recordedCallsCompareAsMultisets() {
    try (HandBuilt h = new HandBuilt("calls")) {
      IrBuilder b = h.b;
      Type vi = h.v(h.i32(), W), vm = h.v(h.ctx.i1(), W);
      Function record = h.m.addFunction("record", h.ctx.functionType(h.ctx.voidType(), List.of(h.i32()), false));
      // void emit(i32 x) { record(2 * x); }
      Function s = h.define("emit", h.ctx.voidType(), List.of("x"), h.i32());
      b.call(record, List.of(b.mul(s.param(0), b.i32(2), "")), "");
      b.retVoid();
      // packet: W calls, in reverse lane order (order does not matter); a wrong one forgets the last lane
      for (boolean wrong : new boolean[] {false, true}) {
        Function p = h.define(wrong ? "emit_forgets" : "emit_v", h.ctx.voidType(), List.of("x"), vi);
        Value d = b.mul(p.param(0), h.splat(b.i32(2), W), "d");
        for (int k = W - 1; k >= 0; k--) {
          if (wrong && k == W - 1) continue;
          b.call(record, List.of(b.extractElement(d, k, "")), "");
        }
        b.retVoid();
      }
      // masked packet: an if-cascade, one guarded call per lane (thesis 4.5.4)
      Function pm = h.define("emit_m", h.ctx.voidType(), List.of("x", "m"), vi, vm);
      Value d = b.mul(pm.param(0), h.splat(b.i32(2), W), "d");
      for (int k = 0; k < W; k++) {
        Block call = pm.appendBlock("call" + k), next = pm.appendBlock("next" + k);
        b.condBr(b.extractElement(pm.param(1), k, "m" + k), call, next);
        b.atEnd(call);
        b.call(record, List.of(b.extractElement(d, k, "")), "");
        b.br(next);
        b.atEnd(next);
      }
      b.retVoid();

      FunctionDescriptor fd = FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT);
      try (DifferentialCheck ok = DifferentialCheck.builder(h.m, "emit", "emit_v", W).recordCalls("record", fd).build();
           DifferentialCheck bad = DifferentialCheck.builder(h.m, "emit", "emit_forgets", W).recordCalls("record", fd).build();
           DifferentialCheck masked = DifferentialCheck.builder(h.m, "emit", "emit_m", W).recordCalls("record", fd).build()) {
        CheckResult r = ok.run(Inputs.of(0, (Object) new int[] {1, 1, 2, 3}));
        assertTrue(r.passed(), r::report);
        assertTrue(ok.runMany(100, 13).passed());
        CheckResult f = bad.run(Inputs.of(0, (Object) new int[] {5, 6, 7, 8}));
        assertFalse(f.passed());
        CheckResult.Mismatch m = f.firstMismatch().orElseThrow();
        assertEquals(W - 1, m.lane(), f::report);
        assertTrue(m.where().contains("record(16)"), m.where());
        assertTrue(m.laneInputs().contains("x=8"), m.laneInputs());
        CheckResult mr = masked.runMany(200, 14);
        assertTrue(mr.passed(), mr::report);
        // the masked variant called with a mask makes no calls for inactive lanes, as the scalar runs don't
        assertTrue(masked.run(Inputs.of(0, new int[] {1, 2, 3, 4}, new boolean[] {false, true, false, false})).passed());
        // inputs must cover the mask parameter too
        assertThrows(IllegalArgumentException.class, () -> masked.run(Inputs.of(0, (Object) new int[] {1, 2, 3, 4})));
      }
    }
  }

  static int plus100(int x) { return x + 100; }

  static void ignore(int x) { }

  @Test
  @SuppressWarnings("restricted")
  void recordedCallsWithResultsAndPlainExternals() throws Exception {
    try (HandBuilt h = new HandBuilt("calls-with-results")) {
      IrBuilder b = h.b;
      Type vi = h.v(h.i32(), W);
      // i32 f(i32 x) = lookup_id(x) * 2 ; the packet calls lookup_id per lane
      Function lookupId = h.m.addFunction("lookup_id", h.ctx.functionType(h.i32(), List.of(h.i32()), false));
      Function log = h.m.addFunction("log_it", h.ctx.functionType(h.ctx.voidType(), List.of(h.i32()), false));
      Function s = h.define("f", h.i32(), List.of("x"), h.i32());
      b.call(log, List.of(s.param(0)), "");
      b.ret(b.mul(b.call(lookupId, List.of(s.param(0)), "id"), b.i32(2), ""));
      Function p = h.define("f_v", vi, List.of("x"), vi);
      Value acc = b.poison(vi);
      for (int k = 0; k < W; k++) {
        Value xk = b.extractElement(p.param(0), k, "");
        b.call(log, List.of(xk), "");
        acc = b.insertElement(acc, b.call(lookupId, List.of(xk), ""), k, "");
      }
      b.ret(b.mul(acc, h.splat(b.i32(2), W), ""));
      var lookup = java.lang.invoke.MethodHandles.lookup();
      var impl = lookup.findStatic(DifferentialCheckTest.class, "plus100", java.lang.invoke.MethodType.methodType(int.class, int.class));
      var ignore = lookup.findStatic(DifferentialCheckTest.class, "ignore", java.lang.invoke.MethodType.methodType(void.class, int.class));
      try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
        long logStub = java.lang.foreign.Linker.nativeLinker().upcallStub(ignore, FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT), arena).address();
        try (DifferentialCheck c = DifferentialCheck.builder(h.m, "f", "f_v", W)
            .recordCalls("lookup_id", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), impl)
            .external("log_it", logStub)
            .build()) {
          CheckResult r = c.runMany(100, 15);
          assertTrue(r.passed(), r::report);
        }
      }
      assertThrows(IllegalArgumentException.class, () -> DifferentialCheck.builder(h.m, "f", "f_v", W)
          .recordCalls("lookup_id", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
    }
  }

  // ---- configuration errors ----

  @Test
  void specMismatchesAreClearErrors() {
    try (HandBuilt h = new HandBuilt("errors")) {
      h.fig42("scalarFn", h.f32(), -1);
      h.fig42("generatedFn", h.v(h.f32(), W), -1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
          DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", W).params(ParamSpec.uniform(), ParamSpec.varying()).build());
      assertTrue(e.getMessage().contains("#0") && e.getMessage().contains("<4 x float>"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", 8).build());
      assertTrue(e.getMessage().contains("cannot infer"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> DifferentialCheck.builder(h.m, "scalarFn", "nope", W).build());
      assertTrue(e.getMessage().contains("@nope"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () ->
          DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", W).params(ParamSpec.varying(ValueDomain.ints(0, 1)), ParamSpec.varying()).build());
      assertTrue(e.getMessage().contains("Floats"), e.getMessage());
      try (DifferentialCheck c = DifferentialCheck.builder(h.m, "scalarFn", "generatedFn", W).build()) {
        e = assertThrows(IllegalArgumentException.class, () -> c.run(Inputs.of(0, new float[] {1, 2, 3}, new float[] {1, 2, 3, 4})));
        assertTrue(e.getMessage().contains("3 lane values"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.run(Inputs.of(0, 1f)));
      }
    }
  }

  // ---- input generation ----

  @Test
  void generatorsFollowDomainsAndPatterns() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(1);
    ValueDomain.Floats plain = ValueDomain.floats(-5, 5);
    List<Object> edges = plain.edgeValues(ScalarKind.FLOAT, 32);
    assertTrue(edges.contains(0f) && edges.contains(-0f) && edges.contains(-5f) && edges.contains(5f), edges.toString());
    assertFalse(edges.stream().anyMatch(v -> ((Float) v).isNaN() || ((Float) v).isInfinite()), "NaN/inf only when asked");
    assertTrue(plain.withSpecials().edgeValues(ScalarKind.FLOAT, 32).contains(Float.NaN));
    for (int i = 0; i < 1000; i++) {
      float v = (Float) plain.sample(ScalarKind.FLOAT, 32, rnd);
      assertTrue(v >= -5 && v <= 5, "" + v);
      long x = (Long) ValueDomain.ints(-1000, 1000).sample(ScalarKind.INT, 8, rnd);
      assertTrue(x >= -128 && x <= 127, "clipped to i8: " + x);
    }
    Object[] eq = LanePattern.ALL_EQUAL.lanes(8, () -> rnd.nextInt());
    assertEquals(1, java.util.Arrays.stream(eq).distinct().count());
    Object[] alt = LanePattern.ALTERNATING.lanes(8, () -> rnd.nextInt());
    assertEquals(alt[0], alt[6]);
    assertEquals(alt[1], alt[7]);
    assertNotEquals(alt[0], alt[1]);
    assertEquals(8, java.util.Arrays.stream(LanePattern.ALL_DIFFERENT.lanes(8, () -> rnd.nextInt(1000))).distinct().count());
    boolean[] single = MaskPattern.SINGLE_ACTIVE.mask(16, rnd);
    int on = 0;
    for (boolean bit : single) if (bit) on++;
    assertEquals(1, on);
    List<Object> nonNull = new ArrayList<>();
    nonNull.add(Values.normalize(ScalarKind.INT, 8, 255));
    assertEquals(List.of(-1L), nonNull, "sign-extended from the type width");
  }
}
