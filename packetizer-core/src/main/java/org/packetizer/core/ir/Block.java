package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/** A basic block. Equality is identity of the native block. */
public final class Block {
  /** The native block's address (equality, hashing and the FFM calls use it without the javacpp pointer). */
  final long addr;
  /** The javacpp pointer, made on first use for blocks the FFM walks found by address. */
  private LLVMBasicBlockRef ref;

  Block(LLVMBasicBlockRef ref) {
    if (ref == null || ref.isNull()) throw new IllegalArgumentException("null block");
    this.ref = ref;
    this.addr = ref.address();
  }

  /** A block known by its address only (the FFM walks). */
  Block(long addr) {
    if (addr == 0) throw new IllegalArgumentException("null block");
    this.addr = addr;
  }

  public static Block of(LLVMBasicBlockRef ref) { return new Block(ref); }

  public LLVMBasicBlockRef ref() {
    LLVMBasicBlockRef r = ref;
    if (r == null) {
      r = Ffm.block(addr);
      ref = r;
    }
    return r;
  }

  /** A key identifying the native block (equal for equal blocks), for maps keyed by identity. */
  public long id() { return addr; }

  public String name() {
    if (Ffm.on) return Ffm.blockName(addr);
    var p = LLVMGetBasicBlockName(ref());
    return p == null || p.isNull() ? "" : p.getString();
  }

  /** Gives this block {@code other}'s name (see {@link Value#copyNameFrom}). */
  public void copyNameFrom(Block other) {
    if (Ffm.on) {
      Ffm.copyValueName(Ffm.blockAsValue(other.addr), Ffm.blockAsValue(addr));
      return;
    }
    String n = other.name();
    if (!n.isEmpty()) asValue().setName(n);
  }

  /** The block's name, or its position in the function for unnamed ones ("%3"-like). */
  public String describe() {
    String n = name();
    if (!n.isEmpty()) return n;
    int i = 0;
    for (Block b : parent().blocks()) {
      if (b.equals(this)) return "<block #" + i + ">";
      i++;
    }
    return "<block>";
  }

  public Function parent() { return Ffm.on ? new Function(Ffm.getBasicBlockParent(addr)) : new Function(LLVMGetBasicBlockParent(ref())); }

  public List<Value> instructions() {
    List<Value> out = new ArrayList<>();
    if (Ffm.on) {
      for (long i = Ffm.getFirstInstruction(addr); i != 0; i = Ffm.getNextInstruction(i)) out.add(new Value(i));
      return out;
    }
    for (LLVMValueRef i = LLVMGetFirstInstruction(ref()); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) {
      out.add(new Value(i));
    }
    return out;
  }

  public Value firstInstruction() {
    if (Ffm.on) {
      long a = Ffm.getFirstInstruction(addr);
      return a == 0 ? null : new Value(a);
    }
    return Value.ofNullable(LLVMGetFirstInstruction(ref()));
  }

  /** The first instruction that is not a phi. */
  public Value firstNonPhi() {
    Value i = firstInstruction();
    while (i != null && i.opcode() == Opcode.PHI) i = i.nextInstruction();
    return i;
  }

  /** The next block of the function, or null after the last. */
  public Block next() {
    if (Ffm.on) {
      long a = Ffm.getNextBasicBlock(addr);
      return a == 0 ? null : new Block(a);
    }
    LLVMBasicBlockRef n = LLVMGetNextBasicBlock(ref());
    return n == null || n.isNull() ? null : new Block(n);
  }

  /** The terminator, or null for a block under construction. */
  public Value terminator() {
    if (Ffm.on) {
      long a = Ffm.getBasicBlockTerminator(addr);
      return a == 0 ? null : new Value(a);
    }
    return Value.ofNullable(LLVMGetBasicBlockTerminator(ref()));
  }

  /** Successors in terminator order (duplicates kept). */
  public List<Block> successors() {
    Value t = terminator();
    if (t == null) return List.of();
    int n = t.numSuccessors();
    List<Block> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(t.successor(i));
    return out;
  }

  /** The phi instructions at the top of the block. */
  public List<Value> phis() {
    List<Value> out = new ArrayList<>();
    for (Value v : instructions()) {
      if (v.opcode() != Opcode.PHI) break;
      out.add(v);
    }
    return out;
  }

  public Value asValue() { return new Value(LLVMBasicBlockAsValue(ref())); }

  public void delete() { LLVMDeleteBasicBlock(ref()); }

  public void moveAfter(Block other) { LLVMMoveBasicBlockAfter(ref(), other.ref()); }

  @Override public boolean equals(Object o) { return o instanceof Block b && b.addr == addr; }
  @Override public int hashCode() { return Llvm.addressHash(addr); }
  @Override public String toString() { return describe(); }
}
