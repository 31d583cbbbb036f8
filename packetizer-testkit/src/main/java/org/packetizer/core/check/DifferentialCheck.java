package org.packetizer.core.check;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.widen.CompositePackets;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.jit.JitFunction;
import org.packetizer.core.jit.JitType;

/**
 * Differential execution of a scalar function against its packet function: the oracle of the
 * project (DESIGN §5). The module is JIT-compiled once (a copy: the caller's module is untouched);
 * each {@link #run} then calls the scalar function once per active lane and the packet function once
 * on the same inputs, and compares
 *
 * <ul>
 *   <li>every active lane's return value (scalar result vs element k of the packet's, or the packet's
 *       single value when it returns the scalar type, i.e. a uniform result);
 *   <li>every byte of every buffer, inactive lanes' parts included (they must be unchanged): fields by
 *       their type (see below), padding bytes exactly;
 *   <li>the canaries around every buffer of both runs (out-of-bounds writes);
 *   <li>the logs of recorded external calls.
 * </ul>
 *
 * <p>Comparison: integers and pointers exactly; floats and doubles bitwise, or both NaN (any
 * payload), or within {@link Builder#ulps} units in the last place when asked.
 *
 * <p>Buffers: the scalar runs and the packet run get separate copies with identical initial contents
 * (see {@link ParamSpec} for how each pointer kind maps lanes to memory). Every buffer is fenced by
 * canaries and, on Linux, guard pages (see {@link GuardedMemory}): an access more than the canary zone
 * out of bounds faults and terminates the process rather than pass unnoticed.
 *
 * <p>External calls ({@link Builder#recordCalls}): each call of a recorded symbol is logged with its
 * arguments. The rule: the multiset of calls the packet run makes must equal the multiset of calls the
 * scalar runs make (lanes 0..W-1 in order, active lanes only). Order is not compared — a packet
 * function may interleave lanes' calls — but every call must happen exactly as often, with the same
 * arguments (pointer arguments compare by address, so pass values, not buffer addresses).
 * {@link Builder#callsInLaneOrder} also compares their order.
 *
 * <p>Not thread-safe for concurrent {@code run}s (they are serialized). Close it to free the JIT.
 */
public final class DifferentialCheck implements AutoCloseable {
  /** Mismatches kept per lane in a result. */
  public static final int MAX_REPORTED = 20;

  private static final byte OUT_FILL = (byte) 0xEE;
  private static final byte PAD_FILL = (byte) 0xCD;

  private final String scalarName, packetName;
  private final int width;
  private final long ulps;
  /** Global variables compared after the runs: name, address in the JIT, size, initial contents. */
  private final List<GlobalVar> globals = new ArrayList<>();

  private record GlobalVar(String name, long address, int size, byte[] initial) { }
  private final boolean guardPages;
  private final boolean callsInLaneOrder;
  private final List<Param> params;
  private final int maskIndex;
  private final List<Layout.Leaf> returnLeaves; // null for void
  private final List<InputSlot> slots;
  private final Jit jit;               // null when the functions run under qemu
  private final QemuExecutor emulator; // null when they run in the JIT
  private final Callee scalarFn, packetFn;
  private final CallRecorder recorder;
  private final java.util.function.Consumer<String> progress;

  /** One packet parameter, with what the runs need to know about it. */
  private static final class Param {
    int index, scalarIndex;
    ParamSpec spec;
    String name;
    Type scalarType, packetType;
    ScalarKind kind;
    int bits;
    ValueDomain domain;
    // buffers
    long elemSize, bytes;
    List<Layout.Leaf> leaves;
    boolean[] elemCovered;
    long soaElemSize, soaBytes;
    List<Layout.Leaf> soaLeaves;
    boolean[] soaCovered;
    long align;
    // a vector or aggregate passed by value: its scalar fields (leaves), laid out per lane
    boolean composite;
    long scalarBytes, packetBytes;

    String describe() { return "'" + name + "' (param #" + index + ", " + spec.kindName() + ")"; }
  }

  /** A function the runs call: JIT-compiled on the host, or compiled for another target and run under qemu. */
  private interface Callee {
    List<JitType> paramTypes();
    long slotSize();
    long argsSize();
    long resultSize();
    void invoke(MemorySegment args, MemorySegment result, List<GuardedMemory> memory);
  }

  private record HostCallee(JitFunction f) implements Callee {
    public List<JitType> paramTypes() { return f.paramTypes(); }
    public long slotSize() { return f.slotSize(); }
    public long argsSize() { return f.argsSize(); }
    public long resultSize() { return f.resultSize(); }
    public void invoke(MemorySegment args, MemorySegment result, List<GuardedMemory> memory) { f.invoke(args, result); }
  }

  /**
   * Under qemu, {@code record(int)} is the launcher's C function, which logs its arguments in call
   * order; each call's log goes to the recorder as the host's upcalls would, during the same run (so
   * lane attribution and the comparison are the host's).
   */
  private record EmulatedCallee(QemuExecutor q, int fn, CallRecorder recorder, boolean recording) implements Callee {
    public List<JitType> paramTypes() { return q.callable(fn).paramTypes(); }
    public long slotSize() { return q.callable(fn).slotSize(); }
    public long argsSize() { return q.callable(fn).argsSize(); }
    public long resultSize() { return q.callable(fn).resultSize(); }
    public void invoke(MemorySegment args, MemorySegment result, List<GuardedMemory> memory) {
      QemuExecutor.Records r = q.invoke(fn, args, result, memory);
      if (!recording) {
        if (r.values().length > 0 || r.lost() > 0) recorder.errors.add(EMULATED_RECORD + " called, but not recorded by this check");
        return;
      }
      for (int v : r.values()) recorder.log(EMULATED_RECORD, null, void.class, new Object[] {v});
      if (r.lost() > 0) recorder.errors.add(r.lost() + " calls of " + EMULATED_RECORD + " beyond the launcher's log (not compared)");
    }
  }

  /** The one external a check under qemu can record: {@code void record(int)}, defined by the launcher. */
  static final String EMULATED_RECORD = "record";

  private DifferentialCheck(Builder b, Jit jit, QemuExecutor emulator, List<Param> params, int maskIndex,
      List<Layout.Leaf> returnLeaves, CallRecorder recorder) {
    this.scalarName = b.scalarName;
    this.packetName = b.packetName;
    this.width = b.width;
    this.ulps = b.ulps;
    this.guardPages = b.guardPages;
    this.callsInLaneOrder = b.callsInLaneOrder;
    this.jit = jit;
    this.emulator = emulator;
    this.params = params;
    this.maskIndex = maskIndex;
    this.returnLeaves = returnLeaves;
    this.recorder = recorder;
    this.progress = b.progress;
    boolean recording = b.externals.containsKey(EMULATED_RECORD);
    this.scalarFn = jit != null ? new HostCallee(jit.function(scalarName)) : new EmulatedCallee(emulator, 0, recorder, recording);
    this.packetFn = jit != null ? new HostCallee(jit.function(packetName)) : new EmulatedCallee(emulator, 1, recorder, recording);
    for (var g : b.globals.entrySet()) {
      long addr = jit.lookup(g.getKey());
      int size = g.getValue();
      byte[] init = MemorySegment.ofAddress(addr).reinterpret(size).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
      globals.add(new GlobalVar(g.getKey(), addr, size, init));
    }
    List<InputSlot> s = new ArrayList<>();
    for (Param p : params) s.add(new InputSlot(p.index, p.name, p.spec, p.kind, p.bits, p.domain));
    this.slots = List.copyOf(s);
  }

  /** A check of {@code packetFunction} (width {@code width}) against {@code scalarFunction}, both in {@code module}. */
  public static Builder builder(LlvmModule module, String scalarFunction, String packetFunction, int width) {
    return new Builder(module, scalarFunction, packetFunction, width);
  }

  /**
   * The struct-of-arrays packet type of {@code pointee} for {@link ParamSpec.SoaPtr}: scalars become
   * {@code <W x T>}, structs and arrays are packetized element-wise (a literal struct).
   */
  public static Type soaType(Type pointee, int width) { return Layout.packetize(pointee, width); }

  public int width() { return width; }

  public List<ParamSpec> params() { return params.stream().map(p -> p.spec).toList(); }

  /** What the input generators need, one slot per packet parameter. */
  public List<InputSlot> inputSlots() { return slots; }

  public InputGenerator inputGenerator() { return new InputGenerator(slots, width); }

  /** The JIT holding the compiled functions (owned by this check). */
  public Jit jit() {
    if (jit == null) throw new IllegalStateException("this check runs under qemu (" + emulator.target() + "), not in a JIT");
    return jit;
  }

  /** The emulated target the functions run on, or empty when they run in the host's JIT. */
  public java.util.Optional<CrossTarget> crossTarget() {
    return emulator == null ? java.util.Optional.empty() : java.util.Optional.of(emulator.target());
  }

  /** One run with generated inputs. */
  public CheckResult run(RandomGenerator rnd) { return run(inputGenerator().next(rnd)); }

  /**
   * {@code n} runs with inputs generated from {@code seed}; stops at the first failure and returns it,
   * else a passing result with the totals (and the last run's inputs).
   */
  public CheckResult runMany(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    InputGenerator gen = inputGenerator();
    int lanes = 0;
    long bytes = 0;
    Inputs last = null;
    for (int i = 0; i < n; i++) {
      last = gen.next(rnd);
      CheckResult r = run(last);
      if (!r.passed()) return r;
      lanes += r.lanesCompared();
      bytes += r.bytesCompared();
    }
    return new CheckResult(true, lanes, bytes, List.of(), 0, last);
  }

  // ==== one run ====

  /** One run on explicit inputs (see {@link Inputs} for what each parameter kind takes). */
  public synchronized CheckResult run(Inputs in) {
    if (closed) throw new IllegalStateException("the check is closed");
    return new Run(in).execute();
  }

  private final class Run {
    final Inputs in;
    final boolean[] active = new boolean[width];
    final Object[][] laneValues = new Object[params.size()][]; // varying: per lane; uniform/linear: [value]
    final byte[][] sharedImage = new byte[params.size()][];
    final byte[][][] laneImages = new byte[params.size()][][];
    final byte[][] soaImage = new byte[params.size()][];
    final List<GuardedMemory> memory = new ArrayList<>();
    final GuardedMemory[] sharedS = new GuardedMemory[params.size()], sharedP = new GuardedMemory[params.size()];
    final GuardedMemory[][] laneS = new GuardedMemory[params.size()][], laneP = new GuardedMemory[params.size()][];
    final Map<GuardedMemory, String> labels = new LinkedHashMap<>();
    final Map<GuardedMemory, Integer> owners = new HashMap<>();
    final byte[][] scalarResults = new byte[width][];
    byte[] packetResult;
    final List<ExternalCall> packetCalls = new ArrayList<>();
    final List<int[]> scalarCallLanes = new ArrayList<>();
    final List<ExternalCall> scalarCalls = new ArrayList<>();
    // results
    final TreeMap<Integer, List<CheckResult.Mismatch>> byLane = new TreeMap<>();
    int mismatchCount;
    long bytesCompared;

    Run(Inputs in) {
      this.in = Objects.requireNonNull(in, "inputs");
      if (in.args().size() != params.size()) {
        throw new IllegalArgumentException("the packet function @" + packetName + " has " + params.size()
            + " parameters but the inputs give " + in.args().size() + ": " + in);
      }
      Arrays.fill(active, true);
      for (Param p : params) {
        Object a = in.args().get(p.index);
        if (p.composite) {
          if (a != null) throw new IllegalArgumentException("input for " + p.describe() + " must be null (vector and aggregate values come from the run's seed), got " + a);
          continue;
        }
        switch (p.spec) {
          case ParamSpec.Varying v -> {
            List<Object> lanes = asList(a, p);
            Object[] vs = new Object[width];
            for (int k = 0; k < width; k++) vs[k] = Values.normalize(p.kind, p.bits, lanes.get(k));
            laneValues[p.index] = vs;
          }
          case ParamSpec.Uniform u -> laneValues[p.index] = new Object[] {Values.normalize(p.kind, p.bits, required(a, p))};
          case ParamSpec.Linear l -> laneValues[p.index] = new Object[] {Values.normalize(p.kind, p.bits, required(a, p))};
          case ParamSpec.Mask m -> {
            List<Object> lanes = asList(a, p);
            for (int k = 0; k < width; k++) active[k] = (Boolean) Values.normalize(ScalarKind.BOOL, 1, lanes.get(k));
          }
          case ParamSpec.Buffer b -> {
            if (a != null) throw new IllegalArgumentException("input for buffer " + p.describe() + " must be null (contents come from its initializer), got " + a);
          }
        }
      }
    }

    private List<Object> asList(Object a, Param p) {
      List<Object> out = new ArrayList<>();
      if (a instanceof List<?> l) out.addAll(l);
      else if (a != null && a.getClass().isArray()) {
        for (int i = 0; i < java.lang.reflect.Array.getLength(a); i++) out.add(java.lang.reflect.Array.get(a, i));
      } else throw new IllegalArgumentException("input for " + p.describe() + " must be an array or List of " + width + " lane values, got " + a);
      if (out.size() != width) throw new IllegalArgumentException("input for " + p.describe() + " has " + out.size() + " lane values, expected " + width);
      return out;
    }

    private Object required(Object a, Param p) {
      if (a == null) throw new IllegalArgumentException("missing input for " + p.describe());
      return a;
    }

    Object laneValue(Param p, int k) {
      return switch (p.spec) {
        case ParamSpec.Varying v -> laneValues[p.index][k];
        case ParamSpec.Uniform u -> laneValues[p.index][0];
        case ParamSpec.Linear l -> Values.normalize(p.kind, p.bits, (Long) laneValues[p.index][0] + k * l.step());
        default -> throw new IllegalStateException();
      };
    }

    CheckResult execute() {
      recorder.errors.clear();
      SplittableRandom rnd = new SplittableRandom(in.bufferSeed());
      for (Param p : params) {
        if (p.composite) {
          laneImages[p.index] = new byte[width][];
          byte[] shared = p.spec instanceof ParamSpec.Varying ? null : compositeImage(p, rnd);
          for (int k = 0; k < width; k++) laneImages[p.index][k] = shared != null ? shared : compositeImage(p, rnd);
          continue;
        }
        switch (p.spec) {
          case ParamSpec.UniformPtr u -> sharedImage[p.index] = image(p, -1, rnd);
          case ParamSpec.LinearPtr l -> sharedImage[p.index] = image(p, -1, rnd);
          case ParamSpec.VaryingPtr v -> laneImages[p.index] = laneImages(p, rnd);
          case ParamSpec.SoaPtr s -> {
            laneImages[p.index] = laneImages(p, rnd);
            soaImage[p.index] = soaImage(p, laneImages[p.index]);
          }
          default -> { }
        }
      }
      try (Arena arena = Arena.ofConfined()) {
        resetGlobals();
        runScalar(arena);
        byte[][] scalarGlobals = snapshotGlobals();
        resetGlobals();
        runPacket(arena);
        byte[][] packetGlobals = snapshotGlobals();
        resetGlobals();
        compare();
        compareGlobals(scalarGlobals, packetGlobals);
      } finally {
        for (GuardedMemory m : memory) m.close();
      }
      int lanes = 0;
      for (boolean a : active) if (a) lanes++;
      List<CheckResult.Mismatch> list = new ArrayList<>();
      byLane.forEach((lane, ms) -> { if (lane >= 0) list.addAll(ms); });
      if (byLane.containsKey(-1)) list.addAll(byLane.get(-1));
      return new CheckResult(mismatchCount == 0, lanes, bytesCompared, list, mismatchCount, in);
    }

    /** One lane's value of a vector or aggregate parameter, its leaves drawn from their default domains. */
    private byte[] compositeImage(Param p, SplittableRandom rnd) {
      byte[] img = new byte[Math.toIntExact(p.scalarBytes)];
      for (Layout.Leaf leaf : p.leaves) {
        int off = (int) leaf.scalarOffset();
        if (leaf.kind() == ScalarKind.BYTES) {
          for (int j = 0; j < leaf.size(); j++) img[off + j] = (byte) rnd.nextInt();
          continue;
        }
        int bits = leaf.kind() == ScalarKind.BOOL ? 1 : leaf.size() * 8;
        Values.write(leaf.kind(), img, off, leaf.size(), ValueDomain.defaultFor(leaf.kind(), bits).sample(leaf.kind(), bits, rnd));
      }
      return img;
    }

    /** The packet's argument bytes of a vector or aggregate parameter: every lane's leaves at their places. */
    private byte[] compositePacketImage(Param p) {
      byte[] img = new byte[Math.toIntExact(p.packetBytes)];
      for (int k = 0; k < width; k++) {
        for (Layout.Leaf leaf : p.leaves) {
          System.arraycopy(laneImages[p.index][k], (int) leaf.scalarOffset(), img, (int) (leaf.packetOffset() + k * leaf.laneStride()), leaf.size());
        }
        if (!(p.spec instanceof ParamSpec.Varying)) break;
      }
      return img;
    }

    private byte[][] laneImages(Param p, SplittableRandom rnd) {
      byte[][] out = new byte[width][];
      for (int k = 0; k < width; k++) out[k] = image(p, k, rnd);
      return out;
    }

    private byte[] image(Param p, int lane, SplittableRandom rnd) {
      ParamSpec.Buffer b = (ParamSpec.Buffer) p.spec;
      byte[] img = new byte[Math.toIntExact(p.bytes)];
      Arrays.fill(img, PAD_FILL);
      for (long e = 0; e < b.count(); e++) {
        int base = Math.toIntExact(e * p.elemSize);
        for (int i = 0; i < p.leaves.size(); i++) {
          Layout.Leaf leaf = p.leaves.get(i);
          int off = base + (int) leaf.scalarOffset();
          if (b.direction() == ParamSpec.Direction.OUT) {
            Arrays.fill(img, off, off + leaf.size(), OUT_FILL);
          } else if (leaf.kind() == ScalarKind.BYTES) {
            for (int j = 0; j < leaf.size(); j++) img[off + j] = (byte) rnd.nextInt();
          } else {
            Object v = b.init().value(leaf.field(i), lane, e, rnd);
            try {
              Values.write(leaf.kind(), img, off, leaf.size(), v);
            } catch (RuntimeException ex) {
              throw new IllegalArgumentException("initializer of buffer " + p.describe() + " gave " + v + " for field '"
                  + leaf.path() + "' (" + leaf.kind() + "): " + ex.getMessage(), ex);
            }
          }
        }
      }
      return img;
    }

    private byte[] soaImage(Param p, byte[][] lanes) {
      byte[] img = new byte[Math.toIntExact(p.soaBytes)];
      Arrays.fill(img, PAD_FILL);
      long count = ((ParamSpec.Buffer) p.spec).count();
      for (int k = 0; k < width; k++) {
        for (long e = 0; e < count; e++) {
          for (Layout.Leaf leaf : p.soaLeaves) {
            System.arraycopy(lanes[k], (int) (e * p.elemSize + leaf.scalarOffset()), img,
                (int) (e * p.soaElemSize + leaf.packetOffset() + k * leaf.laneStride()), leaf.size());
          }
        }
      }
      return img;
    }

    private GuardedMemory alloc(Param p, long size, byte[] image, String label, int lane) {
      GuardedMemory m = GuardedMemory.allocate(size, p.align, guardPages);
      memory.add(m);
      m.fill(image);
      labels.put(m, label);
      owners.put(m, lane);
      return m;
    }

    private void runScalar(Arena arena) {
      for (Param p : params) {
        switch (p.spec) {
          case ParamSpec.UniformPtr u -> sharedS[p.index] = alloc(p, p.bytes, sharedImage[p.index], "buffer " + p.describe() + ", scalar runs' copy", -1);
          case ParamSpec.LinearPtr l -> sharedS[p.index] = alloc(p, p.bytes, sharedImage[p.index], "buffer " + p.describe() + ", scalar runs' copy", -1);
          case ParamSpec.VaryingPtr v -> laneS[p.index] = laneBuffers(p, "scalar");
          case ParamSpec.SoaPtr s -> laneS[p.index] = laneBuffers(p, "scalar");
          default -> { }
        }
      }
      MemorySegment args = arena.allocate(Math.max(1, scalarFn.argsSize()), 64);
      MemorySegment result = arena.allocate(Math.max(1, scalarFn.resultSize()), 64);
      for (int k = 0; k < width; k++) {
        if (!active[k]) continue;
        for (Param p : params) {
          if (p.scalarIndex < 0) continue;
          JitType jt = scalarFn.paramTypes().get(p.scalarIndex);
          long off = (long) p.scalarIndex * scalarFn.slotSize();
          if (p.composite) {
            MemorySegment.copy(MemorySegment.ofArray(laneImages[p.index][k]), 0, args, off, p.scalarBytes);
            continue;
          }
          Object v = switch (p.spec) {
            case ParamSpec.UniformPtr u -> sharedS[p.index].address();
            case ParamSpec.LinearPtr l -> sharedS[p.index].address() + k * l.stepBytes();
            case ParamSpec.VaryingPtr vp -> laneS[p.index][k].address();
            case ParamSpec.SoaPtr s -> laneS[p.index][k].address();
            default -> laneValue(p, k);
          };
          jt.write(args, off, v);
        }
        if (progress != null) progress.accept("scalar @" + scalarName + " lane " + k + " (" + laneInputs(k) + ")");
        recorder.start(scalarCalls, k, scalarCallLanes);
        try {
          scalarFn.invoke(args, result, memory);
        } finally {
          recorder.stop();
        }
        scalarResults[k] = result.asSlice(0, scalarFn.resultSize()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
      }
    }

    private GuardedMemory[] laneBuffers(Param p, String run) {
      GuardedMemory[] out = new GuardedMemory[width];
      for (int k = 0; k < width; k++) {
        out[k] = alloc(p, p.bytes, laneImages[p.index][k], "buffer " + p.describe() + " of lane " + k + ", " + run + " run's copy", k);
      }
      return out;
    }

    private void runPacket(Arena arena) {
      for (Param p : params) {
        switch (p.spec) {
          case ParamSpec.UniformPtr u -> sharedP[p.index] = alloc(p, p.bytes, sharedImage[p.index], "buffer " + p.describe() + ", packet run's copy", -1);
          case ParamSpec.LinearPtr l -> sharedP[p.index] = alloc(p, p.bytes, sharedImage[p.index], "buffer " + p.describe() + ", packet run's copy", -1);
          case ParamSpec.VaryingPtr v -> laneP[p.index] = laneBuffers(p, "packet");
          case ParamSpec.SoaPtr s -> sharedP[p.index] = alloc(p, p.soaBytes, soaImage[p.index], "SoA buffer " + p.describe() + ", packet run's copy", -1);
          default -> { }
        }
      }
      MemorySegment args = arena.allocate(Math.max(1, packetFn.argsSize()), 64);
      MemorySegment result = arena.allocate(Math.max(1, packetFn.resultSize()), 64);
      for (Param p : params) {
        JitType jt = packetFn.paramTypes().get(p.index);
        if (p.composite) {
          MemorySegment.copy(MemorySegment.ofArray(compositePacketImage(p)), 0, args, (long) p.index * packetFn.slotSize(), p.packetBytes);
          continue;
        }
        Object v = switch (p.spec) {
          case ParamSpec.Varying vv -> laneValues[p.index];
          case ParamSpec.Uniform u -> laneValues[p.index][0];
          case ParamSpec.Linear l -> laneValues[p.index][0];
          case ParamSpec.Mask m -> active;
          case ParamSpec.UniformPtr u -> sharedP[p.index].address();
          case ParamSpec.LinearPtr l -> sharedP[p.index].address();
          case ParamSpec.SoaPtr s -> sharedP[p.index].address();
          case ParamSpec.VaryingPtr vp -> {
            long[] addrs = new long[width];
            for (int k = 0; k < width; k++) addrs[k] = laneP[p.index][k].address();
            yield addrs;
          }
        };
        jt.write(args, (long) p.index * packetFn.slotSize(), v);
      }
      if (progress != null) {
        StringBuilder lanes = new StringBuilder();
        for (boolean a : active) lanes.append(a ? '1' : '0');
        progress.accept("packet @" + packetName + " (active lanes " + lanes + "; " + in + ")");
      }
      recorder.start(packetCalls, -1, null);
      try {
        packetFn.invoke(args, result, memory);
      } finally {
        recorder.stop();
      }
      packetResult = result.asSlice(0, packetFn.resultSize()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    // ---- comparison ----

    private void mismatch(int lane, String where, String expected, String actual) {
      mismatchCount++;
      List<CheckResult.Mismatch> l = byLane.computeIfAbsent(lane, x -> new ArrayList<>());
      if (l.size() < MAX_REPORTED) l.add(new CheckResult.Mismatch(lane, where, expected, actual, laneInputs(lane)));
    }

    private void compareLeaf(int lane, Layout.Leaf leaf, byte[] exp, int eo, byte[] act, int ao, String where) {
      bytesCompared += leaf.size();
      if (!Values.same(leaf.kind(), exp, eo, act, ao, leaf.size(), ulps)) {
        mismatch(lane, where, Values.formatBytes(leaf.kind(), exp, eo, leaf.size()), Values.formatBytes(leaf.kind(), act, ao, leaf.size()));
      }
    }

    private void compare() {
      if (returnLeaves != null) {
        for (int k = 0; k < width; k++) {
          if (!active[k]) continue;
          for (Layout.Leaf leaf : returnLeaves) {
            compareLeaf(k, leaf, scalarResults[k], (int) leaf.scalarOffset(), packetResult,
                (int) (leaf.packetOffset() + k * leaf.laneStride()), "return value" + field(leaf.path()));
          }
        }
      }
      for (Param p : params) {
        switch (p.spec) {
          case ParamSpec.VaryingPtr v -> {
            for (int k = 0; k < width; k++) {
              final int lane = k;
              compareScalarLayout(p, laneS[p.index][k].contents(), laneP[p.index][k].contents(), off -> lane,
                  "buffer " + p.describe() + " of lane " + k);
            }
          }
          case ParamSpec.SoaPtr s -> compareSoa(p);
          case ParamSpec.UniformPtr u ->
              compareScalarLayout(p, sharedS[p.index].contents(), sharedP[p.index].contents(), off -> -1, "buffer " + p.describe());
          case ParamSpec.LinearPtr l -> {
            long step = l.stepBytes();
            compareScalarLayout(p, sharedS[p.index].contents(), sharedP[p.index].contents(),
                off -> step > 0 && off / step < width ? (int) (off / step) : -1, "buffer " + p.describe());
          }
          default -> { }
        }
      }
      for (GuardedMemory m : memory) {
        long[] d = m.damage();
        if (d != null) {
          String at = d[0] < 0 ? (-d[0]) + " byte(s) before its start" : "byte " + (d[0] - m.size()) + " past its end";
          mismatch(owners.get(m), "canary around " + labels.get(m) + " changed " + at + " (out-of-bounds write)",
              String.format("0x%02x", d[1]), String.format("0x%02x", d[2]));
        }
      }
      compareCalls();
      if (!recorder.errors.isEmpty()) {
        for (String e : recorder.errors) mismatch(-1, "recorded external call", "no exception", e);
        recorder.errors.clear();
      }
    }

    private void compareScalarLayout(Param p, byte[] exp, byte[] act, java.util.function.LongToIntFunction laneOf, String what) {
      long count = ((ParamSpec.Buffer) p.spec).count();
      for (long e = 0; e < count; e++) {
        int base = (int) (e * p.elemSize);
        for (Layout.Leaf leaf : p.leaves) {
          int off = base + (int) leaf.scalarOffset();
          compareLeaf(laneOf.applyAsInt(off), leaf, exp, off, act, off,
              what + " element " + e + field(leaf.path()) + ", byte offset " + off);
        }
        for (int i = 0; i < p.elemSize; i++) {
          if (p.elemCovered[i]) continue;
          int off = base + i;
          bytesCompared++;
          if (exp[off] != act[off]) {
            mismatch(laneOf.applyAsInt(off), what + " element " + e + " padding, byte offset " + off,
                String.format("0x%02x", exp[off] & 0xFF), String.format("0x%02x", act[off] & 0xFF));
          }
        }
      }
    }

    private void compareSoa(Param p) {
      long count = ((ParamSpec.Buffer) p.spec).count();
      byte[] packet = sharedP[p.index].contents();
      for (int k = 0; k < width; k++) {
        byte[] exp = laneS[p.index][k].contents();
        for (long e = 0; e < count; e++) {
          for (Layout.Leaf leaf : p.soaLeaves) {
            int so = (int) (e * p.elemSize + leaf.scalarOffset());
            int po = (int) (e * p.soaElemSize + leaf.packetOffset() + k * leaf.laneStride());
            compareLeaf(k, leaf, exp, so, packet, po, "SoA buffer " + p.describe() + " lane " + k + "'s object " + e
                + field(leaf.path()) + " (scalar byte offset " + so + ", packet byte offset " + po + ")");
          }
        }
      }
      byte[] init = soaImage[p.index];
      for (int i = 0; i < packet.length; i++) {
        if (p.soaCovered[(int) (i % p.soaElemSize)]) continue;
        bytesCompared++;
        if (init[i] != packet[i]) {
          mismatch(-1, "SoA buffer " + p.describe() + " padding byte at packet offset " + i + " (must stay unchanged)",
              String.format("0x%02x", init[i] & 0xFF), String.format("0x%02x", packet[i] & 0xFF));
        }
      }
    }

    private void resetGlobals() {
      for (GlobalVar g : globals) MemorySegment.ofAddress(g.address()).reinterpret(g.size()).copyFrom(MemorySegment.ofArray(g.initial()));
    }

    private byte[][] snapshotGlobals() {
      byte[][] out = new byte[globals.size()][];
      for (int i = 0; i < globals.size(); i++) {
        GlobalVar g = globals.get(i);
        out[i] = MemorySegment.ofAddress(g.address()).reinterpret(g.size()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
      }
      return out;
    }

    private void compareGlobals(byte[][] scalar, byte[][] packet) {
      for (int i = 0; i < globals.size(); i++) {
        GlobalVar g = globals.get(i);
        for (int j = 0; j < g.size(); j++) {
          bytesCompared++;
          if (scalar[i][j] != packet[i][j]) {
            mismatch(-1, "global @" + g.name() + " byte " + j, HexFormat.of().formatHex(scalar[i]), HexFormat.of().formatHex(packet[i]));
            break;
          }
        }
      }
    }

    private void compareCalls() {
      if (scalarCalls.isEmpty() && packetCalls.isEmpty()) return;
      if (callsInLaneOrder && !scalarCalls.equals(packetCalls)) {
        int i = 0;
        while (i < scalarCalls.size() && i < packetCalls.size() && scalarCalls.get(i).equals(packetCalls.get(i))) i++;
        mismatch(i < scalarCalls.size() ? scalarCallLanes.get(i)[0] : -1, "external calls in lane order, call #" + i,
            i < scalarCalls.size() ? scalarCalls.get(i).toString() : "no more calls",
            i < packetCalls.size() ? packetCalls.get(i).toString() : "no more calls");
      }
      Map<ExternalCall, List<Integer>> expected = new LinkedHashMap<>();
      for (int i = 0; i < scalarCalls.size(); i++) {
        expected.computeIfAbsent(scalarCalls.get(i), c -> new ArrayList<>()).add(scalarCallLanes.get(i)[0]);
      }
      Map<ExternalCall, Integer> actual = new LinkedHashMap<>();
      for (ExternalCall c : packetCalls) actual.merge(c, 1, Integer::sum);
      for (var e : expected.entrySet()) {
        int made = actual.getOrDefault(e.getKey(), 0);
        List<Integer> lanes = e.getValue();
        if (made < lanes.size()) {
          mismatch(lanes.get(made), "external call " + e.getKey(), lanes.size() + " call(s) (by lanes " + lanes + ")", made + " call(s)");
        }
      }
      for (var e : actual.entrySet()) {
        int want = expected.getOrDefault(e.getKey(), List.of()).size();
        if (e.getValue() > want) {
          mismatch(-1, "external call " + e.getKey(), want + " call(s)", e.getValue() + " call(s) (extra calls)");
        }
      }
    }

    private String field(String path) { return path.isEmpty() ? "" : " field " + path; }

    // ---- readable inputs ----

    String laneInputs(int lane) {
      if (lane >= 0) return oneLane(lane);
      StringBuilder sb = new StringBuilder();
      for (int k = 0; k < width; k++) sb.append(k == 0 ? "" : "; ").append("lane ").append(k).append(": ").append(oneLane(k));
      return sb.toString();
    }

    private String oneLane(int k) {
      StringBuilder sb = new StringBuilder();
      for (Param p : params) {
        if (sb.length() > 0) sb.append(", ");
        if (p.spec instanceof ParamSpec.Mask) {
          sb.append(p.name).append('=').append(active[k] ? "active" : "INACTIVE");
          continue;
        }
        sb.append(p.name).append('=');
        if (p.composite) {
          StringBuilder f = new StringBuilder("{");
          for (Layout.Leaf leaf : p.leaves) {
            f.append(f.length() == 1 ? "" : ", ").append(Values.formatBytes(leaf.kind(), laneImages[p.index][k], (int) leaf.scalarOffset(), leaf.size()));
          }
          sb.append(f).append('}').append(p.spec instanceof ParamSpec.Varying ? "" : " (uniform)");
          continue;
        }
        switch (p.spec) {
          case ParamSpec.Varying v -> sb.append(Values.format(p.kind, p.bits, laneValue(p, k)));
          case ParamSpec.Uniform u -> sb.append(Values.format(p.kind, p.bits, laneValue(p, k))).append(" (uniform)");
          case ParamSpec.Linear l -> sb.append(Values.format(p.kind, p.bits, laneValue(p, k)))
              .append(" (linear: base ").append(Values.format(p.kind, p.bits, laneValues[p.index][0])).append(" + ").append(k).append('*').append(l.step()).append(')');
          case ParamSpec.UniformPtr u -> sb.append("shared buffer");
          case ParamSpec.LinearPtr l -> sb.append("buffer base + ").append(k * l.stepBytes()).append(" bytes");
          case ParamSpec.VaryingPtr v -> sb.append("own buffer, initially ").append(preview(p, laneImages[p.index][k]));
          case ParamSpec.SoaPtr s -> sb.append("own object, initially ").append(preview(p, laneImages[p.index][k]));
          default -> { }
        }
      }
      return sb.toString();
    }

    private String preview(Param p, byte[] img) {
      StringBuilder sb = new StringBuilder("{");
      int n = 0;
      long count = ((ParamSpec.Buffer) p.spec).count();
      outer:
      for (long e = 0; e < count; e++) {
        for (Layout.Leaf leaf : p.leaves) {
          if (n == 6) {
            sb.append(", ...");
            break outer;
          }
          sb.append(n++ == 0 ? "" : ", ").append(Values.formatBytes(leaf.kind(), img, (int) (e * p.elemSize + leaf.scalarOffset()), leaf.size()));
        }
      }
      return sb.append('}').toString();
    }
  }

  // ==== recorded external calls ====

  /** Logs calls of recorded externals into the current run's list; upcalls land here. */
  static final class CallRecorder {
    private static final MethodHandle LOG;

    static {
      try {
        LOG = MethodHandles.lookup().findVirtual(CallRecorder.class, "log",
            MethodType.methodType(Object.class, String.class, MethodHandle.class, Class.class, Object[].class));
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private List<ExternalCall> log;
    private List<int[]> lanes;
    private int lane;
    final List<String> errors = new ArrayList<>();

    void start(List<ExternalCall> log, int lane, List<int[]> lanes) {
      this.log = log;
      this.lane = lane;
      this.lanes = lanes;
    }

    void stop() {
      log = null;
      lanes = null;
    }

    /** Never throws: an exception escaping an upcall would terminate the JVM. */
    Object log(String symbol, MethodHandle impl, Class<?> returnType, Object[] args) {
      try {
        if (log == null) {
          errors.add(symbol + " called outside a run");
        } else {
          log.add(new ExternalCall(symbol, Arrays.asList(args)));
          if (lanes != null) lanes.add(new int[] {lane});
        }
        return impl == null ? zero(returnType) : impl.invokeWithArguments(args);
      } catch (Throwable t) {
        errors.add(symbol + " threw " + t);
        return zero(returnType);
      }
    }

    private static Object zero(Class<?> t) {
      if (t == MemorySegment.class) return MemorySegment.NULL;
      if (t == void.class || !t.isPrimitive()) return null;
      if (t == boolean.class) return false;
      if (t == char.class) return (char) 0;
      if (t == byte.class) return (byte) 0;
      if (t == short.class) return (short) 0;
      if (t == int.class) return 0;
      if (t == long.class) return 0L;
      if (t == float.class) return 0f;
      return 0d;
    }

    MethodHandle upcall(String symbol, FunctionDescriptor fd, MethodHandle impl) {
      MethodType mt = fd.toMethodType();
      MethodHandle h = MethodHandles.insertArguments(LOG.bindTo(this), 0, symbol, impl, mt.returnType());
      h = h.asCollector(Object[].class, mt.parameterCount());
      return h.asType(mt);
    }
  }

  // ==== building ====

  /** Configures and builds a {@link DifferentialCheck}. */
  public static final class Builder {
    private final LlvmModule module;
    private final String scalarName, packetName;
    private final int width;
    private List<ParamSpec> specs;
    private long ulps;
    private final Map<String, Integer> globals = new LinkedHashMap<>();
    private boolean guardPages = true;
    private boolean callsInLaneOrder;
    private String cpu, features;
    private final Map<String, Object[]> externals = new LinkedHashMap<>();
    private java.util.function.Consumer<String> progress;
    private CrossTarget cross;

    private Builder(LlvmModule module, String scalarName, String packetName, int width) {
      this.module = Objects.requireNonNull(module, "module");
      this.scalarName = Objects.requireNonNull(scalarName, "scalarFunction");
      this.packetName = Objects.requireNonNull(packetName, "packetFunction");
      if (width < 1) throw new IllegalArgumentException("width " + width);
      this.width = width;
    }

    /**
     * How each packet parameter maps (packet parameter order). Without this, specs are inferred for
     * scalar parameters: {@code <W x T>} is VARYING, {@code T} UNIFORM, an extra trailing
     * {@code <W x i1>} the MASK; pointers always need explicit specs.
     */
    public Builder params(ParamSpec... specs) { return params(List.of(specs)); }

    public Builder params(List<ParamSpec> specs) {
      this.specs = List.copyOf(specs);
      return this;
    }

    /** Accept floats and doubles at most this many units in the last place apart (default 0: bitwise). */
    public Builder ulps(long ulps) {
      if (ulps < 0) throw new IllegalArgumentException("ulps " + ulps);
      this.ulps = ulps;
      return this;
    }

    /**
     * Global variable {@code name} of the module ({@code size} bytes) is set to its initial contents
     * before the scalar runs and before the packet run, and compared byte by byte afterwards: the W
     * scalar calls, one after the other, must leave it as the packet call does.
     */
    public Builder global(String name, int size) {
      globals.put(name, size);
      return this;
    }

    /**
     * Also require the packet run's recorded calls in exactly the order of the scalar runs' (lane 0's
     * calls, then lane 1's, ...), as W sequential calls make them: for functions whose calls a packet
     * function makes lane by lane (one call site, or a callee that is not split). Default: compare the
     * calls as a multiset only.
     */
    public Builder callsInLaneOrder(boolean on) {
      this.callsInLaneOrder = on;
      return this;
    }

    /** Guard pages around buffers (default on where mmap is available). */
    public Builder guardPages(boolean on) {
      this.guardPages = on;
      return this;
    }

    /** JIT for this CPU and features instead of the host's. */
    public Builder target(String cpu, String features) {
      this.cpu = Objects.requireNonNull(cpu);
      this.features = Objects.requireNonNull(features);
      return this;
    }

    /**
     * Defines external function {@code symbol} (returning void) as a Java upcall that logs each call
     * with its arguments; the scalar and packet call logs are compared (see the class comment).
     */
    public Builder recordCalls(String symbol, FunctionDescriptor descriptor) { return recordCalls(symbol, descriptor, null); }

    /**
     * As {@link #recordCalls(String, FunctionDescriptor)}, and {@code implementation} (matching the
     * descriptor's method type) computes the result. It should be deterministic: it runs for every
     * lane's scalar call and again for the packet's calls.
     */
    public Builder recordCalls(String symbol, FunctionDescriptor descriptor, MethodHandle implementation) {
      if (implementation == null && descriptor.returnLayout().isPresent()) {
        throw new IllegalArgumentException("recorded external '" + symbol + "' returns a value: give an implementation");
      }
      externals.put(symbol, new Object[] {descriptor, implementation});
      return this;
    }

    /**
     * Told, just before each native call, what is about to run ("scalar @f lane 3: x=..." or "packet
     * @f_simd8 ..."): an isolated check (a child process) reports where checked code crashed or hung.
     */
    public Builder progress(java.util.function.Consumer<String> listener) {
      this.progress = listener;
      return this;
    }

    /**
     * Compile the two functions for {@code target} and run them under qemu-user instead of in the
     * host's JIT (null: the host). The module should be that target's already ({@link
     * org.packetizer.core.api.TargetSpec#applyTo}). Not with {@link #global}, {@link #external} or
     * {@link #recordCalls} of anything but {@code void record(int)}: the emulated process cannot reach
     * the host's memory or Java. {@code record(int)} is defined by the launcher, which logs each call's
     * argument in order; the logs are compared as the upcalls' are on the host.
     */
    public Builder crossTarget(CrossTarget target) {
      this.cross = target;
      return this;
    }

    /** Whether {@code symbol} is recorded as the launcher under qemu can: {@code void record(int)}, no implementation. */
    private boolean emulatedRecord(String symbol) {
      Object[] v = externals.get(symbol);
      return symbol.equals(EMULATED_RECORD) && v.length == 2 && v[1] == null
          && ((FunctionDescriptor) v[0]).equals(FunctionDescriptor.ofVoid(java.lang.foreign.ValueLayout.JAVA_INT));
    }

    /** Defines external function {@code symbol} at a native address (not logged). */
    public Builder external(String symbol, long address) {
      externals.put(symbol, new Object[] {address});
      return this;
    }

    public DifferentialCheck build() {
      if (cross != null && (!globals.isEmpty() || !externals.keySet().stream().allMatch(this::emulatedRecord))) {
        throw new UnsupportedOperationException("a check under qemu (" + cross.name() + ") cannot compare globals, record"
            + " calls other than void " + EMULATED_RECORD + "(int) or define externals: the emulated process cannot reach the"
            + " host's memory or Java");
      }
      Jit jit = cross != null ? null : cpu == null ? Jit.host() : Jit.forTarget(cpu, features);
      LlvmModule layout = module;
      LlvmModule clone = null;
      try {
        if (cross != null) {
          if (module.dataLayoutString().isEmpty() || !module.targetTriple().equals(cross.spec().triple())) {
            clone = module.cloneModule();
            cross.spec().applyTo(clone);
            layout = clone;
          }
        } else if (module.dataLayoutString().isEmpty()) {
          clone = module.cloneModule();
          clone.setDataLayout(jit.dataLayout());
          if (clone.targetTriple().isEmpty()) clone.setTargetTriple(jit.triple());
          layout = clone;
        }
        Function s = function(layout, scalarName, "scalar");
        Function p = function(layout, packetName, "packet");
        List<ParamSpec> sp = specs != null ? specs : infer(s, p);
        List<Param> ps = new ArrayList<>();
        int maskIndex = -1;
        int scalarIndex = 0;
        if (sp.size() != p.paramCount()) {
          throw new IllegalArgumentException(sp.size() + " parameter specs for packet function @" + packetName
              + " which has " + p.paramCount() + " parameters");
        }
        for (int i = 0; i < sp.size(); i++) {
          ParamSpec spec = Objects.requireNonNull(sp.get(i), "spec #" + i);
          Param q = new Param();
          q.index = i;
          q.spec = spec;
          q.packetType = p.param(i).type();
          if (spec instanceof ParamSpec.Mask) {
            if (maskIndex >= 0) throw new IllegalArgumentException("two MASK parameters (#" + maskIndex + " and #" + i + ")");
            maskIndex = i;
            q.scalarIndex = -1;
            q.name = p.param(i).name().isEmpty() ? "mask" : p.param(i).name();
          } else {
            if (scalarIndex >= s.paramCount()) {
              throw new IllegalArgumentException("spec #" + i + " (" + spec.kindName() + ") has no scalar parameter: @" + scalarName
                  + " has only " + s.paramCount());
            }
            q.scalarIndex = scalarIndex++;
            q.scalarType = s.param(q.scalarIndex).type();
            q.name = s.param(q.scalarIndex).name().isEmpty() ? "arg" + q.scalarIndex : s.param(q.scalarIndex).name();
          }
          configure(q, layout);
          ps.add(q);
        }
        if (scalarIndex != s.paramCount()) {
          throw new IllegalArgumentException("the specs cover " + scalarIndex + " of the " + s.paramCount() + " parameters of @" + scalarName);
        }
        Type sr = s.returnType(), pr = p.returnType();
        List<Layout.Leaf> rl = null;
        if (sr.isVoid() != pr.isVoid()) {
          throw new IllegalArgumentException("@" + scalarName + " returns " + sr + " but @" + packetName + " returns " + pr);
        }
        if (!sr.isVoid()) {
          try {
            rl = Layout.leaves(layout, sr, pr, width, true);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("return type of @" + packetName + ": " + e.getMessage(), e);
          }
        }
        CallRecorder recorder = new CallRecorder();
        if (cross != null) {
          QemuExecutor q = QemuExecutor.start(cross, layout, scalarName, packetName);
          try {
            return new DifferentialCheck(this, null, q, ps, maskIndex, rl, recorder);
          } catch (RuntimeException e) {
            q.close();
            throw e;
          }
        }
        for (var e : externals.entrySet()) {
          Object[] v = e.getValue();
          if (v.length == 1) jit.defineSymbol(e.getKey(), (Long) v[0]);
          else jit.defineUpcall(e.getKey(), recorder.upcall(e.getKey(), (FunctionDescriptor) v[0], (MethodHandle) v[1]), (FunctionDescriptor) v[0]);
        }
        // only what the two functions reach: an unresolved symbol elsewhere in the module (an external
        // another function calls) must not keep these two from linking
        try (LlvmModule pruned = layout.cloneModule()) {
          pruned.deleteUnreferencedFunctions(java.util.Set.of(scalarName, packetName));
          jit.addModule(pruned);
        }
        return new DifferentialCheck(this, jit, null, ps, maskIndex, rl, recorder);
      } catch (RuntimeException e) {
        if (jit != null) jit.close();
        throw e;
      } finally {
        if (clone != null) clone.close();
      }
    }


    private static Function function(LlvmModule m, String name, String what) {
      Function f = m.function(name).orElseThrow(() -> new IllegalArgumentException("no " + what + " function @" + name + " in the module"));
      if (f.isDeclaration()) throw new IllegalArgumentException(what + " function @" + name + " is only declared");
      return f;
    }

    private List<ParamSpec> infer(Function s, Function p) {
      List<ParamSpec> out = new ArrayList<>();
      for (int i = 0; i < p.paramCount(); i++) {
        Type tp = p.param(i).type();
        if (i < s.paramCount()) {
          Type ts = s.param(i).type();
          if (ts.isPointer()) throw new IllegalArgumentException("parameter #" + i + " is a pointer: give ParamSpecs (which pointer kind, pointee, count)");
          if (CompositePackets.isComposite(ts) && tp.equals(packetTypeOrNull(ts))) out.add(ParamSpec.varying());
          else if (!ts.isVector() && tp.equals(ts.vectorOf(width))) out.add(ParamSpec.varying());
          else if (tp.equals(ts)) out.add(ParamSpec.uniform());
          else throw new IllegalArgumentException("cannot infer how packet parameter #" + i + " (" + tp + ") maps scalar parameter (" + ts + "): give ParamSpecs");
        } else if (i == s.paramCount() && tp.isVector() && tp.vectorSize() == width && tp.elementType().isInteger(1)) {
          out.add(ParamSpec.mask());
        } else {
          throw new IllegalArgumentException("packet parameter #" + i + " (" + tp + ") has no scalar counterpart: give ParamSpecs");
        }
      }
      return out;
    }

    private void configure(Param q, LlvmModule dl) {
      String where = "packet parameter #" + q.index + " '" + q.name + "' (" + q.spec.kindName() + ")";
      Type ts = q.scalarType, tp = q.packetType;
      switch (q.spec) {
        case ParamSpec.Mask m -> {
          expect(tp, dl.context().i1().vectorOf(width), where);
          q.kind = ScalarKind.BOOL;
          q.bits = 1;
          q.domain = ValueDomain.ints(0, 1);
        }
        case ParamSpec.Varying v when CompositePackets.isComposite(ts) -> composite(q, dl, v.domain(), true, where);
        case ParamSpec.Uniform u when CompositePackets.isComposite(ts) -> composite(q, dl, u.domain(), false, where);
        case ParamSpec.Varying v -> { scalar(q, v.domain(), where); expect(tp, ts.vectorOf(width), where); }
        case ParamSpec.Uniform u -> { scalar(q, u.domain(), where); expect(tp, ts, where); }
        case ParamSpec.Linear l -> {
          scalar(q, l.domain(), where);
          if (q.kind != ScalarKind.INT) throw new IllegalArgumentException(where + ": LINEAR needs an integer parameter, got " + ts);
          expect(tp, ts, where);
        }
        case ParamSpec.Buffer b -> {
          if (!ts.isPointer()) throw new IllegalArgumentException(where + ": the scalar parameter is " + ts + ", not a pointer");
          expect(tp, b instanceof ParamSpec.VaryingPtr ? ts.vectorOf(width) : ts, where);
          q.kind = ScalarKind.PTR;
          q.bits = 64;
          Type pointee = b.pointee();
          q.elemSize = dl.allocSize(pointee);
          q.bytes = q.elemSize * b.count();
          q.leaves = Layout.leaves(dl, pointee);
          q.elemCovered = covered(q.leaves, q.elemSize);
          long align = Math.max(64, dl.abiAlignment(pointee));
          if (b instanceof ParamSpec.LinearPtr l) {
            if (l.stepBytes() < 0) throw new IllegalArgumentException(where + ": negative step " + l.stepBytes());
            if ((width - 1) * l.stepBytes() >= q.bytes) {
              throw new IllegalArgumentException(where + ": lane " + (width - 1) + " starts at byte " + (width - 1) * l.stepBytes()
                  + ", past the buffer of " + q.bytes + " bytes (" + b.count() + " x " + pointee + ")");
            }
          }
          if (b instanceof ParamSpec.SoaPtr) {
            Type soa;
            try {
              soa = Layout.packetize(pointee, width);
              q.soaLeaves = Layout.leaves(dl, pointee, soa, width, false);
            } catch (IllegalArgumentException e) {
              throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
            q.soaElemSize = dl.allocSize(soa);
            q.soaBytes = q.soaElemSize * b.count();
            q.soaCovered = covered(q.soaLeaves, q.soaElemSize, width);
            align = Math.max(align, dl.abiAlignment(soa));
          }
          q.align = Long.highestOneBit(align) == align ? align : Long.highestOneBit(align) << 1;
        }
      }
    }

    private Type packetTypeOrNull(Type t) {
      try {
        return CompositePackets.packetType(t, width);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    /** A vector or aggregate parameter by value: its leaves, in the scalar layout and the packet's. */
    private void composite(Param q, LlvmModule dl, ValueDomain d, boolean varying, String where) {
      if (d != null) throw new IllegalArgumentException(where + ": value domains are not supported for " + q.scalarType + " parameters");
      Type ts = q.scalarType, tp = q.packetType;
      Type expected = varying ? packetTypeOrNull(ts) : ts;
      if (expected == null) throw new IllegalArgumentException(where + ": " + ts + " has no packet type");
      expect(tp, expected, where);
      try {
        q.leaves = varying ? Layout.leaves(dl, ts, tp, width, true) : Layout.leaves(dl, ts);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
      for (Layout.Leaf l : q.leaves) {
        if (l.kind() == ScalarKind.PTR) throw new IllegalArgumentException(where + ": pointer field " + l.path() + " in a by-value " + ts + " is not supported");
      }
      q.composite = true;
      q.kind = ScalarKind.BYTES;
      q.bits = 0;
      q.scalarBytes = dl.storeSize(ts);
      q.packetBytes = dl.storeSize(tp);
    }

    private void scalar(Param q, ValueDomain d, String where) {
      Type t = q.scalarType;
      ScalarKind k = Layout.kindOf(t);
      if (t.isPointer()) throw new IllegalArgumentException(where + ": a pointer needs a pointer spec (UNIFORM_PTR, LINEAR_PTR, VARYING_PTR, SOA_PTR)");
      if (k == ScalarKind.BYTES || t.isVector()) throw new IllegalArgumentException(where + ": unsupported scalar type " + t);
      q.kind = k;
      q.bits = switch (k) {
        case BOOL -> 1;
        case INT -> t.intWidth();
        case FLOAT -> 32;
        case HALF -> 16;
        default -> 64;
      };
      ValueDomain dom = d == null ? ValueDomain.defaultFor(k, q.bits) : d;
      boolean fp = k == ScalarKind.FLOAT || k == ScalarKind.DOUBLE || k == ScalarKind.HALF;
      if (fp != (dom instanceof ValueDomain.Floats)) {
        throw new IllegalArgumentException(where + ": a " + (fp ? "Floats" : "Ints") + " domain is needed for " + t + ", got " + dom);
      }
      q.domain = dom;
    }

    private static void expect(Type actual, Type expected, String where) {
      if (!actual.equals(expected)) {
        throw new IllegalArgumentException(where + ": the packet function takes " + actual + " where " + expected + " is expected");
      }
    }

    private static boolean[] covered(List<Layout.Leaf> leaves, long size) {
      boolean[] c = new boolean[Math.toIntExact(size)];
      for (Layout.Leaf l : leaves) Arrays.fill(c, (int) l.scalarOffset(), (int) l.scalarOffset() + l.size(), true);
      return c;
    }

    private static boolean[] covered(List<Layout.Leaf> leaves, long size, int width) {
      boolean[] c = new boolean[Math.toIntExact(size)];
      for (Layout.Leaf l : leaves) {
        for (int k = 0; k < width; k++) {
          int o = (int) (l.packetOffset() + k * l.laneStride());
          Arrays.fill(c, o, o + l.size(), true);
        }
      }
      return c;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (jit != null) jit.close();
    if (emulator != null) emulator.close();
  }

  private boolean closed;

  @Override public String toString() {
    return "DifferentialCheck[@" + scalarName + " vs @" + packetName + ", W=" + width + ", " + params() + "]";
  }
}
