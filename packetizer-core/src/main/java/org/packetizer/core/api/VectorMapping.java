package org.packetizer.core.api;

import java.util.List;
import java.util.Optional;

/**
 * A user-supplied packet version of a scalar function (thesis 4.5.2): calls to {@code scalarName}
 * in code being packetized at {@code width} call {@code vectorName} instead.
 *
 * @param scalarName   the scalar function called in the code
 * @param vectorName   its packet version, declared or defined in the module
 * @param width        the width it was written for
 * @param maskPosition the index of its {@code <W x i1>} mask parameter, if it takes one (then it is
 *                     called with the current block mask and may run under divergent control)
 * @param argKinds     the kind of each scalar argument in the packet version (varying arguments
 *                     are passed as packets; uniform ones as scalars); empty = all varying
 */
public record VectorMapping(String scalarName, String vectorName, int width, Optional<Integer> maskPosition,
    List<ParamKind> argKinds) {
  public VectorMapping {
    argKinds = List.copyOf(argKinds);
  }

  public static VectorMapping of(String scalar, String vector, int width) {
    return new VectorMapping(scalar, vector, width, Optional.empty(), List.of());
  }

  public static VectorMapping masked(String scalar, String vector, int width, int maskPosition) {
    return new VectorMapping(scalar, vector, width, Optional.of(maskPosition), List.of());
  }
}
