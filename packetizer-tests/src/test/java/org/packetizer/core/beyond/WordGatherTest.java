package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.jit.JitFunction;

/**
 * Sub-word loads as gathers of aligned 4-byte words ({@code MemoryWidener.wordGather}, issue 16:
 * volume's byte-table lookups; knob {@code -Dpacketizer.wordGathers=false|true|all}). Foreign code:
 * {@code beyond/word_loads.c} (and {@code mask_bits.c}'s byte loop for the 64-bit-address form),
 * compiled by the bundled clang with plain -O1/-O2 and {@code -march=} the target, so that the packet
 * function is compiled for it (the AVX2 gather intrinsic is chosen from the function's own target).
 * Differential at W=4, 8, 16, unmasked and masked, on x86-64-v2 (no gather: per-lane loads), haswell
 * (llvm.x86.avx2.gather.d.d.256) and znver4 (llvm.masked.gather), every buffer between guard pages;
 * and a buffer whose last byte lies directly before a PROT_NONE page (its length not a multiple of 4),
 * read at its last bytes by active lanes while inactive lanes point into the guard page.
 */
class WordGatherTest {

  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    for (String knob : new String[] {"true", "all"}) {
      withKnob(knob, () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "word_loads.c", opt, "-march=" + cpu)) {
          ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
          TableLookupTest.check(m, "chain3", w, cpu, "vvv", 10 + w, x, x, x);
          TableLookupTest.check(m, "short_lookup", w, cpu, "vv", 20 + w, x, ParamSpec.varying(ValueDomain.ints(-40, 40)));
          TableLookupTest.check(m, "byte_at", w, cpu, "uuv", 30 + w, ParamSpec.uniformPtr(ctx.i8(), 61, Direction.IN),
              ParamSpec.uniform(ValueDomain.ints(61, 61)), ParamSpec.varying(ValueDomain.ints(-8, 70)));
          TableLookupTest.check(m, "short_at", w, cpu, "uuv", 40 + w, ParamSpec.uniformPtr(ctx.i16(), 29, Direction.IN),
              ParamSpec.uniform(ValueDomain.ints(29, 29)), ParamSpec.varying(ValueDomain.ints(-8, 40)));
          TableLookupTest.check(m, "hash_wrapped", w, cpu, "uvv", 50 + w, ParamSpec.uniformPtr(ctx.i8(), 1021, Direction.IN),
              ParamSpec.varying(ValueDomain.ints(0, 2000)), ParamSpec.varying(ValueDomain.ints(-2, 40)));
          TableLookupTest.check(m, "by_byte", w, cpu, "uv", 60 + w, ParamSpec.uniformPtr(ctx.i8(), 256, Direction.IN), x);
        }
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", opt, "-march=" + cpu)) {
          TableLookupTest.check(m, "fnv_bytes", w, cpu, "uvv", 70 + w, ParamSpec.uniformPtr(ctx.i8(), 127, Direction.IN),
              ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(-2, 64)));
          TableLookupTest.check(m, "nested_rows", w, cpu, "uvv", 80 + w, ParamSpec.uniformPtr(ctx.i16(), 63, Direction.IN),
              ParamSpec.varying(ValueDomain.ints(-1, 7)), ParamSpec.varying(ValueDomain.ints(-1, 7)));
        }
      });
    }
  }

  /**
   * A buffer of {@code n} bytes (n = 4093, or 2045 shorts: not a multiple of 4) whose last byte is the
   * last one before a PROT_NONE page, and one whose first byte is the first after one: every lane
   * reads one of the last (first) elements, or, when its index is out of range, is inactive with an
   * address in the guard page. A word gather that read a word not aligned to 4, or an inactive lane,
   * would fault. W4/W8 on haswell, W8/W16 on znver4, clang -O2.
   */
  @Test
  void guardPageDirectlyAfterTheLastByte() throws Throwable {
    long page = 4096;
    try (Arena arena = Arena.ofConfined(); LlvmContext ctx = LlvmContext.create()) {
      MemorySegment map = mmap(3 * page);
      try {
        // pages: [PROT_NONE][rw][PROT_NONE]
        mprotect(map.asSlice(page, page), page, 3);
        MemorySegment rw = map.asSlice(page, page);
        Random rnd = new Random(7);
        for (long k = 0; k < page; k++) rw.set(ValueLayout.JAVA_BYTE, k, (byte) rnd.nextInt());
        for (String wc : List.of("4 haswell", "8 haswell", "8 znver4", "16 znver4")) {
          int w = Integer.parseInt(wc.split(" ")[0]);
          String cpu = wc.split(" ")[1];
          try (LlvmModule m = PlainC.compile(ctx, "word_loads.c", "-O2", "-march=" + cpu)) {
            for (String fn : List.of("byte_at", "short_at")) {
              new Packetizer(PacketizerOptions.builder().width(w).params("uuv").targetCpu(cpu).verifyEachPhase(true).build())
                  .run(m, fn, fn + "_simd");
              String ir = m.function(fn + "_simd").orElseThrow().print();
              assertTrue(ir.contains(cpu.equals("haswell") ? "@llvm.x86.avx2.gather.d.d" : "@llvm.masked.gather.v" + w + "i32"), ir);
            }
            try (Jit jit = Jit.host()) {
              jit.addModule(m);
              for (String fn : List.of("byte_at", "short_at")) {
                int es = fn.equals("byte_at") ? 1 : 2;
                int n = fn.equals("byte_at") ? 4093 : 2045;
                JitFunction scalar = jit.function(fn), packet = jit.function(fn + "_simd");
                // the buffer ends at the guard page after rw, and then starts at rw's first byte
                for (MemorySegment buf : List.of(rw.asSlice(page - (long) n * es), rw)) {
                  for (int round = 0; round < 64; round++) {
                    int[] idx = new int[w];
                    for (int k = 0; k < w; k++) {
                      int r = rnd.nextInt(4);
                      // last / first elements, beyond the end (inactive, in the guard page after), before the start
                      idx[k] = buf == rw ? (r == 0 ? rnd.nextInt(4) : r == 1 ? -1 - rnd.nextInt(3) : rnd.nextInt(8))
                          : (r == 0 ? n + rnd.nextInt(600) : r == 1 ? -1 - rnd.nextInt(3) : n - 1 - rnd.nextInt(8));
                    }
                    int[] got = (int[]) packet.call(buf, n, idx);
                    for (int k = 0; k < w; k++) {
                      int want = (int) scalar.call(buf, n, idx[k]);
                      assertEquals(want, got[k], fn + " W" + w + " " + cpu + " lane " + k + " index " + idx[k]);
                    }
                  }
                }
              }
            }
          }
        }
      } finally {
        munmap(map, 3 * page);
      }
    }
  }

  /**
   * The structure where the knob is on (the default): haswell W8 gathers the words with the AVX2
   * intrinsic (one per 8 lanes), with no per-lane byte load and no dummy slot; skylake-avx512 W16 (AVX-512 without VBMI) with
   * llvm.masked.gather of i32; x86-64-v2 keeps per-lane loads; the knob off keeps them everywhere;
   * loads from 64-bit addresses (the byte loop of mask_bits.c) only with {@code =all}.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create()) {
      // (chain3's constant byte table is looked up by permutes in registers on all three targets by
      // default, PermuteLookupTest: the word gathers are checked with those off)
      String savedPermute = System.setProperty("packetizer.permuteLookups", "false");
      try {
      for (String wc : List.of("8 haswell", "16 skylake-avx512", "4 x86-64-v2")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        try (LlvmModule m = PlainC.compile(ctx, "word_loads.c", "-O2", "-march=" + cpu)) {
          new Packetizer(PacketizerOptions.builder().width(w).params("vvv").targetCpu(cpu).build()).run(m, "chain3", "c_on");
          String on = m.function("c_on").orElseThrow().print();
          withKnob("false", () -> new Packetizer(PacketizerOptions.builder().width(w).params("vvv").targetCpu(cpu).build()).run(m, "chain3", "c_off"));
          String off = m.function("c_off").orElseThrow().print();
          assertEquals(3 * w, TableLookupTest.count(off, "load i8, ptr"), off);
          if (cpu.equals("x86-64-v2")) {
            assertEquals(3 * w, TableLookupTest.count(on, "load i8, ptr"), on);
            continue;
          }
          assertEquals(0, TableLookupTest.count(on, "load i8, ptr"), on);
          assertEquals(3, TableLookupTest.count(on, cpu.equals("haswell") ? "call <8 x i32> @llvm.x86.avx2.gather.d.d.256(" : "call <16 x i32> @llvm.masked.gather.v16i32"), on);
          assertEquals(3, TableLookupTest.count(on, "lshr <" + w + " x i32>"), on);
        }
        try (LlvmModule m = PlainC.compile(ctx, "mask_bits.c", "-O1", "-march=" + cpu)) {
          new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, "fnv_bytes", "f_on");
          String on = m.function("f_on").orElseThrow().print();
          // (from W8 the byte window, which near a page's end reloads its windows from inside the pages: no byte
          // load (the loop over the lanes before the nineteenth round had one); W4 keeps the per-lane loads)
          assertEquals(w >= 8 ? 0 : w, TableLookupTest.count(on, "load i8, ptr"), on);
          withKnob("all", () -> new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, "fnv_bytes", "f_all"));
          String all = m.function("f_all").orElseThrow().print();
          if (cpu.equals("x86-64-v2")) {
            assertEquals(w, TableLookupTest.count(all, "load i8, ptr"), all);
          } else {
            assertEquals(0, TableLookupTest.count(all, "load i8, ptr"), all);
            assertTrue(all.contains("@llvm.ptrmask") || all.contains("and <" + w + " x i64>"), all);
            assertEquals(cpu.equals("haswell") ? w / 4 : 1, TableLookupTest.count(all,
                cpu.equals("haswell") ? "@llvm.x86.avx2.gather.q.d.256(" : "@llvm.masked.gather.v16i32.v16p0("), all);
          }
        }
      }
      } finally {
        if (savedPermute == null) System.clearProperty("packetizer.permuteLookups");
        else System.setProperty("packetizer.permuteLookups", savedPermute);
      }
    }
  }

  /**
   * A module whose functions carry no AVX2 (clang's default x86-64) gets no AVX2 intrinsic when the options name no CPU;
   * under options naming haswell the packet function carries haswell (RunTarget, since the nineteenth round; before, it
   * kept x86-64 and the AVX2 intrinsics were left out), so AVX2 intrinsics are legal in it, and the user's function
   * keeps x86-64.
   */
  @Test
  void noAvx2IntrinsicWithoutAvx2() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "word_loads.c", "-O2")) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vvv").build()).run(m, "chain3", "c8");
      String ir = m.function("c8").orElseThrow().print();
      assertFalse(ir.contains("@llvm.x86.avx2"), ir);
      new Packetizer(PacketizerOptions.builder().width(8).params("vvv").targetCpu("haswell").build()).run(m, "chain3", "h8");
      assertEquals("haswell", m.function("h8").orElseThrow().stringAttribute("target-cpu").orElse(""));
      assertEquals("x86-64", m.function("chain3").orElseThrow().stringAttribute("target-cpu").orElse(""));
    }
  }

  static void withKnob(String value, Runnable r) {
    Knobs.with("packetizer.wordGathers", value, r);
  }

  private static final Linker LINKER = Linker.nativeLinker();

  private static MethodHandle libc(String name, FunctionDescriptor fd) {
    return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
  }

  static MemorySegment mmap(long size) throws Throwable {
    MethodHandle h = libc("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    MemorySegment p = (MemorySegment) h.invokeExact(MemorySegment.NULL, size, 0, 0x22, -1, 0L);
    assertTrue(p.address() != -1L && p.address() != 0L, "mmap");
    return p.reinterpret(size);
  }

  static void mprotect(MemorySegment at, long size, int prot) throws Throwable {
    MethodHandle h = libc("mprotect", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    assertEquals(0, (int) h.invokeExact(at, size, prot), "mprotect");
  }

  static void munmap(MemorySegment at, long size) throws Throwable {
    MethodHandle h = libc("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    assertEquals(0, (int) h.invokeExact(at, size));
  }
}
