package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationException.Kind;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrLoadException;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.IsolatedLoad;

/**
 * The bad-input table (src/test/resources/badinput/README.md), one test per row: every unreadable
 * input gives an {@link IrLoadException} naming the input with LLVM's message; every rejected
 * function a {@link PacketizationException} of the expected kind naming function, block and
 * instruction where there is one, with the module byte-for-byte unchanged (its bitcode compared
 * before and after); every accepted construct is checked by differential execution.
 */
class BadInputTest {

  // ---- helpers ----

  static PacketizerOptions.Builder opts(int width) {
    return PacketizerOptions.builder().width(width).verifyEachPhase(true);
  }

  /** Packetizing {@code fn} of the resource {@code file} fails with {@code kind}; the module is unchanged. */
  static PacketizationException rejected(String file, String fn, PacketizerOptions options, Kind kind, String... excerpts) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(BadInputs.resource(file), file)) {
      byte[] before = m.toBitcode();
      String ir = m.toIr();
      PacketizationException e = assertThrows(PacketizationException.class,
          () -> new Packetizer(options).run(m, fn, fn + "_simd"), file + " @" + fn);
      assertEquals(kind, e.kind(), () -> "kind of: " + e.getMessage());
      for (String x : excerpts) assertTrue(e.getMessage().contains(x), () -> "message lacks '" + x + "':\n" + e.getMessage());
      assertArrayEquals(before, m.toBitcode(), () -> file + ": the module changed although packetization failed");
      assertEquals(ir, m.toIr());
      assertTrue(m.verify().isEmpty() || file.equals("not-verifying.ll"));
      return e;
    }
  }

  static PacketizationException rejected(String file, String fn, Kind kind, String... excerpts) {
    return rejected(file, fn, opts(4).build(), kind, excerpts);
  }

  /** Function, block and instruction named by the exception (and in its message). */
  static void names(PacketizationException e, String fn, String block, String instructionExcerpt) {
    assertEquals(fn, e.function().orElse(null));
    assertTrue(e.getMessage().contains("in function @" + fn), e.getMessage());
    if (block != null) {
      assertEquals(block, e.block().orElse(null));
      assertTrue(e.getMessage().contains("block %" + block), e.getMessage());
    }
    if (instructionExcerpt != null) {
      assertTrue(e.instruction().orElse("").contains(instructionExcerpt), () -> "instruction: " + e.instruction());
      assertTrue(e.getMessage().contains("at: "), e.getMessage());
    }
  }

  /** Loading fails with an IrLoadException naming the input and containing the excerpts. */
  static IrLoadException unreadable(byte[] bytes, String name, String... excerpts) {
    try (LlvmContext ctx = LlvmContext.create()) {
      IrLoadException e = assertThrows(IrLoadException.class, () -> IsolatedLoad.load(ctx, bytes, name).close(), name);
      assertEquals(name, e.input());
      assertTrue(e.getMessage().startsWith(name + ":"), e.getMessage());
      for (String x : excerpts) assertTrue(e.getMessage().contains(x), () -> "message lacks '" + x + "':\n" + e.getMessage());
      // the context is still usable
      try (LlvmModule ok = ctx.parseIr(BadInputs.text("valid.ll"), "valid.ll")) {
        assertTrue(ok.function("shade").isPresent());
      }
      return e;
    }
  }

  /** Packetizes and checks lane by lane; {@code checks} runs extra checks on the built checker. */
  static PacketizationResult packetizeAndCheck(String file, String fn, PacketizerOptions options,
      BiConsumer<DifferentialCheck.Builder, LlvmModule> configure, Consumer<DifferentialCheck> checks) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(BadInputs.resource(file), file)) {
      String simd = fn + "_simd";
      PacketizationResult r = new Packetizer(options).run(m, fn, simd);
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      DifferentialCheck.Builder b = DifferentialCheck.builder(m, fn, simd, options.width());
      configure.accept(b, m);
      try (DifferentialCheck c = b.build()) {
        checks.accept(c);
      }
      return r;
    }
  }

  static void passes(CheckResult r) { assertTrue(r.passed(), r::report); }

  // ---- unreadable input ----

  @Test
  void checkedInBitcodeRowsMatchTheirRecipes() {
    for (Map.Entry<String, byte[]> e : BadInputs.derived().entrySet()) {
      assertArrayEquals(e.getValue(), BadInputs.resource(e.getKey()),
          e.getKey() + " differs from its recipe in BadInputs: run BadInputs.main to rewrite it");
    }
  }

  @Test
  void emptyBitcode() {
    unreadable(BadInputs.resource("empty.bc"), "empty.bc", "empty input (0 bytes)");
  }

  @Test
  void truncatedBitcode() {
    unreadable(BadInputs.resource("truncated.bc"), "truncated.bc", "can't skip to bit");
  }

  @Test
  void flippedBytesBitcode() {
    unreadable(BadInputs.resource("flipped.bc"), "flipped.bc", "Invalid encoding");
  }

  @Test
  void randomBytesAreTakenForTextAndRejected() {
    unreadable(BadInputs.resource("random.bin"), "random.bin", "random.bin:1:", "error:");
  }

  @Test
  void randomBytesAfterTheBitcodeMagic() {
    unreadable(BadInputs.resource("random-magic.bc"), "random-magic.bc", "Invalid encoding");
  }

  @Test
  void bitcodeFromAnIncompatibleLlvmEpoch() {
    unreadable(BadInputs.resource("newer-epoch.bc"), "newer-epoch.bc", "Incompatible epoch: Bitcode '1' vs current: '0'");
  }

  @Test
  void bitcodeWithAnAttributeThisLlvmDoesNotKnow() {
    unreadable(BadInputs.resource("newer-attribute.bc"), "newer-attribute.bc",
        "Unknown attribute kind (0)", "Producer: '" + BadInputs.NEWER_PRODUCER + "'", "Reader: 'LLVM 20.1.7'");
  }

  /** Found by fuzzing: this file crashes LLVM's reader (SIGSEGV); loaded in-process it would kill the JVM. */
  @Test
  void bitcodeThatCrashesLlvmsReaderIsCaughtInAChildProcess() {
    unreadable(BadInputs.resource("reader-crash.bc"), "reader-crash.bc", "crashed", "SIGSEGV", "was not loaded");
  }

  /**
   * Seeded random corruptions of valid bitcode through the isolated loader: each one loads (and
   * then packetizes or fails cleanly, leaving the module unchanged) or is rejected; none crashes.
   */
  @Test
  void randomCorruptionsNeverCrash() {
    byte[] bc = BadInputs.validBitcode();
    SplittableRandom rnd = new SplittableRandom(20261121);
    int loaded = 0;
    for (int i = 0; i < 24; i++) {
      byte[] b = bc.clone();
      switch (rnd.nextInt(3)) {
        case 0 -> { for (int k = 1 + rnd.nextInt(4); k > 0; k--) b[4 + rnd.nextInt(b.length - 4)] ^= (byte) (1 << rnd.nextInt(8)); }
        case 1 -> b = Arrays.copyOf(b, 4 + rnd.nextInt(b.length - 4));
        default -> { int p = 4 + rnd.nextInt(b.length - 4); for (int j = p; j < Math.min(b.length, p + 16); j++) b[j] = (byte) rnd.nextInt(); }
      }
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IsolatedLoad.load(ctx, b, "corrupt-" + i + ".bc")) {
        loaded++;
        byte[] before = m.toBitcode();
        for (Function f : m.functions()) {
          if (f.isDeclaration()) continue;
          try {
            Packetizer.packetize(m, f.name(), f.name() + "_simd", 4);
          } catch (PacketizationException e) {
            assertNotEquals(Kind.INTERNAL, e.kind(), e::getMessage);
            assertArrayEquals(before, m.toBitcode());
          }
        }
      } catch (IrLoadException e) {
        assertTrue(e.getMessage().startsWith("corrupt-" + i + ".bc: "), e.getMessage());
      }
    }
    System.out.println("randomCorruptionsNeverCrash: " + loaded + " of 24 corrupted files still loaded");
  }

  @Test
  void textSyntaxError() {
    IrLoadException e = unreadable(BadInputs.resource("syntax-error.ll"), "syntax-error.ll",
        "syntax-error.ll:6:3: error: expected ',' in arithmetic operation");
    assertFalse(e.getMessage().startsWith("syntax-error.ll: syntax-error.ll"), "the input is named once");
  }

  @Test
  void textThatParsesButIsNotValidIr() {
    rejected("not-verifying.ll", "f", Kind.INVALID_INPUT, "is not valid IR", "Instruction does not dominate all uses");
  }

  // ---- what to packetize ----

  @Test
  void misspelledFunctionSuggestsTheClosestName() {
    PacketizationException e = rejected("missing-function.ll", "shade_pixle", Kind.INVALID_INPUT,
        "no function @shade_pixle", "did you mean @shade_pixel?");
    assertTrue(e.function().isEmpty());
  }

  @Test
  void missingFunctionListsTheDefinedOnes() {
    rejected("missing-function.ll", "render", Kind.INVALID_INPUT, "no function @render", "@shade_pixel", "@shade_sky");
  }

  @Test
  void declarationWithoutBody() {
    names(rejected("declaration-only.ll", "f", Kind.INVALID_INPUT, "@f is only declared"), "f", null, null);
  }

  @Test
  void simdPrototypeThatDoesNotFit() {
    rejected("prototype-mismatch.ll", "f", Kind.INVALID_INPUT, "parameter 0 (%x) of the declared prototype @f_simd",
        "<4 x i32>", "<4 x float> (varying) or float (uniform)");
  }

  /** Before this was checked, the packet function silently became @shade_simd.1 while the result said @shade_simd. */
  @Test
  void simdNameTakenByAGlobal() {
    rejected("name-taken.ll", "shade", opts(4).build(), Kind.INVALID_INPUT, "@shade_simd already names a global variable or alias");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(BadInputs.resource("name-taken.ll"), "name-taken.ll")) {
      byte[] before = m.toBitcode();
      PacketizationException e = assertThrows(PacketizationException.class,
          () -> new Packetizer(opts(4).build()).run(m, "shade", "shade_alias"));
      assertTrue(e.getMessage().contains("@shade_alias already names a global variable or alias"), e.getMessage());
      assertArrayEquals(before, m.toBitcode());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3, -4, 6, 512, Integer.MAX_VALUE, Integer.MIN_VALUE})
  void invalidWidths(int w) {
    PacketizationException e = rejected("valid.ll", "shade", opts(4).width(w).build(), Kind.INVALID_INPUT,
        "invalid width " + w, "use a power of two from 2 to 256");
    names(e, "shade", null, null);
  }

  /** The largest width is accepted and gives valid IR (running it needs slots larger than the JIT's). */
  @Test
  void largestWidth() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(BadInputs.resource("valid.ll"), "valid.ll")) {
      PacketizationResult r = new Packetizer(opts(Packetizer.MAX_WIDTH).build()).run(m, "shade", "shade_simd");
      assertEquals(256, r.width());
      assertTrue(m.verify().isEmpty());
      assertEquals(256, m.function("shade_simd").orElseThrow().returnType().vectorSize());
    }
  }

  // ---- unsupported constructs ----

  @Test
  void varargs() {
    names(rejected("varargs.ll", "sum", Kind.UNSUPPORTED, "variadic functions cannot be packetized"), "sum", null, null);
  }

  @Test
  void invokeAndLandingpad() {
    names(rejected("invoke-landingpad.ll", "f", Kind.UNSUPPORTED, "exception handling ('invoke')"), "f", "entry", "invoke i32 @may_throw");
  }

  @Test
  void indirectbr() {
    names(rejected("indirectbr.ll", "f", Kind.UNSUPPORTED, "indirect branches ('indirectbr')"), "f", "entry", "indirectbr ptr %target");
  }

  @Test
  void callbr() {
    names(rejected("callbr.ll", "f", Kind.UNSUPPORTED, "'callbr' (asm goto)"), "f", "entry", "callbr void asm");
  }

  @Test
  void scalableVectors() {
    names(rejected("scalable-vector.ll", "f", Kind.UNSUPPORTED, "scalable vectors are not supported"), "f", "entry",
        "<vscale x 4 x float>");
  }

  @Test
  void inlineAssembly() {
    names(rejected("inline-asm.ll", "f", Kind.UNSUPPORTED, "inline assembly is not supported"), "f", "entry", "call i32 asm");
  }

  @Test
  void varyingX86Fp80() {
    names(rejected("x86-fp80.ll", "f", Kind.UNSUPPORTED, "varying value of type x86_fp80"), "f", "entry", "fpext double %x to x86_fp80");
  }

  @Test
  void uniformX86Fp80IsComputedOnce() {
    packetizeAndCheck("x86-fp80.ll", "f", opts(4).params("u").build(), (b, m) -> b.params(ParamSpec.uniform()),
        c -> passes(c.runMany(50, 3)));
  }

  @Test
  void varyingI128IsCorrect() {
    for (int w : new int[] {4, 8}) {
      packetizeAndCheck("i128.ll", "f", opts(w).build(), (b, m) -> {},
          c -> passes(c.runMany(60, 128)));
    }
  }

  @Test
  void volatileLoadThroughAVaryingAddress() {
    names(rejected("volatile.ll", "f", opts(4).params("uv").build(), Kind.UNSUPPORTED, "volatile or atomic load through a varying address"),
        "f", "entry", "load volatile i32, ptr %a");
  }

  /** A volatile load at a uniform address in straight-line code: done once per packet call, still volatile. */
  @Test
  void volatileLoadAtAUniformAddress() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(BadInputs.resource("volatile.ll"), "volatile.ll")) {
      new Packetizer(opts(8).params("uv").build()).run(m, "g", "g_simd");
      List<Value> loads = new ArrayList<>();
      for (var bl : m.function("g_simd").orElseThrow().blocks()) {
        for (Value i : bl.instructions()) if (i.opcode() == Opcode.LOAD) loads.add(i);
      }
      assertEquals(1, loads.size());
      assertTrue(loads.getFirst().isVolatile());
    }
  }

  /** An atomic RMW at per-lane addresses: one atomic per active lane, in lane order (was rejected). */
  @Test
  void atomicRmwAtAVaryingAddress() {
    for (int w : new int[] {4, 8, 16}) {
      packetizeAndCheck("atomic.ll", "f", opts(w).params("uv").build(),
          (b, m) -> b.params(ParamSpec.uniformPtr(m.context().i32(), 4, ParamSpec.Direction.INOUT), ParamSpec.varying(ValueDomain.ints(0, 3))),
          c -> passes(c.runMany(30, 5)));
    }
  }

  @Test
  void atomicLoadAtAUniformAddress() {
    packetizeAndCheck("atomic.ll", "g", opts(4).params("uv").build(),
        (b, m) -> b.params(ParamSpec.uniformPtr(m.context().i32(), 4, ParamSpec.Direction.IN), ParamSpec.varying()),
        c -> passes(c.runMany(30, 5)));
  }

  // ---- supported or checked constructs ----

  /** Recursion (thesis 7.2): the recursive calls call the function's own masked packet version. */
  @Test
  void recursionCallsItsOwnPacketVersion() {
    for (int w : new int[] {4, 8}) {
      PacketizationResult r = packetizeAndCheck("recursion.ll", "fib", opts(w).build(),
          (b, m) -> b.params(ParamSpec.varying(ValueDomain.ints(-3, 18))), c -> passes(c.runMany(40, 77)));
      assertEquals(0, r.scalarizedCalls());
      assertEquals(2, r.vectorCalls());
    }
  }

  /** A noreturn call on an error path: made only for the lanes that take it (here: none). */
  @Test
  void noreturnCallOnlyForLanesThatTakeItsPath() {
    packetizeAndCheck("noreturn.ll", "f", opts(8).build(),
        (b, m) -> b.params(ParamSpec.varying(ValueDomain.floats(0, 100)))
            .recordCalls("fail", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT)),
        c -> passes(c.runMany(40, 11)));
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void unreachableBlocks(boolean prepareOptimize) {
    packetizeAndCheck("unreachable-block.ll", "f", opts(8).prepareOptimize(prepareOptimize).build(),
        (b, m) -> b.params(ParamSpec.varying(ValueDomain.ints(-1000, 1000000))), c -> passes(c.runMany(40, 13)));
  }

  /** The masked packet function returns when the lanes whose scalar call would spin are inactive. */
  @Test
  void infiniteLoopOnlyForInactiveLanes() {
    assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        packetizeAndCheck("infinite-loop-masked.ll", "f", opts(8).masked(true).build(),
            (b, m) -> b.params(ParamSpec.varying(), ParamSpec.mask()), c -> {
              SplittableRandom rnd = new SplittableRandom(8);
              for (int run = 0; run < 40; run++) {
                Object[] x = new Object[8];
                boolean[] mask = new boolean[8];
                for (int k = 0; k < 8; k++) {
                  int v = rnd.nextInt(-50, 50);
                  x[k] = v;
                  mask[k] = v >= 0 && rnd.nextInt(4) != 0;
                }
                passes(c.run(Inputs.of(run, x, mask)));
              }
            }));
  }

  /** No lane takes the divergent branch into the exitless loop: the packet function returns. */
  @Test
  void infiniteLoopBehindABranchNoLaneTakes() {
    assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
        packetizeAndCheck("infinite-loop-untaken.ll", "f", opts(8).build(),
            (b, m) -> b.params(ParamSpec.varying(ValueDomain.ints(0, 1000))), c -> passes(c.runMany(40, 21))));
  }

  /** The loop would spin for the lanes that do not enter it; those that do all leave it. */
  @Test
  void loopThatOnlyTerminatesForTheLanesThatEnterIt() {
    assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
      for (int w : new int[] {4, 16}) {
        packetizeAndCheck("infinite-loop-divergent.ll", "f", opts(w).build(),
            (b, m) -> b.params(ParamSpec.varying(ValueDomain.ints(-200, 200))), c -> passes(c.runMany(40, 31)));
      }
    });
  }
}
