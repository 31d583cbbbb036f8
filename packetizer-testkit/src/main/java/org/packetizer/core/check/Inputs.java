package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One run's inputs, one entry per {@link ParamSpec} (packet parameter order):
 *
 * <ul>
 *   <li>VARYING: an {@code Object[]} (or List, or primitive array) of W lane values;
 *   <li>UNIFORM: the value; LINEAR: the base value;
 *   <li>MASK: a {@code boolean[]} of W active flags;
 *   <li>pointer kinds: null (contents come from the buffer's initializer, seeded by {@code bufferSeed}).
 * </ul>
 *
 * Values are Numbers (any boxed type, converted to the parameter type) or Booleans for {@code i1}.
 */
public record Inputs(List<Object> args, long bufferSeed) {
  public Inputs {
    args = Collections.unmodifiableList(new ArrayList<>(args));
  }

  public static Inputs of(long bufferSeed, Object... args) { return new Inputs(Arrays.asList(args), bufferSeed); }

  @Override public String toString() {
    StringBuilder sb = new StringBuilder("Inputs[");
    for (int i = 0; i < args.size(); i++) {
      Object a = args.get(i);
      sb.append(i == 0 ? "" : ", ");
      if (a == null) sb.append("buffer");
      else if (a instanceof Object[] arr) sb.append(Arrays.deepToString(arr));
      else if (a instanceof boolean[] m) sb.append(Arrays.toString(m));
      else if (a.getClass().isArray()) sb.append(Arrays.deepToString(new Object[] {a}).replaceAll("^\\[|\\]$", ""));
      else sb.append(a);
    }
    return sb.append(", bufferSeed=").append(bufferSeed).append(']').toString();
  }
}
