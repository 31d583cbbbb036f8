package org.packetizer.core.check;

import java.util.Objects;
import org.packetizer.core.ir.Type;

/**
 * How one parameter of the packet function relates to the scalar function. Listed in the packet
 * function's parameter order; every spec except {@link Mask} also consumes the next scalar parameter.
 */
public sealed interface ParamSpec {

  /** What the function does with a buffer. IN and INOUT buffers are filled by their initializer; OUT
   * buffers start as a fixed byte pattern. All buffers are compared after the runs, whatever the
   * direction (an input buffer must come out unchanged too). */
  enum Direction { IN, OUT, INOUT }

  /** A varying scalar: the packet takes {@code <W x T>}; lane k's value is element k. */
  record Varying(ValueDomain domain) implements ParamSpec {}

  /** A uniform scalar: the packet takes {@code T}; every lane sees the same value. */
  record Uniform(ValueDomain domain) implements ParamSpec {}

  /** A linear integer: the packet takes the base {@code T}; lane k sees {@code base + k * step}. */
  record Linear(long step, ValueDomain domain) implements ParamSpec {}

  /** The extra {@code <W x i1>} parameter of a masked packet function (no scalar counterpart). */
  record Mask() implements ParamSpec {}

  /** A pointer parameter: a buffer of {@code count} elements of {@code pointee}. */
  sealed interface Buffer extends ParamSpec {
    Type pointee();
    long count();
    Direction direction();
    BufferInit init();
  }

  /**
   * One buffer shared by all lanes; the packet takes {@code ptr}. The scalar calls run lane 0..W-1 in
   * order on the same buffer, so the last active lane's write wins: the packet must reproduce that.
   */
  record UniformPtr(Type pointee, long count, Direction direction, BufferInit init) implements Buffer {
    public UniformPtr { checkBuffer(pointee, count, direction, init); }
  }

  /**
   * One array of {@code count} elements; lane k's pointer is {@code base + k * stepBytes}; the packet
   * takes {@code ptr} (the base).
   */
  record LinearPtr(Type pointee, long count, long stepBytes, Direction direction, BufferInit init) implements Buffer {
    public LinearPtr { checkBuffer(pointee, count, direction, init); }
  }

  /** W separate buffers, one per lane; the packet takes {@code <W x ptr>}. */
  record VaryingPtr(Type pointee, long count, Direction direction, BufferInit init) implements Buffer {
    public VaryingPtr { checkBuffer(pointee, count, direction, init); }
  }

  /**
   * Struct-of-arrays: each lane has its own {@code count} objects of {@code pointee}; the packet takes a
   * pointer to {@code count} objects of {@code packetize(pointee)} (scalars become {@code <W x T>},
   * structs and arrays are packetized element-wise), and lane k's object is made of the lane-k
   * elements. See {@link DifferentialCheck#soaType}.
   */
  record SoaPtr(Type pointee, long count, Direction direction, BufferInit init) implements Buffer {
    public SoaPtr { checkBuffer(pointee, count, direction, init); }
  }

  private static void checkBuffer(Type pointee, long count, Direction direction, BufferInit init) {
    Objects.requireNonNull(pointee, "pointee");
    Objects.requireNonNull(direction, "direction");
    Objects.requireNonNull(init, "init");
    if (count < 1) throw new IllegalArgumentException("a buffer needs at least one element, got " + count);
  }

  // ---- factories ----

  static Varying varying() { return new Varying(null); }
  static Varying varying(ValueDomain domain) { return new Varying(domain); }
  static Uniform uniform() { return new Uniform(null); }
  static Uniform uniform(ValueDomain domain) { return new Uniform(domain); }
  static Linear linear(long step) { return new Linear(step, null); }
  static Linear linear(long step, ValueDomain domain) { return new Linear(step, domain); }
  static Mask mask() { return new Mask(); }

  static UniformPtr uniformPtr(Type pointee, long count, Direction dir) { return new UniformPtr(pointee, count, dir, BufferInit.random()); }
  static UniformPtr uniformPtr(Type pointee, long count, Direction dir, BufferInit init) { return new UniformPtr(pointee, count, dir, init); }
  static LinearPtr linearPtr(Type pointee, long count, long stepBytes, Direction dir) { return new LinearPtr(pointee, count, stepBytes, dir, BufferInit.random()); }
  static LinearPtr linearPtr(Type pointee, long count, long stepBytes, Direction dir, BufferInit init) { return new LinearPtr(pointee, count, stepBytes, dir, init); }
  static VaryingPtr varyingPtr(Type pointee, long count, Direction dir) { return new VaryingPtr(pointee, count, dir, BufferInit.random()); }
  static VaryingPtr varyingPtr(Type pointee, long count, Direction dir, BufferInit init) { return new VaryingPtr(pointee, count, dir, init); }
  static SoaPtr soaPtr(Type pointee, long count, Direction dir) { return new SoaPtr(pointee, count, dir, BufferInit.random()); }
  static SoaPtr soaPtr(Type pointee, long count, Direction dir, BufferInit init) { return new SoaPtr(pointee, count, dir, init); }

  /** A short name for reports: VARYING, UNIFORM, LINEAR(4), UNIFORM_PTR, ... */
  default String kindName() {
    return switch (this) {
      case Varying v -> "VARYING";
      case Uniform u -> "UNIFORM";
      case Linear l -> "LINEAR(" + l.step() + ")";
      case Mask m -> "MASK";
      case UniformPtr p -> "UNIFORM_PTR";
      case LinearPtr p -> "LINEAR_PTR(" + p.stepBytes() + ")";
      case VaryingPtr p -> "VARYING_PTR";
      case SoaPtr p -> "SOA_PTR";
    };
  }
}
