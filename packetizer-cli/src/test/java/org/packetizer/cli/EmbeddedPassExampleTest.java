package org.packetizer.cli;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.List;
import org.packetizer.core.check.NativeMemory;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMPassBuilderOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.VectorMapping;

/**
 * The packetizer as an embedded pass: a Java program of its own on the same bytedeco LLVM bindings
 * (nothing of Packetizer's IR facade, JIT or checker is used here) that
 *
 * <ol>
 *   <li>builds its module with {@code LLVMBuild*} in a context it owns,
 *   <li>runs its own {@code LLVMRunPasses} pipeline (inline a helper, mem2reg, instcombine, ...),
 *   <li>calls {@link Packetizer#run(LLVMModuleRef, String, String)} on its raw {@code LLVMModuleRef},
 *   <li>continues its pipeline ({@code default<O2>}) and adds a wrapper function with {@code LLVMBuild*},
 *   <li>JIT-runs the result with its own ORC LLJIT and compares against the scalar function,
 * </ol>
 *
 * and then still owns a usable module, which it disposes itself with everything else it created. A
 * packetization that fails leaves the module exactly as it was (same bitcode before and after).
 *
 * <p>The "embedding" snippet of docs/cli.md is {@link #embeddedPipeline()} in short.
 */
class EmbeddedPassExampleTest {
  static final int W = 4;

  @BeforeAll
  static void initLlvm() {
    // The host program initializes LLVM's native target itself (Packetizer would do it too).
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
  }

  // ==== the host program ====

  /** The host program's whole flow; returns what it measured. */
  @SuppressWarnings("restricted")
  static float[][] embeddedPipeline() {
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef module = buildKernelModule(ctx);
    LLVMOrcLLJITRef jit = null;
    try {
      // 1. its own pipeline before packetization
      runPasses(module, "always-inline,function(mem2reg,instcombine<no-verify-fixpoint>,simplifycfg)");

      // 2. packetize @kernel (x varying, k uniform) into @kernel_v4: the module is borrowed, not taken
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(W).params("vu").build())
          .run(module, "kernel", "kernel_v4");
      assertEquals("vu", r.signature());

      // 3. its pipeline goes on, and it adds code of its own next to the packet function
      runPasses(module, "default<O2>");
      buildArrayWrapper(ctx, module);
      assertNull(verify(module), "the host's module verifies");

      // 4. JIT a copy (ORC takes over what it is given); the host keeps its module
      jit = createJit();
      LLVMModuleRef copy = LLVMCloneModule(module);
      check(LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), LLVMOrcCreateNewThreadSafeModule(copy, tsc)),
          "add module");
      MethodHandle scalar = Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(lookup(jit, "kernel")),
          FunctionDescriptor.of(ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_FLOAT));
      MethodHandle packet = Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(lookup(jit, "kernel_v4_arrays")),
          FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_FLOAT, ValueLayout.ADDRESS));
      float k = 1.5f;
      float[] xs = {-3f, 0.25f, -0.0f, 7f, 2f, -1e-3f, 100f, Float.NaN};
      float[] expected = new float[xs.length], actual = new float[xs.length];
      try (Arena a = Arena.ofConfined()) {
        MemorySegment in = a.allocate(4L * xs.length, 16), out = a.allocate(4L * xs.length, 16);
        MemorySegment.copy(xs, 0, in, ValueLayout.JAVA_FLOAT, 0, xs.length);
        for (int i = 0; i < xs.length; i++) expected[i] = (float) scalar.invokeExact(xs[i], k);
        for (int i = 0; i < xs.length; i += W) {
          packet.invokeExact(in.asSlice(4L * i), k, out.asSlice(4L * i));
        }
        MemorySegment.copy(out, ValueLayout.JAVA_FLOAT, 0, actual, 0, xs.length);
      } catch (Throwable t) {
        throw new AssertionError(t);
      }

      // 5. the module is still the host's and usable: inspect it, write it out
      assertFalse(LLVMGetNamedFunction(module, "kernel_v4").isNull());
      assertFalse(LLVMGetNamedFunction(module, "kernel").isNull());
      assertTrue(bitcode(module).length > 0);
      return new float[][] {expected, actual};
    } finally {
      // The host disposes what it created: JIT (with the copy), its module, the thread-safe context.
      if (jit != null) check(LLVMOrcDisposeLLJIT(jit), "dispose JIT");
      LLVMDisposeModule(module);
      LLVMOrcDisposeThreadSafeContext(tsc);
    }
  }

  /**
   * {@code float kernel(float x, float k)}: {@code x < 0 ? -x * k : helper(x, k)} with
   * {@code helper(x, k) = x * x + k} (always-inline), written the way a front end would, through an
   * alloca, so that the host's mem2reg has work to do.
   */
  static LLVMModuleRef buildKernelModule(LLVMContextRef ctx) {
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("host-module", ctx);
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
    LLVMTypeRef fnType = functionType(f32, f32, f32);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    try {
      LLVMValueRef helper = LLVMAddFunction(m, "helper", fnType);
      LLVMSetLinkage(helper, LLVMInternalLinkage);
      LLVMAddAttributeAtIndex(helper, LLVMAttributeFunctionIndex,
          LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
      LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, helper, "entry"));
      LLVMValueRef sq = LLVMBuildFMul(b, LLVMGetParam(helper, 0), LLVMGetParam(helper, 0), "sq");
      LLVMBuildRet(b, LLVMBuildFAdd(b, sq, LLVMGetParam(helper, 1), "r"));

      LLVMValueRef kernel = LLVMAddFunction(m, "kernel", fnType);
      LLVMValueRef x = LLVMGetParam(kernel, 0), k = LLVMGetParam(kernel, 1);
      LLVMSetValueName2(x, "x", 1);
      LLVMSetValueName2(k, "k", 1);
      LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, kernel, "entry");
      LLVMBasicBlockRef neg = LLVMAppendBasicBlockInContext(ctx, kernel, "neg");
      LLVMBasicBlockRef pos = LLVMAppendBasicBlockInContext(ctx, kernel, "pos");
      LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(ctx, kernel, "join");
      LLVMPositionBuilderAtEnd(b, entry);
      LLVMValueRef slot = LLVMBuildAlloca(b, f32, "result");
      LLVMValueRef isNeg = LLVMBuildFCmp(b, LLVMRealOLT, x, LLVMConstReal(f32, 0), "is.neg");
      LLVMBuildCondBr(b, isNeg, neg, pos);
      LLVMPositionBuilderAtEnd(b, neg);
      LLVMBuildStore(b, LLVMBuildFMul(b, LLVMBuildFNeg(b, x, "minus.x"), k, "scaled"), slot);
      LLVMBuildBr(b, join);
      LLVMPositionBuilderAtEnd(b, pos);
      try (PointerPointer<LLVMValueRef> args = new PointerPointer<>(x, k)) {
        LLVMBuildStore(b, LLVMBuildCall2(b, fnType, helper, args, 2, "h"), slot);
      }
      LLVMBuildBr(b, join);
      LLVMPositionBuilderAtEnd(b, join);
      LLVMBuildRet(b, LLVMBuildLoad2(b, f32, slot, "ret"));
    } finally {
      LLVMDisposeBuilder(b);
    }
    return m;
  }

  /** {@code void kernel_v4_arrays(ptr x, float k, ptr out)}: {@code out[0..3] = kernel_v4(x[0..3], k)}. */
  static void buildArrayWrapper(LLVMContextRef ctx, LLVMModuleRef m) {
    LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
    LLVMTypeRef v4 = LLVMVectorType(f32, W);
    LLVMValueRef packet = LLVMGetNamedFunction(m, "kernel_v4");
    LLVMTypeRef packetType = LLVMGlobalGetValueType(packet);
    LLVMValueRef f = LLVMAddFunction(m, "kernel_v4_arrays", functionType(LLVMVoidTypeInContext(ctx), ptr, f32, ptr));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    try {
      LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
      LLVMValueRef xv = LLVMBuildLoad2(b, v4, LLVMGetParam(f, 0), "xv");
      LLVMSetAlignment(xv, 4);
      LLVMValueRef r;
      try (PointerPointer<LLVMValueRef> args = new PointerPointer<>(xv, LLVMGetParam(f, 1))) {
        r = LLVMBuildCall2(b, packetType, packet, args, 2, "r");
      }
      LLVMSetAlignment(LLVMBuildStore(b, r, LLVMGetParam(f, 2)), 4);
      LLVMBuildRetVoid(b);
    } finally {
      LLVMDisposeBuilder(b);
    }
  }

  static LLVMTypeRef functionType(LLVMTypeRef ret, LLVMTypeRef... params) {
    try (PointerPointer<LLVMTypeRef> pp = new PointerPointer<>(params)) {
      return LLVMFunctionType(ret, pp, params.length, 0);
    }
  }

  static void runPasses(LLVMModuleRef m, String pipeline) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    try {
      check(LLVMRunPasses(m, pipeline, null, opts), "passes " + pipeline);
    } finally {
      LLVMDisposePassBuilderOptions(opts);
    }
  }

  static LLVMOrcLLJITRef createJit() {
    LLVMOrcLLJITRef jit = new LLVMOrcLLJITRef();
    check(LLVMOrcCreateLLJIT(jit, null), "create LLJIT");
    return jit;
  }

  static long lookup(LLVMOrcLLJITRef jit, String name) {
    long[] addr = new long[1];
    check(LLVMOrcLLJITLookup(jit, addr, name), "lookup " + name);
    return addr[0];
  }

  static void check(LLVMErrorRef err, String what) {
    if (err == null || err.isNull()) return;
    BytePointer msg = LLVMGetErrorMessage(err);
    String text = msg.getString();
    LLVMDisposeErrorMessage(msg);
    throw new AssertionError(what + ": " + text);
  }

  /** The verifier's message, or null when the module is valid. */
  static String verify(LLVMModuleRef m) {
    BytePointer msg = new BytePointer((Pointer) null);
    int broken = LLVMVerifyModule(m, LLVMReturnStatusAction, msg);
    String text = msg.isNull() ? "" : msg.getString();
    if (!msg.isNull()) LLVMDisposeMessage(msg);
    return broken != 0 ? text : null;
  }

  static byte[] bitcode(LLVMModuleRef m) {
    LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m);
    try {
      byte[] out = new byte[(int) LLVMGetBufferSize(buf)];
      LLVMGetBufferStart(buf).capacity(out.length).get(out);
      return out;
    } finally {
      LLVMDisposeMemoryBuffer(buf);
    }
  }

  static LLVMModuleRef parse(LLVMContextRef ctx, String ir, String name) {
    // LLVMParseIRInContext takes the memory buffer over (also on failure)
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, ir.length(), name);
    LLVMModuleRef m = new LLVMModuleRef();
    BytePointer err = new BytePointer((Pointer) null);
    if (LLVMParseIRInContext(ctx, buf, m, err) != 0) {
      String text = err.getString();
      LLVMDisposeMessage(err);
      throw new AssertionError("parse: " + text);
    }
    return m;
  }

  // ==== tests ====

  @Test
  void packetizeInTheMiddleOfTheHostsPipelineAndRunIt() {
    float[][] r = embeddedPipeline();
    for (int i = 0; i < r[0].length; i++) {
      assertEquals(Float.floatToIntBits(r[0][i]), Float.floatToIntBits(r[1][i]),
          "element " + i + ": scalar " + r[0][i] + " vs packet " + r[1][i]);
    }
  }

  static final String FAILING = """
      declare float @ext(float)
      declare <4 x float> @ext_v4(<8 x float>)

      define float @calls_ext(float %x) {
      entry:
        %c = fcmp olt float %x, 1.0
        br i1 %c, label %then, label %join
      then:
        %e = call float @ext(float %x)
        br label %join
      join:
        %r = phi float [ %e, %then ], [ %x, %entry ]
        ret float %r
      }

      define i32 @jump(i32 %a, ptr %target) {
      entry:
        indirectbr ptr %target, [label %one, label %two]
      one:
        ret i32 1
      two:
        ret i32 %a
      }

      define i32 @twice(i32 %a) {
      entry:
        %r = shl i32 %a, 1
        ret i32 %r
      }
      """;

  @Test
  void aFailedPacketizationLeavesTheHostsModuleUnchanged() {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = parse(ctx, FAILING, "host-failing");
    try {
      byte[] before = bitcode(m);
      record Case(String what, PacketizationException.Kind kind, Runnable call) {}
      List<Case> cases = List.of(
          new Case("no such function", PacketizationException.Kind.INVALID_INPUT,
              () -> Packetizer.packetize(m, "nope", "nope_v4", W)),
          new Case("bad width", PacketizationException.Kind.INVALID_INPUT,
              () -> Packetizer.packetize(m, "twice", "twice_v3", 3)),
          new Case("indirectbr", PacketizationException.Kind.UNSUPPORTED,
              () -> Packetizer.packetize(m, "jump", "jump_v4", W)),
          // fails late: while emitting the call, after the copy, preparation and half the packet
          // function exist, because the registered packet version of @ext takes <8 x float>
          new Case("unfit vector mapping", PacketizationException.Kind.INVALID_INPUT,
              () -> new Packetizer(PacketizerOptions.builder().width(W).addMapping(VectorMapping.of("ext", "ext_v4", W)).build())
                  .run(m, "calls_ext", "calls_ext_v4")));
      for (Case c : cases) {
        PacketizationException e = assertThrows(PacketizationException.class, c.call::run, c.what);
        assertEquals(c.kind, e.kind(), c.what + ": " + e.getMessage());
        assertArrayEquals(before, bitcode(m), c.what + ": the module changed although packetization failed");
        assertNull(verify(m), c.what);
      }
      // ... and the module is as good as before: packetizing another function works
      Packetizer.packetize(m, "twice", "twice_v4", W);
      assertFalse(LLVMGetNamedFunction(m, "twice_v4").isNull());
      assertNull(verify(m));
      assertFalse(Arrays.equals(before, bitcode(m)));
    } finally {
      LLVMDisposeModule(m);
      LLVMContextDispose(ctx);
    }
  }

  /**
   * Repeating the host's whole flow must not make the native heap grow: everything it created
   * (contexts, modules, JITs, builders, pass options, buffers) is disposed, and Packetizer keeps
   * nothing of a borrowed module. Measured as the bytes malloc'd outside the JVM (glibc's
   * {@code mallinfo2} less Native Memory Tracking's malloc total, see {@link NativeMemory}): LLVM
   * allocates with malloc, and the JVM's own compiler arenas, which swing the total by 10 MB and more
   * between two samples on a loaded machine, are left out.
   */
  @Test
  void repeatingTheFlowDoesNotGrowTheNativeHeap() throws Throwable {
    assertTrue(NativeMemory.mallocKb() >= 0, "glibc's mallinfo2 is needed (Linux with glibc)");
    assertTrue(NativeMemory.jvmMallocKb() >= 0,
        "Native Memory Tracking is off: the CLI tests' JVM must run with -XX:NativeMemoryTracking=summary (packetizer-cli/pom.xml)");
    for (int i = 0; i < 3; i++) embeddedPipeline(); // warm up: code, caches, arenas
    // The floor (minimum) over an early and a late batch of rounds: transient allocations lift
    // single samples, a leak lifts every sample of the late batch by (rounds in between) x (leak).
    int batch = 8;
    long early = Long.MAX_VALUE;
    long late = Long.MAX_VALUE;
    for (int i = 0; i < batch; i++) {
      embeddedPipeline();
      early = Math.min(early, sample());
    }
    int gap = 32;
    for (int i = 0; i < gap; i++) embeddedPipeline();
    for (int i = 0; i < batch; i++) {
      embeddedPipeline();
      late = Math.min(late, sample());
    }
    int rounds = gap + batch;
    long grownKb = late - early;
    System.out.println("EmbeddedPassExampleTest: native memory outside the JVM grew by " + grownKb + " kB over " + rounds + " rounds");
    // A leaked context, module or JIT per round (250 kB or more each) adds >= 10 MB over these 40
    // rounds; the part outside the JVM moves by about 1-2 MB between samples (docs/testing.md, soak).
    // Fine-grained leak detection: SoakTest in packetizer-tests (own JVM, fitted slope).
    assertTrue(grownKb < 4 * 1024, "native memory outside the JVM grew by " + grownKb + " kB over " + rounds + " rounds");
  }

  /** After a collection (javacpp frees the native memory of unreferenced pointers) and malloc_trim. */
  private static long sample() {
    System.gc();
    NativeMemory.mallocTrim();
    return NativeMemory.outsideJvmKb();
  }

}
