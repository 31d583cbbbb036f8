package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Random inputs for a {@link DifferentialCheck} from a plain {@link RandomGenerator} (for use outside
 * jqwik, e.g. the CLI's {@code --check=N}): varying parameters follow a random {@link LanePattern}
 * (all equal, all different, alternating, independent) so branches agree and diverge every way,
 * values come from each slot's {@link ValueDomain} (edges included), masks follow a random {@link
 * MaskPattern}, and each run gets a fresh buffer seed.
 */
public final class InputGenerator {
  private final List<InputSlot> slots;
  private final int width;

  public InputGenerator(List<InputSlot> slots, int width) {
    this.slots = List.copyOf(slots);
    this.width = width;
  }

  public List<InputSlot> slots() { return slots; }

  public Inputs next(RandomGenerator rnd) {
    List<Object> args = new ArrayList<>(slots.size());
    for (InputSlot s : slots) {
      if (s.kind() == ScalarKind.BYTES) {
        // a vector or aggregate by value: its fields come from the run's seed
        args.add(null);
        continue;
      }
      args.add(switch (s.spec()) {
        case ParamSpec.Varying v -> {
          LanePattern pattern = LanePattern.values()[rnd.nextInt(LanePattern.values().length)];
          yield pattern.lanes(width, () -> s.domain().sample(s.kind(), s.bits(), rnd));
        }
        case ParamSpec.Uniform u -> s.domain().sample(s.kind(), s.bits(), rnd);
        case ParamSpec.Linear l -> s.domain().sample(s.kind(), s.bits(), rnd);
        case ParamSpec.Mask m -> MaskPattern.values()[rnd.nextInt(MaskPattern.values().length)].mask(width, rnd);
        case ParamSpec.Buffer b -> null;
      });
    }
    return new Inputs(args, rnd.nextLong());
  }
}
