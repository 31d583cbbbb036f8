package org.packetizer.core.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.wrapper.Latency;

/**
 * The array driver with lane refill (active lane consolidation, issue 17 §2; docs/drivers.md).
 *
 * <p>The scalar function is split at the header of its outermost divergent loop ({@link RefillSplit}:
 * {@code pre} runs up to the loop, {@code iter} one iteration and, for a lane that leaves the loop, the
 * code after it), both are packetized with masks, and the driver keeps a packet of per-lane states and
 * per-lane element indices:
 *
 * <pre>
 * loop:
 *   lanes whose element is done: scatter their results to out[idx]
 *   free lanes (not in the loop) while input remains: take the next elements in lane order
 *     (rank = number of free lanes below; idx = next + rank), load their inputs (AVX-512: one masked load
 *     per array from &amp;a[next] and a register vpexpand into the free lanes; SVE: compaction; else scalar
 *     moves or expanding loads), run pre masked, blend the new state in; lanes that pre finished are
 *     done, the others are in the loop
 *   no lane in the loop: stop when the input is exhausted and nothing is left to store
 *   run iter on the lanes in the loop (a counted block, or until a batch of lanes is free); those that
 *     returned are done
 * </pre>
 *
 * With an interleave count IC ({@link Interleave#chooseForRefill}) the driver keeps IC such states of W
 * lanes: a round serves each in turn, and each step of the iterations runs one iteration of every state
 * (independent chains, overlapped by the out-of-order core).
 *
 * Each element runs pre, iter*, with its own side effects in its own order; elements interleave (the
 * order across elements is not the scalar loop's). pre and iter are inlined into the driver (LLVM's
 * always-inline, applied to these two functions only).
 */
public final class RefillDriver {
  private RefillDriver() {}

  /**
   * The rule of {@link Refill#AUTO}, from the measurements in docs/performance.md: refill when the
   * loop's trip count differs between lanes (a divergent loop at the top level), the loop holds at
   * least this share (percent) of the function's instructions <em>weighted by its estimated trip count</em>
   * ({@link #autoLoopWeight}: the loop's instructions count {@link #AUTO_TRIP_ESTIMATE} times, the code before and
   * after it once), and the target has AVX2 or AVX-512; then the adaptive driver chooses between the plain and the
   * refill body by measurement while it runs. {@code -Dpacketizer.refill.autoLoopShare=P} sets the share (read
   * whenever a driver is built; 0 to 100).
   */
  public static final int AUTO_LOOP_SHARE_PERCENT = 50;

  /**
   * The trip count the auto rule assumes for a divergent loop (one whose trip count differs between lanes: its
   * bound or exit depends on a varying argument or a loaded value, so it runs a data-dependent number of times,
   * while the code before and after it runs once per element). The static share alone (the sixteenth round's rule,
   * {@code autoTripEstimate=1}) kept strhash off refill: its FNV loop is 35 % of the instructions but runs 24 times
   * per element on average (lengths 0..48) and holds nearly all of the time. With 8 the rule takes a divergent loop
   * holding at least 1/9 (11 %) of the instructions (at the default share of 50 %): a smaller loop adds the whole
   * function's code again as the refill body for a loop that has little time to win back. Whether refill wins is
   * left to the driver's measured trials (which cost at most about 1/32 of a call once the back-off has grown,
   * docs/performance.md "The auto rule"). {@code -Dpacketizer.refill.autoTripEstimate=N} (1 to 1024) sets it, read
   * whenever a driver is built; 1 is the old static rule.
   */
  public static final int AUTO_TRIP_ESTIMATE = 8;

  /** The auto rule's share ({@code -Dpacketizer.refill.autoLoopShare}, 0 to 100, default {@link #AUTO_LOOP_SHARE_PERCENT}). */
  static int autoLoopShare() {
    int p = Integer.getInteger("packetizer.refill.autoLoopShare", AUTO_LOOP_SHARE_PERCENT);
    if (p < 0 || p > 100) throw new IllegalArgumentException("packetizer.refill.autoLoopShare: expected 0 to 100, not " + p);
    return p;
  }

  /** The auto rule's trip estimate ({@code -Dpacketizer.refill.autoTripEstimate}, 1 to 1024, default {@link #AUTO_TRIP_ESTIMATE}). */
  static int autoTripEstimate() {
    int t = Integer.getInteger("packetizer.refill.autoTripEstimate", AUTO_TRIP_ESTIMATE);
    if (t < 1 || t > 1024) throw new IllegalArgumentException("packetizer.refill.autoTripEstimate: expected 1 to 1024, not " + t);
    return t;
  }

  /**
   * The loop's weighted share of the function, in percent (rounded down): {@code 100·L·T / (L·T + N − L)} for L
   * instructions in the loop, N in the function and the trip estimate T; 0 for an empty function.
   */
  static int autoLoopWeight(int loopInstructions, int instructions, int trips) {
    long weighted = (long) loopInstructions * trips;
    long total = weighted + Math.max(0, instructions - loopInstructions);
    return total == 0 ? 0 : (int) (100 * weighted / total);
  }

  /**
   * How many lanes must be free before the driver leaves the iterations to refill them (all together:
   * one round of loads, pre and stores serves several lanes): {@link PacketizerOptions#refillBatch()},
   * 0 meaning {@link #defaultBatch}.
   */
  static int minFree(int w, PacketizerOptions options) {
    int batch = options.refillBatch();
    return batch == 0 ? defaultBatch(w) : Math.max(1, Math.min(w, batch));
  }

  /**
   * The default refill batch: W/2 lanes. Measured (docs/performance.md, "Refill batch"; bin/bench-refill
   * --refill-batch, AVX-512 and AVX2, W8 and W16): a round costs several iterations' worth of time (a
   * fitted 12 ns on coherent and 26 ns on random inputs against 2.5 ns per iteration, mandelbrot W16
   * AVX-512), so waiting for W/2 free lanes beat W/4 on random inputs in 10 of 12 kernel/width/target
   * cases (1.5-19% faster) and on coherent inputs in all 12; it lost mandelbrot W16 (+2% AVX-512, +9% AVX2).
   */
  static int defaultBatch(int w) { return Math.max(1, w / 2); }

  /**
   * The constant c of the block rule: a refill round every k iterations, k = ⌊√(c·T)⌋ (1 to
   * {@link #MAX_BLOCK}), T the iterations per element measured so far (lane-iterations, idle ones
   * included, over the elements started). A cost model behind it: per element, the lanes idle k/2
   * iterations on average before the round that refills them, and a round every k iterations serves
   * W·k/T lanes (Little's law: W lanes each busy T iterations per element), so the time per element is
   * a·(T + k/2)/W + b·T/(W·k) for a time a per iteration and b per round, least at k = √(2(b/a)·T). c = 4
   * is measured (docs/performance.md "Refill blocks": c 3, 4 and 6 within 3% of each other, 16 10-15% slower).
   * {@code -Dpacketizer.refill.blockScale} overrides it, for measurement.
   */
  static final int BLOCK_SCALE = Integer.getInteger("packetizer.refill.blockScale", 4);

  /**
   * The block rule's constant c for the AVX2 permutation rounds on Intel CPUs ({@link Latency.Family#INTEL}): 8. There a
   * round is dearer against a driver step than on AVX-512 (per state the branch-free stores of W results, the masked
   * loads and the vpermd spread of each input: about 9 steps of four 16-lane states at W16, against 2-2.5 on AVX-512),
   * so longer blocks pay; and the lanes of short elements idle up to k iterations, not k/2 (a lane takes a new element
   * only at a round), which halves the model's √(2(b/a)·T). Measured on this project's Intel host (docs/performance.md
   * "Longer blocks for the AVX2 rounds", twenty-second round; {@code bench-refill --march haswell}, c = 4 against 8 in
   * nine alternated pairs): refill on random inputs mandelbrot W16 −4.3 % (9 of 9 pairs), W8 −3.4 %, julia −1.6..−4.3 %,
   * march −2..−3 %, coherent inputs −1..−6 %; c = 16 and 32 slower on random inputs. AMD's AVX2 keeps {@link
   * #BLOCK_SCALE} (not measured). {@code -Dpacketizer.refill.blockScale.avx2=C} (read when a driver is built) sets it;
   * {@code -Dpacketizer.refill.blockScale} set by name is every route's constant, this one's included.
   */
  static int avx2BlockScale(Latency.Family family) {
    if (System.getProperty("packetizer.refill.blockScale") != null) return BLOCK_SCALE;
    String v = System.getProperty("packetizer.refill.blockScale.avx2");
    if (v == null || v.isBlank()) return family == Latency.Family.INTEL ? AVX2_INTEL_BLOCK_SCALE : BLOCK_SCALE;
    try {
      int c = Integer.parseInt(v.strip());
      if (c < 1) throw new NumberFormatException("below 1");
      return c;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("packetizer.refill.blockScale.avx2: expected a whole number of at least 1, not " + v, e);
    }
  }

  /** {@link #avx2BlockScale}'s default on Intel. */
  static final int AVX2_INTEL_BLOCK_SCALE = 8;
  /**
   * AVX-512 refill rounds by compaction (vpcompress of the state, the lanes in the loop move to the front)
   * instead of the default register expand (the lanes stay, the new elements are spread into the free
   * ones by vpexpand): measured 1-4% slower (docs/performance.md); {@code -Dpacketizer.refill.compress=true}
   * selects it (read whenever a driver is built), for measurement. SVE always compacts (it has no expand).
   */
  static boolean x86CompressRounds() { return Boolean.getBoolean("packetizer.refill.compress"); }

  /**
   * 32-bit element indices ({@code -Dpacketizer.refill.index32=true|false}, read whenever a driver is built; default
   * true): each lane's element index, which the round stores the lane's result at, is a 32-bit offset from the start
   * of a chunk of at most {@link #index32Chunk} elements instead of a {@code size_t}. A W16 set then holds its indices
   * in one 512-bit register instead of two and stores its results by one {@code vpscatterdd} of 16 lanes instead of
   * two {@code vpscatterqd} of 8 (AVX-512); the rank add, the select under the lanes taking new elements and (AVX2)
   * the permutation or (compaction) the compress of the indices work on half as many bits. The driver runs the input
   * in chunks: the lanes drain at a chunk's end (once per {@link #index32Chunk} elements), the block length and its
   * statistics carry over. Off on targets whose {@code size_t} is 32 bits (nothing to narrow).
   */
  /**
   * Iterations of the loop per call of iter where {@link RefillSplit#budgetApplies} holds (a loop reading
   * bytes through an address that advances by one, writing no memory, whose iterations are masked anyway):
   * {@code -Dpacketizer.refill.iterBudget=auto} (the default) the window's {@value
   * org.packetizer.core.widen.ByteWindows#BYTES} bytes where the packet loop's byte windows apply
   * ({@link org.packetizer.core.widen.ByteWindows#on}: W &ge; 8), else none; {@code N} N (0 or 1:
   * one iteration per call, the rule before the eighteenth round). Read when a driver is built. Without it
   * the refill iteration has no loop and each of its W byte loads is a select, a load and an insert in every
   * iteration, with the code after the loop run in every iteration (masked iterations).
   */
  static int iterBudget(int w) {
    String v = System.getProperty("packetizer.refill.iterBudget", "auto");
    if ("auto".equals(v)) return org.packetizer.core.widen.ByteWindows.on(w) ? org.packetizer.core.widen.ByteWindows.BYTES : 0;
    try {
      int n = Integer.parseInt(v);
      if (n < 0 || n > 1 << 20) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-Dpacketizer.refill.iterBudget=" + v + ": expected auto or a count from 0 to 1048576");
    }
  }

  static boolean index32() { return !"false".equals(System.getProperty("packetizer.refill.index32")); }

  /**
   * The most elements one chunk of the 32-bit-index driver covers ({@link #index32}): 2^30 (the offsets, below the
   * chunk's length plus W, stay below 2^31, so their sign extension in the scatter's addressing is exact).
   * {@code -Dpacketizer.refill.index32Chunk=N} sets a smaller one, so that tests cross chunk boundaries with small
   * arrays (read whenever a driver is built; 1 to 2^30).
   */
  static long index32Chunk() {
    long c = Long.getLong("packetizer.refill.index32Chunk", 1L << 30);
    if (c < 1 || c > (1L << 30)) {
      throw new IllegalArgumentException("packetizer.refill.index32Chunk: expected 1 to 2^30, not " + c);
    }
    return c;
  }
  /**
   * AVX2 refill rounds by permutation (one masked load per array and group of 8 lanes, spread into the free
   * lanes by a vpermd whose indices come from a 256-entry table indexed by the group's free-lane mask) instead
   * of scalar moves through a stack buffer: the default; {@code -Dpacketizer.refill.permute=false} selects the
   * scalar moves, for measurement (read whenever a driver is built).
   */
  static boolean x86PermuteRounds() { return !"false".equals(System.getProperty("packetizer.refill.permute")); }
  /**
   * Whether the AVX2 permutation rounds come in counted blocks ({@link #BLOCK_SCALE}) rather than at the
   * refill batch: the default (a round no longer costs a move per lane, and the counted block's exit is
   * predicted; measured in docs/performance.md "AVX2 rounds by permutation");
   * {@code -Dpacketizer.refill.permuteBlocks=false} selects the batch rule, for measurement.
   */
  static boolean x86PermuteBlocks() { return !"false".equals(System.getProperty("packetizer.refill.permuteBlocks")); }
  /**
   * Whether the AVX2 permutation rounds store the results without a branch per lane (every lane stores, the
   * lanes not done into a stack slot): the default; {@code -Dpacketizer.refill.permuteStores=false} keeps the
   * loop over the done lanes, for measurement.
   */
  static boolean x86PermuteStores() { return !"false".equals(System.getProperty("packetizer.refill.permuteStores")); }
  /**
   * Fixed-length RISC-V V refill rounds by compaction (one {@code vcompress.vm} per value of the state and the
   * element indices, from {@code llvm.experimental.vector.compress} on the fixed packet, which LLVM's RISC-V back
   * end selects as one vcompress over the register group; masked {@code vle} loads, {@code vsoxei} scatter)
   * instead of scalar moves through a stack buffer: the default; {@code -Dpacketizer.refill.rvvCompress=false}
   * selects the scalar moves, for measurement (read whenever a driver is built).
   */
  static boolean rvvCompressRounds() { return !"false".equals(System.getProperty("packetizer.refill.rvvCompress")); }
  /**
   * Whether the result is computed at the round, only for the lanes that left (when the iterations are
   * unmasked, i.e. {@code iter} is pure): in the hot loop a lane's state keeps the values it had at the start of
   * the iteration it left in (a select under the lanes still in the loop; AVX-512 folds it into the producing
   * instruction as a merge mask) and no result is carried; after the block, {@code iter} runs once more on that
   * state and its answer is taken for the lanes that finished in the block. Otherwise (false) the result is
   * blended under the active mask in every iteration. Measured (docs/performance.md "Results at the round"):
   * 1-12 % faster on AVX-512, where the select folds into the instruction computing the next value as a merge mask;
   * up to 18 % slower on AVX2 (a blend per value of the state, 16 registers), so {@code auto}, the default, means
   * AVX-512 only. {@code -Dpacketizer.refill.resultAtRound=auto|true|false} (true: wherever the iterations are
   * unmasked; read whenever a driver is built).
   */
  static boolean resultAtRound(boolean avx512) {
    String v = System.getProperty("packetizer.refill.resultAtRound", "auto");
    return v.equals("true") || !v.equals("false") && avx512;
  }

  /**
   * Whether the hot loop of an x86 refill driver without AVX-512 carries each set's active mask as a packet of
   * sign-extended integers of the state's width (an AVX2 compare's own result, a blend's mask operand as it is)
   * instead of an i1 packet: LLVM gives an i1 packet that crosses the loop's back edge the type of 16-bit lanes
   * (AVX2 has no mask registers), so each iteration packed every compare's mask ({@code vpackssdw} and an extract)
   * and unpacked it again for each blend ({@code vpmovzxwd}, {@code vpslld}). {@code auto}, the default: on for
   * Intel CPUs ({@link Latency.Family#INTEL}; measured on this project's Intel host, docs/performance.md "AVX2 masks
   * in the refill loop"), off elsewhere (AMD's AVX2 not measured: its behaviour kept). {@code
   * -Dpacketizer.refill.wideMask=auto|true|false} (true: every x86 target without AVX-512; read whenever a driver is
   * built). AVX-512 (mask registers), SVE (predicates) and the other targets keep the i1 packet.
   */
  static boolean wideMask(boolean x86NoAvx512, Latency.Family family) {
    String v = System.getProperty("packetizer.refill.wideMask", "auto").strip();
    if (!v.equals("auto") && !v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException("packetizer.refill.wideMask: expected auto, true or false, not " + v);
    }
    return x86NoAvx512 && (v.equals("true") || v.equals("auto") && family == Latency.Family.INTEL);
  }

  /**
   * Whether a loop whose result is its counter ({@link RefillSplit#counterSlot}: the header value or its increment as
   * the lane leaves, like mandelbrot's iteration count) keeps the result in the counter's slot of the state instead
   * of carrying a result through the iterations: no result phi, no blend of the result per iteration and set (and on
   * AVX2 no spill and reload of it with four sets); the counter takes iter's new value only in the lanes in the loop.
   * {@code auto}, the default: on for Intel's x86 CPUs ({@link Latency.Family#INTEL}), with and without AVX-512 (measured
   * on this project's Intel host, docs/performance.md "The result in the counter": AVX2 in the twenty-first round,
   * AVX-512 against its results at the round in the twenty-second, where the counter also takes precedence over them);
   * off elsewhere (AMD not measured: its AVX2 carries the result, its AVX-512 computes it at the round; and off where
   * {@code -Dpacketizer.refill.resultAtRound=true} asks for the results at the round by name). {@code
   * -Dpacketizer.refill.counterResult=auto|true|false} (true: every target, taking precedence over the results at the
   * round; read whenever a driver is built). A loop without such a counter is not affected. {@code x86}: the driver's
   * target is x86 (the choice no longer depends on AVX-512).
   */
  static boolean counterResult(boolean x86, Latency.Family family) {
    String v = System.getProperty("packetizer.refill.counterResult", "auto").strip();
    if (!v.equals("auto") && !v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException("packetizer.refill.counterResult: expected auto, true or false, not " + v);
    }
    // (auto steps aside where the results at the round are asked for by name: -Dpacketizer.refill.resultAtRound=true)
    return v.equals("true") || v.equals("auto") && x86 && family == Latency.Family.INTEL
        && !"true".equals(System.getProperty("packetizer.refill.resultAtRound"));
  }

  /** The element of the wide active mask: an integer as wide as the widest element of the state (8 to 64 bits). */
  static Type laneMaskElem(LlvmContext ctx, List<Type> stateT) {
    int bits = 0;
    for (Type t : stateT) {
      Type e = t.scalarType();
      int eb = e.isInteger() ? e.intWidth() : e.isDouble() ? 64 : e.isFloat() ? 32 : e.isHalf() ? 16 : 0;
      bits = Math.max(bits, eb);
    }
    return ctx.intType(bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64);
  }

  /**
   * The bits of the widest fixed packet one RVV instruction handles (a register group of LMUL 8: 8 × the least
   * VLEN the function is compiled for), or 0 when {@code feats} has no {@code +v} or the module is not RISC-V.
   */
  static int rvvGroupBits(LlvmModule module, String feats, long vscale) {
    if (org.packetizer.core.ir.TargetArch.of(module.targetTriple()) != org.packetizer.core.ir.TargetArch.RISCV64) return 0;
    boolean v = false;
    for (String f : feats.split(",")) v |= f.strip().equals("+v");
    if (!v) return 0;
    return 8 * 32 * org.packetizer.core.wrapper.HardwareWidth.of(module.targetTriple(), "", feats, vscale);
  }
  /** The permutation table's name: for each 8-bit free mask m and lane l, the rank of l among m's lanes. */
  static final String RANK_TABLE = "__packetizer.refill.rank8";

  /**
   * Whether the AVX2 permutation rounds handle the driver's arrays at width w: W = 4 or a multiple of 8
   * (groups of up to 8 32-bit lanes, one vpermd each), every varying parameter a float, double, 32- or 64-bit
   * integer or pointer (narrower elements have no AVX2 masked load: they keep the scalar moves).
   */
  static boolean permutable(List<ParamKind> kinds, List<Type> types, int w) {
    if (w != 4 && (w % 8 != 0 || w > MAX_WIDTH)) return false;
    for (int j = 0; j < kinds.size(); j++) {
      if (!(kinds.get(j) instanceof ParamKind.Varying)) continue;
      Type t = types.get(j);
      boolean ok = t.isFloat() || t.isDouble() || t.isPointer() || t.isInteger(32) || t.isInteger(64);
      if (!ok) return false;
    }
    return true;
  }

  /** The rank table: entry 8·m + l is the number of set bits of m below bit l. */
  static int[] rankTable() {
    int[] t = new int[256 * 8];
    for (int m = 0; m < 256; m++) for (int l = 0; l < 8; l++) t[8 * m + l] = Integer.bitCount(m & ((1 << l) - 1));
    return t;
  }

  /** The longest block of iterations between refill rounds. */
  static final int MAX_BLOCK = 64;

  /**
   * Whether the driver refills in blocks of iterations ({@link #BLOCK_SCALE}) rather than when a batch
   * of lanes is free: with compaction (rounds of a few vector instructions) and no batch asked for.
   * Why blocks: the iterations' exit test "enough lanes free" depends on the data, and on random inputs
   * its outcome is a surprise at every round (docs/performance.md: the same round cost twice as much on
   * random as on coherent inputs, with the same instructions), while a counted block of k iterations
   * ends where the branch predictor expects it. With scalar moves (no AVX-512) a round costs a move per
   * lane, so waiting for a batch stays better there (measured at W8 on AVX2).
   */
  static boolean blocks(PacketizerOptions options, boolean compact) {
    return compact && options.refillBatch() == 0 && BLOCK_SCALE > 0;
  }

  /**
   * The clean-up on the driver after inlining (the packet functions' own, {@code Packetizer.CLEANUP_PIPELINE}:
   * the driver package does not depend on the pipeline's driver class).
   */
  static final String DRIVER_CLEANUP = "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,"
      + "instcombine<no-verify-fixpoint>,adce,simplifycfg";

  /** The widest packet refill handles (a lane mask fits a 64-bit integer). */
  public static final int MAX_WIDTH = 64;

  /**
   * Builds the refill driver body into {@code driver} (declared by {@link ArrayDriver}), or returns a
   * remark saying why not (the caller then emits the plain driver). Adds nothing to the module when it
   * declines.
   */
  /** What {@link #tryBuild} did: built the body, or declined (the remark says why). */
  record Outcome(boolean built, Remark remark, Remark icRemark) {
    Outcome(boolean built, Remark remark) { this(built, remark, null); }
  }

  static Outcome tryBuild(LlvmModule module, Function scalar, Function driver, PacketizationResult result,
      PacketizerOptions options, VariantPacketizer packetizer, Type sizeT, int ic) {
    return tryBuild(module, scalar, driver, result, options, packetizer, sizeT, ic, null, 1);
  }

  /**
   * As above; with a {@code probe} (declared with the driver's parameters and a last {@code ptr} to two
   * {@code i64} counters), also builds the adaptive driver's occupancy probe into it: the same split
   * functions run in lock step, {@code probeIc}·W lanes that take new elements only when all of them have
   * left the loop (what the plain body does), counting the lanes in the loop at each iteration
   * ({@code counts[0]}) and the iterations ({@code counts[1]}).
   */
  static Outcome tryBuild(LlvmModule module, Function scalar, Function driver, PacketizationResult result,
      PacketizerOptions options, VariantPacketizer packetizer, Type sizeT, int ic, Function probe, int probeIc) {
    String fn = scalar.name();
    int w = result.width();
    String mode = options.refill() == Refill.AUTO ? "--refill=auto" : "--refill";
    if (w > MAX_WIDTH) return new Outcome(false, note(fn, "lane refill not used (" + mode + "): width " + w + " is above " + MAX_WIDTH));
    List<ParamKind> kinds = result.params();
    String feats = targetFeatures(driver, options);
    boolean avx512 = feats.contains("+avx512f") && feats.contains("+avx512vl");
    boolean x86 = org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.X86;
    Latency.Family family = Latency.family(Interleave.registers(scalar, options.targetCpu().orElse(null),
        options.targetFeatures().orElse(null)).cpu(), false);
    Object s = RefillSplit.split(module, scalar, kinds, options, iterBudget(w), counterResult(x86, family));
    if (s instanceof RefillSplit.Refusal r) {
      return new Outcome(false, note(fn, "lane refill not used (" + mode + "): " + r.reason() + "; plain driver"));
    }
    RefillSplit.Split split = (RefillSplit.Split) s;
    int share = split.instructions() == 0 ? 0 : 100 * split.loopInstructions() / split.instructions();
    String what = "the loop at %" + split.header() + " (" + (split.divergentLoop() ? "trip count differs between lanes"
        : "same trip count in every lane") + ", " + share + "% of the instructions)";
    boolean measured = avx512 || feats.contains("+avx2");
    int trips = autoTripEstimate();
    int wantShare = autoLoopShare();
    int weighted = autoLoopWeight(split.loopInstructions(), split.instructions(), trips);
    boolean take = split.divergentLoop() && weighted >= wantShare && measured;
    if (options.refill() == Refill.AUTO && split.divergentLoop() && trips > 1) {
      what = what.substring(0, what.length() - 1) + ", " + weighted + "% weighted by an estimated " + trips + " iterations)";
    }
    if (options.refill() == Refill.AUTO && !take) {
      split.pre().delete();
      split.iter().delete();
      return new Outcome(false, note(fn, "lane refill not chosen (--refill=auto): " + what + (measured ? "" : ", the target has"
          + " neither AVX-512 nor AVX2") + "; the rule wants a loop whose trip count differs between lanes holding at least "
          + wantShare + "% of the instructions" + (trips > 1 ? " with the loop's counted " + trips + " times" : "")
          + ", on a target where refill was measured (x86 with AVX2 or AVX-512; not yet SSE-only x86 or AArch64); plain driver"));
    }
    List<ParamKind> preKinds = new ArrayList<>();
    for (ParamKind k : kinds) preKinds.add(k instanceof ParamKind.Uniform ? k : ParamKind.VARYING);
    List<ParamKind> iterKinds = new ArrayList<>();
    for (int i = 0; i < split.state().size(); i++) iterKinds.add(ParamKind.VARYING);
    for (int i : split.uniformArgs()) iterKinds.add(kinds.get(i));
    String preName = "__packetizer.refill.pre." + fn + ".v" + w;
    String iterName = "__packetizer.refill.iter." + fn + ".v" + w;
    PacketizerOptions base = options.toBuilder().masked(true).vectorAbi(false).cAbi(false).arrayDriver((String) null)
        .refill(Refill.OFF).wrapperMode(WrapperMode.DIRECT).remarks(r -> {}).build();
    Function prePacket;
    Function iterPacket;
    try {
      packetizer.run(base.toBuilder().params(preKinds).build(), split.pre().name(), preName);
      packetizer.run(base.toBuilder().params(iterKinds).build(), split.iter().name(), iterName);
      prePacket = module.function(preName).orElseThrow();
      iterPacket = module.function(iterName).orElseThrow();
    } catch (PacketizationException e) {
      module.function(preName).ifPresent(Function::delete);
      module.function(iterName).ifPresent(Function::delete);
      return new Outcome(false, note(fn, "lane refill not used (" + mode + "): the split functions could not be packetized ("
          + e.getMessage() + "); plain driver"));
    } finally {
      split.pre().delete();
      split.iter().delete();
    }
    prePacket.setInternalLinkage();
    iterPacket.setInternalLinkage();
    // AVX-512: compaction by vpcompress where every value of the state allows it (measured 0-7% faster than
    // expanding loads on random inputs, and the same code as SVE's), else expanding loads
    boolean x86Compact = avx512 && compactable(split, w, 512);
    boolean expand = avx512 && !x86Compact;
    // SVE with a known vector length (vscale_range(k,k), clang's -msve-vector-bits): compaction by SVE compact
    long vscale = org.packetizer.core.wrapper.HardwareWidth.vscaleMin(driver);
    if (vscale == 0) vscale = org.packetizer.core.wrapper.HardwareWidth.vscaleMin(scalar);
    boolean sve = !avx512 && (feats.contains("+sve") || feats.contains("+sve2"))
        && vscale > 0 && compactable(split, w, (int) (128 * vscale));
    int sveBits = sve ? (int) (128 * vscale) : 0;
    // fixed-length RISC-V V: compaction by vcompress over a register group (LMUL up to 8)
    int rvvBits = rvvGroupBits(module, feats, vscale);
    boolean rvv = !avx512 && !sve && rvvBits > 0 && rvvCompressRounds() && compactable(split, w, rvvBits);
    if (rvv) sveBits = rvvBits;
    Optional<String> whyMasked = split.whyIterMasked().or(() -> branchOnLanes(iterPacket));
    // AVX2 (no AVX-512): the free lanes take the next elements by masked loads and a vpermd looked up from the free mask
    boolean permute = !avx512 && !sve && feats.contains("+avx2") && x86PermuteRounds()
        && permutable(kinds, scalar.functionType().paramTypes(), w);
    boolean blocks = blocks(options, sve || rvv || x86Compact || permute && x86PermuteBlocks());
    // the block rule's constant: the AVX2 permutation rounds' own on Intel (avx2BlockScale), else BLOCK_SCALE
    int blockScale = !blocks ? 0 : permute && !sve && !rvv && !x86Compact ? avx2BlockScale(family) : BLOCK_SCALE;
    boolean atRound = whyMasked.isEmpty() && !scalar.returnType().isVoid() && resultAtRound(avx512);
    // x86 without AVX-512: the active mask in the hot loop as a packet of sign-extended integers (Intel: the default)
    boolean wide = x86 && !sve && !rvv && wideMask(!avx512, family);
    Type maskElem = null;
    if (wide) {
      List<Type> stT = new ArrayList<>();
      for (int k = 0; k < split.state().size(); k++) stT.add(prePacket.returnType().structElements().get(1 + k));
      maskElem = laneMaskElem(module.context(), stT);
    }
    Emitter main = new Emitter(module, driver, prePacket, iterPacket, kinds, scalar.functionType().paramTypes(), scalar.returnType(),
        split, sizeT, w, expand, whyMasked.isEmpty(), !avx512 && !sve && !rvv, minFree(w, options), sve || rvv || x86Compact, sveBits,
        blockScale, ic, permute).rvvCompress(rvv).resultAtRound(atRound).laneMask(maskElem)
        .counterResult(split.counterSlot());
    main.emit();
    boolean inCounter = main.counterResult;
    boolean narrowIndices = main.index32;
    if (probe != null) {
      // lock step: a round only when all W lanes of every set are free (the batch rule with minFree = W)
      new Emitter(module, probe, prePacket, iterPacket, kinds, scalar.functionType().paramTypes(), scalar.returnType(),
          split, sizeT, w, expand, whyMasked.isEmpty(), !avx512 && !sve && !rvv, w, sve || rvv || x86Compact, sveBits, 0, probeIc,
          permute).rvvCompress(rvv).resultAtRound(atRound).laneMask(maskElem).counterResult(split.counterSlot()).counting().emit();
    }
    for (Function f : probe == null ? List.of(driver) : List.of(driver, probe)) {
      Optional<String> bad = f.verify();
      if (bad.isPresent()) {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the refill driver @" + f.name()
            + " is invalid: " + bad.get(), fn);
      }
    }
    inline(module, List.of(prePacket, iterPacket));
    LlvmModule.runPasses(driver, DRIVER_CLEANUP, null);
    if (probe != null) LlvmModule.runPasses(probe, DRIVER_CLEANUP, null);
    // (after the driver's clean-up, whose InstCombine folds the packet functions' shifts and adds back into multiplies:
    // the multiplies by constants on the driver's recurrences decided again, on the loop as it runs)
    for (Function f : probe == null ? List.of(driver) : List.of(driver, probe)) {
      org.packetizer.core.widen.MulShifts.run(f, options.targetCpu().orElse(null), options.targetFeatures().orElse(null));
    }
    // (the pass deletes what it inlined completely: look the functions up by name again)
    for (String name : List.of(preName, iterName)) {
      module.function(name).ifPresent(f -> {
        if (!f.hasUses()) f.delete();
        else SignatureAbi.fitCallers(f);
      });
    }
    return new Outcome(true, new Remark(Remark.Kind.NOTE, fn, null, null, "lane refill (" + mode + ") at " + what + ": "
        + split.state().size() + " values of state per lane; "
        + (ic > 1 ? ic + " independent sets of " + w + " lanes, each with its own refill state, one iteration of each per step"
            + " (interleave count " + ic + "); " : "")
        + (blocks ? "a refill round every k iterations, k = ⌊√(" + blockScale + "·T" + (split.budget() > 1 ? "/" + split.budget() : "")
            + ")⌋ (1 to " + MAX_BLOCK + "), T the measured iterations per element, adapted at every round; " : "a refill round when " + minFree(w, options) + " of " + w
            + " lanes are free; ")
        + "free lanes take the next elements by "
        + (expand ? "expanding loads (AVX-512 vexpand), finished ones scatter their results; "
            : x86Compact && !x86CompressRounds() ? "one masked contiguous load per array, spread into the free lanes in order by a register"
            + " expand (AVX-512 vpexpand; the lanes in the loop stay where they are), finished ones scatter their results; "
            : sve || rvv || x86Compact ? "compaction: the lanes still in the loop move to the front (" + (sve ? "SVE compact, " + (128 * vscale)
            + "-bit vectors" : rvv ? "RISC-V V vcompress.vm, one per value over its register group, up to " + rvvBits
            + " bits" : "AVX-512 vpcompress") + "), the next elements follow them by one masked contiguous load per array,"
            + " finished ones scatter their results" + (rvv ? " (vsoxei)" : "") + "; "
            : permute ? "one masked contiguous load per array and group of " + Math.min(w, 8) + " lanes (AVX2 vmaskmov), spread"
            + " into the free lanes in order by a permutation looked up from the free-lane mask (a 256-entry table of vpermd"
            + " indices; the lanes in the loop stay where they are), finished ones store theirs "
            + (x86PermuteStores() ? "without a branch per lane (every lane stores: the finished ones at out[idx], the others"
            + " into a stack slot; the target has no AVX-512: no scatter); "
            : "by scalar moves through a stack buffer (the target has no AVX-512: no scatter); ")
            : "scalar moves through a stack buffer (" + (rvvBits == 0 ? "the target has no AVX-512: LLVM would expand gathers and"
            + " scatters lane by lane" : !rvvCompressRounds() ? "RISC-V V vcompress rounds switched off: -Dpacketizer.refill.rvvCompress=false"
            : "RISC-V V: a value of the state does not fit vcompress over a register group of " + rvvBits + " bits")
            + "), finished ones store theirs the same way; ")
        + (maskElem != null ? "the lanes' active mask carried through the iterations as sign-extended " + maskElem.intWidth()
            + "-bit lanes (no mask registers: an i1 packet would be packed at every iteration and unpacked for each blend;"
            + " -Dpacketizer.refill.wideMask=false: the i1 packet); " : "")
        + (narrowIndices ? "each lane's element index is a 32-bit offset from the start of a chunk of at most " + index32Chunk()
            + " elements (the lanes drain at a chunk's end; -Dpacketizer.refill.index32=false: size_t indices); " : "")
        + (split.budget() > 0 ? "each iteration of the driver runs up to " + split.budget() + " iterations of the loop (iter keeps"
            + " the loop with a uniform count, so its byte loads read " + org.packetizer.core.widen.ByteWindows.BYTES
            + "-byte windows and the code after the loop runs once per call; -Dpacketizer.refill.iterBudget=0: one); " : "")
        + whyMasked.map(y -> "iterations masked (" + y + ")")
            .orElse("iterations unmasked (no memory access, call, division or inner loop: lanes not in the loop compute unused values)"
                + (atRound && !inCounter ? "; results at the round: a lane that leaves keeps the state it left with, and iter runs once more"
                + " on the lanes that finished after each block (no result blended in the iterations)" : ""))
        + (inCounter ? "; the result is the loop's counter as a lane leaves it (value " + split.counterSlot() + " of the state"
            + describeSteps(split.counterSteps()) + "):"
            + " a lane that leaves keeps its counter, which then holds its result, and the round reads the results from it"
            + " (no result carried or blended in the iterations; -Dpacketizer.refill.counterResult=false: the result blended"
            + " under the active mask in every iteration)" : "")));
  }

  /**
   * The steps from the counter to the result for the remark ({@link RefillSplit#resultSteps}): empty where the result is
   * the counter or its truncation, else ", the result computed from it: zext to i64, shl 1, ...".
   */
  static String describeSteps(List<RefillSplit.ResultStep> steps) {
    if (steps.stream().allMatch(st -> st.op() == Opcode.TRUNC)) return "";
    List<String> out = new ArrayList<>();
    for (RefillSplit.ResultStep st : steps) {
      String op = st.op().name().toLowerCase(java.util.Locale.ROOT);
      if (st.constant() == null && st.uniform() < 0) out.add(op + " to " + st.type());
      else {
        String o = st.constant() != null ? Long.toString(st.constant().constIntSExt()) : "argument " + st.uniform();
        out.add(st.valueFirst() ? op + " " + o : o + " " + op + " it");
      }
    }
    return ", the result computed from it: " + String.join(", ", out);
  }

  /**
   * Why the packet {@code iter} must not run on lanes that hold no element (a conditional branch whose
   * condition depends on a lane's value other than the mask: an unused lane's value may be poison), or
   * empty.
   */
  static Optional<String> branchOnLanes(Function iterPacket) {
    Value mask = iterPacket.param(iterPacket.paramCount() - 1);
    for (Block b : iterPacket.blocks()) {
      Value t = b.terminator();
      if (t == null) continue;
      Value cond = t.opcode() == Opcode.BR && t.isConditional() ? t.condition()
          : t.opcode() == Opcode.SWITCH ? t.operand(0) : null;
      if (cond == null) continue;
      java.util.Set<Value> seen = new java.util.HashSet<>();
      java.util.ArrayDeque<Value> work = new java.util.ArrayDeque<>(List.of(cond));
      while (!work.isEmpty()) {
        Value v = work.pop();
        if (!seen.add(v) || v.equals(mask)) continue;
        if (v.type().isVector()) return Optional.of("its packet version branches on lane values (" + b.describe() + ")");
        if (v.isInstruction()) for (Value o : v.operands()) if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue()) work.push(o);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the compacting rounds handle every value of the state (and the indices) at width w with
   * {@code bits}-bit registers: lanes of 8 to 64 bits, floats, doubles, pointers, booleans, a 32-bit
   * packet fitting one register (64-bit lanes are compacted as two 32-bit halves).
   */
  static boolean compactable(RefillSplit.Split split, int w, int bits) {
    if (32 * w > bits) return false;
    for (Type t : split.state()) {
      Type e = t.isVector() ? t.scalarType() : t;
      boolean ok = e.isFloat() || e.isDouble() || e.isPointer() || (e.isInteger() && e.intWidth() <= 64);
      if (!ok || t.isStruct() || t.isArray()) return false;
    }
    return true;
  }

  private static Remark note(String fn, String msg) { return new Remark(Remark.Kind.NOTE, fn, null, null, msg); }

  /**
   * The target features the code is generated for: the options' (what {@link PacketizerOptions#targetFeatures()}
   * promises: detection uses them instead of the function's; the command line's {@code --target-features} also
   * becomes the packet function's attribute after packetization), else the function's, else the host's (what a JIT
   * without attributes compiles for), preceded by the vector features the CPU implies
   * ({@link org.packetizer.core.wrapper.HardwareWidth#impliedVectorFeatures}: the options' CPU, else the function's).
   */
  static String targetFeatures(Function f, PacketizerOptions options) {
    String features = options.targetFeatures().or(() -> f.stringAttribute("target-features"))
        .orElseGet(org.packetizer.core.ir.Llvm::hostCpuFeatures);
    // the CPU's own vector features too: LLVM compiles for the CPU and the string together
    String cpu = options.targetCpu().or(() -> f.stringAttribute("target-cpu")).orElse("");
    return org.packetizer.core.wrapper.HardwareWidth.impliedVectorFeatures(cpu, features) + features;
  }

  /**
   * Inlines the calls of {@code fns} (LLVM's always-inline pass; other functions' {@code alwaysinline}
   * attributes are taken off during the pass and put back, so that nothing else changes).
   */
  public static void inline(LlvmModule module, List<Function> fns) {
    List<Function> others = new ArrayList<>();
    for (Function f : module.functions()) {
      if (f.hasEnumAttribute("alwaysinline") && !fns.contains(f)) {
        others.add(f);
        f.removeEnumAttribute("alwaysinline");
      }
    }
    try {
      for (Function f : fns) f.addEnumAttribute("alwaysinline");
      module.runPasses("always-inline");
    } finally {
      for (Function f : others) f.addEnumAttribute("alwaysinline");
    }
  }

  /**
   * Elements of the adaptive driver's timed refill chunk, in packets. Its cost per element includes the drain
   * of the IC·W lanes in flight at its end, which a short chunk overstates (64 packets: march W16 on coherent
   * inputs, where refill is 10 % faster, kept the plain body in 3 of 5 runs); a long one costs more where
   * refill is the slower body (docs/performance.md "The auto rule").
   */
  public static final int ADAPTIVE_REFILL_PACKETS = 128;
  /**
   * Elements of each of the adaptive driver's two measured plain chunks, in packets (the plain body has no
   * lanes to drain at the end of a call, so a short chunk measures it; on random inputs it is the slow one).
   */
  public static final int ADAPTIVE_PLAIN_PACKETS = 8;
  /**
   * The adaptive driver's epoch, in packets: one decision per epoch, from the three timed chunks at its start.
   * Shorter epochs follow the input more closely (an image whose work changes along the rows) and measure
   * the losing body more often (docs/performance.md "The auto rule").
   */
  public static final int ADAPTIVE_EPOCH_PACKETS = 2048;

  /**
   * The back-off's highest level: after a trial that keeps the body in use, the next trial comes after twice as many
   * epochs as the last, up to 2^this (32 epochs: the trials' share of the work is at most 1/32 of what it is with a
   * trial in every epoch, while a change of the input is noticed within 32 epochs).
   */
  public static final int ADAPTIVE_MAX_LEVEL = 5;
  /**
   * The decision's hysteresis, as a shift: a trial switches away from the body in use only when the other one took
   * fewer cycles per element by more than 1/2^this (1/32: about 3 %), so that noise between two nearly equal bodies
   * does not reset the back-off.
   */
  public static final int ADAPTIVE_HYSTERESIS_SHIFT = 5;
  /**
   * The back-off grows only after a decisive trial: the body kept cheaper by more than 1/2^this (1/8) per element;
   * a narrower win keeps the spacing.
   */
  public static final int ADAPTIVE_DECISIVE_SHIFT = 3;
  /**
   * The fields of the adaptive driver's state ({@code NAME.state}, kept between calls): the trial
   * position (0, 1, 2: the timed chunks plain, refill, plain; 3: the run), the elements left in it (0: not started),
   * the back-off level, the body in use (1: refill), the cycles of the two plain chunks and of the refill chunk of
   * the trial under way, the number of trials decided (statistics), and the level to return to when a trial in the
   * next epoch (after one that favoured the other body) keeps the body. The position word's bits 8 and up hold the
   * trials' weight in the decayed sums ({@link #WATCH_UNIT} per trial) for the watch. Since the thirteenth round also the
   * paired trials' spread, and since the fourteenth the plain watch's reference, the last plain piece it judged and its
   * alarms (12 {@code int64_t} in all); since the eighteenth round the watch's spacing (14), since the nineteenth the
   * elements the refill body ran in trials ({@link #STATE_TRIAL_REFILL}, statistics: what the trials cost where refill
   * loses; 15).
   */
  public static final int STATE_POS = 0, STATE_LEFT = 1, STATE_LEVEL = 2, STATE_CHOICE = 3, STATE_PLAIN_CYCLES = 4,
      STATE_REFILL_CYCLES = 5, STATE_TRIALS = 6, STATE_SAVED_LEVEL = 7, STATE_SPREAD = 8, STATE_PLAIN_PEAK = 9,
      STATE_PLAIN_LAST = 10, STATE_PLAIN_ALARMS = 11, STATE_WATCH = 12, STATE_WATCH_RUN = 13, STATE_TRIAL_REFILL = 14, STATE_FIELDS = 15;
  /**
   * The watch's spacing ({@link #adaptiveWatchSpacing}, eighteenth round), in {@link #STATE_WATCH}: bits 0-7 the watch's
   * level v (an alarm ends a run of the plain body only after 2^v - 1 epochs of it), bit 8: an alarm's tail, or the trial
   * it brings, is under way; bits 16 and up: the trials an alarm brought (statistics). {@link #STATE_WATCH_RUN}: the plain body's
   * elements run since the last trial decided.
   */
  public static final int WATCH_LEVEL_MASK = 0xFF, WATCH_BROUGHT_BIT = 8, WATCH_TRIALS_SHIFT = 16;
  /**
   * The watch's highest level ({@link #adaptiveWatchSpacing}): after alarms whose trials kept the plain body, an alarm ends
   * a run only after 2^this - 1 epochs of it (8 epochs a trial at most, against one per epoch before: mandelbrot W16 on the
   * coherent image, 10 trials in 5 calls of 2 epochs); an input that turns random mid-array is still taken within 2^this
   * epochs and a trial, not after the up to 1.5·2^{@link #ADAPTIVE_MAX_LEVEL} epochs of the back-off's run.
   */
  public static final int WATCH_MAX_LEVEL = 3;
  /**
   * The plain watch's reference ({@link #adaptivePlainWatch}), in {@link #STATE_PLAIN_PEAK}: the dearest recent piece of a
   * plain run, in cycles per element times 2^this (0: no piece timed yet); {@link #STATE_PLAIN_LAST}: the last piece judged,
   * the same unit. A piece counts as the lesser of itself and the piece before it, so that one piece the host stretched
   * by preempting it neither raises an alarm nor the reference (at load 17, with single pieces, the reference stood at a
   * median 2.4 times the random plain cost after the coherent calls: blind).
   */
  public static final int PLAIN_PEAK_FRACTION_BITS = 8;
  /**
   * The plain watch's memory: at each piece it judges, the reference keeps 1 - 1/2^this of itself (15/16: an image whose
   * dearest stretch comes once per call of 4 pieces is still 0.77 of it when it comes again), or takes the piece when that is
   * dearer, at most {@link #PLAIN_PEAK_TAKE_FACTOR} times the reference (a piece the host stretched by preempting it does
   * not blind the watch for long).
   */
  public static final int PLAIN_PEAK_DECAY_SHIFT = 4;
  /**
   * The most the plain watch's reference grows at one piece, as a factor: above the 3.0-3.5× that random points cost against
   * the same points in scan order, so that the reference takes such a change at once (capped at the watch's own factor, 3/2,
   * a fresh state whose first piece fell on a cheap stretch of mandelbrot W8 needed 7 alarms to reach the dear one: 3-5
   * alarms in 15 calls on the coherent image, bin/bench-refill).
   */
  public static final int PLAIN_PEAK_TAKE_FACTOR = 4;
  /**
   * The plain watch judges only pieces of at least 1/2^this of an epoch (the last piece of a call may be a few elements,
   * whose cost on an image in scan order is one row's; a quarter of an epoch, 16 rows of a 256-wide image at W8, still
   * varies more than the pieces it is compared with).
   */
  public static final int PLAIN_PIECE_MIN_SHIFT = 1;
  /**
   * The plain watch's factor: a piece dearer per element than this times the reference brings the next trial. On random
   * points the plain body costs 3.0-3.5× what it costs on the same points in scan order (bin/bench-refill, mandelbrot and
   * julia), while the dearest quarter of a 256×256 image in scan order costs about 1.9× the image's average (the quarters
   * of mandelbrot's: 0.12, 1.88, 1.88, 0.12 in max-of-packet iterations).
   */
  public static final double PLAIN_WATCH_FACTOR = 1.5;
  /**
   * The spread of the paired trials ({@link #adaptiveSpread}), in {@link #STATE_SPREAD}: fixed point with
   * {@link #SPREAD_ONE} for 1, stored less the prior {@link #SPREAD_PRIOR_SHIFT} (so that a state of zeros, the fresh one,
   * holds the prior; a program that wants the spread 0 writes {@code -(SPREAD_ONE >> SPREAD_PRIOR_SHIFT)}).
   */
  public static final long SPREAD_ONE = 1L << 16;
  /**
   * The spread before any deviation was measured, and after a restarted trial dropped the history: 1/2^this (1/4: a single
   * paired trial on an image in scan order read refill/plain 0.7-3.5 where the whole image gives 1.0, bin/bench-refill
   * mandelbrot W16), so that one or two trials on one region of a coherent input do not decide a switch by a narrow margin.
   */
  public static final int SPREAD_PRIOR_SHIFT = 2;
  /**
   * The paired trials' memory when the spread decides ({@link #adaptiveSpread}): at the start of a trial the earlier trials'
   * sums (and their weight) keep 1 - 1/2^this of themselves (7/8: about 15 trials' worth of regions of the input), instead
   * of half per epoch since the last trial (at the back-off's level 5 that left the last trial alone).
   */
  public static final int SPREAD_MEMORY_SHIFT = 3;
  /** The spread's own memory: it keeps 1 - 1/2^this of itself and takes 1/2^this of a trial's deviation (3/4, 1/4). */
  public static final int SPREAD_AVERAGE_SHIFT = 2;

  /** The sums' memory ({@code -Dpacketizer.refill.autoSpreadMemory}, 1 to 6), read when a driver is built; for measurement. */
  static int spreadMemoryShift() {
    return Math.max(1, Math.min(6, Integer.getInteger("packetizer.refill.autoSpreadMemory", SPREAD_MEMORY_SHIFT)));
  }

  /** The suffix of the adaptive driver's state global ({@link #STATE_POS} …): {@code NAME.state}. */
  public static final String STATE_SUFFIX = ".state";

  /**
   * Whether the adaptive driver backs off its trials and keeps its state between calls ({@code
   * -Dpacketizer.refill.autoBackoff=false}: the earlier rule, a trial in every epoch of every call, for measurement),
   * read when a driver is built.
   */
  public static boolean adaptiveBackoff() { return !"false".equals(System.getProperty("packetizer.refill.autoBackoff")); }

  /**
   * The watch fires when the plain body's piece costs more than WATCH_FACTOR_NUM / WATCH_FACTOR_DEN (3/2) times refill's
   * cost per element at the trials (random inputs: plain 2.6-3.8× refill in bin/bench-refill, about 2× in the tests'
   * mandelbrot at 150 iterations; 9/8 fired on local stretches of coherent images and cost julia W8 3 %).
   */
  public static final int WATCH_FACTOR_NUM = 3, WATCH_FACTOR_DEN = 2;
  /**
   * A paired trial whose refill/plain ratio differs from the earlier trials' by more than this factor either way is
   * disturbed: it starts again on the next elements (once). On this host a disturbed trial read 3× off, a preempted run
   * 30-100×; random inputs after coherent ones change the ratio 3-4× (taken at the restart).
   */
  public static final int DISTURBED_FACTOR = 2;
  /** One trial's weight in the watch's count of the trials in the decayed sums (bits 8 and up of {@link #STATE_POS}). */
  public static final long WATCH_UNIT = 1024;

  /**
   * The back-off's growth after a trial that kept the plain body with refill dearer by more than the margin (1/2^{@link
   * #ADAPTIVE_HYSTERESIS_SHIFT}, paired: the one tied to the trials' spread), in levels ({@code
   * -Dpacketizer.refill.autoPlainLeap}, 1 to the top level; 1: the rule before the sixteenth round, one level after a win
   * by more than 1/2^{@link #ADAPTIVE_DECISIVE_SHIFT} and none after a narrower one), read when a driver is built. The
   * default {@link #PLAIN_LEAP} (2: the next trial after four times as many epochs) brings the trials' share down sooner
   * where refill loses (volume W16: refill 1.12-1.24× the plain body's cycles at the trials; a paired trial runs refill on
   * 128·W elements besides the plain body's run, in 2-6 of the bench's 5 timed calls before); the watch still ends a plain
   * run whose pieces get dearer.
   */
  static int adaptivePlainLeap() {
    return Math.max(1, Math.min(Math.max(1, adaptiveMaxLevel()), Integer.getInteger("packetizer.refill.autoPlainLeap", PLAIN_LEAP)));
  }

  /** The default of {@link #adaptivePlainLeap}. */
  public static final int PLAIN_LEAP = 2;

  /**
   * Whether the first trial of a fresh state that keeps the plain body is confirmed by a second one before the back-off
   * grows ({@code -Dpacketizer.refill.autoConfirmFirst=false}: it grows at once, the rule before the seventeenth round;
   * for measurement), read when a driver is built. At level 0 a trial with no earlier trials in the sums (a fresh state)
   * and not itself a restart, that keeps the plain body, leaves the level at 0 (the next trial in the next epoch, on other
   * elements) and marks the next trial a restart (bit 3 of {@link #STATE_POS}): it starts the sums over and is judged
   * alone, neither against nor averaged with the first. One trial the host disturbed (a preempted or cold refill run read
   * dearer than the plain one) thus no longer backs the driver off on the plain body for 2^{@link #PLAIN_LEAP} epochs
   * (and on the trial of three chunks, whose sums the next trial only halves, beyond); the cost where the plain body
   * wins is one trial more per fresh state.
   */
  public static boolean adaptiveConfirmFirst() { return !"false".equals(System.getProperty("packetizer.refill.autoConfirmFirst")); }

  /**
   * The test seam of the back-off driver's timing ({@code -Dpacketizer.refill.autoClockScript=R}, R rows, 1 to 64; 0, the
   * default: the cycle counter), read when a driver is built; for tests only, never for a driver that is timed. The driver
   * then reads no cycle counter: its global {@code NAME.clock} ({@link #CLOCK_SUFFIX}, 2 + 2R {@code int64_t}, zero at
   * load) holds in word 0 the number of trials measured so far (decided or restarted; the driver adds 1 after each, a
   * program may reset it), in words 1 + 2k and 2 + 2k row k: the plain and the refill body's cycles per element, and in
   * word 1 + 2R the elements the refill body ran in its calls (trial chunks and runs; since the nineteenth round). Each
   * timed call of a body (trial chunks and the plain run's watched pieces) takes its elements times the cost in row
   * min(word 0, R - 1), so a program scripts a sequence of trials (e.g. a first one disturbed, then the real costs) and
   * what the watches see; the spacing's jitter is its midpoint (the run is exactly 2^level epochs less the trial).
   */
  static int adaptiveClockScript() { return Math.max(0, Math.min(64, Integer.getInteger("packetizer.refill.autoClockScript", 0))); }

  /** The suffix of the scripted clock's global ({@link #adaptiveClockScript}): {@code NAME.clock}. */
  public static final String CLOCK_SUFFIX = ".clock";

  /**
   * Whether the back-off driver runs trials at all ({@code -Dpacketizer.refill.autoTrials=false}: it never does and runs
   * the plain body throughout, its plain phase as it is otherwise, watch included; for measurement: the driver's own cost
   * against the plain driver's, apart from the trials'), read when a driver is built.
   */
  public static boolean adaptiveTrials() { return !"false".equals(System.getProperty("packetizer.refill.autoTrials")); }

  /**
   * Whether the back-off driver watches the plain body's runs ({@code -Dpacketizer.refill.autoWatch=false}: it does not,
   * for measurement), read when a driver is built: a run of the plain body goes in pieces of an epoch, each timed, and a
   * piece whose cycles per element exceed 3/2 times the refill body's at the trials brings the next
   * trial at once (an input that turned from coherent to random ran the plain body, 2.6-3.8× slower than refill, for up
   * to 1.5·2^level epochs: docs/performance.md "The watch").
   */
  public static boolean adaptiveWatch() { return !"false".equals(System.getProperty("packetizer.refill.autoWatch")); }

  /**
   * Whether the watch's alarms are spaced ({@code -Dpacketizer.refill.autoWatchSpacing=false}: every alarm ends the run, the
   * rule before the eighteenth round; for measurement), read when a driver is built; only with the watch. A trial an alarm
   * brought that keeps the plain body (the alarm did not change the decision) raises the watch's level by one, up to
   * {@link #adaptiveWatchMaxLevel}; a switch of the body sets it to 0; at level v an alarm (of either watch) ends a run of
   * the plain body only once 2^v - 1 epochs of it ran since the last trial, so that the alarms' trials are spaced as the
   * paired trials are; and an alarm ends the run only after a tail of up to an epoch (jittered like the run's spacing; no
   * second alarm in it), so that its trial does not always sample the elements right after the alarming piece (on an image
   * called again and again, the start of the next call: a cheap corner, where every such trial kept the plain body; with
   * the spacing alone, bin/bench-refill's julia W16 on the coherent image then stayed on plain at 2.5 times refill's
   * time in 2 of 3 runs). On a coherent image whose pieces are dear where the trials' refill reference is cheap (a trial on a
   * cheap corner; or work rising along the array for both bodies alike), the watch alarmed at every piece and each trial
   * kept the plain body: a trial per epoch at the back-off's top level (mandelbrot W16 coherent, 10 trials in the bench's 5
   * timed calls, +2.4 % against the plain driver; docs/performance.md "The watch's spacing").
   */
  public static boolean adaptiveWatchSpacing() { return !"false".equals(System.getProperty("packetizer.refill.autoWatchSpacing")); }

  /** The watch's highest level ({@code -Dpacketizer.refill.autoWatchMaxLevel}, 0 to 7), read when a driver is built. */
  static int adaptiveWatchMaxLevel() {
    return Math.max(0, Math.min(7, Integer.getInteger("packetizer.refill.autoWatchMaxLevel", WATCH_MAX_LEVEL)));
  }

  /**
   * Whether trials where refill loses badly cost less ({@code -Dpacketizer.refill.autoLossCut=false}: the rule before the
   * nineteenth round, for A/B), read when a driver is built. Refill loses badly when it takes more than {@link
   * #adaptiveLossFactor} times the plain body's cycles per element (paired trials with the spread: times 1 + S, the trials'
   * spread, {@link #adaptiveSpread}: on an image in scan order single paired trials scatter, refill/plain 0.7-3.5 where the
   * image gives 1.0, and sums that drift over the factor there are no loss; with the bare factor bin/bench-refill's
   * mandelbrot W16 and march W8 on the image in scan order lost their refill gain, auto within 1 % of plain, in 2 of 6 runs,
   * against 0 of 12 with the old rule), at
   * the trial decided last too (bit {@link #POS_LOST_BIT} of {@link #STATE_POS}: one trial on a dear stretch is no loss).
   * The leap also waits for a trial after the one confirming a fresh state's first: those two sample the input one epoch
   * apart, on an input called again and again the same stretch every time.
   * Two parts:
   * <ul>
   * <li><b>Probe trials</b>: a trial that starts while the plain body is in use, with no switch pending, on sums of earlier
   * trials (not a restart) in which refill loses badly, runs refill on 1/2^{@link #LOSS_PROBE_SHIFT} of the usual chunk
   * (paired: both bodies on those elements; the trial of three chunks: the refill chunk only), and counts its cycles
   * 2^{@link #LOSS_PROBE_SHIFT} times, as a whole trial's (the sums, the watch's reference of refill's cost and the margin
   * keep their units). A trial costs its refill run's excess over the plain body (and, paired, the plain body's second
   * run): strhash W8 on AVX2 at refill/plain 2.76 paid 128·W·1.76 plain elements per trial, 2.7 % of a call of 65536.
   * A change of the input shows in the probe too: a probe that reads refill cheap favours it, and the next trial, on sums
   * that no longer say refill loses badly, is a whole one (paired: a probe more than {@link #DISTURBED_FACTOR} off the
   * sums restarts as a whole trial).</li>
   * <li><b>The loss leap</b>: a trial decided for the plain body on sums in which refill loses badly sends the back-off to
   * its top level ({@link #adaptiveMaxLevel}) instead of {@link #adaptivePlainLeap} levels up, and, when an alarm of the
   * watch brought it, the watch's level to its top ({@link #adaptiveWatchMaxLevel}) instead of one up. A fresh state's
   * first trial is still confirmed by a second, whole one ({@link #adaptiveConfirmFirst}), which grows the back-off by the
   * plain leap; the next one, a probe, leaps, and from then on the trials come 2^top epochs apart (old rule: 4, 16, then 32
   * epochs) and the watch's alarms wait 2^top - 1 epochs.</li>
   * </ul>
   */
  public static boolean adaptiveLossCut() { return !"false".equals(System.getProperty("packetizer.refill.autoLossCut")); }

  /**
   * The factor above which refill loses badly ({@link #adaptiveLossCut}; {@code -Dpacketizer.refill.autoLossFactor=F}, 1.0625
   * to 16, in 1/16ths), read when a driver is built. Above the 1.5 of the scripted tests' "plain wins" and of volume's and
   * strhash W8 AVX-512's trials (1.2-1.5: trials there keep deciding close), below strhash W8 AVX2 (2.76), julia W8 AVX2
   * (2.13) and mandelbrot W8 AVX2 (1.86) on coherent inputs.
   */
  static double adaptiveLossFactor() {
    double f = Double.parseDouble(System.getProperty("packetizer.refill.autoLossFactor", String.valueOf(LOSS_FACTOR)));
    return Math.max(1.0625, Math.min(16, f));
  }

  /** The default of {@link #adaptiveLossFactor}. */
  public static final double LOSS_FACTOR = 1.75;
  /** A probe trial ({@link #adaptiveLossCut}) runs refill on 1/2^this of the usual chunk (32 of 128 packets). */
  public static final int LOSS_PROBE_SHIFT = 2;
  /** Bit of {@link #STATE_POS}: the trial under way is a probe ({@link #adaptiveLossCut}). */
  public static final int POS_PROBE_BIT = 4;
  /** Bit of {@link #STATE_POS}: the last trial decided lost badly ({@link #adaptiveLossCut}). */
  public static final int POS_LOST_BIT = 5;

  /**
   * Whether the watch also compares a piece of a plain run with the plain body's own recent pieces ({@code
   * -Dpacketizer.refill.autoPlainWatch=false}: only with refill's cost at the trials, the thirteenth round's watch; for
   * measurement), read when a driver is built; only with the watch ({@link #adaptiveWatch}). A piece (at least a quarter
   * of an epoch) dearer per element, and the piece before it too, than {@link #plainWatchFactor} times the dearest recent
   * piece ({@link #STATE_PLAIN_PEAK},
   * {@link #PLAIN_PEAK_DECAY_SHIFT}) ends the run: the next trial comes. An input that turns from coherent to random makes
   * the plain body 3-3.5× dearer per element, while the watch against refill's cost at the trials stays quiet when those
   * trials fell on dear regions of the coherent input (mandelbrot W16: no trial in 15 random calls after the coherent ones
   * backed off to level 5, +5 % against plain; docs/performance.md "The plain watch"). The alarms are counted in
   * {@link #STATE_PLAIN_ALARMS} (statistics).
   */
  public static boolean adaptivePlainWatch() { return !"false".equals(System.getProperty("packetizer.refill.autoPlainWatch")); }

  /**
   * Whether the watch against refill's cost at the trials also takes a piece as the lesser of itself and the last piece
   * judged, as the plain watch does ({@code -Dpacketizer.refill.autoWatchLesser=false}: the piece alone, as before the
   * fifteenth round; for measurement), read when a driver is built; only with the plain watch (its state holds the last
   * piece). The cycle counter counts wall time, so a piece during which the host took the core reads several times dearer:
   * on volume (refill 1.25× dearer than plain on random inputs, so refill's reference sits near the plain cost) such
   * pieces ended the plain run at level 5 two to three times per call of 8 epochs on a loaded host, each time with a
   * trial, and the auto driver ran 1-6 % slower than the plain one (docs/performance.md "The array drivers in the main
   * benchmark").
   */
  public static boolean adaptiveWatchLesser() { return !"false".equals(System.getProperty("packetizer.refill.autoWatchLesser")); }

  /** The plain watch's factor ({@code -Dpacketizer.refill.autoPlainWatchFactor}, 1.0625 to 16), read when a driver is built. */
  static double plainWatchFactor() {
    double f = Double.parseDouble(System.getProperty("packetizer.refill.autoPlainWatchFactor", String.valueOf(PLAIN_WATCH_FACTOR)));
    return Math.max(1.0625, Math.min(16, f));
  }

  /**
   * Whether the back-off also grows after a trial in which the two bodies are close (neither cheaper by more than
   * 1/2^{@link #ADAPTIVE_HYSTERESIS_SHIFT}; {@code -Dpacketizer.refill.autoCloseBackoff=false}: only after a decisive win,
   * as before; for measurement), read when a driver is built.
   */
  public static boolean adaptiveCloseBackoff() { return !"false".equals(System.getProperty("packetizer.refill.autoCloseBackoff")); }

  /**
   * Whether the back-off driver's trial runs both bodies on the same elements when the scalar function writes no memory
   * ({@link #pairedTrial}; {@code -Dpacketizer.refill.autoPaired=false}: the trial of three chunks on neighbouring
   * elements, for measurement), read when a driver is built. On an image in scan order the work per element changes
   * within a row, so chunks of 8·W plain elements beside 128·W refill elements sampled different work: single trials on
   * mandelbrot W8 coherent ranged over refill/plain 0.55-5 while the two bodies differ by 1.6 % (docs/performance.md
   * "Paired trials").
   */
  public static boolean adaptivePaired() { return !"false".equals(System.getProperty("packetizer.refill.autoPaired")); }

  /**
   * Whether a close trial settles on the plain body: when neither body is cheaper than the other by more than
   * 1/2^{@link #ADAPTIVE_HYSTERESIS_SHIFT}, the plain body runs from then on whichever ran before, and the back-off grows
   * as after a trial that kept the body; a trial beyond the margin decides as before (to refill after two in a row when
   * backed off). {@code -Dpacketizer.refill.autoPreferPlain=false}: the body in use is kept unless the other one is cheaper
   * by the margin, for measurement. Read when a driver is built. An input that was random before (the driver on refill)
   * no longer keeps refill at +1.6 % on mandelbrot W8 coherent, and two nearly equal bodies no longer reset the back-off by
   * flipping at every trial (march W8 coherent: 27-42 trials in 15 calls with a band of [-1/32, 0) around equal cost).
   */
  public static boolean adaptivePreferPlain() { return !"false".equals(System.getProperty("packetizer.refill.autoPreferPlain")); }

  /**
   * Whether a trial that favours the other body by more than the margin switches only when the trial before it did too,
   * at every level ({@code -Dpacketizer.refill.autoConfirm=false}: at level 0, right after a switch or at the start, one
   * trial switches, as before, and a switch starts the back-off over at level 0; for measurement), read when a driver is
   * built. A confirmed switch keeps the spacing the first of the two trials came from. The flag is bit 2 of
   * {@link #STATE_POS}.
   */
  public static boolean adaptiveConfirm() { return !"false".equals(System.getProperty("packetizer.refill.autoConfirm")); }

  /**
   * Whether the paired trials' margin follows their spread ({@code -Dpacketizer.refill.autoSpread=false}: the fixed 1/32 and
   * the sums decayed by half per epoch since the last trial, the twelfth round's rule; for measurement), read when a driver
   * is built; only with paired trials ({@link #pairedTrial}). The trials' sums keep 7/8 per trial
   * ({@link #SPREAD_MEMORY_SHIFT}); each whole trial measures its deviation from them, |r - ρ·p| / p̄ (its refill cycles
   * against the sums' ratio ρ times its plain cycles, over the plain cycles of an average trial in the sums: a trial on
   * cheap elements counts little, as in the sums), at most 1, and the spread S keeps 3/4 of itself and takes 1/4 of that;
   * the margin is max(1/32, 2·S / (1 + the trials' weight in the sums)), about one standard error of the sums' ratio. A
   * restarted trial (the input changed, or the host took the core) starts the history over: the sums hold it alone and the
   * spread is the prior ({@link #SPREAD_PRIOR_SHIFT}). On an image in scan order single trials scatter (refill/plain
   * 0.7-3.5 on mandelbrot W16 where the image gives 1.0), so two trials on one region decided a switch by 1/32.
   */
  public static boolean adaptiveSpread() { return !"false".equals(System.getProperty("packetizer.refill.autoSpread")); }

  /**
   * Whether the back-off driver of a function may time both bodies on the same elements: it writes no memory (LLVM's
   * {@code memory} attribute without a write: running it twice on an element changes nothing but the output, and the
   * second run writes into a scratch array on the driver's stack) and returns a value, on AVX-512 (compaction in
   * registers). On AVX2 the refill body of a paired trial, a call of 128·W elements, pays its drain at a cost the long
   * runs do not: random mandelbrot points at 150 iterations read refill as dear as plain at W16 in 1 of 16 test runs
   * (AutoRefillBackoffJitTest), so AVX2 keeps the trial of three chunks.
   */
  static boolean pairedTrial(Function scalar, PacketizerOptions options) {
    long mem = scalar.memoryEffects();
    String feats = targetFeatures(scalar, options);
    return adaptivePaired() && !scalar.returnType().isVoid() && mem >= 0 && (mem & 0xAAAAAAAAL) == 0
        && feats.contains("+avx512f") && feats.contains("+avx512vl");
  }

  /** The back-off's highest level ({@code -Dpacketizer.refill.autoMaxLevel}), read when a driver is built; for measurement. */
  static int adaptiveMaxLevel() {
    return Math.max(0, Math.min(16, Integer.getInteger("packetizer.refill.autoMaxLevel", ADAPTIVE_MAX_LEVEL)));
  }

  /** The occupancy gate's probe at the end of an epoch of the plain body, in packets. */
  public static final int ADAPTIVE_PROBE_PACKETS = 4;
  /**
   * The occupancy gate's break-even: the lane occupancy of the plain body's loop at which a refill iteration
   * (one element-iteration) costs as much as a plain one per busy lane, from the benchmark's per-iteration
   * figures on AVX-512 (mandelbrot 0.64/0.70, julia 0.59/0.52 at W8/W16: docs/performance.md "The auto rule").
   */
  public static final double BREAK_EVEN = 0.6;
  /** The occupancy gate's probes in an epoch of the plain body (one after each part of it). */
  public static final int PROBES_PER_EPOCH = 4;

  /**
   * Whether the adaptive driver has the occupancy gate ({@code -Dpacketizer.refill.autoProbe=true}; off by
   * default: measured no better than timing every epoch, docs/performance.md "The auto rule"), read when a
   * driver is built.
   */
  public static boolean adaptiveProbe() { return Boolean.getBoolean("packetizer.refill.autoProbe"); }

  /** The occupancy probe's chunk ({@code -Dpacketizer.refill.autoProbePackets}, in packets), read when a driver is built. */
  static int adaptiveProbePackets() {
    return Math.max(1, Integer.getInteger("packetizer.refill.autoProbePackets", ADAPTIVE_PROBE_PACKETS));
  }

  /** The break-even occupancy ({@code -Dpacketizer.refill.autoBreakEven}), read when a driver is built; for measurement. */
  static double breakEven() { return Double.parseDouble(System.getProperty("packetizer.refill.autoBreakEven", String.valueOf(BREAK_EVEN))); }

  /** The epoch ({@code -Dpacketizer.refill.autoEpoch}, in packets), read when a driver is built; for measurement. */
  static int adaptiveEpoch() {
    return Math.max(2 * adaptivePlain() + adaptiveRefill() + (adaptiveProbe() ? adaptiveProbePackets() : 0) + 1, Integer.getInteger("packetizer.refill.autoEpoch", ADAPTIVE_EPOCH_PACKETS));
  }

  /** The timed plain chunk ({@code -Dpacketizer.refill.autoPlain}, in packets), read when a driver is built; for measurement. */
  static int adaptivePlain() { return Math.max(1, Integer.getInteger("packetizer.refill.autoPlain", ADAPTIVE_PLAIN_PACKETS)); }

  /** The timed refill chunk ({@code -Dpacketizer.refill.autoRefill}, in packets), read when a driver is built; for measurement. */
  static int adaptiveRefill() { return Math.max(1, Integer.getInteger("packetizer.refill.autoRefill", ADAPTIVE_REFILL_PACKETS)); }

  static String adaptiveDescription(boolean paired) {
    if (adaptiveBackoff() && !adaptiveProbe()) {
      String trial = paired
          ? "a paired trial: " + adaptiveRefill() + "·W elements run by both bodies, the plain and the refill one, each timed"
              + " (the cycle counter; the same elements, so the input's changing work does not bias the choice: the function"
              + " writes no memory, and the second run's results go to a scratch array on the stack; which body runs first"
              + " alternates; " + (adaptiveSpread() ? "the earlier trials' sums keep " + ((1 << spreadMemoryShift()) - 1) + "/"
                  + (1 << spreadMemoryShift()) + " per trial, and a restarted trial starts them over)" : "the earlier trials' sums count half per epoch since)")
          : "a trial of three timed chunks, " + adaptivePlain()
              + "·W elements with the plain body, " + adaptiveRefill() + "·W with the refill body, " + adaptivePlain() + "·W with the"
              + " plain body (the cycle counter; the refill chunk is compared with the two around it, so that work growing or"
              + " shrinking along the input does not bias the choice; the earlier trials' sums count half per epoch since)";
      return "the driver runs epochs of " + adaptiveEpoch() + "·W elements; " + trial + ","
          + " picks the body that took fewer cycles per element (" + (paired && adaptiveSpread() ? "the margin follows the trials'"
              + " spread: each trial's deviation from the sums, |r - ρ·p| over an average trial's plain cycles, at most 1, kept"
              + " as S (3/4 old, 1/4 new; 1/4 at the start), and the margin is max(1/32, 2·S / (1 + the trials in the sums)); "
              : "") + (adaptivePreferPlain()
              ? "the refill one only when it is cheaper by more than " + (paired && adaptiveSpread() ? "the margin" : "1/"
                  + (1 << ADAPTIVE_HYSTERESIS_SHIFT)) + "; when neither is cheaper by that much, the plain one at once"
              : "the other one only when it is cheaper by more than 1/" + (1 << ADAPTIVE_HYSTERESIS_SHIFT)) + "), which then runs"
          + " until the next trial in one call; exponential back-off: after a trial that keeps the body in use the next one"
          + " comes after twice as many epochs when it won by more than 1/" + (1 << ADAPTIVE_DECISIVE_SHIFT)
          + (adaptiveCloseBackoff() ? " or the bodies were within 1/" + (1 << ADAPTIVE_HYSTERESIS_SHIFT) + " of each other" : "")
          + (adaptivePlainLeap() > 1 ? ", " + (1 << adaptivePlainLeap()) + " times as many when the plain one won by more than the margin" : "")
          + (adaptiveConfirmFirst() ? " (a fresh state's first trial that keeps the plain body is confirmed by a second one in the"
              + " next epoch, judged alone, before the back-off grows)" : "")
          + " (up to "
          + (1 << adaptiveMaxLevel()) + "; a narrower win keeps the spacing; each spacing jittered by ±1/2 from"
          + " the cycle counter); after one that favours the other body, the next one comes in the next epoch, and the body"
          + " changes when two trials in a row favour it (else the back-off resumes)" + (adaptiveConfirm() ? ", also right after a"
              + " switch and at the start, and keeps the spacing" : "; right after a switch and at the start one trial changes it")
          + (adaptiveWatch() ? "; a run of the plain body goes in timed pieces of an epoch, and a piece that costs more than 3/2"
              + " times refill's cycles per element at the trials brings the next trial at once"
              + (adaptivePlainWatch() && adaptiveWatchLesser() ? " (a piece counting as the lesser of itself and the piece before it)" : "") + (adaptivePlainWatch()
                  ? ", as does a piece of at least half an epoch that, with the piece before it, costs more than "
                      + plainWatchFactor() + " times the dearest recent piece per element (that reference keeps 15/16 per piece)"
                  : "") + (adaptiveWatchSpacing() ? "; the watch's alarms are spaced: a trial an alarm brought that keeps the plain"
                      + " body raises the watch's level v by one (up to " + adaptiveWatchMaxLevel() + "; a switch of the body sets it"
                      + " to 0), and at level v an alarm ends a plain run only after 2^v - 1 epochs of it, and then after a tail of up"
                      + " to an epoch (jittered like the spacing), so that its trial does not always sample the elements right after"
                      + " the alarm" : "") : "")
          + (adaptiveLossCut() ? "; where refill loses badly (more than " + adaptiveLossFactor() + " times the plain body's cycles"
              + " per element in the trials' sums" + (paired && adaptiveSpread() ? ", times 1 + the trials' spread," : "")
              + " at two trials in a row) its trials cost less, because each trial pays refill's excess: a trial that"
              + " starts on such sums, with the plain body in use, is a probe of " + Math.max(1, adaptiveRefill() >> LOSS_PROBE_SHIFT)
              + "·W refill elements counted as a whole trial's, and the second such trial in a row that keeps the plain body (not the"
              + " one confirming a fresh state's first) sends the back-off to its top level" + (adaptiveWatch() && adaptiveWatchSpacing() ? " (an alarm's trial: the watch's level too)" : "")
              : "")
          + "; the trial position, sums and back-off persist between calls in NAME" + STATE_SUFFIX;
    }
    return "the driver runs epochs of " + adaptiveEpoch() + "·W elements; each starts with three"
        + " timed chunks, " + adaptivePlain() + "·W elements with the plain body, " + adaptiveRefill() + "·W with the refill"
        + " body, " + adaptivePlain() + "·W with the plain body (the cycle counter; the refill chunk is compared with the two"
        + " around it, so that work growing or shrinking along the input does not bias the choice; sums over the epochs,"
        + " halved at each epoch), then runs the rest of the epoch in one call of the body that took fewer cycles per"
        + " element (no drain of the refill lanes inside it)"
        + (adaptiveProbe() ? "; occupancy gate: an epoch of the plain body ends with " + adaptiveProbePackets() + "·W elements run in"
            + " lock step counting the lanes in the loop, and when at least " + breakEven() + " of them were busy (and those"
            + " elements took at least half the epoch's cycles per element) the next epoch runs the plain body without the timed"
            + " chunks" : "");
  }

  /**
   * The {@link Refill#AUTO} driver: whether refill pays depends on the input (random inputs: it does;
   * coherent inputs, where neighbouring elements need similar trip counts: the plain driver's uniform
   * loop counter and lock-step lanes are cheaper), so the driver decides while it runs, by measurement.
   * It calls the plain body {@code plain} and the refill body {@code refill} (both with the driver's
   * signature) on chunks; see {@link #adaptiveDescription}.
   */
  static void emitAdaptive(LlvmModule module, Function driver, Function plain, Function refill, Function probe, int lanes,
      List<ParamKind> kinds, List<Type> types, Type rt, Type sizeT, int w, boolean paired) {
    if (probe == null && adaptiveBackoff()) emitAdaptiveBackoff(module, driver, plain, refill, kinds, types, rt, sizeT, w, paired);
    else if (probe == null) emitAdaptiveTimed(module, driver, plain, refill, kinds, types, rt, sizeT, w);
    else emitAdaptiveProbed(module, driver, plain, refill, probe, lanes, kinds, types, rt, sizeT, w);
  }

  /**
   * Calls the refill body (when {@code useRefill}) or the plain body on {@code args} between two reads of
   * the cycle counter, through the blocks {@code callPlain} and {@code callRefill}, and continues in
   * {@code after}; the cycles taken.
   */
  private static Value timedCall(IrBuilder b, Function clock, Value useRefill, Function plain, Function refill,
      List<Value> args, Block callPlain, Block callRefill, Block after) {
    return timedCall(b, clock, useRefill, plain, refill, args, callPlain, callRefill, after, null);
  }

  /**
   * As above; {@code scripted} non-null ({@link #adaptiveClockScript}, for tests): {elements, plain cycles per element,
   * refill cycles per element} of the script's current row, and the call's cycles are the elements times the body's
   * cost instead of the cycle counter's difference (the body still runs and writes its results).
   */
  private static Value timedCall(IrBuilder b, Function clock, Value useRefill, Function plain, Function refill,
      List<Value> args, Block callPlain, Block callRefill, Block after, Value[] scripted) {
    Value t0 = scripted == null ? b.call(clock, List.of(), "t0") : null;
    b.condBr(useRefill, callRefill, callPlain);
    b.atEnd(callPlain);
    b.call(plain, args, "");
    b.br(after);
    b.atEnd(callRefill);
    b.call(refill, args, "");
    b.br(after);
    b.atEnd(after);
    if (scripted != null) {
      // (the script's last word: the elements the refill body ran in timed calls)
      Value had = b.load(b.context().i64(), scripted[3], 8, "clock.refill.elements");
      b.store(b.add(had, b.select(useRefill, scripted[0], b.constInt(b.context().i64(), 0), ""), ""), scripted[3], 8);
      return b.mul(scripted[0], b.select(useRefill, scripted[2], scripted[1], ""), "cycles.scripted");
    }
    return b.sub(b.call(clock, List.of(), "t1"), t0, "cycles");
  }

  /**
   * The timed sums of the auto driver after one chunk: cycles and elements of the plain body
   * ({@code pCyc}, {@code pCnt}) and of the refill body ({@code rCyc}, {@code rCnt}); at the start of an
   * epoch ({@code first}) the old sums count half; {@code refillCheaper}: refill per element &lt; plain per
   * element, cross-multiplied in 128 bits (no overflow, no division by 0).
   */
  private record Sums(Value pCyc, Value pCnt, Value rCyc, Value rCnt, Value refillCheaper) {
    static Sums next(IrBuilder b, LlvmContext ctx, Value first, Value second, Value plainMeasured, Value pCyc, Value pCnt,
        Value rCyc, Value rCnt, Value dt, Value cnt) {
      Value one = b.constInt(ctx.i64(), 1);
      Value pCyc0 = b.select(first, b.binop(Opcode.LSHR, pCyc, one, ""), pCyc, "");
      Value pCnt0 = b.select(first, b.binop(Opcode.LSHR, pCnt, one, ""), pCnt, "");
      Value rCyc0 = b.select(first, b.binop(Opcode.LSHR, rCyc, one, ""), rCyc, "");
      Value rCnt0 = b.select(first, b.binop(Opcode.LSHR, rCnt, one, ""), rCnt, "");
      Value pCyc1 = b.select(plainMeasured, b.add(pCyc0, dt, ""), pCyc0, "plain.cycles.next");
      Value pCnt1 = b.select(plainMeasured, b.add(pCnt0, cnt, ""), pCnt0, "plain.elements.next");
      Value rCyc1 = b.select(second, b.add(rCyc0, dt, ""), rCyc0, "refill.cycles.next");
      Value rCnt1 = b.select(second, b.add(rCnt0, cnt, ""), rCnt0, "refill.elements.next");
      Type i128 = ctx.intType(128);
      Value lhs = b.mul(b.cast(Opcode.ZEXT, rCyc1, i128, ""), b.cast(Opcode.ZEXT, pCnt1, i128, ""), "");
      Value rhs = b.mul(b.cast(Opcode.ZEXT, pCyc1, i128, ""), b.cast(Opcode.ZEXT, rCnt1, i128, ""), "");
      return new Sums(pCyc1, pCnt1, rCyc1, rCnt1, b.icmpUlt(lhs, rhs, ""));
    }
  }

  /**
   * The arguments of one call of a driver body on the chunk that starts at element {@code i}: varying
   * parameters and the output as pointers to element {@code i}, linear ones advanced by {@code i} steps,
   * uniform ones as they are, then the chunk's length.
   */
  private static List<Value> chunkArgs(IrBuilder b, LlvmContext ctx, Function driver, List<ParamKind> kinds,
      List<Type> types, Type rt, Type sizeT, Value i, Value chunk) {
    List<Value> args = new ArrayList<>();
    for (int j = 0; j < kinds.size(); j++) {
      Value p = driver.param(j);
      Type t = types.get(j);
      switch (kinds.get(j)) {
        case ParamKind.Varying v -> args.add(b.gep(t.isInteger(1) ? ctx.i8() : t, p, List.of(i), true, p.name() + ".chunk"));
        case ParamKind.Linear l -> {
          if (t.isPointer()) {
            args.add(b.gep(ctx.i8(), p, List.of(b.mul(i, b.constInt(sizeT, l.step()), "")), false, p.name() + ".chunk"));
          } else {
            Value ii = t.intWidth() == sizeT.intWidth() ? i
                : b.cast(t.intWidth() < sizeT.intWidth() ? Opcode.TRUNC : Opcode.ZEXT, i, t, "");
            args.add(b.add(p, b.mul(ii, b.constInt(t, l.step()), ""), p.name() + ".chunk"));
          }
        }
        default -> args.add(p);
      }
    }
    if (!rt.isVoid()) {
      args.add(b.gep(rt.isInteger(1) ? ctx.i8() : rt, driver.param(kinds.size()), List.of(i), true, "out.chunk"));
    }
    args.add(chunk);
    return args;
  }

  /**
   * The adaptive driver with the occupancy gate ({@link #adaptiveProbe}): as {@link #emitAdaptiveTimed}, but an
   * epoch that follows one of the plain body ends with the probe ({@code probe}: the plain body's lock step,
   * counting the lanes in the loop); when the occupancy it counted is at least {@link #breakEven} and its
   * elements are not much cheaper than the epoch's, the next epoch runs the plain body without the timed chunks.
   */
  private static void emitAdaptiveProbed(LlvmModule module, Function driver, Function plain, Function refill, Function probe,
      int lanes, List<ParamKind> kinds, List<Type> types, Type rt, Type sizeT, int w) {
    LlvmContext ctx = module.context();
    Type i64 = ctx.i64();
    Type i32 = ctx.i32();
    Type f64 = ctx.doubleType();
    Value n = driver.param(driver.paramCount() - 1);
    Function clock = module.intrinsic("llvm.readcyclecounter");
    int epoch = adaptiveEpoch();
    int plainP = adaptivePlain();
    int refillP = adaptiveRefill();
    int probeP = adaptiveProbePackets();
    try (IrBuilder b = new IrBuilder(ctx)) {
      Block entry = driver.appendBlock("entry");
      Block loop = driver.appendBlock("chunk");
      Block exit = driver.appendBlock("exit");
      b.atEnd(entry);
      Value counts = b.alloca(i64.arrayOf(2), "probe.counts");
      Value stepsP = b.gep(i64, counts, List.of(b.constInt(i64, 1)), true, "probe.counts.steps");
      b.condBr(b.icmpEq(n, b.constInt(sizeT, 0), "empty"), exit, loop);
      b.atEnd(loop);
      Value i = b.phi(sizeT, "i");
      Value pos = b.phi(i32, "epoch.pos");
      Value end = b.phi(sizeT, "epoch.end");
      Value pCyc = b.phi(i64, "plain.cycles");
      Value pCnt = b.phi(i64, "plain.elements");
      Value rCyc = b.phi(i64, "refill.cycles");
      Value rCnt = b.phi(i64, "refill.elements");
      Value choice = b.phi(ctx.i1(), "refill.cheaper");
      Value accBusy = b.phi(i64, "probe.lanes.sum");
      Value accSlots = b.phi(i64, "probe.slots.sum");
      Value rest = b.sub(n, i, "rest");
      // positions 1, 2, 3: the timed chunks (plain, refill, plain); 4: the rest of the epoch, one call of the faster
      // body, or with the plain body a part of it; 0: the occupancy probe after each part
      Value atProbe = b.icmpEq(pos, b.i32(0), "probe");
      Value first = b.icmpEq(pos, b.i32(1), "measure.plain");
      Value second = b.icmpEq(pos, b.i32(2), "measure.refill");
      Value third = b.icmpEq(pos, b.i32(3), "measure.plain2");
      Value run = b.icmpEq(pos, b.i32(4), "run.rest");
      // an epoch starts at its first timed chunk (its end is set there), or after a probe that found no trial needed
      Value start = b.and(first, b.icmpEq(end, b.constInt(sizeT, 0), ""), "epoch.start");
      Value end0 = b.select(start, b.add(i, b.constInt(sizeT, (long) epoch * w), ""), end, "epoch.end.now");
      // the rest of an epoch with the plain body runs in parts, each followed by a probe
      Value left = b.sub(end0, i, "epoch.left");
      Value part = b.min(left, b.constInt(sizeT, (long) epoch * w / PROBES_PER_EPOCH), true, "");
      Value probeSize = b.min(left, b.constInt(sizeT, (long) probeP * w), true, "probe.n");
      Value runSize = b.select(choice, left, b.sub(part, b.min(part, probeSize, true, ""), ""), "");
      Value size = b.select(b.or(run, atProbe, ""), b.select(run, runSize, probeSize, ""),
          b.select(second, b.constInt(sizeT, (long) refillP * w),
              b.constInt(sizeT, (long) plainP * w), ""), "");
      Value chunk = b.min(rest, size, true, "chunk.n");
      Value cnt = sizeT.intWidth() == 64 ? chunk : b.cast(Opcode.ZEXT, chunk, i64, "");
      Value plainMeasured = b.or(first, third, "measure.plain.any");
      Value useRefill = b.or(second, b.and(run, choice, ""), "use.refill");
      List<Value> args = chunkArgs(b, ctx, driver, kinds, types, rt, sizeT, i, chunk);
      Block callProbe = driver.appendBlock("probe");
      Block callBody = driver.appendBlock("body");
      Block callPlain = driver.appendBlock("plain");
      Block callRefill = driver.appendBlock("refill");
      Block after = driver.appendBlock("measured");
      Block next = driver.appendBlock("next");
      b.condBr(atProbe, callProbe, callBody);

      // the probe: the plain body's lock step, counting the lanes in the loop (its results are the elements')
      b.atEnd(callProbe);
      b.store(b.constInt(i64, 0), counts, 8);
      b.store(b.constInt(i64, 0), stepsP, 8);
      List<Value> pargs = new ArrayList<>(args);
      pargs.add(counts);
      b.call(probe, pargs, "");
      // summed over the epoch's probes: lanes busy and lane iterations (busy or not)
      Value busy = b.add(accBusy, b.load(i64, counts, 8, "probe.lanes"), "probe.lanes.sum.next");
      Value slots = b.add(accSlots, b.mul(b.load(i64, stepsP, 8, "probe.steps"), b.constInt(i64, lanes), ""), "probe.slots.sum.next");
      Value iP = b.add(i, chunk, "");
      Value epochDone = b.not(b.icmpUlt(iP, end0, ""), "epoch.done");
      // refill cannot win: over the epoch, at least the break-even share of the lane iterations ran for an element
      // (cross-multiplied by 1024; no iteration at all: no loop work, nothing to gain)
      Value occ = b.select(b.icmpEq(slots, b.constInt(i64, 0), ""), b.constReal(f64, 1.0),
          b.binop(Opcode.FDIV, b.cast(Opcode.UITOFP, busy, f64, ""), b.cast(Opcode.UITOFP, slots, f64, ""), ""), "occupancy");
      Value high = b.fcmp(IrBuilder.FCMP_OGE, occ, b.constReal(f64, breakEven()), "");
      Value skip = b.and(epochDone, high, "refill.cannot.win");
      Value posP = b.select(epochDone, b.select(skip, b.i32(4), b.i32(1), ""), b.i32(4), "");
      // no trial: the next epoch runs the plain body (its end from here); a trial: its timed chunks set it
      Value endP = b.select(epochDone, b.select(skip, b.add(iP, b.constInt(sizeT, (long) epoch * w), ""), b.constInt(sizeT, 0), ""),
          end0, "");
      Value accBusyP = b.select(epochDone, b.constInt(i64, 0), busy, "");
      Value accSlotsP = b.select(epochDone, b.constInt(i64, 0), slots, "");
      b.br(next);

      b.atEnd(callBody);
      Value dt = timedCall(b, clock, useRefill, plain, refill, args, callPlain, callRefill, after);
      Sums sums1 = Sums.next(b, ctx, first, second, plainMeasured, pCyc, pCnt, rCyc, rCnt, dt, cnt);
      Value pCyc1 = sums1.pCyc(), pCnt1 = sums1.pCnt(), rCyc1 = sums1.rCyc(), rCnt1 = sums1.rCnt();
      Value cheaper = sums1.refillCheaper();
      Value choiceA = b.select(third, cheaper, choice, "refill.cheaper.next");
      // after the rest of an epoch with refill: the next epoch's timed chunks; after a part with the plain body: its probe
      Value afterRest = b.select(choice, b.i32(1), b.i32(0), "");
      Value posA = b.select(run, afterRest, b.add(pos, b.i32(1), ""), "epoch.pos.next");
      Value endA = b.select(b.and(run, choice, ""), b.constInt(sizeT, 0), end0, "epoch.end.next");
      b.br(next);

      b.atEnd(next);
      Value posN = b.phi(i32, "");
      posN.addIncoming(List.of(posP, posA), List.of(callProbe, after));
      Value choiceN = b.phi(ctx.i1(), "");
      choiceN.addIncoming(List.of(choice, choiceA), List.of(callProbe, after));
      Value endN = b.phi(sizeT, "");
      endN.addIncoming(List.of(endP, endA), List.of(callProbe, after));
      Value accBusyN = b.phi(i64, "");
      accBusyN.addIncoming(List.of(accBusyP, accBusy), List.of(callProbe, after));
      Value accSlotsN = b.phi(i64, "");
      accSlotsN.addIncoming(List.of(accSlotsP, accSlots), List.of(callProbe, after));
      List<Value> sums = new ArrayList<>();
      for (Value[] v : new Value[][] {{pCyc, pCyc1}, {pCnt, pCnt1}, {rCyc, rCyc1}, {rCnt, rCnt1}}) {
        Value ph = b.phi(i64, "");
        ph.addIncoming(List.of(v[0], v[1]), List.of(callProbe, after));
        sums.add(ph);
      }
      Value i1 = b.add(i, chunk, "i.next");
      b.condBr(b.icmpUlt(i1, n, "more"), loop, exit);
      i.addIncoming(List.of(b.constInt(sizeT, 0), i1), List.of(entry, next));
      pos.addIncoming(List.of(b.i32(1), posN), List.of(entry, next));
      end.addIncoming(List.of(b.constInt(sizeT, 0), endN), List.of(entry, next));
      pCyc.addIncoming(List.of(b.constInt(i64, 0), sums.get(0)), List.of(entry, next));
      pCnt.addIncoming(List.of(b.constInt(i64, 0), sums.get(1)), List.of(entry, next));
      rCyc.addIncoming(List.of(b.constInt(i64, 0), sums.get(2)), List.of(entry, next));
      rCnt.addIncoming(List.of(b.constInt(i64, 0), sums.get(3)), List.of(entry, next));
      choice.addIncoming(List.of(b.i1(false), choiceN), List.of(entry, next));
      accBusy.addIncoming(List.of(b.constInt(i64, 0), accBusyN), List.of(entry, next));
      accSlots.addIncoming(List.of(b.constInt(i64, 0), accSlotsN), List.of(entry, next));
      b.atEnd(exit);
      b.retVoid();
    }
  }

  /**
   * The adaptive driver with exponential back-off (the default; {@link #adaptiveDescription}): a state machine over
   * the trial's positions whose state ({@code NAME.state}, {@link #STATE_POS} …) is loaded at the start of a call and
   * stored at its end (relaxed atomics: calls from several threads at once race only on the choice, never on the
   * elements), so that a trial may span calls and the back-off carries over: on an input whose better body does not
   * change, the trials' share of the work goes to zero with the calls instead of staying at one per epoch.
   */
  private static void emitAdaptiveBackoff(LlvmModule module, Function driver, Function plain, Function refill,
      List<ParamKind> kinds, List<Type> types, Type rt, Type sizeT, int w, boolean paired) {
    LlvmContext ctx = module.context();
    Type i64 = ctx.i64();
    Type i128 = ctx.intType(128);
    Value n = driver.param(driver.paramCount() - 1);
    Function clock = module.intrinsic("llvm.readcyclecounter");
    int epoch = adaptiveEpoch();
    int plainP = adaptivePlain();
    int refillP = adaptiveRefill();
    int maxLevel = adaptiveMaxLevel();
    // paired (pairedTrial): one position, both bodies on the same refillP·W elements; else three chunks on neighbouring ones
    long trialLen = paired ? (long) refillP * w : (2L * plainP + refillP) * w;
    boolean watch = adaptiveWatch();
    // the plain watch (adaptivePlainWatch): a piece of a plain run against the dearest recent pieces
    boolean plainWatch = watch && adaptivePlainWatch();
    // the watch's spacing (adaptiveWatchSpacing): alarms whose trials kept the plain body space the next ones
    boolean spacing = watch && adaptiveWatchSpacing();
    int watchMax = adaptiveWatchMaxLevel();
    boolean preferPlain = adaptivePreferPlain();
    boolean confirm = adaptiveConfirm();
    // the margin tied to the paired trials' spread, and their sums with a memory of trials (adaptiveSpread)
    boolean spread = paired && adaptiveSpread();
    Value state = module.i64State(driver.name() + STATE_SUFFIX, STATE_FIELDS, 64);
    // (adaptiveClockScript, tests only) the scripted costs instead of the cycle counter
    int script = adaptiveClockScript();
    Value clockScript = script > 0 ? module.i64State(driver.name() + CLOCK_SUFFIX, 2 + 2 * script, 64) : null;
    boolean confirmFirst = adaptiveConfirmFirst();
    // (adaptiveLossCut) probe trials and the loss leap where refill loses badly: refill more than lossNum/16 times plain
    boolean lossCut = adaptiveLossCut();
    long lossNum = Math.round(adaptiveLossFactor() * 16);
    int probeP = Math.max(1, refillP >> LOSS_PROBE_SHIFT);
    try (IrBuilder b = new IrBuilder(ctx)) {
      Block entry = driver.appendBlock("entry");
      Block start = driver.appendBlock("state.load");
      Block loop = driver.appendBlock("chunk");
      Block done = driver.appendBlock("state.store");
      Block exit = driver.appendBlock("exit");
      b.atEnd(entry);
      // the paired trial's second run writes its results here (refillP·W elements; the first run's go to the output)
      Value scratch = paired ? b.alloca((rt.isInteger(1) ? ctx.i8() : rt).arrayOf((long) refillP * w), "trial.scratch") : null;
      b.condBr(b.icmpEq(n, b.constInt(sizeT, 0), "empty"), exit, start);
      b.atEnd(start);
      Value[] field = new Value[STATE_FIELDS];
      for (int k = 0; k < STATE_FIELDS; k++) field[k] = b.gep(i64, state, List.of(b.constInt(i64, k)), true, "state." + k);
      Value posWord = b.relaxed(b.load(i64, field[STATE_POS], 8, "state.pos"));
      Value pos0 = b.and(posWord, b.constInt(i64, 3), "");
      // (bits 8 and up of the position word: the trials' weight in the sums, WATCH_UNIT per trial, decayed as they are)
      Value weight0 = b.binop(Opcode.LSHR, posWord, b.constInt(i64, 8), "state.weight");
      // (bit 2: a trial favoured the other body by more than the margin and waits for the next one to confirm: confirm)
      Value pending0 = b.icmpNe(b.and(posWord, b.constInt(i64, 4), ""), b.constInt(i64, 0), "state.pending");
      // (bit 3: the paired trial under way is a restart of a disturbed one, which is not judged again)
      Value restarted0 = b.icmpNe(b.and(posWord, b.constInt(i64, 8), ""), b.constInt(i64, 0), "state.restarted");
      // (bit 4: the trial under way is a probe, adaptiveLossCut)
      Value probe0 = lossCut ? b.icmpNe(b.and(posWord, b.constInt(i64, 1L << POS_PROBE_BIT), ""), b.constInt(i64, 0), "state.probe") : null;
      // (bit 5: the last trial decided lost badly, adaptiveLossCut)
      Value lost0 = lossCut ? b.icmpNe(b.and(posWord, b.constInt(i64, 1L << POS_LOST_BIT), ""), b.constInt(i64, 0), "state.lost") : null;
      Value left0 = b.relaxed(b.load(i64, field[STATE_LEFT], 8, "state.left"));
      Value level0 = b.min(b.relaxed(b.load(i64, field[STATE_LEVEL], 8, "state.level")), b.constInt(i64, maxLevel), true, "");
      Value choice0 = b.icmpEq(b.and(b.relaxed(b.load(i64, field[STATE_CHOICE], 8, "state.choice")), b.constInt(i64, 1), ""),
          b.constInt(i64, 1), "");
      Value pCyc0 = b.relaxed(b.load(i64, field[STATE_PLAIN_CYCLES], 8, "state.plain.cycles"));
      Value rCyc0 = b.relaxed(b.load(i64, field[STATE_REFILL_CYCLES], 8, "state.refill.cycles"));
      Value trials0 = b.relaxed(b.load(i64, field[STATE_TRIALS], 8, "state.trials"));
      Value saved0 = b.min(b.relaxed(b.load(i64, field[STATE_SAVED_LEVEL], 8, "state.saved")), b.constInt(i64, maxLevel), true, "");
      // (the spread less its prior, SPREAD_ONE for 1: a fresh state holds the prior)
      Value spread0 = spread ? b.relaxed(b.load(i64, field[STATE_SPREAD], 8, "state.spread")) : null;
      Value peak0 = plainWatch ? b.relaxed(b.load(i64, field[STATE_PLAIN_PEAK], 8, "state.plain.peak")) : null;
      Value alarms0 = plainWatch ? b.relaxed(b.load(i64, field[STATE_PLAIN_ALARMS], 8, "state.plain.alarms")) : null;
      Value last0 = plainWatch ? b.relaxed(b.load(i64, field[STATE_PLAIN_LAST], 8, "state.plain.last")) : null;
      Value watch0 = spacing ? b.relaxed(b.load(i64, field[STATE_WATCH], 8, "state.watch")) : null;
      Value wrun0 = spacing ? b.relaxed(b.load(i64, field[STATE_WATCH_RUN], 8, "state.watch.run")) : null;
      Value spent0 = b.relaxed(b.load(i64, field[STATE_TRIAL_REFILL], 8, "state.trial.refill"));
      // (adaptiveTrials off, for measurement: always the plain run, never a trial)
      boolean trialsOn = adaptiveTrials();
      if (!trialsOn) {
        pos0 = b.constInt(i64, 3);
        choice0 = b.i1(false);
      }
      b.br(loop);

      b.atEnd(loop);
      Value i = b.phi(sizeT, "i");
      Value pos = b.phi(i64, "trial.pos");
      Value weight = b.phi(i64, "trials.weight");
      Value left = b.phi(i64, "trial.left");
      Value level = b.phi(i64, "backoff.level");
      Value choice = b.phi(ctx.i1(), "refill.chosen");
      Value pCyc = b.phi(i64, "plain.cycles");
      Value rCyc = b.phi(i64, "refill.cycles");
      Value trials = b.phi(i64, "trials");
      Value saved = b.phi(i64, "backoff.saved");
      Value pending = b.phi(ctx.i1(), "switch.pending");
      Value restarted = b.phi(ctx.i1(), "trial.restarted");
      Value probe = lossCut ? b.phi(ctx.i1(), "trial.probe") : null;
      Value lastLost = lossCut ? b.phi(ctx.i1(), "trial.last.lost") : null;
      Value spent = b.phi(i64, "trial.refill.elements");
      Value spreadV = spread ? b.phi(i64, "trials.spread") : null;
      Value peakV = plainWatch ? b.phi(i64, "plain.peak") : null;
      Value alarmsV = plainWatch ? b.phi(i64, "plain.alarms") : null;
      Value lastV = plainWatch ? b.phi(i64, "plain.last") : null;
      Value watchV = spacing ? b.phi(i64, "watch") : null;
      Value wrunV = spacing ? b.phi(i64, "watch.run") : null;
      Value acted = null;
      Value peak1 = null;
      Value alarms1 = null;
      Value last1 = null;
      // positions 0, 1, 2: the timed chunks (plain, refill, plain); 3: the run of the chosen body until the next trial
      Value atRun = b.icmpEq(pos, b.constInt(i64, 3), "run");
      Value atRefill = b.icmpEq(pos, b.constInt(i64, 1), "measure.refill");
      Value atDecide = b.icmpEq(pos, b.constInt(i64, 2), "measure.plain2");
      Value fresh = b.icmpEq(left, b.constInt(i64, 0), "position.start");
      // the run until the next trial: 2^level epochs less the trial, jittered to between half and 1.5 times that by the
      // cycle counter's low bits, so that the trials do not keep sampling the same place of an input that repeats
      // (an image of a whole number of epochs, called again and again)
      Value base = b.binop(Opcode.SHL, b.constInt(i64, (long) epoch * w), level, "run.base");
      Value noise = script > 0 ? b.constInt(i64, 512) : b.and(b.call(clock, List.of(), "jitter.clock"), b.constInt(i64, 1023), "jitter");
      Value jittered = b.add(b.binop(Opcode.LSHR, base, b.constInt(i64, 1), ""),
          b.binop(Opcode.LSHR, b.mul(base, noise, ""), b.constInt(i64, 10), ""), "run.jittered");
      Value span = b.sub(b.max(jittered, b.constInt(i64, trialLen + w), true, ""), b.constInt(i64, trialLen), "run.span");
      Value pairedStep = paired ? b.icmpEq(pos, b.constInt(i64, 0), "trial.paired") : null;
      // (adaptiveLossCut) a trial starting on sums of earlier trials in which refill took more than the loss factor times the
      // plain body's cycles per element, with the plain body in use, no switch pending and not a restart, is a probe: refill
      // (paired: both bodies) on 1/2^LOSS_PROBE_SHIFT of the chunk, its cycles counted as a whole trial's. The sums stored
      // are those before the decay, so their ratio is the earlier trials' (three chunks: plain over 2·plainP·W elements a
      // trial, refill over refillP·W)
      Value probeNow = b.i1(false);
      Value refillLen = b.constInt(i64, (long) refillP * w);
      // (adaptiveLossCut, paired trials with the spread) the factor grows with the trials' spread S: F·(1 + S), in units of
      // SPREAD_ONE; on an image in scan order single trials scatter (refill/plain 0.7-3.5 where the image gives 1.0), and
      // sums drifting over F there are no loss
      Value lossScale = null;
      if (lossCut && spread) {
        lossScale = b.cast(Opcode.ZEXT, b.add(b.max(b.add(spreadV, b.constInt(i64, SPREAD_ONE >> SPREAD_PRIOR_SHIFT), ""),
            b.constInt(i64, 0), false, ""), b.constInt(i64, SPREAD_ONE), ""), i128, "loss.spread.scale");
      }
      if (lossCut) {
        Value startsNow = b.and(b.icmpEq(pos, b.constInt(i64, 0), ""), fresh, "trial.starts");
        Value lr = b.mul(b.cast(Opcode.ZEXT, rCyc, i128, ""), b.constInt(i128, (paired ? 16 : 16L * 2 * plainP * w) * (spread ? SPREAD_ONE : 1)),
            "loss.refill");
        Value lp = b.mul(b.cast(Opcode.ZEXT, pCyc, i128, ""), b.constInt(i128, paired ? lossNum : lossNum * refillP * w), "loss.plain");
        if (spread) lp = b.mul(lp, lossScale, "loss.plain.spread");
        // (the last trial decided lost badly too: one trial on a dear stretch of the input is no loss)
        Value eligible = b.and(b.and(b.and(b.icmpNe(weight, b.constInt(i64, 0), ""), b.not(restarted, ""), ""),
            b.and(b.not(choice, ""), b.not(pending, ""), ""), ""), lastLost, "probe.eligible");
        Value lossy = b.and(eligible, b.icmpUlt(lp, lr, ""), "probe.lossy");
        probeNow = b.select(startsNow, lossy, probe, "trial.probe.now");
        refillLen = b.select(probeNow, b.constInt(i64, (long) probeP * w), refillLen, "trial.refill.len");
      }
      Value full = b.select(atRun, span, paired ? refillLen
          : b.select(atRefill, refillLen, b.constInt(i64, (long) plainP * w), ""), "position.size");
      Value todo = b.select(fresh, full, left, "position.left");
      Value rest = b.sub(n, i, "rest");
      Value rest64 = sizeT.intWidth() == 64 ? rest : b.cast(Opcode.ZEXT, rest, i64, "");
      // the watch (adaptiveWatch): a run of the plain body goes in pieces of at most an epoch, each timed
      Value plainRun = watch ? b.and(atRun, b.not(choice, ""), "run.plain") : null;
      Value cnt = b.min(rest64, todo, true, "chunk.n");
      if (watch) cnt = b.min(cnt, b.select(plainRun, b.constInt(i64, (long) epoch * w), cnt, ""), true, "chunk.piece");
      // (the scratch array's size bounds a paired step whatever a program wrote into the state)
      if (paired) cnt = b.min(cnt, b.select(pairedStep, b.constInt(i64, (long) refillP * w), cnt, ""), true, "chunk.paired");
      Value chunk = sizeT.intWidth() == 64 ? cnt : b.cast(Opcode.TRUNC, cnt, sizeT, "");
      Value useRefill = b.or(atRefill, b.and(atRun, choice, ""), "use.refill");
      List<Value> args = chunkArgs(b, ctx, driver, kinds, types, rt, sizeT, i, chunk);
      Value[] scripted = null;
      Value scriptCount = null;
      Value scriptCounter = null;
      if (script > 0) {
        // (adaptiveClockScript) row min(trials measured, R - 1) of the script: plain and refill cycles per element
        scriptCounter = b.gep(i64, clockScript, List.of(b.constInt(i64, 0)), true, "clock.count.ptr");
        scriptCount = b.load(i64, scriptCounter, 8, "clock.count");
        Value row = b.min(scriptCount, b.constInt(i64, script - 1), true, "clock.row");
        Value at = b.add(b.mul(row, b.constInt(i64, 2), ""), b.constInt(i64, 1), "");
        Value cp = b.load(i64, b.gep(i64, clockScript, List.of(at), true, ""), 8, "clock.plain");
        Value cr = b.load(i64, b.gep(i64, clockScript, List.of(b.add(at, b.constInt(i64, 1), "")), true, ""), 8, "clock.refill");
        scripted = new Value[] {cnt, cp, cr, b.gep(i64, clockScript, List.of(b.constInt(i64, 1 + 2L * script)), true, "clock.refill.elements.ptr")};
      }
      Block callPlain = driver.appendBlock("plain");
      Block callRefill = driver.appendBlock("refill");
      Block after = driver.appendBlock("measured");
      Value dt;
      Value dtPlain;
      Value dtRefill;
      Block latch;
      if (paired) {
        Block single = driver.appendBlock("timed");
        Block pair = driver.appendBlock("paired");
        b.condBr(pairedStep, pair, single);
        b.atEnd(single);
        dt = timedCall(b, clock, useRefill, plain, refill, args, callPlain, callRefill, after, scripted);
        Block joined = driver.appendBlock("trial.joined");
        b.br(joined);
        b.atEnd(pair);
        // both bodies on the same elements, the first into the output, the second into the scratch array; which one runs
        // first alternates with the trials (the first run brings the inputs into the cache)
        Value refillFirst = b.cast(Opcode.TRUNC, trials, ctx.i1(), "trial.refill.first");
        List<Value> scratchArgs = new ArrayList<>(args);
        scratchArgs.set(scratchArgs.size() - 2, scratch);
        Value first = timedCall(b, clock, refillFirst, plain, refill, args, driver.appendBlock("paired.plain1"),
            driver.appendBlock("paired.refill1"), driver.appendBlock("paired.first"), scripted);
        Block pairEnd = driver.appendBlock("paired.second");
        Value second = timedCall(b, clock, b.not(refillFirst, ""), plain, refill, scratchArgs, driver.appendBlock("paired.plain2"),
            driver.appendBlock("paired.refill2"), pairEnd, scripted);
        Value pairPlain = b.select(refillFirst, second, first, "paired.plain.cycles");
        Value pairRefill = b.select(refillFirst, first, second, "paired.refill.cycles");
        b.br(joined);
        b.atEnd(joined);
        dtPlain = b.phi(i64, "plain.dt");
        dtPlain.addIncoming(List.of(dt, pairPlain), List.of(after, pairEnd));
        dtRefill = b.phi(i64, "refill.dt");
        dtRefill.addIncoming(List.of(dt, pairRefill), List.of(after, pairEnd));
        latch = joined;
      } else {
        dt = timedCall(b, clock, useRefill, plain, refill, args, callPlain, callRefill, after, scripted);
        dtPlain = dt;
        dtRefill = dt;
        latch = after;
      }
      Value zero = b.constInt(i64, 0);
      // at the start of a trial the sums of the earlier ones count half per epoch since the last trial (2^level epochs;
      // every trial adds the same elements to each sum, so the sums' elements stay in the ratio of one trial's,
      // 2·plain : refill): a trial in the next epoch weighs as much as all earlier ones, one 4 epochs later 1/16
      Value trialStart = b.and(b.icmpEq(pos, zero, ""), fresh, "trial.start");
      Value decay = b.min(b.binop(Opcode.SHL, b.constInt(i64, 1), level, ""), b.constInt(i64, 63), true, "decay");
      Value pBase;
      Value rBase;
      Value weight1;
      if (spread) {
        // (adaptiveSpread) the earlier trials keep 7/8 per trial (spreadMemoryShift), whatever the spacing; a restarted trial (bit 3) starts the
        // history over: the input changed, or the host disturbed the trial before it
        Value msh = b.constInt(i64, spreadMemoryShift());
        Value pKept = b.select(restarted, zero, b.sub(pCyc, b.binop(Opcode.LSHR, pCyc, msh, ""), ""), "plain.cycles.remembered");
        Value rKept = b.select(restarted, zero, b.sub(rCyc, b.binop(Opcode.LSHR, rCyc, msh, ""), ""), "refill.cycles.remembered");
        Value wKept = b.select(restarted, zero, b.sub(weight, b.binop(Opcode.LSHR, weight, msh, ""), ""), "trials.weight.remembered");
        pBase = b.select(trialStart, pKept, pCyc, "");
        rBase = b.select(trialStart, rKept, rCyc, "");
        weight1 = b.select(trialStart, b.add(wKept, b.constInt(i64, WATCH_UNIT), ""), weight, "trials.weight.next");
      } else if (confirmFirst) {
        // (adaptiveConfirmFirst) a restarted trial (here: the one confirming a fresh state's first) starts the sums over
        pBase = b.select(trialStart, b.select(restarted, zero, b.binop(Opcode.LSHR, pCyc, decay, ""), ""), pCyc, "");
        rBase = b.select(trialStart, b.select(restarted, zero, b.binop(Opcode.LSHR, rCyc, decay, ""), ""), rCyc, "");
        weight1 = b.select(trialStart, b.add(b.select(restarted, zero, b.binop(Opcode.LSHR, weight, decay, ""), ""),
            b.constInt(i64, WATCH_UNIT), ""), weight, "trials.weight.next");
      } else {
        pBase = b.select(trialStart, b.binop(Opcode.LSHR, pCyc, decay, ""), pCyc, "");
        rBase = b.select(trialStart, b.binop(Opcode.LSHR, rCyc, decay, ""), rCyc, "");
        weight1 = b.select(trialStart, b.add(b.binop(Opcode.LSHR, weight, decay, ""), b.constInt(i64, WATCH_UNIT), ""), weight,
            "trials.weight.next");
      }
      // (adaptiveLossCut) a probe's refill cycles (paired: both bodies') count as a whole trial's
      Value dtPlainSum = dtPlain;
      Value dtRefillSum = dtRefill;
      if (lossCut) {
        Value kNum = b.constInt(i64, refillP), kDen = b.constInt(i64, probeP);
        dtRefillSum = b.select(probeNow, b.binop(Opcode.UDIV, b.mul(dtRefill, kNum, ""), kDen, ""), dtRefill, "refill.dt.whole");
        if (paired) dtPlainSum = b.select(probeNow, b.binop(Opcode.UDIV, b.mul(dtPlain, kNum, ""), kDen, ""), dtPlain, "plain.dt.whole");
      }
      Value pCyc1 = b.select(b.or(atRun, atRefill, ""), pBase, b.add(pBase, dtPlainSum, ""), "plain.cycles.next");
      Value rCyc1 = b.select(paired ? pairedStep : atRefill, b.add(rBase, dtRefillSum, ""), rBase, "refill.cycles.next");
      Value left1 = b.sub(todo, cnt, "trial.left.next");
      if (watch) {
        // a piece of the plain body's run that took more than 3/2 times the cycles per element the refill body
        // took at the trials ends the run: the next trial comes
        // now, not after up to 1.5·2^level epochs (an input that turned from coherent to random: the plain body 3-4×
        // slower). Pieces shorter than a timed plain chunk are not judged (a call's last few elements); no trial yet
        // (rCyc = 0): nothing to compare with
        // refill per element at the trials: rCyc / (weight / WATCH_UNIT trials × refillP·W elements); the piece's plain
        // cycles per element against 3/2 times that, cross-multiplied in 128 bits
        // (adaptiveWatchLesser, with the plain watch's state) the piece counts as the lesser of its cycles per element and
        // the last piece judged, as for the plain watch: one piece the host stretched by preempting the thread (the cycle
        // counter counts wall time) does not end the run; the refill side is scaled by the same fixed point
        boolean lesser = plainWatch && adaptiveWatchLesser();
        Value perElFirst = null, sampleFirst = null;
        if (plainWatch) {
          perElFirst = b.binop(Opcode.UDIV, b.binop(Opcode.SHL, dtPlain, b.constInt(i64, PLAIN_PEAK_FRACTION_BITS), ""),
              b.max(cnt, b.constInt(i64, 1), true, ""), "plain.piece.cost");
          sampleFirst = b.select(b.icmpNe(lastV, zero, ""), b.min(perElFirst, lastV, true, ""), perElFirst, "plain.piece.sample");
        }
        Value plainPiece = lesser ? b.mul(b.cast(Opcode.ZEXT, sampleFirst, i128, ""), b.cast(Opcode.ZEXT, cnt, i128, ""), "watch.piece.lesser")
            : b.cast(Opcode.ZEXT, dtPlain, i128, "");
        Value plainCost = b.mul(b.mul(plainPiece, b.cast(Opcode.ZEXT, weight, i128, ""), ""),
            b.constInt(i128, (long) refillP * w * WATCH_FACTOR_DEN), "watch.plain");
        Value refillCost = b.mul(b.mul(b.cast(Opcode.ZEXT, rCyc, i128, ""), b.cast(Opcode.ZEXT, cnt, i128, ""), ""),
            b.constInt(i128, (long) WATCH_FACTOR_NUM * WATCH_UNIT << (lesser ? PLAIN_PEAK_FRACTION_BITS : 0)), "watch.refill");
        Value slower = b.icmpUlt(refillCost, plainCost, "watch.slower");
        Value judged = b.and(b.not(b.icmpUlt(cnt, b.constInt(i64, (long) plainP * w), ""), ""),
            b.icmpNe(weight, zero, ""), "");
        Value alarm = b.and(b.and(plainRun, judged, ""), slower, "watch.alarm");
        // (adaptiveWatchSpacing) at the watch's level v an alarm ends the run only once 2^v - 1 epochs of it ran since the
        // last trial (the level clamped to the top one, whatever a program wrote into the state)
        Value spaced = null;
        if (spacing) {
          Value wl = b.min(b.and(watchV, b.constInt(i64, WATCH_LEVEL_MASK), ""), b.constInt(i64, watchMax), true, "watch.level");
          Value wait = b.sub(b.binop(Opcode.SHL, b.constInt(i64, (long) epoch * w), wl, ""), b.constInt(i64, (long) epoch * w),
              "watch.wait");
          spaced = b.not(b.icmpUlt(wrunV, wait, ""), "watch.spaced");
          alarm = b.and(alarm, spaced, "watch.alarm.spaced");
        }
        // (adaptiveWatchSpacing) an alarm does not end the run at once: a tail of up to an epoch, jittered like the run
        // (scripted: half an epoch), runs first, so that the trial it brings does not always sample the elements right after
        // the piece — on an image called again and again, the start of the next call, a cheap corner of a coherent input,
        // where every trial kept the plain body while the dear pieces went on alarming. No second alarm in that tail. An
        // alarm counts as ending the run early when the run had more left than the tail
        Value tail = null;
        Value cut = null;
        if (spacing) {
          Value inTail = b.icmpNe(b.and(watchV, b.constInt(i64, 1L << WATCH_BROUGHT_BIT), ""), zero, "watch.tail");
          alarm = b.and(alarm, b.not(inTail, ""), "watch.alarm.once");
          tail = b.binop(Opcode.LSHR, b.mul(b.constInt(i64, (long) epoch * w), noise, ""), b.constInt(i64, 10), "watch.tail.len");
          cut = b.icmpUlt(tail, left1, "watch.cut");
          acted = b.and(alarm, cut, "watch.acted.refill");
          // (the plain watch below is gated by the same tail)
          spaced = b.and(spaced, b.not(inTail, ""), "watch.spaced.once");
        }
        left1 = b.select(alarm, spacing ? b.min(left1, tail, true, "") : zero, left1, "trial.left.watched");
        if (plainWatch) {
          // (adaptivePlainWatch) the piece against the plain body's own dearest recent pieces: its cycles per element
          // (fixed point, PLAIN_PEAK_FRACTION_BITS) above the factor times the reference end the run; the reference keeps
          // 15/16 of itself per piece judged, or takes the piece when dearer, at most PLAIN_PEAK_TAKE_FACTOR times itself.
          // Pieces shorter than half an epoch are not judged; no reference yet (0): the piece sets it
          long fNum = Math.round(plainWatchFactor() * 256);
          Value piece = b.and(plainRun, b.not(b.icmpUlt(cnt, b.constInt(i64, Math.max(1L, ((long) epoch * w) >> PLAIN_PIECE_MIN_SHIFT)), ""),
              ""), "plain.piece.judged");
          Value perEl = perElFirst;
          // (the lesser of this piece and the last one judged, when there is one: a piece stretched by the host counts once)
          Value sample = sampleFirst;
          Value cap = b.binop(Opcode.LSHR, b.mul(peakV, b.constInt(i64, fNum), ""), b.constInt(i64, 8), "plain.peak.capped");
          Value known = b.icmpNe(peakV, zero, "plain.peak.known");
          Value dearer = b.icmpUlt(cap, sample, "plain.piece.dearer");
          Value plainAlarm = b.and(b.and(piece, known, ""), dearer, "plain.watch.alarm");
          if (spacing) {
            plainAlarm = b.and(plainAlarm, spaced, "plain.watch.alarm.spaced");
            acted = b.or(acted, b.and(plainAlarm, cut, ""), "watch.acted");
          }
          Value decayed = b.sub(peakV, b.binop(Opcode.LSHR, peakV, b.constInt(i64, PLAIN_PEAK_DECAY_SHIFT), ""), "plain.peak.decayed");
          Value most = b.mul(peakV, b.constInt(i64, PLAIN_PEAK_TAKE_FACTOR), "plain.peak.most");
          Value taken = b.select(known, b.min(sample, most, true, ""), sample, "plain.piece.taken");
          peak1 = b.select(piece, b.max(decayed, taken, true, ""), peakV, "plain.peak.next");
          last1 = b.select(piece, perEl, lastV, "plain.last.next");
          alarms1 = b.add(alarmsV, b.cast(Opcode.ZEXT, plainAlarm, i64, ""), "plain.alarms.next");
          left1 = b.select(plainAlarm, spacing ? b.min(left1, tail, true, "") : zero, left1, "trial.left.plain.watched");
        }
      }
      Value disturbed = b.i1(false);
      if (paired) {
        // a disturbed trial: its refill/plain ratio differs from the earlier trials' (their sums, the same elements for both
        // bodies) by more than DISTURBED_FACTOR either way — the host took the core during one of the two runs (a trial
        // on random points read refill 1.67× dearer than plain where the trials before read 0.56×; a run preempted for a
        // millisecond reads 30-100× dearer), or the input changed (coherent to random). Its cycles are not added and the
        // trial starts again on the next elements; a restart is not judged again (a changed input is then taken). Pieces
        // shorter than a timed plain chunk are not judged (a call's last few elements)
        Value f = b.constInt(i128, DISTURBED_FACTOR);
        Value rNow = b.mul(b.cast(Opcode.ZEXT, dtRefill, i128, ""), b.cast(Opcode.ZEXT, pCyc, i128, ""), "trial.refill.now");
        Value rWas = b.mul(b.cast(Opcode.ZEXT, dtPlain, i128, ""), b.cast(Opcode.ZEXT, rCyc, i128, ""), "trial.refill.was");
        Value plainOff = b.icmpUlt(b.mul(rNow, f, ""), rWas, "trial.plain.off");
        Value refillOff = b.icmpUlt(b.mul(rWas, f, ""), rNow, "trial.refill.off");
        // (earlier trials: their weight in the sums, bits 8 and up of the position word, is not 0)
        Value judgedStep = b.and(b.and(pairedStep, b.icmpNe(weight, zero, ""), ""),
            b.and(b.not(restarted, ""), b.not(b.icmpUlt(cnt, b.constInt(i64, (long) plainP * w), ""), ""), ""), "");
        disturbed = b.and(judgedStep, b.or(plainOff, refillOff, ""), "trial.disturbed");
        pCyc1 = b.select(disturbed, pCyc, pCyc1, "plain.cycles.kept");
        rCyc1 = b.select(disturbed, rCyc, rCyc1, "refill.cycles.kept");
        weight1 = b.select(disturbed, weight, weight1, "trials.weight.kept");
        left1 = b.select(disturbed, zero, left1, "trial.left.restart");
      }
      Value posDone = b.and(b.icmpEq(left1, zero, ""), b.not(disturbed, ""), "position.done");
      Value decide = b.and(paired ? pairedStep : atDecide, posDone, "decide");
      Value restarted1 = b.select(disturbed, b.i1(true), b.select(decide, b.i1(false), restarted, ""), "trial.restarted.next");
      // refill per element (its chunk's elements: refillP·W) against plain per element (2·plainP·W; paired: the same
      // refillP·W), cross-multiplied in 128 bits; the body not in use must be cheaper by more than 1/2^HYSTERESIS
      Value lhs = b.mul(b.cast(Opcode.ZEXT, rCyc1, i128, ""), b.constInt(i128, paired ? 1 : 2L * plainP * w), "refill.cost");
      Value rhs = b.mul(b.cast(Opcode.ZEXT, pCyc1, i128, ""), b.constInt(i128, paired ? 1 : (long) refillP * w), "plain.cost");
      Value sh = b.constInt(i128, ADAPTIVE_HYSTERESIS_SHIFT);
      Value lhsS = b.binop(Opcode.SHL, lhs, sh, "");
      Value rhsS = b.binop(Opcode.SHL, rhs, sh, "");
      // in use plain: refill chosen when lhs < rhs·(1 - 1/2^s); in use refill: kept unless rhs < lhs·(1 - 1/2^s)
      Value switchToRefill = b.icmpUlt(lhsS, b.sub(rhsS, rhs, ""), "");
      Value keepRefill = b.not(b.icmpUlt(rhsS, b.sub(lhsS, lhs, ""), ""), "");
      Value refillBy = b.icmpUlt(lhsS, b.sub(rhsS, rhs, ""), "refill.by.margin");
      Value plainBy = b.icmpUlt(rhsS, b.sub(lhsS, lhs, ""), "plain.by.margin");
      Value spread1 = null;
      if (spread) {
        // (adaptiveSpread) a whole trial decided in one step, on top of earlier trials and not a restart, measures its
        // deviation from them: d = |r·P - R·p| · (weight / WATCH_UNIT) / P² (r, p: its cycles; R, P: the sums before it),
        // at most 1; the spread keeps 3/4 and takes d/4; the margin is max(1/32, 2·S / (1 + the weight after it))
        Type f64 = ctx.doubleType();
        Value one = b.constReal(f64, 1.0);
        Value pH = b.cast(Opcode.UITOFP, pCyc, f64, "");
        Value rH = b.cast(Opcode.UITOFP, rCyc, f64, "");
        Value dev = b.fsub(b.fmul(b.cast(Opcode.UITOFP, dtRefill, f64, ""), pH, ""), b.fmul(rH, b.cast(Opcode.UITOFP, dtPlain, f64, ""), ""),
            "trial.deviation");
        Value absDev = b.select(b.fcmp(IrBuilder.FCMP_OGE, dev, b.constReal(f64, 0.0), ""), dev, b.fneg(dev, ""), "");
        Value wH = b.fmul(b.cast(Opcode.UITOFP, weight, f64, ""), b.constReal(f64, 1.0 / WATCH_UNIT), "");
        Value dRaw = b.binop(Opcode.FDIV, b.fmul(absDev, wH, ""), b.fmul(pH, pH, ""), "");
        Value d = b.select(b.fcmp(IrBuilder.FCMP_OGE, dRaw, one, ""), one, dRaw, "trial.spread");
        Value measured = b.and(b.and(decide, trialStart, ""), b.and(b.and(b.icmpNe(weight, zero, ""), b.icmpNe(pCyc, zero, ""), ""),
            b.and(b.not(restarted, ""), b.icmpEq(cnt, b.constInt(i64, (long) refillP * w), ""), ""), ""), "trial.spread.measured");
        long prior = SPREAD_ONE >> SPREAD_PRIOR_SHIFT;
        Value sOld = b.select(b.and(decide, restarted, ""), b.constReal(f64, 1.0 / (1 << SPREAD_PRIOR_SHIFT)),
            b.fmul(b.cast(Opcode.SITOFP, b.add(spreadV, b.constInt(i64, prior), ""), f64, ""), b.constReal(f64, 1.0 / SPREAD_ONE), ""),
            "spread.was");
        Value keep = b.constReal(f64, 1.0 - 1.0 / (1 << SPREAD_AVERAGE_SHIFT));
        Value s1 = b.select(measured, b.fadd(b.fmul(sOld, keep, ""), b.fmul(d, b.constReal(f64, 1.0 / (1 << SPREAD_AVERAGE_SHIFT)), ""), ""),
            sOld, "spread.next");
        spread1 = b.sub(b.cast(Opcode.FPTOSI, b.fmul(s1, b.constReal(f64, SPREAD_ONE), ""), i64, ""), b.constInt(i64, prior),
            "spread.stored");
        Value w1H = b.fmul(b.cast(Opcode.UITOFP, weight1, f64, ""), b.constReal(f64, 1.0 / WATCH_UNIT), "");
        Value mRaw = b.binop(Opcode.FDIV, b.fmul(b.constReal(f64, 2.0), s1, ""), b.fadd(one, w1H, ""), "");
        Value floor = b.constReal(f64, 1.0 / (1 << ADAPTIVE_HYSTERESIS_SHIFT));
        Value margin = b.select(b.fcmp(IrBuilder.FCMP_OGE, mRaw, floor, ""), mRaw, floor, "margin");
        Value below = b.fsub(one, margin, "");
        Value r1 = b.cast(Opcode.UITOFP, rCyc1, f64, "");
        Value p1 = b.cast(Opcode.UITOFP, pCyc1, f64, "");
        // r1 < p1·(1 - M), p1 < r1·(1 - M)
        refillBy = b.not(b.fcmp(IrBuilder.FCMP_OGE, r1, b.fmul(p1, below, ""), ""), "refill.by.spread");
        plainBy = b.not(b.fcmp(IrBuilder.FCMP_OGE, p1, b.fmul(r1, below, ""), ""), "plain.by.spread");
        switchToRefill = refillBy;
        keepRefill = b.not(plainBy, "");
      }
      Value close = b.not(b.or(refillBy, plainBy, ""), "close");
      // preferPlain: a close trial (neither body cheaper by more than 1/2^HYSTERESIS) settles on the plain body at once,
      // whichever runs now, and the back-off grows; a trial beyond the margin decides as before
      Value cheaper = preferPlain ? refillBy : b.select(choice, keepRefill, switchToRefill, "refill.cheaper");
      // decisive: the body kept is cheaper by more than 1/2^DECISIVE; only then does the back-off grow (a narrow win,
      // which the place of the trial on the input may have decided, keeps the spacing)
      Value dsh = b.constInt(i128, ADAPTIVE_DECISIVE_SHIFT);
      Value refillClear = b.icmpUlt(b.binop(Opcode.SHL, lhs, dsh, ""), b.sub(b.binop(Opcode.SHL, rhs, dsh, ""), rhs, ""), "");
      Value plainClear = b.icmpUlt(b.binop(Opcode.SHL, rhs, dsh, ""), b.sub(b.binop(Opcode.SHL, lhs, dsh, ""), lhs, ""), "");
      Value decisive = b.select(cheaper, refillClear, plainClear, "decisive");
      if (adaptiveCloseBackoff()) {
        // close (adaptiveCloseBackoff): neither body cheaper than the other by more than 1/2^HYSTERESIS; which one runs
        // matters little, so the back-off grows as after a decisive win (more trials there cost their refill chunk's
        // drain and follow local stretches of the input)
        decisive = b.or(decisive, close, "decisive.or.close");
      }
      // the same body: the next trial after twice as many epochs; the other one: after backing off (level > 0), a trial
      // in the next epoch first (one stretch of the input where the other body wins does not switch); at level 0, switch
      // (the level backed off from is saved; when the trial in the next epoch keeps the body, the back-off resumes there)
      Value same = b.icmpEq(cheaper, choice, "choice.kept");
      if (preferPlain) same = b.or(same, close, "choice.kept.or.close");
      Value resumed = b.max(level, saved, true, "");
      // (adaptivePlainLeap) the plain body kept, cheaper than refill by more than the margin: the back-off grows by that
      // many levels at once, also after a narrow win (below 1/2^DECISIVE, which kept the spacing: volume W16 on random
      // points, refill 1.12-1.13× the plain body's cycles, a trial every epoch or two for good); refill dearer at the
      // trial, and the watch still ends a plain run whose pieces get dearer. A narrow refill win still keeps the spacing
      // (a refill run has no watch)
      int leap = adaptivePlainLeap();
      Value step = b.constInt(i64, 1);
      if (leap > 1) {
        Value plainWin = b.and(b.not(cheaper, ""), plainBy, "plain.won");
        step = b.select(plainWin, b.constInt(i64, leap), step, "backoff.step");
        decisive = b.or(decisive, plainWin, "decisive.or.plain.won");
      }
      Value up = b.select(decisive, b.min(b.add(resumed, step, ""), b.constInt(i64, maxLevel), true, ""), resumed, "");
      // (adaptiveLossCut) the loss leap: the plain body kept on sums in which refill took more than the loss factor times its
      // cycles per element: the back-off to its top level at once
      // (only when the trial before it lost badly too: two in a row; the spread scales the factor as for the probe)
      Value lostBadly = b.i1(false);
      Value leapNow = b.i1(false);
      if (lossCut) {
        Value plainSide = b.mul(rhs, b.constInt(i128, lossNum), "");
        if (spread) plainSide = b.mul(plainSide, lossScale, "");
        lostBadly = b.and(b.not(cheaper, ""), b.icmpUlt(plainSide, b.mul(lhs, b.constInt(i128, 16L * (spread ? SPREAD_ONE : 1)), ""), ""),
            "refill.lost.badly");
        // (not at a restart: the trial confirming a fresh state's first one runs an epoch after it, on an input called again
        // and again the same stretch each time, the start of an image in scan order; bin/bench-refill's march W8 on the image
        // in scan order, where refill wins by 28 %, leapt there and kept the plain body in 2 of 3 runs)
        leapNow = b.and(b.and(lostBadly, lastLost, ""), b.not(restarted, ""), "refill.lost.twice");
        up = b.select(leapNow, b.constInt(i64, maxLevel), up, "backoff.up.loss");
      }
      Value atZero = b.icmpEq(level, zero, "backoff.none");
      // confirm: a confirmed switch keeps the spacing the first contrary trial came from (saved): the trials' cost is
      // amortized over as long a run as before the switch (with level 0 after every switch, two nearly equal bodies whose
      // better one changes along the input switched back and forth with a trial in almost every epoch: march W8 coherent
      // 32-39 trials in 15 calls of 4 epochs)
      Value contrary = confirm ? b.select(pending, resumed, zero, "") : zero;
      if (confirmFirst) {
        // (adaptiveConfirmFirst) a fresh state's first trial (no earlier trials in the sums: its weight alone; level 0; not
        // itself a restart, nor a switch pending) that keeps the plain body: the back-off waits for a second trial in the next
        // epoch, which starts the sums over (a restart) and decides alone; one trial the host disturbed does not back off
        Value first = b.and(b.and(b.icmpEq(weight1, b.constInt(i64, WATCH_UNIT), ""), atZero, ""),
            b.and(b.not(restarted, ""), b.not(pending, ""), ""), "trial.first");
        Value unconfirmed = b.and(b.and(decide, first, ""), b.and(same, b.not(cheaper, ""), ""), "trial.plain.unconfirmed");
        up = b.select(unconfirmed, level, up, "backoff.up.confirmed");
        restarted1 = b.select(unconfirmed, b.i1(true), restarted1, "trial.restarted.confirming");
      }
      Value level1 = b.select(decide, b.select(same, up, contrary, ""), level, "backoff.level.next");
      // confirm: a trial favouring the other body switches only when the trial before it did too, at any level (without:
      // at level 0 one trial switches, so that one trial disturbed by the host, or two nearly equal bodies, flip the body
      // and keep the trials in every epoch); the level it came from is saved while the switch waits
      Value switchNow = confirm ? pending : atZero;
      Value saved1 = b.select(decide, b.select(same, zero, confirm ? b.select(pending, zero, level, "") : level, ""), saved,
          "backoff.saved.next");
      Value pending1 = confirm ? b.select(decide, b.and(b.not(same, ""), b.not(pending, ""), ""), pending, "switch.pending.next")
          : b.i1(false);
      Value choice1 = b.select(b.and(decide, preferPlain ? b.or(switchNow, close, "") : switchNow, ""), cheaper, choice,
          "refill.chosen.next");
      Value trials1 = b.add(trials, b.cast(Opcode.ZEXT, decide, i64, ""), "trials.next");
      Value watch1 = null;
      Value wrun1 = null;
      if (spacing) {
        // (adaptiveWatchSpacing) a trial an alarm brought that keeps the plain body (none pending): the watch's level + 1, up
        // to the top; a switch of the body: 0. The plain run's elements count from the last trial decided
        Value wl = b.min(b.and(watchV, b.constInt(i64, WATCH_LEVEL_MASK), ""), b.constInt(i64, watchMax), true, "");
        Value brought = b.icmpNe(b.and(watchV, b.constInt(i64, 1L << WATCH_BROUGHT_BIT), ""), zero, "watch.brought");
        Value futile = b.and(b.and(decide, brought, ""), b.and(b.not(choice1, ""), b.not(pending1, ""), ""), "watch.futile");
        Value switched = b.and(decide, b.xor(choice1, choice, ""), "watch.switched");
        // (adaptiveLossCut) a futile trial on which refill lost badly: the watch's level to its top at once
        Value wlUp = b.select(leapNow, b.constInt(i64, watchMax), b.min(b.add(wl, b.constInt(i64, 1), ""), b.constInt(i64, watchMax),
            true, ""), "watch.level.up");
        Value wl1 = b.select(switched, zero, b.select(futile, wlUp, wl, ""), "watch.level.next");
        Value brought1 = b.select(decide, b.i1(false), b.or(brought, acted, ""), "watch.brought.next");
        Value count1 = b.add(b.binop(Opcode.LSHR, watchV, b.constInt(i64, WATCH_TRIALS_SHIFT), ""),
            b.cast(Opcode.ZEXT, b.and(decide, brought, ""), i64, ""), "watch.trials.next");
        watch1 = b.or(b.or(wl1, b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, brought1, i64, ""), b.constInt(i64, WATCH_BROUGHT_BIT), ""), ""),
            b.binop(Opcode.SHL, count1, b.constInt(i64, WATCH_TRIALS_SHIFT), ""), "watch.next");
        wrun1 = b.select(decide, zero, b.select(plainRun, b.add(wrunV, cnt, ""), wrunV, ""), "watch.run.next");
      }
      // paired: 0 (the trial) and 3 (the run) alternate
      Value pos1 = b.select(posDone, paired ? b.xor(pos, b.constInt(i64, 3), "")
          : b.and(b.add(pos, b.constInt(i64, 1), ""), b.constInt(i64, 3), ""), pos, "trial.pos.next");
      if (script > 0) {
        // (adaptiveClockScript) one more trial measured: decided or restarted
        b.store(b.add(scriptCount, b.cast(Opcode.ZEXT, b.or(decide, disturbed, ""), i64, ""), ""), scriptCounter, 8);
      }
      // (statistics) the refill body's elements in trials
      Value spent1 = b.add(spent, b.select(paired ? pairedStep : atRefill, cnt, zero, ""), "trial.refill.elements.next");
      Value lastLost1 = lossCut ? b.select(decide, lostBadly, lastLost, "trial.last.lost.next") : null;
      Value i1 = b.add(i, chunk, "i.next");
      b.condBr(b.icmpUlt(i1, n, "more"), loop, done);
      i.addIncoming(List.of(b.constInt(sizeT, 0), i1), List.of(start, latch));
      if (!trialsOn) {
        pos1 = b.constInt(i64, 3);
        choice1 = b.i1(false);
      }
      pos.addIncoming(List.of(pos0, pos1), List.of(start, latch));
      weight.addIncoming(List.of(weight0, weight1), List.of(start, latch));
      left.addIncoming(List.of(left0, left1), List.of(start, latch));
      level.addIncoming(List.of(level0, level1), List.of(start, latch));
      choice.addIncoming(List.of(choice0, choice1), List.of(start, latch));
      pCyc.addIncoming(List.of(pCyc0, pCyc1), List.of(start, latch));
      rCyc.addIncoming(List.of(rCyc0, rCyc1), List.of(start, latch));
      trials.addIncoming(List.of(trials0, trials1), List.of(start, latch));
      saved.addIncoming(List.of(saved0, saved1), List.of(start, latch));
      pending.addIncoming(List.of(pending0, pending1), List.of(start, latch));
      restarted.addIncoming(List.of(restarted0, restarted1), List.of(start, latch));
      // (the probe flag holds while the trial is under way; the next trial's start sets it again)
      if (lossCut) {
        probe.addIncoming(List.of(probe0, probeNow), List.of(start, latch));
        lastLost.addIncoming(List.of(lost0, lastLost1), List.of(start, latch));
      }
      spent.addIncoming(List.of(spent0, spent1), List.of(start, latch));
      if (spread) spreadV.addIncoming(List.of(spread0, spread1), List.of(start, latch));
      if (plainWatch) {
        peakV.addIncoming(List.of(peak0, peak1), List.of(start, latch));
        alarmsV.addIncoming(List.of(alarms0, alarms1), List.of(start, latch));
        lastV.addIncoming(List.of(last0, last1), List.of(start, latch));
      }
      if (spacing) {
        watchV.addIncoming(List.of(watch0, watch1), List.of(start, latch));
        wrunV.addIncoming(List.of(wrun0, wrun1), List.of(start, latch));
      }

      b.atEnd(done);
      b.relaxed(b.store(b.or(b.or(b.or(pos1, b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, pending1, i64, ""), b.constInt(i64, 2), ""), ""),
          b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, restarted1, i64, ""), b.constInt(i64, 3), ""), ""),
          b.or(lossCut ? b.or(b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, probeNow, i64, ""), b.constInt(i64, POS_PROBE_BIT), ""),
              b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, lastLost1, i64, ""), b.constInt(i64, POS_LOST_BIT), ""), "") : b.constInt(i64, 0),
              b.binop(Opcode.SHL, weight1, b.constInt(i64, 8), ""), ""), ""), field[STATE_POS], 8));
      b.relaxed(b.store(left1, field[STATE_LEFT], 8));
      b.relaxed(b.store(level1, field[STATE_LEVEL], 8));
      b.relaxed(b.store(b.cast(Opcode.ZEXT, choice1, i64, ""), field[STATE_CHOICE], 8));
      b.relaxed(b.store(pCyc1, field[STATE_PLAIN_CYCLES], 8));
      b.relaxed(b.store(rCyc1, field[STATE_REFILL_CYCLES], 8));
      b.relaxed(b.store(trials1, field[STATE_TRIALS], 8));
      b.relaxed(b.store(saved1, field[STATE_SAVED_LEVEL], 8));
      b.relaxed(b.store(spent1, field[STATE_TRIAL_REFILL], 8));
      if (spread) b.relaxed(b.store(spread1, field[STATE_SPREAD], 8));
      if (plainWatch) {
        b.relaxed(b.store(peak1, field[STATE_PLAIN_PEAK], 8));
        b.relaxed(b.store(alarms1, field[STATE_PLAIN_ALARMS], 8));
        b.relaxed(b.store(last1, field[STATE_PLAIN_LAST], 8));
      }
      if (spacing) {
        b.relaxed(b.store(watch1, field[STATE_WATCH], 8));
        b.relaxed(b.store(wrun1, field[STATE_WATCH_RUN], 8));
      }
      b.br(exit);
      b.atEnd(exit);
      b.retVoid();
    }
  }

  private static void emitAdaptiveTimed(LlvmModule module, Function driver, Function plain, Function refill, List<ParamKind> kinds,
      List<Type> types, Type rt, Type sizeT, int w) {
    LlvmContext ctx = module.context();
    Type i64 = ctx.i64();
    Value n = driver.param(driver.paramCount() - 1);
    Function clock = module.intrinsic("llvm.readcyclecounter");
    try (IrBuilder b = new IrBuilder(ctx)) {
      Block entry = driver.appendBlock("entry");
      Block loop = driver.appendBlock("chunk");
      Block exit = driver.appendBlock("exit");
      b.atEnd(entry);
      b.condBr(b.icmpEq(n, b.constInt(sizeT, 0), "empty"), exit, loop);
      b.atEnd(loop);
      Value i = b.phi(sizeT, "i");
      Value pos = b.phi(ctx.i32(), "epoch.pos");
      Value pCyc = b.phi(i64, "plain.cycles");
      Value pCnt = b.phi(i64, "plain.elements");
      Value rCyc = b.phi(i64, "refill.cycles");
      Value rCnt = b.phi(i64, "refill.elements");
      Value choice = b.phi(ctx.i1(), "refill.cheaper");
      Value rest = b.sub(n, i, "rest");
      // positions 0, 1, 2: the measured chunks (plain, refill, plain); 3: the rest of the epoch, one call
      Value run = b.icmpEq(pos, b.i32(3), "run.rest");
      Value first = b.icmpEq(pos, b.i32(0), "measure.plain");
      Value second = b.icmpEq(pos, b.i32(1), "measure.refill");
      Value third = b.icmpEq(pos, b.i32(2), "measure.plain2");
      int epoch = adaptiveEpoch();
      int plainP = adaptivePlain();
      int refillP = adaptiveRefill();
      Value size = b.select(run, b.constInt(sizeT, ((long) epoch - 2L * plainP - refillP) * w),
          b.select(second, b.constInt(sizeT, (long) refillP * w), b.constInt(sizeT, (long) plainP * w), ""), "");
      Value chunk = b.min(rest, size, true, "chunk.n");
      Value plainMeasured = b.or(first, third, "measure.plain.any");
      Value useRefill = b.or(second, b.and(run, choice, ""), "use.refill");
      List<Value> args = chunkArgs(b, ctx, driver, kinds, types, rt, sizeT, i, chunk);
      Block callPlain = driver.appendBlock("plain");
      Block callRefill = driver.appendBlock("refill");
      Block after = driver.appendBlock("measured");
      Value dt = timedCall(b, clock, useRefill, plain, refill, args, callPlain, callRefill, after);
      Value cnt = sizeT.intWidth() == 64 ? chunk : b.cast(Opcode.ZEXT, chunk, i64, "");
      Sums sums1 = Sums.next(b, ctx, first, second, plainMeasured, pCyc, pCnt, rCyc, rCnt, dt, cnt);
      Value pCyc1 = sums1.pCyc(), pCnt1 = sums1.pCnt(), rCyc1 = sums1.rCyc(), rCnt1 = sums1.rCnt();
      Value cheaper = sums1.refillCheaper();
      Value choice1 = b.select(third, cheaper, choice, "refill.cheaper.next");
      Value pos2 = b.select(run, b.i32(0), b.add(pos, b.i32(1), ""), "epoch.pos.next");
      Value i1 = b.add(i, chunk, "i.next");
      b.condBr(b.icmpUlt(i1, n, "more"), loop, exit);
      i.addIncoming(List.of(b.constInt(sizeT, 0), i1), List.of(entry, after));
      pos.addIncoming(List.of(b.i32(0), pos2), List.of(entry, after));
      pCyc.addIncoming(List.of(b.constInt(i64, 0), pCyc1), List.of(entry, after));
      pCnt.addIncoming(List.of(b.constInt(i64, 0), pCnt1), List.of(entry, after));
      rCyc.addIncoming(List.of(b.constInt(i64, 0), rCyc1), List.of(entry, after));
      rCnt.addIncoming(List.of(b.constInt(i64, 0), rCnt1), List.of(entry, after));
      choice.addIncoming(List.of(b.i1(false), choice1), List.of(entry, after));
      b.atEnd(exit);
      b.retVoid();
    }
  }

  /** Emits the refill loop. */
  private static final class Emitter {
    private final LlvmModule module;
    private final LlvmContext ctx;
    private final Function driver, pre, iter;
    private final List<ParamKind> kinds;
    private final List<Type> types;
    private final Type rt, sizeT, bitsT, rankT;
    private final RefillSplit.Split split;
    private final int w;
    private final boolean expand;
    /** Whether iter runs on every lane (all-true mask; see {@link RefillSplit#whyNotSpeculatable}). */
    private final boolean unmaskedIter;
    /**
     * Whether elements move between the arrays and the lanes one by one (a scalar loop over the lanes
     * that take or finish an element, through a buffer of W elements on the stack), instead of
     * expanding loads, gathers and scatters: on targets without AVX-512, where LLVM expands the masked
     * gathers and scatters into a test, a branch and a stack round trip for every lane of every array.
     */
    private final boolean scalarMoves;
    /** Lanes that must be free before the iterations stop for a refill round (without blocks). */
    private final int minFree;
    /** The block rule's constant ({@link #BLOCK_SCALE}), 0 for the batch rule ({@link #minFree}). */
    private final int blockScale;
    /**
     * Whether the refill rounds compact: the lanes still in the loop move to the front (each value of
     * their state and their indices, by SVE {@code compact} or AVX-512 {@code vpcompress}), and the
     * free lanes, now the last ones, take the next elements by one masked contiguous load per array —
     * no expand (SVE has none) and no rank vector.
     */
    private final boolean compact;
    /** Compaction by AVX-512 vpcompress instead of SVE compact. */
    private final boolean x86Compress;
    /** AVX-512: compact the state by vpcompress instead of spreading the new elements by vpexpand ({@link #x86CompressRounds}). */
    private final boolean compressRounds = x86CompressRounds();
    /** The result computed at the round for the lanes that left ({@link #resultAtRound}); only with unmasked iterations. */
    private boolean resultAtRound;
    private boolean resultAtRoundWanted;
    /**
     * 32-bit element indices relative to {@link #chunkBase} ({@link RefillDriver#index32}); set in {@link #emit} when
     * asked for and {@code size_t} is wider.
     */
    private boolean index32;
    private boolean index32Wanted = index32();
    /** With {@link #index32}: the first element of the current chunk, and {@code out} advanced to it. */
    private Value chunkBase, outBase;

    Emitter resultAtRound(boolean on) {
      resultAtRoundWanted = on;
      return this;
    }

    /**
     * The slot of the state that carries the result out of the loop ({@link RefillSplit#counterSlot}: the loop's
     * counter, where iter answers whether it advanced it), or -1. With it the hot loop carries no result: the driver
     * advances the counter by {@link RefillSplit.Split#counterStep} in the lanes in the loop whose flag is set, so a lane
     * keeps the counter it left with, and the round reads the results of the lanes that finished from that slot.
     */
    private int counterSlot = -1;
    /** Whether {@link #counterSlot} is in use ({@link #emit}: a result, and the slot). */
    private boolean counterResult;

    Emitter counterResult(int slot) {
      counterSlot = slot;
      return this;
    }

    /**
     * The element type of the lanes' active mask in the hot loop's phis ({@link RefillDriver#wideMask}), or null: an
     * i1 packet. AVX2 has no mask registers: LLVM keeps an i1 packet that crosses the loop's back edge as a packed
     * vector of 16-bit lanes, so every iteration packed the compare's mask and unpacked it again for each blend.
     */
    private Type laneMaskElem;

    Emitter laneMask(Type elem) {
      laneMaskElem = elem;
      return this;
    }
    /** The widest packet one compress handles, in bits (SVE: the vector length; AVX-512: 32·W). */
    private final int compactBits;
    /**
     * The interleave count: independent sets of W lanes, each with its own refill state, one iteration of
     * each per driver step ({@link Interleave}'s rule: hides the loop-carried chain's latency).
     */
    private final int ic;
    /**
     * AVX2 rounds by permutation: the lanes stay where they are; each group of up to 8 lanes loads the next
     * elements of every array by one masked contiguous load and spreads them into its free lanes by a vpermd
     * whose indices (each free lane's rank) come from {@link #RANK_TABLE} at the group's free mask.
     */
    private final boolean permute;
    /**
     * Whether this is the adaptive driver's occupancy probe: the driver has a last {@code ptr} parameter to
     * two {@code i64} counters, the lanes in the loop summed over the iterations and the iterations (driver
     * steps), which the iterations add to.
     */
    private boolean counting;

    Emitter counting() {
      counting = true;
      return this;
    }

    /**
     * Fixed-length RISC-V V compaction: each value by one {@code llvm.experimental.vector.compress} at its own
     * element type (vcompress.vm over the register group; {@link #compactBits} is the group's width).
     */
    private boolean rvv;

    Emitter rvvCompress(boolean on) {
      rvv = on;
      return this;
    }

    /** The stack buffers of the scalar moves: one per varying parameter (by index), the results, their indices. */
    private final java.util.Map<Integer, Value> inBuf = new java.util.HashMap<>();
    private Value outBuf, idxBuf;
    /** What the refill block computed (for the merge after it). */
    private record Refilled(Value idx, List<Value> state, Value result, Value active, Value preDone, Value next) {}

    Emitter(LlvmModule module, Function driver, Function pre, Function iter, List<ParamKind> kinds, List<Type> types, Type rt,
        RefillSplit.Split split, Type sizeT, int w, boolean expand, boolean unmaskedIter, boolean scalarMoves, int minFree,
        boolean compact, int compactBits, int blockScale, int ic, boolean permute) {
      this.module = module;
      this.permute = permute;
      this.ic = ic;
      this.ctx = module.context();
      this.driver = driver;
      this.pre = pre;
      this.iter = iter;
      this.kinds = kinds;
      this.types = types;
      this.rt = rt;
      this.split = split;
      this.sizeT = sizeT;
      this.w = w;
      this.expand = expand;
      this.unmaskedIter = unmaskedIter;
      this.scalarMoves = scalarMoves;
      this.minFree = minFree;
      this.blockScale = blockScale;
      this.compact = compact;
      this.x86Compress = compact && compactBits == 0;
      // x86: only the packet of 32-bit lanes is sure to be legal (a 512-bit one at W8 may not be: prefer-256-bit
      // targets split it, and a compress cannot be split); 64-bit lanes go as two 32-bit halves
      this.compactBits = x86Compress ? 32 * w : compactBits;
      this.bitsT = ctx.intType(w);
      this.rankT = w <= 32 ? ctx.i32() : ctx.i64();
    }

    /** One set of W lanes (one refill state) at a point of the driver: the values of its phis. */
    private record Lanes(Value idx, List<Value> state, Value result, Value active, Value done) {}

    void emit() {
      int ns = split.state().size();
      Type mT = ctx.i1().vectorOf(w);
      index32 = index32Wanted && sizeT.intWidth() > 32;
      Type idxT = idxElem().vectorOf(w);
      Type preRet = pre.returnType();
      List<Type> stateT = new ArrayList<>();
      for (int k = 0; k < ns; k++) stateT.add(preRet.structElements().get(1 + k));
      Type resT = rt.isVoid() ? null : preRet.structElements().get(1 + ns);
      Value nAll = driver.param(driver.paramCount() - (counting ? 2 : 1));
      Value n = nAll;
      resultAtRound = resT != null && unmaskedIter && resultAtRoundWanted;
      counterResult = resT != null && counterSlot >= 0;
      if (counterResult) resultAtRound = false;
      try (IrBuilder b = new IrBuilder(ctx)) {
        Block entry = driver.appendBlock("entry");
        // 32-bit indices: the input in chunks, each run to the end (its lanes drained) before the next starts
        Block chunk = index32 ? driver.appendBlock("chunk") : null;
        Block head = driver.appendBlock("round");
        Block into = index32 ? chunk : entry;
        b.atEnd(entry);
        if (scalarMoves) {
          // (one set of buffers: the sets' rounds run one after the other)
          for (int j = 0; j < kinds.size() && !permute; j++) {
            if (!(kinds.get(j) instanceof ParamKind.Varying)) continue;
            Type vt = storageType(types.get(j)).vectorOf(w);
            Value buf = b.alloca(vt, driver.param(j).name() + ".lanes");
            b.store(b.constNull(vt), buf);
            inBuf.put(j, buf);
          }
          if (resT != null) {
            outBuf = b.alloca(storageType(rt).vectorOf(w), "out.lanes");
            idxBuf = b.alloca(idxT, "idx.lanes");
          }
        }
        Value chunkBlock = null, chunkTotal = null;
        if (index32) {
          b.br(chunk);
          b.atEnd(chunk);
          chunkBase = b.phi(sizeT, "chunk.base");
          chunkBlock = blockScale > 0 ? b.phi(sizeT, "chunk.block") : null;
          chunkTotal = blockScale > 0 ? b.phi(sizeT, "chunk.iterations") : null;
          n = b.add(chunkBase, b.min(b.sub(nAll, chunkBase, "chunk.room"), b.constInt(sizeT, index32Chunk()), true, ""),
              "chunk.end");
          if (resT != null) outBase = b.gep(storageType(rt), driver.param(kinds.size()), List.of(chunkBase), true, "out.chunk.base");
        }
        b.br(head);

        // round: the per-lane state of every set of lanes
        b.atEnd(head);
        List<Lanes> at = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          String sfx = sfx(s);
          Value idx = b.phi(idxT, "idx" + sfx);
          List<Value> st = new ArrayList<>();
          for (int k = 0; k < ns; k++) st.add(b.phi(stateT.get(k), "state" + k + sfx));
          Value res = resT == null ? null : b.phi(resT, "result" + sfx);
          Value active = b.phi(mT, "active" + sfx);
          Value done = b.phi(mT, "done" + sfx);
          at.add(new Lanes(idx, st, res, active, done));
        }
        Value next = b.phi(sizeT, "next");
        // blocks: the length of the block and the driver steps run so far (a step: one iteration of every set)
        Value block = blockScale > 0 ? b.phi(sizeT, "block") : null;
        Value total = blockScale > 0 ? b.phi(sizeT, "iterations") : null;

        // each set in turn: store what is done, refill the free lanes (the sets take the next elements in order)
        List<Lanes> merged = new ArrayList<>();
        Value nextS = next;
        for (int s = 0; s < ic; s++) {
          String sfx = sfx(s);
          Lanes l = at.get(s);
          Block store = driver.appendBlock("store.done" + sfx);
          Block refillCheck = driver.appendBlock("refill.check" + sfx);
          Block refill = driver.appendBlock("refill" + sfx);
          Block runCheck = driver.appendBlock("run.check" + sfx);
          b.condBr(any(b, l.done(), "any.done" + sfx), store, refillCheck);

          b.atEnd(store);
          if (resT != null) {
            if (permute && x86PermuteStores()) storeResultsBranchFree(b, l.idx(), l.result(), l.done());
            else if (scalarMoves) storeResultsOneByOne(b, l.idx(), l.result(), l.done());
            else storeResults(b, l.idx(), l.result(), l.done());
          }
          b.br(refillCheck);

          b.atEnd(refillCheck);
          Value free = b.not(l.active(), "free" + sfx);
          Value canRefill = b.and(any(b, free, "any.free" + sfx), b.icmpUlt(nextS, n, "input.left" + sfx), "can.refill" + sfx);
          b.condBr(canRefill, refill, runCheck);

          // refill: free lanes take the next elements in lane order
          b.atEnd(refill);
          Refilled r = refillLanes(b, l, free, nextS, n);
          Block refillEnd = b.currentBlock();
          b.br(runCheck);

          // run.check: merge
          b.atEnd(runCheck);
          Value idx2 = phi2(b, idxT, l.idx(), refillCheck, r.idx(), refillEnd, "idx.r" + sfx);
          List<Value> st2 = new ArrayList<>();
          for (int k = 0; k < ns; k++) {
            st2.add(phi2(b, stateT.get(k), l.state().get(k), refillCheck, r.state().get(k), refillEnd, "state" + k + ".r" + sfx));
          }
          Value res2 = resT == null ? null : phi2(b, resT, l.result(), refillCheck, r.result(), refillEnd, "result.r" + sfx);
          Value active2 = phi2(b, mT, l.active(), refillCheck, r.active(), refillEnd, "active.r" + sfx);
          Value done2 = phi2(b, mT, b.constNull(mT), refillCheck, r.preDone(), refillEnd, "done.r" + sfx);
          nextS = phi2(b, sizeT, nextS, refillCheck, r.next(), refillEnd, "next.r" + sfx);
          merged.add(new Lanes(idx2, st2, res2, active2, done2));
        }
        Value next3 = nextS;
        Block runCheck = b.currentBlock();
        Block idle = driver.appendBlock("idle");
        Block run = driver.appendBlock("iterate");
        Block exit = driver.appendBlock("exit");
        // leave the iterations when at most this many lanes are busy: IC·(W - minFree) while input remains, else 0
        Value threshold = b.select(b.icmpUlt(next3, n, "input.left3"), b.constInt(sizeT, (long) ic * (w - minFree)),
            b.constInt(sizeT, 0), "threshold");
        // blocks: k follows ⌊√(c·T)⌋, T = IC·W·steps / elements started, one step per round (compared
        // squared, so no division and no square root: (k+1)²·started <= c·IC·W·steps means k is short)
        Value block2 = null;
        if (blockScale > 0) {
          Value started = b.max(next3, b.constInt(sizeT, 1), true, "started");
          Value budget = b.mul(total, b.constInt(sizeT, (long) blockScale * w * ic), "block.budget");
          // with an iteration budget B a step costs up to B iterations: the round's cost over a step's is
          // B times smaller, so c/B (T counts steps, not iterations)
          if (split.budget() > 1) budget = b.binop(Opcode.UDIV, budget, b.constInt(sizeT, split.budget()), "block.budget.steps");
          Value k1 = b.add(block, b.constInt(sizeT, 1), "");
          Value up = b.and(b.icmpUlt(block, b.constInt(sizeT, MAX_BLOCK), ""),
              b.not(b.icmpUlt(budget, b.mul(b.mul(k1, k1, ""), started, ""), ""), ""), "block.up");
          Value down = b.and(b.icmpUlt(b.constInt(sizeT, 1), block, ""),
              b.icmpUlt(budget, b.mul(b.mul(block, block, ""), started, ""), ""), "block.down");
          block2 = b.select(up, k1, b.select(down, b.sub(block, b.constInt(sizeT, 1), ""), block, ""), "block.next");
        }
        // (the active masks entering the hot loop, in its phis' type)
        Type wideT = laneMaskElem == null ? null : laneMaskElem.vectorOf(w);
        List<Value> mergedWide = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          mergedWide.add(wideT == null ? merged.get(s).active() : b.sext(merged.get(s).active(), wideT, "active.r.wide" + sfx(s)));
        }
        b.condBr(any(b, union(b, merged, Lanes::active, "active.r.all"), "any.active"), run, idle);

        // idle: nobody in the loop; store what pre finished, refill again, or stop
        b.atEnd(idle);
        Value more = b.or(b.icmpUlt(next3, n, "input.left2"), any(b, union(b, merged, Lanes::done, "done.r.all"), "any.done2"), "more");
        b.condBr(more, head, exit);

        // iterate: iterations for the lanes in the loop, until enough lanes are free to refill them
        // together (or, once the input is exhausted, until no lane is left). The state of a lane that is
        // not in the loop is dead (it is refilled before it is used again): no blend. Only the lanes in
        // the loop change here, and a lane only ever leaves it, so the hot loop carries just the active
        // mask and the results: the lanes that finished are (active at entry) & ~(active at exit), once,
        // after the loop; the result is taken from iter for every active lane (a lane that stays in the
        // loop gets an unused value, overwritten in the iteration where it finishes). With IC sets, one
        // step runs one iteration of each: independent chains, which the out-of-order core overlaps.
        b.atEnd(run);
        List<List<Value>> srs = new ArrayList<>();
        List<Value> resRs = new ArrayList<>();
        List<Value> activeRs = new ArrayList<>();
        List<Value> activePhis = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          String sfx = sfx(s);
          List<Value> sr = new ArrayList<>();
          for (int k = 0; k < ns; k++) sr.add(b.phi(stateT.get(k), "state" + k + ".it" + sfx));
          srs.add(sr);
          // (the result computed at the round: none in the hot loop; the lanes pre finished keep theirs through it)
          resRs.add(resT == null || resultAtRound || counterResult ? null : b.phi(resT, "result.it" + sfx));
          activePhis.add(b.phi(wideT == null ? mT : wideT, "active.it" + sfx));
        }
        Value count = blockScale > 0 ? b.phi(sizeT, "block.count") : null;
        for (int s = 0; s < ic; s++) {
          Value p = activePhis.get(s);
          activeRs.add(wideT == null ? p : b.icmpSlt(p, b.constNull(wideT), "active.it.mask" + sfx(s)));
        }
        // a lane is always busy here: with one set this lets the clean-up drop iter's own "any lane
        // active" test, so that codegen hoists its invariants out of the loop (with several sets only the
        // union is known to be busy; an unmasked iter has no such test)
        Value activeAll = ic == 1 ? activeRs.get(0) : null;
        if (ic > 1) {
          activeAll = activeRs.get(0);
          for (int s = 1; s < ic; s++) activeAll = b.or(activeAll, activeRs.get(s), "");
        }
        b.call(module.intrinsic("llvm.assume"), List.of(any(b, activeAll, "busy.any")), "");
        if (counting) {
          // the occupancy probe: lanes in the loop at this iteration, and one more iteration
          Value counts = driver.param(driver.paramCount() - 1);
          Type i64 = ctx.i64();
          Value lanes = null;
          for (Value a : activeRs) {
            Value c = b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(b.cast(Opcode.BITCAST, a, bitsT, "")), "lanes.busy");
            Value c64 = w == 64 ? c : b.cast(w < 64 ? Opcode.ZEXT : Opcode.TRUNC, c, i64, "");
            lanes = lanes == null ? c64 : b.add(lanes, c64, "lanes.busy.all");
          }
          Value stepsP = b.gep(i64, counts, List.of(b.constInt(i64, 1)), true, "probe.steps");
          b.store(b.add(b.load(i64, counts, 8, "probe.lanes.old"), lanes, "probe.lanes.new"), counts, 8);
          b.store(b.add(b.load(i64, stepsP, 8, "probe.steps.old"), b.constInt(i64, 1), "probe.steps.new"), stepsP, 8);
        }
        List<Lanes> after = new ArrayList<>();
        List<Value> afterWide = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          String sfx = sfx(s);
          Value activeR = activeRs.get(s);
          List<Value> iargs = new ArrayList<>();
          List<Type> iterParams = iter.functionType().paramTypes();
          for (int k = 0; k < ns; k++) iargs.add(convert(b, srs.get(s).get(k), iterParams.get(k)));
          for (int i = 0; i < split.uniformArgs().size(); i++) iargs.add(driver.param(split.uniformArgs().get(i)));
          iargs.add(maskArg(b, iter, unmaskedIter ? b.allOnes(mT) : activeR));
          Value ir = b.call(iter, iargs, "iter" + sfx);
          ir.setInstructionCallConv(iter.callingConvention());
          Value iterAt = toMask(b, b.extractValue(ir, 0, "iter.at" + sfx));
          List<Value> st3 = new ArrayList<>();
          for (int k = 0; k < ns; k++) st3.add(convert(b, b.extractValue(ir, 1 + k, "state" + k + ".next" + sfx), stateT.get(k)));
          Value res3 = resT == null ? null : resultAtRound || counterResult ? merged.get(s).result()
              : b.select(activeR, convert(b, b.extractValue(ir, 1 + ns, ""), resT), resRs.get(s), "result.next" + sfx);
          // (a select, not an and: an unmasked iter's answer for a lane that is not in the loop may be poison)
          Value active3;
          if (wideT == null) {
            active3 = b.select(activeR, iterAt, b.constNull(mT), "active.next" + sfx);
          } else {
            // the wide mask kept where iter stays in the loop (frozen: an unmasked iter's answer for a lane not in the
            // loop may be poison; that lane's wide mask is 0 either way). Not a sext of the i1 answer: the clean-up
            // would fold a phi of sexts back into an i1 phi
            Value w3 = b.select(b.freeze(iterAt, "iter.at.fr" + sfx), activePhis.get(s), b.constNull(wideT), "active.next.wide" + sfx);
            afterWide.add(w3);
            active3 = b.icmpSlt(w3, b.constNull(wideT), "active.next" + sfx);
          }
          if (counterResult) {
            // the counter, kept here: iter's answer in its slot is all ones where it advanced the counter, 0 where
            // not; only the lanes that were in the loop advance (iter's answer for the others may be poison: frozen,
            // then masked), so a lane that left holds the counter it left with, which is its result
            int k = counterSlot;
            Value c = srs.get(s).get(k);
            Type ct = c.type();
            Value flag = b.freeze(st3.get(k), "counter.flag" + sfx);
            Value in = wideT != null && wideT.equals(ct) ? activePhis.get(s) : b.sext(activeR, ct, "active.it.int" + sfx);
            Value adv = b.and(flag, in, "counter.adv" + sfx);
            long step = split.counterStep();
            st3.set(k, step == 1 ? b.sub(c, adv, "state" + k + ".counter" + sfx)
                : step == -1 ? b.add(c, adv, "state" + k + ".counter" + sfx)
                : b.add(c, b.and(adv, b.splat(b.constInt(ct.scalarType(), step), w, ""), ""), "state" + k + ".counter" + sfx));
          }
          if (resultAtRound) {
            // a lane that leaves keeps the state it left with (the start of this iteration): the round runs
            // iter once more on it for the result
            for (int k = 0; k < ns; k++) st3.set(k, b.select(active3, st3.get(k), srs.get(s).get(k), "state" + k + ".kept" + sfx));
          }
          after.add(new Lanes(null, st3, res3, active3, null));
        }
        Value keep;
        Value count1 = null;
        if (blockScale > 0) {
          // a counted block: k steps (no lane left: sooner; input exhausted: until no lane is left)
          count1 = b.add(count, b.constInt(sizeT, 1), "block.count.next");
          Value inBlock = b.or(b.icmpUlt(count1, block2, ""), b.not(b.icmpUlt(next3, n, ""), "drain"), "in.block");
          keep = b.and(any(b, union(b, after, Lanes::active, "active.next.all"), "still.busy"), inBlock, "keep.iterating");
        } else {
          Value busy = null;
          for (Lanes l : after) {
            Value c = b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(b.cast(Opcode.BITCAST, l.active(), bitsT, "")), "busy");
            Value cs = w == sizeT.intWidth() ? c : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, c, sizeT, "");
            busy = busy == null ? cs : b.add(busy, cs, "busy.all");
          }
          keep = b.icmpUlt(threshold, busy, "keep.iterating");
        }
        if (wideT == null) for (Lanes a : after) afterWide.add(a.active());
        Block runExit = driver.appendBlock("iterate.exit");
        b.condBr(keep, run, runExit);
        if (count != null) count.addIncoming(List.of(b.constInt(sizeT, 0), count1), List.of(runCheck, run));
        for (int s = 0; s < ic; s++) {
          Lanes m = merged.get(s);
          Lanes a = after.get(s);
          for (int k = 0; k < ns; k++) srs.get(s).get(k).addIncoming(List.of(m.state().get(k), a.state().get(k)), List.of(runCheck, run));
          if (resRs.get(s) != null) resRs.get(s).addIncoming(List.of(m.result(), a.result()), List.of(runCheck, run));
          activePhis.get(s).addIncoming(List.of(mergedWide.get(s), afterWide.get(s)), List.of(runCheck, run));
        }
        b.atEnd(runExit);
        // (with wide masks, the lanes still in the loop from the wide value that left it)
        List<Value> activeOut = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          activeOut.add(wideT == null ? after.get(s).active()
              : b.icmpSlt(afterWide.get(s), b.constNull(wideT), "active.out" + sfx(s)));
        }
        List<Value> done3 = new ArrayList<>();
        List<Value> res4 = new ArrayList<>();
        for (int s = 0; s < ic; s++) {
          Lanes m = merged.get(s);
          Lanes a = after.get(s);
          Value finished = b.and(m.active(), b.not(activeOut.get(s), ""), "finished" + sfx(s));
          done3.add(b.or(m.done(), finished, "done.next" + sfx(s)));
          if (resultAtRound) {
            // the result of the lanes that left in the block: iter once more on the state each kept (the start of
            // the iteration it left in; pure, so running it again is the same iteration), the code after the loop
            // included; the lanes pre finished keep theirs
            List<Value> iargs = new ArrayList<>();
            List<Type> iterParams = iter.functionType().paramTypes();
            for (int k = 0; k < ns; k++) iargs.add(convert(b, a.state().get(k), iterParams.get(k)));
            for (int i = 0; i < split.uniformArgs().size(); i++) iargs.add(driver.param(split.uniformArgs().get(i)));
            iargs.add(maskArg(b, iter, b.allOnes(mT)));
            Value ir = b.call(iter, iargs, "iter.left" + sfx(s));
            ir.setInstructionCallConv(iter.callingConvention());
            res4.add(b.select(finished, convert(b, b.extractValue(ir, 1 + ns, ""), resT), m.result(), "result.left" + sfx(s)));
          } else if (counterResult) {
            // the lanes that left in the block carry their result in the counter's slot; the lanes pre finished keep theirs
            res4.add(b.select(finished, fromCounter(b, a.state().get(counterSlot), resT), m.result(), "result.counter" + sfx(s)));
          } else {
            res4.add(a.result());
          }
        }
        Value total3 = total == null ? null : b.add(total, count1, "iterations.next");
        b.br(head);

        b.atEnd(exit);
        if (index32) {
          // the chunk is done (no lane busy, nothing left to store): the next one, or return
          Block ret = driver.appendBlock("return");
          b.condBr(b.icmpUlt(n, nAll, "chunk.more"), chunk, ret);
          chunkBase.addIncoming(List.of(b.constInt(sizeT, 0), n), List.of(entry, exit));
          if (chunkBlock != null) {
            chunkBlock.addIncoming(List.of(b.constInt(sizeT, 1), block2), List.of(entry, exit));
            chunkTotal.addIncoming(List.of(b.constInt(sizeT, 0), total), List.of(entry, exit));
          }
          b.atEnd(ret);
        }
        b.retVoid();

        // the round's phis
        for (int s = 0; s < ic; s++) {
          Lanes l = at.get(s);
          Lanes m = merged.get(s);
          Lanes a = after.get(s);
          l.idx().addIncoming(List.of(b.constNull(idxT), m.idx(), m.idx()), List.of(into, idle, runExit));
          for (int k = 0; k < ns; k++) {
            l.state().get(k).addIncoming(List.of(b.poison(stateT.get(k)), m.state().get(k), a.state().get(k)),
                List.of(into, idle, runExit));
          }
          if (resT != null) l.result().addIncoming(List.of(b.poison(resT), m.result(), res4.get(s)), List.of(into, idle, runExit));
          l.active().addIncoming(List.of(b.constNull(mT), m.active(), activeOut.get(s)), List.of(into, idle, runExit));
          l.done().addIncoming(List.of(b.constNull(mT), m.done(), done3.get(s)), List.of(into, idle, runExit));
        }
        next.addIncoming(List.of(index32 ? chunkBase : b.constInt(sizeT, 0), next3, next3), List.of(into, idle, runExit));
        if (block != null) {
          block.addIncoming(List.of(index32 ? chunkBlock : b.constInt(sizeT, 1), block2, block2), List.of(into, idle, runExit));
          total.addIncoming(List.of(index32 ? chunkTotal : b.constInt(sizeT, 0), total, total3), List.of(into, idle, runExit));
        }
      }
    }

    /** The element type of the lanes' indices: {@code size_t}, or i32 with {@link #index32}. */
    private Type idxElem() { return index32 ? ctx.i32() : sizeT; }

    /**
     * With {@link #index32}: the 32-bit indices of elements {@code start} + {@code offsets32} (i32 lanes), as offsets
     * from the chunk's start (start - chunk base is below the chunk's length; a lane that takes no element may hold
     * any value, the others are below the chunk's length).
     */
    private Value relIdx(IrBuilder b, Value start, Value offsets32) {
      Value rel = b.cast(Opcode.TRUNC, b.sub(start, chunkBase, ""), ctx.i32(), "start.rel");
      return b.add(b.splat(rel, w, "start.rel.splat"), offsets32, "new.idx32");
    }

    /** The constant vector 0, 1, ..., W-1 of i32. */
    private Value lanes32(IrBuilder b) {
      List<Value> c = new ArrayList<>();
      for (int i = 0; i < w; i++) c.add(b.constInt(ctx.i32(), i));
      return b.constVector(c);
    }

    /** Where the results go: {@code out}, or with {@link #index32} {@code out} advanced to the chunk's start. */
    private Value outPtr() { return index32 ? outBase : driver.param(kinds.size()); }

    /** The name suffix of set s (none with one set). */
    private String sfx(int s) { return ic == 1 ? "" : "." + s; }

    private Value union(IrBuilder b, List<Lanes> sets, java.util.function.Function<Lanes, Value> f, String name) {
      Value u = f.apply(sets.get(0));
      for (int s = 1; s < sets.size(); s++) u = b.or(u, f.apply(sets.get(s)), name);
      return u;
    }

    /**
     * The refill of one set of lanes: the free lanes take the next elements from {@code next} on (the
     * builder is in a block where some lane is free and input remains; it may add blocks).
     */
    private Refilled refillLanes(IrBuilder b, Lanes l, Value free, Value next, Value n) {
      Type idxT = sizeT.vectorOf(w);
      int ns = l.state().size();
      Value active = l.active();
      if (compact && x86Compress && !compressRounds) {
        // AVX-512: the lanes stay where they are; the next W elements come by one masked contiguous load per
        // array (the lanes below the input's end: independent of which lanes are free, so it issues early) and
        // a register vpexpand spreads them into the free lanes in order (rank: the same expand of 0, 1, ..., W-1)
        Value left = b.sub(n, next, "left");
        List<Value> lanes32 = new ArrayList<>();
        for (int i = 0; i < w; i++) lanes32.add(b.constInt(ctx.i32(), i));
        Value iota32 = b.constVector(lanes32);
        Value rank32 = regExpand(b, iota32, free, "rank32");
        Value rank = b.cast(Opcode.ZEXT, rank32, sizeT.vectorOf(w), "rank");
        Value inInput, takeL;
        if (index32) {
          // the lanes below the input's end compared in 32 bits: min(left, W) fits
          Value leftW = b.cast(Opcode.TRUNC, b.min(left, b.constInt(sizeT, w), true, ""), ctx.i32(), "left.w");
          Value leftS = b.splat(leftW, w, "left.splat");
          inInput = b.icmpUlt(iota32, leftS, "in.input");
          takeL = b.and(free, b.icmpUlt(rank32, leftS, ""), "take");
        } else {
          List<Value> lanesC = new ArrayList<>();
          for (int i = 0; i < w; i++) lanesC.add(b.constInt(sizeT, i));
          inInput = b.icmpUlt(b.constVector(lanesC), b.splat(left, w, "left.splat"), "in.input");
          takeL = b.and(free, b.icmpUlt(rank, b.splat(left, w, ""), ""), "take");
        }
        Value newIdx = b.add(b.splat(next, w, "next.splat"), rank, "new.idx");
        // (32-bit indices: the chunk offset of next plus the 32-bit rank, no 64-bit lanes)
        Value newRel = !index32 ? newIdx : relIdx(b, next, rank32);
        Value count = b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(b.cast(Opcode.BITCAST, free, bitsT, "")), "free.count");
        Value countS = w == sizeT.intWidth() ? count
            : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, count, sizeT, "free.count.size");
        Value next2 = b.add(next, b.min(countS, left, true, "taken"), "next.after");
        List<Value> inputs = new ArrayList<>();
        for (int j = 0; j < kinds.size(); j++) {
          if (kinds.get(j) instanceof ParamKind.Varying) {
            Value v = spanLoad(b, j, next, inInput);
            inputs.add(regExpand(b, v, free, driver.param(j).name() + ".in"));
          } else {
            inputs.add(argPacket(b, j, newIdx, next, takeL));
          }
        }
        return enterPre(b, inputs, takeL, newRel, l.state(), l.idx(), l.result(), active, next2);
      }
      if (compact) {
        // compaction: the lanes in the loop move to the front, the next elements follow them
        Value nAct = b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(b.cast(Opcode.BITCAST, active, bitsT, "")), "in.loop");
        Value nActS = w == sizeT.intWidth() ? nAct : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, nAct, sizeT, "in.loop.size");
        List<Value> lanesC = new ArrayList<>();
        for (int i = 0; i < w; i++) lanesC.add(b.constInt(sizeT, i));
        Value iota = b.constVector(lanesC);
        Value left = b.sub(n, next, "left");
        Value taken = b.min(b.sub(b.constInt(sizeT, w), nActS, "free.count"), left, true, "taken");
        // (32-bit indices: the lane compares in 32 bits too; the lanes in the loop and those taken are at most W)
        Value front = index32 ? b.icmpUlt(lanes32(b), b.splat(b.cast(Opcode.TRUNC, nActS, ctx.i32(), ""), w, "in.loop.splat"), "front")
            : b.icmpUlt(iota, b.splat(nActS, w, "in.loop.splat"), "front");
        Value takeL = b.and(b.not(front, ""), index32
            ? b.icmpUlt(lanes32(b), b.splat(b.cast(Opcode.TRUNC, b.add(nActS, taken, ""), ctx.i32(), ""), w, ""), "")
            : b.icmpUlt(iota, b.splat(b.add(nActS, taken, ""), w, ""), ""), "take");
        Value base = b.sub(next, nActS, "base");
        Value newIdx = b.add(b.splat(base, w, "base.splat"), iota, "new.idx");
        Value next2 = b.add(next, taken, "next.after");
        List<Value> stC = new ArrayList<>();
        for (int k = 0; k < ns; k++) stC.add(compress(b, l.state().get(k), active, "state" + k + ".front"));
        Value idxC = compress(b, l.idx(), active, "idx.front");
        List<Value> inputs = new ArrayList<>();
        for (int j = 0; j < kinds.size(); j++)
          inputs.add(kinds.get(j) instanceof ParamKind.Varying ? spanLoad(b, j, base, takeL) : argPacket(b, j, newIdx, next, takeL));
        return enterPre(b, inputs, takeL, index32 ? relIdx(b, base, lanes32(b)) : newIdx, stC, idxC, l.result(), front, next2);
      }
      if (permute) return permuteRefill(b, l, free, next, n);
      Value freeBits = b.cast(Opcode.BITCAST, free, bitsT, "free.bits");
      Value freeWide = w == rankT.intWidth() ? freeBits : b.cast(Opcode.ZEXT, freeBits, rankT, "");
      List<Value> below = new ArrayList<>();
      for (int i = 0; i < w; i++) below.add(b.constInt(rankT, i == 64 ? -1 : (1L << i) - 1));
      Value masked = b.and(b.splat(freeWide, w, "free.splat"), b.constVector(below), "free.below");
      Value rank = b.call(module.intrinsic("llvm.ctpop", rankT.vectorOf(w)), List.of(masked), "rank");
      Value rankS = rankT.intWidth() == sizeT.intWidth() ? rank
          : b.cast(rankT.intWidth() < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, rank, idxT, "rank.size");
      Value left = b.sub(n, next, "left");
      Value takeL = b.and(free, b.icmpUlt(rankS, b.splat(left, w, "left.splat"), "in.input"), "take");
      Value newIdx = b.add(b.splat(next, w, "next.splat"), rankS, "new.idx");
      Value count = b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(freeBits), "free.count");
      Value countS = w == sizeT.intWidth() ? count
          : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, count, sizeT, "free.count.size");
      Value next2 = b.add(next, b.min(countS, left, true, "taken"), "next.after");
      if (scalarMoves) loadInputsOneByOne(b, takeL, next);
      List<Value> inputs = new ArrayList<>();
      for (int j = 0; j < kinds.size(); j++) inputs.add(argPacket(b, j, newIdx, next, takeL));
      Value newRel = !index32 ? newIdx
          : relIdx(b, next, rankT.intWidth() == 32 ? rank : b.cast(Opcode.TRUNC, rank, ctx.i32().vectorOf(w), ""));
      return enterPre(b, inputs, takeL, newRel, l.state(), l.idx(), l.result(), active, next2);
    }

    /**
     * The AVX2 round by permutation. The lanes are cut into groups of G = min(W, 8). Group g's free mask m_g
     * indexes {@link #RANK_TABLE}: one load gives the rank of each of its lanes among its free lanes, and the
     * group takes elements from next + off_g on (off_g: the free lanes of the groups before it). Each varying
     * array is read by one masked contiguous load of G elements at &amp;a[next + off_g] (the lanes below the
     * input's end; AVX2 vmaskmov does not touch the masked-off elements), and a vpermd by the ranks moves
     * loaded element r to the free lane of rank r (64-bit values as their two 32-bit halves).
     */
    private Refilled permuteRefill(IrBuilder b, Lanes l, Value free, Value next, Value n) {
      int g = Math.min(w, 8);
      int groups = w / g;
      Type i32 = ctx.i32();
      Type i64 = ctx.i64();
      Value table = module.i32Table(RANK_TABLE, rankTable(), 32);
      Value freeBits = b.cast(Opcode.BITCAST, free, bitsT, "free.bits");
      Value left = b.sub(n, next, "left");
      List<Value> ranks8 = new ArrayList<>();
      List<Value> offs = new ArrayList<>();
      List<Value> rankParts = new ArrayList<>();
      for (int k = 0; k < groups; k++) {
        Value off;
        if (k == 0) off = b.constInt(sizeT, 0);
        else {
          Value below = b.and(freeBits, b.constInt(bitsT, k * g >= 64 ? -1 : (1L << (k * g)) - 1), "");
          off = toSize(b, b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(below), ""), "off" + k);
        }
        Value m = k == 0 ? freeBits : b.binop(Opcode.LSHR, freeBits, b.constInt(bitsT, (long) k * g), "");
        if (w > g) m = b.and(m, b.constInt(bitsT, (1L << g) - 1), "");
        Value mi = w == 64 ? m : b.cast(Opcode.ZEXT, m, i64, "");
        Value at = b.gep(i32, table, List.of(b.mul(mi, b.constInt(i64, 8), "")), true, "rank.row" + k);
        Value r8 = b.load(i32.vectorOf(8), at, 32, "rank8." + k);
        ranks8.add(r8);
        offs.add(off);
        Value rg = g == 8 ? r8 : b.shuffle(r8, b.poison(i32.vectorOf(8)), b.laneIndices(i32, g), "");
        rankParts.add(k == 0 ? rg : b.add(rg, b.splat(b.cast(Opcode.TRUNC, off, i32, ""), g, ""), ""));
      }
      Value rank32 = concat(b, rankParts);
      Value rank = b.cast(Opcode.ZEXT, rank32, sizeT.vectorOf(w), "rank");
      Value takeL = b.and(free, b.icmpUlt(rank, b.splat(left, w, "left.splat"), "in.input"), "take");
      Value newIdx = b.add(b.splat(next, w, "next.splat"), rank, "new.idx");
      Value count = toSize(b, b.call(module.intrinsic("llvm.ctpop", bitsT), List.of(freeBits), "free.count"), "free.count.size");
      Value next2 = b.add(next, b.min(count, left, true, "taken"), "next.after");
      // lanes of group k below the input's end: min(left - off_k, G) of them (0 when off_k >= left)
      List<Value> loadMasks = new ArrayList<>();
      for (int k = 0; k < groups; k++) {
        Value off = offs.get(k);
        Value rem = b.select(b.icmpUlt(off, left, ""), b.sub(left, off, ""), b.constInt(sizeT, 0), "");
        Value lim = b.cast(Opcode.TRUNC, b.min(rem, b.constInt(sizeT, g), true, ""), i32, "group.left" + k);
        loadMasks.add(b.icmpUlt(b.laneIndices(i32, g), b.splat(lim, g, ""), "group.in" + k));
      }
      List<Value> inputs = new ArrayList<>();
      for (int j = 0; j < kinds.size(); j++) {
        if (!(kinds.get(j) instanceof ParamKind.Varying)) {
          inputs.add(argPacket(b, j, newIdx, next, takeL));
          continue;
        }
        Value p = driver.param(j);
        Type t = types.get(j);
        Type lt = t.isPointer() ? i64 : t;
        List<Value> parts = new ArrayList<>();
        for (int k = 0; k < groups; k++) {
          Value base = k == 0 ? next : b.add(next, offs.get(k), "");
          // not inbounds: past the input's end when the group takes nothing (the load is then fully masked)
          Value at = b.gep(lt, p, List.of(base), false, p.name() + ".group" + k);
          Type gt = lt.vectorOf(g);
          Value v = b.call(module.intrinsic("llvm.masked.load", gt, ctx.ptrType()),
              List.of(at, b.i32(align(t)), loadMasks.get(k), b.poison(gt)), p.name() + ".loaded" + k);
          parts.add(permuteGroup(b, v, ranks8.get(k), g));
        }
        Value all = concat(b, parts);
        inputs.add(t.isPointer() ? b.cast(Opcode.INTTOPTR, all, t.vectorOf(w), p.name() + ".in") : all);
      }
      return enterPre(b, inputs, takeL, index32 ? relIdx(b, next, rank32) : newIdx, l.state(), l.idx(), l.result(), l.active(),
          next2);
    }

    /** Lane l of the result: lane idx8[l] of v (G lanes of 32 or 64 bits), by vpermd/vpermps (64-bit: by halves). */
    private Value permuteGroup(IrBuilder b, Value v, Value idx8, int g) {
      Type t = v.type().scalarType();
      if (t.isDouble() || t.isInteger(64)) {
        Type i64v = ctx.i64().vectorOf(g);
        Type i32v = ctx.i32().vectorOf(g);
        Value x = t.isDouble() ? b.cast(Opcode.BITCAST, v, i64v, "") : v;
        Value sh = b.splat(b.constInt(ctx.i64(), 32), g, "");
        Value lo = permuteGroup(b, b.cast(Opcode.TRUNC, x, i32v, ""), idx8, g);
        Value hi = permuteGroup(b, b.cast(Opcode.TRUNC, b.binop(Opcode.LSHR, x, sh, ""), i32v, ""), idx8, g);
        Value r = b.binop(Opcode.OR, b.cast(Opcode.ZEXT, lo, i64v, ""), b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, hi, i64v, ""), sh, ""), "");
        return t.isDouble() ? b.cast(Opcode.BITCAST, r, v.type(), "") : r;
      }
      Type e = t.isFloat() ? ctx.floatType() : ctx.i32();
      Type v8 = e.vectorOf(8);
      Value x = g == 8 ? v : b.shuffle(v, b.poison(v.type()), b.constVector(java.util.stream.IntStream.range(0, 8)
          .mapToObj(i -> b.i32(i % g)).toList()), "");
      Value r = b.call(module.intrinsic(t.isFloat() ? "llvm.x86.avx2.permps" : "llvm.x86.avx2.permd"), List.of(x, idx8), "");
      return g == 8 ? r : b.shuffle(r, b.poison(v8), b.laneIndices(ctx.i32(), g), "");
    }

    /** The vectors of {@code parts} (equal types) one after the other. */
    private Value concat(IrBuilder b, List<Value> parts) {
      List<Value> cur = parts;
      while (cur.size() > 1) {
        List<Value> nx = new ArrayList<>();
        for (int i = 0; i < cur.size(); i += 2) {
          int len = cur.get(i).type().vectorSize();
          nx.add(b.shuffle(cur.get(i), cur.get(i + 1), b.laneIndices(ctx.i32(), 2 * len), ""));
        }
        cur = nx;
      }
      return cur.get(0);
    }

    private Value toSize(IrBuilder b, Value v, String name) {
      return w == sizeT.intWidth() ? v : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, v, sizeT, name);
    }

    /**
     * The lanes {@code take} start their new elements: the code before the loop runs for them
     * ({@code pre}, on the new inputs), those it sends into the loop join the lanes still in it
     * ({@code stillIn}), those it finishes at once have their result; the other lanes keep their state,
     * index and result ({@code newIdx}: the taking lanes' indices, of {@link #idxElem}).
     */
    private Refilled enterPre(IrBuilder b, List<Value> inputs, Value take, Value newIdx, List<Value> state, Value idx,
        Value res, Value stillIn, Value next) {
      List<Value> args = new ArrayList<>();
      List<Type> preParams = pre.functionType().paramTypes();
      for (int j = 0; j < inputs.size(); j++) args.add(convert(b, inputs.get(j), preParams.get(j)));
      args.add(maskArg(b, pre, take));
      Value pr = b.call(pre, args, "pre");
      pr.setInstructionCallConv(pre.callingConvention());
      Value preAt = toMask(b, b.extractValue(pr, 0, "pre.at"));
      Value enter = b.and(take, preAt, "enter");
      Value preDone = b.and(take, b.not(preAt, ""), "pre.done");
      int ns = state.size();
      List<Value> st1 = new ArrayList<>();
      for (int k = 0; k < ns; k++) st1.add(b.select(take, b.extractValue(pr, 1 + k, ""), state.get(k), "state" + k + ".in"));
      Value idx1 = b.select(take, newIdx, idx, "idx.in");
      Value res1 = res == null ? null : b.select(preDone, b.extractValue(pr, 1 + ns, ""), res, "result.pre");
      Value active1 = b.or(stillIn, enter, "active.in");
      return new Refilled(idx1, st1, res1, active1, preDone, next);
    }

    private Value phi2(IrBuilder b, Type t, Value a, Block ab, Value c, Block cb, String name) {
      Value p = b.phi(t, name);
      p.addIncoming(List.of(a, c), List.of(ab, cb));
      return p;
    }

    private Value any(IrBuilder b, Value mask, String name) {
      return b.icmpNe(b.cast(Opcode.BITCAST, mask, bitsT, name + ".bits"), b.constInt(bitsT, 0), name);
    }

    /** The mask argument in the packet function's mask type. */
    private Value maskArg(IrBuilder b, Function f, Value mask) {
      Type mt = f.functionType().paramTypes().getLast();
      return mt.scalarType().isInteger(1) ? mask : b.sext(mask, mt, "mask.int");
    }

    private Value toMask(IrBuilder b, Value v) {
      return v.type().scalarType().isInteger(1) ? v : b.icmpNe(v, b.constNull(v.type()), "");
    }

    /** {@code v} in type {@code t} (the packet functions may keep i1 packets as integer vectors). */
    private Value convert(IrBuilder b, Value v, Type t) {
      Type from = v.type();
      if (from.equals(t)) return v;
      if (from.isVector() && t.isVector() && from.scalarType().isInteger() && t.scalarType().isInteger()) {
        if (t.scalarType().isInteger(1)) return b.icmpNe(v, b.constNull(from), "");
        if (from.scalarType().isInteger(1)) return b.sext(v, t, "");
        return b.cast(from.scalarType().intWidth() < t.scalarType().intWidth() ? Opcode.SEXT : Opcode.TRUNC, v, t, "");
      }
      throw new IllegalStateException("refill: cannot pass " + from + " as " + t);
    }

    /**
     * The lanes' results from their counters ({@code counter}, a packet of the counter's type): the steps from the
     * counter to the result ({@link RefillSplit.Split#counterSteps}: casts, and operations with a constant or a uniform
     * argument, splat), in order; none: the counter itself; then in {@code resT}, the result's packet type.
     */
    private Value fromCounter(IrBuilder b, Value counter, Type resT) {
      List<RefillSplit.ResultStep> steps = split.counterSteps();
      if (steps.isEmpty()) return convert(b, counter, resT);
      Value v = counter;
      for (RefillSplit.ResultStep st : steps) {
        Type t = st.type().vectorOf(w);
        if (st.constant() == null && st.uniform() < 0) {
          v = b.cast(st.op(), v, t, "result.cast");
          continue;
        }
        Value o = b.splat(st.constant() != null ? st.constant() : driver.param(st.uniform()), w, "");
        v = st.valueFirst() ? b.binop(st.op(), v, o, "result.step") : b.binop(st.op(), o, v, "result.step");
      }
      return convert(b, v, resT);
    }

    private Type storageType(Type t) { return t.isInteger(1) ? ctx.i8() : t; }

    private int align(Type t) { return module.abiAlignment(storageType(t)); }

    /**
     * Compaction: the lanes of {@code mask} of {@code v}, moved to the front in lane order (the other
     * lanes: zero). The target's compress (SVE {@code compact}, AVX-512 {@code vpcompress}) on 32- and
     * 64-bit lanes where the packet fits {@link #compactBits}; 64-bit lanes that do not as two compresses
     * of their 32-bit halves; narrower lanes widened to 32 bits ({@link #compactable} checked the types).
     */
    private Value compress(IrBuilder b, Value v, Value mask, String name) {
      Type t = v.type();
      Type e = t.scalarType();
      if (e.isInteger(1)) {
        Value c = compress(b, b.cast(Opcode.ZEXT, v, ctx.i8().vectorOf(w), ""), mask, name);
        return b.cast(Opcode.TRUNC, c, t, name);
      }
      if (e.isPointer()) {
        Value c = compress(b, b.cast(Opcode.PTRTOINT, v, ctx.i64().vectorOf(w), ""), mask, name);
        return b.cast(Opcode.INTTOPTR, c, t, name);
      }
      int bits = e.isFloat() ? 32 : e.isDouble() ? 64 : e.isInteger() ? e.intWidth() : 0;
      if (rvv && (bits == 8 || bits == 16 || bits == 32 || bits == 64) && bits * w <= compactBits) {
        // RVV: vcompress at the value's own element width (no widening); the other lanes zero
        return b.call(module.intrinsic("llvm.experimental.vector.compress", t), List.of(v, mask, b.constNull(t)), name);
      }
      if ((bits == 32 || bits == 64) && bits * w <= compactBits) return nativeCompress(b, v, mask, name);
      if (bits == 64 && 32 * w <= compactBits) {
        // two compactions of the 32-bit halves
        return byHalves(b, v, name, half -> nativeCompress(b, half, mask, ""));
      }
      if (bits > 0 && bits < 32 && 32 * w <= compactBits) {
        Value c = nativeCompress(b, b.cast(Opcode.ZEXT, v, ctx.i32().vectorOf(w), ""), mask, "");
        return b.cast(Opcode.TRUNC, c, t, name);
      }
      // (not llvm.experimental.vector.compress on x86 and SVE: LLVM 20 splits a wide one through a misaligned stack
      // slot; RVV above takes it only where the packet fits one register group)
      throw new IllegalStateException("refill compaction: no compress for " + t + " at " + compactBits + " bits");
    }

    /**
     * A lane permutation of 32-bit lanes ({@code op32}: a compress or an expand under one mask) applied to a
     * packet of 64-bit lanes as the same permutation of their low and of their high halves, joined again.
     */
    private Value byHalves(IrBuilder b, Value v, String name, java.util.function.UnaryOperator<Value> op32) {
      Type t = v.type();
      boolean integer = t.scalarType().isInteger();
      Type i64v = ctx.i64().vectorOf(w);
      Type i32v = ctx.i32().vectorOf(w);
      Value x = integer ? v : b.cast(Opcode.BITCAST, v, i64v, "");
      Value sh = b.splat(b.constInt(ctx.i64(), 32), w, "");
      Value lo = op32.apply(b.cast(Opcode.TRUNC, x, i32v, ""));
      Value hi = op32.apply(b.cast(Opcode.TRUNC, b.binop(Opcode.LSHR, x, sh, ""), i32v, ""));
      Value r = b.binop(Opcode.OR, b.cast(Opcode.ZEXT, lo, i64v, ""), b.binop(Opcode.SHL, b.cast(Opcode.ZEXT, hi, i64v, ""), sh, ""),
          name);
      return integer ? r : b.cast(Opcode.BITCAST, r, t, name);
    }

    /** AVX-512 register expand: the first lanes of v spread into the lanes of mask in order (others zero). */
    private Value regExpand(IrBuilder b, Value v, Value mask, String name) {
      Type t = v.type();
      Type e = t.scalarType();
      if (e.isInteger(1)) return b.cast(Opcode.TRUNC, regExpand(b, b.cast(Opcode.ZEXT, v, ctx.i8().vectorOf(w), ""), mask, ""), t, name);
      if (e.isPointer()) {
        return b.cast(Opcode.INTTOPTR, regExpand(b, b.cast(Opcode.PTRTOINT, v, ctx.i64().vectorOf(w), ""), mask, ""), t, name);
      }
      int bits = e.isFloat() ? 32 : e.isDouble() ? 64 : e.intWidth();
      if (bits < 32) return b.cast(Opcode.TRUNC, regExpand(b, b.cast(Opcode.ZEXT, v, ctx.i32().vectorOf(w), ""), mask, ""), t, name);
      if (bits == 64) {
        // as two expands of the 32-bit halves (a 64-bit packet may not fit one register: an expand cannot be split)
        return byHalves(b, v, name, half -> regExpand(b, half, mask, ""));
      }
      return b.call(module.intrinsic("llvm.x86.avx512.mask.expand", t), List.of(v, b.constNull(t), mask), name);
    }

    /** The target's compress of a packet of 32- or 64-bit lanes that fits one register. */
    private Value nativeCompress(IrBuilder b, Value v, Value mask, String name) {
      if (!x86Compress) return sveCompact(b, v, mask, v.type().scalarType().isDouble() || v.type().scalarType().isInteger(64) ? 64 : 32, name);
      Type t = v.type();
      return b.call(module.intrinsic("llvm.x86.avx512.mask.compress", t), List.of(v, b.constNull(t), mask), name);
    }

    /** SVE {@code compact} of a packet of 32- or 64-bit lanes that fits one SVE register. */
    private Value sveCompact(IrBuilder b, Value v, Value mask, int bits, String name) {
      Type t = v.type();
      int per = 128 / bits;
      Type sv = t.scalarType().scalableVectorOf(per);
      Type sm = ctx.i1().scalableVectorOf(per);
      Type i64 = ctx.i64();
      Value vs = b.call(module.intrinsic("llvm.vector.insert", sv, t), List.of(b.poison(sv), v, b.constInt(i64, 0)), "");
      // the predicate's lanes past W are false (zeroinitializer), so compact ignores them
      Value ms = b.call(module.intrinsic("llvm.vector.insert", sm, mask.type()), List.of(b.constNull(sm), mask, b.constInt(i64, 0)), "");
      Value c = b.call(module.intrinsic("llvm.aarch64.sve.compact", sv), List.of(ms, vs), "");
      return b.call(module.intrinsic("llvm.vector.extract", t, sv), List.of(c, b.constInt(i64, 0)), name);
    }

    /**
     * Varying parameter j's packet when the lanes {@code take} (a run of lanes from the first free one)
     * take the elements from {@code base} + their lane number on: one masked contiguous load.
     */
    private Value spanLoad(IrBuilder b, int j, Value base, Value take) {
      Value p = driver.param(j);
      Type t = types.get(j);
      Type st = storageType(t);
      Type vt = st.vectorOf(w);
      // not inbounds: lanes below the first free one would address elements before next (masked off)
      Value at = b.gep(st, p, List.of(base), false, p.name() + ".span");
      Value v = b.call(module.intrinsic("llvm.masked.load", vt, ctx.ptrType()), List.of(at, b.i32(align(t)), take, b.poison(vt)),
          p.name() + ".packet");
      return st.equals(t) ? v : b.cast(Opcode.TRUNC, v, t.vectorOf(w), p.name() + ".bool");
    }

    /** Parameter j's packet for the lanes taking elements {@code idx} (= next + rank) under {@code take}. */
    private Value argPacket(IrBuilder b, int j, Value idx, Value next, Value take) {
      Value p = driver.param(j);
      Type t = types.get(j);
      switch (kinds.get(j)) {
        case ParamKind.Uniform u -> {
          return p;
        }
        case ParamKind.Linear l -> {
          if (t.isPointer()) {
            Value off = b.mul(idx, b.splat(b.constInt(sizeT, l.step()), w, ""), p.name() + ".off");
            return b.gep(ctx.i8(), p, List.of(off), false, p.name() + ".at");
          }
          Type vt = t.vectorOf(w);
          Value ii = t.intWidth() == sizeT.intWidth() ? idx
              : b.cast(t.intWidth() < sizeT.intWidth() ? Opcode.TRUNC : Opcode.ZEXT, idx, vt, "");
          return b.add(b.splat(p, w, ""), b.mul(ii, b.splat(b.constInt(t, l.step()), w, ""), ""), p.name() + ".at");
        }
        default -> {
          Type st = storageType(t);
          Type vt = st.vectorOf(w);
          Value v;
          if (scalarMoves) {
            v = b.load(vt, inBuf.get(j), p.name() + ".packet");
            return st.equals(t) ? v : b.cast(Opcode.TRUNC, v, t.vectorOf(w), p.name() + ".bool");
          }
          int bits = st.isPointer() ? 64 : st.isInteger() ? st.intWidth() : st.isFloat() ? 32 : 64;
          if (expand && !st.isPointer() && (bits == 32 || bits == 64)) {
            Value at = b.gep(st, p, List.of(next), true, p.name() + ".next");
            v = b.call(module.intrinsic("llvm.masked.expandload", vt), List.of(at, take, b.poison(vt)), p.name() + ".packet");
          } else {
            Value ptrs = b.gep(st, p, List.of(idx), true, p.name() + ".addrs");
            v = b.call(module.intrinsic("llvm.masked.gather", vt, ctx.ptrType().vectorOf(w)),
                List.of(ptrs, b.i32(align(t)), take, b.poison(vt)), p.name() + ".packet");
          }
          return st.equals(t) ? v : b.cast(Opcode.TRUNC, v, t.vectorOf(w), p.name() + ".bool");
        }
      }
    }

    /**
     * The scalar moves in: the k-th lane of {@code take} (in lane order) gets element next + k of every
     * varying array, one scalar load and store per lane and array, into the arrays' lane buffers. Leaves
     * the builder after the loop (take has at least one lane).
     */
    private void loadInputsOneByOne(IrBuilder b, Value take, Value next) {
      Value takeBits = b.cast(Opcode.BITCAST, take, bitsT, "take.bits");
      Block from = b.currentBlock();
      Block loop = driver.appendBlock("refill.lane");
      Block after = driver.appendBlock("refill.lanes.done");
      b.br(loop);
      b.atEnd(loop);
      Value bits = b.phi(bitsT, "take.bits.left");
      Value k = b.phi(sizeT, "k");
      Value lane = b.call(module.intrinsic("llvm.cttz", bitsT), List.of(bits, b.i1(true)), "lane");
      Value laneS = w == sizeT.intWidth() ? lane : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, lane, sizeT, "");
      Value e = b.add(next, k, "element");
      for (var en : inBuf.entrySet()) {
        Value p = driver.param(en.getKey());
        Type st = storageType(types.get(en.getKey()));
        Value v = b.load(st, b.gep(st, p, List.of(e), true, ""), align(types.get(en.getKey())), p.name() + ".element");
        b.store(v, b.gep(st, en.getValue(), List.of(laneS), true, ""));
      }
      Value bits1 = b.and(bits, b.sub(bits, b.constInt(bitsT, 1), ""), "take.bits.next");
      Value k1 = b.add(k, b.constInt(sizeT, 1), "k.next");
      b.condBr(b.icmpNe(bits1, b.constInt(bitsT, 0), ""), loop, after);
      bits.addIncoming(List.of(takeBits, bits1), List.of(from, loop));
      k.addIncoming(List.of(b.constInt(sizeT, 0), k1), List.of(from, loop));
      b.atEnd(after);
    }

    /** The scalar moves out: every lane of {@code done} stores its result at out[idx], one by one. */
    private void storeResultsOneByOne(IrBuilder b, Value idx, Value res, Value done) {
      Value out = outPtr();
      Type st = storageType(rt);
      Value v = res;
      if (rt.isInteger(1)) v = b.cast(Opcode.ZEXT, toMask(b, res), st.vectorOf(w), "result.byte");
      b.store(v, outBuf);
      b.store(idx, idxBuf);
      Value doneBits = b.cast(Opcode.BITCAST, done, bitsT, "done.bits");
      Block from = b.currentBlock();
      Block loop = driver.appendBlock("store.lane");
      Block after = driver.appendBlock("store.lanes.done");
      b.br(loop);
      b.atEnd(loop);
      Value bits = b.phi(bitsT, "done.bits.left");
      Value lane = b.call(module.intrinsic("llvm.cttz", bitsT), List.of(bits, b.i1(true)), "lane");
      Value laneS = w == sizeT.intWidth() ? lane : b.cast(w < sizeT.intWidth() ? Opcode.ZEXT : Opcode.TRUNC, lane, sizeT, "");
      Value r = b.load(st, b.gep(st, outBuf, List.of(laneS), true, ""), "result.lane");
      Value i = b.load(idxElem(), b.gep(idxElem(), idxBuf, List.of(laneS), true, ""), "idx.lane");
      if (index32) i = b.cast(Opcode.SEXT, i, sizeT, "idx.lane.size");
      b.store(r, b.gep(st, out, List.of(i), true, ""), align(rt));
      Value bits1 = b.and(bits, b.sub(bits, b.constInt(bitsT, 1), ""), "done.bits.next");
      b.condBr(b.icmpNe(bits1, b.constInt(bitsT, 0), ""), loop, after);
      bits.addIncoming(List.of(doneBits, bits1), List.of(from, loop));
      b.atEnd(after);
    }

    /**
     * The results out without a branch per lane (AVX2 rounds): every lane stores, a lane of {@code done} at
     * out[idx], the others into their own slot of a W-element stack buffer. A scatter with an all-true mask,
     * which LLVM scalarizes into W unconditional extracts and stores (with a mask: a test and a branch per lane,
     * mispredicted on random inputs).
     */
    private void storeResultsBranchFree(IrBuilder b, Value idx, Value res, Value done) {
      Value out = outPtr();
      Type st = storageType(rt);
      Value v = res;
      if (rt.isInteger(1)) v = b.cast(Opcode.ZEXT, toMask(b, res), st.vectorOf(w), "result.byte");
      Value ptrs = b.gep(st, out, List.of(idx), true, "out.addrs");
      Value sinks = b.gep(st, outBuf, List.of(b.laneIndices(sizeT, w)), true, "sink.addrs");
      Value at = b.select(done, ptrs, sinks, "store.addrs");
      b.call(module.intrinsic("llvm.masked.scatter", v.type(), ctx.ptrType().vectorOf(w)),
          List.of(v, at, b.i32(align(rt)), b.allOnes(ctx.i1().vectorOf(w))), "");
    }

    private void storeResults(IrBuilder b, Value idx, Value res, Value done) {
      Value out = outPtr();
      Type st = storageType(rt);
      Value v = res;
      if (rt.isInteger(1)) v = b.cast(Opcode.ZEXT, toMask(b, res), st.vectorOf(w), "result.byte");
      Value ptrs = b.gep(st, out, List.of(idx), true, "out.addrs");
      b.call(module.intrinsic("llvm.masked.scatter", v.type(), ctx.ptrType().vectorOf(w)),
          List.of(v, ptrs, b.i32(align(rt)), done), "");
    }
  }
}
