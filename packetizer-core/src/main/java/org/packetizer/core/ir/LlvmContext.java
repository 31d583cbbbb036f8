package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;

/**
 * An LLVM context: owner of types and of the modules parsed or created in it. A context created here
 * is disposed by {@link #close()}; one wrapped with {@link #borrowed} belongs to someone else and is
 * never disposed. Not thread-safe: use one context per thread (LLVM's own rule).
 */
public final class LlvmContext implements AutoCloseable {
  private final LLVMContextRef ref;
  private final boolean owned;
  private boolean closed;

  private LlvmContext(LLVMContextRef ref, boolean owned) {
    this.ref = ref;
    this.owned = owned;
  }

  /** A new context, owned by the returned object. */
  public static LlvmContext create() {
    Llvm.init();
    return new LlvmContext(LLVMContextCreate(), true);
  }

  /** Wraps a context owned elsewhere; {@link #close()} does nothing. */
  public static LlvmContext borrowed(LLVMContextRef ref) {
    return new LlvmContext(ref, false);
  }

  public LLVMContextRef ref() {
    if (closed) throw new IllegalStateException("context is closed");
    return ref;
  }

  public boolean isOwned() { return owned; }

  /** Whether {@link #close()} was called (an owned context is then disposed, with its modules). */
  public boolean isClosed() { return closed; }

  // ---- modules ----

  public LlvmModule createModule(String name) {
    return LlvmModule.own(LLVMModuleCreateWithNameInContext(name, ref()), this);
  }

  /**
   * Loads a module from a file: LLVM bitcode (by its magic bytes) or textual IR otherwise.
   *
   * @throws IrLoadException with the file name and the parser's message
   */
  public LlvmModule load(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IrLoadException(file.toString(), "cannot read file: " + e.getMessage(), e);
    }
    return load(bytes, file.toString());
  }

  /** Loads bitcode or textual IR from bytes; {@code name} is used in messages and as module id. */
  public LlvmModule load(byte[] bytes, String name) {
    return isBitcode(bytes) ? parseBitcode(bytes, name) : parseIr(new String(bytes, java.nio.charset.StandardCharsets.UTF_8), name);
  }

  /** True when the bytes start with the LLVM bitcode magic (raw or wrapper). */
  public static boolean isBitcode(byte[] b) {
    return b.length >= 4 && ((b[0] == 'B' && b[1] == 'C' && (b[2] & 0xff) == 0xC0 && (b[3] & 0xff) == 0xDE)
        || ((b[0] & 0xff) == 0xDE && (b[1] & 0xff) == 0xC0 && b[2] == 0x17 && (b[3] & 0xff) == 0x0B));
  }

  public LlvmModule parseBitcode(byte[] bytes, String name) {
    if (bytes.length == 0) throw new IrLoadException(name, "empty input (0 bytes)", null);
    LLVMMemoryBufferRef buf = memoryBuffer(bytes, name);
    try {
      LLVMModuleRef m = new LLVMModuleRef();
      BytePointer msg = new BytePointer((org.bytedeco.javacpp.Pointer) null);
      if (LLVMParseBitcodeInContext(ref(), buf, m, msg) != 0) {
        String text = msg.isNull() ? "invalid bitcode" : Llvm.takeMessage(msg);
        throw new IrLoadException(name, text, null);
      }
      setIdentifier(m, name);
      return LlvmModule.own(m, this);
    } finally {
      LLVMDisposeMemoryBuffer(buf);
    }
  }

  /** The module's identifier, its length in UTF-8 bytes (a file name may not be ASCII). */
  private static void setIdentifier(LLVMModuleRef m, String name) {
    byte[] utf8 = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (BytePointer p = new BytePointer(utf8)) {
      LLVMSetModuleIdentifier(m, p, utf8.length);
    }
  }

  public LlvmModule parseIr(String text, String name) {
    if (text.isEmpty()) throw new IrLoadException(name, "empty input (0 bytes)", null);
    // (LLVM's IR parser refuses a context that discards value names: names on while parsing, and back)
    try (ValueNames keep = valueNames(true)) {
      return parseIrKeepingNames(text, name);
    }
  }

  private LlvmModule parseIrKeepingNames(String text, String name) {
    // LLVMParseIRInContext takes ownership of the buffer.
    LLVMMemoryBufferRef buf = memoryBuffer(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), name);
    LLVMModuleRef m = new LLVMModuleRef();
    BytePointer msg = new BytePointer((org.bytedeco.javacpp.Pointer) null);
    if (LLVMParseIRInContext(ref(), buf, m, msg) != 0) {
      throw new IrLoadException(name, msg.isNull() ? "invalid IR" : Llvm.takeMessage(msg), null);
    }
    setIdentifier(m, name);
    return LlvmModule.own(m, this);
  }

  // ---- value names ----

  /** Whether LLVM discards the names of values other than globals made in this context ({@code LLVMContextShouldDiscardValueNames}). */
  public boolean discardsValueNames() { return LLVMContextShouldDiscardValueNames(ref()) != 0; }

  /**
   * Values (other than globals: functions, variables) made in this context from now on get their names
   * ({@code keep}) or none; the returned scope's {@link ValueNames#close()} puts back the setting found
   * here. The context may be the user's (a borrowed one): a packetization changes the setting only while
   * it makes its own values, and leaves it as it found it (issue 16: value names off while packetizing).
   */
  public ValueNames valueNames(boolean keep) {
    boolean before = discardsValueNames();
    if (before == !keep) return new ValueNames(this, before, false);
    LLVMContextSetDiscardValueNames(ref(), keep ? 0 : 1);
    return new ValueNames(this, before, true);
  }

  /** A {@link #valueNames} scope: closing it restores the context's setting from before. */
  public static final class ValueNames implements AutoCloseable {
    private final LlvmContext ctx;
    private final boolean discardedBefore;
    private boolean changed;

    private ValueNames(LlvmContext ctx, boolean discardedBefore, boolean changed) {
      this.ctx = ctx;
      this.discardedBefore = discardedBefore;
      this.changed = changed;
    }

    @Override
    public void close() {
      if (!changed || ctx.closed) return;
      changed = false;
      LLVMContextSetDiscardValueNames(ctx.ref(), discardedBefore ? 1 : 0);
    }
  }

  private static LLVMMemoryBufferRef memoryBuffer(byte[] bytes, String name) {
    // The buffer must be NUL-terminated for the IR parser: copy with a trailing 0 and pass length without it.
    BytePointer data = new BytePointer(bytes.length + 1L);
    data.put(bytes, 0, bytes.length);
    data.put(bytes.length, (byte) 0);
    try (BytePointer bufferName = new BytePointer(name)) {
      return LLVMCreateMemoryBufferWithMemoryRangeCopy(data, bytes.length, bufferName); // copies data and name
    } finally {
      data.close();
    }
  }

  // ---- types ----

  public Type voidType() { return new Type(LLVMVoidTypeInContext(ref())); }
  public Type i1() { return new Type(LLVMInt1TypeInContext(ref())); }
  public Type i8() { return new Type(LLVMInt8TypeInContext(ref())); }
  public Type i16() { return new Type(LLVMInt16TypeInContext(ref())); }
  public Type i32() { return new Type(LLVMInt32TypeInContext(ref())); }
  public Type i64() { return new Type(LLVMInt64TypeInContext(ref())); }
  public Type intType(int bits) { return new Type(LLVMIntTypeInContext(ref(), bits)); }
  public Type floatType() { return new Type(LLVMFloatTypeInContext(ref())); }
  public Type halfType() { return new Type(LLVMHalfTypeInContext(ref())); }
  public Type doubleType() { return new Type(LLVMDoubleTypeInContext(ref())); }
  public Type ptrType() { return new Type(LLVMPointerTypeInContext(ref(), 0)); }

  public Type functionType(Type ret, List<Type> params, boolean varArg) {
    try (PointerPointer<LLVMTypeRef> pp = types(params)) {
      return new Type(LLVMFunctionType(ret.ref(), pp, params.size(), varArg ? 1 : 0));
    }
  }

  /** A literal (unnamed) struct type. */
  public Type structType(List<Type> elements, boolean packed) {
    try (PointerPointer<LLVMTypeRef> pp = types(elements)) {
      return new Type(LLVMStructTypeInContext(ref(), pp, elements.size(), packed ? 1 : 0));
    }
  }

  /** A named struct type with the given body (a fresh name is chosen by LLVM if taken). */
  public Type namedStruct(String name, List<Type> elements, boolean packed) {
    LLVMTypeRef t = LLVMStructCreateNamed(ref(), name);
    try (PointerPointer<LLVMTypeRef> pp = types(elements)) {
      LLVMStructSetBody(t, pp, elements.size(), packed ? 1 : 0);
    }
    return new Type(t);
  }

  static PointerPointer<LLVMTypeRef> types(List<Type> ts) {
    PointerPointer<LLVMTypeRef> pp = new PointerPointer<>(Math.max(1, ts.size()));
    for (int i = 0; i < ts.size(); i++) pp.put(i, ts.get(i).ref());
    return pp;
  }

  static List<Type> wrapAll(List<LLVMTypeRef> refs) {
    List<Type> out = new ArrayList<>();
    for (LLVMTypeRef r : refs) out.add(new Type(r));
    return out;
  }

  /**
   * Disposes an owned context and with it every module still in it (LLVM frees them): their {@link
   * LlvmModule} objects then refuse to be used, and closing them does nothing.
   */
  @Override
  public void close() {
    if (closed) return;
    closed = true;
    if (owned) LLVMContextDispose(ref);
  }
}
