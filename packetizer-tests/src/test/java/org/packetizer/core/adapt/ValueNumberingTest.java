package org.packetizer.core.adapt;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.packetizer.analysis.cfg.Cfg;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.analysis.divergence.OpKind;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.analysis.divergence.SsaFunction;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;

/**
 * The numbers {@link LlvmSsaFunction} gives its instructions (issue 16, thirteenth round): the facade
 * makes a new {@link Value} object per walk, so two objects of one instruction must get one number —
 * the view's own object by the number it carries, any other by its address — and the divergence
 * analysis, which keeps its shapes in arrays by that number, must answer as it does without one.
 * On {@link LlvmSsaFunctionNumberingTest}'s function, compiled by the bundled clang at -O2.
 */
class ValueNumberingTest {

  @Test
  void twoObjectsOfOneInstructionGetOneNumber() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = LlvmSsaFunctionNumberingTest.compile(ctx)) {
      org.packetizer.core.ir.Function fn = m.function("f").orElseThrow();
      LlvmSsaFunction ssa = LlvmSsaFunctionNumberingTest.view(m, fn);
      int i = 0;
      int canonicalOperands = 0;
      for (Block b : fn.blocks()) {
        List<Value> handedOut = ssa.instructions(b);
        List<Value> walked = b.instructions();
        assertEquals(handedOut, walked);
        for (int k = 0; k < walked.size(); k++, i++) {
          Value mine = handedOut.get(k), other = walked.get(k);
          assertNotSame(mine, other, "a second walk makes new objects");
          assertSame(mine, ssa.valueAt(i));
          assertEquals(i, mine.numberIn(ssa), "the view's object carries its number");
          assertEquals(-1, other.numberIn(ssa), "a walked object carries none");
          assertEquals(i, ssa.index(mine));
          assertEquals(i, ssa.index(other), "found by address: " + other.print());
          assertEquals(i, ssa.number(other));
          assertSame(mine, ssa.canonical(other));
          assertEquals(ssa.opcode(mine), ssa.opcode(other));
          assertEquals(ssa.kind(mine), ssa.kind(other));
          assertSame(ssa.operands(mine), ssa.operands(other), "one kept operand list per instruction");
          // the kept operand lists hold the view's objects for its instructions, other values as walked
          List<Value> ops = ssa.operands(other);
          for (Value o : ops) {
            int n = ssa.index(o);
            if (n >= 0) {
              assertSame(ssa.valueAt(n), o, "operand " + o.print() + " of " + other.print());
              assertEquals(n, o.numberIn(ssa));
              canonicalOperands++;
            } else {
              assertEquals(-1, o.numberIn(ssa));
            }
          }
        }
      }
      assertEquals(i, ssa.numberCount());
      assertTrue(canonicalOperands > 20, "operands that are instructions: " + canonicalOperands);
      for (Value p : fn.params()) {
        assertEquals(-1, ssa.number(p));
        assertSame(p, ssa.canonical(p));
      }
      for (Value v : m.function("other").orElseThrow().entry().instructions()) assertEquals(-1, ssa.number(v), v.print());
    }
  }

  @Test
  void aNumberIsTheOwnersOnly() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = LlvmSsaFunctionNumberingTest.compile(ctx)) {
      org.packetizer.core.ir.Function fn = m.function("f").orElseThrow();
      LlvmSsaFunction before = LlvmSsaFunctionNumberingTest.view(m, fn);
      List<Value> objects = new ArrayList<>();
      for (Block b : fn.blocks()) objects.addAll(before.instructions(b));
      // one instruction more at the top: every later view numbers the old instructions one higher
      Value first = fn.entry().firstInstruction();
      try (var builder = new org.packetizer.core.ir.IrBuilder(ctx)) {
        builder.before(first).insertClone(first, "copy");
      }
      LlvmSsaFunction after = LlvmSsaFunctionNumberingTest.view(m, fn);
      for (int i = 0; i < objects.size(); i++) {
        Value v = objects.get(i);
        assertEquals(i, v.numberIn(before));
        assertEquals(-1, v.numberIn(after), "the later view did not number the earlier view's object");
        assertEquals(i + 1, after.index(v), v.print());
        assertEquals(i, before.index(v));
      }
      // the same object numbered by another owner keeps answering each owner by its own numbering
      Value v = objects.get(3);
      v.number(after, 4);
      assertEquals(4, after.index(v));
      assertEquals(3, before.index(v), "the earlier view finds it by address");
    }
  }

  @Test
  void shapesByNumberAreTheShapesWithoutNumbers() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = LlvmSsaFunctionNumberingTest.compile(ctx)) {
      org.packetizer.core.ir.Function fn = m.function("f").orElseThrow();
      LlvmSsaFunction ssa = LlvmSsaFunctionNumberingTest.view(m, fn);
      Unnumbered plain = new Unnumbered(ssa);
      CfgAnalyses<Block> cfg = CfgAnalyses.of(ssa.cfg());
      // a consecutive floats per lane (linear addresses), p and n uniform, sel varying: the switch on
      // (sel + i) & 3 is divergent inside the loop
      List<Value> params = fn.params();
      Map<Value, Shape> seeds = new LinkedHashMap<>();
      seeds.put(params.get(0), Shape.linear(4, 4));
      seeds.put(params.get(1), Shape.UNIFORM);
      seeds.put(params.get(2), Shape.UNIFORM);
      seeds.put(params.get(3), Shape.VARYING);
      DivergenceInfo<Block, Value> numbered = DivergenceAnalysis.run(ssa, cfg, seeds, false);
      DivergenceInfo<Block, Value> hashed = DivergenceAnalysis.run(plain, cfg, seeds, false);
      int varying = 0, uniform = 0, linear = 0;
      for (Block b : fn.blocks()) {
        for (Value walked : b.instructions()) {
          Shape want = hashed.shape(walked);
          assertEquals(want, numbered.shape(walked), walked.print());
          assertEquals(want, numbered.shape(ssa.canonical(walked)), walked.print());
          assertEquals(hashed.reason(walked), numbered.reason(walked), walked.print());
          if (want.isVarying()) varying++;
          else if (want.isUniform()) uniform++;
          else linear++;
        }
        assertEquals(hashed.isDivergentBranch(b), numbered.isDivergentBranch(b), b.name());
        assertEquals(hashed.mayBePartial(b), numbered.mayBePartial(b), b.name());
      }
      for (Value p : params) assertEquals(hashed.shape(p), numbered.shape(p));
      assertEquals(hashed.shapes(), numbered.shapes());
      assertEquals(hashed.divergentBranches(), numbered.divergentBranches());
      assertTrue(varying > 5 && uniform > 5 && linear >= 1, "shapes of every kind: " + varying + " varying, " + uniform
          + " uniform, " + linear + " linear");
      assertFalse(numbered.divergentBranches().isEmpty(), "the switch is divergent");
    }
  }

  /** The same function without {@link SsaFunction#number}: the analysis keeps its maps. */
  private record Unnumbered(LlvmSsaFunction f) implements SsaFunction<Block, Value> {
    @Override public Cfg<Block> cfg() { return f.cfg(); }
    @Override public List<Value> parameters() { return f.parameters(); }
    @Override public List<Value> instructions(Block block) { return f.function().blocks().contains(block) ? block.instructions() : List.of(); }
    @Override public Optional<Block> blockOf(Value value) { return f.blockOf(value); }
    @Override public OpKind kind(Value value) { return f.kind(value); }
    @Override public List<Value> operands(Value value) { return f.operands(value); }
    @Override public List<Map.Entry<Block, Value>> incoming(Value phi) { return f.incoming(phi); }
    @Override public Optional<Value> branchCondition(Block block) { return f.branchCondition(block); }
    @Override public OptionalLong intConstant(Value value) { return f.intConstant(value); }
    @Override public OptionalLong gepScale(Value gep, int operandIndex) { return f.gepScale(gep, operandIndex); }
    @Override public long gepConstantOffset(Value gep) { return f.gepConstantOffset(gep); }
    @Override public long allocaSize(Value alloca) { return f.allocaSize(alloca); }
    @Override public boolean isPureCall(Value call) { return f.isPureCall(call); }
    @Override public int bitWidth(Value value) { return f.bitWidth(value); }
    @Override public Optional<Shape> customShape(Value value, Function<Value, Shape> current) { return f.customShape(value, current); }
  }
}
