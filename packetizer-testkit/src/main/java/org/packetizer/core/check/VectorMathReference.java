package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.Libmvec;
import org.packetizer.core.mapping.MathMappings;
import org.packetizer.core.mapping.VectorMathRoutes;

/**
 * A scalar reference for packet functions that use libmvec: a copy of the scalar function in which
 * every math call that the packet function computes with a libmvec variant computes it with the very
 * same variant (the argument broadcast, lane 0 of the result). The differential check then compares
 * the packetization bit for bit; how far libmvec is from the scalar libm (glibc documents at most
 * {@value Libmvec#MAX_ULPS} ULP) is a property of the library, tested separately.
 */
public final class VectorMathReference {
  private VectorMathReference() {}

  /**
   * The scalar function a differential check should compare a packet function against: the scalar
   * function itself when math was packetized with intrinsics (bit-identical per lane), else a
   * reference copy {@code <scalar>.libmvec.ref} using the same libmvec variants the packetizer chose
   * (from the scalar function's "target-features" attribute, which the packet function inherits).
   */
  public static String referenceFor(LlvmModule m, String scalarName, int width,
      org.packetizer.core.api.PacketizerOptions.VectorMath math) {
    if (math != org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC) return scalarName;
    String refName = scalarName + ".libmvec.ref";
    if (m.function(refName).isPresent()) return refName;
    String features = m.function(scalarName).map(VectorMathRoutes::effectiveFeatures).orElse("");
    return create(m, scalarName, refName, width, features) == 0 ? scalarName : refName;
  }

  /**
   * Adds {@code refName}, a copy of {@code scalarName} using the libmvec variants chosen for width
   * {@code width} and the given target features. Returns how many calls were replaced.
   */
  public static int create(LlvmModule m, String scalarName, String refName, int width, String features) {
    Function f = m.function(scalarName).orElseThrow(() -> new IllegalArgumentException("no function @" + scalarName));
    // the vector libraries (libmvec, SLEEF) are x86-64's; other targets' packet functions use none
    if (org.packetizer.core.ir.TargetArch.of(m.targetTriple()) != org.packetizer.core.ir.TargetArch.X86) return 0;
    boolean any = false;
    for (Block bl : f.blocks()) {
      for (Value inst : bl.instructions()) {
        if (inst.opcode() == Opcode.CALL && inst.calledFunction().map(c -> MathMappings.forCallee(c.name()).isPresent()
            || VectorMathRoutes.lookup(c.name()).isPresent()).orElse(false)) {
          any = true;
        }
      }
    }
    if (!any) return 0;
    Function ref = FunctionCloner.cloneInModule(m, f, refName);
    ref.setLinkage(org.bytedeco.llvm.global.LLVM.LLVMExternalLinkage);
    int replaced = 0;
    try (IrBuilder b = new IrBuilder(m.context())) {
      for (Block bl : ref.blocks()) {
        for (Value inst : bl.instructions()) {
          if (inst.opcode() != Opcode.CALL) continue;
          Optional<Function> callee = inst.calledFunction();
          if (callee.isEmpty()) continue;
          Type t = inst.type();
          if (!(t.isFloat() || t.isDouble())) continue;
          Optional<Libmvec.Variant> v = libraryVariant(callee.get(), t.isDouble(), features, width);
          if (v.isEmpty() || v.get().arity() != inst.numArgOperands() || width % v.get().lanes() != 0) continue;
          int lanes = v.get().lanes();
          Type vt = t.vectorOf(lanes);
          List<Type> ps = new ArrayList<>();
          for (int i = 0; i < v.get().arity(); i++) ps.add(vt);
          Function vf = m.getOrInsertFunction(v.get().symbol(), m.context().functionType(vt, ps, false));
          b.before(inst);
          List<Value> args = new ArrayList<>();
          for (int i = 0; i < inst.numArgOperands(); i++) args.add(b.splat(inst.operand(i), lanes, ""));
          Value r = b.extractElement(b.call(vf, args, ""), 0, inst.name() + ".ref");
          inst.replaceAllUsesWith(r);
          inst.eraseFromParent();
          replaced++;
        }
      }
    }
    return replaced;
  }

  /** The library variant (libmvec or SLEEF) the packetizer calls for {@code callee}, if any. */
  private static Optional<Libmvec.Variant> libraryVariant(Function callee, boolean isDouble, String features, int width) {
    String name = callee.name();
    if (name.startsWith("llvm.")) {
      Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
      if (mm.isEmpty()) return Optional.empty();
      name = mm.get().intrinsic().substring("llvm.".length()) + (isDouble ? "" : "f");
    } else if (!callee.isDeclaration()) {
      return Optional.empty();
    }
    Optional<VectorMathRoutes.Call> c = VectorMathRoutes.lookup(name);
    if (c.isEmpty() || c.get().isDouble() != isDouble || c.get().function().kind() != VectorMathRoutes.Kind.LIBRARY) return Optional.empty();
    if (VectorMathRoutes.route(c.get().function(), isDouble, features, width,
        org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC) instanceof VectorMathRoutes.Route.Library lib) {
      return Optional.of(new Libmvec.Variant(lib.symbol(), lib.lanes(), lib.arity()));
    }
    return Optional.empty();
  }
}
