package org.packetizer.core.driver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.IrreducibleCfgException;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.pipeline.PureCalls;
import org.packetizer.core.prepare.Preparer;

/**
 * Splits a scalar function at the header H of its outermost divergent loop into two scalar functions
 * that together are a state machine with one state, "at H" (lane refill, issue 17 §2):
 *
 * <ul>
 *   <li>{@code pre(args) -> {atH, state, result}}: the function from its entry until it reaches H
 *       (then {@code atH} is true and {@code state} holds the values live at H) or returns without
 *       entering the loop ({@code atH} false, {@code result} the return value);</li>
 *   <li>{@code iter(state, uniform args) -> {atH, state', result}}: from H, one iteration of the
 *       loop: back at H ({@code atH} true, the next state), or out of the loop and on through the code
 *       after it until the return ({@code atH} false, the result).</li>
 * </ul>
 *
 * The state is H's phis followed by the values defined before H (and the varying and linear
 * arguments) that the loop or the code after it uses. Running {@code pre} and then {@code iter} while
 * {@code atH} is the scalar function, step for step, with the same side effects in the same order.
 * Both are plain scalar functions: the packetizer makes their masked packet versions, which the refill
 * driver ({@link RefillDriver}) calls.
 *
 * <p>Why cut at a block and not split into pre/body/post: the code after the loop runs in the same
 * {@code iter} call as the last iteration (the exit branch is just another divergent branch there),
 * and a function that skips the loop for some inputs (a guard, an early return) needs no special case.
 * Only a loop at the top level of the loop forest is cut: then every value defined in {@code iter}'s
 * blocks is defined in the same call (H dominates the loop, and the code after it cannot reach H).
 * Cutting at a per-lane loop inside a uniform loop (rows around a per-pixel loop) was built and
 * tested (commit df25695: the outer loop's values as state in stack slots) and measured 3.3-6.6x
 * slower than the plain driver: with one state, {@code iter} holds the outer loop's code, which the
 * packet function runs (linearized, masked, with a loop in it) in every inner iteration. Doing it
 * well needs a second state at the inner loop's exit (a third function, run only for the lanes
 * that left); docs/drivers.md.
 */
final class RefillSplit {
  private RefillSplit() {}

  /** A split: the two new scalar functions (internal; the caller deletes them) and what the rule needs. */
  record Split(Function pre, Function iter, List<Type> state, List<Integer> uniformArgs, String header,
      int loopInstructions, int instructions, boolean divergentLoop, Optional<String> whyIterMasked, int budget,
      int counterSlot, long counterStep, List<ResultStep> counterSteps) {}

  /**
   * One step from the loop's counter as a lane leaves it to the function's result ({@link #counterSlot}): a cast to
   * {@code type} ({@code op} TRUNC, ZEXT or SEXT; {@code constant} null, {@code uniform} -1), or a binary operation of
   * the value so far with a constant ({@code constant}) or a uniform argument ({@code uniform}: its index among the scalar
   * function's parameters), the value so far on the left where {@code valueFirst}. The steps are applied in order; no
   * flag of the original instruction is kept ({@code nsw}, {@code nneg}, {@code disjoint}: dropping them only removes
   * poison, and the driver applies the steps to the lanes that finished, whose counter is what the scalar function saw).
   */
  record ResultStep(Opcode op, Type type, Value constant, int uniform, boolean valueFirst) {}

  /** Why no split was made. */
  record Refusal(String reason) {}

  /**
   * Splits {@code scalar} (packetized with {@code kinds}); the new functions are named
   * {@code __packetizer.refill.pre.NAME} and {@code __packetizer.refill.iter.NAME}.
   */
  static Object split(LlvmModule module, Function scalar, List<ParamKind> kinds, PacketizerOptions options) {
    return split(module, scalar, kinds, options, 0);
  }

  /**
   * As above; with {@code budget} above 1, where {@link #budgetApplies} holds, {@code iter} runs up to
   * {@code budget} iterations of the loop per call (an inner loop with a uniform count, {@link Split#budget}
   * says how many; 0 where it does not apply): still {@code pre}, then {@code iter} while {@code atH}, is
   * the scalar function step for step.
   */
  static Object split(LlvmModule module, Function scalar, List<ParamKind> kinds, PacketizerOptions options, int budget) {
    return split(module, scalar, kinds, options, budget, false);
  }

  /**
   * As above; with {@code counterResult}, where {@link #counterSlot} finds the loop's counter (the function returns
   * its value as the lane leaves), {@code iter} answers in that slot of the state ({@link Split#counterSlot}; -1 where
   * it does not apply) not the next counter but whether this call advanced it: all ones where it did (back at H, or
   * out of the loop by an exit that returns the increment), 0 where it did not (an exit that returns the counter as
   * it was). The driver then keeps the counter itself, adding {@link Split#counterStep} where the flag is set in the
   * lanes in the loop, and a lane that left holds its result there.
   */
  static Object split(LlvmModule module, Function scalar, List<ParamKind> kinds, PacketizerOptions options, int budget,
      boolean counterResult) {
    String fn = scalar.name();
    Function temp = FunctionCloner.cloneInModule(module, scalar, "__packetizer.refill.scalar." + fn);
    try {
      Preparer.prepare(module, temp, options, fn);
      return splitPrepared(module, scalar, temp, kinds, budget, counterResult);
    } finally {
      temp.delete();
    }
  }

  private static Object splitPrepared(LlvmModule module, Function scalar, Function temp, List<ParamKind> kinds, int budget,
      boolean counterResult) {
    for (Block b : temp.blocks()) {
      for (Value i : b.instructions()) {
        if (i.opcode() == Opcode.CALL) {
          Optional<Function> callee = i.calledFunction();
          if (callee.isPresent() && callee.get().name().startsWith("pk_")) {
            return new Refusal("it calls the SPMD intrinsic @" + callee.get().name() + " (" + b.describe()
                + "): with refill the lanes of a packet work on different phases of different elements");
          }
        }
      }
    }
    LlvmSsaFunction ssa = new LlvmSsaFunction(module, temp, new PureCalls(), (v, c) -> Optional.empty());
    CfgAnalyses<Block> cfg;
    try {
      cfg = CfgAnalyses.of(ssa.cfg());
    } catch (IrreducibleCfgException e) {
      return new Refusal("its control flow is irreducible");
    }
    Map<Value, Shape> seeds = new LinkedHashMap<>();
    for (int i = 0; i < temp.paramCount(); i++) {
      seeds.put(temp.param(i), kinds.get(i) instanceof ParamKind.Uniform ? Shape.uniform(1) : Shape.VARYING);
    }
    DivergenceInfo<Block, Value> div = DivergenceAnalysis.run(ssa, cfg, seeds, true);
    LoopForest.Loop<Block> best = null;
    int bestSize = -1;
    boolean divergent = false;
    for (LoopForest.Loop<Block> l : cfg.loops().topLevel()) {
      if (!cfg.isReachable(l.header())) continue;
      int size = 0;
      for (Block b : l.blocks()) size += b.instructions().size();
      boolean d = div.isDivergentLoop(l);
      if ((d && !divergent) || (d == divergent && size > bestSize)) {
        best = l;
        bestSize = size;
        divergent = d;
      }
    }
    if (best == null) return new Refusal("it has no loop");
    int total = temp.instructionCount();
    Block h = best.header();

    Set<Block> iterRegion = reachableAvoiding(h, h);
    Set<Block> preRegion = reachableAvoiding(temp.entry(), h);
    // the state: H's phis, then values from outside iter's blocks that iter uses
    List<Value> headerPhis = h.phis();
    LinkedHashSet<Value> liveIns = new LinkedHashSet<>();
    Set<Value> params = new HashSet<>(temp.params());
    java.util.function.Consumer<Value> consider = v -> {
      if (v == null) return;
      if (v.isArgument() && params.contains(v)) {
        if (!(kinds.get(temp.params().indexOf(v)) instanceof ParamKind.Uniform)) liveIns.add(v);
      } else if (v.isInstruction() && !v.isBasicBlockValue()) {
        Block d = v.block().orElse(null);
        if (d != null && !iterRegion.contains(d)) liveIns.add(v);
      }
    };
    for (Block b : temp.blocks()) {
      if (!iterRegion.contains(b)) continue;
      for (Value i : b.instructions()) {
        if (i.opcode() == Opcode.PHI) {
          for (int k = 0; k < i.incomingCount(); k++) {
            if (iterRegion.contains(i.incomingBlock(k))) consider.accept(i.incomingValue(k));
          }
        } else {
          for (Value o : i.operands()) {
            if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue()) consider.accept(o);
          }
        }
      }
    }
    List<Value> state = new ArrayList<>(headerPhis);
    state.addAll(liveIns);
    List<Type> stateTypes = new ArrayList<>();
    for (Value v : state) {
      Type t = v.type();
      boolean ok = t.isInteger() || t.isFloat() || t.isDouble() || t.isPointer();
      if (!ok) {
        return new Refusal("the value " + v.describe() + " of type " + t + " is live at the loop header " + h.describe()
            + " (refill keeps integers, float, double and pointers per lane)");
      }
      stateTypes.add(t);
    }
    // a stack slot of the code before the loop must not be used by the loop or after it: iter is another call
    for (Block b : temp.blocks()) {
      if (!preRegion.contains(b) || iterRegion.contains(b)) continue;
      for (Value i : b.instructions()) {
        if (i.opcode() == Opcode.ALLOCA && escapesInto(i, iterRegion)) {
          return new Refusal("the stack slot " + i.describe() + " (" + b.describe() + ") is used by the loop at "
              + h.describe() + " or after it");
        }
      }
    }
    List<Integer> uniformArgs = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) if (kinds.get(i) instanceof ParamKind.Uniform) uniformArgs.add(i);

    LlvmContext ctx = module.context();
    Type rt = temp.returnType();
    List<Type> retFields = new ArrayList<>();
    retFields.add(ctx.i1());
    retFields.addAll(stateTypes);
    if (!rt.isVoid()) retFields.add(rt);
    Type retT = ctx.structType(retFields, false);
    String fn = scalar.name();

    Function pre = null;
    Function iter = null;
    Optional<String> whyMasked;
    int used = 0;
    // the uniform arguments and constants that a step from the counter to the result may use
    java.util.function.Predicate<Value> fixed = v -> v.isConstantInt() || v.isArgument() && params.contains(v)
        && kinds.get(temp.params().indexOf(v)) instanceof ParamKind.Uniform;
    int slot = counterResult ? counterSlot(headerPhis, iterRegion, rt, fixed) : -1;
    long step = slot < 0 ? 0 : counterStep(headerPhis.get(slot), iterRegion);
    List<ResultStep> steps = slot < 0 ? List.of() : resultSteps(headerPhis.get(slot), iterRegion, rt, fixed, temp.params());
    try {
      // pre: the scalar parameters
      pre = module.addFunction("__packetizer.refill.pre." + fn, ctx.functionType(retT, temp.functionType().paramTypes(), false));
      Map<Value, Value> preMap = new HashMap<>();
      for (int i = 0; i < temp.paramCount(); i++) {
        preMap.put(temp.param(i), pre.param(i));
        pre.param(i).setName(temp.param(i).name());
      }
      new Part(module, scalar, pre, preRegion, temp.entry(), h, headerPhis, liveIns, preMap, retT, rt).build();
      // iter: the state, then the uniform parameters
      List<Type> iterParams = new ArrayList<>(stateTypes);
      for (int i : uniformArgs) iterParams.add(temp.functionType().paramTypes().get(i));
      iter = iterFunction(module, temp, fn, retT, iterParams, state, uniformArgs);
      new Part(module, scalar, iter, iterRegion, h, h, headerPhis, liveIns, iterMap(iter, temp, state, uniformArgs), retT, rt)
          .counterSlot(slot).build();
      whyMasked = whyNotSpeculatable(iter);
      // the budget only where the iterations are masked anyway (an inner loop makes them masked) and the loop
      // reads bytes the way the packet loop's byte windows read them
      if (budget > 1 && whyMasked.isPresent() && budgetApplies(best)) {
        iter.delete();
        iter = null; // (not deleted twice if the next line fails)
        iter = iterFunction(module, temp, fn, retT, iterParams, state, uniformArgs);
        new Part(module, scalar, iter, iterRegion, h, h, headerPhis, liveIns, iterMap(iter, temp, state, uniformArgs), retT, rt)
            .budget(budget).build();
        used = budget;
        slot = -1; // (that iter answers with the next counter)
        steps = List.of();
      }
      for (Function f : List.of(pre, iter)) {
        Optional<String> bad = f.verify();
        if (bad.isPresent()) throw new IllegalStateException("@" + f.name() + " is invalid: " + bad.get());
      }
    } catch (RuntimeException e) {
      if (pre != null) pre.delete();
      if (iter != null) iter.delete();
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: splitting @" + fn
          + " at the loop header " + h.describe() + " for lane refill failed: " + e.getMessage(), fn);
    }
    return new Split(pre, iter, stateTypes, uniformArgs, h.name(), bestSize, total, divergent, whyMasked, used, slot, step, steps);
  }

  /**
   * The loop's counter from which the function computes its result, as an index into H's phis, or -1: a phi {@code c} of
   * H of an integer type whose value on every back edge is one {@code cn = c + K} (K a constant), where every return in
   * the loop and after it returns the same function of the counter as the lane leaves ({@link #resultSteps}): of
   * {@code c}, {@code cn}, or a phi whose value on each edge from the loop is {@code c}, {@code cn}, a value the edge's
   * branch has just compared equal to {@code cn} ({@code br (icmp eq cn, V)} taken on its true side, {@code icmp ne} on
   * its false side: the {@code maxIter} that clang puts for the counter at a counted exit; also where the branch compared
   * {@code cn} with {@code sext} or {@code zext} of V, V then the counter's truncation) or again such a value; the
   * function being casts ({@code trunc}, {@code sext}, {@code zext}: a counter wider or narrower than the result) and
   * integer operations with constants and uniform arguments ({@code 2 * i + 1}, {@code n - i}). Then a lane's result is
   * that function of its counter as it leaves: the header value when it leaves before the increment, the incremented one
   * after it, so {@code iter} need only say whether it advanced the counter ({@link Part#counterSlot}) and the driver
   * keeps the counter without a blend and computes the result from it at the round (mandelbrot's and julia's
   * iteration count; docs/performance.md "The result in the counter"). {@code fixed}: the values a step may take as its
   * other operand (constants, the uniform arguments).
   */
  static int counterSlot(List<Value> headerPhis, Set<Block> iterRegion, Type rt, java.util.function.Predicate<Value> fixed) {
    if (!rt.isInteger() || rt.intWidth() < 8) return -1;
    for (int k = 0; k < headerPhis.size(); k++) {
      if (resultSteps(headerPhis.get(k), iterRegion, rt, fixed, null) != null) return k;
    }
    return -1;
  }

  /**
   * The steps from the header phi {@code c} (a counter, as the lane leaves the loop) to the function's result
   * ({@link #counterSlot}), or null where {@code c} is not such a counter or the returns differ. {@code params}: the
   * function's parameters (a step's uniform argument is named by its index among them; null: not needed).
   */
  static List<ResultStep> resultSteps(Value c, Set<Block> iterRegion, Type rt, java.util.function.Predicate<Value> fixed,
      List<Value> params) {
    if (!c.type().isInteger() || c.type().intWidth() < 8) return null;
    List<Value> rets = new ArrayList<>();
    for (Block b : iterRegion) {
      Value t = b.terminator();
      if (t != null && t.opcode() == Opcode.RET) rets.add(t);
    }
    if (rets.isEmpty()) return null;
    Value cn = null;
    boolean one = true;
    for (int i = 0; i < c.incomingCount(); i++) {
      if (!iterRegion.contains(c.incomingBlock(i))) continue;
      Value v = c.incomingValue(i);
      if (cn == null) cn = v;
      else one &= cn.equals(v);
    }
    if (!one || cn == null || !steps(cn, c)) return null;
    List<ResultStep> all = null;
    Matcher m = new Matcher(c, cn, iterRegion, fixed, params == null ? List.of() : params);
    for (Value r : rets) {
      if (r.numOperands() != 1) return null;
      List<ResultStep> s = m.stepsTo(r.operand(0));
      if (s == null || s == Matcher.ANY) return null;
      if (all == null) all = s;
      else if (!all.equals(s)) return null;
    }
    Type end = all.isEmpty() ? c.type() : all.get(all.size() - 1).type();
    return end.equals(rt) ? all : null;
  }

  /** {@link #resultSteps}'s search over the values that reach a return. */
  private static final class Matcher {
    /** A phi already on the walk (a cycle after the loop): agrees with every other way. */
    static final List<ResultStep> ANY = new ArrayList<>();
    private static final Set<Opcode> CASTS = Set.of(Opcode.TRUNC, Opcode.ZEXT, Opcode.SEXT);
    private static final Set<Opcode> BINARY = Set.of(Opcode.ADD, Opcode.SUB, Opcode.MUL, Opcode.SHL, Opcode.LSHR,
        Opcode.ASHR, Opcode.AND, Opcode.OR, Opcode.XOR);
    private final Value c;
    private final Value cn;
    private final Set<Block> iterRegion;
    private final java.util.function.Predicate<Value> fixed;
    private final List<Value> params;
    private final Map<Value, List<ResultStep>> done = new HashMap<>();

    Matcher(Value c, Value cn, Set<Block> iterRegion, java.util.function.Predicate<Value> fixed, List<Value> params) {
      this.c = c;
      this.cn = cn;
      this.iterRegion = iterRegion;
      this.fixed = fixed;
      this.params = params;
    }

    List<ResultStep> stepsTo(Value r) {
      if (r.equals(c) || r.equals(cn)) return List.of();
      if (!r.isInstruction()) return null;
      Block e = r.block().orElse(null);
      if (e == null || !iterRegion.contains(e)) return null;
      Opcode op = r.opcode();
      if (op == Opcode.PHI) {
        // a phi of the header other than the counter holds a value of the iteration before: not the counter as it leaves
        if (e.equals(c.block().orElse(null))) return null;
        if (done.containsKey(r)) return done.get(r) == null ? ANY : done.get(r);
        done.put(r, null);
        List<ResultStep> all = ANY;
        for (int i = 0; i < r.incomingCount(); i++) {
          Block from = r.incomingBlock(i);
          if (!iterRegion.contains(from)) continue; // (an edge from before the loop: not iter's)
          Value v = r.incomingValue(i);
          List<ResultStep> s = equalOnEdge(from, e, cn, v) ? onEdge(v) : stepsTo(v);
          if (s == null) return null;
          if (s == ANY) continue;
          if (all == ANY) all = s;
          else if (!all.equals(s)) return null;
        }
        done.put(r, all);
        return all;
      }
      if (!r.type().isInteger()) return null;
      if (CASTS.contains(op)) return append(stepsTo(r.operand(0)), new ResultStep(op, r.type(), null, -1, true));
      if (BINARY.contains(op) && r.numOperands() == 2) {
        boolean f0 = fixed.test(r.operand(0));
        boolean f1 = fixed.test(r.operand(1));
        if (f0 == f1) return null;
        Value other = f0 ? r.operand(0) : r.operand(1);
        int uniform = other.isArgument() ? params.indexOf(other) : -1;
        if (other.isArgument() && uniform < 0 && !params.isEmpty()) return null;
        return append(stepsTo(f0 ? r.operand(1) : r.operand(0)),
            new ResultStep(op, r.type(), other.isArgument() ? null : other, uniform, !f0));
      }
      return null;
    }

    /** A value the branch compared equal to the increment: the counter, or its truncation to V's type. */
    private List<ResultStep> onEdge(Value v) {
      if (v.type().equals(cn.type())) return List.of();
      return List.of(new ResultStep(Opcode.TRUNC, v.type(), null, -1, true));
    }

    private static List<ResultStep> append(List<ResultStep> s, ResultStep step) {
      if (s == null) return null;
      if (s == ANY) return null; // (a cast or operation of a value of a cycle only: not seen in practice, refused)
      List<ResultStep> out = new ArrayList<>(s);
      out.add(step);
      return List.copyOf(out);
    }
  }

  /** K of the counter's increment {@code c + K} ({@link #counterSlot} found it: an add or a sub of a constant). */
  private static long counterStep(Value c, Set<Block> iterRegion) {
    Value cn = null;
    for (int i = 0; i < c.incomingCount(); i++) if (iterRegion.contains(c.incomingBlock(i))) cn = c.incomingValue(i);
    Value k = cn.operand(0).equals(c) ? cn.operand(1) : cn.operand(0);
    return cn.opcode() == Opcode.SUB ? -k.constIntSExt() : k.constIntSExt();
  }

  /** Whether {@code cn} is {@code c + K} or {@code c - K} for a constant K. */
  private static boolean steps(Value cn, Value c) {
    if (!cn.isInstruction() || cn.numOperands() != 2) return false;
    Opcode op = cn.opcode();
    if (op == Opcode.ADD) {
      return cn.operand(0).equals(c) && cn.operand(1).isConstantInt() || cn.operand(1).equals(c) && cn.operand(0).isConstantInt();
    }
    return op == Opcode.SUB && cn.operand(0).equals(c) && cn.operand(1).isConstantInt();
  }

  /**
   * The operand of a step from the counter to the result ({@link #resultSteps}) that carries the counter: a cast's
   * operand, or the operand of a binary operation that is neither a constant nor an argument (the other is one), else
   * null.
   */
  static Value stepOperand(Value r) {
    if (!r.isInstruction()) return null;
    Opcode op = r.opcode();
    if (Matcher.CASTS.contains(op)) return r.operand(0);
    if (!Matcher.BINARY.contains(op) || r.numOperands() != 2) return null;
    boolean f0 = r.operand(0).isConstantInt() || r.operand(0).isArgument();
    boolean f1 = r.operand(1).isConstantInt() || r.operand(1).isArgument();
    return f0 == f1 ? null : f0 ? r.operand(1) : r.operand(0);
  }

  /** Whether the branch from {@code from} to {@code to} is taken only when {@code cn == v}. */
  static boolean equalOnEdge(Block from, Block to, Value cn, Value v) {
    return equalOnEdge(from, to, cn, v, 8);
  }

  /**
   * As above, also where {@code from} only forwards (no instruction but its unconditional branch, one predecessor: the
   * dedicated exit block that the preparation's loop simplification puts on a count exit whose target has other
   * predecessors), up to {@code depth} such blocks back.
   */
  private static boolean equalOnEdge(Block from, Block to, Value cn, Value v, int depth) {
    Value t = from.terminator();
    if (t != null && t.opcode() == Opcode.BR && !t.isConditional() && from.instructions().size() == 1 && depth > 0) {
      Block only = null;
      int preds = 0;
      for (Block p : from.parent().blocks()) {
        for (Block s : p.successors()) {
          if (s.equals(from)) {
            only = p;
            preds++;
          }
        }
      }
      return preds == 1 && !only.equals(from) && equalOnEdge(only, from, cn, v, depth - 1);
    }
    if (t == null || t.opcode() != Opcode.BR || !t.isConditional()) return false;
    Value cond = t.condition();
    if (!cond.isInstruction() || cond.opcode() != Opcode.ICMP || cond.numOperands() != 2) return false;
    boolean operands = cond.operand(0).equals(cn) && sameOrExtended(cond.operand(1), v)
        || cond.operand(1).equals(cn) && sameOrExtended(cond.operand(0), v);
    if (!operands) return false;
    Block onTrue = t.successor(0);
    Block onFalse = t.successor(1);
    if (onTrue.equals(onFalse)) return false;
    return cond.isICmpEq() && onTrue.equals(to) || cond.isICmpNe() && onFalse.equals(to);
  }

  /**
   * Whether the compared value {@code w} is {@code v}, or {@code sext}/{@code zext} of {@code v} (a count exit comparing
   * a wider counter with the widened limit: the counter equal to it holds V in its low bits).
   */
  private static boolean sameOrExtended(Value w, Value v) {
    if (w.equals(v)) return true;
    return w.isInstruction() && (w.opcode() == Opcode.SEXT || w.opcode() == Opcode.ZEXT) && w.operand(0).equals(v);
  }

  /** A new, empty {@code iter}: the state, then the uniform parameters, named. */
  private static Function iterFunction(LlvmModule module, Function temp, String fn, Type retT, List<Type> iterParams,
      List<Value> state, List<Integer> uniformArgs) {
    Function iter = module.addFunction("__packetizer.refill.iter." + fn, module.context().functionType(retT, iterParams, false));
    for (int k = 0; k < state.size(); k++) iter.param(k).setName("s" + k);
    for (int k = 0; k < uniformArgs.size(); k++) iter.param(state.size() + k).setName(temp.param(uniformArgs.get(k)).name());
    return iter;
  }

  /** The scalar function's values that are {@code iter}'s parameters: the state, then the uniform arguments. */
  private static Map<Value, Value> iterMap(Function iter, Function temp, List<Value> state, List<Integer> uniformArgs) {
    Map<Value, Value> m = new HashMap<>();
    for (int k = 0; k < state.size(); k++) m.put(state.get(k), iter.param(k));
    for (int k = 0; k < uniformArgs.size(); k++) m.put(temp.param(uniformArgs.get(k)), iter.param(state.size() + k));
    return m;
  }

  /**
   * Whether an iteration budget pays for the loop: its header loads a byte ({@code i8}) through a
   * byte-sized GEP (the shape of {@code s[start + k]} or {@code *p++}) and nothing in the loop writes
   * memory, i.e. the packet loop's byte windows (one 8-byte load per lane every 8 iterations) can apply
   * inside {@code iter} once it keeps a loop. The packetizer decides exactly (its rule sees the
   * address's step); this only chooses the shape of {@code iter}, never its meaning.
   */
  static boolean budgetApplies(LoopForest.Loop<Block> loop) {
    boolean bytes = false;
    for (Block b : loop.blocks()) {
      for (Value i : b.instructions()) {
        Opcode op = i.opcode();
        switch (op) {
          case STORE, ATOMICCMPXCHG, ATOMICRMW, FENCE, INVOKE, CALLBR -> { return false; }
          case CALL -> {
            String callee = i.calledFunction().map(Function::name).orElse("");
            boolean pure = false;
            for (String prefix : SPECULATABLE_INTRINSICS) pure |= callee.startsWith(prefix);
            if (!pure) return false;
          }
          case LOAD -> {
            if (b.equals(loop.header()) && i.type().isInteger() && i.type().intWidth() == 8) {
              Value p = i.operand(0);
              bytes |= p.isInstruction() && p.opcode() == Opcode.GEP && p.numOperands() == 2
                  && p.gepSourceElementType().isInteger() && p.gepSourceElementType().intWidth() == 8
                  || p.isInstruction() && p.opcode() == Opcode.PHI;
            }
          }
          default -> { }
        }
      }
    }
    return bytes;
  }

  /**
   * Intrinsics {@code iter} may call on lanes that are not in the loop: pure arithmetic, no memory,
   * no undefined behaviour on any operand (poison at worst). Prefixes of the overloaded names.
   */
  private static final List<String> SPECULATABLE_INTRINSICS = List.of("llvm.sqrt.", "llvm.fabs.", "llvm.fma.",
      "llvm.fmuladd.", "llvm.minnum.", "llvm.maxnum.", "llvm.minimum.", "llvm.maximum.", "llvm.copysign.", "llvm.floor.",
      "llvm.ceil.", "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.roundeven.", "llvm.smin.",
      "llvm.smax.", "llvm.umin.", "llvm.umax.", "llvm.abs.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.", "llvm.bswap.",
      "llvm.bitreverse.", "llvm.fshl.", "llvm.fshr.", "llvm.sin.", "llvm.cos.", "llvm.exp.", "llvm.exp2.", "llvm.log.",
      "llvm.log2.", "llvm.log10.", "llvm.pow.", "llvm.powi.", "llvm.ldexp.", "llvm.is.fpclass.");

  /**
   * Why {@code iter} must run masked, or empty when it may run on every lane: the refill driver's
   * iterations then pass an all-true mask, and the lanes that are not in the loop compute values nobody
   * uses from a stale or unset state. That takes the active mask out of the body (where x86 folds it
   * into every compare, putting the compares on the loop-carried chain of the mask: mandelbrot W16
   * 14.9 -> 10.2 ns per element on coherent inputs). Safe when a lane's computation can neither fault,
   * write, nor fail to end whatever its state: no memory access, no call but pure intrinsics, no
   * integer division or remainder, no loop (iter's blocks without the cut edges are acyclic).
   */
  static Optional<String> whyNotSpeculatable(Function iter) {
    for (Block b : iter.blocks()) {
      for (Value i : b.instructions()) {
        Opcode op = i.opcode();
        String why = null;
        switch (op) {
          case LOAD, STORE, ATOMICCMPXCHG, ATOMICRMW, FENCE, VAARG, ALLOCA -> why = "it accesses memory";
          case UDIV, SDIV, UREM, SREM -> why = "it divides integers";
          case CALL -> {
            String callee = i.calledFunction().map(Function::name).orElse("");
            boolean pure = false;
            for (String prefix : SPECULATABLE_INTRINSICS) pure |= callee.startsWith(prefix);
            if (!pure) why = "it calls " + (callee.isEmpty() ? "through a pointer" : "@" + callee);
          }
          case INVOKE, CALLBR, INDIRECTBR, UNREACHABLE, RESUME, LANDINGPAD, CLEANUPRET, CATCHRET, CATCHPAD, CLEANUPPAD,
              CATCHSWITCH, UNKNOWN -> why = "it contains " + op.mnemonic();
          default -> { }
        }
        if (why != null) return Optional.of(why + " (" + b.describe() + ")");
      }
    }
    // acyclic: iterative DFS with colours
    Map<Block, Integer> colour = new HashMap<>();
    ArrayDeque<Object[]> stack = new ArrayDeque<>();
    Block entry = iter.entry();
    colour.put(entry, 1);
    stack.push(new Object[] {entry, entry.successors(), 0});
    while (!stack.isEmpty()) {
      Object[] top = stack.peek();
      @SuppressWarnings("unchecked")
      List<Block> succ = (List<Block>) top[1];
      int k = (Integer) top[2];
      if (k == succ.size()) {
        colour.put((Block) top[0], 2);
        stack.pop();
        continue;
      }
      top[2] = k + 1;
      Block s = succ.get(k);
      Integer c = colour.get(s);
      if (c == null) {
        colour.put(s, 1);
        stack.push(new Object[] {s, s.successors(), 0});
      } else if (c == 1) {
        return Optional.of("it has a loop inside the loop (" + s.describe() + ")");
      }
    }
    return Optional.empty();
  }

  /** Blocks reachable from {@code start} without passing through {@code cut} (start included). */
  static Set<Block> reachableAvoiding(Block start, Block cut) {
    Set<Block> seen = new LinkedHashSet<>();
    ArrayDeque<Block> work = new ArrayDeque<>();
    seen.add(start);
    work.add(start);
    while (!work.isEmpty()) {
      for (Block s : work.pop().successors()) {
        if (!s.equals(cut) && seen.add(s)) work.add(s);
      }
    }
    return seen;
  }

  /** Whether the pointer (or anything computed from it) is used in {@code region}, stored, or passed to a call. */
  private static boolean escapesInto(Value alloca, Set<Block> region) {
    Set<Value> seen = new HashSet<>();
    ArrayDeque<Value> work = new ArrayDeque<>();
    work.add(alloca);
    seen.add(alloca);
    while (!work.isEmpty()) {
      Value v = work.pop();
      for (Value u : v.users()) {
        if (u.block().map(region::contains).orElse(true)) return true;
        Opcode op = u.opcode();
        if (op == Opcode.STORE && u.operand(0).equals(v)) return true;
        if (op == Opcode.CALL) {
          String callee = u.calledFunction().map(Function::name).orElse("");
          if (!callee.startsWith("llvm.lifetime")) return true;
          continue;
        }
        if (op == Opcode.LOAD || op == Opcode.STORE) continue;
        if (seen.add(u)) work.add(u);
      }
    }
    return false;
  }

  /** Builds one of the two functions: the region's blocks, edges into H cut, returns rewritten. */
  private static final class Part {
    private final LlvmModule module;
    private final Function scalar, f;
    private final Set<Block> region;
    private final Block start, h;
    private final List<Value> headerPhis;
    private final Set<Value> liveIns;
    private final Map<Value, Value> vmap;
    private final Type retT, rt;
    /** Iterations per call of iter (above 1: H stays a loop header with a uniform count); 0 otherwise. */
    private int budget;
    /** The counter's slot of the state ({@link RefillSplit#counterSlot}), where iter answers "advanced" (a flag), or -1. */
    private int counterSlot = -1;
    /** The region's blocks to their copies in {@code f} (set by {@link #build}). */
    private Map<Block, Block> blockMap;

    private Block bmap(Block ob) { return blockMap.get(ob); }

    /**
     * Every return of iter puts into state slot {@code k} whether the call advanced the counter ({@link #counterFlag}:
     * all ones back at H, the exit's own flag out of the loop) instead of the next counter.
     */
    Part counterSlot(int k) {
      this.counterSlot = k;
      return this;
    }

    Part(LlvmModule module, Function scalar, Function f, Set<Block> region, Block start, Block h, List<Value> headerPhis,
        Set<Value> liveIns, Map<Value, Value> vmap, Type retT, Type rt) {
      this.module = module;
      this.scalar = scalar;
      this.f = f;
      this.region = region;
      this.start = start;
      this.h = h;
      this.headerPhis = headerPhis;
      this.liveIns = liveIns;
      this.vmap = vmap;
      this.retT = retT;
      this.rt = rt;
    }

    /** Makes iter run up to {@code n} iterations of the loop per call ({@link RefillSplit#split(LlvmModule, Function, List, PacketizerOptions, int)}). */
    Part budget(int n) {
      this.budget = n;
      return this;
    }

    void build() {
      f.setInternalLinkage();
      for (var e : scalar.stringAttributes().entrySet()) {
        if (!e.getKey().startsWith("_ZGV")) f.setStringAttribute(e.getKey(), e.getValue());
      }
      for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
        if (scalar.hasEnumAttribute(attr)) f.addEnumAttribute(attr);
      }
      LlvmContext ctx = module.context();
      List<Block> order = new ArrayList<>();
      order.add(start);
      for (Block b : start.parent().blocks()) if (region.contains(b) && !b.equals(start)) order.add(b);
      boolean inner = budget > 1 && start.equals(h);
      // with a budget: an entry block before H, which stays a loop header (its phis start from the state)
      Block entry = inner ? f.appendBlock("budget.entry") : null;
      Map<Block, Block> bmap = new HashMap<>();
      blockMap = bmap;
      for (Block b : order) bmap.put(b, f.appendBlock(b.name()));
      Map<Block, Block> cuts = new LinkedHashMap<>();
      List<Value[]> rets = new ArrayList<>();
      Map<Value, Value> fromState = new HashMap<>();
      Value count = null;
      try (IrBuilder b = new IrBuilder(ctx)) {
        if (inner) {
          b.atEnd(entry);
          b.br(bmap.get(h));
          b.atEnd(bmap.get(h));
          count = b.phi(ctx.i32(), "budget.count");
          count.addIncoming(b.i32(0), entry);
        }
        for (Block ob : order) {
          b.atEnd(bmap.get(ob));
          for (Value inst : ob.instructions()) {
            Opcode op = inst.opcode();
            if (ob.equals(h) && op == Opcode.PHI && vmap.containsKey(inst)) {
              if (!inner) continue; // iter: H's phis are the state
              Value phi = b.phi(inst.type(), inst.name());
              phi.addIncoming(vmap.get(inst), entry);
              fromState.put(inst, phi);
              continue;
            }
            if (op == Opcode.RET) {
              rets.add(new Value[] {inst, null});
              continue;
            }
            Value copy;
            if (op == Opcode.PHI) {
              copy = b.phi(inst.type(), inst.name());
            } else {
              copy = b.insertClone(inst, inst.name());
            }
            vmap.put(inst, copy);
          }
        }
        vmap.putAll(fromState);
        for (Block ob : order) {
          for (Value inst : ob.instructions()) {
            Value copy = vmap.get(inst);
            if (copy == null || !copy.isInstruction() || !copy.block().map(x -> x.parent().equals(f)).orElse(false)) continue;
            if (inst.opcode() == Opcode.PHI) {
              if (fromState.containsKey(inst)) continue; // H's phis with a budget: their back edges come from the cuts
              for (int i = 0; i < inst.incomingCount(); i++) {
                Block from = inst.incomingBlock(i);
                if (!region.contains(from)) continue;
                copy.addIncoming(map(inst.incomingValue(i)), bmap.get(from));
              }
              continue;
            }
            int n = copy.numOperands();
            for (int i = 0; i < n; i++) {
              Value o = copy.operand(i);
              if (o == null || o.isMetadataAsValue()) continue;
              if (o.isBasicBlockValue()) continue; // successors below
              copy.setOperand(i, map(o));
            }
            if (inst.equals(ob.terminator())) {
              for (int i = 0; i < inst.numSuccessors(); i++) {
                Block s = inst.successor(i);
                Block target = s.equals(h) ? cuts.computeIfAbsent(ob, x -> f.appendBlock("at." + h.name() + ".from." + x.name()))
                    : bmap.get(s);
                if (target == null) throw new IllegalStateException("successor " + s.describe() + " outside the region");
                copy.setSuccessor(i, target);
              }
            }
          }
        }
        // back at H: the state (with a budget: back to H while the count is below it, else the state)
        for (var e : cuts.entrySet()) {
          b.atEnd(e.getValue());
          if (inner) {
            Value next = b.add(count, b.i32(1), "budget.next");
            Block out = f.appendBlock("budget.out." + e.getKey().name());
            b.condBr(b.icmpUlt(next, b.i32(budget), "budget.left"), bmap.get(h), out);
            count.addIncoming(next, e.getValue());
            for (Value phi : headerPhis) {
              fromState.get(phi).addIncoming(map(incoming(phi, e.getKey())), e.getValue());
            }
            b.atEnd(out);
          }
          Value agg = b.poison(retT);
          agg = b.insertValue(agg, b.i1(true), 0, "");
          int k = 1;
          for (Value phi : headerPhis) {
            // (the counter's slot: the flag "advanced", all ones, see counterFlag)
            Value v = k - 1 == counterSlot ? b.allOnes(phi.type()) : map(incoming(phi, e.getKey()));
            agg = b.insertValue(agg, v, k++, "");
          }
          for (Value v : liveIns) agg = b.insertValue(agg, map(v), k++, "");
          b.ret(agg);
        }
        // returned: the result
        for (Value[] r : rets) {
          Value inst = r[0];
          Block ob = inst.block().orElseThrow();
          b.atEnd(bmap.get(ob));
          Value counter = counterSlot >= 0 ? counterFlag(b, inst.operand(0)) : null;
          b.atEnd(bmap.get(ob));
          Value agg = b.poison(retT);
          agg = b.insertValue(agg, b.i1(false), 0, "");
          if (!rt.isVoid()) agg = b.insertValue(agg, map(inst.operand(0)), retT.structElements().size() - 1, "");
          if (counter != null) agg = b.insertValue(agg, counter, 1 + counterSlot, "");
          b.ret(agg);
        }
        if (counterSlot >= 0) compareCounterItself(b);
      }
    }

    /**
     * With the counter's slot answering a flag, the increment {@code cn = c + K} is left with the exit test that compares
     * it for equality with a value fixed for the call (a uniform argument, or a constant): {@code cn == V} becomes {@code
     * c == V - K}, with {@code V - K} computed once at iter's entry (in the driver: outside the hot loop), so that the
     * packet iter needs no vector add for the test (and none at all where nothing else reads the increment). The same
     * for {@code !=}; exact in wrapping arithmetic (a wrapped {@code c + K} was poison before: a refinement).
     */
    private void compareCounterItself(IrBuilder b) {
      Value c = headerPhis.get(counterSlot);
      Value cn = null;
      for (int i = 0; i < c.incomingCount(); i++) if (region.contains(c.incomingBlock(i))) cn = c.incomingValue(i);
      Value cnCopy = vmap.get(cn);
      Value cCopy = map(c);
      if (cnCopy == null) return;
      Value k = cn.operand(0).equals(c) ? cn.operand(1) : cn.operand(0);
      boolean sub = cn.opcode() == Opcode.SUB;
      int firstUniform = headerPhis.size() + liveIns.size();
      List<Value> params = f.params();
      List<Value> users = new ArrayList<>(cnCopy.users());
      for (Value u : users) {
        if (!u.isInstruction() || u.opcode() != Opcode.ICMP || !(u.isICmpEq() || u.isICmpNe()) || u.numOperands() != 2) continue;
        int at = u.operand(0).equals(cnCopy) ? 0 : u.operand(1).equals(cnCopy) ? 1 : -1;
        if (at < 0) continue;
        Value v = u.operand(1 - at);
        boolean fixed = v.isConstantInt() || v.isArgument() && params.indexOf(v) >= firstUniform;
        if (!fixed) continue;
        b.before(f.entry().firstInstruction());
        Value vk = sub ? b.add(v, k, "counter.limit") : b.sub(v, k, "counter.limit");
        u.setOperand(at, cCopy);
        u.setOperand(1 - at, vk);
      }
    }

    /**
     * What the counter's slot says at a return out of the loop ({@link RefillSplit#counterSlot}): whether the returned
     * value {@code r} is the counter's increment (all ones) or the counter as it was (0); a phi of such flags where
     * {@code r} is a phi after the loop (a value {@code V} on an edge whose branch compared it equal to the increment
     * counts as the increment), through the steps from the counter to the result. {@link RefillSplit#resultSteps} checked that
     * every value is one of the two.
     */
    private Value counterFlag(IrBuilder b, Value r) {
      Value c = headerPhis.get(counterSlot);
      Value cn = null;
      for (int i = 0; i < c.incomingCount(); i++) if (region.contains(c.incomingBlock(i))) cn = c.incomingValue(i);
      return counterFlag(b, r, c, cn, new HashMap<>());
    }

    private Value counterFlag(IrBuilder b, Value r, Value c, Value cn, Map<Value, Value> done) {
      Type t = c.type();
      if (r.equals(c)) return b.constNull(t);
      if (r.equals(cn)) return b.allOnes(t);
      // a step from the counter to the result (a cast, an operation with a constant or uniform argument): the flag is
      // the counter's
      Value inner = r.isInstruction() && r.opcode() != Opcode.PHI ? stepOperand(r) : null;
      if (inner != null) return counterFlag(b, inner, c, cn, done);
      if (!r.isInstruction() || r.opcode() != Opcode.PHI) {
        throw new IllegalStateException("the value " + r.describe() + " is not the counter " + c.describe() + " as the loop leaves");
      }
      Value known = done.get(r);
      if (known != null) return known;
      Block e = r.block().orElseThrow();
      Block ce = bmap(e);
      b.before(ce.firstInstruction());
      Value phi = b.phi(t, r.name() + ".advanced");
      done.put(r, phi);
      List<Value> vals = new ArrayList<>();
      List<Block> from = new ArrayList<>();
      for (int i = 0; i < r.incomingCount(); i++) {
        Block p = r.incomingBlock(i);
        if (!region.contains(p)) continue;
        Value v = r.incomingValue(i);
        vals.add(!v.equals(c) && !v.equals(cn) && equalOnEdge(p, e, cn, v) ? b.allOnes(t) : counterFlag(b, v, c, cn, done));
        from.add(bmap(p));
      }
      phi.addIncoming(vals, from);
      return phi;
    }

    /** The value {@code phi} (of H) takes on the edge from {@code from}. */
    private static Value incoming(Value phi, Block from) {
      for (int i = 0; i < phi.incomingCount(); i++) if (phi.incomingBlock(i).equals(from)) return phi.incomingValue(i);
      throw new IllegalStateException("no incoming value of " + phi.describe() + " from " + from.describe());
    }

    private Value map(Value v) {
      Value m = vmap.get(v);
      if (m != null) return m;
      if (v.isInstruction() || v.isArgument()) {
        throw new IllegalStateException("the value " + v.describe() + " is not available in @" + f.name());
      }
      return v; // constants, globals, functions
    }
  }
}
