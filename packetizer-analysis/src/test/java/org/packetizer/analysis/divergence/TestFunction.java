package org.packetizer.analysis.divergence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.packetizer.analysis.cfg.Cfg;

/** A synthetic SSA function for tests: blocks are strings, values are identity objects. */
public final class TestFunction implements SsaFunction<String, TestFunction.Val> {

  /** A value: parameter, constant or instruction. Identity equality. */
  public static final class Val {
    final String name;
    final OpKind kind;
    final List<Val> ops = new ArrayList<>();
    final List<Map.Entry<String, Val>> incoming = new ArrayList<>();
    final Map<Integer, Long> scales = new HashMap<>();
    String block;
    Long constant;
    long constOffset;
    long allocaSize;
    boolean pure;

    Val(String name, OpKind kind) {
      this.name = name;
      this.kind = kind;
    }

    @Override public String toString() { return constant != null ? String.valueOf(constant) : "%" + name; }
  }

  private final Graph<String, DefaultEdge> graph = Cfg.newGraph();
  private final Map<String, List<Val>> insts = new LinkedHashMap<>();
  private final List<Val> params = new ArrayList<>();
  private final Map<String, Val> conditions = new HashMap<>();
  private final Map<Long, Val> constants = new HashMap<>();
  private final Map<Val, Function<Function<Val, Shape>, Optional<Shape>>> custom = new HashMap<>();
  private String entry;
  private Cfg<String> cfg;

  public String block(String name) {
    if (cfg != null) throw new IllegalStateException("frozen");
    graph.addVertex(name);
    insts.putIfAbsent(name, new ArrayList<>());
    if (entry == null) entry = name;
    return name;
  }

  public void edge(String a, String b) {
    block(a);
    block(b);
    graph.addEdge(a, b);
  }

  public Val param(String name) {
    Val v = new Val(name, OpKind.PARAMETER);
    params.add(v);
    return v;
  }

  public Val c(long value) {
    return constants.computeIfAbsent(value, k -> {
      Val v = new Val("c" + k, OpKind.CONSTANT_INT);
      v.constant = k;
      return v;
    });
  }

  public Val global(String name) { return new Val(name, OpKind.CONSTANT_OTHER); }

  public Val inst(String block, String name, OpKind kind, Val... ops) {
    block(block);
    Val v = new Val(name, kind);
    v.block = block;
    v.ops.addAll(List.of(ops));
    insts.get(block).add(v);
    return v;
  }

  /** A phi; {@code pairs} alternates predecessor block names and values. */
  public Val phi(String block, String name, Object... pairs) {
    Val v = new Val(name, OpKind.PHI);
    v.block = block;
    block(block);
    List<Val> list = insts.get(block);
    int pos = 0;
    while (pos < list.size() && list.get(pos).kind == OpKind.PHI) pos++;
    list.add(pos, v);
    for (int i = 0; i < pairs.length; i += 2) addIncoming(v, (String) pairs[i], (Val) pairs[i + 1]);
    return v;
  }

  public void addIncoming(Val phi, String pred, Val value) {
    phi.incoming.add(Map.entry(pred, value));
    phi.ops.add(value);
  }

  public void br(String block, Val cond) { conditions.put(block, cond); }

  /** A GEP with base and (index, scale) pairs; constant indices count towards the offset. */
  public Val gep(String block, String name, Val base, Object... idxScale) {
    Val v = inst(block, name, OpKind.GEP, base);
    for (int i = 0; i < idxScale.length; i += 2) {
      Val idx = (Val) idxScale[i];
      long scale = ((Number) idxScale[i + 1]).longValue();
      v.ops.add(idx);
      v.scales.put(v.ops.size() - 1, scale);
      if (idx.constant != null) v.constOffset += idx.constant * scale;
    }
    return v;
  }

  public Val alloca(String block, String name, long size) {
    Val v = inst(block, name, OpKind.ALLOCA);
    v.allocaSize = size;
    return v;
  }

  public Val call(String block, String name, boolean pure, Val... args) {
    Val v = inst(block, name, OpKind.CALL, args);
    v.pure = pure;
    return v;
  }

  public void setCustomShape(Val v, Function<Function<Val, Shape>, Optional<Shape>> f) { custom.put(v, f); }

  @Override public Cfg<String> cfg() {
    if (cfg == null) cfg = Cfg.of(graph, entry);
    return cfg;
  }

  @Override public List<Val> parameters() { return params; }

  @Override public List<Val> instructions(String block) { return insts.getOrDefault(block, List.of()); }

  @Override public Optional<String> blockOf(Val value) { return Optional.ofNullable(value.block); }

  @Override public OpKind kind(Val value) { return value.kind; }

  @Override public List<Val> operands(Val value) { return value.ops; }

  @Override public List<Map.Entry<String, Val>> incoming(Val phi) { return phi.incoming; }

  @Override public Optional<Val> branchCondition(String block) { return Optional.ofNullable(conditions.get(block)); }

  @Override public OptionalLong intConstant(Val value) {
    return value.constant == null ? OptionalLong.empty() : OptionalLong.of(value.constant);
  }

  @Override public OptionalLong gepScale(Val gep, int operandIndex) {
    Long s = gep.scales.get(operandIndex);
    return s == null ? OptionalLong.empty() : OptionalLong.of(s);
  }

  @Override public long gepConstantOffset(Val gep) { return gep.constOffset; }

  @Override public long allocaSize(Val alloca) { return alloca.allocaSize; }

  @Override public boolean isPureCall(Val call) { return call.pure; }

  @Override public int bitWidth(Val value) { return 64; }

  @Override public Optional<Shape> customShape(Val value, Function<Val, Shape> current) {
    var f = custom.get(value);
    return f == null ? Optional.empty() : f.apply(current);
  }
}
