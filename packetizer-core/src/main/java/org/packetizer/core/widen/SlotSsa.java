package org.packetizer.core.widen;

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
 * placeholder's value on the emitted control-flow graph — live-in sets by a backward walk from the
 * reads that stop at writes, a phi in every block with several predecessors where the variable is
 * live-in, trivial phis removed (Braun et al., CC 2013: minimal for reducible graphs) — and replaces
 * it.
 *
 * <p>Why not allocas and {@code sroa}/{@code mem2reg}: LLVM places phis with an iterated dominance
 * frontier computation that visits the dominator subtree of every block storing to the alloca. The
 * packet function is mostly a chain (each block's head dominates everything after it), so that is
 * the rest of the function per slot, and tens of thousands of slots made packetization quadratic
 * (4.6 s of 7 s for an 18,700-instruction function). Here the work per variable is proportional to
 * its live range; {@link #init} bounds the live ranges by writing a variable's initial value close
 * to where it is used (the emitter knows where that is safe).
 */
final class SlotSsa {
  /** A variable: one value of {@code type} per point of the program. */
  static final class Var {
    final Type type;
    final String name;
    Value undef;

    Var(Type type, String name) {
      this.type = type;
      this.name = name;
    }

    @Override public String toString() { return name; }
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
    final Value inst;
    Object value;  // Value, Phi or Placeholder

    Placeholder(Value inst) { this.inst = inst; }
  }

  /** An event in a block, in program order: a write (value != null, ph == null) or a read. */
  private record Event(Var var, Object value, Placeholder ph) {}

  private static final class BlockEvents {
    final List<Event> inits = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
  }

  private final IrBuilder b;
  private final Function fn;
  private final Value nullPtr;
  private final Map<Long, BlockEvents> events = new HashMap<>();
  private final Map<Long, Placeholder> placeholders = new HashMap<>();
  private final List<Placeholder> placeholderList = new ArrayList<>();

  // the block being appended to, with the variables' values at its end so far
  private long curBlock;
  private BlockEvents curEvents;
  private final Map<Var, Value> curDefs = new IdentityHashMap<>();

  SlotSsa(IrBuilder builder, Function fn, Value nullPtr) {
    this.b = builder;
    this.fn = fn;
    this.nullPtr = nullPtr;
  }

  Var newVar(Type type, String name) {
    return new Var(type, name);
  }

  /** Gives {@code var} the value {@code value} at the start of {@code block}. */
  void init(Var var, Block block, Value value) {
    events(block.id()).inits.add(new Event(var, value, null));
  }

  /** Writes {@code var} at the builder's position. */
  void write(Var var, Value value) {
    sync();
    curEvents.events.add(new Event(var, value, null));
    curDefs.put(var, value);
  }

  /** The value of {@code var} at the builder's position. */
  Value read(Var var, String name) {
    sync();
    Value known = curDefs.get(var);
    if (known != null) return known;
    Value inst = b.load(var.type, nullPtr, name);
    Placeholder ph = new Placeholder(inst);
    placeholders.put(inst.id(), ph);
    placeholderList.add(ph);
    curEvents.events.add(new Event(var, null, ph));
    curDefs.put(var, inst);
    return inst;
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
  void resolve() {
    // the emitted control-flow graph
    List<Block> blocks = new ArrayList<>();
    Map<Long, Integer> index = new HashMap<>();
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

    // per block: values at the end for the variables it writes; reads answered locally or upward-exposed
    @SuppressWarnings("unchecked") Map<Var, Object>[] endDefs = new Map[n];
    @SuppressWarnings("unchecked") Map<Var, Object>[] entry = new Map[n];  // live-in variables -> value at entry
    List<Placeholder> exposed = new ArrayList<>();
    List<Integer> exposedBlock = new ArrayList<>();
    List<Var> exposedVar = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BlockEvents ev = events.get(blocks.get(i).id());
      if (ev == null) continue;
      // defs: the value a read here sees (a read with no write before it stands for the block's
      // entry value); written: only the writes, the block's values at its end
      Map<Var, Object> defs = new IdentityHashMap<>();
      Map<Var, Object> written = new IdentityHashMap<>();
      for (Event e : ev.inits) {
        defs.put(e.var, e.value);
        written.put(e.var, e.value);
      }
      for (Event e : ev.events) {
        if (e.ph == null) {
          defs.put(e.var, e.value);
          written.put(e.var, e.value);
        } else {
          Object d = defs.get(e.var);
          if (d != null) {
            e.ph.value = d;
          } else {
            exposed.add(e.ph);
            exposedBlock.add(i);
            exposedVar.add(e.var);
            defs.put(e.var, e.ph);
          }
        }
      }
      endDefs[i] = written;
    }

    // live-in sets: backward from the upward-exposed reads, stopping at blocks that write
    ArrayDeque<long[]> work = new ArrayDeque<>();
    Object pending = new Object();
    for (int j = 0; j < exposed.size(); j++) {
      int blk = exposedBlock.get(j);
      Var v = exposedVar.get(j);
      if (entry[blk] == null) entry[blk] = new LinkedHashMap<>();  // (insertion order: deterministic output)
      if (entry[blk].putIfAbsent(v, pending) == null) work.add(new long[] {blk, j});
    }
    while (!work.isEmpty()) {
      long[] item = work.poll();
      int blk = (int) item[0];
      Var v = exposedVar.get((int) item[1]);
      for (int p : pred[blk]) {
        if (endDefs[p] != null && endDefs[p].containsKey(v)) continue;
        if (entry[p] == null) entry[p] = new LinkedHashMap<>();
        if (entry[p].putIfAbsent(v, pending) == null) work.add(new long[] {p, item[1]});
      }
    }

    // values at block entries, in reverse postorder (a single predecessor comes first)
    List<Phi> phis = new ArrayList<>();
    for (int blk : rpo) {
      if (entry[blk] == null) continue;
      for (Map.Entry<Var, Object> e : entry[blk].entrySet()) {
        Var v = e.getKey();
        int[] ps = reachablePreds(pred[blk], reachable);
        if (ps.length == 0) {
          e.setValue(undef(v));
        } else if (allSame(ps)) {
          e.setValue(endValue(v, ps[0], endDefs, entry));
        } else {
          Phi phi = new Phi(v, blk);
          phis.add(phi);
          e.setValue(phi);
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (reachable[i] || entry[i] == null) continue;
      for (Map.Entry<Var, Object> e : entry[i].entrySet()) e.setValue(undef(e.getKey()));
    }
    for (Phi phi : phis) {
      for (int p : pred[phi.block]) phi.ops.add(reachable[p] ? endValue(phi.var, p, endDefs, entry) : undef(phi.var));
    }
    for (int j = 0; j < exposed.size(); j++) exposed.get(j).value = entry[exposedBlock.get(j)].get(exposedVar.get(j));

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
    for (Phi phi : phis) {
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
    for (Placeholder ph : placeholderList) {
      ph.inst.replaceAllUsesWith(value(ph));
    }
    for (Placeholder ph : placeholderList) ph.inst.eraseFromParent();
  }

  private Object endValue(Var v, int blk, Map<Var, Object>[] endDefs, Map<Var, Object>[] entry) {
    if (endDefs[blk] != null) {
      Object d = endDefs[blk].get(v);
      if (d != null) return d;
    }
    Object e = entry[blk] == null ? null : entry[blk].get(v);
    if (e == null) throw new IllegalStateException("variable " + v + " is not live into block " + blk);
    return e;
  }

  /** The representative of a value: placeholders and trivial phis followed. */
  private Object find(Object o) {
    while (true) {
      if (o instanceof Placeholder ph) {
        o = ph.value;
      } else if (o instanceof Phi p && p.replacement != null) {
        o = p.replacement;
      } else if (o instanceof Value v && placeholders.containsKey(v.id())) {
        o = placeholders.get(v.id());
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
