package org.packetizer.core.adapt;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.packetizer.analysis.cfg.Cfg;
import org.packetizer.analysis.divergence.OpKind;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.analysis.divergence.SsaFunction;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/** Shows an LLVM function to packetizer-analysis: its CFG and its SSA values. */
public final class LlvmSsaFunction implements SsaFunction<Block, Value> {
  private final org.packetizer.core.ir.Function fn;
  private final LlvmModule module;
  private final Cfg<Block> cfg;
  private final Map<Block, List<Value>> instructions = new HashMap<>();
  private final Map<Value, Block> blockOf = new HashMap<>();
  private final Map<Value, Opcode> opcodes = new HashMap<>();
  private final BiFunction<Value, Function<Value, Shape>, Optional<Shape>> custom;
  private final java.util.function.Predicate<Value> pureCall;

  public LlvmSsaFunction(LlvmModule module, org.packetizer.core.ir.Function fn,
      java.util.function.Predicate<Value> pureCall,
      BiFunction<Value, Function<Value, Shape>, Optional<Shape>> custom) {
    this.fn = fn;
    this.module = module;
    this.custom = custom;
    this.pureCall = pureCall;
    Graph<Block, DefaultEdge> g = Cfg.newGraph();
    List<Block> blocks = fn.blocks();
    for (Block b : blocks) g.addVertex(b);
    for (Block b : blocks) {
      List<Value> insts = b.instructions();
      instructions.put(b, insts);
      for (Value v : insts) {
        blockOf.put(v, b);
        opcodes.put(v, v.opcode());
      }
      for (Block s : b.successors()) g.addEdge(b, s);
    }
    this.cfg = Cfg.of(g, fn.entry());
  }

  public org.packetizer.core.ir.Function function() { return fn; }

  @Override public Cfg<Block> cfg() { return cfg; }

  @Override public List<Value> parameters() { return fn.params(); }

  @Override public List<Value> instructions(Block block) { return instructions.get(block); }

  @Override public Optional<Block> blockOf(Value value) { return Optional.ofNullable(blockOf.get(value)); }

  /** The opcode of an instruction of this function (cached). */
  public Opcode opcode(Value v) {
    Opcode o = opcodes.get(v);
    return o != null ? o : v.opcode();
  }

  @Override
  public OpKind kind(Value v) {
    // (opcodes holds exactly this function's instructions, as blockOf does: one lookup)
    Opcode op = opcodes.get(v);
    if (op == null) {
      if (v.isArgument()) return OpKind.PARAMETER;
      if (v.isConstantInt()) return OpKind.CONSTANT_INT;
      return OpKind.CONSTANT_OTHER;
    }
    if (op != Opcode.PHI && op != Opcode.SELECT && op != Opcode.LOAD && op != Opcode.CALL && op != Opcode.ALLOCA
        && involvesComposite(v)) {
      // strides are per lane of a scalar; a vector or aggregate (or a bit cast from one) is uniform or varying
      return OpKind.OTHER_PURE;
    }
    return switch (op) {
      case PHI -> OpKind.PHI;
      case ADD -> OpKind.ADD;
      case SUB -> OpKind.SUB;
      case MUL -> OpKind.MUL;
      case SHL -> OpKind.SHL;
      case OR -> v.isDisjoint() ? OpKind.OR_DISJOINT : OpKind.OTHER_PURE;
      case SEXT -> OpKind.SEXT;
      case ZEXT -> OpKind.ZEXT;
      case TRUNC -> OpKind.TRUNC;
      case BITCAST, ADDRSPACECAST, FREEZE -> OpKind.PASS_THROUGH;
      case GEP -> OpKind.GEP;
      case SELECT -> OpKind.SELECT;
      case LOAD -> OpKind.LOAD;
      // a dynamic allocation (C99 variable-length array) is one allocation per lane, at no common stride
      case ALLOCA -> v.operand(0).isConstantInt() ? OpKind.ALLOCA : OpKind.OTHER;
      case CALL -> OpKind.CALL;
      case FNEG, FADD, FSUB, FMUL, FDIV, FREM, UDIV, SDIV, UREM, SREM, LSHR, ASHR, AND, XOR, ICMP, FCMP,
          FPTOUI, FPTOSI, UITOFP, SITOFP, FPTRUNC, FPEXT, PTRTOINT, INTTOPTR, EXTRACTELEMENT, INSERTELEMENT,
          SHUFFLEVECTOR, EXTRACTVALUE, INSERTVALUE -> OpKind.OTHER_PURE;
      default -> OpKind.OTHER;
    };
  }

  private static boolean involvesComposite(Value v) {
    if (isComposite(v.type())) return true;
    for (Value o : v.operands()) if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue() && isComposite(o.type())) return true;
    return false;
  }

  private static boolean isComposite(Type t) { return t.isVector() || t.isStruct() || t.isArray(); }

  @Override
  public List<Value> operands(Value v) {
    Opcode op = opcode(v);
    if (op == Opcode.PHI) {
      List<Value> out = new ArrayList<>();
      for (int i = 0; i < v.incomingCount(); i++) out.add(v.incomingValue(i));
      return out;
    }
    List<Value> out = new ArrayList<>();
    for (Value o : v.operands()) {
      if (o == null || o.isBasicBlockValue() || o.isMetadataAsValue()) continue;
      out.add(o);
    }
    return out;
  }

  @Override
  public List<Map.Entry<Block, Value>> incoming(Value phi) {
    List<Map.Entry<Block, Value>> out = new ArrayList<>();
    for (int i = 0; i < phi.incomingCount(); i++) {
      out.add(new AbstractMap.SimpleImmutableEntry<>(phi.incomingBlock(i), phi.incomingValue(i)));
    }
    return out;
  }

  @Override
  public Optional<Value> branchCondition(Block block) {
    Value t = block.terminator();
    if (t != null && t.opcode() == Opcode.BR && t.isConditional()) return Optional.of(t.condition());
    return Optional.empty();
  }

  @Override
  public OptionalLong intConstant(Value v) {
    return v.isConstantInt() && v.type().intWidth() <= 64 ? OptionalLong.of(v.constIntSExt()) : OptionalLong.empty();
  }

  @Override
  public OptionalLong gepScale(Value gep, int operandIndex) {
    Type t = gep.gepSourceElementType();
    if (operandIndex == 1) return OptionalLong.of(module.allocSize(t));
    for (int i = 2; i <= operandIndex; i++) {
      if (t.isStruct()) {
        if (i == operandIndex) return OptionalLong.empty();
        t = t.structElements().get((int) gep.operand(i).constIntSExt());
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        if (i == operandIndex) return OptionalLong.of(module.allocSize(t));
      } else {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.empty();
  }

  @Override
  public long gepConstantOffset(Value gep) {
    Type t = gep.gepSourceElementType();
    long off = 0;
    int n = gep.numOperands();
    for (int i = 1; i < n; i++) {
      Value idx = gep.operand(i);
      if (i == 1) {
        if (idx.isConstantInt()) off += idx.constIntSExt() * module.allocSize(t);
        continue;
      }
      if (t.isStruct()) {
        int field = (int) idx.constIntSExt();
        off += module.offsetOfElement(t, field);
        t = t.structElements().get(field);
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        if (idx.isConstantInt()) off += idx.constIntSExt() * module.allocSize(t);
      } else {
        break;
      }
    }
    return off;
  }

  @Override
  public long allocaSize(Value alloca) {
    long n = 1;
    Value count = alloca.operand(0);
    if (count != null && count.isConstantInt()) n = count.constIntZExt();
    return module.allocSize(alloca.allocatedType()) * n;
  }

  @Override
  public boolean isPureCall(Value call) { return pureCall.test(call); }

  @Override
  public int bitWidth(Value v) {
    Type t = v.type().scalarType();
    return t.isInteger() ? t.intWidth() : 64;
  }

  @Override
  public Optional<Shape> customShape(Value value, Function<Value, Shape> current) {
    return custom == null ? Optional.empty() : custom.apply(value, current);
  }
}
