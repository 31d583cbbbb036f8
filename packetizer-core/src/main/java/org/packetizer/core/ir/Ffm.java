package org.packetizer.core.ir;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMUseRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * The {@code java.lang.foreign} binding of the facade's hot LLVM C API calls (issue 16: a javacpp
 * call costs 38–80 ns, most of it the JNI transition and one Java {@code Pointer} allocated through
 * JNI per returned reference; a critical downcall into the same library costs 5–12 ns).
 *
 * <p>The library: the very {@code libLLVM.so} javacpp loaded (its path from
 * {@link Loader#getLoadedLibraries()}), opened again with {@code dlopen(path, RTLD_LAZY | RTLD_NOLOAD)},
 * which only returns a handle to an object already in the process and never loads a second copy;
 * symbols by {@code dlsym} on that handle. Set-up then checks that {@code LLVMGetGlobalContext}
 * answers the same address through both bindings (one copy of LLVM's statics).
 *
 * <p>Every call is a {@link Linker.Option#critical critical} downcall (no thread-state transition;
 * heap arrays passed directly): only short calls that never call back into Java are bound. Pointers
 * travel as {@code long} addresses; the facade wraps a returned address into the javacpp type in pure
 * Java ({@link #value}: a {@code Pointer} subclass carrying the address, then the type's
 * {@code (Pointer)} constructor), so {@link Value#ref()} and the rest of the facade keep working.
 *
 * <p>When: setting the binding up costs about 120 ms of CPU once (the JDK's linker and one stub per
 * call shape), so by default (auto) the facade uses javacpp's calls until the process has packetized
 * {@code -Dpacketizer.ffm.after} scalar instructions (30,000; {@link Llvm#notePacketizing}), then this
 * binding. {@code -Dpacketizer.ffm=true} sets it up at the first facade call, {@code false} never. When
 * it cannot be set up (no native access for this module, a platform without {@code dlopen}, libLLVM
 * not found or another copy), one warning goes to standard error and the javacpp calls stay: slower,
 * same results.
 */
final class Ffm {
  private Ffm() {}

  /** {@code -Dpacketizer.ffm}: {@code false} javacpp only, {@code true} the binding from the first call, else auto. */
  private static final String MODE = System.getProperty("packetizer.ffm", "auto").toLowerCase(java.util.Locale.ROOT);

  /**
   * {@code -Dpacketizer.ffm.after=N} (auto mode): the binding is set up once this many scalar instructions
   * were packetized in the process. Setting it up costs about 120 ms of CPU once (the JDK's linker, a
   * stub per call shape); each call then saves 30–70 ns, about 4 ms per 1,000 instructions packetized:
   * it pays back after some 30,000 instructions, not in a command that packetizes one small function.
   */
  private static final long AFTER = Long.getLong("packetizer.ffm.after", 30_000);

  /**
   * Whether the facade calls through this binding. Written once, after {@link H} is initialised (a
   * thread that reads true then sees the handles; one that still reads false uses javacpp, which is
   * equally right).
   */
  static boolean on;

  private static boolean tried;
  private static long work;

  static {
    if (MODE.equals("true")) enable();
  }

  /**
   * Sets the binding up now (unless {@code -Dpacketizer.ffm=false}); on failure, one warning and the
   * javacpp calls stay. Returns whether the binding is on.
   */
  static synchronized boolean enable() {
    if (tried || MODE.equals("false")) return on;
    tried = true;
    if (H.OK) {
      on = true;
    } else {
      System.err.println("packetizer: WARNING: the java.lang.foreign binding of libLLVM could not be set up (" + H.why()
          + "); using the javacpp (JNI) calls instead: same results, slower packetization. Run the JVM with"
          + " --enable-native-access=ALL-UNNAMED (or =org.packetizer.core on the module path); -Dpacketizer.ffm=false"
          + " chooses the javacpp calls without this warning.");
    }
    return on;
  }

  /** Auto mode: counts packetized scalar instructions and enables the binding past {@link #AFTER}. */
  static void noteWork(int scalarInstructions) {
    if (tried || !MODE.equals("auto")) return;
    synchronized (Ffm.class) {
      work += scalarInstructions;
      if (work >= AFTER) enable();
    }
  }

  /** The library and the downcall handles, made when the binding is first enabled (class initialisation). */
  private static final class H {
    private static final Linker LINKER = Linker.nativeLinker();
    private static MethodHandle dlsym;

    /** Why the binding is off ("" when it is on). */
    static final String STATUS;
    private static final MemorySegment LIB;
    private static String failure;

    static {
      MemorySegment lib = MemorySegment.NULL;
      String status = "";
      try {
        lib = openLoadedLibLlvm();
      } catch (Throwable t) {
        status = t.getClass().getSimpleName() + ": " + t.getMessage();
      }
      LIB = lib;
      STATUS = status;
    }

    /** The handle of the libLLVM javacpp loaded ({@code RTLD_NOLOAD}: never a second copy). */
    private static MemorySegment openLoadedLibLlvm() throws Throwable {
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
        throw new UnsupportedOperationException("dlopen with RTLD_NOLOAD is only used on Linux");
      }
      Loader.load(org.bytedeco.llvm.global.LLVM.class);
      String path = null;
      for (Map.Entry<String, String> e : Loader.getLoadedLibraries().entrySet()) {
        if (e.getKey().equals("LLVM") || e.getKey().startsWith("LLVM@")) path = e.getValue();
      }
      if (path == null) throw new IllegalStateException("javacpp reports no loaded libLLVM: " + Loader.getLoadedLibraries().keySet());
      var libc = LINKER.defaultLookup();
      MethodHandle dlopen = LINKER.downcallHandle(libc.find("dlopen").orElseThrow(() -> new IllegalStateException("no dlopen")),
          FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
      dlsym = LINKER.downcallHandle(libc.find("dlsym").orElseThrow(() -> new IllegalStateException("no dlsym")),
          FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
      final int rtldLazy = 1, rtldNoload = 4;
      MemorySegment h;
      try (Arena a = Arena.ofConfined()) {
        h = (MemorySegment) dlopen.invokeExact(a.allocateFrom(path), rtldLazy | rtldNoload);
      }
      if (h.equals(MemorySegment.NULL)) throw new IllegalStateException(path + " is not loaded in this process (dlopen RTLD_NOLOAD)");
      // one copy of LLVM's statics: the global context is the same object through both bindings
      MethodHandle global = LINKER.downcallHandle(sym(h, "LLVMGetGlobalContext"), FunctionDescriptor.of(JAVA_LONG));
      long viaFfm = (long) global.invokeExact();
      long viaJni = org.bytedeco.llvm.global.LLVM.LLVMGetGlobalContext().address();
      if (viaFfm != viaJni) throw new IllegalStateException(path + " resolved to another copy of LLVM (global context differs)");
      return h;
    }

    private static MemorySegment sym(MemorySegment lib, String name) throws Throwable {
      MemorySegment s;
      try (Arena a = Arena.ofConfined()) {
        s = (MemorySegment) dlsym.invokeExact(lib, a.allocateFrom(name));
      }
      if (s.equals(MemorySegment.NULL)) throw new IllegalStateException("libLLVM has no symbol " + name);
      return s;
    }

    private static final MemoryLayout P = JAVA_LONG, I = JAVA_INT, A = ADDRESS;

    /** A critical downcall handle, or null when the binding is off (the reason then in {@link #failure}). */
    private static MethodHandle h(String name, MemoryLayout ret, MemoryLayout... args) {
      if (LIB.equals(MemorySegment.NULL) || failure != null) return null;
      try {
        FunctionDescriptor d = ret == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(ret, args);
        return LINKER.downcallHandle(sym(LIB, name), d, Linker.Option.critical(true));
      } catch (Throwable t) {
        failure = name + ": " + t;
        return null;
      }
    }

    // ---- values ----
    private static final MethodHandle TYPE_OF = h("LLVMTypeOf", P, P);
    private static final MethodHandle GET_VALUE_KIND = h("LLVMGetValueKind", I, P);
    private static final MethodHandle GET_INSTRUCTION_OPCODE = h("LLVMGetInstructionOpcode", I, P);
    private static final MethodHandle GET_CONST_OPCODE = h("LLVMGetConstOpcode", I, P);
    private static final MethodHandle GET_NUM_OPERANDS = h("LLVMGetNumOperands", I, P);
    private static final MethodHandle GET_OPERAND = h("LLVMGetOperand", P, P, I);
    private static final MethodHandle SET_OPERAND = h("LLVMSetOperand", null, P, I, P);
    private static final MethodHandle GET_FIRST_USE = h("LLVMGetFirstUse", P, P);
    private static final MethodHandle GET_NEXT_USE = h("LLVMGetNextUse", P, P);
    private static final MethodHandle GET_USER = h("LLVMGetUser", P, P);
    private static final MethodHandle GET_INSTRUCTION_PARENT = h("LLVMGetInstructionParent", P, P);
    private static final MethodHandle GET_NEXT_INSTRUCTION = h("LLVMGetNextInstruction", P, P);
    private static final MethodHandle IS_CONSTANT = h("LLVMIsConstant", I, P);
    private static final MethodHandle IS_UNDEF = h("LLVMIsUndef", I, P);
    private static final MethodHandle IS_POISON = h("LLVMIsPoison", I, P);
    private static final MethodHandle VALUE_IS_BASIC_BLOCK = h("LLVMValueIsBasicBlock", I, P);
    private static final MethodHandle GET_VALUE_NAME = h("LLVMGetValueName", P, P);
    private static final MethodHandle GET_VALUE_NAME2 = h("LLVMGetValueName2", P, P, A);
    private static final MethodHandle SET_VALUE_NAME2 = h("LLVMSetValueName2", null, P, P, P);
    private static final MethodHandle BASIC_BLOCK_AS_VALUE = h("LLVMBasicBlockAsValue", P, P);
    private static final MethodHandle COUNT_INCOMING = h("LLVMCountIncoming", I, P);
    private static final MethodHandle GET_INCOMING_VALUE = h("LLVMGetIncomingValue", P, P, I);
    private static final MethodHandle GET_INCOMING_BLOCK = h("LLVMGetIncomingBlock", P, P, I);
    private static final MethodHandle ADD_INCOMING = h("LLVMAddIncoming", null, P, A, A, I);
    private static final MethodHandle GET_NUM_SUCCESSORS = h("LLVMGetNumSuccessors", I, P);
    private static final MethodHandle GET_SUCCESSOR = h("LLVMGetSuccessor", P, P, I);
    private static final MethodHandle IS_CONDITIONAL = h("LLVMIsConditional", I, P);
    private static final MethodHandle GET_CONDITION = h("LLVMGetCondition", P, P);
    private static final MethodHandle GET_ICMP_PREDICATE = h("LLVMGetICmpPredicate", I, P);
    private static final MethodHandle GET_FCMP_PREDICATE = h("LLVMGetFCmpPredicate", I, P);
    private static final MethodHandle REPLACE_ALL_USES_WITH = h("LLVMReplaceAllUsesWith", null, P, P);
    private static final MethodHandle INSTRUCTION_ERASE_FROM_PARENT = h("LLVMInstructionEraseFromParent", null, P);
    private static final MethodHandle CONST_INT_GET_SEXT_VALUE = h("LLVMConstIntGetSExtValue", P, P);
    private static final MethodHandle CONST_INT_GET_ZEXT_VALUE = h("LLVMConstIntGetZExtValue", P, P);
    private static final MethodHandle SET_ALIGNMENT = h("LLVMSetAlignment", null, P, I);
    private static final MethodHandle SET_INSTRUCTION_CALL_CONV = h("LLVMSetInstructionCallConv", null, P, I);
    private static final MethodHandle GET_FUNCTION_CALL_CONV = h("LLVMGetFunctionCallConv", I, P);
    // ---- blocks and functions ----
    private static final MethodHandle GET_FIRST_INSTRUCTION = h("LLVMGetFirstInstruction", P, P);
    private static final MethodHandle GET_NEXT_BASIC_BLOCK = h("LLVMGetNextBasicBlock", P, P);
    private static final MethodHandle GET_BASIC_BLOCK_TERMINATOR = h("LLVMGetBasicBlockTerminator", P, P);
    private static final MethodHandle GET_BASIC_BLOCK_NAME = h("LLVMGetBasicBlockName", P, P);
    private static final MethodHandle GET_BASIC_BLOCK_PARENT = h("LLVMGetBasicBlockParent", P, P);
    private static final MethodHandle GET_FIRST_BASIC_BLOCK = h("LLVMGetFirstBasicBlock", P, P);
    private static final MethodHandle GET_ENTRY_BASIC_BLOCK = h("LLVMGetEntryBasicBlock", P, P);
    private static final MethodHandle GET_PARAM = h("LLVMGetParam", P, P, I);
    private static final MethodHandle COUNT_PARAMS = h("LLVMCountParams", I, P);
    private static final MethodHandle GLOBAL_GET_VALUE_TYPE = h("LLVMGlobalGetValueType", P, P);
    // ---- types ----
    private static final MethodHandle GET_TYPE_KIND = h("LLVMGetTypeKind", I, P);
    private static final MethodHandle GET_INT_TYPE_WIDTH = h("LLVMGetIntTypeWidth", I, P);
    private static final MethodHandle GET_ELEMENT_TYPE = h("LLVMGetElementType", P, P);
    private static final MethodHandle GET_VECTOR_SIZE = h("LLVMGetVectorSize", I, P);
    private static final MethodHandle VECTOR_TYPE = h("LLVMVectorType", P, P, I);
    // ---- constants ----
    private static final MethodHandle CONST_INT = h("LLVMConstInt", P, P, P, I);
    private static final MethodHandle CONST_NULL = h("LLVMConstNull", P, P);
    private static final MethodHandle GET_POISON = h("LLVMGetPoison", P, P);
    private static final MethodHandle GET_UNDEF = h("LLVMGetUndef", P, P);
    private static final MethodHandle CONST_VECTOR = h("LLVMConstVector", P, A, I);
    private static final MethodHandle CONST_REAL = h("LLVMConstReal", P, P, JAVA_DOUBLE);
    // ---- the builder ----
    private static final MethodHandle POSITION_BUILDER_AT_END = h("LLVMPositionBuilderAtEnd", null, P, P);
    private static final MethodHandle POSITION_BUILDER_BEFORE = h("LLVMPositionBuilderBefore", null, P, P);
    private static final MethodHandle INSERT_INTO_BUILDER_WITH_NAME = h("LLVMInsertIntoBuilderWithName", null, P, P, A);
    private static final MethodHandle INSTRUCTION_CLONE = h("LLVMInstructionClone", P, P);
    private static final MethodHandle BUILD_BIN_OP = h("LLVMBuildBinOp", P, P, I, P, P, A);
    private static final MethodHandle BUILD_NOT = h("LLVMBuildNot", P, P, P, A);
    private static final MethodHandle BUILD_FNEG = h("LLVMBuildFNeg", P, P, P, A);
    private static final MethodHandle BUILD_ICMP = h("LLVMBuildICmp", P, P, I, P, P, A);
    private static final MethodHandle BUILD_FCMP = h("LLVMBuildFCmp", P, P, I, P, P, A);
    private static final MethodHandle BUILD_SELECT = h("LLVMBuildSelect", P, P, P, P, P, A);
    private static final MethodHandle BUILD_CAST = h("LLVMBuildCast", P, P, I, P, P, A);
    private static final MethodHandle BUILD_EXTRACT_ELEMENT = h("LLVMBuildExtractElement", P, P, P, P, A);
    private static final MethodHandle BUILD_INSERT_ELEMENT = h("LLVMBuildInsertElement", P, P, P, P, P, A);
    private static final MethodHandle BUILD_SHUFFLE_VECTOR = h("LLVMBuildShuffleVector", P, P, P, P, P, A);
    private static final MethodHandle BUILD_LOAD2 = h("LLVMBuildLoad2", P, P, P, P, A);
    private static final MethodHandle BUILD_STORE = h("LLVMBuildStore", P, P, P, P);
    private static final MethodHandle BUILD_GEP2 = h("LLVMBuildGEP2", P, P, P, P, A, I, A);
    private static final MethodHandle BUILD_IN_BOUNDS_GEP2 = h("LLVMBuildInBoundsGEP2", P, P, P, P, A, I, A);
    private static final MethodHandle BUILD_CALL2 = h("LLVMBuildCall2", P, P, P, P, A, I, A);
    private static final MethodHandle BUILD_PHI = h("LLVMBuildPhi", P, P, P, A);
    private static final MethodHandle BUILD_BR = h("LLVMBuildBr", P, P, P);
    private static final MethodHandle BUILD_COND_BR = h("LLVMBuildCondBr", P, P, P, P, P);

    /**
     * The whole address space as one segment, made once: reading a C string through it needs no
     * {@code reinterpret} per call (a restricted method: each call checked the caller's native access,
     * about 2 % of a packetization's CPU samples when names are read).
     */
    static final MemorySegment ALL = all();

    private static MemorySegment all() {
      if (LIB.equals(MemorySegment.NULL) || failure != null) return MemorySegment.NULL;
      try {
        return MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
      } catch (Throwable t) {
        failure = "reinterpret: " + t;
        return MemorySegment.NULL;
      }
    }

    static String why() { return failure != null ? failure : STATUS; }

    /** Whether every handle was made. */
    static final boolean OK = !LIB.equals(MemorySegment.NULL) && failure == null;
  }

  /** Why the binding is off, or "on". */
  static String status() { return on ? "on" : MODE.equals("false") ? "off (-Dpacketizer.ffm=false)" : !tried ? "not enabled yet (auto)" : H.why(); }

  private static RuntimeException fail(Throwable t) {
    if (t instanceof RuntimeException r) return r;
    if (t instanceof Error e) throw e;
    return new IllegalStateException(t);
  }

  // ---- wrapping an address into javacpp's types without JNI ----

  /** A javacpp pointer carrying an address (javacpp's {@code (Pointer)} constructors copy it). */
  private static final class Address extends Pointer {
    Address(long a) { address = a; }
  }

  static LLVMValueRef value(long a) { return a == 0 ? null : new LLVMValueRef(new Address(a)); }
  static LLVMTypeRef type(long a) { return a == 0 ? null : new LLVMTypeRef(new Address(a)); }
  static LLVMBasicBlockRef block(long a) { return a == 0 ? null : new LLVMBasicBlockRef(new Address(a)); }
  static LLVMUseRef use(long a) { return a == 0 ? null : new LLVMUseRef(new Address(a)); }

  /** A NUL-terminated UTF-8 copy on the heap (a critical downcall reads heap arrays in place). */
  static MemorySegment cString(String s) {
    if (s.isEmpty()) return MemorySegment.ofArray(EMPTY);
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return MemorySegment.ofArray(java.util.Arrays.copyOf(b, b.length + 1));
  }

  private static final byte[] EMPTY = new byte[1];

  /** The addresses of {@code vs} as a heap array segment (javacpp's pointer arrays are native). */
  static MemorySegment addresses(java.util.List<Value> vs) {
    long[] a = new long[Math.max(1, vs.size())];
    for (int i = 0; i < vs.size(); i++) a[i] = vs.get(i).id();
    return MemorySegment.ofArray(a);
  }

  static MemorySegment blockAddresses(java.util.List<Block> bs) {
    long[] a = new long[Math.max(1, bs.size())];
    for (int i = 0; i < bs.size(); i++) a[i] = bs.get(i).id();
    return MemorySegment.ofArray(a);
  }

  /** A C string LLVM owns, read as UTF-8 ("" for null). */
  static String string(long p) {
    return p == 0 ? "" : H.ALL.getString(p, StandardCharsets.UTF_8);
  }

  /**
   * A value's name, its length told by LLVM ({@code LLVMGetValueName2}) instead of searched for: the
   * JDK's {@code getString} finds the NUL byte by byte, which was about 2 % of a packetization's CPU
   * samples (issue 16, fourteenth round; names are read for every emitted copy of a scalar instruction).
   */
  static String valueName(long v) {
    long[] len = new long[1];
    long p;
    try { p = (long) H.GET_VALUE_NAME2.invokeExact(v, MemorySegment.ofArray(len)); } catch (Throwable t) { throw fail(t); }
    int n = (int) len[0];
    if (p == 0 || n == 0) return "";
    byte[] bytes = new byte[n];
    MemorySegment.copy(H.ALL, JAVA_BYTE, p, bytes, 0, n);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Whether a value has a name (its length, without copying it). */
  static boolean hasName(long v) {
    long[] len = new long[1];
    long p;
    try { p = (long) H.GET_VALUE_NAME2.invokeExact(v, MemorySegment.ofArray(len)); } catch (Throwable t) { throw fail(t); }
    return p != 0 && len[0] != 0;
  }

  /**
   * Gives {@code to} the name of {@code from} (uniqued in {@code to}'s function as any name), native to native:
   * no Java string made and encoded again (the scalar copy's names, issue 16).
   */
  static void copyValueName(long from, long to) {
    long[] len = new long[1];
    long p;
    try { p = (long) H.GET_VALUE_NAME2.invokeExact(from, MemorySegment.ofArray(len)); } catch (Throwable t) { throw fail(t); }
    if (p == 0 || len[0] == 0) return;
    try { H.SET_VALUE_NAME2.invokeExact(to, p, len[0]); } catch (Throwable t) { throw fail(t); }
  }

  static long blockAsValue(long b) { try { return (long) H.BASIC_BLOCK_AS_VALUE.invokeExact(b); } catch (Throwable t) { throw fail(t); } }

  /** A block's name ({@link #valueName} of the block as a value). */
  static String blockName(long b) {
    long v;
    try { v = (long) H.BASIC_BLOCK_AS_VALUE.invokeExact(b); } catch (Throwable t) { throw fail(t); }
    return valueName(v);
  }

  // ---- the calls (addresses in and out) ----
  static long typeOf(long v) { try { return (long) H.TYPE_OF.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getValueKind(long v) { try { return (int) H.GET_VALUE_KIND.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getInstructionOpcode(long v) { try { return (int) H.GET_INSTRUCTION_OPCODE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getConstOpcode(long v) { try { return (int) H.GET_CONST_OPCODE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getNumOperands(long v) { try { return (int) H.GET_NUM_OPERANDS.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getOperand(long v, int i) { try { return (long) H.GET_OPERAND.invokeExact(v, i); } catch (Throwable t) { throw fail(t); } }
  static void setOperand(long v, int i, long o) { try { H.SET_OPERAND.invokeExact(v, i, o); } catch (Throwable t) { throw fail(t); } }
  static long getFirstUse(long v) { try { return (long) H.GET_FIRST_USE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getNextUse(long u) { try { return (long) H.GET_NEXT_USE.invokeExact(u); } catch (Throwable t) { throw fail(t); } }
  static long getUser(long u) { try { return (long) H.GET_USER.invokeExact(u); } catch (Throwable t) { throw fail(t); } }
  static long getInstructionParent(long v) { try { return (long) H.GET_INSTRUCTION_PARENT.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getNextInstruction(long v) { try { return (long) H.GET_NEXT_INSTRUCTION.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int isConstant(long v) { try { return (int) H.IS_CONSTANT.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int isUndef(long v) { try { return (int) H.IS_UNDEF.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int isPoison(long v) { try { return (int) H.IS_POISON.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int valueIsBasicBlock(long v) { try { return (int) H.VALUE_IS_BASIC_BLOCK.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getValueName(long v) { try { return (long) H.GET_VALUE_NAME.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int countIncoming(long v) { try { return (int) H.COUNT_INCOMING.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getIncomingValue(long v, int i) { try { return (long) H.GET_INCOMING_VALUE.invokeExact(v, i); } catch (Throwable t) { throw fail(t); } }
  static long getIncomingBlock(long v, int i) { try { return (long) H.GET_INCOMING_BLOCK.invokeExact(v, i); } catch (Throwable t) { throw fail(t); } }
  static void addIncoming(long phi, MemorySegment values, MemorySegment blocks, int n) {
    try { H.ADD_INCOMING.invokeExact(phi, values, blocks, n); } catch (Throwable t) { throw fail(t); }
  }
  static int getNumSuccessors(long v) { try { return (int) H.GET_NUM_SUCCESSORS.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getSuccessor(long v, int i) { try { return (long) H.GET_SUCCESSOR.invokeExact(v, i); } catch (Throwable t) { throw fail(t); } }
  static int isConditional(long v) { try { return (int) H.IS_CONDITIONAL.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long getCondition(long v) { try { return (long) H.GET_CONDITION.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getICmpPredicate(long v) { try { return (int) H.GET_ICMP_PREDICATE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static int getFCmpPredicate(long v) { try { return (int) H.GET_FCMP_PREDICATE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static void replaceAllUsesWith(long v, long w) { try { H.REPLACE_ALL_USES_WITH.invokeExact(v, w); } catch (Throwable t) { throw fail(t); } }
  static void instructionEraseFromParent(long v) { try { H.INSTRUCTION_ERASE_FROM_PARENT.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long constIntGetSExtValue(long v) { try { return (long) H.CONST_INT_GET_SEXT_VALUE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long constIntGetZExtValue(long v) { try { return (long) H.CONST_INT_GET_ZEXT_VALUE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static void setAlignment(long v, int bytes) { try { H.SET_ALIGNMENT.invokeExact(v, bytes); } catch (Throwable t) { throw fail(t); } }
  static void setInstructionCallConv(long v, int cc) { try { H.SET_INSTRUCTION_CALL_CONV.invokeExact(v, cc); } catch (Throwable t) { throw fail(t); } }
  static int getFunctionCallConv(long f) { try { return (int) H.GET_FUNCTION_CALL_CONV.invokeExact(f); } catch (Throwable t) { throw fail(t); } }

  static long getFirstInstruction(long b) { try { return (long) H.GET_FIRST_INSTRUCTION.invokeExact(b); } catch (Throwable t) { throw fail(t); } }
  static long getNextBasicBlock(long b) { try { return (long) H.GET_NEXT_BASIC_BLOCK.invokeExact(b); } catch (Throwable t) { throw fail(t); } }
  static long getBasicBlockTerminator(long b) { try { return (long) H.GET_BASIC_BLOCK_TERMINATOR.invokeExact(b); } catch (Throwable t) { throw fail(t); } }
  static long getBasicBlockName(long b) { try { return (long) H.GET_BASIC_BLOCK_NAME.invokeExact(b); } catch (Throwable t) { throw fail(t); } }
  static long getBasicBlockParent(long b) { try { return (long) H.GET_BASIC_BLOCK_PARENT.invokeExact(b); } catch (Throwable t) { throw fail(t); } }
  static long getFirstBasicBlock(long f) { try { return (long) H.GET_FIRST_BASIC_BLOCK.invokeExact(f); } catch (Throwable t) { throw fail(t); } }
  static long getEntryBasicBlock(long f) { try { return (long) H.GET_ENTRY_BASIC_BLOCK.invokeExact(f); } catch (Throwable t) { throw fail(t); } }
  static long getParam(long f, int i) { try { return (long) H.GET_PARAM.invokeExact(f, i); } catch (Throwable t) { throw fail(t); } }
  static int countParams(long f) { try { return (int) H.COUNT_PARAMS.invokeExact(f); } catch (Throwable t) { throw fail(t); } }
  static long globalGetValueType(long g) { try { return (long) H.GLOBAL_GET_VALUE_TYPE.invokeExact(g); } catch (Throwable t) { throw fail(t); } }

  static int getTypeKind(long t) { try { return (int) H.GET_TYPE_KIND.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static int getIntTypeWidth(long t) { try { return (int) H.GET_INT_TYPE_WIDTH.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static long getElementType(long t) { try { return (long) H.GET_ELEMENT_TYPE.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static int getVectorSize(long t) { try { return (int) H.GET_VECTOR_SIZE.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static long vectorType(long t, int n) { try { return (long) H.VECTOR_TYPE.invokeExact(t, n); } catch (Throwable e) { throw fail(e); } }

  static long constInt(long t, long v, int signExtend) { try { return (long) H.CONST_INT.invokeExact(t, v, signExtend); } catch (Throwable e) { throw fail(e); } }
  static long constNull(long t) { try { return (long) H.CONST_NULL.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static long getPoison(long t) { try { return (long) H.GET_POISON.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static long getUndef(long t) { try { return (long) H.GET_UNDEF.invokeExact(t); } catch (Throwable e) { throw fail(e); } }
  static long constVector(MemorySegment elems, int n) { try { return (long) H.CONST_VECTOR.invokeExact(elems, n); } catch (Throwable e) { throw fail(e); } }
  static long constReal(long t, double v) { try { return (long) H.CONST_REAL.invokeExact(t, v); } catch (Throwable e) { throw fail(e); } }

  static void positionBuilderAtEnd(long b, long block) { try { H.POSITION_BUILDER_AT_END.invokeExact(b, block); } catch (Throwable t) { throw fail(t); } }
  static void positionBuilderBefore(long b, long inst) { try { H.POSITION_BUILDER_BEFORE.invokeExact(b, inst); } catch (Throwable t) { throw fail(t); } }
  static void insertIntoBuilderWithName(long b, long inst, String n) {
    try { H.INSERT_INTO_BUILDER_WITH_NAME.invokeExact(b, inst, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long instructionClone(long v) { try { return (long) H.INSTRUCTION_CLONE.invokeExact(v); } catch (Throwable t) { throw fail(t); } }
  static long buildBinOp(long b, int op, long l, long r, String n) {
    try { return (long) H.BUILD_BIN_OP.invokeExact(b, op, l, r, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildNot(long b, long v, String n) { try { return (long) H.BUILD_NOT.invokeExact(b, v, cString(n)); } catch (Throwable t) { throw fail(t); } }
  static long buildFNeg(long b, long v, String n) { try { return (long) H.BUILD_FNEG.invokeExact(b, v, cString(n)); } catch (Throwable t) { throw fail(t); } }
  static long buildICmp(long b, int p, long l, long r, String n) {
    try { return (long) H.BUILD_ICMP.invokeExact(b, p, l, r, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildFCmp(long b, int p, long l, long r, String n) {
    try { return (long) H.BUILD_FCMP.invokeExact(b, p, l, r, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildSelect(long b, long c, long t, long f, String n) {
    try { return (long) H.BUILD_SELECT.invokeExact(b, c, t, f, cString(n)); } catch (Throwable e) { throw fail(e); }
  }
  static long buildCast(long b, int op, long v, long to, String n) {
    try { return (long) H.BUILD_CAST.invokeExact(b, op, v, to, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildExtractElement(long b, long vec, long idx, String n) {
    try { return (long) H.BUILD_EXTRACT_ELEMENT.invokeExact(b, vec, idx, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildInsertElement(long b, long vec, long elem, long idx, String n) {
    try { return (long) H.BUILD_INSERT_ELEMENT.invokeExact(b, vec, elem, idx, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildShuffleVector(long b, long v1, long v2, long mask, String n) {
    try { return (long) H.BUILD_SHUFFLE_VECTOR.invokeExact(b, v1, v2, mask, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildLoad2(long b, long ty, long ptr, String n) {
    try { return (long) H.BUILD_LOAD2.invokeExact(b, ty, ptr, cString(n)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildStore(long b, long v, long ptr) { try { return (long) H.BUILD_STORE.invokeExact(b, v, ptr); } catch (Throwable t) { throw fail(t); } }
  static long buildGep2(long b, long ty, long ptr, MemorySegment idx, int n, boolean inBounds, String name) {
    try {
      return inBounds ? (long) H.BUILD_IN_BOUNDS_GEP2.invokeExact(b, ty, ptr, idx, n, cString(name))
          : (long) H.BUILD_GEP2.invokeExact(b, ty, ptr, idx, n, cString(name));
    } catch (Throwable t) { throw fail(t); }
  }
  static long buildCall2(long b, long fnTy, long callee, MemorySegment args, int n, String name) {
    try { return (long) H.BUILD_CALL2.invokeExact(b, fnTy, callee, args, n, cString(name)); } catch (Throwable t) { throw fail(t); }
  }
  static long buildPhi(long b, long ty, String n) { try { return (long) H.BUILD_PHI.invokeExact(b, ty, cString(n)); } catch (Throwable t) { throw fail(t); } }
  static long buildBr(long b, long dest) { try { return (long) H.BUILD_BR.invokeExact(b, dest); } catch (Throwable t) { throw fail(t); } }
  static long buildCondBr(long b, long c, long t, long f) { try { return (long) H.BUILD_COND_BR.invokeExact(b, c, t, f); } catch (Throwable e) { throw fail(e); } }
}
