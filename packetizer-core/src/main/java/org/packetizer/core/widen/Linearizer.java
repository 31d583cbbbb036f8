package org.packetizer.core.widen;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.pipeline.SlotSsa;

/**
 * Partial linearization (thesis 4.4, with Moll &amp; Hack's uniform branches kept): emits the scalar
 * blocks in the schedule's order. A block that can only hold all lanes or none (not in the region
 * of a divergent branch) keeps a uniform branch as a real branch; every other branch falls through
 * to the next block; a latch jumps back while any lane takes the back edge. Blocks may be skipped
 * at run time when their mask is empty (guards), which is always safe because an empty block
 * changes no variable. Terminators hand their edge masks to the {@link MaskGenerator}.
 */
final class Linearizer extends EmissionPhase {
  Linearizer(PacketEmitter e) { super(e.state(), e); }

  /** Scalar loop headers emitted whose loops may still get a back edge (see {@link #closeLoopsLeftBy}). */
  private final java.util.ArrayList<Block> openLoops = new java.util.ArrayList<>();

  void emitBlock(Block sb) {
    closeLoopsLeftBy(sb);
    st.setCurrentBlock(sb);
    local.clear();
    splats.clear();
    Block h = head.get(sb);
    // a block every lane reaches once holds exactly the entry's lanes, divergence or not
    boolean partial = st.divergence().mayBePartial(sb) && !reachedByAll(sb);
    Block loopEnter = enter.get(sb);
    if (loopEnter != null) {
      // a loop is skipped when no lane arrives; the test is made once on entry, not in every iteration
      // (the latch takes the back edge only when some lane continues)
      b.atEnd(loopEnter);
      // every forward edge into the loop is emitted by now (the back edges go to h)
      List<Block> into = predecessors(loopEnter);
      if (into != null) vars().predecessorsFinal(loopEnter, into);
      Value arriving = vars().read(e.maskGenerator.maskSlot(sb), nameOf("m.", sb, ".enter"));
      Optional<Block> skip = enterSkipTarget(sb);
      b.condBr(masks.any(arriving, nameOf("any.", sb)), h, skip.map(this::entryOf).orElse(exitBlock()));
    }
    b.atEnd(h);
    if (loopEnter == null && !isEntry(sb) && st.cfg().loops().loopOf(sb).map(l -> !l.header().equals(sb)).orElse(true)) {
      // not a loop header: every edge into h is emitted already (no back edge will come)
      List<Block> into = predecessors(h);
      if (into != null) vars().predecessorsFinal(h, into);
    }
    Value m;
    Value slotMask;
    if (isEntry(sb)) {
      slotMask = entryMask();
    } else {
      SlotSsa.Var slot = e.maskGenerator.maskSlot(sb);
      slotMask = vars().read(slot, nameOf("m.", sb));
      if (inLoop(sb)) vars().write(slot, masks.allFalse());
    }
    m = partial ? slotMask : entryMask();
    boolean guard = loopEnter == null && needsGuard(sb, partial);
    if (guard) {
      Block body = packet.appendBlock(nameOf(h, ".body"));
      body.moveAfter(h);
      // a masked function called with no lane active does nothing at all: straight to the exit (this
      // also ends the recursion of recursive packet versions)
      Optional<Block> skip = isEntry(sb) ? Optional.empty() : st.schedule().skipTarget(sb);
      b.condBr(masks.any(slotMask, nameOf("any.", sb)), body, skip.map(this::entryOf).orElse(exitBlock()));
      vars().solePredecessor(body, b.currentBlock());
      b.atEnd(body);
      if (!isEntry(sb) && st.cfg().loops().loopOf(sb).map(l -> !l.header().equals(sb)).orElse(true)
          && blockCost(sb).total() >= st.options().skipThreshold()) {
        st.remark(Remark.Kind.SKIP_IF_EMPTY, sb, null, "block is skipped when no lane is active: estimated cost "
            + blockCost(sb) + " >= " + st.options().skipThreshold() + " for the any-lane test and its branch");
      }
    }
    st.setCurrentMask(m);
    st.stats().blocks++;

    for (Value inst : st.ssa().instructions(sb)) {
      Opcode op = st.ssa().opcode(inst);
      if (op == Opcode.PHI) {
        Value pv = vars().read(e.blends.phiSlot(inst), nameOf(inst));
        local.put(inst, pv);
        if (needsValueSlot(inst)) vars().write(valueSlot(inst), pv);
        continue;
      }
      if (op.isTerminator()) {
        emitTerminator(sb, inst, partial);
        break;
      }
      Value pv = e.emitInstruction(inst);
      if (pv != null) {
        local.put(inst, pv);
        if (needsValueSlot(inst)) vars().write(valueSlot(inst), pv);
      }
    }
  }

  /**
   * The estimated cost of a block computed under a partial mask, in simple vector instructions, on
   * this target and width ({@link #blockCost}): the parts that are more than one instruction named.
   */
  record BlockCost(int total, int instructions, int calls, int lanewiseMemory, int divisions) {
    @Override public String toString() {
      StringBuilder sb = new StringBuilder().append(total).append(" (").append(instructions).append(" instructions");
      if (calls > 0) sb.append(", ").append(calls).append(" call(s)");
      if (lanewiseMemory > 0) sb.append(", ").append(lanewiseMemory).append(" gather/scatter(s)");
      if (divisions > 0) sb.append(", ").append(divisions).append(" division(s)");
      return sb.append(')').toString();
    }
  }

  /** A call that is not one of the cheap intrinsics: per lane or a vector math routine, per lane. */
  static final int CALL_COST_PER_LANE = 10;
  /** A gather or scatter where the target expands it: an extract, an address and a load per lane. */
  static final int EXPANDED_MEMORY_COST_PER_LANE = 3;
  /** A hardware gather or scatter (AVX-512, fast-gather AVX2 CPUs): about one lane per cycle. */
  static final int GATHER_COST_PER_LANE = 1;
  /** An integer division or remainder with a varying divisor: no vector division on most targets. */
  static final int DIVISION_COST_PER_LANE = 5;

  private final Map<Block, BlockCost> blockCosts = new HashMap<>();

  /**
   * Cost model of the any-lane test (issue 16, instead of an instruction-count threshold alone): a
   * block computed under a partial mask gets a test that skips it when no lane is active when its
   * estimated cost reaches the test's ({@link org.packetizer.core.api.PacketizerOptions#skipThreshold}:
   * a reduction, a compare and a branch that may mispredict; measured as 40 simple instructions).
   * Simple instructions count one; a call that is not a cheap intrinsic counts
   * {@value #CALL_COST_PER_LANE} per lane (a libm call per lane, or a vector math routine); a load or
   * store from varying addresses counts per lane by how this target makes gathers (expanded
   * {@value #EXPANDED_MEMORY_COST_PER_LANE}, hardware {@value #GATHER_COST_PER_LANE}); an integer
   * division by a varying divisor {@value #DIVISION_COST_PER_LANE} per lane. A block of ten
   * instructions with one {@code sinf} is thus skipped where it was computed for no lane before.
   */
  BlockCost blockCost(Block sb) {
    return blockCosts.computeIfAbsent(sb, s -> {
      int n = 0, calls = 0, memory = 0, divisions = 0;
      long total = 0;
      for (Value inst : st.ssa().instructions(s)) {
        Opcode op = st.ssa().opcode(inst);
        if (op == Opcode.PHI || op.isTerminator()) continue;
        n++;
        boolean varying = !uniform(inst);
        switch (op) {
          case CALL -> {
            if (cheapCall(inst)) {
              total += 1;
            } else {
              calls++;
              total += (long) CALL_COST_PER_LANE * (varying || anyVaryingOperand(inst) ? w : 1);
            }
          }
          case LOAD, STORE -> {
            Value ptr = inst.operand(op == Opcode.LOAD ? 0 : 1);
            var shape = st.divergence().shape(ptr);
            if (shape.isUniform() || shape.isLinear()) {
              total += 1;
            } else {
              memory++;
              boolean hardware = e.memory.fastHardwareGathers();
              total += (long) (hardware ? GATHER_COST_PER_LANE : EXPANDED_MEMORY_COST_PER_LANE) * w;
            }
          }
          case SDIV, UDIV, SREM, UREM -> {
            if (varying) {
              divisions++;
              total += (long) DIVISION_COST_PER_LANE * w;
            } else {
              total += 1;
            }
          }
          default -> total += 1;
        }
      }
      return new BlockCost((int) Math.min(total, Integer.MAX_VALUE), n, calls, memory, divisions);
    });
  }

  private boolean anyVaryingOperand(Value call) {
    for (Value o : st.ssa().operands(call)) if (!o.isConstant() && !uniform(o)) return true;
    return false;
  }

  /** Intrinsics that become one or a few vector instructions (or nothing). */
  private static boolean cheapCall(Value call) {
    var f = call.calledFunction();
    if (f.isEmpty()) return false;
    String name = f.get().name();
    if (!name.startsWith("llvm.")) return false;
    for (String p : CHEAP_INTRINSICS) if (name.startsWith(p)) return true;
    return false;
  }

  private static final List<String> CHEAP_INTRINSICS = List.of("llvm.fabs.", "llvm.sqrt.", "llvm.fma.", "llvm.fmuladd.",
      "llvm.floor.", "llvm.ceil.", "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.roundeven.",
      "llvm.copysign.", "llvm.minnum.", "llvm.maxnum.", "llvm.minimum.", "llvm.maximum.", "llvm.smin.", "llvm.smax.",
      "llvm.umin.", "llvm.umax.", "llvm.abs.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.", "llvm.bswap.", "llvm.fshl.",
      "llvm.fshr.", "llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias", "llvm.sadd.sat.",
      "llvm.uadd.sat.", "llvm.ssub.sat.", "llvm.usub.sat.");

  /**
   * A block needs a run-time "any lane active" test when it keeps a real branch or does scalar
   * (uniform) work with side effects, when it is a loop header (skipping the whole loop), or when
   * it is big enough to be worth skipping.
   */
  private boolean needsGuard(Block sb, boolean partial) {
    if (isEntry(sb)) return st.options().masked();
    // (the entry's own test, in a masked function, covers it)
    if (reachedByAll(sb)) return false;
    if (!partial && exitOfEnteredLoop(sb)) return false;
    if (!partial) return true;
    if (st.schedule().loopHeadedBy(sb).isPresent()) return true;
    if (blockCost(sb).total() >= st.options().skipThreshold() && !onEveryIteration(sb)) return true;
    for (Value inst : st.ssa().instructions(sb)) if (hasScalarSideEffect(inst)) return true;
    return false;
  }

  private final Map<Block, Boolean> reachedByAll = new HashMap<>();

  /**
   * Whether every lane active at the function's entry reaches {@code sb}, once: it post-dominates the
   * entry and is in no loop. Its mask is the entry mask.
   */
  boolean reachedByAll(Block sb) {
    return reachedByAll.computeIfAbsent(sb, s -> !inLoop(s) && st.cfg().pdt().postDominates(s, st.scalar().entry()));
  }

  /**
   * Where the entry test of the loop headed by {@code header} goes when no lane arrives: past the
   * loop and past the blocks right after it, within the enclosing loop, that the header dominates
   * (lanes reach those only through the loop).
   */
  private Optional<Block> enterSkipTarget(Block header) {
    int end = dominatedAfterLoop(header)[1];
    List<Block> order = st.schedule().order();
    return end < order.size() ? Optional.of(order.get(end)) : Optional.empty();
  }

  /**
   * The blocks right after the loop headed by {@code header} that the header dominates and that lie
   * in the loop's parent loop: schedule positions [start, end). (The packet function is mostly a
   * chain, so this stretch is often the rest of the function: it is found by a search over
   * dominator-tree intervals, not by walking it per loop.)
   *
   * <p>Dominance alone is not enough inside an enclosing loop: a block after the enclosing loop (its
   * exit, or anything past it) that the header dominates still collects lanes over all of the
   * enclosing loop's iterations, so lanes that passed the header in an earlier iteration may be
   * waiting in it when no lane arrives in this one (skipping it lost them: fuzz-regressions
   * loop-skip-pending-exit). Within the enclosing loop's interval every block runs afresh per
   * iteration, and lanes reach it in this iteration only through the header.
   */
  private int[] dominatedAfterLoop(Block header) {
    return dominatedAfterLoop.computeIfAbsent(header, h -> {
      if (stretches == null) stretches = new DominatedStretches<>(st.schedule().order(), st.cfg().dom());
      int size = st.schedule().order().size();
      int start = st.schedule().afterLoop(h).map(st.schedule()::position).orElse(size);
      int end = stretches.end(h, start);
      var parent = st.schedule().loopHeadedBy(h).flatMap(l -> l.parent());
      if (parent.isPresent()) {
        end = Math.min(end, st.schedule().afterLoop(parent.get().header()).map(st.schedule()::position).orElse(size));
      }
      return new int[] {start, Math.max(start, end)};
    });
  }

  private final Map<Block, int[]> dominatedAfterLoop = new HashMap<>();

  private DominatedStretches<Block> stretches;

  /**
   * Whether {@code sb} is the only exit block of a loop whose header dominates it and is skipped with
   * that loop when no lane arrives: every lane that entered the loop (at least one) arrives in sb,
   * so sb never runs empty and needs no test of its own.
   */
  private boolean exitOfEnteredLoop(Block sb) {
    for (Block p : st.cfg().cfg().predecessors(sb)) {
      var l = st.cfg().loops().loopOf(p);
      if (l.isEmpty()) return false;
      var loop = l.get();
      // the outermost loop p is in that sb is not in
      while (loop.parent().isPresent() && !loop.parent().get().contains(sb)) loop = loop.parent().get();
      if (loop.contains(sb) || !loop.exitBlocks().equals(java.util.Set.of(sb))) return false;
      Block h = loop.header();
      if (!st.cfg().dom().dominates(h, sb) || !enter.containsKey(h)) return false;
      // sb lies in the stretch the entry test skips
      int[] stretch = dominatedAfterLoop(h);
      int at = st.schedule().position(sb);
      if (at < stretch[0] || at >= stretch[1]) return false;
    }
    return !st.cfg().cfg().predecessors(sb).isEmpty();
  }

  /** The predecessor of {@code sb} emitted last, when its branch reaches sb by one edge only. */
  Optional<Block> lastPredecessor(Block sb) {
    return lastPredecessor.computeIfAbsent(sb, this::findLastPredecessor);
  }

  private final Map<Block, Optional<Block>> lastPredecessor = new HashMap<>();

  private Optional<Block> findLastPredecessor(Block sb) {
    Block last = null;
    for (Block p : st.cfg().cfg().predecessors(sb)) {
      if (!st.schedule().isScheduled(p)) continue;
      if (last == null || st.schedule().position(p) > st.schedule().position(last)) last = p;
    }
    if (last == null) return Optional.empty();
    int edges = 0;
    for (Block s2 : last.successors()) if (s2.equals(sb)) edges++;
    return edges == 1 ? Optional.of(last) : Optional.empty();
  }

  /**
   * Whether {@code sb} dominates the latch of its innermost loop: every iteration that continues runs
   * it, so it is empty only when the loop is about to end and a skip test would be paid in every
   * iteration for nothing.
   */
  private boolean onEveryIteration(Block sb) {
    return st.cfg().loops().loopOf(sb)
        .map(l -> l.latches().stream().allMatch(latch -> st.cfg().dom().dominates(sb, latch)))
        .orElse(false);
  }

  /** Whether emitting this instruction executes a scalar operation that must not run with no lane. */
  private boolean hasScalarSideEffect(Value inst) {
    Opcode op = st.ssa().opcode(inst);
    return switch (op) {
      case LOAD -> uniform(inst.operand(0));
      case STORE -> uniform(inst.operand(1));
      case CALL -> uniform(inst) && !e.calls.isPureCall(inst);
      case UDIV, SDIV, UREM, SREM -> uniform(inst) && !(inst.operand(1).isConstantInt() && inst.operand(1).constIntSExt() != 0
          && inst.operand(1).constIntSExt() != -1);
      default -> false;
    };
  }

  private void emitTerminator(Block sb, Value term, boolean partial) {
    Opcode op = st.ssa().opcode(term);
    switch (op) {
      case RET -> {
        if (term.numOperands() > 0 && retSlot() != null) {
          Value rv = term.operand(0);
          Type rt = packet.returnType();
          Value v = rt.equals(rv.type()) ? scal(rv) : vec(rv);
          vars().write(retSlot(), v);
        }
        b.br(chainNext(sb));
      }
      case UNREACHABLE -> b.br(chainNext(sb));
      case BR -> {
        if (!term.isConditional()) {
          Block s = term.successor(0);
          e.maskGenerator.contribute(sb, s, mask());
          Optional<LoopForest.Loop<Block>> latched = st.schedule().loopLatchedBy(sb);
          if (latched.isPresent() && latched.get().header().equals(s)) {
            if (!partial) {
              b.br(head.get(s));
            } else {
              b.condBr(masks.any(mask(), nameOf("continue.", sb)), head.get(s), afterLoop(s));
            }
          } else if (!partial && st.schedule().isScheduled(s)) {
            b.br(target(sb, s));
          } else {
            b.br(chainNext(sb));
          }
          return;
        }
        Value c = term.condition();
        Block s1 = term.successor(0);
        Block s2 = term.successor(1);
        boolean uniformCond = uniform(c);
        Optional<LoopForest.Loop<Block>> latchOf = st.schedule().loopLatchedBy(sb);
        if (uniformCond && partial && latchOf.isPresent() && s1.equals(latchOf.get().header()) != s2.equals(latchOf.get().header())
            && st.schedule().isScheduled(s1) && st.schedule().isScheduled(s2)) {
          emitUniformLatchExit(sb, term, latchOf.get().header());
          return;
        }
        if (!uniformCond && partial && latchOf.isPresent() && s1.equals(latchOf.get().header()) != s2.equals(latchOf.get().header())
            && st.schedule().isScheduled(s1) && st.schedule().isScheduled(s2)) {
          boolean exitOnTrue = !s1.equals(latchOf.get().header());
          Optional<SplitExit> split = splitExit(c, exitOnTrue)
              .filter(x -> !splitLatchExitsAuto() || e.blends.writesNothing(sb, exitOnTrue ? s1 : s2));
          if (split.isPresent()) {
            emitSplitLatchExit(sb, term, latchOf.get().header(), split.get());
            return;
          }
        }
        if (uniformCond && !partial && !s1.equals(s2)) {
          // a kept uniform branch: each successor's masks and blends on its own edge, so the way not
          // taken costs nothing (before, both were computed under a mask that was empty for one)
          st.stats().keptBranches++;
          st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform branch kept");
          Block here = b.currentBlock();
          Block t1 = packet.appendBlock(nameOf(sb, ".then"));
          Block t2 = packet.appendBlock(nameOf(sb, ".else"));
          t1.moveAfter(here);
          t2.moveAfter(t1);
          b.condBr(scal(c), t1, t2);
          vars().solePredecessor(t1, here);
          vars().solePredecessor(t2, here);
          Caches before = saveCaches();
          b.atEnd(t1);
          e.maskGenerator.contribute(sb, s1, mask());
          b.br(target(sb, s1));
          restoreCaches(before);
          b.atEnd(t2);
          e.maskGenerator.contribute(sb, s2, mask());
          b.br(target(sb, s2));
          return;
        }
        Value[] edges = e.maskGenerator.edgeMasks(sb, c, s1, s2);
        Value e1 = edges[0];
        Value e2 = edges[1];
        e.maskGenerator.contribute(sb, s1, e1);
        e.maskGenerator.contribute(sb, s2, e2);
        if (uniformCond && !partial) {
          st.stats().keptBranches++;
          st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform branch kept");
          b.condBr(scal(c), target(sb, s1), target(sb, s2));
          return;
        }
        st.stats().linearizedBranches++;
        if (!uniformCond) {
          st.remark(Remark.Kind.LINEARIZED, sb, term, "divergent branch linearized: " + st.divergence().reason(c));
        }
        Optional<LoopForest.Loop<Block>> latched = st.schedule().loopLatchedBy(sb);
        if (latched.isPresent()) {
          Block h = latched.get().header();
          Value back = s1.equals(h) ? e1 : s2.equals(h) ? e2 : null;
          if (back == null) throw new IllegalStateException("latch without back edge: " + sb);
          if (s1.equals(h) && s2.equals(h)) back = mask();
          b.condBr(masks.any(back, nameOf("continue.", sb)), head.get(h), afterLoop(h));
          return;
        }
        b.br(chainNext(sb));
      }
      default -> throw unsupported(Rejection.UNSUPPORTED_CONTROL_FLOW, term, "the terminator '" + op.mnemonic() + "'");
    }
  }

  /**
   * The latch of a divergent loop leaving it on a uniform condition: every lane still in the loop
   * passes the latch, so when the condition says "exit" all of them leave and the loop is over. The
   * branch stays a real branch; the exit's blends run only on the way out instead of in every
   * iteration under a mask that is empty until the last one.
   */
  private void emitUniformLatchExit(Block sb, Value term, Block header) {
    Block s1 = term.successor(0);
    boolean exitOnTrue = !s1.equals(header);
    Block exitSucc = exitOnTrue ? s1 : term.successor(1);
    LatchFork fork = latchFork(sb);
    // (frozen: when every lane left the loop earlier in this iteration the latch runs with no lane
    // active, and a uniform value computed there may be poison; a branch on poison is undefined)
    Value c = masks.frozen(scal(term.condition()), nameOf(sb, ".exit"));
    st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform exit of a divergent loop kept as a branch");
    leaveOrStay(fork, c, exitOnTrue, sb, exitSucc, header);
    e.maskGenerator.contribute(sb, header, mask());
    b.condBr(masks.any(mask(), nameOf("continue.", sb)), head.get(header), afterLoop(header));
  }

  /** The two ways out of a latch that a uniform condition decides for every lane ({@link #latchFork}). */
  private record LatchFork(Block leave, Block stay) {}

  /** The blocks {@code leave} and {@code stay} for the latch {@code sb}, in this order after the current block. */
  private LatchFork latchFork(Block sb) {
    Block here = b.currentBlock();
    Block leave = packet.appendBlock(nameOf(sb, ".leave"));
    Block stay = packet.appendBlock(nameOf(sb, ".stay"));
    leave.moveAfter(here);
    stay.moveAfter(leave);
    return new LatchFork(leave, stay);
  }

  /**
   * The kept branch of a uniform latch exit ({@link #emitUniformLatchExit}, {@link #emitSplitLatchExit}): on the frozen
   * uniform {@code u}, to {@code leave} where it is {@code leaveOn}, else to {@code stay}; {@code leave} gives the
   * current mask to the exit {@code exitSucc} and goes on after the loop. Returns with the builder at the end of
   * {@code stay}, the caches as they were before the fork.
   */
  private void leaveOrStay(LatchFork fork, Value u, boolean leaveOn, Block sb, Block exitSucc, Block header) {
    b.condBr(u, leaveOn ? fork.leave() : fork.stay(), leaveOn ? fork.stay() : fork.leave());
    st.stats().keptBranches++;
    Caches before = saveCaches();
    b.atEnd(fork.leave());
    e.maskGenerator.contribute(sb, exitSucc, mask());
    b.br(afterLoop(header));
    restoreCaches(before);
    b.atEnd(fork.stay());
  }

  /**
   * A latch condition made of a varying part and a uniform part that decides alone when it holds: {@code
   * c | u} or {@code c & u} ({@code or}/{@code and} of i1, or clang's {@code select c, true, u} and {@code
   * select c, u, false}, either operand order), where {@code u == forcing} makes the whole condition
   * {@code forcing} whatever c is, and otherwise the condition is c. {@code i < maxSteps && !hit}.
   */
  record SplitExit(Value varying, Value uniform, boolean forcing) {}

  /**
   * The split of a divergent latch's condition {@code cond} when its uniform part forces the exit
   * ({@code exitOnTrue}: the true successor leaves the loop), else empty. Not with the knob {@code
   * -Dpacketizer.splitLatchExits=false} (read at each use); with its default, auto, the caller also asks
   * that the leave arm write nothing.
   */
  Optional<SplitExit> splitExit(Value cond, boolean exitOnTrue) {
    if (!splitLatchExits() || !cond.isInstruction()) return Optional.empty();
    Value a;
    Value u;
    boolean isOr;
    switch (st.ssa().opcode(cond)) {
      case OR, AND -> {
        a = cond.operand(0);
        u = cond.operand(1);
        isOr = st.ssa().opcode(cond) == Opcode.OR;
      }
      case SELECT -> {
        Value t = cond.operand(1);
        Value f = cond.operand(2);
        a = cond.operand(0);
        if (t.isConstantInt() && t.constIntZExt() == 1) {
          u = f;
          isOr = true;
        } else if (f.isConstantInt() && f.constIntZExt() == 0) {
          u = t;
          isOr = false;
        } else {
          return Optional.empty();
        }
      }
      default -> {
        return Optional.empty();
      }
    }
    if (!a.type().isInteger(1) || !u.type().isInteger(1)) return Optional.empty();
    boolean ua = uniform(a);
    if (ua == uniform(u)) return Optional.empty();
    // (or: u true makes it true; and: u false makes it false) only a forced exit is split
    if (isOr != exitOnTrue) return Optional.empty();
    return Optional.of(ua ? new SplitExit(u, a, isOr) : new SplitExit(a, u, isOr));
  }

  /**
   * Knob: {@code -Dpacketizer.splitLatchExits=true} splits every divergent latch's uniform limit off into
   * a branch, {@code false} none; {@code auto} (the default) only where the leave arm writes nothing
   * ({@link #splitLatchExitsAuto}). Splitting with blends on the leave arm measured 4-6 % slower on march
   * at W8/AVX2 in the JIT's code model and no faster elsewhere (docs/performance.md, tenth round).
   */
  static boolean splitLatchExits() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.splitLatchExits", "auto"));
  }

  /**
   * The knob's default, {@code auto} (issue 16, eleventh round): split only where the arm that leaves
   * writes no value ({@link BlendGenerator#writesNothing}: march's {@code return -1.0f} after the limit
   * is an exit constant), so the leave arm is an empty block and the loop keeps one back-edge test;
   * measured on march at W8 and W16 against the split's arm with blends (docs/performance.md).
   */
  static boolean splitLatchExitsAuto() {
    return !"true".equalsIgnoreCase(System.getProperty("packetizer.splitLatchExits", "auto"));
  }

  /**
   * The latch of a divergent loop whose exit condition has a uniform part that decides alone ({@link
   * #splitExit}): the uniform part is a real branch, as in {@link #emitUniformLatchExit} (when it says
   * "exit", every lane still in the loop leaves, the exit's blends only on the way out), and only the
   * varying part goes into the lane masks, on the way that stays. Before, the uniform part was
   * broadcast and or-ed into the exit mask, the exit's blends ran in every iteration, and the limit
   * rode on the loop's any-lane test.
   */
  private void emitSplitLatchExit(Block sb, Value term, Block header, SplitExit split) {
    Block s1 = term.successor(0);
    Block s2 = term.successor(1);
    boolean exitOnTrue = !s1.equals(header);
    Block exitSucc = exitOnTrue ? s1 : s2;
    LatchFork fork = latchFork(sb);
    // (frozen, as in emitUniformLatchExit: the latch may run with no lane active)
    Value u = masks.frozen(scal(split.uniform()), nameOf(sb, ".limit"));
    st.stats().linearizedBranches++;
    st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform part of a divergent loop's exit condition kept as a branch; "
        + "the varying part in the lane mask: " + st.divergence().reason(split.varying())
        + " (-Dpacketizer.splitLatchExits=" + System.getProperty("packetizer.splitLatchExits", "auto") + ")");
    leaveOrStay(fork, u, split.forcing(), sb, exitSucc, header);
    Value[] edges = e.maskGenerator.edgeMasks(sb, split.varying(), s1, s2);
    e.maskGenerator.contribute(sb, s1, edges[0]);
    e.maskGenerator.contribute(sb, s2, edges[1]);
    Value back = exitOnTrue ? edges[1] : edges[0];
    b.condBr(masks.any(back, nameOf("continue.", sb)), head.get(header), afterLoop(header));
  }

  /**
   * The block-local caches ({@link #local}'s slot reads, {@link #splats}) as they were before the
   * emission of one scalar block forks into sibling packet blocks (a kept uniform branch's two arms, a
   * uniform latch exit's leave and stay): what one arm caches (a uniform value's splat made for an
   * exit blend) does not dominate the other arm (the back edge's phi), so each arm starts from the
   * caches of the block that dominates both.
   */
  private record Caches(Map<Value, Value> local, Map<Value, Value> splats) {}

  private Caches saveCaches() { return new Caches(new HashMap<>(local), new HashMap<>(splats)); }

  private void restoreCaches(Caches c) {
    local.clear();
    local.putAll(c.local());
    splats.clear();
    splats.putAll(c.splats());
  }

  private Block chainNext(Block sb) {
    return st.schedule().next(sb).map(this::entryOf).orElse(exitBlock());
  }

  private Block afterLoop(Block header) {
    return st.schedule().afterLoop(header).map(this::entryOf).orElse(exitBlock());
  }

  /** Where a forward edge into scalar block {@code sb} goes: a loop's entry test, else its head. */
  Block entryOf(Block sb) {
    Block en = enter.get(sb);
    return en != null ? en : head.get(sb);
  }

  /** The target of the real branch from {@code from} to {@code to}: back edges skip the entry test. */
  Block target(Block from, Block to) {
    boolean back = st.cfg().loops().loopWithHeader(to).map(l -> l.contains(from)).orElse(false);
    return back ? head.get(to) : entryOf(to);
  }

  /**
   * Before scalar block {@code sb}: every loop it is not in whose header was emitted is complete (a loop's
   * blocks are scheduled together), so its header's back edges exist and no edge into the header comes
   * later. Declaring that to {@link SlotSsa#predecessorsFinal} lets a later read walk through the loop
   * (a variable the loop never writes holds, at the header, what enters the loop), so e.g. the first
   * contribution to a mask after an inner loop is folded at once instead of a placeholder that resolves
   * to the empty mask and leaves {@code or zeroinitializer, m} for the clean-up (issue 16). Knob: {@code
   * -Dpacketizer.loopHeadersFinal=false} (read per packetization) keeps the headers undeclared.
   */
  private void closeLoopsLeftBy(Block sb) {
    if (openLoops.isEmpty() && st.cfg().loops().loopWithHeader(sb).isEmpty()) return;
    for (int i = openLoops.size() - 1; i >= 0; i--) {
      Block hd = openLoops.get(i);
      if (st.cfg().loops().loopWithHeader(hd).map(l -> l.contains(sb)).orElse(false)) continue;
      openLoops.remove(i);
      Block ph = head.get(hd);
      List<Block> into = ph == null ? null : predecessors(ph);
      if (into != null) vars().predecessorsFinal(ph, into);
    }
    if (loopHeadersFinal() && st.cfg().loops().loopWithHeader(sb).isPresent()) openLoops.add(sb);
  }

  /** Knob {@code -Dpacketizer.loopHeadersFinal} (default true): see {@link #closeLoopsLeftBy}. */
  static boolean loopHeadersFinal() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.loopHeadersFinal", "true"));
  }

  /** The blocks whose terminators branch to {@code bb} now (each once), or null when something else uses it. */
  private static List<Block> predecessors(Block bb) {
    List<Block> out = new java.util.ArrayList<>();
    for (Value u : bb.asValue().users()) {
      Optional<Block> p = u.block();
      if (p.isEmpty()) return null;
      if (!out.contains(p.get())) out.add(p.get());
    }
    return out;
  }
}
