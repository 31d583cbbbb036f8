package org.packetizer.core.jit;

import static org.bytedeco.llvm.global.LLVM.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;
import org.bytedeco.llvm.LLVM.LLVMJITEvaluatedSymbol;
import org.bytedeco.llvm.LLVM.LLVMJITSymbolFlags;
import org.bytedeco.llvm.LLVM.LLVMOrcCSymbolMapPair;
import org.bytedeco.llvm.LLVM.LLVMOrcDefinitionGeneratorRef;
import org.bytedeco.llvm.LLVM.LLVMOrcErrorReporterFunction;
import org.bytedeco.llvm.LLVM.LLVMOrcJITDylibRef;
import org.bytedeco.llvm.LLVM.LLVMOrcJITTargetMachineBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcMaterializationUnitRef;
import org.bytedeco.llvm.LLVM.LLVMOrcSymbolStringPoolEntryRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeModuleRef;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;

/**
 * An ORC LLJIT for the host CPU (or a given CPU name and feature string) plus what calling into it
 * from Java needs.
 *
 * <ul>
 *   <li>Process symbols resolve (libm's {@code sinf}, {@code expf}, ...); glibc's {@code libmvec.so.1}
 *       is loaded into the process when present, so its {@code _ZGV...} vector functions link too.
 *   <li>{@link #addModule} never takes the caller's module: it serializes it to bitcode and parses that
 *       into a fresh context owned by the JIT.
 *   <li>{@link #function} gives a {@link JitFunction} called through a generated trampoline.
 *   <li>{@link #defineSymbol} / {@link #defineUpcall} add absolute symbols (e.g. a Java callback).
 * </ul>
 *
 * Closing disposes the LLJIT (and the modules and code it owns) and the upcall stubs. Adding modules
 * and looking symbols up are serialized on this object.
 */
public final class Jit implements AutoCloseable {
  /** Bytes per argument slot of a trampoline: enough for {@code <64 x double>} and {@code <64 x ptr>}. */
  public static final int ARG_SLOT = 512;

  private static final boolean LIBMVEC;
  private static final boolean SLEEF;
  /** The compiler runtime library whose builtins the JIT links, or null when none could be loaded. */
  private static final String BUILTINS;
  /** Where the compiler runtime builtins are looked for, in order. */
  static final List<String> BUILTIN_LIBRARIES = List.of("libgcc_s.so.1", "libgcc_s.so");

  static {
    Llvm.init();
    // Make sure libm is in the global search list, and load libmvec (vector math) when present.
    LLVMLoadLibraryPermanently("libm.so.6");
    LIBMVEC = LLVMLoadLibraryPermanently("libmvec.so.1") == 0;
    // SLEEF (Debian libsleef3): the vector math the packetizer uses where libmvec has no variant
    SLEEF = LLVMLoadLibraryPermanently("libsleef.so.3") == 0; // mapping.Sleef.LIBRARY
    // Code generation calls compiler runtime builtins for what the target has no instruction for
    // (__udivti3 for an i128 division, __truncsfhf2 for half, ...). The bundled LLVM has no
    // compiler-rt; GCC's runtime library (on every glibc system: unwinding needs it) exports them.
    String builtins = null;
    for (String lib : BUILTIN_LIBRARIES) {
      if (LLVMLoadLibraryPermanently(lib) == 0) {
        builtins = lib;
        break;
      }
    }
    BUILTINS = builtins;
  }

  /** The library the compiler runtime builtins ({@code __udivti3}, ...) come from, if one was loaded. */
  public static java.util.Optional<String> builtinsLibrary() { return java.util.Optional.ofNullable(BUILTINS); }

  /** Session errors (e.g. "Symbols not found: [ f ]") go to the reporting JIT, found by its id. */
  private static final Map<Long, Jit> BY_ID = new ConcurrentHashMap<>();
  private static final AtomicLong NEXT_ID = new AtomicLong(1);
  private static final LLVMOrcErrorReporterFunction REPORTER = new LLVMOrcErrorReporterFunction() {
    @Override public void call(Pointer ctx, LLVMErrorRef err) {
      String text = takeError(err);
      Jit j = BY_ID.get(ctx == null ? 0L : ctx.address());
      if (j != null) j.sessionError(text);
    }
  };

  private volatile LLVMOrcLLJITRef jit;
  private final long id = NEXT_ID.getAndIncrement();
  private final Deque<String> sessionErrors = new ArrayDeque<>();
  private final LLVMOrcJITDylibRef mainDylib;
  private final Arena arena = Arena.ofShared();
  private final String triple, cpu, features, dataLayout;
  private final Map<String, Signature> signatures = new HashMap<>();
  private final Map<String, String> notCallable = new HashMap<>();
  private final Map<String, JitFunction> functions = new LinkedHashMap<>();

  private Jit(String cpu, String features) {
    String hostTriple = Llvm.hostTriple();
    TargetMachine tm = TargetMachine.create(hostTriple, cpu, features);
    // The JITTargetMachineBuilder takes the target machine over.
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm.release());
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb); // takes jtmb
    LLVMOrcLLJITRef j = new LLVMOrcLLJITRef();
    Llvm.check(LLVMOrcCreateLLJIT(j, builder), "cannot create ORC LLJIT for cpu '" + cpu + "'"); // takes builder
    this.jit = j;
    try {
      this.mainDylib = LLVMOrcLLJITGetMainJITDylib(j);
      BY_ID.put(id, this);
      LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(j), REPORTER, new IdPointer(id));
      LLVMOrcDefinitionGeneratorRef gen = new LLVMOrcDefinitionGeneratorRef();
      Llvm.check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(gen, LLVMOrcLLJITGetGlobalPrefix(j), null, null),
          "cannot create the process symbol generator");
      LLVMOrcJITDylibAddGenerator(mainDylib, gen); // takes gen
      this.triple = string(LLVMOrcLLJITGetTripleString(j));
      this.dataLayout = string(LLVMOrcLLJITGetDataLayoutStr(j));
      this.cpu = cpu;
      this.features = features;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** A JIT for the host: its CPU name and all its features. */
  public static Jit host() { return new Jit(Llvm.hostCpuName(), Llvm.hostCpuFeatures()); }

  /**
   * A JIT generating code for {@code cpu} (e.g. "x86-64", "haswell", "znver4") with the given feature
   * string (e.g. "" or "-avx,-avx2"). The code must still run on this host to be called.
   */
  public static Jit forTarget(String cpu, String features) {
    return new Jit(Objects.requireNonNull(cpu, "cpu"), Objects.requireNonNull(features, "features"));
  }

  /** Whether glibc's vector math library ({@code libmvec.so.1}) was found and loaded. */
  public static boolean libmvecAvailable() { return LIBMVEC; }

  /** Whether SLEEF ({@code libsleef.so.3}, vector lgamma and tgamma) was found and loaded. */
  public static boolean sleefAvailable() { return SLEEF; }

  public String cpu() { return cpu; }

  public String features() { return features; }

  public String triple() { return triple; }

  /** The data layout of the JIT's target; added modules without one get it. */
  public String dataLayout() { return dataLayout; }

  // ---- modules ----

  /** Adds a copy of {@code m} (through bitcode); the caller keeps owning {@code m}, which is not changed. */
  public void addModule(LlvmModule m) { addCopy(m, false, null, null); }

  /**
   * Adds a copy of {@code m} in which every defined function's "target-cpu" and "target-features"
   * attributes are replaced by the given values (a null value removes the attribute, so this JIT's
   * own CPU or features apply). {@code m} itself is not changed.
   */
  public void addModule(LlvmModule m, String targetCpu, String targetFeatures) { addCopy(m, true, targetCpu, targetFeatures); }

  /** {@link #addModule(LlvmModule, String, String)} with this JIT's CPU and features. */
  public void addModuleRetargeted(LlvmModule m) { addModule(m, cpu, features); }

  private synchronized void addCopy(LlvmModule m, boolean override, String targetCpu, String targetFeatures) {
    checkOpen();
    byte[] bitcode = m.toBitcode();
    String id = m.identifier();
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    try {
      LlvmContext ctx = LlvmContext.borrowed(LLVMOrcThreadSafeContextGetContext(tsc));
      LlvmModule copy = ctx.parseBitcode(bitcode, id.isEmpty() ? "module" : id);
      Map<String, Signature> sigs = new HashMap<>();
      Map<String, String> bad = new HashMap<>();
      try {
        if (copy.dataLayoutString().isEmpty()) copy.setDataLayout(dataLayout);
        if (copy.targetTriple().isEmpty()) copy.setTargetTriple(triple);
        for (Function f : copy.functions()) {
          if (f.isDeclaration()) continue;
          if (override) {
            setOrRemove(f, "target-cpu", targetCpu);
            setOrRemove(f, "target-features", targetFeatures);
          }
          int linkage = f.linkage();
          if (linkage == LLVMInternalLinkage || linkage == LLVMPrivateLinkage) {
            bad.put(f.name(), "it has internal linkage (not visible outside its module)");
            continue;
          }
          try {
            sigs.put(f.name(), Signature.of(f, copy));
          } catch (UnsupportedOperationException e) {
            bad.put(f.name(), e.getMessage());
          }
        }
        copy.verify().ifPresent(msg -> { throw new LlvmException("module '" + id + "' is invalid: " + msg); });
      } catch (RuntimeException e) {
        copy.close();
        throw e;
      }
      LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(copy.release(), tsc);
      // ORC takes the thread-safe module over, also when it reports an error.
      Llvm.check(LLVMOrcLLJITAddLLVMIRModule(jit, mainDylib, tsm), "cannot add module '" + id + "' to the JIT");
      signatures.putAll(sigs);
      notCallable.putAll(bad);
    } finally {
      LLVMOrcDisposeThreadSafeContext(tsc); // the module keeps its own reference
    }
  }

  private static void setOrRemove(Function f, String key, String value) {
    if (value == null) f.removeStringAttribute(key);
    else f.setStringAttribute(key, value);
  }

  // ---- symbols ----

  /**
   * The address of a symbol defined in this JIT (compiling its module if needed) or in the process.
   *
   * @throws LlvmException naming the symbol when it is unknown or its module cannot be linked
   */
  public synchronized long lookup(String symbol) {
    checkOpen();
    long[] addr = new long[1];
    synchronized (sessionErrors) {
      sessionErrors.clear();
    }
    LLVMErrorRef err = LLVMOrcLLJITLookup(jit, addr, symbol);
    if (err != null && !err.isNull()) {
      String text = takeError(err);
      String session;
      synchronized (sessionErrors) {
        session = sessionErrors.isEmpty() ? "" : " (" + String.join("; ", sessionErrors) + ")";
        sessionErrors.clear();
      }
      throw new LlvmException("JIT lookup of symbol '" + symbol + "' failed: " + text + session + missingHint(text + session));
    }
    return addr[0];
  }

  /** What to do about symbols LLVM could not find (named in its "Symbols not found: [ ... ]"). */
  static String missingHint(String error) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("Symbols not found: \\[ ([^\\]]*) \\]").matcher(error);
    java.util.Set<String> missing = new java.util.TreeSet<>();
    while (m.find()) for (String s : m.group(1).split(",\\s*")) if (!s.isBlank()) missing.add(s.trim());
    if (missing.isEmpty()) return "";
    List<String> builtins = missing.stream().filter(s -> s.startsWith("__")).toList();
    StringBuilder out = new StringBuilder("; missing: " + String.join(", ", missing) + " (neither defined in the module nor"
        + " found in the process or its libraries");
    if (!builtins.isEmpty()) {
      out.append(BUILTINS == null
          ? "; " + String.join(", ", builtins) + " look like compiler runtime builtins, but none of " + BUILTIN_LIBRARIES
              + " could be loaded"
          : "; " + String.join(", ", builtins) + " look like compiler runtime builtins, which " + BUILTINS + " does not provide");
    }
    return out.append(")").toString();
  }

  /** Defines an absolute symbol (a function or data address outside the JIT) in the main dylib. */
  public synchronized void defineSymbol(String name, long address) {
    checkOpen();
    LLVMOrcSymbolStringPoolEntryRef interned = LLVMOrcLLJITMangleAndIntern(jit, name);
    try (LLVMJITSymbolFlags flags = new LLVMJITSymbolFlags();
         LLVMJITEvaluatedSymbol sym = new LLVMJITEvaluatedSymbol();
         LLVMOrcCSymbolMapPair pair = new LLVMOrcCSymbolMapPair()) {
      flags.GenericFlags((byte) (LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable));
      flags.TargetFlags((byte) 0);
      sym.Address(address);
      sym.Flags(flags);
      pair.Name(interned);
      pair.Sym(sym);
      LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pair, 1); // takes the name reference
      LLVMErrorRef err = LLVMOrcJITDylibDefine(mainDylib, mu);
      if (err != null && !err.isNull()) {
        LLVMOrcDisposeMaterializationUnit(mu);
        Llvm.check(err, "cannot define symbol '" + name + "'");
      }
    }
  }

  /**
   * Defines {@code name} as a native entry point that calls {@code target} (an FFM upcall stub living
   * as long as this JIT). The handle must match {@code descriptor} and must not throw: an exception
   * escaping an upcall terminates the JVM.
   *
   * @return the stub
   */
  @SuppressWarnings("restricted")
  public MemorySegment defineUpcall(String name, MethodHandle target, FunctionDescriptor descriptor) {
    checkOpen();
    MemorySegment stub = Linker.nativeLinker().upcallStub(target, descriptor, arena);
    defineSymbol(name, stub.address());
    return stub;
  }

  // ---- calling ----

  /**
   * The function {@code name} (defined by an added module, externally visible) callable from Java;
   * builds and adds its trampoline on first use.
   *
   * @throws LlvmException when there is no such function or its prototype cannot cross a trampoline
   */
  @SuppressWarnings("restricted")
  public synchronized JitFunction function(String name) {
    checkOpen();
    JitFunction f = functions.get(name);
    if (f != null) return f;
    Signature sig = signatures.get(name);
    if (sig == null) {
      String why = notCallable.get(name);
      if (why != null) throw new LlvmException("cannot call function @" + name + " from Java: " + why);
      throw new LlvmException("no function @" + name + " in the modules added to this JIT"
          + (signatures.isEmpty() ? " (none added)" : "; defined: " + String.join(", ", signatures.keySet().stream().sorted().toList())));
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    try {
      LlvmContext ctx = LlvmContext.borrowed(LLVMOrcThreadSafeContextGetContext(tsc));
      LlvmModule m = Trampolines.build(sig, ctx, triple, dataLayout);
      LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m.release(), tsc);
      Llvm.check(LLVMOrcLLJITAddLLVMIRModule(jit, mainDylib, tsm), "cannot add the trampoline of @" + name);
    } finally {
      LLVMOrcDisposeThreadSafeContext(tsc);
    }
    long trampoline = lookup(Trampolines.trampolineName(name));
    long address = lookup(name);
    MethodHandle mh = Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(trampoline),
        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    f = new JitFunction(this, sig, trampoline, address, mh);
    functions.put(name, f);
    return f;
  }

  // ---- lifecycle ----

  public boolean isClosed() { return jit == null; }

  void checkOpen() {
    if (jit == null) throw new IllegalStateException("the JIT is closed");
  }

  @Override
  public synchronized void close() {
    if (jit == null) return;
    LLVMOrcLLJITRef j = jit;
    jit = null;
    functions.clear();
    try {
      Llvm.check(LLVMOrcDisposeLLJIT(j), "disposing the JIT");
    } finally {
      BY_ID.remove(id);
      arena.close();
    }
  }

  private void sessionError(String text) {
    synchronized (sessionErrors) {
      if (sessionErrors.size() >= 8) sessionErrors.removeFirst();
      sessionErrors.addLast(text);
    }
  }

  private static String takeError(LLVMErrorRef err) {
    BytePointer msg = LLVMGetErrorMessage(err);
    try {
      return msg.getString();
    } finally {
      LLVMDisposeErrorMessage(msg);
    }
  }

  /** A pointer-sized context carrying a JIT's id to the static error reporter. */
  private static final class IdPointer extends Pointer {
    IdPointer(long id) { this.address = id; }
  }

  private static String string(BytePointer p) { return p == null || p.isNull() ? "" : p.getString(); }

  @Override public String toString() { return "Jit[" + triple + ", cpu=" + cpu + (isClosed() ? ", closed]" : "]"); }
}
