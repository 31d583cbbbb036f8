package org.packetizer.core.adapt;

import java.util.AbstractMap;
import java.util.ArrayList;
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
import org.packetizer.core.ir.AddressMap;
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
  /** Each block's instructions as first walked, by the block's number in {@link #blockIndex}. */
  private final List<Value>[] instructions;
  /** Block address to its position in {@link #fn}'s block list at construction. */
  private final AddressMap.OfInt blockIndex;
  /**
   * Dense numbering of the function's instructions (block order, then instruction order): one lookup
   * per question, then arrays (issue 16, eleventh round: two maps keyed by the same values before, and
   * every operand walk made again per question). The Value objects this view hands out (instructions,
   * cached operand lists) carry their number ({@link Value#numberIn}), so asking with them hashes
   * nothing; other objects of the same instructions are looked up by address (thirteenth round).
   */
  private final AddressMap.OfInt index;
  private final Value[] valueAt;
  private final Block[] blockAt;
  private final Opcode[] opcodeAt;
  private final List<Value>[] operandsAt;
  private final OpKind[] kindAt;
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
    @SuppressWarnings("unchecked")
    List<Value>[] lists = new List[blocks.size()];
    instructions = lists;
    blockIndex = new AddressMap.OfInt(blocks.size());
    for (Block b : blocks) g.addVertex(b);
    List<Value> all = new ArrayList<>();
    List<Block> allBlocks = new ArrayList<>();
    for (Block b : blocks) {
      List<Value> insts = b.instructions();
      instructions[blockIndex.putIfAbsent(b.id(), blockIndex.size())] = insts;
      for (Value v : insts) {
        all.add(v);
        allBlocks.add(b);
      }
      for (Block s : b.successors()) g.addEdge(b, s);
    }
    int n = all.size();
    index = new AddressMap.OfInt(n);
    valueAt = all.toArray(new Value[0]);
    blockAt = allBlocks.toArray(new Block[0]);
    opcodeAt = new Opcode[n];
    @SuppressWarnings("unchecked")
    List<Value>[] ops = new List[n];
    operandsAt = ops;
    kindAt = new OpKind[n];
    for (int i = 0; i < n; i++) {
      Value v = all.get(i);
      index.putIfAbsent(v.id(), i);
      v.number(this, i);
      opcodeAt[i] = v.opcode();
    }
    // blocks by their number here: the analyses' block ids through an array, not a HashMap (issue 16)
    this.cfg = Cfg.of(g, fn.entry(), bl -> blockIndex.get(bl.id()), blocks.size());
  }

  /**
   * The instruction's number in this function (0 .. {@link #instructionCount()} - 1, block order then
   * instruction order, as at construction), or -1 for anything else (parameters, constants, other
   * functions' values).
   */
  public int index(Value v) {
    int i = v.numberIn(this);
    return i >= 0 ? i : index.get(v.id());
  }

  /** {@link #index}: every instruction {@link #instructions} lists has one. */
  @Override public int number(Value v) { return index(v); }

  @Override public int numberCount() { return valueAt.length; }

  /** The object this view hands out for instruction number {@code i} ({@link #index}). */
  public Value valueAt(int i) { return valueAt[i]; }

  /** This view's object for {@code v} when v is one of its instructions (carrying its number), else v. */
  public Value canonical(Value v) {
    int i = index(v);
    return i >= 0 ? valueAt[i] : v;
  }

  /** How many instructions the function had at construction (the numbers {@link #index} hands out). */
  public int instructionCount() { return blockAt.length; }

  /** The block of instruction number {@code i} ({@link #index}). */
  public Block blockAt(int i) { return blockAt[i]; }

  /** The opcode of instruction number {@code i} ({@link #index}). */
  public Opcode opcodeAt(int i) { return opcodeAt[i]; }

  /**
   * What changed in the function since construction, as far as this view's cached facts go: the
   * instructions and their order, each one's block and opcode, and
   * the operand lists and kinds handed out so far.
   * Empty when the cached answers still hold (the pipeline checks it after emission with {@code
   * verifyEachPhase}: nothing may edit the scalar copy once it is analysed). At most 20 lines.
   */
  public List<String> changes() {
    List<String> out = new ArrayList<>();
    int i = 0;
    for (Block b : fn.blocks()) {
      for (Value v = b.firstInstruction(); v != null; v = v.nextInstruction(), i++) {
        if (out.size() >= 20) return out;
        int at = index.get(v.id());
        if (at != i) {
          out.add("instruction " + i + " (" + v.opcode() + " in " + b.describe() + ") was "
              + (at < 0 ? "not numbered" : "number " + at));
          continue;
        }
        if (!blockAt[i].equals(b)) out.add("instruction " + i + " moved from " + blockAt[i].describe() + " to " + b.describe());
        Opcode op = v.opcode();
        if (op != opcodeAt[i]) out.add("instruction " + i + " was " + opcodeAt[i] + ", is " + op);
        if (operandsAt[i] != null && !operandsAt[i].equals(operandsOf(v, op))) {
          out.add("instruction " + i + " (" + op + " in " + b.describe() + ") has other operands than when first asked");
        }
        if (kindAt[i] != null && kindAt[i] != instructionKind(v, op)) {
          out.add("instruction " + i + " (" + op + " in " + b.describe() + ") is no longer of kind " + kindAt[i]);
        }
      }
    }
    if (i != blockAt.length && out.size() < 20) out.add(blockAt.length + " instructions numbered, " + i + " now");
    return out;
  }

  public org.packetizer.core.ir.Function function() { return fn; }

  @Override public Cfg<Block> cfg() { return cfg; }

  @Override public List<Value> parameters() { return fn.params(); }

  @Override public List<Value> instructions(Block block) {
    int i = blockIndex.get(block.id());
    return i < 0 ? null : instructions[i];
  }

  @Override public Optional<Block> blockOf(Value value) {
    int i = index(value);
    return i < 0 ? Optional.empty() : Optional.of(blockAt[i]);
  }

  /** The opcode of an instruction of this function (cached). */
  public Opcode opcode(Value v) {
    int i = index(v);
    return i >= 0 ? opcodeAt[i] : v.opcode();
  }

  @Override
  public OpKind kind(Value v) {
    // (the numbering holds exactly this function's instructions: one lookup; an instruction's kind is
    // worked out once, the analyses ask again on every visit)
    int i = index(v);
    if (i < 0) {
      if (v.isArgument()) return OpKind.PARAMETER;
      if (v.isConstantInt()) return OpKind.CONSTANT_INT;
      return OpKind.CONSTANT_OTHER;
    }
    OpKind k = kindAt[i];
    if (k == null) {
      k = instructionKind(v, opcodeAt[i]);
      kindAt[i] = k;
    }
    return k;
  }

  private static OpKind instructionKind(Value v, Opcode op) {
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

  /**
   * The value operands (a phi's incoming values; no blocks, no metadata). An instruction of this
   * function walks its operands once and keeps the (unmodifiable) list: the analyses and the emitter
   * ask again for the same instructions.
   */
  @Override
  public List<Value> operands(Value v) {
    int i = index(v);
    if (i < 0) return operandsOf(v, v.opcode());
    List<Value> ops = operandsAt[i];
    if (ops == null) {
      // (kept with this view's objects for its instructions: later questions about them hash nothing)
      List<Value> walked = operandsOf(v, opcodeAt[i]);
      for (int k = 0; k < walked.size(); k++) walked.set(k, canonical(walked.get(k)));
      ops = java.util.Collections.unmodifiableList(walked);
      operandsAt[i] = ops;
    }
    return ops;
  }

  private static List<Value> operandsOf(Value v, Opcode op) {
    if (op == Opcode.PHI) {
      int k = v.incomingCount();
      List<Value> out = new ArrayList<>(k);
      for (int i = 0; i < k; i++) out.add(v.incomingValue(i));
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
