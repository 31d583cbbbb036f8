package org.packetizer.core.pipeline;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.MathMappings;

/**
 * Which calls are free of side effects and depend only on their arguments: math intrinsics and libm
 * functions (the packetizer treats libm as not setting errno, like a vectorizing compiler with
 * -fno-math-errno), and functions marked {@code memory(none)} that will return and not unwind.
 */
public final class PureCalls implements Predicate<Value> {
  @Override
  public boolean test(Value call) {
    Optional<Function> f = call.calledFunction();
    if (f.isEmpty()) return false;
    String name = f.get().name();
    if (MathMappings.forCallee(name).isPresent()) return true;
    if (f.get().isDeclaration() && org.packetizer.core.mapping.VectorMathRoutes.isPureVectorizable(name)) return true;
    if (name.startsWith("llvm.") && MathMappings.isDroppable(name)) return true;
    long mem = f.get().memoryEffects();
    boolean readNone = mem == 0;
    return readNone && f.get().hasEnumAttribute("willreturn") && f.get().hasEnumAttribute("nounwind");
  }

  /**
   * Intrinsics (name prefixes) that write no memory (MemoryWidener's byte windows, ScalarLanes' test
   * that a function only reads memory).
   */
  public static final List<String> READ_ONLY_INTRINSICS = List.of("llvm.umin.", "llvm.umax.", "llvm.smin.", "llvm.smax.",
      "llvm.abs.", "llvm.ctpop.", "llvm.ctlz.", "llvm.cttz.", "llvm.bswap.", "llvm.bitreverse.", "llvm.fshl.", "llvm.fshr.",
      "llvm.sadd.with.overflow.", "llvm.uadd.with.overflow.", "llvm.ssub.with.overflow.", "llvm.usub.with.overflow.",
      "llvm.smul.with.overflow.", "llvm.umul.with.overflow.", "llvm.assume", "llvm.expect.", "llvm.lifetime.",
      "llvm.fabs.", "llvm.fma.", "llvm.fmuladd.", "llvm.minnum.", "llvm.maxnum.", "llvm.sqrt.", "llvm.floor.", "llvm.ceil.",
      "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.copysign.");

  /** Whether {@code name} is an intrinsic of {@link #READ_ONLY_INTRINSICS}. */
  public static boolean readOnlyIntrinsic(String name) {
    return name.startsWith("llvm.") && READ_ONLY_INTRINSICS.stream().anyMatch(name::startsWith);
  }
}
