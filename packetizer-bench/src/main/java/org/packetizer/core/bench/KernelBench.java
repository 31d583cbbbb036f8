package org.packetizer.core.bench;

import static org.bytedeco.llvm.global.LLVM.LLVMExternalLinkage;
import static org.bytedeco.llvm.global.LLVM.LLVMInternalLinkage;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.packetizer.core.driver.Interleave;
import org.packetizer.core.api.WrapperMode;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.bench.BenchBuffers.Loop;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ToolchainException;

/**
 * Measures one kernel at every target: builds the scalar, auto-vectorized and packet loops for the
 * target's CPU, JITs them into one JIT, checks that they compute the same outputs and times them
 * side by side (interleaved, medians).
 */
final class KernelBench {
  /**
   * The memory strategy of the packet loops: {@code -Dpacketizer.bench.memory=CASCADE} measures the
   * thesis' if-cascades against the default gathers/scatters (the figures behind the default).
   */
  static final org.packetizer.core.api.MemoryStrategy MEMORY =
      org.packetizer.core.api.MemoryStrategy.valueOf(System.getProperty("packetizer.bench.memory", "GATHER"));

  /**
   * Integer masks in the packet loops: {@code -Dpacketizer.bench.integerMasks=NEVER|ALWAYS} measures
   * them against the default (AUTO: on targets without mask registers at W ≥ 4).
   */
  /** Skip threshold of the packet loops ({@code -Dpacketizer.bench.skipThreshold=N}; default the library's). */
  static final int SKIP_THRESHOLD = Integer.getInteger("packetizer.bench.skipThreshold",
      org.packetizer.core.api.PacketizerOptions.builder().build().skipThreshold());

  /**
   * Whether the benchmark also times the generated array drivers ({@code packetize --array-driver}, plain
   * and with {@code --refill=auto}) as a C caller calls them: {@code -Dpacketizer.bench.drivers=false}
   * leaves their columns empty (and saves their packetizations and timed runs).
   */
  static final boolean DRIVERS = !"false".equals(System.getProperty("packetizer.bench.drivers"));

  static final org.packetizer.core.api.IntegerMasks INT_MASKS =
      org.packetizer.core.api.IntegerMasks.valueOf(System.getProperty("packetizer.bench.integerMasks", "AUTO"));

  /** Receives what happens, in order. */
  interface Listener {
    /** A target is about to run (an isolated worker reports this so that a crash can be attributed). */
    default void started(String kernel, BenchTarget t) {}

    void result(KernelResult r);

    void failure(KernelFailure f);

    /** Progress for humans. */
    void log(String message);

    /**
     * The loops' memory after the last timed run of a target, before it is freed ({@code n} elements;
     * tests compare the loops' outputs with the scalar loop's themselves).
     */
    default void outputs(String kernel, BenchTarget t, int n, BenchBuffers buf) {}
  }

  private static final FunctionDescriptor LOOP = FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);

  private final Manifest manifest;
  private final BenchOptions options;
  private final BenchSources sources;
  private final Watchdog watchdog;
  private final Listener out;
  /** Compiled C drivers, by kernel, loop and CPU. */
  private final Map<String, byte[]> compiled = new HashMap<>();

  KernelBench(Manifest manifest, BenchOptions options, BenchSources sources, Watchdog watchdog, Listener out) {
    this.manifest = manifest;
    this.options = options;
    this.sources = sources;
    this.watchdog = watchdog;
    this.out = out;
  }

  /** Runs every target of {@code options} for one kernel. */
  void run(String kernel) {
    Manifest.Entry entry = manifest.require(kernel);
    warmUpPacketizer(entry);
    for (BenchTarget t : options.targets()) {
      out.started(kernel, t);
      try {
        runTarget(entry, t);
      } catch (Stage.Failed f) {
        out.failure(new KernelFailure(kernel, t.width(), t.isa().name(), f.stage, f.getMessage()));
      } catch (RuntimeException | LinkageError e) {
        out.failure(new KernelFailure(kernel, t.width(), t.isa().name(), "error", e.toString()));
      }
    }
  }

  /**
   * Packetizes throw-away copies of the kernel a few times so that {@code packetize_ms} is not
   * mostly class loading and interpretation in a fresh worker JVM (it is still far from a fully
   * JIT-compiled packetizer; the scaling study measures that).
   */
  private void warmUpPacketizer(Manifest.Entry entry) {
    for (int i = 0; i < WARMUP_PACKETIZATIONS; i++) {
      for (BenchTarget t : options.targets()) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(entry), entry.bitcode())) {
          new Packetizer(PacketizerOptions.builder().width(t.width()).params(entry.signature()).vectorMath(options.vectorMath())
              .memoryStrategy(MEMORY).integerMasks(INT_MASKS).skipThreshold(SKIP_THRESHOLD).build())
              .run(m, entry.function(), entry.function() + "_warmup");
        } catch (RuntimeException e) {
          return; // reported properly when the target runs
        }
      }
    }
  }

  static final int WARMUP_PACKETIZATIONS = 2;

  /** A failure at a named stage. */
  static final class Stage {
    static final class Failed extends RuntimeException {
      final String stage;

      Failed(String stage, String message, Throwable cause) {
        super(message, cause);
        this.stage = stage;
      }
    }

    static Failed of(String stage, String message) { return new Failed(stage, message, null); }

    static Failed of(String stage, Throwable cause) {
      String m = cause.getMessage() == null ? cause.toString() : cause.getMessage();
      return new Failed(stage, m, cause);
    }
  }

  private void runTarget(Manifest.Entry entry, BenchTarget t) {
    String cpu = t.isa().cpu();
    int w = t.width();
    String tag = entry.name() + " " + t.label() + " (" + cpu + ")";
    List<String> missing = t.isa().missingOnHost();
    if (!missing.isEmpty()) throw Stage.of("host", "this host lacks " + String.join(", ", missing) + " needed for " + cpu);
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule km = ctx.load(manifest.bitcode(entry), entry.bitcode())) {
      KernelPlan plan;
      try {
        plan = KernelPlan.of(entry, km);
      } catch (UnsupportedOperationException e) {
        throw Stage.of("plan", e);
      }

      // (3) the packet function and its loop, packetized for the target CPU (as a user compiling for
      // it would: e.g. the choice of integer masks depends on it)
      retarget(km, cpu);
      String simd = entry.function() + "_simd" + w;
      PacketizerOptions po = PacketizerOptions.builder().width(w).params(entry.signature()).vectorMath(options.vectorMath())
          .memoryStrategy(MEMORY).integerMasks(INT_MASKS).skipThreshold(SKIP_THRESHOLD).build();
      PacketizationResult pr;
      try {
        pr = new Packetizer(po).run(km, entry.function(), simd);
      } catch (PacketizationException e) {
        throw Stage.of("packetize", e);
      }
      // the interleave count (issue 16): ic independent W-lane packets per step of the packet loop, as
      // one packet function of ic*W lanes compiled for the same W-lane registers (Interleave's rule)
      Interleave.Choice choice = Interleave.choose(km.function(entry.function()).orElseThrow(), w, options.interleave(),
          org.packetizer.core.api.ParamKind.parseLetters(entry.signature()), km.function(simd).orElse(null));
      int ic = choice.factor();
      if (ic > 1 && options.elements() > 0 && options.elements() % (ic * w) != 0) {
        out.log(entry.name() + " " + t.label() + ": interleave count 1, " + options.elements() + " elements are not a multiple of " + ic * w);
        ic = 1;
      }
      out.log(entry.name() + " " + t.label() + ": " + choice.describe(w).replace("interleave count " + choice.factor(),
          "interleave count " + ic));
      String looped = simd;
      if (ic > 1) {
        looped = simd + ".x" + ic;
        PacketizerOptions pi = po.toBuilder().width(ic * w).wrapperMode(WrapperMode.DIRECT).build();
        try {
          new Packetizer(pi).run(km, entry.function(), looped);
        } catch (PacketizationException e) {
          throw Stage.of("packetize", e);
        }
      }
      Function packet = km.function(looped).orElseThrow();
      Drivers.packetDriver(km, packet, plan, ic * w);
      km.verify().ifPresent(m -> { throw Stage.of("driver", "the packet loop is invalid: " + m); });
      retarget(km, cpu);
      km.runPasses("always-inline");

      // (1), (2) the C loops
      sources.require(entry);
      LlvmModule sm = ctx.parseBitcode(compileC(entry, plan, Drivers.SCALAR, cpu), "scalar");
      LlvmModule am = ctx.parseBitcode(compileC(entry, plan, Drivers.AUTOVEC, cpu), "autovec");
      List<DriverModule> drivers = new ArrayList<>();
      try {
        if (DRIVERS) {
          // what clang -march=CPU writes into a function's target-features: the array drivers are built as a
          // user builds them from C compiled for the CPU (the auto rule reads the features)
          String features = sm.function(Drivers.SCALAR).flatMap(f -> f.stringAttribute("target-features")).orElse("");
          for (boolean auto : new boolean[] {false, true}) {
            try {
              drivers.add(driverModule(ctx, entry, plan, cpu, features, po, auto));
            } catch (RuntimeException e) {
              // the other columns are still measured; the driver's are empty, and why is logged
              out.log(entry.name() + " " + t.label() + ": no " + (auto ? "auto " : "") + "array driver column: " + e.getMessage());
            }
          }
        }
        internalizeAllBut(sm, Drivers.SCALAR);
        internalizeAllBut(am, Drivers.AUTOVEC);
        retarget(sm, cpu);
        retarget(am, cpu);
        // each timed loop starts on a 64-byte boundary whatever precedes it in its module (issue 16: the
        // packet module's math helpers come first, and their size moved binomial's hot loop across
        // fetch blocks: 190 vs 282 ns/element at W4 with identical loop code)
        alignLoopFunction(sm, Drivers.SCALAR);
        alignLoopFunction(am, Drivers.AUTOVEC);
        alignLoopFunction(km, Drivers.PACKET);
        if (options.dumpDir() != null) dump(entry, t, km, sm, am, drivers);
        int[] machine = machineInstructions(entry, km, cpu, simd);
        try (Jit jit = Jit.forTarget(cpu, ""); java.lang.foreign.Arena gccArena = java.lang.foreign.Arena.ofConfined()) {
          MethodHandle[] loops = new MethodHandle[Loop.values().length];
          loops[Loop.GCC.ordinal()] = gccLoop(entry, plan, cpu, gccArena);
          try {
            jit.addModule(sm);
            jit.addModule(am);
            jit.addModule(km);
            loops[Loop.SCALAR.ordinal()] = handle(jit.lookup(Drivers.SCALAR));
            loops[Loop.AUTOVEC.ordinal()] = handle(jit.lookup(Drivers.AUTOVEC));
            loops[Loop.PACKET.ordinal()] = handle(jit.lookup(Drivers.PACKET));
            for (DriverModule d : drivers) {
              jit.addModule(d.module());
              loops[d.loop().ordinal()] = handle(jit.lookup(d.caller()));
            }
          } catch (RuntimeException e) {
            throw Stage.of("jit", e);
          }
          out.log(String.format(Locale.ROOT, "%-12s %-12s packetized in %.1f ms, %d -> %d instructions (machine code %d -> %d with the"
              + " functions it calls, %d the packet function alone)",
              entry.name(), t.label(), pr.nanos() / 1e6, pr.scalarInstructions(), pr.packetInstructions(), machine[0], machine[1], machine[2]));
          MemorySegment autoState = null;
          for (DriverModule d : drivers) {
            if (d.loop() == Loop.AUTO && d.module().global(Drivers.AUTO_MAP + org.packetizer.core.driver.RefillDriver.STATE_SUFFIX).isPresent()) {
              autoState = MemorySegment.ofAddress(jit.lookup(Drivers.AUTO_MAP + org.packetizer.core.driver.RefillDriver.STATE_SUFFIX)).reinterpret(AUTO_STATE_WORDS * 8L);
            }
          }
          String autoRule = drivers.stream().filter(d -> d.loop() == Loop.AUTO).map(DriverModule::rule).findFirst().orElse("");
          KernelResult r = measure(entry, t, plan, pr, machine, loops, tag, ic, autoState, autoRule);
          out.result(r);
        }
      } finally {
        sm.close();
        am.close();
        for (DriverModule d : drivers) d.module().close();
      }
    }
  }

  /** The auto driver's state words ({@code RefillDriver.STATE_*}). */
  static final int AUTO_STATE_WORDS = org.packetizer.core.driver.RefillDriver.STATE_FIELDS,
      STATE_REFILL = org.packetizer.core.driver.RefillDriver.STATE_CHOICE, STATE_TRIALS = org.packetizer.core.driver.RefillDriver.STATE_TRIALS,
      STATE_ALARMS = org.packetizer.core.driver.RefillDriver.STATE_PLAIN_ALARMS,
      STATE_TRIAL_REFILL = org.packetizer.core.driver.RefillDriver.STATE_TRIAL_REFILL;

  /** An array driver's module, the loop it is timed as, its caller's name and (auto) the packetizer's refill remark. */
  record DriverModule(LlvmModule module, Loop loop, String caller, String rule) {}

  /**
   * The kernel packetized as {@code packetize --array-driver} (plain) or with {@code --refill=auto} makes
   * it, in a module of its own: the same bitcode, compiled for {@code cpu} with clang's features for it,
   * the bench's packetizer options otherwise (the interleave count the bench's, by default the rule's as
   * in the CLI), struct-of-arrays parameters as linear pointers ({@link Drivers#driverSignature}); plus
   * the caller {@link Drivers#driverCaller} the timing calls. Everything but the caller and the auto
   * driver's state is internal, so the modules share the JIT with the others.
   */
  /**
   * What the auto column builds: {@code --refill=auto}, or with {@code -Dpacketizer.bench.autoColumn=on} the refill
   * driver alone ({@code --refill}: no plain body, no trials), for measuring refill against the plain driver directly.
   */
  static org.packetizer.core.api.Refill autoColumnRefill() {
    return "on".equals(System.getProperty("packetizer.bench.autoColumn")) ? org.packetizer.core.api.Refill.ON
        : org.packetizer.core.api.Refill.AUTO;
  }

  private DriverModule driverModule(LlvmContext ctx, Manifest.Entry entry, KernelPlan plan, String cpu, String features,
      PacketizerOptions po, boolean auto) {
    String map = auto ? Drivers.AUTO_MAP : Drivers.DRIVER_MAP, caller = auto ? Drivers.AUTO : Drivers.DRIVER;
    LlvmModule dm = ctx.load(manifest.bitcode(entry), entry.bitcode());
    try {
      retarget(dm, cpu);
      if (!features.isEmpty()) for (Function f : dm.functions()) if (!f.isDeclaration()) f.setStringAttribute("target-features", features);
      List<String> rule = new ArrayList<>();
      PacketizerOptions o = po.toBuilder().params(Drivers.driverSignature(entry.signature(), plan)).interleave(options.interleave())
          .arrayDriver(map).refill(auto ? autoColumnRefill() : org.packetizer.core.api.Refill.OFF)
          .remarks(x -> { if (x.message().contains("refill")) rule.add(x.message()); }).build();
      try {
        new Packetizer(o).run(dm, entry.function(), entry.function() + (auto ? "_auto" : "_plain") + po.width());
      } catch (PacketizationException e) {
        throw Stage.of("driver", e);
      }
      Function drv = dm.function(map).orElseThrow(() -> Stage.of("driver", "no array driver " + map + " was made"));
      Drivers.driverCaller(dm, drv, plan, caller);
      for (Function f : dm.functions()) {
        if (!f.isDeclaration()) f.setLinkage(f.name().equals(caller) ? LLVMExternalLinkage : LLVMInternalLinkage);
      }
      for (org.packetizer.core.ir.Value g : dm.globals()) {
        if (!g.name().equals(map + org.packetizer.core.driver.RefillDriver.STATE_SUFFIX) && org.bytedeco.llvm.global.LLVM.LLVMIsDeclaration(g.ref()) == 0) {
          org.bytedeco.llvm.global.LLVM.LLVMSetLinkage(g.ref(), LLVMInternalLinkage);
        }
      }
      dm.verify().ifPresent(m -> { throw Stage.of("driver", "the array driver's module is invalid: " + m); });
      return new DriverModule(dm, auto ? Loop.AUTO : Loop.DRIVER, caller, String.join("; ", rule));
    } catch (RuntimeException e) {
      dm.close();
      throw e;
    }
  }

  /**
   * Machine instructions of the scalar kernel function (the packetizer's input) and of the packet
   * function in the packet module compiled for {@code cpu}: {0, 0} (and a log line) when the module
   * cannot be compiled to assembly.
   */
  private int[] machineInstructions(Manifest.Entry entry, LlvmModule km, String cpu, String simd) {
    try {
      String asm = MachineCode.assembly(km, cpu);
      var counts = MachineCode.count(asm, List.of(entry.function(), simd));
      // the asm column counts the packet function with the module's functions it calls, each once (the
      // math helpers); the log line also gives the packet function alone
      return new int[] {counts.get(entry.function()), counts.get(simd), MachineCode.countInstructions(asm, simd)};
    } catch (RuntimeException e) {
      out.log("cannot count the machine instructions of " + entry.name() + " for " + cpu + ": " + e.getMessage());
      return new int[] {0, 0, 0};
    }
  }

  @SuppressWarnings("restricted")
  private static MethodHandle handle(long address) {
    return Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(address), LOOP);
  }

  private KernelResult measure(Manifest.Entry entry, BenchTarget t, KernelPlan plan, PacketizationResult pr, int[] machine,
      MethodHandle[] loops, String tag, int ic, MemorySegment autoState, String autoRule) {
    int w = t.width();
    int cap = options.elements() > 0 ? options.elements() : BenchOptions.MAX_AUTO_ELEMENTS;
    int ulps = entry.ulps();
    try (BenchBuffers buf = new BenchBuffers(plan, cap, ic * w, options.seed(), options.coherent())) {
      long limit = options.timeoutSeconds() * 1_000_000_000L;
      // the reference run, also sizing N
      long ts = run(loops, buf, Loop.SCALAR, cap, limit, tag);
      int n = cap;
      if (options.elements() == 0 && ts > options.runMillis() * 1_000_000L) {
        long want = (long) ((double) cap * options.runMillis() * 1_000_000L / ts);
        n = Math.max(BenchOptions.MIN_AUTO_ELEMENTS, Integer.highestOneBit((int) Math.max(1, want)));
        n = Math.min(n, cap);
        ts = run(loops, buf, Loop.SCALAR, n, limit, tag);
      }
      // a slow packet loop is fine, an endless one is not
      long runLimit = Math.min(limit, Math.max(20_000_000_000L, 200 * ts));
      run(loops, buf, Loop.AUTOVEC, n, runLimit, tag);
      boolean autovecMatches = buf.compareWithScalar(Loop.AUTOVEC, n, 0).isEmpty();
      run(loops, buf, Loop.PACKET, n, runLimit, tag);
      refuseIfDifferent(buf, n, ulps, "first run");
      boolean gcc = loops[Loop.GCC.ordinal()] != null;
      boolean gccMatches = false;
      if (gcc) {
        run(loops, buf, Loop.GCC, n, runLimit, tag);
        gccMatches = buf.compareWithScalar(Loop.GCC, n, 0).isEmpty();
      }
      // the array drivers (plain, auto) where built: checked like the packet loop after every run
      List<Loop> drivers = new ArrayList<>();
      for (Loop l : new Loop[] {Loop.DRIVER, Loop.AUTO}) {
        if (loops[l.ordinal()] == null) continue;
        drivers.add(l);
        run(loops, buf, l, n, runLimit, tag);
        refuseIfDifferent(buf, l, n, ulps, "first run");
      }
      List<Loop> orderList = new ArrayList<>(gcc ? List.of(Loop.SCALAR, Loop.AUTOVEC, Loop.PACKET, Loop.GCC)
          : List.of(Loop.SCALAR, Loop.AUTOVEC, Loop.PACKET));
      orderList.addAll(drivers);
      Loop[] order = orderList.toArray(Loop[]::new);
      for (int i = 0; i < options.warmup(); i++) {
        for (Loop l : order) run(loops, buf, l, n, runLimit, tag);
        refuseIfDifferent(buf, n, ulps, "warm-up run " + (i + 1));
        for (Loop l : drivers) refuseIfDifferent(buf, l, n, ulps, "warm-up run " + (i + 1));
      }
      // the auto driver's counters before the timed runs: its trials and alarms during them are what the timed figure paid
      long[] before = autoState == null ? null : autoState.toArray(ValueLayout.JAVA_LONG);
      int nl = Loop.values().length;
      long[][] times = new long[nl][options.reps()];
      long[][] walls = new long[nl][options.reps()];
      for (int rep = 0; rep < options.reps(); rep++) {
        for (int j = 0; j < order.length; j++) {
          Loop l = order[(rep + j) % order.length];
          times[l.ordinal()][rep] = run(loops, buf, l, n, runLimit, tag);
          walls[l.ordinal()][rep] = lastWall;
          if (l == Loop.PACKET || drivers.contains(l)) refuseIfDifferent(buf, l, n, ulps, "timed run " + (rep + 1));
          if (l == Loop.AUTOVEC && autovecMatches) autovecMatches = buf.compareWithScalar(Loop.AUTOVEC, n, 0).isEmpty();
        }
      }
      double[] med = new double[nl];
      double[] wall = new double[nl];
      double[] iqrPct = new double[nl];
      Arrays.fill(med, Double.NaN);
      Arrays.fill(iqrPct, Double.NaN);
      double spread = 0;
      for (Loop loop : order) {
        int l = loop.ordinal();
        long[] ts2 = times[l].clone();
        Arrays.sort(ts2);
        med[l] = median(ts2) / n;
        double iqr = quantile(ts2, 0.75) - quantile(ts2, 0.25);
        iqrPct[l] = 100 * iqr / median(ts2);
        // the spread column stays the scalar, auto-vectorized and packet loops' (and GCC's)
        if (!drivers.contains(loop)) spread = Math.max(spread, iqrPct[l]);
        long[] w2 = walls[l].clone();
        Arrays.sort(w2);
        wall[l] = median(w2) / n;
      }
      out.outputs(entry.name(), t, n, buf);
      return new KernelResult(entry.name(), entry.family(), w, t.isa().name(), t.isa().cpu(), n, options.reps(),
          med[0], med[1], med[2], wall[0], wall[1], wall[2], spread, autovecMatches, pr.scalarInstructions(), pr.packetInstructions(),
          machine[0], machine[1], pr.nanos() / 1e6,
          pr.gathers(), pr.scatters(), pr.vectorCalls(), pr.scalarizedCalls(), pr.linearizedBranches(), pr.keptBranches(),
          med[Loop.GCC.ordinal()], gccMatches, ic, med[Loop.DRIVER.ordinal()], med[Loop.AUTO.ordinal()], iqrPct[Loop.DRIVER.ordinal()],
          iqrPct[Loop.AUTO.ordinal()], autoChoice(autoRule, autoState, before));
    }
  }

  private void refuseIfDifferent(BenchBuffers buf, int n, int ulps, String when) { refuseIfDifferent(buf, Loop.PACKET, n, ulps, when); }

  /** Refuses the target when loop {@code l} (the packet loop or an array driver) computed other outputs than the scalar loop. */
  private void refuseIfDifferent(BenchBuffers buf, Loop l, int n, int ulps, String when) {
    // libmvec: approximate vector math, compared within a tolerance relative to the output's size
    boolean approximate = options.vectorMath() == PacketizerOptions.VectorMath.LIBMVEC;
    Optional<String> diff = buf.compareWithScalar(l, n, ulps, approximate);
    String what = switch (l) {
      case DRIVER -> "array driver";
      case AUTO -> "array driver --refill=auto";
      default -> "packet loop";
    };
    if (diff.isPresent()) throw Stage.of("mismatch", what + ", " + when + ": " + diff.get());
  }

  /**
   * What the auto rule chose: the packetizer's refill remark when it made the plain driver (no timed
   * bodies), else the body in use after the timed runs, with the trials, plain-watch alarms and the refill body's elements in trials so far
   * (the state is kept from the first run on, as between a program's calls) and how many of them fell
   * in the timed runs ({@code before}: the state before them).
   */
  static String autoChoice(String rule, MemorySegment state, long[] before) {
    if (state == null) return rule.isEmpty() ? "" : "plain driver (" + rule + ")";
    long[] st = state.toArray(ValueLayout.JAVA_LONG);
    // refill's cycles per element over the plain body's in the trials' sums (paired: the same elements; else the plain
    // sum holds 2·plainP chunks to refill's refillP) and the back-off level at the end
    long p = st[org.packetizer.core.driver.RefillDriver.STATE_PLAIN_CYCLES], r = st[org.packetizer.core.driver.RefillDriver.STATE_REFILL_CYCLES];
    double per = rule.contains("a paired trial") ? 1.0
        : 2.0 * org.packetizer.core.driver.RefillDriver.ADAPTIVE_PLAIN_PACKETS / org.packetizer.core.driver.RefillDriver.ADAPTIVE_REFILL_PACKETS;
    String ratio = p > 0 && r > 0 ? String.format(Locale.ROOT, ", refill/plain %.2f at the trials", per * r / p) : "";
    return (st[STATE_REFILL] == 1 ? "refill" : "plain") + " body in use, " + st[STATE_TRIALS] + " trials ("
        + (st[STATE_TRIALS] - before[STATE_TRIALS]) + " timed), " + st[STATE_ALARMS] + " plain-watch alarms ("
        + (st[STATE_ALARMS] - before[STATE_ALARMS]) + " timed)" + watchTrials(st, before) + ratio + ", level " + st[org.packetizer.core.driver.RefillDriver.STATE_LEVEL]
        + ", refill ran " + st[STATE_TRIAL_REFILL] + " elements in trials (" + (st[STATE_TRIAL_REFILL] - before[STATE_TRIAL_REFILL]) + " timed)";
  }

  /**
   * The trials the watch brought (its alarms that ended a plain run early, RefillDriver.adaptiveWatchSpacing) and the
   * watch's level; nothing when the driver was built without the spacing (the field stays 0).
   */
  static String watchTrials(long[] st, long[] before) {
    long w = st[org.packetizer.core.driver.RefillDriver.STATE_WATCH], b = before[org.packetizer.core.driver.RefillDriver.STATE_WATCH];
    int sh = org.packetizer.core.driver.RefillDriver.WATCH_TRIALS_SHIFT;
    if (w == 0) return "";
    return ", " + (w >>> sh) + " brought by the watch (" + ((w >>> sh) - (b >>> sh)) + " timed), watch level "
        + (w & org.packetizer.core.driver.RefillDriver.WATCH_LEVEL_MASK);
  }

  /** Wall-clock nanoseconds of the last {@link #run}. */
  private long lastWall;

  /**
   * One run of a loop over n elements (memory reset first, untimed); returns the CPU time of this
   * thread in nanoseconds ({@link #lastWall} gets the wall time). CPU time, unlike wall time, does
   * not count time the thread waited for the processor while other processes ran, which on a
   * shared machine is most of the noise.
   */
  private long run(MethodHandle[] loops, BenchBuffers buf, Loop l, int n, long limitNanos, String tag) {
    buf.reset(l, n);
    MethodHandle h = loops[l.ordinal()];
    MemorySegment table = buf.table(l);
    watchdog.arm(tag + " " + l.name().toLowerCase(Locale.ROOT) + " loop", limitNanos);
    long c0 = THREADS.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    try {
      h.invokeExact((long) n, table);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    } finally {
      watchdog.disarm();
    }
    long t1 = System.nanoTime();
    long c1 = THREADS.getCurrentThreadCpuTime();
    lastWall = t1 - t0;
    return c1 - c0;
  }

  private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

  private static double median(long[] sorted) { return quantile(sorted, 0.5); }

  private static double quantile(long[] sorted, double q) {
    double pos = q * (sorted.length - 1);
    int lo = (int) Math.floor(pos), hi = (int) Math.ceil(pos);
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
  }

  // ---- C drivers ----

  /** clang flags of the scalar loop (1) and the auto-vectorized peer (2). */
  static List<String> clangFlags(String loop, String cpu, PacketizerOptions.VectorMath vm) {
    List<String> f = new ArrayList<>(List.of("-O3", "-march=" + cpu, "-ffp-contract=off", "-fno-math-errno", "-nostdlibinc", "-fno-ident"));
    if (loop.equals(Drivers.SCALAR)) {
      f.addAll(List.of("-fno-vectorize", "-fno-slp-vectorize"));
    } else {
      f.addAll(List.of("-fvectorize", "-fslp-vectorize"));
      if (vm == PacketizerOptions.VectorMath.LIBMVEC) f.add("-fveclib=libmvec");
    }
    return f;
  }

  private byte[] compileC(Manifest.Entry entry, KernelPlan plan, String loop, String cpu) {
    String key = entry.name() + "|" + loop + "|" + cpu;
    byte[] bc = compiled.get(key);
    if (bc != null) return bc;
    String base = loop + "_" + entry.name() + "_" + cpu.replaceAll("[^A-Za-z0-9]", "_");
    Path src = sources.write(base + ".c", Drivers.cDriver(loop, plan, entry.file()));
    try {
      var r = BundledClang.locate().compileToBitcode(sources.dir(), src.getFileName(), Path.of(base + ".bc"),
          clangFlags(loop, cpu, options.vectorMath()));
      bc = Files.readAllBytes(r.output());
    } catch (ToolchainException | IOException e) {
      throw Stage.of("compile", e);
    }
    compiled.put(key, bc);
    return bc;
  }

  /**
   * The GCC SIMD-clone loop (issue 16): the kernel behind a {@code #pragma omp declare simd} wrapper
   * in one file (GCC makes its SIMD clones), the loop over the elements under {@code #pragma omp simd}
   * in another (it calls the clones), both by Debian's gcc with {@code -O3 -fopenmp-simd} for the
   * target CPU, as a shared library loaded into this process. Null (and a log line) when gcc is
   * missing or cannot compile the kernel.
   */
  private MethodHandle gccLoop(Manifest.Entry entry, KernelPlan plan, String cpu, java.lang.foreign.Arena arena) {
    Optional<String> gcc = gccPath();
    if (gcc.isEmpty()) {
      if (!gccMissingLogged) out.log("no gcc on PATH: the GCC declare-simd column is empty (bin/install-test-deps.sh installs gcc)");
      gccMissingLogged = true;
      return null;
    }
    String base = "gcc_" + entry.name() + "_" + cpu.replaceAll("[^A-Za-z0-9]", "_");
    StringBuilder proto = new StringBuilder();
    List<String> uniform = new ArrayList<>(), linear = new ArrayList<>(), params = new ArrayList<>(), names = new ArrayList<>();
    List<KernelPlan.ParamPlan> ps = plan.params();
    for (int k = 0; k < ps.size(); k++) {
      String a = "a" + k;
      names.add(a);
      switch (ps.get(k)) {
        case KernelPlan.VaryingScalar v -> params.add(v.type().cType + " " + a);
        case KernelPlan.UniformScalar u -> { params.add(u.type().cType + " " + a); uniform.add(a); }
        case KernelPlan.UniformPointer u -> { params.add("void *" + a); uniform.add(a); }
        case KernelPlan.SoaPointer o -> { params.add("char *" + a); linear.add(a + ":" + o.pointee().size()); }
      }
    }
    String rt = plan.returnsValue() ? plan.result().cType : "void";
    String pragma = "#pragma omp declare simd notinbranch" + (uniform.isEmpty() ? "" : " uniform(" + String.join(", ", uniform) + ")")
        + linear.stream().map(l -> " linear(" + l + ")").collect(java.util.stream.Collectors.joining()) + "\n";
    String sig = rt + " bench_gcc_kernel(" + (params.isEmpty() ? "void" : String.join(", ", params)) + ")";
    proto.append("#include <stdint.h>\n").append(pragma).append(sig).append(";\n");
    String kernelTu = "/* Generated by the Packetizer benchmark: GCC SIMD clones of " + entry.name() + " */\n"
        + "#include \"" + entry.file() + "\"\n" + pragma + sig + " {\n  " + (plan.returnsValue() ? "return " : "")
        + entry.function() + "(" + String.join(", ", names.stream().map(n -> ps.get(names.indexOf(n)) instanceof KernelPlan.SoaPointer
            ? "(void *)" + n : n).toList()) + ");\n}\n";
    StringBuilder drv = new StringBuilder(proto);
    drv.append("void bench_gcc(int64_t n, void *const *bufs) {\n");
    List<String> args = new ArrayList<>();
    for (int k = 0; k < ps.size(); k++) {
      String v = "p" + k;
      switch (ps.get(k)) {
        case KernelPlan.VaryingScalar sv -> {
          drv.append("  const ").append(sv.type().cType).append(" *restrict ").append(v).append(" = (const ").append(sv.type().cType)
              .append(" *)bufs[").append(k).append("];\n");
          args.add(v + "[i]");
        }
        case KernelPlan.UniformScalar u -> {
          drv.append("  const ").append(u.type().cType).append(' ').append(v).append(" = *(const ").append(u.type().cType)
              .append(" *)bufs[").append(k).append("];\n");
          args.add(v);
        }
        case KernelPlan.UniformPointer u -> {
          drv.append("  void *").append(v).append(" = bufs[").append(k).append("];\n");
          args.add(v);
        }
        case KernelPlan.SoaPointer o -> {
          drv.append("  char *").append(v).append(" = (char *)bufs[").append(k).append("];\n");
          args.add(v + " + i * " + o.pointee().size());
        }
      }
    }
    String call = "bench_gcc_kernel(" + String.join(", ", args) + ")";
    if (plan.returnsValue()) drv.append("  ").append(rt).append(" *restrict out = (").append(rt).append(" *)bufs[").append(ps.size()).append("];\n");
    drv.append("#pragma omp simd\n  for (int64_t i = 0; i < n; ++i) ").append(plan.returnsValue() ? "out[i] = " : "").append(call)
        .append(";\n}\n");
    sources.write(base + "_kernel.c", kernelTu);
    sources.write(base + "_loop.c", drv.toString());
    Path so = sources.dir().resolve(base + ".so");
    List<String> cmd = new ArrayList<>(List.of(gcc.get(), "-O3", "-fopenmp-simd", "-march=" + cpu, "-ffp-contract=off", "-fno-math-errno",
        "-fPIC", "-shared", "-w", base + "_kernel.c", base + "_loop.c", "-o", so.toString(), "-lm"));
    try {
      var r = BundledClang.locate().run(cmd, sources.dir());
      if (r.exitCode() != 0 && r.stderr().contains("march")) {
        // a CPU this GCC does not know yet (GCC 12 and znver5): its ISA level
        cmd.set(cmd.indexOf("-march=" + cpu), "-march=" + gccLevel(cpu));
        r = BundledClang.locate().run(cmd, sources.dir());
      }
      if (r.exitCode() != 0) {
        out.log("gcc could not build the declare-simd loop of " + entry.name() + " for " + cpu + ": " + r.stderr().lines().limit(3).toList());
        return null;
      }
      var lib = java.lang.foreign.SymbolLookup.libraryLookup(so, arena);
      return Linker.nativeLinker().downcallHandle(lib.find("bench_gcc").orElseThrow(), LOOP);
    } catch (RuntimeException e) {
      out.log("gcc loop of " + entry.name() + " for " + cpu + ": " + e.getMessage());
      return null;
    }
  }

  private boolean gccMissingLogged;

  /** The x86-64 ISA level of a CPU (for a GCC that does not know the CPU's name). */
  static String gccLevel(String cpu) {
    if (cpu.startsWith("znver4") || cpu.startsWith("znver5") || cpu.contains("avx512") || cpu.endsWith("rapids") || cpu.equals("x86-64-v4")) {
      return "x86-64-v4";
    }
    if (cpu.startsWith("znver") || cpu.endsWith("lake") || cpu.equals("haswell") || cpu.equals("broadwell")) return "x86-64-v3";
    return "x86-64-v2";
  }

  static Optional<String> gccPath() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "gcc");
      if (Files.isExecutable(p)) return Optional.of(p.toString());
    }
    return Optional.empty();
  }

  /** Makes every defined function but {@code keep} internal, so the three modules can share one JIT. */
  /** Function alignment 64 for the timed loop {@code name} of {@code m} (a cache line, the fetch block of current x86 cores). */
  static void alignLoopFunction(LlvmModule m, String name) {
    m.function(name).ifPresent(f -> f.setAlignment(LOOP_ALIGNMENT));
  }

  static final int LOOP_ALIGNMENT = 64;

  private static void internalizeAllBut(LlvmModule m, String keep) {
    for (Function f : m.functions()) {
      if (f.isDeclaration()) continue;
      f.setLinkage(f.name().equals(keep) ? LLVMExternalLinkage : LLVMInternalLinkage);
    }
  }

  /**
   * Compiles every function for {@code cpu} alone: target-cpu set, target-features and tune-cpu
   * removed, so that the C loops (clang -march) and the packet module (generic x86-64 bitcode) get
   * the same subtarget.
   */
  private static void retarget(LlvmModule m, String cpu) {
    for (Function f : m.functions()) {
      if (f.isDeclaration()) continue;
      f.setStringAttribute("target-cpu", cpu);
      f.removeStringAttribute("target-features");
      f.removeStringAttribute("tune-cpu");
    }
  }

  private void dump(Manifest.Entry entry, BenchTarget t, LlvmModule km, LlvmModule sm, LlvmModule am, List<DriverModule> drivers) {
    try {
      Path d = Path.of(options.dumpDir());
      Files.createDirectories(d);
      String base = entry.name() + ".w" + t.width() + "." + t.isa().cpu();
      Files.writeString(d.resolve(base + ".packet.ll"), km.toIr());
      Files.writeString(d.resolve(base + ".scalar.ll"), sm.toIr());
      Files.writeString(d.resolve(base + ".autovec.ll"), am.toIr());
      List<String> kinds = new ArrayList<>(List.of("packet", "autovec", "scalar"));
      // the array drivers' modules (plain, auto) as the JIT gets them
      for (DriverModule dm : drivers) {
        String kind = dm.loop() == Loop.AUTO ? "driver-auto" : "driver";
        Files.writeString(d.resolve(base + "." + kind + ".ll"), dm.module().toIr());
        kinds.add(kind);
      }
      var clang = BundledClang.locate();
      for (String kind : kinds) {
        Path ll = d.resolve(base + "." + kind + ".ll").toAbsolutePath();
        Path s = d.resolve(base + "." + kind + ".s").toAbsolutePath();
        clang.run(List.of("llc", "-O3", "-mcpu=" + t.isa().cpu(), ll.toString(), "-o", s.toString()), null);
      }
    } catch (IOException | RuntimeException e) {
      out.log("cannot dump " + entry.name() + " " + t.label() + ": " + e.getMessage());
    }
  }
}
