package org.packetizer.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.mapping.SignatureAbi;

/**
 * The one rule for a CPU or features named in the API's options ({@link PacketizerOptions#targetCpu()} /
 * {@link PacketizerOptions#targetFeatures()}) against the functions' {@code "target-cpu"} / {@code "target-features"}
 * attributes (issue 16, nineteenth round): the functions a run MAKES (the packet function, its helpers, the drivers)
 * carry the options' target, so every decision of the run and LLVM's code generation agree, as the command's
 * {@code --target-cpu} / {@code --target-features} (which retarget the whole module) already did. The user's functions
 * keep their own attributes.
 *
 * <p>How: during a top-level run every defined function of the module carries the options' target ({@link #retarget}):
 * the decisions that read a function's attributes (rounded conversions, the vector-math routes, mask registers, the
 * hardware width) then read what the options name, and what the run clones from the scalar function inherits it.
 * Afterwards the user's functions get their own attributes back ({@link #restore}); a function the run made from
 * nothing gets the options' target where it carries none ({@link #mark}). A vector-function-ABI name spelling another
 * ISA than the scalar function's is the second step of the same rule: on top of the options' target, every defined
 * function carries that ISA's features during the run (the variant is emitted for its ISA from the start: vector math
 * variants, the hardware width, nested packet versions of callees), given back by the same restore. A name given only as a CPU keeps the
 * function's feature string (LLVM adds the CPU's features to it), as the command does. A named CPU also drops the
 * functions' {@code "tune-cpu"} (clang writes {@code "generic"} for bitcode compiled without {@code -march}), so that
 * LLVM tunes for the CPU, as {@code clang -march=CPU} does.
 */
final class RunTarget {
  private RunTarget() {}

  /** A function's own {@code target-cpu}, {@code target-features} and {@code tune-cpu} before the run. */
  record Saved(Optional<String> cpu, Optional<String> features, Optional<String> tune) {}

  /**
   * What a top-level run changed on the module's defined functions, for {@link #restore}: each function's own
   * attributes ({@code own}, by name), whether the options named a target ({@code options}: all three attributes are
   * given back) and whether a vector-function-ABI ISA was put on top ({@code isa}: the features are).
   */
  record State(Map<String, Saved> own, boolean options, boolean isa) {
    static final State NONE = new State(Map.of(), false, false);

    /**
     * {@code name}'s own attributes when the options named a target (those the run's functions are compared with,
     * {@link #keepContraction}); null otherwise (nothing was retargeted for the options).
     */
    Saved optionsOwn(String name) {
      return options ? own.get(name) : null;
    }
  }

  /**
   * The target of a top-level run, in this order: every defined function of {@code module} gets the options' CPU and
   * features (those the options name); then, under {@link PacketizerOptions#vectorAbi} (fixed-width), when
   * {@code simdName} is a vector-function-ABI name for {@code scalarName} spelling another ISA than the scalar
   * function's (decided on the attributes as the first step left them: {@link Publication#switchedIsa}), every defined
   * function gets that ISA's features on top of its feature string. Returns what each had before either step
   * ({@link State#NONE} when nothing changed).
   */
  static State retarget(LlvmModule module, PacketizerOptions options, String scalarName, String simdName) {
    Optional<String> cpu = options.targetCpu().filter(c -> !c.isBlank());
    Optional<String> features = options.targetFeatures().filter(c -> !c.isBlank());
    boolean byOptions = cpu.isPresent() || features.isPresent();
    Map<String, Saved> saved = new LinkedHashMap<>();
    for (Function f : module.functions()) {
      if (f.isDeclaration()) continue;
      saved.put(f.name(), new Saved(f.stringAttribute("target-cpu"), f.stringAttribute("target-features"),
          f.stringAttribute("tune-cpu")));
      cpu.ifPresent(c -> {
        f.setStringAttribute("target-cpu", c);
        // (tuned for the named CPU, as clang -march=CPU tunes: clang's "tune-cpu"="generic" of generic bitcode would
        // keep LLVM's generic tuning, under which, e.g., AVX2 gathers are expanded lane by lane even for a CPU with
        // fast ones)
        f.removeStringAttribute("tune-cpu");
      });
      features.ifPresent(t -> f.setStringAttribute("target-features", t));
    }
    Optional<Character> abiIsa = options.vectorAbi() && !options.scalable()
        ? Publication.switchedIsa(module, scalarName, simdName) : Optional.empty();
    abiIsa.ifPresent(letter -> {
      for (Function f : module.functions()) {
        if (!f.isDeclaration()) {
          f.setStringAttribute("target-features", SignatureAbi.isaFeatures(letter, f.stringAttribute("target-features").orElse("")));
        }
      }
    });
    if (!byOptions && abiIsa.isEmpty()) return State.NONE;
    return new State(saved, byOptions, abiIsa.isPresent());
  }

  /**
   * Gives the functions of {@code state} (those still in {@code module}) their own attributes back: all three where the
   * options named a target, the features where only an ABI ISA was put on.
   */
  static void restore(LlvmModule module, State state) {
    if (!state.options() && !state.isa()) return;
    for (Map.Entry<String, Saved> e : state.own().entrySet()) {
      module.function(e.getKey()).ifPresent(f -> {
        Saved s = e.getValue();
        if (state.options()) {
          restore(f, "target-cpu", s.cpu());
          restore(f, "tune-cpu", s.tune());
        }
        restore(f, "target-features", s.features());
      });
    }
  }

  private static void restore(Function f, String attribute, Optional<String> own) {
    if (own.isPresent()) f.setStringAttribute(attribute, own.get());
    else f.removeStringAttribute(attribute);
  }

  /**
   * Whether x86 code for {@code cpu} / {@code features} has FMA, so that LLVM fuses an {@code llvm.fmuladd} (the CPU's
   * implied features plus the string, {@link org.packetizer.core.mapping.VectorMathRoutes#effectiveFeatures(String, String)}).
   */
  static boolean fma(String cpu, String features) {
    String f = "," + org.packetizer.core.mapping.VectorMathRoutes.effectiveFeatures(cpu, features) + ",";
    return f.contains(",+fma,") && !f.contains(",-fma,");
  }

  /**
   * Keeps the scalar function's rounding in a function the run made for another target: {@code llvm.fmuladd} is fused
   * or not by the target LLVM compiles it for (C's default contraction, clang {@code -ffp-contract=on}), so a packet
   * function carrying an FMA CPU named in the options would round differently from the user's scalar function compiled
   * for its own target without FMA. Where the two differ, each {@code llvm.fmuladd} of {@code made} becomes what the
   * scalar function's target does: an {@code fmul} and an {@code fadd} (scalar target without FMA), or {@code llvm.fma}
   * (with FMA). Returns how many were rewritten.
   */
  static int keepContraction(Function made, boolean scalarFma) {
    if (fma(made.stringAttribute("target-cpu").orElse(""), made.stringAttribute("target-features").orElse("")) == scalarFma) {
      return 0;
    }
    java.util.List<org.packetizer.core.ir.Value> calls = new java.util.ArrayList<>();
    for (org.packetizer.core.ir.Block b : made.blocks()) {
      for (org.packetizer.core.ir.Value v : b.instructions()) {
        if (v.opcode() == org.packetizer.core.ir.Opcode.CALL
            && v.calledFunction().map(c -> c.name().startsWith("llvm.fmuladd.")).orElse(false)) {
          calls.add(v);
        }
      }
    }
    if (calls.isEmpty()) return 0;
    try (org.packetizer.core.ir.IrBuilder b = new org.packetizer.core.ir.IrBuilder(made.functionType().context())) {
      for (org.packetizer.core.ir.Value call : calls) {
        b.before(call);
        org.packetizer.core.ir.Value r;
        if (scalarFma) {
          Function fmaFn = made.module().intrinsic("llvm.fma", call.type());
          r = b.call(fmaFn, java.util.List.of(call.operand(0), call.operand(1), call.operand(2)), "fused");
        } else {
          org.packetizer.core.ir.Value product = b.fmul(call.operand(0), call.operand(1), "product");
          r = b.fadd(product, call.operand(2), "sum");
        }
        call.replaceAllUsesWith(r);
        call.eraseFromParent();
      }
    }
    return calls.size();
  }

  /** The options' CPU and features on {@code made} (a function the run made) where it carries none of its own. */
  static void mark(Function made, PacketizerOptions options) {
    options.targetCpu().filter(c -> !c.isBlank())
        .ifPresent(c -> { if (made.stringAttribute("target-cpu").isEmpty()) made.setStringAttribute("target-cpu", c); });
    options.targetFeatures().filter(c -> !c.isBlank())
        .ifPresent(t -> { if (made.stringAttribute("target-features").isEmpty()) made.setStringAttribute("target-features", t); });
  }
}
