package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The interleave count of a function without loops judged on its PACKET function ({@link PacketEstimate}, knob
 * {@code -Dpacketizer.interleave.straightLine=packet}, the default; issue 16, fourteenth round), on FOREIGN code: C compiled by the
 * bundled clang with its -O1/-O2 pipelines.
 * <ul>
 *   <li>{@code warp}: value noise with domain warping, three layers whose table lookups (emulated gathers at W4 on
 *       SSE4.2: an extract, a load and an insert per lane) depend on the layer before: a packet larger than the
 *       out-of-order window whose critical path is longer than its issue time, so two chains;</li>
 *   <li>{@code cell}: a checkerboard cell (a handful of vector operations): one chain at every width.</li>
 * </ul>
 * The array driver the rule interleaves equals the scalar function bit for bit for every n from 0 to 3·2W+1, each
 * input and the output ending right before a PROT_NONE page, the bytes before the output untouched.
 */
class InterleaveStraightLineTest {
  static final Linker C = Linker.nativeLinker();
  static final String KNOB = "packetizer.interleave.straightLine";

  /** A 256-entry table of a fixed permutation (i·167 + 13 mod 256) and one of values in [0, 1). */
  static String source() {
    StringBuilder p = new StringBuilder();
    StringBuilder v = new StringBuilder();
    StringBuilder t = new StringBuilder();
    for (int i = 0; i < 256; i++) {
      p.append(i == 0 ? "" : ",").append((i * 167 + 13) & 255);
      t.append(i == 0 ? "" : ",").append((i * 89 + 7) & 255);
      v.append(i == 0 ? "" : ",").append(((i * 97 + 31) & 255) / 256.0f).append('f');
    }
    return "float floorf(float);\n"
        + "static const unsigned char P[256] = {" + p + "};\n"
        + "static const float V[256] = {" + v + "};\n"
        + "static const int T[256] = {" + t + "};\n"
        + """
        static inline float layer(float x, float y) {
          float fx0 = floorf(x), fy0 = floorf(y);
          int xi = (int)fx0, yi = (int)fy0;
          float fx = x - fx0, fy = y - fy0;
          int a = P[xi & 255] + yi, b = P[(xi + 1) & 255] + yi;
          float v00 = V[P[a & 255]], v10 = V[P[b & 255]], v01 = V[P[(a + 1) & 255]], v11 = V[P[(b + 1) & 255]];
          float sx = fx * fx * (3.0f - 2.0f * fx), sy = fy * fy * (3.0f - 2.0f * fy);
          float top = v00 + sx * (v10 - v00), bottom = v01 + sx * (v11 - v01);
          return top + sy * (bottom - top);
        }
        /* value noise, each layer's point moved by the layer before (domain warping): dependent lookups */
        float warp(float x, float y) {
          float n1 = layer(x, y);
          float n2 = layer(2.0f * x + 4.0f * n1, 2.0f * y - 3.0f * n1);
          float n3 = layer(4.0f * x + 8.0f * n2, 4.0f * y + 5.0f * n2);
          return 0.5f * n1 + 0.3f * n2 + 0.2f * n3;
        }
        /* eight dependent lookups of a table (a hash chain): a path far longer than the packet's issue time */
        float chase(float x, float y) {
          int h = (int)(x * 1000.0f);
          h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8);
          h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8); h = T[h & 255] + (h >> 8);
          return (float)h * y;
        }
        /* a checkerboard cell: a few operations per packet */
        float cell(float x, float y) {
          int c = ((int)floorf(x * 8.0f) + (int)floorf(y * 8.0f)) & 1;
          return c ? 0.9f : 0.1f;
        }
        """;
  }

  static final String SOURCE = source();

  static String march(int w) { return w == 4 ? "x86-64-v2" : w == 8 ? "haswell" : "skylake-avx512"; }

  static LlvmModule module(LlvmContext ctx, String opt, int w) {
    return ctx.parseBitcode(BundledClang.locate().compileToBitcode(SOURCE, "straightline.c", List.of(opt, "-march=" + march(w))),
        "straightline");
  }

  static final List<ParamKind> VV = List.of(new ParamKind.Varying(), new ParamKind.Varying());

  /** The rule's choice for {@code fn} at {@code w} with the knob at {@code knob} (packetized first). */
  static Interleave.Choice choose(LlvmModule m, String fn, int w, String knob) {
    String packet = fn + "_v" + w;
    if (m.function(packet).isEmpty()) {
      new Packetizer(PacketizerOptions.builder().width(w).params("vv").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
          .build()).run(m, fn, packet);
    }
    System.setProperty(KNOB, knob);
    try {
      return Interleave.choose(m.function(fn).orElseThrow(), w, 0, Math.max(128, 32 * w), w >= 16 ? 32 : 16, false, VV, false,
          m.function(packet).orElseThrow());
    } finally {
      System.clearProperty(KNOB);
    }
  }

  /**
   * warp at W4 (SSE4.2, emulated gathers) gets two chains by the packet's estimate, its remark naming the estimate;
   * cell keeps one at every width; with the knob off both keep one, as before; the default is the estimate.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void theStraightLineEstimateComesFromThePacketFunction(String opt) {
    for (int w : new int[] {4, 8, 16}) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt, w)) {
        Interleave.Choice warp = choose(m, "warp", w, "packet");
        String why = opt + " W" + w + ": " + warp.describe(w);
        assertTrue(warp.describe(w).contains("the packet @warp_v" + w + "'s estimate:"), why);
        assertTrue(warp.describe(w).contains("critical path"), why);
        if (w == 4) assertEquals(2, warp.factor(), why);
        Interleave.Choice cell = choose(m, "cell", w, "packet");
        assertEquals(1, cell.factor(), opt + " W" + w + ": " + cell.describe(w));
        assertTrue(cell.describe(w).contains("gain 1.00"), cell.describe(w));
        Interleave.Choice byDefault = Interleave.choose(m.function("warp").orElseThrow(), w, 0, Math.max(128, 32 * w),
            w >= 16 ? 32 : 16, false, VV, false, m.function("warp_v" + w).orElseThrow());
        assertEquals(warp.describe(w), byDefault.describe(w), "the default is the packet estimate");
        Interleave.Choice off = choose(m, "warp", w, "off");
        assertEquals(1, off.factor(), off.describe(w));
        assertTrue(off.describe(w).contains("no loops, so no loop-carried chain to hide"), off.describe(w));
      }
    }
  }

  /** The window model itself: only a packet larger than half the window with a path beyond its issue time gains. */
  @Test
  void twoChainsGainOnlyWhereTheWindowCannotOverlapTheSteps() {
    int win = PacketEstimate.WINDOW;
    // a small packet: the window overlaps consecutive steps, whatever its path
    assertEquals(1.0, new PacketEstimate(40, 500, 0, 0, "f").gain(), 1e-9);
    // larger than the window, issue-bound (path below ops / 4): no gain
    assertEquals(1.0, new PacketEstimate(2 * win, win / 4.0, 0, 0, "f").gain(), 1e-9);
    // larger than the window, latency-bound: the path per packet halves with two chains (issue bound permitting)
    PacketEstimate big = new PacketEstimate(2 * win, 4 * win, 0, 0, "f");
    assertEquals(4.0 * win, big.cyclesPerPacket(1), 1e-9);
    assertEquals(2.0 * win, big.cyclesPerPacket(2), 1e-9);
    assertEquals(2.0, big.gain(), 1e-9);
    // between half the window and the window: two chains' step exceeds it
    PacketEstimate mid = new PacketEstimate(0.75 * win, 300, 0, 0, "f");
    assertEquals(300 * 0.75, mid.cyclesPerPacket(1), 1e-9);
    assertEquals(300 * 0.5, mid.cyclesPerPacket(2), 1e-9);
    // a divider-bound packet stays at its divider time
    assertEquals(1.0, new PacketEstimate(2 * win, 4 * win, 8 * win, 0, "f").gain(), 1e-9);
  }

  /** A bad knob value names the knob. */
  @Test
  void aBadKnobValueNamesTheKnob() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, "-O2", 4)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> choose(m, "cell", 4, "maybe"));
      assertTrue(e.getMessage().contains(KNOB) && e.getMessage().contains("maybe"), e.getMessage());
    }
  }

  /**
   * The array driver of warp: at W4 with the rule's choice (two chains), at W8 and W16 with two chains forced, equals
   * the scalar function bit for bit for every n from 0 to 3·2W+1 (the full steps, the masked remainder of each size,
   * and n below one step); the inputs end right before a PROT_NONE page and so does the output (a read or a write
   * past the n elements faults), the output page's bytes before the n results stay as they were.
   */
  @ParameterizedTest(name = "{0} W={1}")
  @CsvSource({"-O1,4", "-O2,4", "-O1,8", "-O2,8", "-O1,16", "-O2,16"})
  void theInterleavedDriverMatchesTheScalarFunctionForEveryN(String opt, int w) throws Throwable {
    interleavedDriverMatchesTheScalarFunction(opt, w, "warp", "packet", w == 4 ? 0 : 2, w == 4 ? "the packet @warp_v4's estimate" : null);
  }

  /**
   * The array driver of {@code fn} with the knob at {@code knob} and {@code interleave} (0: the rule's) has two chains
   * (a remark containing {@code remark} when not null) and equals the scalar function bit for bit for every n from 0
   * to 3·2W+1, the inputs and the output ending right before a PROT_NONE page, the output page's other bytes unchanged.
   */
  static void interleavedDriverMatchesTheScalarFunction(String opt, int w, String fn, String knob, int interleave, String remark)
      throws Throwable {
    System.setProperty(KNOB, knob);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt, w)) {
      List<Remark> remarks = new ArrayList<>();
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vv").arrayDriver(true)
          .interleave(interleave).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true)
          .remarks(remarks::add).build()).run(m, fn, fn + "_v" + w);
      assertTrue(r.driver().orElseThrow().maskedFunction().contains(".x2."), remarks.toString());
      if (remark != null) assertTrue(remarks.stream().anyMatch(k -> k.message().contains(remark)), remarks.toString());
      int step = 2 * w;
      long page = 4096;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle map = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(fn + "_map")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(fn)),
            FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT));
        Random rnd = new Random(17 * w + opt.length() + fn.length());
        MemorySegment[] maps = new MemorySegment[3];
        for (int a = 0; a < 3; a++) {
          maps[a] = WordGatherPages.mmap(2 * page);
          WordGatherPages.mprotect(maps[a].asSlice(page, page), page, 0);
        }
        try {
          for (int n = 0; n <= 3 * step + 1; n++) {
            MemorySegment x = maps[0].asSlice(page - 4L * n, 4L * n);
            MemorySegment y = maps[1].asSlice(page - 4L * n, 4L * n);
            MemorySegment out = maps[2].asSlice(page - 4L * n, 4L * n);
            MemorySegment outPage = maps[2].asSlice(0, page);
            outPage.fill((byte) 0x5a);
            for (int i = 0; i < n; i++) {
              x.setAtIndex(JAVA_FLOAT, i, -50 + 100 * rnd.nextFloat());
              y.setAtIndex(JAVA_FLOAT, i, -50 + 100 * rnd.nextFloat());
            }
            map.invokeExact(x, y, out, (long) n);
            for (int i = 0; i < n; i++) {
              float want = (float) scalar.invokeExact(x.getAtIndex(JAVA_FLOAT, i), y.getAtIndex(JAVA_FLOAT, i));
              assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out.getAtIndex(JAVA_FLOAT, i)),
                  opt + " W" + w + " n=" + n + " element " + i);
            }
            for (long b = 0; b < page - 4L * n; b++) {
              assertEquals((byte) 0x5a, outPage.get(JAVA_BYTE, b), opt + " W" + w + " n=" + n + ": byte " + b + " before the output");
            }
          }
        } finally {
          for (MemorySegment s : maps) WordGatherPages.munmap(s, 2 * page);
        }
      }
    } finally {
      System.clearProperty(KNOB);
    }
  }

  /** mmap/mprotect/munmap through libc (the pages around the driver's arrays). */
  static final class WordGatherPages {
    private WordGatherPages() {}

    private static MethodHandle libc(String name, FunctionDescriptor fd) {
      return C.downcallHandle(C.defaultLookup().find(name).orElseThrow(), fd);
    }

    static MemorySegment mmap(long size) throws Throwable {
      MethodHandle h = libc("mmap", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
      MemorySegment p = (MemorySegment) h.invokeExact(MemorySegment.NULL, size, 3, 0x22, -1, 0L);
      assertTrue(p.address() != -1L && p.address() != 0L, "mmap");
      return p.reinterpret(size);
    }

    static void mprotect(MemorySegment at, long size, int prot) throws Throwable {
      MethodHandle h = libc("mprotect", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
      assertEquals(0, (int) h.invokeExact(at, size, prot), "mprotect");
    }

    static void munmap(MemorySegment at, long size) throws Throwable {
      MethodHandle h = libc("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
      assertEquals(0, (int) h.invokeExact(at, size));
    }
  }
}
