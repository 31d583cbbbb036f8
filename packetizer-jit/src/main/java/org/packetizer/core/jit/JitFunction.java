package org.packetizer.core.jit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * A JIT-compiled function, called from Java through its trampoline
 * {@code void @<fn>.tramp(ptr args, ptr result)}. Argument i lives at {@code args + i * Jit.ARG_SLOT}
 * and the result at {@code result}, both in the memory representation of {@link JitType}. Valid while
 * its {@link Jit} is open. Safe to call from several threads if the function itself is.
 */
public final class JitFunction {
  private final Jit jit;
  private final Signature sig;
  private final long trampolineAddress;
  private final long address;
  private final MethodHandle handle;

  JitFunction(Jit jit, Signature sig, long trampolineAddress, long address, MethodHandle handle) {
    this.jit = jit;
    this.sig = sig;
    this.trampolineAddress = trampolineAddress;
    this.address = address;
    this.handle = handle;
  }

  public String name() { return sig.name(); }

  public JitType returnType() { return sig.returnType(); }

  public List<JitType> paramTypes() { return sig.paramTypes(); }

  public int paramCount() { return sig.paramTypes().size(); }

  /**
   * Bytes between two arguments in the memory {@link #invoke} reads: {@link Jit#ARG_SLOT}, or more
   * when a parameter is larger than that (e.g. {@code <256 x double>}).
   */
  public long slotSize() { return sig.slotSize(); }

  /** Bytes {@link #invoke} reads from {@code args}: {@code paramCount() * slotSize()}. */
  public long argsSize() { return sig.argsSize(); }

  /** Bytes {@link #invoke} writes to {@code result} (0 for void). */
  public long resultSize() { return sig.returnType().size(); }

  /** The native address of the function itself. */
  public long address() { return address; }

  /** The native address of its trampoline. */
  public long trampolineAddress() { return trampolineAddress; }

  /**
   * Calls the function: arguments are read from {@code args}, the result is written to {@code result}.
   * Both must be native segments at least {@link #argsSize()} / {@link #resultSize()} long ({@code
   * MemorySegment.NULL} is fine where that size is 0).
   */
  public void invoke(MemorySegment args, MemorySegment result) {
    jit.checkOpen();
    if (argsSize() > 0 && (!args.isNative() || args.byteSize() < argsSize())) {
      throw new IllegalArgumentException("@" + name() + ": argument memory must be a native segment of at least "
          + argsSize() + " bytes, got " + args);
    }
    if (resultSize() > 0 && (!result.isNative() || result.byteSize() < resultSize())) {
      throw new IllegalArgumentException("@" + name() + ": result memory must be a native segment of at least "
          + resultSize() + " bytes, got " + result);
    }
    try {
      handle.invokeExact(args, result);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Convenience call with Java values (see {@link JitType#write} for what each type accepts, and
   * {@link JitType#read} for what comes back). Allocates temporary memory per call: use {@link
   * #invoke} in hot loops.
   */
  public Object call(Object... args) {
    if (args.length != paramCount()) {
      throw new IllegalArgumentException("@" + name() + " takes " + paramCount() + " arguments " + paramTypes() + ", got " + args.length);
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment a = arena.allocate(Math.max(1, argsSize()), 64);
      MemorySegment r = arena.allocate(Math.max(1, resultSize()), 64);
      for (int i = 0; i < args.length; i++) {
        try {
          paramTypes().get(i).write(a, (long) i * slotSize(), args[i]);
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("@" + name() + " argument #" + i + " (" + paramTypes().get(i) + "): " + e.getMessage(), e);
        }
      }
      invoke(a, r);
      return returnType().read(r, 0);
    }
  }

  @Override public String toString() {
    return returnType() + " @" + name() + paramTypes().toString().replace('[', '(').replace(']', ')');
  }
}
