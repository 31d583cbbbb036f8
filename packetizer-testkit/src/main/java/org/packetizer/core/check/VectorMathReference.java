package org.packetizer.core.check;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
    return create(m, scalarName, refName, width, features, Set.of()) == 0 ? scalarName : refName;
  }

  /**
   * The same for the packet function {@code packetFn}: the reference calls the library variants that
   * {@code packetFn} (or a function it calls) really calls. A W-wide packet function does not always
   * call the W-wide route's variant: the LOOP wrapper's W-wide function calls an N-wide one
   * ({@code --hardware-width N}), whose math takes the N-wide route (e.g. {@code _ZGVbN4v_sinf} where
   * the 16-wide route is {@code _ZGVeN16v_sinf}), and libmvec's variants of one function differ from
   * each other in the last bits. For each math call the reference takes the widest route of at most
   * {@code width} lanes whose variant {@code packetFn} reaches, else the {@code width} route.
   */
  public static String referenceFor(LlvmModule m, String scalarName, String packetFn, int width,
      org.packetizer.core.api.PacketizerOptions.VectorMath math) {
    if (math != org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC) return scalarName;
    String refName = scalarName + ".libmvec.ref." + packetFn;
    if (m.function(refName).isPresent()) return refName;
    String features = m.function(scalarName).map(VectorMathRoutes::effectiveFeatures).orElse("");
    return create(m, scalarName, refName, width, features, librarySymbolsReached(m, packetFn)) == 0 ? scalarName : refName;
  }

  /** The vector library symbols ({@code _ZGV...}, {@code Sleef_...}) that {@code fn} or a function it calls calls. */
  public static Set<String> librarySymbolsReached(LlvmModule m, String fn) {
    Set<String> symbols = new HashSet<>();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> work = new ArrayDeque<>(List.of(fn));
    while (!work.isEmpty()) {
      String name = work.poll();
      if (!seen.add(name)) continue;
      Optional<Function> f = m.function(name);
      if (f.isEmpty() || f.get().isDeclaration()) continue;
      for (Block bl : f.get().blocks()) {
        for (Value inst : bl.instructions()) {
          if (inst.opcode() != Opcode.CALL) continue;
          Optional<Function> callee = inst.calledFunction();
          if (callee.isEmpty()) continue;
          String c = callee.get().name();
          if (c.startsWith("_ZGV") || c.startsWith("Sleef_")) symbols.add(c);
          else work.add(c);
        }
      }
    }
    return symbols;
  }

  /**
   * Adds {@code refName}, a copy of {@code scalarName} using the libmvec variants chosen for width
   * {@code width} and the given target features. Returns how many calls were replaced.
   */
  public static int create(LlvmModule m, String scalarName, String refName, int width, String features) {
    return create(m, scalarName, refName, width, features, Set.of());
  }

  /**
   * The same, preferring for each call the widest variant of at most {@code width} lanes that is in
   * {@code reached} (the symbols the packet function calls; empty: the {@code width} route's).
   */
  public static int create(LlvmModule m, String scalarName, String refName, int width, String features,
      Set<String> reached) {
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
          Optional<Libmvec.Variant> v = Optional.empty();
          for (int w = width; w >= 1 && v.isEmpty() && !reached.isEmpty(); w /= 2) {
            v = libraryVariant(callee.get(), t.isDouble(), features, w).filter(x -> reached.contains(x.symbol()));
          }
          if (v.isEmpty()) v = libraryVariant(callee.get(), t.isDouble(), features, width);
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
