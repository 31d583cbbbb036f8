package org.packetizer.core.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * SSA construction for the emitter's cross-block state (block masks, blended phis, values used in
 * other blocks, the return value) without stack slots.
 *
 * <p>The emitter writes and reads <em>variables</em> at the builder's position, as it would store to
 * and load from an alloca. A read that is not satisfied by a write earlier in the same block returns
 * a placeholder instruction; once the function is complete, {@link #resolve()} computes each
 * placeholder's value on the emitted control-flow graph — per variable (numbered densely, arrays
 * stamped with the variable instead of per-block maps): its live-in blocks by a backward walk from
 * the reads that stop at writes; then, in reverse postorder, a block's entry value is its
 * predecessors' common value when all of them are forward predecessors delivering the same value
 * (a retreating predecessor counts as delivering the block's own entry value when no block of the
 * loops through the block writes the variable: {@link #loopEnds}), else a phi; trivial phis (left at
 * loop headers) removed (Braun et al., CC 2013: minimal for
 * reducible graphs) — and replaces it. Phis are placed in (reverse postorder, variable) order, so
 * the output does not depend on hash order.
 *
 * <p>Why not allocas and {@code sroa}/{@code mem2reg}: LLVM places phis with an iterated dominance
 * frontier computation that visits the dominator subtree of every block storing to the alloca. The
 * packet function is mostly a chain (each block's head dominates everything after it), so that is
 * the rest of the function per slot, and tens of thousands of slots made packetization quadratic
 * (4.6 s of 7 s for an 18,700-instruction function). Here the work per variable is proportional to
 * its live range; {@link #init} bounds the live ranges by writing a variable's initial value close
 * to where it is used (the emitter knows where that is safe).
 */
public final class SlotSsa {
  /** A variable: one value of {@code type} per point of the program. */
  public static final class Var {
    final Type type;
    final String name;
    final int id;  // dense numbering, in creation order
    Value undef;

    Var(Type type, String name, int id) {
      this.type = type;
      this.name = name;
      this.id = id;
    }

    @Override public String toString() { return name.isEmpty() ? "#" + id : name; }
  }

  /** A phi under construction (materialized only if non-trivial). */
  private static final class Phi {
    final Var var;
    final int block;
    final List<Object> ops = new ArrayList<>();
    Object replacement;  // set when trivial
    Value real;          // set when materialized
    List<Phi> users;

    Phi(Var var, int block) {
      this.var = var;
      this.block = block;
    }
  }

  /** A read answered by the value of a variable at a point, known only at the end. */
  private static final class Placeholder {
    final Value inst;    // null for a read answered when it was made (see expected)
    Object value;  // Value, Phi or Placeholder
    /** For a read answered through sole predecessors: the value returned, checked by {@link #resolve}. */
    Value expected;
    Var var;
    long block;

    Placeholder(Value inst) { this.inst = inst; }
  }

  /** An event in a block, in program order: a write (value != null, ph == null) or a read. */
  private record Event(Var var, Object value, Placeholder ph) {}

  private static final class BlockEvents {
    final List<Event> inits = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    /** The last initial value per variable (as {@link #resolve} applies them). */
    final Map<Var, Value> initValues = new IdentityHashMap<>();
    /** Variables with an event in the block (a write or read after which the initial value is not current). */
    final java.util.Set<Var> touched = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /** Each variable's value at the block's end so far (its last write, or its first read's placeholder). */
    final Map<Var, Value> endDefs = new IdentityHashMap<>();
    /** The block's predecessors, forever (see {@link #predecessorsFinal}); null when not declared. */
    BlockEvents[] preds;
    /** Whether {@link #entryValueOrCycle} is walking through the block now. */
    boolean onWalk;
  }

  private final IrBuilder b;
  private final Function fn;
  private final Value nullPtr;
  // by native address (no boxed keys: issue 16)
  private final org.packetizer.core.ir.AddressMap<BlockEvents> events;
  private final org.packetizer.core.ir.AddressMap<Placeholder> placeholders;
  private final List<Placeholder> placeholderList = new ArrayList<>();
  private final List<Var> vars = new ArrayList<>();
  /** Reads answered through sole predecessors (checked against the resolution). */
  private final List<Placeholder> answered = new ArrayList<>();

  // the block being appended to, with the variables' values at its end so far
  private long curBlock;
  private BlockEvents curEvents;
  private final Map<Var, Value> curDefs = new IdentityHashMap<>();

  /**
   * Knob {@code -Dpacketizer.headerPhiShortcut=false} (read per instance, so per packetization): make a
   * candidate phi at every live-in block with a retreating in-edge and leave it to the trivial-phi pass,
   * as before the twenty-third round; by default no candidate is made where no block of the loops
   * through it writes the variable ({@link #loopEnds}). The resolution is the same either way.
   */
  static boolean headerPhiShortcut() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.headerPhiShortcut", "true"));
  }

  private final boolean loopHeadersSkipped = headerPhiShortcut();
  private int skippedHeaderPhis;
  private int candidatePhis;

  /** Retreating edges {@link #resolve} left out of a candidate phi (none with the knob off). */
  public int skippedHeaderPhis() { return skippedHeaderPhis; }

  /** Candidate phis {@link #resolve} made (the trivial ones among them are not materialized). */
  public int candidatePhis() { return candidatePhis; }

  public SlotSsa(IrBuilder builder, Function fn, Value nullPtr) {
    this(builder, fn, nullPtr, 64, 256);
  }

  /**
   * With the expected number of packet blocks and of reads (the tables start at that size instead of
   * growing there; the emitter passes the scalar function's block and instruction counts).
   */
  public SlotSsa(IrBuilder builder, Function fn, Value nullPtr, int blocks, int reads) {
    this.b = builder;
    this.fn = fn;
    this.nullPtr = nullPtr;
    this.events = new org.packetizer.core.ir.AddressMap<>(blocks);
    this.placeholders = new org.packetizer.core.ir.AddressMap<>(reads);
  }

  public Var newVar(Type type, String name) {
    Var v = new Var(type, name, vars.size());
    vars.add(v);
    return v;
  }

  /** Gives {@code var} the value {@code value} at the start of {@code block}. */
  public void init(Var var, Block block, Value value) {
    BlockEvents ev = events(block.id());
    ev.inits.add(new Event(var, value, null));
    ev.initValues.put(var, value);
  }

  /**
   * Declares that {@code block}, new and empty, has the single predecessor {@code pred} and will never
   * get another (the arms of a kept uniform branch, the body of an any-lane guard), and that nothing
   * is written at {@code pred}'s end any more. A read in {@code block} that nothing before it in the
   * block answers then takes {@code pred}'s value at its end when that is known (a write, a read, an
   * initial value, or again a sole predecessor's), instead of a placeholder: an empty mask or a poison
   * blend the emitter folds right away, not code the clean-up removes. {@link #resolve} checks every
   * such answer against the resolution on the finished graph.
   */
  public void solePredecessor(Block block, Block pred) {
    predecessorsFinal(block, List.of(pred));
  }

  /**
   * Declares that {@code block}'s predecessors are {@code preds} and will stay so (no edge into it
   * is added later; a loop header's back edge, for one, comes later), and that nothing is written at
   * their ends any more. A read at {@code block}'s start then takes the value every predecessor
   * delivers at its end, when it is the same known value for all (see {@link #solePredecessor}).
   */
  public void predecessorsFinal(Block block, List<Block> preds) {
    BlockEvents[] ps = new BlockEvents[preds.size()];
    for (int i = 0; i < ps.length; i++) ps[i] = events(preds.get(i).id());
    events(block.id()).preds = ps;
  }

  /** Writes {@code var} at the builder's position. */
  public void write(Var var, Value value) {
    sync();
    curEvents.events.add(new Event(var, value, null));
    curEvents.touched.add(var);
    curEvents.endDefs.put(var, value);
    curDefs.put(var, value);
  }

  /** The value of {@code var} at the builder's position. */
  public Value read(Var var, String name) {
    sync();
    Value known = curDefs.get(var);
    if (known != null) return known;
    // nothing happened to var in this block yet: its initial value here, when it has one, is current
    // (a constant the emitter can fold: an empty mask, a poison blend; no placeholder to resolve)
    if (!curEvents.touched.contains(var)) {
      Value init = curEvents.initValues.get(var);
      if (init != null) return init;
      budget = 32;
      Value viaPred = curEvents.preds == null ? null : entryValue(curEvents, var, 0);
      if (viaPred != null) {
        Placeholder check = new Placeholder(null);
        check.expected = viaPred;
        check.var = var;
        check.block = curBlock;
        answered.add(check);
        curEvents.events.add(new Event(var, null, check));
        curEvents.touched.add(var);
        curEvents.endDefs.putIfAbsent(var, viaPred);
        curDefs.put(var, viaPred);
        return viaPred;
      }
    }
    Value inst = b.load(var.type, nullPtr, name);
    Placeholder ph = new Placeholder(inst);
    placeholders.put(inst.id(), ph);
    placeholderList.add(ph);
    curEvents.events.add(new Event(var, null, ph));
    curEvents.touched.add(var);
    curEvents.endDefs.putIfAbsent(var, inst);
    curDefs.put(var, inst);
    return inst;
  }

  private int budget;

  /**
   * {@code var}'s value at the start of {@code ev}'s block when every predecessor delivers the same
   * known value at its end (looked up through predecessors declared final, at most {@link #budget}
   * blocks per read), else null. A predecessor reached again on the walk (a loop whose back edges are
   * all emitted, declared final by the emitter once it left the loop) adds no value of its own: around
   * a cycle nothing writes the variable, so the blocks on it hold what enters it (Braun et al.'s trivial
   * phis, decided before the phi would be made).
   */
  private Value entryValue(BlockEvents ev, Var var, int depth) {
    Object v = entryValueOrCycle(ev, var, depth);
    return v instanceof Value value ? value : null;
  }

  /** A marker: the walk came back to a block it is inside of. */
  private static final Object CYCLE = new Object();

  /** {@link #entryValue}, or {@link #CYCLE} when every predecessor leads back to a block on the walk. */
  private Object entryValueOrCycle(BlockEvents ev, Var var, int depth) {
    if (ev.onWalk) return CYCLE;
    if (ev.preds == null || ev.preds.length == 0 || depth > 16) return null;
    ev.onWalk = true;
    try {
      Value same = null;
      for (BlockEvents p : ev.preds) {
        if (--budget < 0) return null;
        Object v = p.endDefs.get(var);
        if (v == null) {
          if (p.touched.contains(var)) return null;
          v = p.initValues.get(var);
          if (v == null) v = entryValueOrCycle(p, var, depth + 1);
          if (v == null) return null;
        }
        if (v == CYCLE) continue;
        if (same == null) {
          same = (Value) v;
        } else if (!same.equals(v)) {
          return null;
        }
      }
      return same == null ? CYCLE : same;
    } finally {
      ev.onWalk = false;
    }
  }

  private void sync() {
    long blk = b.currentBlock().id();
    if (blk != curBlock) {
      curBlock = blk;
      curEvents = events(blk);
      curDefs.clear();
    }
  }

  private BlockEvents events(long blk) { return events.computeIfAbsent(blk, k -> new BlockEvents()); }

  /** Replaces every placeholder by its value; the function must be complete (all terminators). */
  public void resolve() {
    // the emitted control-flow graph
    List<Block> blocks = new ArrayList<>();
    org.packetizer.core.ir.AddressMap<Integer> index = new org.packetizer.core.ir.AddressMap<>(events.size());
    for (Block bb = fn.entry(); bb != null; bb = bb.next()) {
      index.put(bb.id(), blocks.size());
      blocks.add(bb);
    }
    int n = blocks.size();
    int[][] succ = new int[n][];
    int[] predCount = new int[n];
    for (int i = 0; i < n; i++) {
      Value term = blocks.get(i).terminator();
      if (term == null) {
        throw new IllegalStateException("block " + i + " of the packet function has no terminator");
      }
      int k = term.numSuccessors();
      succ[i] = new int[k];
      for (int j = 0; j < k; j++) {
        succ[i][j] = index.get(term.successor(j).id());
        predCount[succ[i][j]]++;
      }
    }
    int[][] pred = new int[n][];
    for (int i = 0; i < n; i++) pred[i] = new int[predCount[i]];
    int[] fill = new int[n];
    for (int i = 0; i < n; i++) for (int s : succ[i]) pred[s][fill[s]++] = i;
    int[] rpo = reversePostorder(succ, n);
    boolean[] reachable = new boolean[n];
    for (int v : rpo) reachable[v] = true;

    int[] rpoIndex = new int[n];
    java.util.Arrays.fill(rpoIndex, -1);
    for (int k = 0; k < rpo.length; k++) rpoIndex[rpo[k]] = k;
    int[] loopEnd = loopHeadersSkipped ? loopEnds(pred, rpo, rpoIndex, n) : null;

    // per block, in block order: the variables' values at its end (last write) and the reads not
    // answered by an earlier write in the block (upward-exposed; at most one per block and variable),
    // gathered per variable (dense numbering: no per-block maps)
    int nv = vars.size();
    int[][] defBlk = new int[nv][];
    Object[][] defVal = new Object[nv][];
    int[] defCnt = new int[nv];
    int[][] expBlk = new int[nv][];
    Placeholder[][] expPh = new Placeholder[nv][];
    int[] expCnt = new int[nv];
    int[] seenStamp = new int[nv];        // block + 1 whose scan last touched the variable
    Object[] local = new Object[nv];      // value a read in that block sees
    for (int i = 0; i < n; i++) {
      BlockEvents ev = events.get(blocks.get(i).id());
      if (ev == null) continue;
      int stamp = i + 1;
      for (Event e : ev.inits) writeLocal(e.var.id, i, stamp, e.value, seenStamp, local, defBlk, defVal, defCnt);
      for (Event e : ev.events) {
        int v = e.var.id;
        if (e.ph == null) {
          writeLocal(v, i, stamp, e.value, seenStamp, local, defBlk, defVal, defCnt);
        } else if (seenStamp[v] == stamp) {
          e.ph.value = local[v];
        } else {
          seenStamp[v] = stamp;
          local[v] = e.ph;
          if (expBlk[v] == null) {
            expBlk[v] = new int[2];
            expPh[v] = new Placeholder[2];
          } else if (expCnt[v] == expBlk[v].length) {
            expBlk[v] = java.util.Arrays.copyOf(expBlk[v], expCnt[v] * 2);
            expPh[v] = java.util.Arrays.copyOf(expPh[v], expCnt[v] * 2);
          }
          expBlk[v][expCnt[v]] = i;
          expPh[v][expCnt[v]++] = e.ph;
        }
      }
    }

    // per variable: live-in blocks (backward from the upward-exposed reads, stopping at blocks that
    // write), then values at their entries in reverse postorder; a phi only where predecessors can
    // disagree (a back edge, or forward predecessors with different values) — the others would be
    // trivial. Work per variable is proportional to its live range.
    int[] wStamp = new int[n];
    Object[] wVal = new Object[n];
    int[] liveStamp = new int[n];
    Object[] entryVal = new Object[n];
    int[] liveList = new int[n];
    List<Phi> phis = new ArrayList<>();
    List<Phi> varPhis = new ArrayList<>();
    for (Var var : vars) {
      int v = var.id;
      if (expCnt[v] == 0) continue;
      int stamp = v + 1;
      for (int k = 0; k < defCnt[v]; k++) {
        wStamp[defBlk[v][k]] = stamp;
        wVal[defBlk[v][k]] = defVal[v][k];
      }
      int[] defRpo = null;  // the writes' blocks' reverse-postorder indices, sorted (made when first needed)
      int nl = 0;
      for (int k = 0; k < expCnt[v]; k++) {
        int blk = expBlk[v][k];
        if (liveStamp[blk] != stamp) {
          liveStamp[blk] = stamp;
          liveList[nl++] = blk;
        }
      }
      for (int q = 0; q < nl; q++) {
        for (int p : pred[liveList[q]]) {
          if (wStamp[p] == stamp || liveStamp[p] == stamp) continue;
          liveStamp[p] = stamp;
          liveList[nl++] = p;
        }
      }
      // reachable live-in blocks in reverse postorder (a forward predecessor comes first)
      long[] keyed = new long[nl];
      int nr = 0;
      for (int q = 0; q < nl; q++) {
        int blk = liveList[q];
        if (reachable[blk]) {
          keyed[nr++] = ((long) rpoIndex[blk] << 32) | blk;
        } else {
          entryVal[blk] = undef(var);
        }
      }
      java.util.Arrays.sort(keyed, 0, nr);
      varPhis.clear();
      for (int q = 0; q < nr; q++) {
        int blk = (int) keyed[q];
        int[] ps = reachablePreds(pred[blk], reachable);
        if (ps.length == 0) {
          entryVal[blk] = undef(var);
          continue;
        }
        Object same = null;
        boolean needPhi = false;
        for (int p : ps) {
          if (rpoIndex[p] >= rpoIndex[blk]) {  // back edge: its value is not known yet
            // (unless nothing in blk's loops writes var: the back edge then brings blk's own entry value,
            // and the phi would be trivial; see loopEnds)
            if (loopEnd != null && loopEnd[blk] >= 0) {
              if (defRpo == null) defRpo = sortedRpo(defBlk[v], defCnt[v], rpoIndex);
              if (!anyIn(defRpo, rpoIndex[blk], loopEnd[blk])) {
                skippedHeaderPhis++;
                continue;
              }
            }
            needPhi = true;
            break;
          }
          // (compared as recorded: a placeholder of a variable not resolved yet cannot be followed)
          Object r = wStamp[p] == stamp ? wVal[p] : entryVal[p];
          if (same == null) {
            same = r;
          } else if (r != same) {
            needPhi = true;
            break;
          }
        }
        if (same == null) needPhi = true;  // (only back edges: not for a reachable block but the entry)
        if (needPhi) {
          Phi phi = new Phi(var, blk);
          varPhis.add(phi);
          entryVal[blk] = phi;
        } else {
          entryVal[blk] = same;
        }
      }
      for (Phi phi : varPhis) {
        for (int p : pred[phi.block]) {
          if (!reachable[p]) {
            phi.ops.add(undef(var));
          } else if (wStamp[p] == stamp) {
            phi.ops.add(wVal[p]);
          } else if (liveStamp[p] == stamp) {
            phi.ops.add(entryVal[p]);
          } else {
            throw new IllegalStateException("variable " + var + " is not live into block " + p);
          }
        }
      }
      phis.addAll(varPhis);
      for (int k = 0; k < expCnt[v]; k++) expPh[v][k].value = entryVal[expBlk[v][k]];
    }

    candidatePhis = phis.size();
    // trivial phis (all operands the same value or the phi itself) are replaced by that value
    for (Phi phi : phis) {
      for (Object op : phi.ops) {
        if (op instanceof Phi q && q != phi) {
          if (q.users == null) q.users = new ArrayList<>();
          q.users.add(phi);
        }
      }
    }
    ArrayDeque<Phi> phiWork = new ArrayDeque<>(phis);
    while (!phiWork.isEmpty()) {
      Phi phi = phiWork.poll();
      if (phi.replacement != null) continue;
      Object same = null;
      boolean trivial = true;
      for (Object op : phi.ops) {
        Object r = find(op);
        if (r == phi || r == same) continue;
        if (same != null) {
          trivial = false;
          break;
        }
        same = r;
      }
      if (!trivial) continue;
      phi.replacement = same == null ? undef(phi.var) : same;
      if (phi.users != null) phiWork.addAll(phi.users);
    }

    // materialize the remaining phis at the top of their blocks, then their operands
    List<Phi> live = new ArrayList<>();
    for (Phi phi : inBlockOrder(phis, ph -> rpoIndex[ph.block], ph -> ph.var.id, n)) {
      if (phi.replacement != null) continue;
      phi.real = b.before(blocks.get(phi.block).firstInstruction()).phi(phi.var.type, phi.var.name);
      live.add(phi);
    }
    for (Phi phi : live) {
      int k = phi.ops.size();
      List<Value> vals = new ArrayList<>(k);
      List<Block> bbs = new ArrayList<>(k);
      int[] ps = pred[phi.block];
      for (int j = 0; j < k; j++) {
        vals.add(value(phi.ops.get(j)));
        bbs.add(blocks.get(ps[j]));
      }
      phi.real.addIncoming(vals, bbs);
    }
    for (Placeholder ph : answered) {
      Integer at = index.get(ph.block);
      if (at == null || !reachable[at]) continue;  // (any value will do)
      Object got = find(ph);
      Object want = find(ph.expected);
      if (!agrees(got, want, new java.util.HashSet<>())) {
        throw new IllegalStateException("variable " + ph.var + ": a read in block " + blocks.get(at).name()
            + " answered through predecessors declared final returned " + want + ", but the finished graph gives " + got);
      }
    }
    for (Placeholder ph : placeholderList) {
      ph.inst.replaceAllUsesWith(value(ph));
    }
    for (Placeholder ph : placeholderList) ph.inst.eraseFromParent();
  }

  /**
   * {@code items} (the phis) by their block's reverse-postorder index {@code rank} (0 .. n - 1), then by
   * variable {@code var}. The phis are listed variable by variable (ascending ids), so a stable counting
   * sort by block gives that order in linear time (issue 16: the comparator sort it replaces was about
   * 1 % of a 20k-instruction nestedloop packetization); a list not in variable order is sorted by the
   * comparator.
   */
  static <T> List<T> inBlockOrder(List<T> items, java.util.function.ToIntFunction<T> rank,
      java.util.function.ToIntFunction<T> var, int n) {
    int[] start = new int[n + 1];
    int lastVar = Integer.MIN_VALUE;
    for (T t : items) {
      int v = var.applyAsInt(t);
      if (v < lastVar) {
        List<T> sorted = new ArrayList<>(items);
        sorted.sort(java.util.Comparator.comparingInt(rank).thenComparingInt(var));
        return sorted;
      }
      lastVar = v;
      start[rank.applyAsInt(t) + 1]++;
    }
    for (int k = 0; k < n; k++) start[k + 1] += start[k];
    Object[] out = new Object[items.size()];
    for (T t : items) out[start[rank.applyAsInt(t)]++] = t;
    @SuppressWarnings("unchecked")
    List<T> list = (List<T>) java.util.Arrays.asList(out);
    return list;
  }

  private static void writeLocal(int v, int blk, int stamp, Object value, int[] seenStamp, Object[] local,
      int[][] defBlk, Object[][] defVal, int[] defCnt) {
    seenStamp[v] = stamp;
    local[v] = value;
    int c = defCnt[v];
    if (c > 0 && defBlk[v][c - 1] == blk) {
      defVal[v][c - 1] = value;
      return;
    }
    if (defBlk[v] == null) {
      defBlk[v] = new int[2];
      defVal[v] = new Object[2];
    } else if (c == defBlk[v].length) {
      defBlk[v] = java.util.Arrays.copyOf(defBlk[v], c * 2);
      defVal[v] = java.util.Arrays.copyOf(defVal[v], c * 2);
    }
    defBlk[v][c] = blk;
    defVal[v][c] = value;
    defCnt[v] = c + 1;
  }

  /**
   * Whether {@code got} is {@code want}: the same object, the same LLVM value, or a phi whose operands
   * all are (the resolution compares values as recorded, so it keeps a phi of two wrappers of one
   * constant, e.g. the poison of an initial value and the poison a folded blend wrote).
   */
  private boolean agrees(Object got, Object want, java.util.Set<Phi> seen) {
    if (got == want) return true;
    if (got instanceof Value g && want instanceof Value w) return g.equals(w);
    if (got instanceof Phi p) {
      if (!seen.add(p)) return true;
      for (Object op : p.ops) if (!agrees(find(op), want, seen)) return false;
      return true;
    }
    return false;
  }

  /** The representative of a value: placeholders and trivial phis followed. */
  private Object find(Object o) {
    while (true) {
      if (o instanceof Placeholder ph) {
        o = ph.value;
      } else if (o instanceof Phi p && p.replacement != null) {
        o = p.replacement;
      } else if (o instanceof Value v) {
        Placeholder ph = placeholders.get(v.id());
        if (ph == null) return o;
        o = ph;
      } else {
        return o;
      }
    }
  }

  private Value value(Object o) {
    Object r = find(o);
    if (r instanceof Phi p) return p.real;
    if (r instanceof Value v) return v;
    throw new IllegalStateException("unresolved value " + r);
  }

  private Value undef(Var v) {
    if (v.undef == null) v.undef = b.poison(v.type);
    return v.undef;
  }

  /**
   * For each block with a retreating in-edge (a predecessor at or after it in reverse postorder): the
   * highest reverse-postorder index of the blocks that reach such a predecessor without passing the
   * block (its loops' bodies), when every one of them comes after it in reverse postorder — which is
   * the case exactly when the block dominates each such predecessor (the entry, at index 0, does not
   * reach them without passing it). -1 for every other block (no retreating in-edge, or one the block
   * does not dominate: an irreducible graph).
   *
   * <p>Why: a variable that no block with an index in [index(h), loopEnd(h)] writes keeps its value at
   * h's entry around every loop through h (every path from h to a retreating predecessor stays in
   * those blocks), so the retreating edges bring h's own entry value and a phi there would merge only
   * the forward predecessors' values: one where those agree is trivial, and is not made (Braun et al.'s
   * trivial phi, decided before making it; issue 16, twenty-third round). Work: the loops' sizes.
   */
  static int[] loopEnds(int[][] pred, int[] rpo, int[] rpoIndex, int n) {
    int[] end = new int[n];
    java.util.Arrays.fill(end, -1);
    int[] seen = new int[n];
    int[] stack = new int[n];
    for (int h : rpo) {
      int hi = rpoIndex[h];
      int sp = 0;
      boolean retreating = false;
      int stamp = hi + 1;
      seen[h] = stamp;
      for (int p : pred[h]) {
        if (rpoIndex[p] >= hi) {
          retreating = true;
          if (seen[p] != stamp) {
            seen[p] = stamp;
            stack[sp++] = p;
          }
        }
      }
      if (!retreating) continue;
      int max = hi;
      boolean dominated = true;
      while (sp > 0 && dominated) {
        int x = stack[--sp];
        max = Math.max(max, rpoIndex[x]);
        for (int p : pred[x]) {
          if (seen[p] == stamp || rpoIndex[p] < 0) continue;  // (unreachable: on no path from the entry)
          if (rpoIndex[p] < hi) {
            dominated = false;
            break;
          }
          seen[p] = stamp;
          stack[sp++] = p;
        }
      }
      end[h] = dominated ? max : -1;
    }
    return end;
  }

  /** The reverse-postorder indices of the first {@code count} blocks of {@code blocks}, sorted. */
  private static int[] sortedRpo(int[] blocks, int count, int[] rpoIndex) {
    int[] out = new int[count];
    for (int k = 0; k < count; k++) out[k] = rpoIndex[blocks[k]];
    java.util.Arrays.sort(out);
    return out;
  }

  /** Whether the sorted {@code values} hold one in [lo, hi]. */
  private static boolean anyIn(int[] values, int lo, int hi) {
    int k = java.util.Arrays.binarySearch(values, lo);
    if (k < 0) k = -k - 1;
    return k < values.length && values[k] <= hi;
  }

  private static int[] reachablePreds(int[] ps, boolean[] reachable) {
    int k = 0;
    for (int p : ps) if (reachable[p]) k++;
    if (k == ps.length) return ps;
    int[] out = new int[k];
    k = 0;
    for (int p : ps) if (reachable[p]) out[k++] = p;
    return out;
  }

  private static boolean allSame(int[] ps) {
    for (int p : ps) if (p != ps[0]) return false;
    return true;
  }

  private static int[] reversePostorder(int[][] succ, int n) {
    int[] order = new int[n];
    int pos = n;
    boolean[] seen = new boolean[n];
    int[] stack = new int[n];
    int[] next = new int[n];
    int sp = 0;
    if (n == 0) return new int[0];
    stack[sp++] = 0;
    seen[0] = true;
    while (sp > 0) {
      int v = stack[sp - 1];
      if (next[v] < succ[v].length) {
        int s = succ[v][next[v]++];
        if (!seen[s]) {
          seen[s] = true;
          stack[sp++] = s;
        }
      } else {
        sp--;
        order[--pos] = v;
      }
    }
    int[] out = new int[n - pos];
    System.arraycopy(order, pos, out, 0, n - pos);
    return out;
  }
}
