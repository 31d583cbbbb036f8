package org.packetizer.analysis.divergence;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.packetizer.analysis.cfg.Cfg;

/**
 * An abstract SSA function, implemented by packetizer-core for LLVM functions and by tests for
 * synthetic ones. {@code B} is the block type, {@code V} the value type (instructions, parameters,
 * constants). Values must have proper {@code equals}/{@code hashCode}.
 */
public interface SsaFunction<B, V> {
  /** The control-flow graph, with its entry block. */
  Cfg<B> cfg();

  List<V> parameters();

  /** The instructions of a block in order (phis first, terminator last). */
  List<V> instructions(B block);

  /** The block an instruction belongs to; empty for parameters and constants. */
  Optional<B> blockOf(V value);

  OpKind kind(V value);

  /** The value operands (not block operands). For a phi, the incoming values in incoming order. */
  List<V> operands(V value);

  /** For a phi: its incoming (predecessor block, value) pairs. */
  List<Map.Entry<B, V>> incoming(V phi);

  /** For a block's terminator: the condition of a two-way conditional branch, if it is one. */
  Optional<V> branchCondition(B block);

  /** The value of an integer constant. */
  OptionalLong intConstant(V value);

  /**
   * For a GEP and its operand index i &gt;= 1: the number of bytes one unit of that index adds to the
   * address when the index is not a constant (for struct field indices, which are always constants,
   * return the empty value and give the byte offset through {@link #gepConstantOffset}).
   */
  OptionalLong gepScale(V gep, int operandIndex);

  /** For a GEP: the total byte offset contributed by its constant indices (struct fields included). */
  long gepConstantOffset(V gep);

  /** For an alloca: the size in bytes of one lane's slot. */
  long allocaSize(V alloca);

  /** Whether a call has no side effects and depends only on its arguments (so uniform args give a uniform result). */
  boolean isPureCall(V call);

  /** Bit width of an integer value (for sext/zext/trunc); 64 for pointers. */
  int bitWidth(V value);

  /**
   * An optional dense numbering of the instructions: {@code 0 <= number(v) < numberCount()} for every
   * value {@link #instructions} lists, distinct per instruction, and -1 for every other value
   * (parameters, constants). Results are then kept in arrays indexed by it instead of hash maps. The
   * default numbers nothing ({@code numberCount() == 0}).
   */
  default int number(V value) { return -1; }

  /** How many numbers {@link #number} hands out (0: no numbering). */
  default int numberCount() { return 0; }

  /**
   * A hook for the implementer: a shape that replaces the built-in transfer rule for this value,
   * given the shapes computed so far (e.g. a load from packetized memory is varying even though its
   * address is uniform). Called during the fixpoint; must be monotone.
   */
  default Optional<Shape> customShape(V value, Function<V, Shape> current) {
    return Optional.empty();
  }
}
