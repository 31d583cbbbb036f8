package org.packetizer.core.check;

import java.util.random.RandomGenerator;

/**
 * Initial contents of an input buffer, one scalar field at a time. A buffer holds {@code count}
 * elements of its pointee type; each element is flattened into fields (a float, an i32, a pointer,
 * ...). Called in a fixed order with the run's buffer random generator, so the same {@link Inputs}
 * always give the same contents. The scalar runs and the packet run get identical copies.
 */
@FunctionalInterface
public interface BufferInit {

  /**
   * One field of an element: its path inside the element (e.g. ".1" for the second struct member,
   * "[3]" for an array entry, "" for a scalar pointee), kind, size in bytes and position among the
   * element's fields.
   */
  record Field(String path, ScalarKind kind, int bytes, int index) {}

  /**
   * The initial value of {@code field} of element {@code element}: a Number or Boolean (converted to
   * the field's type; pointers should stay 0). {@code lane} is the lane owning the buffer, or -1 for
   * a buffer all lanes share (uniform and linear pointers). Opaque ({@code BYTES}) fields ignore the
   * value and get random bytes.
   */
  Object value(Field field, int lane, long element, RandomGenerator rnd);

  /** All zero. */
  static BufferInit zero() { return (f, lane, e, rnd) -> 0; }

  /**
   * Random small values: integers in [-100, 100] (booleans 0/1), floats and doubles in [-100, 100],
   * null pointers.
   */
  static BufferInit random() {
    return (f, lane, e, rnd) -> switch (f.kind()) {
      case BOOL -> rnd.nextBoolean();
      case INT -> f.bytes() == 1 ? (long) rnd.nextInt(-100, 101) : rnd.nextLong(-100, 101);
      case FLOAT, DOUBLE, HALF -> rnd.nextDouble(-100, 100);
      default -> 0;
    };
  }

  /** Values from a domain (NaN, infinities, edges as the domain says); pointers null. */
  static BufferInit from(ValueDomain domain) {
    return (f, lane, e, rnd) -> switch (f.kind()) {
      case BOOL, INT, FLOAT, DOUBLE, HALF -> domain.sample(f.kind(), f.kind() == ScalarKind.BOOL ? 1 : f.bytes() * 8, rnd);
      default -> 0;
    };
  }

  /** A deterministic ramp: element index, plus 1000 per lane for per-lane buffers. */
  static BufferInit ramp() { return (f, lane, e, rnd) -> e + 1000L * Math.max(lane, 0) + f.index(); }

  /** Values computed from the lane and element (the field is ignored: for scalar pointees). */
  static BufferInit of(java.util.function.BiFunction<Integer, Long, ? extends Number> valueOfLaneAndElement) {
    return (f, lane, e, rnd) -> valueOfLaneAndElement.apply(lane, e);
  }
}
