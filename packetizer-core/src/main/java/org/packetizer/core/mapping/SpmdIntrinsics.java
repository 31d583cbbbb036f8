package org.packetizer.core.mapping;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;

/**
 * The SPMD intrinsics of {@code packetizer_spmd.h} (shipped as the class-path resources
 * {@value #HEADER_RESOURCE} and {@value #SCALAR_RESOURCE}): functions scalar code may call to ask
 * about and talk to the other lanes of its packet. Calls are recognised by name; this class gives
 * their shapes to the divergence analysis ({@link #customShape}) and emits their packet form
 * ({@link #emit}) from the current block mask. The header documents the semantics; in short, only
 * active lanes are looked at, and results are defined only for active lanes.
 *
 * <p>Emitted forms: lane index and width are constants; votes, counts and ballots are reductions and
 * bit casts of {@code mask AND c}; integer reductions use {@code llvm.vector.reduce.*} with the
 * operation's neutral value in inactive lanes; the floating-point sum is the ordered
 * {@code llvm.vector.reduce.fadd} from -0.0 with -0.0 in inactive lanes (so exactly a sequential sum
 * over the active lanes), min/max {@code llvm.vector.reduce.fmin/fmax} (minnum semantics) with NaN in
 * inactive lanes; broadcast extracts the lane {@code cttz(mask)}; read-lane and shuffle extract
 * elements at {@code index mod W}; compaction is {@code llvm.experimental.vector.compress} with the
 * value itself as pass-through.
 */
public final class SpmdIntrinsics {
  /** The header's file name, for {@code #include}. */
  public static final String HEADER_NAME = "packetizer_spmd.h";
  /** Class-path resource of the header. */
  public static final String HEADER_RESOURCE = "/include/packetizer_spmd.h";
  /** Class-path resource of the one-lane C implementation. */
  public static final String SCALAR_RESOURCE = "/include/packetizer_spmd_scalar.c";

  /** What an intrinsic does. */
  public enum Op {
    LANE_INDEX, PACKET_WIDTH, ACTIVE_COUNT, ANY, ALL, BALLOT, COUNT, READ_LANE, BROADCAST_FIRST, SHUFFLE, COMPACT,
    REDUCE_ADD, REDUCE_MIN, REDUCE_MAX
  }

  private static final Map<String, Op> UNTYPED = Map.of(
      "pk_lane_index", Op.LANE_INDEX, "pk_packet_width", Op.PACKET_WIDTH, "pk_active_count", Op.ACTIVE_COUNT,
      "pk_any", Op.ANY, "pk_all", Op.ALL, "pk_ballot", Op.BALLOT, "pk_count", Op.COUNT);

  private static final Map<String, Op> TYPED = Map.of(
      "pk_read_lane_", Op.READ_LANE, "pk_broadcast_first_", Op.BROADCAST_FIRST, "pk_shuffle_", Op.SHUFFLE,
      "pk_compact_", Op.COMPACT, "pk_reduce_add_", Op.REDUCE_ADD, "pk_reduce_min_", Op.REDUCE_MIN,
      "pk_reduce_max_", Op.REDUCE_MAX);

  private static final List<String> SUFFIXES = List.of("i32", "i64", "f32", "f64");

  private final LlvmModule module;
  private final int width;
  private final String function;

  /** For packetizing {@code function} (the scalar name, for messages) at width {@code width}. */
  public SpmdIntrinsics(LlvmModule module, int width, String function) {
    this(module, width, function, false);
  }

  /**
   * With {@code scalableLater} the packet function will be re-typed to vscale × width lanes: lane
   * numbers come from {@code llvm.stepvector} and the packet width is {@code llvm.vscale} × width.
   */
  public SpmdIntrinsics(LlvmModule module, int width, String function, boolean scalableLater) {
    this.module = module;
    this.width = width;
    this.function = function;
    this.scalableLater = scalableLater;
  }

  private final boolean scalableLater;

  /** The intrinsic a function name stands for, if any. */
  public static Optional<Op> op(String name) {
    if (!name.startsWith("pk_")) return Optional.empty();
    Op u = UNTYPED.get(name);
    if (u != null) return Optional.of(u);
    int us = name.lastIndexOf('_');
    if (us < 0 || !SUFFIXES.contains(name.substring(us + 1))) return Optional.empty();
    return Optional.ofNullable(TYPED.get(name.substring(0, us + 1)));
  }

  /** The intrinsic a call calls, if any. */
  public static Optional<Op> op(Value call) {
    if (!call.isInstruction() || call.opcode() != Opcode.CALL) return Optional.empty();
    return call.calledFunction().flatMap(f -> op(f.name()));
  }

  /**
   * The analysis hook: the shape of an intrinsic's result. Lane index: consecutive from 0 (so aligned
   * to anything); read-lane: uniform when the lane number is; shuffle and compaction: uniform when
   * the value is; everything else uniform.
   */
  public Optional<Shape> customShape(Value v, Function<Value, Shape> current) {
    Optional<Op> op = op(v);
    if (op.isEmpty()) return Optional.empty();
    return Optional.of(switch (op.get()) {
      case LANE_INDEX -> Shape.linear(1, DivergenceAnalysis.MAX_ALIGNMENT);
      case PACKET_WIDTH -> Shape.uniform(DivergenceAnalysis.alignmentOf(width));
      case READ_LANE -> current.apply(v.operand(1)).isUniform() ? Shape.UNIFORM : Shape.VARYING;
      case SHUFFLE, COMPACT -> current.apply(v.operand(0)).isUniform() ? Shape.UNIFORM : Shape.VARYING;
      default -> Shape.UNIFORM;
    });
  }

  /**
   * Emits the packet form of an intrinsic call, or empty when {@code call} calls something else.
   *
   * @param mask          the active lanes ({@code <W x i1>}) at the call
   * @param uniformResult whether the analysis made the result uniform: then the result is the scalar
   *                      (the same for all active lanes), else a {@code <W x T>} vector
   * @param packetValue   an operand's packet value: a scalar when it is uniform, else a vector
   */
  public Optional<Value> emit(IrBuilder b, Value call, Value mask, boolean uniformResult, Function<Value, Value> packetValue) {
    Optional<Op> op = op(call);
    if (op.isEmpty()) return Optional.empty();
    Emitter e = new Emitter(b, call, mask, packetValue);
    Value r = e.emit(op.get());
    if (uniformResult && r.type().isVector()) {
      // the analysis says uniform: lanes agree, take lane 0's
      r = b.extractElement(r, 0, call.name());
    } else if (!uniformResult && !r.type().isVector()) {
      r = b.splat(r, width, call.name());
    }
    return Optional.of(r);
  }

  /** One call's emission. */
  private final class Emitter {
    final IrBuilder b;
    final Value call;
    final Value mask;
    final Function<Value, Value> packetValue;
    final MaskOps masks;
    final String name;

    Emitter(IrBuilder b, Value call, Value mask, Function<Value, Value> packetValue) {
      this.b = b;
      this.call = call;
      this.mask = mask;
      this.packetValue = packetValue;
      this.masks = new MaskOps(module, b, width);
      this.name = call.name();
    }

    /** Operand i's packet value (scalar when uniform). */
    Value arg(int i) { return packetValue.apply(call.operand(i)); }

    /** Operand i's packet value as a vector. */
    Value vecArg(int i) {
      Value v = arg(i);
      return v.type().isVector() ? v : b.splat(v, width, "");
    }

    Value emit(Op op) {
      Type rt = call.type();
      return switch (op) {
        case LANE_INDEX -> b.laneNumbers(module, rt, width, 1, scalableLater);
        case PACKET_WIDTH -> scalableLater
            ? b.mul(b.call(module.intrinsic("llvm.vscale", rt), List.of(), name + ".vscale"), b.constInt(rt, width), name)
            : b.constInt(rt, width);
        case ACTIVE_COUNT -> popcount(mask, rt);
        case ANY -> toResult(masks.any(active(0), name));
        case ALL -> toResult(b.not(masks.any(masks.andNot(mask, vecArg(0), name + ".off"), name + ".anyoff"), name));
        case COUNT -> popcount(active(0), rt);
        case BALLOT -> {
          if (width > 64) throw unsupported("pk_ballot needs a packet width of at most 64 (it returns a uint64_t)");
          Value bits = bits(active(0));
          yield width == rt.intWidth() ? bits : b.cast(Opcode.ZEXT, bits, rt, name);
        }
        case READ_LANE -> readLane();
        case BROADCAST_FIRST -> {
          Value idx = b.call(module.intrinsic("llvm.cttz", iw()), List.of(bits(mask), b.i1(false)), name + ".first");
          yield b.extractElement(vecArg(0), modW(idx), name);
        }
        case SHUFFLE -> shuffle();
        case COMPACT -> {
          Value v = vecArg(0);
          Value keep = active(1);
          yield b.call(module.intrinsic("llvm.experimental.vector.compress", v.type()), List.of(v, keep, v), name);
        }
        case REDUCE_ADD, REDUCE_MIN, REDUCE_MAX -> reduce(op);
      };
    }

    /** {@code mask AND operand(i)} (poison-safe). */
    Value active(int operand) {
      return masks.and(mask, vecArg(operand), name + ".active");
    }

    Type iw() { return b.context().intType(width); }

    Value bits(Value m) { return b.cast(Opcode.BITCAST, m, iw(), name + ".bits"); }

    Value popcount(Value m, Type rt) {
      Value n = b.call(module.intrinsic("llvm.ctpop", iw()), List.of(bits(m)), name + ".pop");
      return resize(n, rt, false);
    }

    Value resize(Value v, Type to, boolean signed) {
      int from = v.type().intWidth();
      int bitsTo = to.intWidth();
      if (from == bitsTo) return v;
      return b.cast(from < bitsTo ? (signed ? Opcode.SEXT : Opcode.ZEXT) : Opcode.TRUNC, v, to, "");
    }

    /** An i1 vote as the call's return type (C bool is i1; other integer types get 0/1). */
    Value toResult(Value i1) {
      Type rt = call.type();
      return rt.intWidth() == 1 ? i1 : b.cast(Opcode.ZEXT, i1, rt, name);
    }

    /**
     * {@code idx mod W} as i32 (W is a power of two). With {@code scalableLater}, {@code idx mod (vscale × W)}
     * (the number of lanes at run time, not always a power of two: SVE allows 384 bits).
     */
    Value modW(Value idx) {
      Type i32 = b.context().i32();
      Value v = idx.type().isVector() ? idx : resize(idx, i32, false);
      if (scalableLater) {
        Type et = idx.type().isVector() ? idx.type().elementType() : i32;
        Value lanes = b.mul(b.call(module.intrinsic("llvm.vscale", et), List.of(), name + ".vscale"), b.constInt(et, width), "");
        return b.binop(Opcode.UREM, v, idx.type().isVector() ? b.splat(lanes, width, "") : lanes, name + ".lane");
      }
      if (idx.type().isVector()) {
        Type et = idx.type().elementType();
        Value m = b.splat(b.constInt(et, width - 1), width, "");
        return b.and(idx, m, name + ".lane");
      }
      return b.and(v, b.constInt(i32, width - 1), name + ".lane");
    }

    /** A uniform lane number reads one element (a uniform result); a varying one is a shuffle. */
    Value readLane() {
      Value lane = arg(1);
      if (lane.type().isVector()) return shuffle();
      Value v = arg(0);
      return v.type().isVector() ? b.extractElement(v, modW(lane), name) : v;
    }

    Value shuffle() {
      Value v = vecArg(0);
      Value idx = modW(vecArg(1));
      return perLaneExtract(v, idx);
    }

    /** Lane k gets {@code v[idx[k]]}. */
    Value perLaneExtract(Value v, Value idx) {
      Value acc = b.poison(v.type());
      for (int k = 0; k < width; k++) {
        Value i = b.extractElement(idx, k, "");
        acc = b.insertElement(acc, b.extractElement(v, i, ""), k, "");
      }
      return acc;
    }

    Value reduce(Op op) {
      Value v = vecArg(0);
      Type vt = v.type();
      Type et = vt.elementType();
      boolean fp = et.isFloatingPoint();
      Value neutral;
      String intrinsic;
      if (fp) {
        switch (op) {
          case REDUCE_ADD -> {
            neutral = b.constReal(et, -0.0);
            intrinsic = "llvm.vector.reduce.fadd";
          }
          case REDUCE_MIN -> {
            neutral = b.constReal(et, Double.NaN);
            intrinsic = "llvm.vector.reduce.fmin";
          }
          default -> {
            neutral = b.constReal(et, Double.NaN);
            intrinsic = "llvm.vector.reduce.fmax";
          }
        }
      } else {
        int bitsW = et.intWidth();
        long max = bitsW >= 64 ? Long.MAX_VALUE : (1L << (bitsW - 1)) - 1;
        long min = bitsW >= 64 ? Long.MIN_VALUE : -(1L << (bitsW - 1));
        switch (op) {
          case REDUCE_ADD -> {
            neutral = b.constInt(et, 0);
            intrinsic = "llvm.vector.reduce.add";
          }
          case REDUCE_MIN -> {
            neutral = b.constInt(et, max);
            intrinsic = "llvm.vector.reduce.smin";
          }
          default -> {
            neutral = b.constInt(et, min);
            intrinsic = "llvm.vector.reduce.smax";
          }
        }
      }
      Value in = MaskOps.isAllTrue(mask) ? v : b.select(mask, v, b.splat(neutral, width, ""), name + ".in");
      if (fp && op == Op.REDUCE_ADD) {
        // ordered (no reassoc flag): exactly the sequential sum over the active lanes
        return b.call(module.intrinsic(intrinsic, vt), List.of(neutral, in), name);
      }
      return b.call(module.intrinsic(intrinsic, vt), List.of(in), name);
    }

    PacketizationException unsupported(String what) {
      return PacketizationException.unsupported(Rejection.SPMD_INTRINSIC, what, function, call.block().map(bl -> bl.name()).orElse(null), call.print());
    }
  }

  // ---- the shipped files ----

  /** The text of {@code packetizer_spmd.h}. */
  public static String header() { return resource(HEADER_RESOURCE); }

  /** The text of {@code packetizer_spmd_scalar.c}, the one-lane implementation. */
  public static String scalarImplementation() { return resource(SCALAR_RESOURCE); }

  private static String resource(String path) {
    try (InputStream in = SpmdIntrinsics.class.getResourceAsStream(path)) {
      if (in == null) throw new IllegalStateException("the resource " + path + " is missing from the packetizer-core jar");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Names of all intrinsics, for documentation and tests. */
  public static List<String> names() {
    List<String> out = new ArrayList<>(UNTYPED.keySet());
    for (String base : TYPED.keySet()) for (String s : SUFFIXES) out.add(base + s);
    out.sort(null);
    return out;
  }
}
