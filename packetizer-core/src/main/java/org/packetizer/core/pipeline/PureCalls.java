package org.packetizer.core.pipeline;

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
}
