package org.packetizer.core.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Memory at a uniform address that the lanes of one packet call share: a global variable, or a
 * fixed offset from a uniform pointer parameter. The packet function must leave it, and every lane
 * must read from it, what W calls of the scalar function in lane order (lane 0 first) would: the
 * highest lane that writes it has the last word, and a lane reading it sees its own earlier writes
 * or else what the lower lanes left.
 *
 * <p>A location that some lane may write differently from the others (a varying value, or a store in
 * a block not every lane runs) or that is both written and read is handled in one of three ways:
 *
 * <ul>
 *   <li><b>Private</b> (a global written and read back by the same lane): every load of the location
 *       is dominated by a store to it, so each lane only reads its own writes. The packet function
 *       keeps one copy per lane in registers (stores blend into it under the mask, loads read it) and
 *       writes the highest writing lane's last value back at its exit.
 *   <li><b>Counter</b> ({@code g += x}, {@code g++}, {@code g *= x}, {@code g |= x}, ...): every
 *       access is a load, one integer add/sub/mul/and/or/xor of it, and a store of the result back,
 *       with nothing else touching memory between them. The update becomes one scalar
 *       read-modify-write with the reduction of the active lanes' operands (integer arithmetic
 *       wraps, so the order of the lanes does not matter). A floating-point {@code g += x} is
 *       supported when it is the location's only access and runs at most once per call (outside
 *       loops): an ordered reduction in lane order, bit for bit.
 *   <li><b>Race</b>: anything else (a lane reading what another lane wrote, a value read before the
 *       same lane writes it, calls that may read or write memory between, overlapping accesses of
 *       different sizes). Reported as a cross-lane race naming the access; the packet function then
 *       does what one access for all active lanes does (a store writes the highest active lane's
 *       value, a load reads one value for all lanes).
 * </ul>
 *
 * Distinct base pointers (two globals, a global and a parameter, two parameters) are assumed not to
 * overlap, as for varying accesses. Volatile and atomic accesses are left to the emitter's rules.
 */
public final class UniformMemory {
  public enum Handling { PRIVATE, COUNTER, RACE }

  /** One location: base (a global or a uniform pointer parameter) plus a constant byte offset. */
  public static final class Location {
    final Value base;
    final long offset;
    Type type;
    int align = 1;
    final List<Value> loads = new ArrayList<>();
    final List<Value> stores = new ArrayList<>();
    Handling handling;
    String reason;

    Location(Value base, long offset) {
      this.base = base;
      this.offset = offset;
    }

    public Value base() { return base; }
    public long offset() { return offset; }
    public Type type() { return type; }
    public int align() { return align; }
    public Handling handling() { return handling; }
    public List<Value> loads() { return loads; }
    public List<Value> stores() { return stores; }
    /** Why the location is a race (null otherwise). */
    public String reason() { return reason; }

    public String describe() {
      String b = base.isGlobalValue() ? "@" + base.name() : "%" + base.name();
      return offset == 0 ? b : b + "+" + offset;
    }
  }

  /**
   * A counter update: {@code store(load OP x1 OP x2 ..., location)} with one operator family (add and
   * sub; or one of mul, and, or, xor; or a single fadd/fsub), each intermediate used once.
   *
   * A floating-point {@code llvm.fmuladd}/{@code llvm.fma} with the location as its addend (clang's
   * contraction of {@code g += a * b}) has family CALL, operands {@code a, b} and the intrinsic in
   * {@code intrinsic}.
   *
   * @param negated per operand, whether it is subtracted
   */
  public record Counter(Location location, Value load, Opcode family, List<Value> operands, List<Boolean> negated, Value intrinsic) { }

  private final Map<Value, Location> privateLoads = new HashMap<>();
  private final Map<Value, Location> privateStores = new HashMap<>();
  private final Map<Value, Counter> counters = new HashMap<>();
  private final List<Location> handled = new ArrayList<>();
  private final List<Location> races = new ArrayList<>();

  private UniformMemory() {}

  /**
   * @param mayAccessMemory whether a call instruction may read or write memory the function can see
   */
  public static UniformMemory analyse(LlvmSsaFunction ssa, CfgAnalyses<Block> cfg, DivergenceInfo<Block, Value> div,
      SoaPointers soa, Predicate<Value> mayAccessMemory) {
    UniformMemory um = new UniformMemory();
    Function f = ssa.function();
    Map<Value, Map<Long, Location>> byBase = new LinkedHashMap<>();
    Map<Value, List<Value>> unknownOffset = new HashMap<>();
    List<Value> memoryCalls = new ArrayList<>();
    for (Block bl : f.blocks()) {
      if (ssa.instructions(bl) == null) continue;
      for (Value inst : ssa.instructions(bl)) {
        Opcode op = ssa.opcode(inst);
        if (op == Opcode.CALL && mayAccessMemory.test(inst)) memoryCalls.add(inst);
        if (op != Opcode.LOAD && op != Opcode.STORE) continue;
        if (inst.isVolatile() || inst.isAtomic()) continue;
        Value ptr = inst.operand(op == Opcode.LOAD ? 0 : 1);
        // (struct-of-arrays pointers address each lane's own object)
        if (!isUniform(div, ptr) || soa.isDerived(ptr)) continue;
        long[] off = {0};
        Value base = stripConstantOffsets(ssa, ptr, off);
        if (base == null || !(base.isGlobalVariable() || base.isArgument())) {
          Value root = base == null ? rootOf(ptr) : base;
          unknownOffset.computeIfAbsent(root, k -> new ArrayList<>()).add(inst);
          continue;
        }
        Location loc = byBase.computeIfAbsent(base, k -> new LinkedHashMap<>()).computeIfAbsent(off[0], o -> new Location(base, o));
        Type t = op == Opcode.LOAD ? inst.type() : inst.operand(0).type();
        if (loc.type == null) loc.type = t;
        else if (!loc.type.equals(t)) loc.reason = "accessed as both " + loc.type + " and " + t;
        loc.align = Math.max(loc.align, Math.max(1, inst.alignment()));
        (op == Opcode.LOAD ? loc.loads : loc.stores).add(inst);
      }
    }
    for (var e : byBase.entrySet()) {
      for (Location loc : e.getValue().values()) {
        if (loc.stores.isEmpty()) continue;
        boolean laneDependent = !loc.loads.isEmpty();
        for (Value s : loc.stores) {
          laneDependent |= !isUniform(div, s.operand(0)) || ssa.blockOf(s).map(div::mayBePartial).orElse(true);
        }
        if (!laneDependent) continue; // every lane writes the same values in the same order
        if (loc.reason == null && unknownOffset.containsKey(e.getKey())) {
          loc.reason = "it is also accessed at a uniform but not constant offset from " + loc.describe();
        }
        if (loc.reason == null && overlapsAnother(ssa, loc, e.getValue())) loc.reason = "it overlaps another location accessed with another size";
        if (loc.reason == null && !memoryCalls.isEmpty()) {
          loc.reason = "the call " + memoryCalls.getFirst().print().strip() + " may read or write memory while the lanes hold their values";
        }
        if (loc.reason == null) {
          Map<Value, Counter> byStore = new HashMap<>();
          Optional<List<Counter>> cs = counterSites(ssa, cfg, loc, byStore);
          if (cs.isPresent()) {
            loc.handling = Handling.COUNTER;
            um.counters.putAll(byStore);
            um.handled.add(loc);
            continue;
          }
          if (!loc.type.isVectorElement() || loc.type.isFloatingPoint() && !loc.type.isFloat() && !loc.type.isDouble()) {
            loc.reason = "its type " + loc.type + " cannot be kept per lane";
          } else {
            Optional<Value> early = readBeforeOwnWrite(ssa, cfg, loc);
            if (early.isEmpty()) {
              loc.handling = Handling.PRIVATE;
              for (Value l : loc.loads) um.privateLoads.put(l, loc);
              for (Value s : loc.stores) um.privateStores.put(s, loc);
              um.handled.add(loc);
              continue;
            }
            loc.reason = "the load " + early.get().print().strip() + " may read it before the same lane writes it, so a lane would"
                + " see what lower lanes wrote";
          }
        }
        loc.handling = Handling.RACE;
        um.races.add(loc);
      }
    }
    return um;
  }

  private static boolean isUniform(DivergenceInfo<Block, Value> div, Value v) {
    if (v.isConstant()) return true;
    return div.isUniform(v);
  }

  /** The pointer below constant-offset GEPs and bitcasts; null when an offset is not constant. */
  private static Value stripConstantOffsets(LlvmSsaFunction ssa, Value p, long[] offset) {
    Value v = p;
    while (true) {
      if (v.isInstruction() && (v.opcode() == Opcode.BITCAST || v.opcode() == Opcode.ADDRSPACECAST)) {
        v = v.operand(0);
      } else if ((v.isInstruction() || v.isConstantExpr()) && v.opcode() == Opcode.GEP) {
        for (int i = 1; i < v.numOperands(); i++) if (!v.operand(i).isConstantInt()) return null;
        offset[0] += ssa.gepConstantOffset(v);
        v = v.operand(0);
      } else {
        return v;
      }
    }
  }

  private static Value rootOf(Value p) {
    Value v = p;
    while ((v.isInstruction() || v.isConstantExpr()) && (v.opcode() == Opcode.GEP || v.opcode() == Opcode.BITCAST)) v = v.operand(0);
    return v;
  }

  private static boolean overlapsAnother(LlvmSsaFunction ssa, Location loc, Map<Long, Location> siblings) {
    long size = storeSize(loc.type);
    for (Location o : siblings.values()) {
      if (o == loc) continue;
      long os = storeSize(o.type);
      if (o.offset < loc.offset + size && loc.offset < o.offset + os) return true;
    }
    return false;
  }

  private static long storeSize(Type t) {
    if (t.isInteger()) return (t.intWidth() + 7) / 8;
    if (t.isFloat()) return 4;
    if (t.isDouble()) return 8;
    return 16; // pointers and anything else: conservatively large
  }

  private static Opcode family(Opcode op) {
    return switch (op) {
      case ADD, SUB -> Opcode.ADD;
      case FADD, FSUB -> Opcode.FADD;
      case MUL, AND, OR, XOR -> op;
      default -> null;
    };
  }

  /** The counter updates of {@code loc}, when every access of it is one. */
  private static Optional<List<Counter>> counterSites(LlvmSsaFunction ssa, CfgAnalyses<Block> cfg, Location loc,
      Map<Value, Counter> countersByStore) {
    if (loc.loads.size() != loc.stores.size()) return Optional.empty();
    List<Counter> out = new ArrayList<>();
    for (Value load : loc.loads) {
      Optional<Block> bl = ssa.blockOf(load);
      if (bl.isEmpty()) return Optional.empty();
      Value cur = load;
      Value store = null;
      Opcode fam = null;
      Value intrinsic = null;
      List<Value> xs = new ArrayList<>();
      List<Boolean> neg = new ArrayList<>();
      while (store == null) {
        List<Value> users = cur.users();
        if (users.size() != 1 || !users.getFirst().isInstruction()) return Optional.empty();
        Value u = users.getFirst();
        if (!ssa.blockOf(u).equals(bl)) return Optional.empty();
        Opcode opc = u.opcode();
          if (opc == Opcode.STORE) {
          if (!loc.stores.contains(u) || !u.operand(0).equals(cur) || xs.isEmpty()) return Optional.empty();
          store = u;
          break;
        }
        if (opc == Opcode.CALL && fam == null && u.calledFunction().map(fn -> fn.name().startsWith("llvm.fmuladd.")
            || fn.name().startsWith("llvm.fma.")).orElse(false) && u.operand(2).equals(cur) && !u.operand(0).equals(cur)
            && !u.operand(1).equals(cur)) {
          fam = Opcode.CALL;
          intrinsic = u.calledOperand();
          xs.add(u.operand(0));
          xs.add(u.operand(1));
          neg.add(false);
          neg.add(false);
          cur = u;
          continue;
        }
        Opcode f = family(opc);
        if (f == null || fam != null && f != fam) return Optional.empty();
        fam = f;
        boolean subtract = opc == Opcode.SUB || opc == Opcode.FSUB;
        if (u.operand(0).equals(cur) && !u.operand(1).equals(cur)) {
          xs.add(u.operand(1));
          neg.add(subtract);
        } else if (u.operand(1).equals(cur) && !u.operand(0).equals(cur) && !subtract) {
          xs.add(u.operand(0));
          neg.add(false);
        } else {
          return Optional.empty();
        }
        cur = u;
      }
      List<Value> insts = ssa.instructions(bl.get());
      int from = insts.indexOf(load), to = insts.indexOf(store);
      if (from < 0 || to < from) return Optional.empty();
      for (int i = from + 1; i < to; i++) {
        Opcode o = ssa.opcode(insts.get(i));
        if (o == Opcode.CALL && insts.get(i).calledOperand().equals(intrinsic)) continue;
        if (o == Opcode.LOAD || o == Opcode.STORE || o == Opcode.CALL || o == Opcode.ATOMICRMW || o == Opcode.ATOMICCMPXCHG
            || o == Opcode.FENCE) {
          return Optional.empty();
        }
      }
      if (fam == Opcode.FADD || fam == Opcode.CALL) {
        // bit-exact only as one ordered pass over the lanes per call, one operation per lane
        if (fam == Opcode.FADD && xs.size() != 1 || loc.loads.size() != 1 || cfg.loops().loopOf(bl.get()).isPresent()) {
          return Optional.empty();
        }
      }
      out.add(new Counter(loc, load, fam, xs, neg, intrinsic));
      countersByStore.put(store, out.getLast());
    }
    return Optional.of(out);
  }

  /** A load of {@code loc} that is not dominated by a store to it (a lane may read before writing). */
  private static Optional<Value> readBeforeOwnWrite(LlvmSsaFunction ssa, CfgAnalyses<Block> cfg, Location loc) {
    for (Value load : loc.loads) {
      Block lb = ssa.blockOf(load).orElseThrow();
      boolean dominated = false;
      for (Value s : loc.stores) {
        Block sb = ssa.blockOf(s).orElseThrow();
        if (sb.equals(lb)) {
          List<Value> insts = ssa.instructions(lb);
          dominated |= insts.indexOf(s) < insts.indexOf(load);
        } else {
          dominated |= cfg.dom().dominates(sb, lb);
        }
      }
      if (!dominated) return Optional.of(load);
    }
    return Optional.empty();
  }

  /** Loads that read a lane's own copy: VARYING for the shape analysis. */
  public Set<Value> privateLoads() { return privateLoads.keySet(); }

  public Optional<Location> privateLoad(Value load) { return Optional.ofNullable(privateLoads.get(load)); }

  public Optional<Location> privateStore(Value store) { return Optional.ofNullable(privateStores.get(store)); }

  /** The counter update a store completes, if it is one. */
  public Optional<Counter> counterStore(Value store) { return Optional.ofNullable(counters.get(store)); }

  /** Locations kept per lane (written back at the exit). */
  public List<Location> privates() {
    return handled.stream().filter(l -> l.handling == Handling.PRIVATE).collect(Collectors.toList());
  }

  public List<Location> counters() {
    return handled.stream().filter(l -> l.handling == Handling.COUNTER).collect(Collectors.toList());
  }

  public List<Location> races() { return races; }
}
