package org.packetizer.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;

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
 * nothing gets the options' target where it carries none ({@link #mark}). A name given only as a CPU keeps the
 * function's feature string (LLVM adds the CPU's features to it), as the command does.
 */
final class RunTarget {
  private RunTarget() {}

  /** A function's own {@code target-cpu} and {@code target-features} before the run. */
  record Saved(Optional<String> cpu, Optional<String> features) {}

  /**
   * Gives every defined function of {@code module} the options' CPU and features (those the options name); returns what
   * each had (empty when the options name neither: nothing changed).
   */
  static Map<String, Saved> retarget(LlvmModule module, PacketizerOptions options) {
    Optional<String> cpu = options.targetCpu().filter(c -> !c.isBlank());
    Optional<String> features = options.targetFeatures().filter(c -> !c.isBlank());
    if (cpu.isEmpty() && features.isEmpty()) return Map.of();
    Map<String, Saved> saved = new LinkedHashMap<>();
    for (Function f : module.functions()) {
      if (f.isDeclaration()) continue;
      saved.put(f.name(), new Saved(f.stringAttribute("target-cpu"), f.stringAttribute("target-features")));
      cpu.ifPresent(c -> f.setStringAttribute("target-cpu", c));
      features.ifPresent(t -> f.setStringAttribute("target-features", t));
    }
    return saved;
  }

  /** Gives the functions of {@code saved} (those still in {@code module}) their own attributes back. */
  static void restore(LlvmModule module, Map<String, Saved> saved) {
    for (Map.Entry<String, Saved> e : saved.entrySet()) {
      module.function(e.getKey()).ifPresent(f -> {
        Saved s = e.getValue();
        if (s.cpu().isPresent()) f.setStringAttribute("target-cpu", s.cpu().get());
        else f.removeStringAttribute("target-cpu");
        if (s.features().isPresent()) f.setStringAttribute("target-features", s.features().get());
        else f.removeStringAttribute("target-features");
      });
    }
  }

  /** The options' CPU and features on {@code made} (a function the run made) where it carries none of its own. */
  static void mark(Function made, PacketizerOptions options) {
    options.targetCpu().filter(c -> !c.isBlank())
        .ifPresent(c -> { if (made.stringAttribute("target-cpu").isEmpty()) made.setStringAttribute("target-cpu", c); });
    options.targetFeatures().filter(c -> !c.isBlank())
        .ifPresent(t -> { if (made.stringAttribute("target-features").isEmpty()) made.setStringAttribute("target-features", t); });
  }
}
