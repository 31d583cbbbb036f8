package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * Byte loads whose address advances by one byte per iteration of their loop, read as one 8-byte
 * window per lane every 8 iterations ({@code MemoryWidener.byteWindow}, issue 16: strhash; knob
 * {@code -Dpacketizer.byteWindows=auto|true|false}). Foreign code: {@code beyond/byte_windows.c}
 * compiled by the bundled clang with plain -O1/-O2 and {@code -march=} the target (an int index, a
 * stepped pointer, a nested loop entered three times, a data-dependent exit, a 64-bit counter with a
 * branch on the byte). Differential at W=4, 8, 16 on x86-64-v2, haswell and znver4, unmasked and
 * masked, with the knob {@code true} (every width) and the default; and every string length 0..70 at
 * every alignment 0..7 ending 0..7 bytes before a PROT_NONE page (and starting right after one), so
 * that a window read across the page's end would fault.
 */
class ByteWindowTest {

  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  static final List<String> FUNCTIONS = List.of("fnv_index", "sum_pointer", "rows_hash", "until_zero", "count_upper");

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    for (String knob : new String[] {"true", "auto"}) {
      withKnob(knob, () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "byte_windows.c", opt, "-march=" + cpu)) {
          int seed = 10;
          for (String fn : FUNCTIONS) {
            // start + len <= 160: every byte read is in the buffer (the checker puts guard pages around it)
            TableLookupTest.check(m, fn, w, cpu, "uvv", seed++ + w, ParamSpec.uniformPtr(ctx.i8(), 160, Direction.IN),
                ParamSpec.varying(ValueDomain.ints(0, 79)), ParamSpec.varying(ValueDomain.ints(-2, 80)));
          }
        }
      });
    }
  }

  /**
   * Strings of every length 0..70 whose last byte lies 0..7 bytes before a PROT_NONE page (so at every
   * alignment of their start and end), and strings starting 0..7 bytes after one: one lane each, W
   * lanes per call, compared lane by lane with the scalar function. A window of 8 bytes read at a
   * lane's address near the page's end (no page test) faults. The reloads near the page's end take the
   * page-end form of {@code -Dpacketizer.byteWindows.slowLanes=shifted} (the default: the page's last 8
   * bytes, shifted) or the rare path of {@code loop} (a loop over the lane numbers) and {@code unrolled} (W
   * byte loads); lanes that have left the loop read the dummy slot.
   */
  @Test
  void guardPageRightAfterTheStrings() throws Throwable {
    long page = 4096;
    MemorySegment map = WordGatherTest.mmap(3 * page);
    try (LlvmContext ctx = LlvmContext.create()) {
      // pages: [PROT_NONE][rw][PROT_NONE]
      WordGatherTest.mprotect(map.asSlice(page, page), page, 3);
      MemorySegment rw = map.asSlice(page, page);
      Random rnd = new Random(11);
      for (long k = 0; k < page; k++) rw.set(ValueLayout.JAVA_BYTE, k, (byte) (rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(255)));
      // (start, len) pairs: ending d bytes before the guard page, and starting a bytes after the leading one
      int[][] strings = new int[2 * 8 * 71][];
      int n = 0;
      for (int d = 0; d < 8; d++) for (int len = 0; len <= 70; len++) strings[n++] = new int[] {(int) page - d - len, len};
      for (int a = 0; a < 8; a++) for (int len = 0; len <= 70; len++) strings[n++] = new int[] {a, len};
      for (String wc : List.of("4 x86-64-v2", "8 haswell", "16 znver4")) {
       for (String slowLanes : List.of("shifted", "loop", "unrolled")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        Knobs.with("packetizer.byteWindows.slowLanes", slowLanes, () -> withKnob("true", () -> {
          java.util.Map<String, String> irs = new java.util.HashMap<>();
          try (LlvmModule m = PlainC.compile(ctx, "byte_windows.c", "-O2", "-march=" + cpu)) {
            for (String fn : FUNCTIONS) {
              new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uvv").targetCpu(cpu).verifyEachPhase(true).build())
                  .run(m, fn, fn + "_simd");
              String ir = m.function(fn + "_simd").orElseThrow().print();
              assertTrue(ir.contains("load i64, ptr"), fn + " W" + w + " has no window");
              irs.put(fn, ir);
            }
            try (Jit jit = Jit.host()) {
              jit.addModule(m);
              for (String fn : FUNCTIONS) {
                JitFunction scalar = jit.function(fn), packet = jit.function(fn + "_simd");
                // lanes in order and shuffled: neighbours of every length and end distance share a packet
                for (int round = 0; round < 2; round++) {
                  int[] order = new int[strings.length];
                  for (int i = 0; i < order.length; i++) order[i] = i;
                  if (round == 1) for (int i = order.length - 1; i > 0; i--) {
                    int j = rnd.nextInt(i + 1), t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                  }
                  for (int base = 0; base < order.length; base += w) {
                    int[] start = new int[w], len = new int[w];
                    for (int k = 0; k < w; k++) {
                      int[] sl = strings[order[(base + k) % order.length]];
                      start[k] = sl[0];
                      len[k] = sl[1];
                    }
                    int[] got = (int[]) packet.call(rw, start, len);
                    for (int k = 0; k < w; k++) {
                      int want = (int) scalar.call(rw, start[k], len[k]);
                      assertEquals(want, got[k], fn + " W" + w + " " + cpu + " lane " + k + " start " + start[k] + " len " + len[k]);
                    }
                  }
                }
              }
            }
            // (after the comparisons: the rare path, where a window would cross into the next page, is a loop
            // over the active lanes or W byte loads)
            for (String fn : FUNCTIONS) {
              String ir = irs.get(fn);
              assertEquals(slowLanes.equals("loop"), ir.contains(".lanes.acc = phi <" + w + " x i8>"), fn + " W" + w + " " + slowLanes + "\n" + ir);
            }
          } catch (Throwable t) {
            throw new AssertionError(t);
          }
        }));
       }
      }
    } finally {
      WordGatherTest.munmap(map, 3 * page);
    }
  }

  /**
   * The page-end form of the reload ({@code -Dpacketizer.byteWindows.slowLanes=shifted}, the default, and
   * {@code always}; issue 16, nineteenth round): a lane whose window would cross into the next page loads the
   * 8 bytes ending at its page's last byte and shifts them down, and the next reload comes when its bytes run
   * out. Memory [PROT_NONE][rw][rw][PROT_NONE]: for every length 0..48 and every lane, a packet in which that
   * lane's string ends exactly at the last byte before the trailing guard page, the other lanes random strings
   * ending within 24 bytes of it, crossing the inner page boundary (their windows shifted, then reloaded
   * from the second page) or anywhere; each lane against the scalar call. A window read across the
   * guard page faults; a reload after the shifted one that came too late (after 8 bytes, not after the
   * shifted window's bytes) gives wrong hashes for the lanes crossing the inner boundary. The {@code loop}
   * form (the rule before) runs the same packets. W4 x86-64-v2 (knob {@code true}), W8 and W16 on haswell
   * (the windows' lane order 0 1 4 5 2 3 6 7, so the shifts are permuted too; W loads from the clamped
   * addresses) and W16 on znver4 (one masked gather, {@code -Dpacketizer.byteWindows.inPage=auto}).
   */
  @Test
  void stringsEndingAtThePagesLastByteInEveryLane() throws Throwable {
    long page = 4096;
    MemorySegment map = WordGatherTest.mmap(4 * page);
    try (LlvmContext ctx = LlvmContext.create()) {
      WordGatherTest.mprotect(map.asSlice(page, 2 * page), 2 * page, 3);
      MemorySegment rw = map.asSlice(page, 2 * page);
      int size = (int) (2 * page);
      Random rnd = new Random(19);
      for (long k = 0; k < size; k++) rw.set(ValueLayout.JAVA_BYTE, k, (byte) (rnd.nextInt(16) == 0 ? 0 : 1 + rnd.nextInt(255)));
      for (String wc : List.of("4 x86-64-v2", "8 haswell", "16 haswell", "16 znver4")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        for (String form : List.of("shifted", "always", "loop")) {
          Knobs.with("packetizer.byteWindows.slowLanes", form, () -> withKnob("true", () -> {
            try (LlvmModule m = PlainC.compile(ctx, "byte_windows.c", "-O2", "-march=" + cpu)) {
              for (String fn : FUNCTIONS) {
                new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uvv").targetCpu(cpu).verifyEachPhase(true).build())
                    .run(m, fn, fn + "_simd");
                String ir = m.function(fn + "_simd").orElseThrow().print();
                boolean shifted = !form.equals("loop");
                assertEquals(shifted, ir.contains("@llvm.usub.sat.v" + w + "i64("), fn + " W" + w + " " + form + "\n" + ir);
                assertEquals(!form.equals("always"), ir.contains(".crosses.page"), fn + " W" + w + " " + form + "\n" + ir);
                assertEquals(form.equals("loop"), ir.contains(".lanes.acc = phi <" + w + " x i8>"), fn + " W" + w + " " + form + "\n" + ir);
                // (the reload from inside the pages: one gather where gathers stay gathers (znver4), W loads elsewhere)
                assertEquals(shifted && cpu.equals("znver4"), ir.contains("@llvm.masked.gather.v" + w + "i64"), fn + " W" + w + " " + form + "\n" + ir);
              }
              try (Jit jit = Jit.host()) {
                jit.addModule(m);
                for (String fn : FUNCTIONS) {
                  JitFunction scalar = jit.function(fn), packet = jit.function(fn + "_simd");
                  for (int len = 0; len <= 48; len++) {
                    for (int lane = 0; lane < w; lane++) {
                      int[] start = new int[w], lens = new int[w];
                      for (int k = 0; k < w; k++) {
                        int l = rnd.nextInt(49);
                        int kind = rnd.nextInt(3);
                        // near the end; across the inner page boundary (1..8 bytes before it); anywhere
                        int st = kind == 0 ? size - l - rnd.nextInt(Math.min(24, size - l) + 1)
                            : kind == 1 ? (int) page - 1 - rnd.nextInt(8) : rnd.nextInt(size - l + 1);
                        start[k] = Math.min(st, size - l);
                        lens[k] = l;
                      }
                      start[lane] = size - len;
                      lens[lane] = len;
                      int[] got = (int[]) packet.call(rw, start, lens);
                      for (int k = 0; k < w; k++) {
                        int want = (int) scalar.call(rw, start[k], lens[k]);
                        assertEquals(want, got[k], fn + " W" + w + " " + cpu + " " + form + " lane " + k + " start " + start[k] + " len " + lens[k]);
                      }
                    }
                  }
                }
              }
            } catch (Throwable t) {
              throw new AssertionError(t);
            }
          }));
        }
      }
    } finally {
      WordGatherTest.munmap(map, 4 * page);
    }
  }

  /**
   * The structure: with the knob's default, haswell W8 and znver4 W16 read the byte loops' bytes as
   * one 8-byte load per lane (W {@code load i64} per byte loop, and W more on haswell or one gather on znver4 for
   * the reload from inside the pages near a page's end) behind the test of the bytes left, and
   * shift the windows by a constant byte per iteration; x86-64-v2 W4 keeps its per-lane byte loads
   * (measured: a loss at W4); the knob {@code false} keeps them everywhere. On haswell (32-byte
   * registers) the windows are in the lane order 0 1 4 5 2 3 6 7, narrowed by one shuffle of their
   * dwords 0 2 8 10 4 6 12 14; znver4 keeps lane order. A loop that stores (copy_bumped of
   * mask_bits.c) keeps the per-lane loads too.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create()) {
      for (String wc : List.of("8 haswell", "16 znver4", "4 x86-64-v2")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        try (LlvmModule m = PlainC.compile(ctx, "byte_windows.c", "-O2", "-march=" + cpu)) {
          for (String fn : List.of("fnv_index", "sum_pointer", "rows_hash")) {
            new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, fn, fn + "_on");
            String on = m.function(fn + "_on").orElseThrow().print();
            withKnob("false", () -> new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, fn, fn + "_off"));
            String off = m.function(fn + "_off").orElseThrow().print();
            assertEquals(0, TableLookupTest.count(off, "load i64, ptr"), off);
            // (one window per lane and byte loop: rows_hash's three entries of the inner loop are unrolled by clang -O2)
            int loops = fn.equals("rows_hash") ? 3 : 1;
            // (and the reload from inside the pages near a page's end: W more loads on haswell, whose gathers would be
            // expanded, one gather on znver4)
            int perLoop = cpu.equals("haswell") ? 2 * w : w;
            assertEquals(w >= 8 ? loops * perLoop : 0, TableLookupTest.count(on, "load i64, ptr"), fn + " W" + w + "\n" + on);
            assertEquals(cpu.equals("znver4") ? loops : 0, TableLookupTest.count(on, "call <" + w + " x i64> @llvm.masked.gather"), fn + " W" + w + "\n" + on);
            // (the windows shifted by one byte per iteration: a constant shift, carried by the loop)
            long shifts = java.util.regex.Pattern.compile("lshr <" + w + " x i64> %[\\w.]+, splat \\(i64 8\\)").matcher(on).results().count();
            assertEquals(w >= 8 ? loops : 0, shifts, fn + " W" + w + "\n" + on);
            String laneOrder = "<8 x i32> <i32 0, i32 2, i32 8, i32 10, i32 4, i32 6, i32 12, i32 14>";
            assertEquals(cpu.equals("haswell") ? loops : 0, TableLookupTest.count(on, laneOrder), fn + " W" + w + "\n" + on);
          }
        }
        try (LlvmModule m = PlainC.compile(ctx, "mask_bits.c", "-O2", "-march=" + cpu)) {
          new Packetizer(PacketizerOptions.builder().width(w).params("uuvv").targetCpu(cpu).build()).run(m, "copy_bumped", "c_on");
          assertEquals(0, TableLookupTest.count(m.function("c_on").orElseThrow().print(), "load i64, ptr"));
        }
      }
    }
  }

  /**
   * Code growth (issue 16): the rare path as a loop over the active lanes (the default) makes the packet
   * function smaller in machine code than the unrolled form ({@code -Dpacketizer.byteWindows.slowLanes=unrolled},
   * W byte loads with their address selects and inserts): at W16 on znver4 by more than 2 instructions
   * per lane, at W8 on haswell smaller (AVX2 has no variable-index insert into a register: the loop
   * goes through the stack). Counted as the bench counts ({@code MachineCode}, the function with the
   * module's functions it calls), on fnv_index of byte_windows.c by clang -O1.
   */
  @Test
  void rarePathAsALoopIsSmaller() {
    try (LlvmContext ctx = LlvmContext.create()) {
      for (String wc : List.of("8 haswell 0", "16 znver4 2")) {
        String[] p = wc.split(" ");
        int w = Integer.parseInt(p[0]), perLane = Integer.parseInt(p[2]);
        String cpu = p[1];
        // (-O1: clang -O2 unrolls the loop by 8, and only its remainder loop advances by one byte)
        try (LlvmModule m = PlainC.compile(ctx, "byte_windows.c", "-O1", "-march=" + cpu)) {
          for (String slowLanes : List.of("loop", "unrolled")) {
            Knobs.with("packetizer.byteWindows.slowLanes", slowLanes, () -> new Packetizer(
                PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, "fnv_index", "fnv_" + slowLanes));
          }
          var counts = org.packetizer.core.ir.MachineCode.count(m, cpu, List.of("fnv_loop", "fnv_unrolled"));
          int loop = counts.get("fnv_loop"), unrolled = counts.get("fnv_unrolled");
          assertTrue(loop + perLane * w < unrolled, "W" + w + " " + cpu + ": loop " + loop + ", unrolled " + unrolled);
        }
      }
    }
  }

  static void withKnob(String value, Runnable r) {
    Knobs.with("packetizer.byteWindows", value, r);
  }
}
