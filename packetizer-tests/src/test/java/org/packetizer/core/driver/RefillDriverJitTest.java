package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;

/**
 * Lane refill (issue 17 §2) through the Java API and the JIT, by differential execution: the refill
 * driver over arrays against the scalar function called once per element (java.lang.foreign
 * downcalls in the platform's C convention), every element bit for bit, for n from 0 to 3W+1 and a
 * few larger n, random and coherent inputs, W = 4, 8, 16; kernels compiled by the bundled clang with
 * plain -O2 ({@code driver/refill_kernels.c}: several exits, nested loops, a loop inside a divergent
 * branch, a bool result, calls and stores in the loop) and the bundled escape-time kernels
 * (mandelbrot, julia, the sphere tracer {@code march} with its early return), once for the baseline
 * x86-64 (scalar moves) and once for AVX-512 (compaction by vpcompress; expanding loads at W32), when the host has it.
 */
class RefillDriverJitTest {
  static final Linker C = Linker.nativeLinker();

  @TempDir Path dir;

  /** A kernel: name, parameter kinds, C types of the parameters (f d i l p) and of the result (f d i l b v). */
  record K(String name, String kinds, String types, char ret, double lo, double hi) {}

  static final List<K> C_KERNELS = List.of(
      new K("collatz", "v", "l", 'l', 1, 3000),
      new K("multi_exit", "vu", "fi", 'i', -3, 3),
      new K("exit_values", "vu", "fi", 'f', -2.2, 2.2),
      new K("nested", "vu", "ii", 'i', -1000, 1000),
      new K("guarded", "v", "d", 'd', -1, 3),
      new K("converges", "v", "f", 'b', -2.2, 0.5),
      new K("gcd", "vv", "ii", 'i', -1000, 1000),
      new K("rows", "vu", "ii", 'i', -1000, 1000));

  /**
   * Kernels whose loop body may run on every lane (no memory access, call, division or inner loop):
   * the driver passes iter an all-true mask; the others keep the active mask.
   */
  static final List<String> UNMASKED = List.of("collatz", "multi_exit", "exit_values", "guarded", "converges", "mandelbrot", "julia", "march");

  static final List<K> BUNDLED = List.of(
      new K("mandelbrot", "vvu", "ffi", 'i', -2, 1),
      new K("julia", "vvuuu", "ffffi", 'i', -1.6, 1.6),
      new K("march", "vvvvvv", "ffffff", 'f', -4, 4));

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (boolean avx512 : new boolean[] {false, true}) out.add(Arguments.of(w, avx512));
    // W32 on AVX-512: a packet of 32-bit lanes is wider than a register, so no compaction: expanding loads
    out.add(Arguments.of(32, true));
    return out.stream();
  }

  static String resource(String name) throws IOException {
    try (InputStream in = RefillDriverJitTest.class.getResourceAsStream("/driver/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static boolean hostHasAvx2() {
    try (Jit jit = Jit.host()) {
      return jit.features().contains("+avx2");
    }
  }

  /**
   * The per-route set-up of the tests over {@code refill_kernels.c}: skips (loudly) where the host cannot run the route,
   * then compiles the kernels by the bundled clang with -O2 and the route's CPU — {@code avx512} (and its variants such
   * as {@code avx512compress}): -march=skylake-avx512; {@code haswell}: -march=haswell; {@code baseline}: x86-64 — and
   * returns the bitcode.
   */
  Path kernelsFor(String route) throws IOException {
    return kernelsFor(route, "refill_kernels.c");
  }

  /** As {@link #kernelsFor(String)}, for the kernels of the resource {@code driver/FILE}. */
  Path kernelsFor(String route, String file) throws IOException {
    List<String> flags = new ArrayList<>(List.of("-O2"));
    if (route.startsWith("avx512")) {
      Assumptions.assumeTrue(hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the " + route + " route did not run");
      flags.add("-march=skylake-avx512");
    } else if (route.equals("haswell") || route.equals("skylake")) {
      Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the " + route + " route did not run");
      flags.add("-march=" + route);
    } else if (!route.equals("baseline")) {
      throw new IllegalArgumentException("no such route: " + route);
    }
    Files.writeString(dir.resolve(file), resource(file));
    BundledClang.locate().compileToBitcode(dir, Path.of(file), Path.of("k.bc"), flags);
    return dir.resolve("k.bc");
  }

  static boolean hostHasAvx512() {
    try (Jit jit = Jit.host()) {
      return jit.features().contains("+avx512f") && jit.features().contains("+avx512vl");
    }
  }

  @ParameterizedTest(name = "W={0} avx512={1}")
  @MethodSource("cases")
  void refillDriversMatchTheScalarFunctionElementByElement(int w, boolean avx512) throws Throwable {
    Path bc = kernelsFor(avx512 ? "avx512" : "baseline");
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
      for (K k : C_KERNELS) packetize(m, k, w, remarks);
      packetize(m, new K("saxpy", "vvu", "fff", 'f', -5, 5), w, remarks);
      packetize(m, new K("stack_slot", "vu", "ii", 'i', -100, 100), w, remarks);
      // no loop, and a stack slot live across the loop: the plain driver, with a remark saying why
      assertTrue(remarks.stream().anyMatch(r -> r.function().equals("saxpy") && r.message().contains("lane refill not used")
          && r.message().contains("no loop")), remarks.toString());
      assertTrue(remarks.stream().anyMatch(r -> r.function().equals("stack_slot") && r.message().contains("lane refill not used")
          && r.message().contains("stack slot")), remarks.toString());
      for (K k : C_KERNELS) {
        assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().startsWith("lane refill (--refill) at")),
            k.name() + ": " + remarks);
        String iterations = UNMASKED.contains(k.name()) ? "iterations unmasked" : "iterations masked";
        assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(iterations)),
            k.name() + " wants " + iterations + ": " + remarks);
        // the result in the loop's counter: collatz returns its step count; on Intel's AVX-512 (skylake-avx512) by default
        // since the twenty-second round (baseline x86-64 is not Intel's family: off)
        boolean counter = avx512 && k.name().equals("collatz");
        assertEquals(counter, remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(COUNTER_REMARK)),
            k.name() + ": " + remarks);
        // the result at the round: by default on AVX-512 only, only with unmasked iterations, and not where the counter
        // holds the result
        assertEquals(avx512 && UNMASKED.contains(k.name()) && !counter, remarks.stream().anyMatch(r -> r.function().equals(k.name())
            && r.message().contains(AT_ROUND_REMARK)), k.name() + ": " + remarks);
      }
      // the remainder by the state (lanes that are done hold b == 0) and the inner loop keep the mask
      assertTrue(remarks.stream().anyMatch(r -> r.function().equals("gcd") && r.message().contains("iterations masked (it divides integers")),
          remarks.toString());
      assertTrue(remarks.stream().anyMatch(r -> r.function().equals("nested") && r.message().contains("iterations masked (it has a loop inside")),
          remarks.toString());
      // a per-lane loop inside a uniform loop: refill cuts at the top-level loop (docs/drivers.md says why)
      assertTrue(remarks.stream().anyMatch(r -> r.function().equals("rows") && r.message().startsWith("lane refill (--refill) at")
          && r.message().contains("(same trip count in every lane")), remarks.toString());
      if (avx512) {
        // AVX-512: one load per array spread into the free lanes by a register vpexpand (W32: expanding loads from memory)
        String moves = w <= 16 ? "by a register expand (AVX-512 vpexpand" : "expanding loads (AVX-512 vexpand)";
        // with compaction, rounds come in counted blocks of iterations (k adapted at run time), else when W/2 lanes are free
        String when = w <= 16 ? "a refill round every k iterations, k = ⌊√(" + RefillDriver.BLOCK_SCALE + "·T)⌋"
            : "a refill round when " + w / 2 + " of " + w + " lanes are free";
        for (K k : C_KERNELS) {
          assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(moves)
              && r.message().contains(when)), k.name() + ": " + remarks);
        }
      } else {
        // no AVX-512: elements move one by one through a stack buffer (LLVM would expand gathers and scatters lane by lane)
        for (K k : C_KERNELS) {
          assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains("scalar moves")
              && r.message().contains("a refill round when " + w / 2 + " of " + w + " lanes are free")), k.name() + ": " + remarks);
        }
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        List<K> all = new ArrayList<>(C_KERNELS);
        all.add(new K("saxpy", "vvu", "fff", 'f', -5, 5));
        all.add(new K("stack_slot", "vu", "ii", 'i', -100, 100));
        for (K k : all) check(jit, arena, k, w);
      }
    }
  }

  @ParameterizedTest(name = "W={0} avx512={1}")
  @MethodSource("cases")
  void escapeTimeKernelsWithRefillMatchTheScalarFunction(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the vpcompress path did not run");
    Manifest mf = Manifest.load();
    for (K k : BUNDLED) {
      Manifest.Entry e = mf.require(k.name());
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
        if (avx512) {
          retarget(m, k.name(), "skylake-avx512", AVX512_FEATURES);
        }
        packetize(m, k, w, remarks);
        assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")
            && r.message().contains("iterations unmasked")), remarks.toString());
        try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
          jit.addModule(m);
          check(jit, arena, k, w);
        }
      }
    }
  }

  /** Element calls and stores stay in each element's own order (calls of an outside function, stores in the loop). */
  @ParameterizedTest(name = "W={0} march={1}")
  @MethodSource("marchCases")
  void sideEffectsOfEachElementStayInItsOwnOrder(int w, String march) throws Throwable {
    boolean avx512 = march.equals("skylake-avx512");
    Path bc = kernelsFor(avx512 ? "avx512" : march.isEmpty() ? "baseline" : march);
    // one refill state, and two independent ones per step (interleaved refill)
    for (int ic : new int[] {1, 2}) {
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
      new Packetizer(PacketizerOptions.builder().width(w).params("luv").verifyEachPhase(true).arrayDriver("*_map")
          .refill(Refill.ON).interleave(ic).remarks(remarks::add).build()).run(m, "traced", "traced_v" + w);
      assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")
          && r.message().contains("iterations masked (it accesses memory")), remarks.toString());
      assertEquals(ic == 2, remarks.stream().anyMatch(r -> r.message().contains("2 independent sets of " + w + " lanes")),
          remarks.toString());
      if (march.equals("haswell")) {
        assertTrue(remarks.stream().anyMatch(r -> r.message().contains(PERMUTE_REMARK)), remarks.toString());
      }
      // traced returns its counter, which clang widened to 64 bits (the truncation of the increment): the counter holds
      // the result on Intel (haswell, skylake-avx512; RefillDriver.counterResult's auto), not on baseline x86-64
      assertEquals(!march.isEmpty(), remarks.stream().anyMatch(r -> r.message().contains(COUNTER_REMARK)), remarks.toString());
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("traced_map")),
            FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("traced")),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_FLOAT));
        MemorySegment count = MemorySegment.ofAddress(jit.lookup("log_count")).reinterpret(4 * 1024);
        MemorySegment vals = MemorySegment.ofAddress(jit.lookup("log_val")).reinterpret(4 * 1024 * 64);
        Random rnd = new Random(99 + w);
        for (int n : new int[] {0, 1, w - 1, w, w + 1, 2 * w + 1, 3 * w + 1, 4 * w + 3, 100}) {
          MemorySegment x = arena.allocate(JAVA_FLOAT, Math.max(1, n));
          for (int i = 0; i < n; i++) x.setAtIndex(JAVA_FLOAT, i, rnd.nextFloat() * 12 - 1);
          int id0 = 7;
          MemorySegment slotsWant = arena.allocate(JAVA_FLOAT, 32L * (id0 + n + 1));
          MemorySegment slotsGot = arena.allocate(JAVA_FLOAT, 32L * (id0 + n + 1));
          MemorySegment outGot = arena.allocate(JAVA_INT, Math.max(1, n));
          count.fill((byte) 0);
          vals.fill((byte) 0);
          int[] want = new int[n];
          for (int i = 0; i < n; i++) want[i] = (int) scalar.invokeExact(id0 + i, slotsWant, x.getAtIndex(JAVA_FLOAT, i));
          int[][] logWant = new int[n][];
          for (int i = 0; i < n; i++) {
            int c = count.getAtIndex(JAVA_INT, id0 + i);
            logWant[i] = new int[c];
            for (int j = 0; j < c; j++) logWant[i][j] = vals.getAtIndex(JAVA_INT, (id0 + i) * 64L + j);
          }
          count.fill((byte) 0);
          vals.fill((byte) 0);
          driver.invokeExact(id0, slotsGot, x, outGot, (long) n);
          for (int i = 0; i < n; i++) {
            assertEquals(want[i], outGot.getAtIndex(JAVA_INT, i), "n=" + n + " element " + i);
            int c = count.getAtIndex(JAVA_INT, id0 + i);
            int[] got = new int[c];
            for (int j = 0; j < c; j++) got[j] = vals.getAtIndex(JAVA_INT, (id0 + i) * 64L + j);
            assertArrayEquals(logWant[i], got, "n=" + n + " element " + i + ": its calls in its own order");
          }
          assertEquals(-1, MemorySegment.mismatch(slotsWant, 0, slotsWant.byteSize(), slotsGot, 0, slotsGot.byteSize()),
              "IC=" + ic + " n=" + n + ": the stores");
        }
      }
    }
    }
  }

  /**
   * --refill=auto: the adaptive driver (plain and refill bodies, chosen per chunk by the cycle counter)
   * for the escape-time kernels, over several chunks and epochs, coherent and random inputs.
   */
  @ParameterizedTest(name = "W={0} avx512={1}")
  @org.junit.jupiter.params.provider.CsvSource({"4,true", "16,true", "8,false", "16,false"})
  void autoBuildsTheAdaptiveDriverForEscapeTimeLoops(int w, boolean avx512) throws Throwable {
    if (avx512) Assumptions.assumeTrue(hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the adaptive auto driver did not run");
    else Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the adaptive auto driver did not run");
    Manifest mf = Manifest.load();
    for (K k : BUNDLED) {
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require(k.name())), k.name() + ".bc")) {
        // the rule wants AVX2 or AVX-512 (the bundled bitcode is for baseline x86-64: see autoNeedsAMeasuredTarget)
        retarget(m, k.name(), avx512 ? "skylake-avx512" : "haswell", avx512 ? AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2");
        new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true).arrayDriver("*_map")
            .refill(Refill.AUTO).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
        assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill=auto) at the loop")), remarks.toString());
        assertTrue(remarks.stream().anyMatch(r -> r.message().contains("--refill=auto: the driver runs epochs")), remarks.toString());
        assertTrue(m.function(k.name() + "_map.plain").isPresent() && m.function(k.name() + "_map.refill").isPresent());
        // AVX2: the rounds by masked loads and a vpermd from the rank table
        if (!avx512) assertTrue(remarks.stream().anyMatch(r -> r.message().contains(PERMUTE_REMARK)), remarks.toString());
        try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
          jit.addModule(m);
          // epochs of 2048 packets: timed chunks of 8, 128 and 8 packets (plain, refill, plain), then the rest in one call;
          // n ends inside each timed chunk, at their ends, inside the rest, and inside the second epoch's timed chunks
          check(jit, arena, k, w, List.of(0, 1, w + 1, 8 * w - 1, 8 * w, 8 * w + 1, 136 * w - 1, 136 * w + 3, 144 * w, 144 * w + 1,
              300 * w + 7, 2048 * w, 2048 * w + 9 * w + 5, 2048 * w + 140 * w + 3));
        }
      }
    }
  }

  /**
   * --refill=auto with the occupancy gate ({@code -Dpacketizer.refill.autoProbe=true}): an epoch of the plain body runs
   * in parts, each followed by the probe (the plain body's lock step, counting the busy lanes; its results are the
   * elements'), and the next epoch skips the timed chunks when the occupancy reaches the break-even. The break-even
   * forced to 0 (every epoch after one of the plain body skips its trial: plain epochs with probes from then on), to 2
   * (never) and left at its default; short epochs (200 packets: parts of 50) so that n crosses many parts, probes and
   * epochs; every element against the scalar function, nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} avx512={1} breakEven={2}")
  @org.junit.jupiter.params.provider.CsvSource({"8,true,0", "16,true,0", "16,true,2", "8,true,0.6", "8,false,0", "16,false,0",
      "4,false,2", "16,false,0.6"})
  void theOccupancyGateKeepsEveryElement(int w, boolean avx512, String breakEven) throws Throwable {
    if (avx512) Assumptions.assumeTrue(hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the occupancy gate did not run");
    else Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the occupancy gate did not run");
    Manifest mf = Manifest.load();
    for (K k : BUNDLED) {
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require(k.name())), k.name() + ".bc")) {
        retarget(m, k.name(), avx512 ? "skylake-avx512" : "haswell", avx512 ? AVX512_FEATURES : "+avx2,+avx,+fma,+sse4.2");
        System.setProperty("packetizer.refill.autoProbe", "true");
        System.setProperty("packetizer.refill.autoBreakEven", breakEven);
        System.setProperty("packetizer.refill.autoEpoch", "200");
        try {
          new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true).arrayDriver("*_map")
              .refill(Refill.AUTO).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
        } finally {
          System.clearProperty("packetizer.refill.autoProbe");
          System.clearProperty("packetizer.refill.autoBreakEven");
          System.clearProperty("packetizer.refill.autoEpoch");
        }
        assertTrue(remarks.stream().anyMatch(r -> r.message().contains("--refill=auto: the driver runs epochs of 200·W elements")
            && r.message().contains("occupancy gate: an epoch of the plain body ends with")), remarks.toString());
        assertTrue(m.function(k.name() + "_map.probe").isPresent(), "the probe body");
        try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
          jit.addModule(m);
          // the trial: 8, 128, 8 packets; the plain rest in parts of 50 packets, each ending with a probe of 4
          check(jit, arena, k, w, List.of(0, 1, w + 1, 144 * w + 1, 190 * w - 1, 194 * w + 3, 200 * w, 200 * w + 1, 247 * w + 5,
              350 * w + 2, 400 * w, 401 * w + 3, 603 * w + 7, 1000 * w + 1));
        }
      }
    }
  }

  /** On a target without AVX2 or AVX-512 (the bundled bitcode: baseline x86-64) auto keeps the plain driver and says why. */
  @Test
  void autoNeedsAMeasuredTarget() {
    List<Remark> remarks = new ArrayList<>();
    Manifest mf = Manifest.load();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require("mandelbrot")), "mandelbrot.bc")) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vvu").arrayDriver(true).refill(Refill.AUTO)
          .remarks(remarks::add).build()).run(m, "mandelbrot", "mandelbrot_v8");
      assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill not chosen (--refill=auto)")
          && r.message().contains("the target has neither AVX-512 nor AVX2")), remarks.toString());
      assertTrue(m.function("mandelbrot_map.refill").isEmpty() && m.function("mandelbrot_v8.masked").isPresent());
    }
  }

  @Test
  void autoLeavesStraightLineCodeAlone() {
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("""
        define float @saxpy(float %x, float %y, float %a) {
          %m = fmul float %a, %x
          %s = fadd float %m, %y
          ret float %s
        }
        """, "saxpy.ll")) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vvu").arrayDriver(true).refill(Refill.AUTO)
          .remarks(remarks::add).build()).run(m, "saxpy", "saxpy_v8");
      assertTrue(remarks.stream().anyMatch(r -> r.message().equals("lane refill not used (--refill=auto): it has no loop; plain driver")),
          remarks.toString());
      assertTrue(m.function("saxpy_map").isPresent() && m.function("saxpy_map.plain").isEmpty());
    }
  }

  static final String IR_CASES = """
      define float @vsum(float %x, i32 %n) {
      entry:
        %v0 = insertelement <2 x float> zeroinitializer, float %x, i32 0
        br label %loop
      loop:
        %v = phi <2 x float> [ %v0, %entry ], [ %v1, %loop ]
        %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
        %v1 = fadd <2 x float> %v, <float 1.0, float 0.5>
        %i1 = add i32 %i, 1
        %e = extractelement <2 x float> %v1, i32 0
        %c = fcmp olt float %e, 100.0
        %c2 = icmp slt i32 %i1, %n
        %c3 = and i1 %c, %c2
        br i1 %c3, label %loop, label %exit
      exit:
        %r = extractelement <2 x float> %v1, i32 1
        ret float %r
      }
      define i32 @walk(ptr %p) {
      entry:
        %z = icmp eq ptr %p, null
        br i1 %z, label %exit, label %loop
      loop:
        %q = phi ptr [ %p, %entry ], [ %nx, %loop ]
        %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
        %w = getelementptr i8, ptr %q, i64 8
        %val = load i32, ptr %w
        %k1 = add i32 %k, %val
        %nx = load ptr, ptr %q
        %end = icmp eq ptr %nx, null
        br i1 %end, label %exit, label %loop
      exit:
        %r = phi i32 [ -1, %entry ], [ %k1, %loop ]
        ret i32 %r
      }
      """;

  /** A vector value live across the loop: refused with a remark naming it, the plain driver (still every element right). */
  @Test
  void aVectorLiveAcrossTheLoopGetsThePlainDriverAndARemark() throws Throwable {
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR_CASES, "cases.ll")) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vu").verifyEachPhase(true).arrayDriver("*_map")
          .refill(Refill.ON).remarks(remarks::add).build()).run(m, "vsum", "vsum_v8");
      assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill not used (--refill): the value %v")
          && r.message().contains("of type <2 x float> is live at the loop header")), remarks.toString());
      assertTrue(m.function("vsum_v8.masked").isPresent(), "the plain driver");
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        check(jit, arena, new K("vsum", "vu", "fi", 'f', -50, 120), 8);
      }
    }
  }

  /** Pointers as state and as varying inputs (an array of pointers: gathered, never expanded): linked lists of per-lane length. */
  @ParameterizedTest(name = "W={0} avx2={1}")
  @MethodSource("batchCases")
  void linkedListWalksWithPointerState(int w, boolean avx2) throws Throwable {
    if (avx2) Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the vpermd path did not run");
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR_CASES, "cases.ll")) {
      if (avx2) {
        // AVX2 without AVX-512: the array of pointers is loaded by groups and spread by vpermd (64-bit lanes: by halves)
        retarget(m, "walk", "haswell", AVX2_FEATURES);
      }
      new Packetizer(PacketizerOptions.builder().width(w).params("v").verifyEachPhase(true).arrayDriver("*_map")
          .refill(Refill.ON).remarks(remarks::add).build()).run(m, "walk", "walk_v" + w);
      assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")), remarks.toString());
      if (avx2) assertTrue(remarks.stream().anyMatch(r -> r.message().contains(PERMUTE_REMARK)), remarks.toString());
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("walk_map")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("walk")),
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
        Random rnd = new Random(5 + w);
        for (int n : new int[] {0, 1, w - 1, w + 1, 3 * w + 1, 200}) {
          MemorySegment heads = arena.allocate(ADDRESS, Math.max(1, n));
          for (int i = 0; i < n; i++) {
            int len = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(40);
            MemorySegment head = MemorySegment.NULL;
            for (int k = 0; k < len; k++) {
              MemorySegment node = arena.allocate(16, 8);
              node.set(ADDRESS, 0, head);
              node.set(JAVA_INT, 8, rnd.nextInt(1000));
              head = node;
            }
            heads.setAtIndex(ADDRESS, i, head);
          }
          MemorySegment out = arena.allocate(JAVA_INT, n + w);
          out.fill((byte) 0x5a);
          driver.invokeExact(heads, out, (long) n);
          for (int i = 0; i < n; i++) {
            int want = (int) scalar.invokeExact(heads.getAtIndex(ADDRESS, i));
            assertEquals(want, out.getAtIndex(JAVA_INT, i), "n=" + n + " element " + i);
          }
          for (int i = n; i < n + w; i++) assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i), "n=" + n + ": after the output");
        }
      }
    }
  }

  /**
   * The refill batch ({@code refillBatch}: lanes free before a refill round) at its ends, 1 and W:
   * every element still exact, for an unmasked loop (collatz), a masked one (gcd) and nested loops.
   */
  @ParameterizedTest(name = "W={0} avx512={1}")
  @MethodSource("batchCases")
  void refillBatchFromOneLaneToAllLanes(int w, boolean avx512) throws Throwable {
    // AVX-512: an explicit batch replaces the blocks of the compaction path (the batch rule with vpcompress)
    Path bc = kernelsFor(avx512 ? "avx512" : "baseline");
    List<K> ks = C_KERNELS.stream().filter(k -> List.of("collatz", "gcd", "nested").contains(k.name())).toList();
    for (int batch : new int[] {1, w}) for (int ic : new int[] {1, 2}) {
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
        for (K k : ks) {
          new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true).arrayDriver("*_map")
              .refill(Refill.ON).refillBatch(batch).interleave(ic).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
          assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name())
              && r.message().contains("a refill round when " + batch + " of " + w + " lanes are free")), remarks.toString());
        }
        try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
          jit.addModule(m);
          for (K k : ks) check(jit, arena, k, w, sizes(ic * w));
        }
      }
    }
  }

  /**
   * Interleaved refill: IC independent W-lane refill states per driver step (forced IC 2 and 4, and the
   * rule's choice reported), for every kernel — several exits, nested loops, a loop in a divergent
   * branch, 64-bit and bool results, a remainder by the state (masked iterations), the escape-time
   * kernels — with compaction and blocks (AVX-512) and with scalar moves and the batch rule (baseline
   * x86-64); every element equal to the scalar function's for n from 0 to 3·IC·W+1 and larger, random
   * and coherent inputs, nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} avx512={1} IC={2}")
  @MethodSource("interleavedCases")
  void interleavedRefillDriversMatchTheScalarFunction(int w, boolean avx512, int ic) throws Throwable {
    Path bc = kernelsFor(avx512 ? "avx512" : "baseline");
    List<Integer> ns = sizes(ic * w);
    String sets = ic + " independent sets of " + w + " lanes, each with its own refill state";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
      List<Remark> remarks = new ArrayList<>();
      for (K k : C_KERNELS) {
        packetizeWithRefill(m, k, w, ic, remarks);
        assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().startsWith("lane refill (--refill) at")
            && r.message().contains(sets)), k.name() + ": " + remarks);
        assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name())
            && r.message().startsWith("refill body: interleave count " + ic + " (" + ic * w + " elements per step as " + ic
                + " chains of " + w + " lanes), forced")), k.name() + ": " + remarks);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        for (K k : C_KERNELS) check(jit, arena, k, w, ns);
      }
    }
    Manifest mf = Manifest.load();
    for (K k : BUNDLED) {
      Manifest.Entry e = mf.require(k.name());
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
        if (avx512) {
          retarget(m, k.name(), "skylake-avx512", AVX512_FEATURES);
        }
        packetizeWithRefill(m, k, w, ic, remarks);
        assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at") && r.message().contains(sets)
            && r.message().contains("iterations unmasked")), remarks.toString());
        try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
          jit.addModule(m);
          check(jit, arena, k, w, ns);
        }
      }
    }
  }

  /**
   * The other AVX-512 round, compaction by vpcompress (the lanes in the loop move to the front; a measuring
   * switch, {@code -Dpacketizer.refill.compress=true}, and the shape SVE uses), one and two refill states.
   */
  @ParameterizedTest(name = "W={0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {4, 8, 16})
  void compactionByVpcompressMatchesTheScalarFunction(int w) throws Throwable {
    Path bc = kernelsFor("avx512");
    for (int ic : new int[] {1, 2}) {
      System.setProperty("packetizer.refill.compress", "true");
      try {
        checkCKernels(bc, w, ic, sizes(ic * w), (k, remarks) -> assertTrue(remarks.stream()
            .anyMatch(r -> r.function().equals(k.name()) && r.message().contains("(AVX-512 vpcompress)")), k.name() + ": " + remarks));
      } finally {
        System.clearProperty("packetizer.refill.compress");
      }
    }
  }

  static final String AT_ROUND_REMARK = "results at the round";

  /**
   * The result at the round ({@code RefillDriver.resultAtRound}; by default on AVX-512 only) either way on every route:
   * forced on for AVX2's permutation rounds and for the scalar moves of baseline x86-64, forced off on AVX-512 (the
   * blend in every iteration), W = 4, 8, 16, IC 1 and 2. The remark names it exactly for the kernels with unmasked
   * iterations (the others keep the blend: running a masked iteration again would repeat its side effects); every
   * element of every kernel — several exits with other results (multi_exit, exit_values: a float result from the
   * state, from the exiting iteration and from a live-out only one exit reads), a counter (mandelbrot), a bool, code
   * after the loop (guarded), the sphere tracer's float — equal to the scalar function's, random and coherent inputs.
   */
  @ParameterizedTest(name = "W={0} route={1} resultAtRound={2}")
  @MethodSource("atRoundCases")
  void resultsAtTheRoundOrBlendedMatchTheScalarFunction(int w, String route, String atRound) throws Throwable {
    Path bc = kernelsFor(route);
    boolean on = atRound.equals("true");
    System.setProperty("packetizer.refill.resultAtRound", atRound);
    try {
      for (int ic : new int[] {1, 2}) {
        List<Integer> ns = sizes(ic * w);
        checkCKernels(bc, w, ic, ns, (k, remarks) -> assertEquals(on && UNMASKED.contains(k.name()),
            remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(AT_ROUND_REMARK)), k.name() + ": " + remarks));
        for (K k : BUNDLED) {
          checkBundled(k, routeCpu(route), w, ic, ns,
              remarks -> assertEquals(on, remarks.stream().anyMatch(r -> r.message().contains(AT_ROUND_REMARK)), remarks.toString()));
        }
      }
    } finally {
      System.clearProperty("packetizer.refill.resultAtRound");
    }
  }

  static Stream<Arguments> atRoundCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) {
      out.add(Arguments.of(w, "avx512", "false"));
      out.add(Arguments.of(w, "haswell", "true"));
      out.add(Arguments.of(w, "baseline", "true"));
    }
    return out.stream();
  }

  /**
   * 32-bit element indices ({@code RefillDriver.index32}, the default) across chunk boundaries, and the 64-bit ones
   * (knob off), on every x86 route: AVX-512 rounds by vpexpand and by vpcompress (the indices compacted with the
   * state), AVX2 rounds by vpermd (the indices permuted), baseline x86-64's scalar moves (the indices through a stack
   * buffer), W = 4, 8, 16, IC 1 and 2. A chunk of 1 or 13 elements ({@code packetizer.refill.index32Chunk}) makes
   * the driver drain and restart many times within the test's arrays, so every element's offset from its chunk and
   * the block length carried across chunks are exercised; every element of every kernel (C kernels by clang -O2 and
   * the bundled escape-time kernels) equal to the scalar function's, n from 0 to 3·IC·W+1, 97 and 10·IC·W+3, random
   * and coherent inputs, nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} route={1} index32={2}")
  @MethodSource("index32Cases")
  void thirtyTwoBitIndicesAcrossChunksMatchTheScalarFunction(int w, String route, String index32) throws Throwable {
    Path bc = kernelsFor(route);
    if (index32.equals("off")) System.setProperty("packetizer.refill.index32", "false");
    else System.setProperty("packetizer.refill.index32Chunk", index32);
    if (route.equals("avx512compress")) System.setProperty("packetizer.refill.compress", "true");
    try {
      for (int ic : new int[] {1, 2}) {
        List<Integer> ns = sizes(ic * w);
        checkCKernels(bc, w, ic, ns, (k, remarks) -> {
          if (route.equals("avx512compress")) {
            assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains("(AVX-512 vpcompress)")),
                k.name() + ": " + remarks);
          }
          if (route.equals("haswell")) {
            assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(PERMUTE_REMARK)),
                k.name() + ": " + remarks);
          }
        });
        for (K k : BUNDLED) checkBundled(k, routeCpu(route), w, ic, ns, remarks -> { });
      }
    } finally {
      System.clearProperty("packetizer.refill.index32");
      System.clearProperty("packetizer.refill.index32Chunk");
      System.clearProperty("packetizer.refill.compress");
    }
  }

  static Stream<Arguments> index32Cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) {
      for (String route : new String[] {"avx512", "avx512compress", "haswell", "baseline"}) {
        out.add(Arguments.of(w, route, route.equals("avx512") ? "1" : "13"));
        if (w == 16 || route.equals("haswell")) out.add(Arguments.of(w, route, "off"));
      }
    }
    return out.stream();
  }

  /**
   * The C kernels of {@code bc} packetized with refill into one module, {@code judge} given each kernel and the remarks so
   * far right after its packetization, then every element of every kernel against the scalar function for the sizes
   * {@code ns}.
   */
  static void checkCKernels(Path bc, int w, int ic, List<Integer> ns, java.util.function.BiConsumer<K, List<Remark>> judge)
      throws Throwable {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
      List<Remark> remarks = new ArrayList<>();
      for (K k : C_KERNELS) {
        packetizeWithRefill(m, k, w, ic, remarks);
        judge.accept(k, remarks);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        for (K k : C_KERNELS) check(jit, arena, k, w, ns);
      }
    }
  }

  /**
   * The bundled kernel {@code k} compiled for {@code cpu} (AVX-512 features for {@code skylake-avx512}, else AVX2's; null:
   * as bundled, baseline x86-64), packetized with refill, {@code judge} given its remarks, then every element against the
   * scalar function for the sizes {@code ns}.
   */
  static void checkBundled(K k, String cpu, int w, int ic, List<Integer> ns, java.util.function.Consumer<List<Remark>> judge)
      throws Throwable {
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require(k.name());
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      if (cpu != null) {
        retarget(m, k.name(), cpu, cpu.equals("skylake-avx512") || cpu.equals("znver4") ? AVX512_FEATURES : AVX2_FEATURES);
      }
      packetizeWithRefill(m, k, w, ic, remarks);
      judge.accept(remarks);
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        check(jit, arena, k, w, ns);
      }
    }
  }

  /** The CPU a route of these tests compiles the bundled kernels for (null: baseline x86-64, as bundled). */
  static String routeCpu(String route) {
    if (route.equals("avx512-amd")) return "znver4";
    if (route.startsWith("avx512")) return "skylake-avx512";
    return route.equals("haswell") ? "haswell" : null;
  }

  static final String AVX512_FEATURES = "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2";

  /** Compiles {@code fn} of {@code m} for {@code cpu} with {@code features} (the bundled bitcode is for baseline x86-64). */
  static void retarget(LlvmModule m, String fn, String cpu, String features) {
    m.function(fn).orElseThrow().setStringAttribute("target-cpu", cpu);
    m.function(fn).orElseThrow().setStringAttribute("target-features", features);
  }

  static final String AVX2_FEATURES = "+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2";
  static final String PERMUTE_REMARK = "a 256-entry table of vpermd indices";

  static Stream<Arguments> marchCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String march : new String[] {"", "haswell", "skylake-avx512"}) out.add(Arguments.of(w, march));
    return out.stream();
  }

  static Stream<Arguments> avx2Cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (int ic : new int[] {1, 2, 4}) out.add(Arguments.of(w, ic));
    // four groups of 8 lanes (offsets from the popcount of the groups before)
    out.add(Arguments.of(32, 1));
    return out.stream();
  }

  /**
   * The AVX2 rounds (no AVX-512): each group of up to 8 lanes takes the next elements by one masked load per
   * array and a vpermd whose indices come from a table at the group's free-lane mask. Every C kernel (several
   * exits, nested loops, 64-bit and double inputs, a masked remainder loop) and the bundled escape-time kernels,
   * compiled for haswell, W = 4, 8, 16 with one, two and four refill states and W = 32 with one, n from 0 to
   * 3·IC·W+1, 97 and 10·IC·W+3,
   * random and coherent inputs, every element byte for byte, nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} IC={1}")
  @MethodSource("avx2Cases")
  void avx2PermutationRoundsMatchTheScalarFunction(int w, int ic) throws Throwable {
    Path bc = kernelsFor("haswell");
    List<Integer> ns = sizes(ic * w);
    checkCKernels(bc, w, ic, ns, (k, remarks) -> assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name())
        && r.message().startsWith("lane refill (--refill) at") && r.message().contains(PERMUTE_REMARK)), k.name() + ": " + remarks));
    for (K k : BUNDLED) {
      checkBundled(k, "haswell", w, ic, ns, remarks -> assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")
          && r.message().contains(PERMUTE_REMARK)), remarks.toString()));
    }
  }

  /**
   * The AVX2 refill loop's active mask as sign-extended lanes ({@code RefillDriver.wideMask}): by default on Intel
   * CPUs ({@code haswell}, {@code skylake}: the C kernels compiled by clang -O2 for the CPU, the bundled escape-time
   * kernels retargeted to it), forced on for baseline x86-64 (SSE: the scalar moves, a mask of two registers at W8),
   * forced off on haswell (the i1 packet), and by default off for an AMD AVX2 CPU ({@code znver2}, the bundled kernels
   * retargeted). The remark names the mask exactly where it is built; W = 4, 8, 16 with one, two and four refill states;
   * every element of every kernel (several exits, nested loops, 64-bit and double state, a bool result, masked
   * iterations) equal to the scalar function's, n from 0 to 3·IC·W+1, 97 and 10·IC·W+3, random and coherent inputs,
   * nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} route={1} wideMask={2}")
  @MethodSource("wideMaskCases")
  void avx2WideMasksMatchTheScalarFunction(int w, String route, String knob) throws Throwable {
    boolean amd = route.equals("znver2");
    Path bc = amd ? null : kernelsFor(route);
    if (amd) Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the znver2 route did not run");
    boolean want = knob.equals("true") || knob.equals("auto") && (route.equals("haswell") || route.equals("skylake"));
    System.setProperty("packetizer.refill.wideMask", knob);
    try {
      for (int ic : new int[] {1, 2, 4}) {
        if (ic == 4 && w == 16) continue;
        List<Integer> ns = sizes(ic * w);
        if (!amd) {
          checkCKernels(bc, w, ic, ns, (k, remarks) -> assertEquals(want,
              remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(WIDE_MASK_REMARK)), k.name() + ": " + remarks));
        }
        for (K k : BUNDLED) {
          checkBundled(k, route.equals("baseline") ? null : route, w, ic, ns, remarks -> {
            assertEquals(want, remarks.stream().anyMatch(r -> r.message().contains(WIDE_MASK_REMARK)), remarks.toString());
            if (!route.equals("baseline")) {
              assertTrue(remarks.stream().anyMatch(r -> r.message().contains(PERMUTE_REMARK)), remarks.toString());
            }
          });
        }
      }
    } finally {
      System.clearProperty("packetizer.refill.wideMask");
    }
  }

  /**
   * The AVX2 refill rule's register cap with the wide masks (twentieth round, {@code Interleave.avx2RefillRegs}): on an
   * Intel AVX2 CPU ({@code haswell}, {@code skylake}) the states of a 32-bit kernel may hold 8 registers per value, so the
   * rule (no forced count) gives mandelbrot and julia four states at W16 (the estimate: recurrence 22 cycles over 4
   * chains against 9 of throughput) and keeps march at two (its throughput bound); with {@code
   * -Dpacketizer.refill.avx2WideIc=false}, with the i1 masks ({@code wideMask=false}) and on an AMD CPU ({@code znver2})
   * the cap stays 4: two states. The bundled kernels retargeted; every element equal to the scalar function's, n from 0
   * to 3·IC·W+1, 97 and 10·IC·W+3, random and coherent inputs, nothing written after the output.
   */
  @ParameterizedTest(name = "route={0} avx2WideIc={1} wideMask={2}")
  @MethodSource("wideIcCases")
  void avx2WideMaskRuleTakesFourStatesAtSixteenLanes(String route, String knob, String wideMask) throws Throwable {
    Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the " + route + " route did not run");
    boolean intel = !route.equals("znver2");
    System.setProperty("packetizer.refill.avx2WideIc", knob);
    System.setProperty("packetizer.refill.wideMask", wideMask);
    try {
      Manifest mf = Manifest.load();
      for (K k : BUNDLED) {
        Manifest.Entry e = mf.require(k.name());
        List<Remark> remarks = new ArrayList<>();
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
          retarget(m, k.name(), route, AVX2_FEATURES);
          packetizeWithRefill(m, k, 16, 0, remarks);
          int want = intel && knob.equals("true") && !wideMask.equals("false") && !k.name().equals("march") ? 4 : 2;
          String note = remarks.stream().map(Remark::message).filter(x -> x.startsWith("refill body: interleave count"))
              .findFirst().orElseThrow(() -> new AssertionError(remarks.toString()));
          assertTrue(note.startsWith("refill body: interleave count " + want + " ") && note.endsWith("-> IC " + want), k.name() + ": " + note);
          assertEquals(intel && knob.equals("true") && !wideMask.equals("false"), note.contains("at most 8 registers per value"),
              k.name() + ": " + note);
          try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
            jit.addModule(m);
            check(jit, arena, k, 16, sizes(want * 16));
          }
        }
      }
    } finally {
      System.clearProperty("packetizer.refill.avx2WideIc");
      System.clearProperty("packetizer.refill.wideMask");
    }
  }

  static Stream<Arguments> wideIcCases() {
    return Stream.of(Arguments.of("haswell", "true", "auto"), Arguments.of("skylake", "true", "auto"),
        Arguments.of("haswell", "false", "auto"), Arguments.of("haswell", "true", "false"), Arguments.of("znver2", "true", "auto"));
  }

  static final String WIDE_MASK_REMARK = "the lanes' active mask carried through the iterations as sign-extended";

  /** driver/counter_kernels.c: loops whose result is their counter as the lane leaves, and one that is not. */
  static final List<K> COUNTER_KERNELS = List.of(
      new K("count_early", "vu", "fi", 'i', -2, 2),
      new K("count_late", "vu", "fi", 'i', -2.2, 2.2),
      new K("count_down", "vu", "fi", 'i', -3, 8),
      new K("count_step", "vu", "fi", 'l', -3, 3),
      new K("count_div", "vv", "ii", 'i', -1000, 1000),
      new K("count_trunc", "vu", "fi", 'i', -4, 22),
      new K("not_counter", "vu", "fi", 'i', -10, 45),
      new K("count_sext", "vu", "fi", 'l', -2, 2),
      new K("count_zext", "vu", "fi", 'l', -10, 31),
      new K("count_limit64", "vu", "fi", 'i', -5, 41),
      new K("count_affine", "vu", "fi", 'i', -10, 45),
      new K("count_left", "vu", "fi", 'i', -10, 45));

  static final String COUNTER_REMARK = "the result is the loop's counter as a lane leaves it";
  static final String COMPUTED_REMARK = ", the result computed from it: ";

  /**
   * The result kept in the loop's counter ({@code RefillDriver.counterResult}, {@code RefillSplit.counterSlot}): by default
   * on Intel CPUs, AVX2 ({@code haswell}, {@code skylake}) and, since the twenty-second round, AVX-512 ({@code avx512},
   * where it takes the place of the results at the round), forced on for baseline x86-64 (scalar moves, i1 masks), by
   * default off on AMD's AVX-512 ({@code avx512-amd}: the functions' CPU named znver4) and with the knob off on haswell
   * and AVX-512. The kernels of {@code driver/counter_kernels.c} compiled by the bundled clang -O2 for the route's CPU (the
   * counter before its increment at one exit and the limit compared equal to the increment at the other, the increment at
   * both, a counter stepping down by 3, a 64-bit counter stepping by 2 next to 32-bit state, masked iterations, a 32-bit
   * counter widened to 64 bits by clang and returned truncated, and a loop
   * whose result is not a function of the counter alone, which must keep the carried result; since the twenty-third round
   * also a 32-bit counter returned as a 64-bit result by sext and by zext, a 64-bit counter whose count exit compares it
   * with the widened 32-bit limit, and results computed from the counter, 2·i+1 and limit−i, which the remark names as
   * computed from it) and the bundled mandelbrot and julia
   * (counters) and march (not) retargeted; the remark names the counter exactly where it is used. W = 4, 8, 16 with one,
   * two and four refill states; every element equal to the scalar function's, n from 0 to 3·IC·W+1, 97 and 10·IC·W+3,
   * random and coherent inputs, nothing written after the output.
   */
  @ParameterizedTest(name = "W={0} route={1} counterResult={2}")
  @MethodSource("counterCases")
  void counterResultsMatchTheScalarFunction(int w, String route, String knob) throws Throwable {
    Path bc = kernelsFor(route, "counter_kernels.c");
    // auto: Intel, AVX2 and (since the twenty-second round) AVX-512; not AMD (avx512-amd: the AVX-512 code with the
    // functions' CPU named znver4, so that it runs on any AVX-512 host)
    boolean on = knob.equals("true") || knob.equals("auto") && (route.equals("haswell") || route.equals("skylake")
        || route.equals("avx512"));
    System.setProperty("packetizer.refill.counterResult", knob);
    try {
      for (int ic : new int[] {1, 2, 4}) {
        if (ic == 4 && w == 16) continue;
        List<Integer> ns = sizes(ic * w);
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc)) {
          if (route.equals("avx512-amd")) {
            for (Function f : m.functions()) if (!f.isDeclaration()) f.setStringAttribute("target-cpu", "znver4");
          }
          List<Remark> remarks = new ArrayList<>();
          for (K k : COUNTER_KERNELS) {
            packetizeWithRefill(m, k, w, ic, remarks);
            boolean want = on && !k.name().equals("not_counter");
            assertEquals(want, remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(COUNTER_REMARK)),
                k.name() + ": " + remarks);
            // the result computed from the counter at the round (twenty-third round): the steps named in the remark
            String computed = switch (k.name()) {
              case "count_sext", "count_zext" -> COMPUTED_REMARK + "zext to i64";
              case "count_affine" -> COMPUTED_REMARK + "shl 1, or 1";
              case "count_left" -> COMPUTED_REMARK + "argument 1 sub it";
              default -> null;
            };
            boolean named = remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(COMPUTED_REMARK));
            assertEquals(want && computed != null, named, k.name() + ": " + remarks);
            if (want && computed != null) {
              assertTrue(remarks.stream().anyMatch(r -> r.function().equals(k.name()) && r.message().contains(computed)),
                  computed + ": " + remarks);
            }
          }
          try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
            jit.addModule(m);
            for (K k : COUNTER_KERNELS) check(jit, arena, k, w, ns);
          }
        }
        for (K k : BUNDLED) {
          checkBundled(k, routeCpu(route) == null && !route.equals("baseline") ? route : routeCpu(route), w, ic, ns,
              remarks -> assertEquals(on && !k.name().equals("march"),
                  remarks.stream().anyMatch(r -> r.message().contains(COUNTER_REMARK)), remarks.toString()));
        }
      }
    } finally {
      System.clearProperty("packetizer.refill.counterResult");
    }
  }

  /**
   * The AVX2 permutation rounds' block constant ({@code RefillDriver.avx2BlockScale}, twenty-second round): k = ⌊√(c·T)⌋
   * with c = 8 on Intel (haswell, skylake), 4 on AMD (znver2: not measured), the knob's value where {@code
   * -Dpacketizer.refill.blockScale.avx2} is set; the remark names c, and the bundled escape-time kernels (the rule's four
   * states) match the scalar function element by element, n from 0 to 3·4·W+1, 97 and 10·4·W+3, random and coherent.
   */
  @ParameterizedTest(name = "W={0} cpu={1} knob={2}")
  @org.junit.jupiter.params.provider.CsvSource({"8,haswell,''", "16,skylake,''", "8,znver2,''", "16,haswell,3"})
  void avx2BlockConstantFollowsTheFamily(int w, String cpu, String knob) throws Throwable {
    Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the AVX2 refill blocks did not run");
    String want = "k = ⌊√(" + (!knob.isEmpty() ? knob : cpu.equals("znver2") ? "4" : "8") + "·T)⌋";
    if (!knob.isEmpty()) System.setProperty("packetizer.refill.blockScale.avx2", knob);
    try {
      for (K k : BUNDLED) {
        checkBundled(k, cpu, w, 0, sizes(4 * w), remarks -> assertTrue(remarks.stream().anyMatch(r -> r.message().contains(want)
            && r.message().contains(PERMUTE_REMARK)), want + ": " + remarks));
      }
    } finally {
      System.clearProperty("packetizer.refill.blockScale.avx2");
    }
  }

  static Stream<Arguments> counterCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) {
      out.add(Arguments.of(w, "haswell", "auto"));
      out.add(Arguments.of(w, "skylake", "auto"));
    }
    out.add(Arguments.of(8, "haswell", "false"));
    out.add(Arguments.of(8, "baseline", "true"));
    out.add(Arguments.of(16, "baseline", "true"));
    out.add(Arguments.of(8, "avx512", "auto"));
    out.add(Arguments.of(16, "avx512", "auto"));
    out.add(Arguments.of(8, "avx512-amd", "auto"));
    out.add(Arguments.of(8, "avx512", "false"));
    out.add(Arguments.of(8, "avx512", "true"));
    out.add(Arguments.of(16, "avx512", "true"));
    return out.stream();
  }

  static Stream<Arguments> wideMaskCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) {
      out.add(Arguments.of(w, "haswell", "auto"));
      out.add(Arguments.of(w, "skylake", "auto"));
      out.add(Arguments.of(w, "baseline", "true"));
    }
    out.add(Arguments.of(8, "haswell", "false"));
    out.add(Arguments.of(8, "znver2", "auto"));
    out.add(Arguments.of(16, "znver2", "true"));
    return out.stream();
  }

  static Stream<Arguments> interleavedCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (boolean avx512 : new boolean[] {false, true}) out.add(Arguments.of(w, avx512, 2));
    for (int w : new int[] {4, 8, 16}) for (boolean avx512 : new boolean[] {false, true}) out.add(Arguments.of(w, avx512, 4));
    return out.stream();
  }

  /**
   * The rule's choice for the refill body (no option): the escape-time kernels, latency-bound, get four
   * refill states at W8 on AVX-512 (the remark says so); at W32 (two registers per value) the rule's
   * estimate decides; the driver has as many states as the remark says, and matches the scalar function.
   */
  @Test
  void theRuleInterleavesLatencyBoundRefillLoops() throws Throwable {
    Assumptions.assumeTrue(hostHasAvx512(), "SKIPPED (LOUD): the host has no AVX-512; the interleaved refill driver did not run");
    Manifest mf = Manifest.load();
    for (K k : BUNDLED) {
      for (int w : new int[] {8, 32}) {
        List<Remark> remarks = new ArrayList<>();
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(mf.require(k.name())), k.name() + ".bc")) {
          retarget(m, k.name(), "skylake-avx512", AVX512_FEATURES);
          new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true).arrayDriver("*_map")
              .refill(Refill.ON).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
          String note = remarks.stream().map(Remark::message).filter(x -> x.startsWith("refill body: interleave count ")).findFirst()
              .orElseThrow(() -> new AssertionError(remarks.toString()));
          int ic = Integer.parseInt(note.substring("refill body: interleave count ".length()).split(" ")[0]);
          assertTrue(note.contains("no charge: refill gives finished lanes new elements") && note.endsWith("-> IC " + ic), note);
          // latency-bound (about 22-54 cycles of recurrence against 4.5-21.5 of throughput) with 32 registers at W8: 4 chains
          if (w == 8) assertEquals(4, ic, note);
          assertTrue(ic >= 1 && ic <= 4, note);
          assertEquals(ic > 1, remarks.stream().anyMatch(r -> r.message().contains(ic + " independent sets of " + w + " lanes")),
              remarks.toString());
          try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
            jit.addModule(m);
            check(jit, arena, k, w, List.of(0, 1, w - 1, 2 * w + 1, 4 * w + 3, 200));
          }
        }
      }
    }
  }

  /**
   * The refill driver keeps the packet function's multiplies by constants as shifts and adds (issue 16, twenty-third
   * round): FNV-1a 32 at W8 and FNV-1a 64 at W4 from {@code beyond/mul_shifts.c} (clang -O2 -march=haswell without
   * runtime unrolling, a per-lane count of rounds), one refill set (IC 1), haswell: the driver's hot loop ({@code iterate}) has no vector multiply
   * after the driver's own clean-up (whose InstCombine folded them back before), and every element equals the scalar
   * function's; with the knob false the multiplies stay and the elements still agree; the rule's own interleave count
   * runs too (whatever MulShifts decides there).
   */
  @Test
  void multipliesAsShiftsStayInTheRefillLoop() throws Throwable {
    Assumptions.assumeTrue(hostHasAvx2(), "SKIPPED (LOUD): the host has no AVX2; the haswell refill driver did not run");
    String c;
    try (InputStream in = RefillDriverJitTest.class.getResourceAsStream("/beyond/mul_shifts.c")) {
      c = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Files.writeString(dir.resolve("mul_shifts.c"), c);
    // (without runtime unrolling: clang -O2 unrolls the rounds loop by 2, 8 multiplies per iteration, and with the
    // driver's own work around them the loop estimate keeps them; that bitcode runs too, its shape not asserted)
    BundledClang.locate().compileToBitcode(dir, Path.of("mul_shifts.c"), Path.of("ms.bc"),
        List.of("-O2", "-mllvm", "-unroll-runtime=false", "-march=haswell"));
    BundledClang.locate().compileToBitcode(dir, Path.of("mul_shifts.c"), Path.of("ms2.bc"), List.of("-O2", "-march=haswell"));
    record Case(K k, int w, String type, String prime) {}
    // (the prime's multiply: FNV-1a 64's key * 3 + 1 is LLVM's own shift and add, left as a multiply)
    List<Case> cases = List.of(new Case(new K("fnv1a32_key", "vv", "ii", 'i', 0, 40), 8, "<8 x i32>", "splat (i32 16777619)"),
        new Case(new K("fnv1a64_key", "vv", "li", 'l', 0, 30), 4, "<4 x i64>", "splat (i64 1099511628211)"));
    for (String bc : new String[] {"ms.bc", "ms2.bc"}) for (String knob : new String[] {"auto", "false"}) {
      for (int ic : new int[] {1, 0}) {
        String old = System.getProperty("packetizer.mulShifts");
        System.setProperty("packetizer.mulShifts", knob);
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
          for (Case cs : cases) {
            List<Remark> remarks = new ArrayList<>();
            new Packetizer(PacketizerOptions.builder().width(cs.w()).params(cs.k().kinds()).targetCpu("haswell").verifyEachPhase(true)
                .arrayDriver("*_map").refill(Refill.ON).interleave(ic).remarks(remarks::add).build())
                .run(m, cs.k().name(), cs.k().name() + "_v" + cs.w());
            assertTrue(remarks.stream().anyMatch(r -> r.message().startsWith("lane refill (--refill) at")), remarks.toString());
            String driver = m.function(cs.k().name() + "_map").orElseThrow().print();
            int at = driver.indexOf("\niterate:");
            assertTrue(at >= 0, driver);
            String hot = driver.substring(at, driver.indexOf("\n\n", at));
            if (ic == 1 && bc.equals("ms.bc")) {
              assertEquals(knob.equals("false"), hot.lines().anyMatch(l -> l.contains(" mul " + cs.type()) && l.contains(cs.prime())),
                  () -> cs.k().name() + " knob " + knob + ":\n" + hot);
              if (knob.equals("auto")) assertTrue(hot.contains("shl " + cs.type()), hot);
            }
          }
          try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
            jit.addModule(m);
            for (Case cs : cases) check(jit, arena, cs.k(), cs.w(), sizes(4 * cs.w()));
          }
        } finally {
          if (old == null) System.clearProperty("packetizer.mulShifts");
          else System.setProperty("packetizer.mulShifts", old);
        }
      }
    }
  }

  static Stream<Arguments> batchCases() {
    return Stream.of(4, 8, 16).flatMap(w -> Stream.of(Arguments.of(w, false), Arguments.of(w, true)));
  }

  private static void packetize(LlvmModule m, K k, int w, List<Remark> remarks) {
    PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true)
        .arrayDriver("*_map").refill(Refill.ON).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
    assertEquals(k.name() + "_map", r.driverFunction().orElseThrow());
  }

  static ValueLayout layout(char t) {
    return switch (t) {
      case 'f' -> JAVA_FLOAT;
      case 'd' -> JAVA_DOUBLE;
      case 'i' -> JAVA_INT;
      case 'l' -> JAVA_LONG;
      case 'b' -> JAVA_BYTE;
      default -> throw new IllegalArgumentException("type " + t);
    };
  }

  static Object value(char t, double d) {
    return switch (t) {
      case 'f' -> (float) d;
      case 'd' -> d;
      case 'i' -> (int) Math.floor(d);
      case 'l' -> (long) Math.floor(d);
      default -> throw new IllegalArgumentException("type " + t);
    };
  }

  static void set(MemorySegment s, char t, int i, Object v) {
    switch (t) {
      case 'f' -> s.setAtIndex(JAVA_FLOAT, i, (Float) v);
      case 'd' -> s.setAtIndex(JAVA_DOUBLE, i, (Double) v);
      case 'i' -> s.setAtIndex(JAVA_INT, i, (Integer) v);
      case 'l' -> s.setAtIndex(JAVA_LONG, i, (Long) v);
      default -> throw new IllegalArgumentException("type " + t);
    }
  }

  /** Runs the driver and the scalar function over random and coherent inputs; every element compared byte for byte. */
  /** Packetizes {@code k} in {@code m} as {@code K_vW} with its refill driver {@code K_map} (refill on, interleave {@code ic}). */
  static void packetizeWithRefill(LlvmModule m, K k, int w, int ic, List<Remark> remarks) {
    new Packetizer(PacketizerOptions.builder().width(w).params(k.kinds()).verifyEachPhase(true).arrayDriver("*_map")
        .refill(Refill.ON).interleave(ic).remarks(remarks::add).build()).run(m, k.name(), k.name() + "_v" + w);
  }

  static void check(Jit jit, Arena arena, K k, int w) throws Throwable {
    check(jit, arena, k, w, sizes(w));
  }

  /** n from 0 to 3·step+1, 97 and 10·step+3 (step: the elements of one driver step, IC·W). */
  static List<Integer> sizes(int step) {
    List<Integer> ns = new ArrayList<>();
    for (int n = 0; n <= 3 * step + 1; n++) ns.add(n);
    ns.add(97);
    ns.add(10 * step + 3);
    return ns;
  }

  static void check(Jit jit, Arena arena, K k, int w, List<Integer> ns) throws Throwable {
    int np = k.types().length();
    List<MemoryLayout> scalarParams = new ArrayList<>();
    List<MemoryLayout> driverParams = new ArrayList<>();
    for (int j = 0; j < np; j++) {
      scalarParams.add(layout(k.types().charAt(j)));
      driverParams.add(k.kinds().charAt(j) == 'v' ? ADDRESS : layout(k.types().charAt(j)));
    }
    char rt = k.ret();
    ValueLayout rl = layout(rt);
    driverParams.add(ADDRESS);
    driverParams.add(JAVA_LONG);
    MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(k.name())),
        rt == 'b' ? FunctionDescriptor.of(JAVA_BYTE, scalarParams.toArray(MemoryLayout[]::new))
            : FunctionDescriptor.of(rl, scalarParams.toArray(MemoryLayout[]::new)));
    MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(k.name() + "_map")),
        FunctionDescriptor.ofVoid(driverParams.toArray(MemoryLayout[]::new)));
    Random rnd = new Random(k.name().hashCode() * 31L + w);
    for (boolean coherent : new boolean[] {false, true}) {
      for (int n : ns) {
        Object[] uniform = new Object[np];
        MemorySegment[] arrays = new MemorySegment[np];
        for (int j = 0; j < np; j++) {
          char t = k.types().charAt(j);
          if (k.kinds().charAt(j) == 'v') {
            arrays[j] = arena.allocate(layout(t), Math.max(1, n));
            for (int i = 0; i < n; i++) {
              double frac = coherent ? (n <= 1 ? 0.5 : (double) i / (n - 1)) : rnd.nextDouble();
              // coherent: neighbours nearly equal (a smooth ramp over a narrow band); random: the whole range
              double d = coherent ? k.lo() + (k.hi() - k.lo()) * (0.4 + 0.05 * frac + 0.01 * j) : k.lo() + (k.hi() - k.lo()) * frac;
              set(arrays[j], t, i, value(t, d));
            }
          } else {
            uniform[j] = switch (k.name()) {
              case "mandelbrot" -> 150;
              case "julia" -> j == 2 ? (Object) (-0.8f) : j == 3 ? (Object) 0.156f : (Object) 120;
              case "multi_exit", "exit_values" -> 40;
              case "nested" -> 5;
              case "rows" -> 6;
              case "stack_slot" -> 20;
              case "saxpy" -> 1.75f;
              case "vsum" -> 150;
              case "count_early", "count_late", "count_down", "count_step", "count_trunc", "not_counter", "count_sext", "count_zext",
                  "count_limit64", "count_affine", "count_left" -> 45;
              default -> throw new IllegalStateException(k.name());
            };
          }
        }
        MemorySegment out = arena.allocate(rl, n + w);
        out.fill((byte) 0x5a);
        Object[] dargs = new Object[np + 2];
        for (int j = 0; j < np; j++) dargs[j] = arrays[j] != null ? arrays[j] : uniform[j];
        dargs[np] = out;
        dargs[np + 1] = (long) n;
        driver.invokeWithArguments(dargs);
        for (int i = 0; i < n; i++) {
          Object[] sargs = new Object[np];
          for (int j = 0; j < np; j++) {
            char t = k.types().charAt(j);
            sargs[j] = arrays[j] == null ? uniform[j] : switch (t) {
              case 'f' -> arrays[j].getAtIndex(JAVA_FLOAT, i);
              case 'd' -> arrays[j].getAtIndex(JAVA_DOUBLE, i);
              case 'i' -> arrays[j].getAtIndex(JAVA_INT, i);
              case 'l' -> arrays[j].getAtIndex(JAVA_LONG, i);
              default -> throw new IllegalStateException();
            };
          }
          Object want = scalar.invokeWithArguments(sargs);
          long size = rl.byteSize();
          MemorySegment w1 = arena.allocate(rl);
          switch (rt) {
            case 'f' -> w1.set(JAVA_FLOAT, 0, (Float) want);
            case 'd' -> w1.set(JAVA_DOUBLE, 0, (Double) want);
            case 'i' -> w1.set(JAVA_INT, 0, (Integer) want);
            case 'l' -> w1.set(JAVA_LONG, 0, (Long) want);
            case 'b' -> w1.set(JAVA_BYTE, 0, (byte) ((Byte) want & 1));
            default -> throw new IllegalStateException();
          }
          assertEquals(-1, MemorySegment.mismatch(w1, 0, size, out, i * size, (i + 1) * size),
              k.name() + " W=" + w + " n=" + n + (coherent ? " coherent" : " random") + ": element " + i + " differs (want "
                  + want + ")");
        }
        for (long b = n * rl.byteSize(); b < (n + w) * rl.byteSize(); b++) {
          assertEquals((byte) 0x5a, out.get(JAVA_BYTE, b), k.name() + " n=" + n + ": byte " + b + " after the output written");
        }
      }
    }
  }
}
