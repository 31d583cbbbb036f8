package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;

/** Process-wide LLVM initialisation and small helpers for LLVM-owned strings and errors. */
public final class Llvm {
  private static volatile boolean initialized;

  private Llvm() {}

  /** Initialises the native (x86) target, asm printer and parser, and the AArch64 and RISC-V back ends, once per process. Thread-safe. */
  public static void init() {
    if (initialized) return;
    synchronized (Llvm.class) {
      if (initialized) return;
      LLVMInitializeNativeTarget();
      LLVMInitializeNativeAsmPrinter();
      LLVMInitializeNativeAsmParser();
      // the cross targets (TargetSpec, TargetMachine.create for aarch64/riscv64 triples)
      LLVMInitializeAArch64TargetInfo();
      LLVMInitializeAArch64Target();
      LLVMInitializeAArch64TargetMC();
      LLVMInitializeAArch64AsmPrinter();
      LLVMInitializeRISCVTargetInfo();
      LLVMInitializeRISCVTarget();
      LLVMInitializeRISCVTargetMC();
      LLVMInitializeRISCVAsmPrinter();
      llvmOptions(System.getProperty("packetizer.llvmOptions", ""));
      initialized = true;
    }
  }

  /**
   * Measurement knob {@code -Dpacketizer.llvmOptions="-align-loops=64 ..."}: LLVM command-line options
   * (process-wide: every module the process compiles afterwards, the JIT's too), e.g. to tell a code
   * placement effect from a code change in side-by-side benchmark runs. Empty: nothing.
   */
  private static void llvmOptions(String options) {
    String[] args = options.strip().isEmpty() ? new String[0] : options.strip().split("\\s+");
    if (args.length == 0) return;
    org.bytedeco.javacpp.PointerPointer<BytePointer> argv = new org.bytedeco.javacpp.PointerPointer<>(args.length + 1);
    argv.put(0, new BytePointer("packetizer"));
    for (int i = 0; i < args.length; i++) argv.put(i + 1, new BytePointer(args[i]));
    org.bytedeco.llvm.global.LLVM.LLVMParseCommandLineOptions(args.length + 1, argv, new BytePointer(""));
  }

  /**
   * Tells the facade that a function of {@code scalarInstructions} instructions is about to be
   * packetized. By default (auto) the facade sets up its {@code java.lang.foreign} binding of the hot
   * LLVM calls once the process has packetized {@code -Dpacketizer.ffm.after} (30,000) instructions, and
   * uses javacpp's calls before; {@code -Dpacketizer.ffm=true} sets it up at once, {@code false} never.
   */
  public static void notePacketizing(int scalarInstructions) { Ffm.noteWork(scalarInstructions); }

  /** Whether the facade calls LLVM through its {@code java.lang.foreign} binding now, or why not. */
  public static String foreignBinding() { return Ffm.status(); }

  /** Copies an LLVM-allocated message and disposes it; null gives "". */
  public static String takeMessage(BytePointer p) {
    if (p == null || p.isNull()) return "";
    try {
      return p.getString();
    } finally {
      LLVMDisposeMessage(p);
    }
  }

  /** Throws an {@link LlvmException} with the error's message when {@code err} is set; consumes it. */
  public static void check(LLVMErrorRef err, String what) {
    if (err == null || err.isNull()) return;
    BytePointer msg = LLVMGetErrorMessage(err);
    String text = msg.getString();
    LLVMDisposeErrorMessage(msg);
    throw new LlvmException(what + ": " + text);
  }

  /** The host CPU name, e.g. "znver4". */
  public static String hostCpuName() {
    return takeMessage(LLVMGetHostCPUName());
  }

  /** The host CPU feature string, e.g. "+sse2,+avx,...". */
  public static String hostCpuFeatures() {
    return takeMessage(LLVMGetHostCPUFeatures());
  }

  /** The host's default target triple. */
  public static String hostTriple() {
    return takeMessage(LLVMGetDefaultTargetTriple());
  }

  /**
   * A hash of a native address for hash maps: multiply, fold the high bits down, multiply again, fold
   * (every bit of the address reaches every bit of the hash). LLVM's objects are aligned and allocated
   * close together at regular strides: {@code Long.hashCode} of their addresses leaves the low bits zero
   * and the high half constant, and a single multiplication's high half still left regular strides
   * (64, 128, 4096 bytes) crowding HashMap bins of 9–12 entries, which HashMap turns into trees
   * ({@code HashMap$TreeNode} was 6 % of the CPU samples of a 20k-instruction packetization).
   */
  public static int addressHash(long address) {
    return Long.hashCode(addressKey(address));
  }

  /**
   * The same mixing as a 64-bit map key: a bijection (odd multiplications and a xor-shift can be
   * undone), so two addresses never share a key, and {@code Long.hashCode} of it is {@link #addressHash}.
   */
  public static long addressKey(long address) {
    long z = address * 0x9E3779B97F4A7C15L;
    z ^= z >>> 29;
    return z * 0xBF58476D1CE4E5B9L;
  }
}
