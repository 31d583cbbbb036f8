package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMPassBuilderOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTargetDataRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * An LLVM module. Either owned (created, parsed or cloned through this facade; disposed by
 * {@link #close()}) or borrowed ({@link #borrow}: a module another tool owns; never disposed here).
 */
public final class LlvmModule implements AutoCloseable {
  private LLVMModuleRef ref;
  private final boolean owned;
  /** The facade context this module was created in, or null (adopted, borrowed). */
  private final LlvmContext owner;

  private LlvmModule(LLVMModuleRef ref, boolean owned, LlvmContext owner) {
    this.ref = ref;
    this.owned = owned;
    this.owner = owner;
  }

  static LlvmModule own(LLVMModuleRef ref, LlvmContext ctx) { return new LlvmModule(ref, true, ctx); }

  /** Wraps a module owned by the caller: this object never disposes it. */
  public static LlvmModule borrow(LLVMModuleRef ref) {
    if (ref == null || ref.isNull()) throw new IllegalArgumentException("null module");
    Llvm.init();
    return new LlvmModule(ref, false, null);
  }

  /**
   * Takes ownership of a raw module (e.g. one returned by a C API call): {@link #close()} disposes it.
   */
  public static LlvmModule adopt(LLVMModuleRef ref) {
    Llvm.init();
    return new LlvmModule(ref, true, null);
  }

  public LLVMModuleRef ref() {
    if (ref == null) throw new IllegalStateException("module is closed or was handed over");
    // closing a context frees its modules: touching one afterwards would crash the JVM
    if (owner != null && owner.isClosed()) throw new IllegalStateException("the module's LLVM context is closed (which freed the module)");
    return ref;
  }

  public boolean isOwned() { return owned; }

  public LlvmContext context() { return LlvmContext.borrowed(LLVMGetModuleContext(ref())); }

  public String identifier() {
    try (var len = new org.bytedeco.javacpp.SizeTPointer(1)) {
      BytePointer p = LLVMGetModuleIdentifier(ref(), len);
      return p == null || p.isNull() ? "" : p.getString();
    }
  }

  // ---- functions and globals ----

  public Optional<Function> function(String name) {
    LLVMValueRef f = LLVMGetNamedFunction(ref(), name);
    return f == null || f.isNull() ? Optional.empty() : Optional.of(new Function(f));
  }

  public List<Function> functions() {
    List<Function> out = new ArrayList<>();
    for (LLVMValueRef f = LLVMGetFirstFunction(ref()); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
      out.add(new Function(f));
    }
    return out;
  }

  /** Deletes, to a fixed point, every function not named in {@code keep} that nothing refers to. */
  public void deleteUnreferencedFunctions(java.util.Set<String> keep) {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Function f : functions()) {
        if (!keep.contains(f.name()) && !f.hasUses()) {
          f.delete();
          changed = true;
        }
      }
    }
  }

  public Function addFunction(String name, Type functionType) {
    // (with names on: LLVM gives a function made while its context discards value names no symbol table,
    // and names set on its values later, with names on again, would then not be made unique)
    try (var names = context().valueNames(true)) {
      return new Function(LLVMAddFunction(ref(), name, functionType.ref()));
    }
  }

  /** The function with this name, or a new declaration of it with the given type. */
  public Function getOrInsertFunction(String name, Type functionType) {
    return function(name).orElseGet(() -> addFunction(name, functionType));
  }

  /** Whether a global alias of this name exists. */
  public boolean hasAlias(String name) {
    var a = LLVMGetNamedGlobalAlias(ref(), name, name.length());
    return a != null && !a.isNull();
  }

  public Optional<Value> global(String name) {
    LLVMValueRef g = LLVMGetNamedGlobal(ref(), name);
    return g == null || g.isNull() ? Optional.empty() : Optional.of(new Value(g));
  }

  /**
   * A private constant of {@code bytes} zero bytes aligned to {@code align}, named {@code name}: the
   * existing one when the module has it, else a new one.
   */
  public Value zeroConstant(String name, int bytes, int align) {
    Optional<Value> old = global(name);
    if (old.isPresent()) return old.get();
    LLVMTypeRef t = LLVMArrayType2(LLVMInt8TypeInContext(LLVMGetModuleContext(ref())), bytes);
    LLVMValueRef g = LLVMAddGlobal(ref(), t, name);
    LLVMSetInitializer(g, LLVMConstNull(t));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, align);
    return new Value(g);
  }

  /**
   * A zero-initialized mutable array of {@code count} 64-bit integers aligned to {@code align}, named {@code name},
   * with external linkage (state a generated function keeps between its calls): the existing one when the module has it.
   */
  public Value i64State(String name, int count, int align) {
    Optional<Value> old = global(name);
    if (old.isPresent()) return old.get();
    LLVMTypeRef t = LLVMArrayType2(LLVMInt64TypeInContext(LLVMGetModuleContext(ref())), count);
    LLVMValueRef g = LLVMAddGlobal(ref(), t, name);
    LLVMSetInitializer(g, LLVMConstNull(t));
    LLVMSetAlignment(g, align);
    return new Value(g);
  }

  /**
   * A private constant array of 32-bit integers ({@code values}) aligned to {@code align}, named {@code name}:
   * the existing one when the module has it, else a new one (a lookup table).
   */
  public Value i32Table(String name, int[] values, int align) {
    Optional<Value> old = global(name);
    if (old.isPresent()) return old.get();
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(ref()));
    LLVMTypeRef t = LLVMArrayType2(i32, values.length);
    try (PointerPointer<LLVMValueRef> pp = new PointerPointer<>(values.length)) {
      for (int i = 0; i < values.length; i++) pp.put(i, LLVMConstInt(i32, values[i], 0));
      LLVMValueRef g = LLVMAddGlobal(ref(), t, name);
      LLVMSetInitializer(g, LLVMConstArray2(i32, pp, values.length));
      LLVMSetGlobalConstant(g, 1);
      LLVMSetLinkage(g, LLVMPrivateLinkage);
      LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
      LLVMSetAlignment(g, align);
      return new Value(g);
    }
  }

  public List<Value> globals() {
    List<Value> out = new ArrayList<>();
    for (LLVMValueRef g = LLVMGetFirstGlobal(ref()); g != null && !g.isNull(); g = LLVMGetNextGlobal(g)) {
      out.add(new Value(g));
    }
    return out;
  }

  /**
   * The declaration of an intrinsic, overloaded on {@code overloadTypes} (e.g. "llvm.sqrt" with
   * {@code <4 x float>}).
   */
  public Function intrinsic(String name, Type... overloadTypes) {
    int id = LLVMLookupIntrinsicID(name, name.length());
    if (id == 0) throw new LlvmException("unknown intrinsic " + name);
    try (PointerPointer<LLVMTypeRef> pp = LlvmContext.types(List.of(overloadTypes))) {
      return new Function(LLVMGetIntrinsicDeclaration(ref(), id, pp, overloadTypes.length));
    }
  }

  public static boolean isIntrinsicName(String name) {
    return LLVMLookupIntrinsicID(name, name.length()) != 0;
  }

  // ---- target ----

  public String targetTriple() {
    BytePointer p = LLVMGetTarget(ref());
    return p == null || p.isNull() ? "" : p.getString();
  }

  public void setTargetTriple(String triple) { LLVMSetTarget(ref(), triple); }

  public String dataLayoutString() {
    BytePointer p = LLVMGetDataLayoutStr(ref());
    return p == null || p.isNull() ? "" : p.getString();
  }

  public void setDataLayout(String layout) { LLVMSetDataLayout(ref(), layout); }

  private LLVMTargetDataRef dataLayout() { return LLVMGetModuleDataLayout(ref()); }

  /** ABI size in bytes (what GEP steps by). */
  public long allocSize(Type t) { return LLVMABISizeOfType(dataLayout(), t.ref()); }

  public long storeSize(Type t) { return LLVMStoreSizeOfType(dataLayout(), t.ref()); }

  public int abiAlignment(Type t) { return LLVMABIAlignmentOfType(dataLayout(), t.ref()); }

  public long offsetOfElement(Type struct, int index) { return LLVMOffsetOfElement(dataLayout(), struct.ref(), index); }

  // ---- I/O ----

  public byte[] toBitcode() {
    LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(ref());
    try {
      long size = LLVMGetBufferSize(buf);
      BytePointer start = LLVMGetBufferStart(buf);
      byte[] out = new byte[(int) size];
      start.capacity(size).get(out);
      return out;
    } finally {
      LLVMDisposeMemoryBuffer(buf);
    }
  }

  public String toIr() { return Llvm.takeMessage(LLVMPrintModuleToString(ref())); }

  public void writeBitcode(Path file) throws IOException { Files.write(file, toBitcode()); }

  public void writeIr(Path file) throws IOException { Files.writeString(file, toIr()); }

  /** Writes textual IR for .ll files, bitcode otherwise. */
  public void write(Path file) throws IOException {
    if (file.getFileName().toString().endsWith(".ll")) writeIr(file);
    else writeBitcode(file);
  }

  // ---- verification, cloning, passes ----

  /** The verifier's message when the module is broken, empty when it is valid. */
  public Optional<String> verify() {
    BytePointer msg = new BytePointer((Pointer) null);
    int broken = LLVMVerifyModule(ref(), LLVMReturnStatusAction, msg);
    String text = Llvm.takeMessage(msg);
    return broken != 0 ? Optional.of(text.isBlank() ? "module is broken" : text.strip()) : Optional.empty();
  }

  /** Throws {@link LlvmException} with the verifier's message when the module is broken. */
  public void verifyOrThrow(String what) {
    verify().ifPresent(m -> { throw new LlvmException(what + ": invalid IR: " + m); });
  }

  /** A deep copy in the same context, owned by the returned object. */
  /**
   * Links {@code other} into this module (LLVM's linker: declarations resolve to this module's
   * definitions of the same name); {@code other} is consumed and closed.
   *
   * @throws LlvmException when linking fails
   */
  public void linkIn(LlvmModule other) {
    // (names on: the functions the linker makes get symbol tables, see addFunction)
    try (var names = context().valueNames(true)) {
      if (LLVMLinkModules2(ref(), other.release()) != 0) throw new LlvmException("cannot link a module into '" + identifier() + "'");
    }
  }

  public LlvmModule cloneModule() {
    try (var names = context().valueNames(true)) {
      return new LlvmModule(LLVMCloneModule(ref()), true, owner);
    }
  }

  /** Runs a new-pass-manager pipeline (e.g. "instcombine,simplifycfg") on the whole module. */
  public void runPasses(String pipeline) { runPasses(pipeline, null); }

  public void runPasses(String pipeline, TargetMachine tm) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    try (BytePointer p = new BytePointer(pipeline)) {
      Llvm.check(LLVMRunPasses(ref(), p, tm == null ? null : tm.ref(), opts), "pass pipeline '" + pipeline + "'");
    } finally {
      LLVMDisposePassBuilderOptions(opts);
    }
  }

  /** Runs a function pipeline on one function only. */
  public static void runPasses(Function f, String pipeline, TargetMachine tm) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    try (BytePointer p = new BytePointer(pipeline)) {
      Llvm.check(LLVMRunPassesOnFunction(f.ref(), p, tm == null ? null : tm.ref(), opts),
          "pass pipeline '" + pipeline + "' on @" + f.name());
    } finally {
      LLVMDisposePassBuilderOptions(opts);
    }
  }

  /**
   * Links {@code src} (same context) into this module ({@code LLVMLinkModules2}): definitions of
   * {@code src} that are referenced or externally visible are added. {@code src} is consumed.
   */
  public void link(LlvmModule src) {
    String what = src.identifier();
    // (names on: the functions the linker makes get symbol tables, see addFunction)
    try (var names = context().valueNames(true)) {
      if (LLVMLinkModules2(ref(), src.release()) != 0) throw new LlvmException("cannot link " + what + " into " + identifier());
    }
  }

  /**
   * Gives up ownership of the native module (e.g. to hand it to the JIT, which takes it over); this
   * object becomes unusable.
   */
  public LLVMModuleRef release() {
    LLVMModuleRef r = ref();
    ref = null;
    return r;
  }

  /**
   * Disposes an owned module. Closing it after its context is harmless: the context already freed it
   * (close modules before their context, e.g. with one try-with-resources statement).
   */
  @Override
  public void close() {
    if (ref != null && owned && (owner == null || !owner.isClosed())) LLVMDisposeModule(ref);
    ref = null;
  }
}
