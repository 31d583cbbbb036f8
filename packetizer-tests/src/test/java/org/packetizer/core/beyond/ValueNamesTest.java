package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.llvm.global.LLVM;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Value names off while packetizing (issue 16; {@code PacketizerOptions.valueNames}, knob
 * {@code -Dpacketizer.valueNames}, default false in the library): what used to depend on the names of the
 * values and blocks the packetizer makes still happens without them, the packet code is the same, and
 * the context, which may be the user's, keeps its own setting.
 *
 * <p>The one look-up by name was {@code LoopAlign}'s loop over the lanes on a rare path (the byte window's
 * page-end loop, a header named {@code .cold.lanes}; since the nineteenth round the knob value
 * {@code -Dpacketizer.byteWindows.slowLanes=loop}, set here): it is now loop metadata on the loop's back edge. Here
 * byte_windows.c compiled by the bundled clang (-O1 and -O2, {@code -march=} the target), packetized with
 * byte windows forced on, names on and off: the hot byte loop is the one aligned ({@code llvm.loop.align}
 * on the back edge of the loop that holds the window reload), the loop over the lanes ({@code cttz} of the
 * lanes left) is not, no mark is left in the published IR, and both forms agree with the scalar function
 * lane by lane (strings ending at guard pages, the checker's buffers).
 */
class ValueNamesTest {
  private static final Pattern NAMED_LOCAL = Pattern.compile("(?m)^\\s+%[A-Za-z_.$][\\w.$]* = ");
  private static final Pattern NAMED_BLOCK = Pattern.compile("(?m)^[A-Za-z_.$][\\w.$]*:");

  @ParameterizedTest(name = "{0} W={1} {2} {3} names={4}")
  @CsvSource({
      "fnv_index,8,haswell,-O1,false", "fnv_index,8,haswell,-O1,true", "fnv_index,16,znver4,-O1,false",
      "fnv_index,16,znver4,-O2,false", "fnv_index,8,haswell,-O2,true", "sum_pointer,8,haswell,-O2,false",
      "count_upper,16,znver4,-O2,false", "rows_hash,8,haswell,-O1,false"})
  void coldLaneLoopStaysUnalignedAndTheHotLoopAligned(String fn, int w, String cpu, String opt, boolean names) {
    // (the loop over the lanes is the byte window's page-end form -Dpacketizer.byteWindows.slowLanes=loop, the default
    // before the nineteenth round; the default since has no loop over the lanes)
    Knobs.with("packetizer.byteWindows.slowLanes", "loop", () -> Knobs.with("packetizer.byteWindows", "true", () -> {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "byte_windows.c", opt, "-march=" + cpu)) {
        String scalarBefore = m.function(fn).orElseThrow().print();
        String simd = fn + "_simd" + w;
        new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).valueNames(names).verifyEachPhase(true)
            .build()).run(m, fn, simd);
        assertTrue(m.verify().isEmpty(), () -> m.verify().get());
        String ir = m.function(simd).orElseThrow().print();
        // (the user's scalar function is untouched, names included)
        assertEquals(scalarBefore, m.function(fn).orElseThrow().print());
        // names only when asked
        int namedLocals = count(NAMED_LOCAL, ir) + count(NAMED_BLOCK, ir);
        if (names) assertTrue(namedLocals > 0, ir);
        else assertEquals(0, namedLocals, ir);

        List<String[]> blocks = blocks(ir);
        int cold = 0;
        int aligned = 0;
        boolean hotAligned = false;
        for (String[] b : blocks) {
          String body = b[1];
          String term = lastLine(body);
          // the loop over the lanes: one block branching back to itself, a lane's byte (cttz of the lanes left) per iteration
          boolean selfLoop = !b[0].isEmpty() && Pattern.compile("label %" + Pattern.quote(b[0]) + "(?![\\w.])").matcher(term).find();
          if (selfLoop && body.contains("@llvm.cttz.") && body.contains("load i8, ptr")) {
            cold++;
            // its back edge carries no loop ID (neither alignment nor a mark left over)
            assertFalse(term.contains("!llvm.loop"), () -> "the loop over the lanes is marked or aligned: " + term + "\n" + ir);
          }
          if (term.contains("!llvm.loop")) {
            aligned++;
            // the hot byte loop's back edge: its loop holds the window shift by a byte
            if (body.contains("lshr <" + w + " x i64>") || loopBodyShifts(blocks, b, w)) hotAligned = true;
          }
        }
        assertTrue(cold >= 1, () -> "no loop over the lanes (byte windows off?)\n" + ir);
        assertTrue(aligned >= 1 && hotAligned, () -> "the hot byte loop is not aligned\n" + ir);
        String module = m.toIr();
        assertTrue(module.contains("!\"llvm.loop.align\", i32 64"), module);
        assertFalse(module.contains(org.packetizer.core.ir.LoopAlign.COLD_LANE_LOOP), "a cold-lane mark is left in the published IR");

        // start + len <= 160: every byte read is in the buffer (the checker puts guard pages around it)
        try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w)
            .params(ParamSpec.uniformPtr(ctx.i8(), 160, Direction.IN), ParamSpec.varying(ValueDomain.ints(0, 79)),
                ParamSpec.varying(ValueDomain.ints(-2, 80)))
            .build()) {
          CheckResult r = c.runMany(200, 40 + w);
          assertTrue(r.passed(), () -> simd + ":\n" + r.report() + "\n" + ir);
          assertEquals(200 * w, r.lanesCompared());
        }
      }
    }));
  }

  /**
   * The context's setting ({@code LLVMContextShouldDiscardValueNames}) is the user's: it is the same after a
   * packetization as before, whichever the setting and the option, after a packetization that also
   * packetizes a callee (a nested run) and after one that is refused; a context that discards names still
   * gets named packet values when they are asked for.
   */
  @Test
  void theContextsSettingIsLeftAsFound() {
    String c = """
        __attribute__((noinline)) static int step(int x, int y) {
          if (x > y) return x * 3 - y;
          return (y ^ x) + 7;
        }
        int walk(int a, int b) {
          int r = 0;
          for (int i = 0; i < (a & 15); ++i) r += step(a + i, b);
          return r;
        }
        int unsupported(int a) { __asm__ volatile("" : "+r"(a)); return a + 1; }
        """;
    byte[] bc = BundledClang.locate().compileToBitcode(c, "names.c", List.of("-O2", "-nostdlibinc"));
    for (boolean discardBefore : new boolean[] {false, true}) {
      for (boolean names : new boolean[] {false, true}) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "names.c")) {
          LLVM.LLVMContextSetDiscardValueNames(ctx.ref(), discardBefore ? 1 : 0);
          PacketizerOptions o = PacketizerOptions.builder().width(8).params("vv").valueNames(names).build();
          new Packetizer(o).run(m, "walk", "walk_simd8");
          assertEquals(discardBefore, ctx.discardsValueNames(), "after walk, discard " + discardBefore + " names " + names);
          assertTrue(m.function("walk_simd8").isPresent());
          String ir = m.function("walk_simd8").orElseThrow().print();
          // (our values are named exactly when asked, whatever the context's own setting)
          assertEquals(names, count(NAMED_LOCAL, ir) > 0, ir);
          assertThrows(PacketizationException.class,
              () -> new Packetizer(PacketizerOptions.builder().width(8).params("v").valueNames(names).build()).run(m, "unsupported", "u8"));
          assertEquals(discardBefore, ctx.discardsValueNames(), "after a refusal, discard " + discardBefore + " names " + names);
          assertTrue(m.verify().isEmpty(), () -> m.verify().get());
          try (DifferentialCheck dc = DifferentialCheck.builder(m, "walk", "walk_simd8", 8)
              .params(ParamSpec.varying(ValueDomain.ints(-1000, 1000)), ParamSpec.varying(ValueDomain.ints(-1000, 1000)))
              .build()) {
            CheckResult r = dc.runMany(100, 5);
            assertTrue(r.passed(), r::report);
            assertEquals(800, r.lanesCompared());
          }
        }
      }
    }
  }

  /**
   * A scope of {@link LlvmContext#valueNames} puts back the setting it found, also when nested, and the IR
   * parser (which refuses a context that discards names) still reads text in such a context.
   */
  @Test
  void scopesNestAndTheParserReadsText() {
    try (LlvmContext ctx = LlvmContext.create()) {
      assertFalse(ctx.discardsValueNames());
      try (var off = ctx.valueNames(false)) {
        assertTrue(ctx.discardsValueNames());
        try (var on = ctx.valueNames(true)) {
          assertFalse(ctx.discardsValueNames());
        }
        assertTrue(ctx.discardsValueNames());
        try (LlvmModule m = ctx.parseIr("define i32 @f(i32 %x) {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n", "t.ll")) {
          assertTrue(m.function("f").orElseThrow().print().contains("%y = add i32 %x, 1"));
        }
        assertTrue(ctx.discardsValueNames());
      }
      assertFalse(ctx.discardsValueNames());
    }
  }

  /**
   * A function LLVM makes while its context discards names has no symbol table, and names given to its values
   * later (with names on again) would not be made unique: the scalable packets' re-typing names its reductions
   * {@code lanes} after the run and re-parses the text, which failed with "multiple definition of local value
   * named 'lanes'". The packet function (and every function the facade makes or links) is made with names on:
   * here two values of a packet function made without names, named alike afterwards, get distinct names, and
   * the module prints and parses back.
   */
  @Test
  void namesGivenAfterwardsAreMadeUnique() {
    byte[] bc = BundledClang.locate().compileToBitcode("int f(int a, int b) { return a > b ? a * 3 - b : (a ^ b) + 7; }",
        "unique.c", List.of("-O2", "-nostdlibinc"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "unique.c")) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vv").valueNames(false).build()).run(m, "f", "f8");
      List<org.packetizer.core.ir.Value> insts = new ArrayList<>();
      for (var bl : m.function("f8").orElseThrow().blocks()) {
        for (var v : bl.instructions()) if (!v.type().isVoid()) insts.add(v);
      }
      assertTrue(insts.size() >= 2, () -> m.function("f8").get().print());
      insts.get(0).setName("lanes");
      insts.get(1).setName("lanes");
      assertEquals("lanes", insts.get(0).name());
      assertNotEquals("lanes", insts.get(1).name(), () -> m.function("f8").get().print());
      try (LlvmContext other = LlvmContext.create(); LlvmModule back = other.parseIr(m.toIr(), "again.ll")) {
        assertTrue(back.function("f8").isPresent());
      }
    }
  }

  // ---- the packet IR as blocks ----

  private static int count(Pattern p, String s) {
    Matcher m = p.matcher(s);
    int n = 0;
    while (m.find()) n++;
    return n;
  }

  /** The function's blocks as {label, body} ("" for the entry block), in order. */
  private static List<String[]> blocks(String ir) {
    List<String[]> out = new ArrayList<>();
    String label = "";
    StringBuilder body = new StringBuilder();
    boolean inBody = false;
    for (String line : ir.split("\n")) {
      if (line.startsWith("define ")) {
        inBody = true;
        continue;
      }
      if (!inBody || line.startsWith("}")) continue;
      Matcher lm = Pattern.compile("^([\\w.$\"-]+):").matcher(line);
      if (lm.find()) {
        if (body.length() > 0) out.add(new String[] {label, body.toString()});
        label = lm.group(1);
        body.setLength(0);
        continue;
      }
      if (!line.isBlank()) body.append(line).append('\n');
    }
    if (body.length() > 0) out.add(new String[] {label, body.toString()});
    return out;
  }

  private static String lastLine(String body) {
    String[] ls = body.strip().split("\n");
    return ls[ls.length - 1].strip();
  }

  /**
   * Whether the loop closed by block {@code latch} (its back edge to a block laid out before it, as the
   * packet functions are laid out) shifts the windows by a byte ({@code lshr <W x i64> .., splat (i64 8)}).
   */
  private static boolean loopBodyShifts(List<String[]> blocks, String[] latch, int w) {
    String term = lastLine(latch[1]);
    int at = blocks.indexOf(latch);
    for (int i = 0; i <= at; i++) {
      String label = blocks.get(i)[0];
      if (label.isEmpty() || !Pattern.compile("label %" + Pattern.quote(label) + "\\b(?![\\w.])").matcher(term).find()) continue;
      // the back edge's target: the loop spans blocks i..at
      for (int j = i; j <= at; j++) if (blocks.get(j)[1].contains("lshr <" + w + " x i64>")) return true;
    }
    return false;
  }
}
