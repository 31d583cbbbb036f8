package org.packetizer.core.jit;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMAttributeRef;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

/**
 * What a trampoline needs to call a JIT-defined function with its exact prototype, recorded from the
 * JIT's copy of the module (so it survives the module being handed to ORC): types, calling
 * convention, the ABI-relevant parameter and return attributes, and the function's target attributes
 * (a caller compiled for other features, or another {@code min-legal-vector-width}, than the callee
 * could pass vectors in other registers). {@code vscale_range} is one of them on RISC-V V: LLVM passes
 * a fixed-length vector argument in a register group sized from the function's minimum VLEN (its
 * {@code vscale_range} minimum × 64), so a caller that assumes VLEN 128 passes a {@code <16 x float>}
 * in four registers where a callee with {@code vscale_range(4,4)} (VLEN 256) reads two.
 */
record Signature(
    String name,
    JitType returnType,
    List<JitType> paramTypes,
    int callingConvention,
    List<String> returnAttributes,
    List<List<String>> paramAttributes,
    String targetCpu,
    String targetFeatures,
    String minLegalVectorWidth,
    long vscaleRange) {

  /** Enum attributes that change how a value is passed; copied to the trampoline's declaration and call. */
  static final List<String> ABI_ATTRIBUTES = List.of("signext", "zeroext", "inreg");

  /** Attributes that would need the pointee type or a copy; not supported across the trampoline. */
  private static final Set<String> UNSUPPORTED_ATTRIBUTES = Set.of("byval", "sret", "inalloca", "preallocated", "byref", "swiftself", "swifterror");

  Signature {
    paramTypes = List.copyOf(paramTypes);
    returnAttributes = List.copyOf(returnAttributes);
    paramAttributes = paramAttributes.stream().map(List::copyOf).toList();
  }

  /**
   * Reads the signature of {@code f}, with layouts from {@code layout}.
   *
   * @throws UnsupportedOperationException saying why the function cannot be called through a trampoline
   */
  static Signature of(Function f, LlvmModule layout) {
    if (f.isVarArg()) throw new UnsupportedOperationException("it is variadic");
    JitType ret;
    try {
      ret = JitType.of(f.returnType(), layout);
    } catch (UnsupportedOperationException e) {
      throw new UnsupportedOperationException("its return " + e.getMessage() + " cannot cross the trampoline");
    }
    List<JitType> params = new ArrayList<>();
    List<List<String>> pattrs = new ArrayList<>();
    for (int i = 0; i < f.paramCount(); i++) {
      JitType p;
      try {
        p = JitType.of(f.param(i).type(), layout);
      } catch (UnsupportedOperationException e) {
        throw new UnsupportedOperationException("its parameter #" + i + " " + e.getMessage() + " cannot cross the trampoline");
      }
      for (String bad : UNSUPPORTED_ATTRIBUTES) {
        if (hasAttribute(f, i + 1, bad)) throw new UnsupportedOperationException("its parameter #" + i + " is " + bad);
      }
      params.add(p);
      pattrs.add(abiAttributes(f, i + 1));
    }
    return new Signature(f.name(), ret, params, f.callingConvention(), abiAttributes(f, LLVMAttributeReturnIndex),
        pattrs, f.stringAttribute("target-cpu").orElse(null), f.stringAttribute("target-features").orElse(null),
        f.stringAttribute("min-legal-vector-width").orElse(null), f.enumAttributeValue("vscale_range").orElse(0L));
  }

  private static List<String> abiAttributes(Function f, int index) {
    List<String> out = new ArrayList<>();
    for (String a : ABI_ATTRIBUTES) if (hasAttribute(f, index, a)) out.add(a);
    return out;
  }

  private static boolean hasAttribute(Function f, int index, String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) return false;
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f.ref(), index, kind);
    return a != null && !a.isNull();
  }

  /**
   * Bytes per argument slot: {@link Jit#ARG_SLOT}, or the largest parameter rounded up to 64 bytes when
   * one is larger (a {@code <256 x double>} takes 2 KB).
   */
  long slotSize() {
    long max = Jit.ARG_SLOT;
    for (JitType p : paramTypes) max = Math.max(max, (p.size() + 63) / 64 * 64);
    return max;
  }

  /** Bytes of argument memory {@code invoke} needs. */
  long argsSize() { return (long) paramTypes.size() * slotSize(); }
}
