package org.packetizer.analysis.divergence;

/**
 * The shape of a value across the W lanes of a packet (RV's vectorization shapes).
 *
 * <ul>
 *   <li>{@link Kind#UNIFORM}: every lane holds the same value ({@code stride == 0}).
 *   <li>{@link Kind#LINEAR}: lane {@code k} holds {@code v0 + k * stride}; for integers the stride is in
 *       value units, for pointers in bytes. {@code stride == 1} on an integer, or {@code stride ==
 *       elementSize} on a pointer, is "consecutive".
 *   <li>{@link Kind#VARYING}: nothing known.
 * </ul>
 *
 * {@code alignment} is the known alignment in bytes of lane 0's value when it is a pointer (or the
 * largest power of two known to divide lane 0's integer value); 1 when unknown.
 */
public record Shape(Kind kind, long stride, long alignment) {
  public enum Kind { UNIFORM, LINEAR, VARYING }

  public Shape {
    if (alignment < 1 || Long.bitCount(alignment) != 1) {
      throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
    }
    if (kind == Kind.UNIFORM && stride != 0) throw new IllegalArgumentException("uniform has stride 0");
    if (kind == Kind.LINEAR && stride == 0) throw new IllegalArgumentException("linear needs a stride");
    if (kind == Kind.VARYING && stride != 0) throw new IllegalArgumentException("varying has no stride");
  }

  public static final Shape UNIFORM = new Shape(Kind.UNIFORM, 0, 1);
  public static final Shape VARYING = new Shape(Kind.VARYING, 0, 1);

  public static Shape uniform(long alignment) { return new Shape(Kind.UNIFORM, 0, alignment); }

  /** Linear with the given stride; a zero stride gives {@link #UNIFORM}. */
  public static Shape linear(long stride) { return linear(stride, 1); }

  public static Shape linear(long stride, long alignment) {
    return stride == 0 ? uniform(alignment) : new Shape(Kind.LINEAR, stride, alignment);
  }

  public boolean isUniform() { return kind == Kind.UNIFORM; }
  public boolean isVarying() { return kind == Kind.VARYING; }
  public boolean isLinear() { return kind == Kind.LINEAR; }

  /** Lattice join: the most precise shape that describes both. */
  public Shape join(Shape o) {
    if (this.equals(o)) return this;
    if (kind == Kind.VARYING || o.kind == Kind.VARYING) return VARYING;
    if (kind == o.kind && stride == o.stride) return new Shape(kind, stride, Math.min(alignment, o.alignment));
    return VARYING;
  }

  @Override public String toString() {
    String a = alignment > 1 ? ", align " + alignment : "";
    return switch (kind) {
      case UNIFORM -> "uniform" + a;
      case LINEAR -> (stride == 1 ? "consecutive" : "linear(" + stride + ")") + a;
      case VARYING -> "varying";
    };
  }
}
