package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.VectorMapping;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * User-registered packet versions of functions (thesis 4.5.2). A mapping with a mask parameter is
 * called with the current block mask; one without is called for all lanes (inactive lanes get
 * arbitrary arguments), so it must be free of side effects for them.
 */
public final class UserMappings {
  private final List<VectorMapping> mappings;
  private final LlvmModule module;
  private final int width;
  private final String function;

  public UserMappings(List<VectorMapping> mappings, LlvmModule module, int width, String function) {
    this.mappings = mappings;
    this.module = module;
    this.width = width;
    this.function = function;
  }

  public Optional<VectorMapping> find(String scalarName) {
    for (VectorMapping m : mappings) {
      if (m.scalarName().equals(scalarName) && m.width() == width) return Optional.of(m);
    }
    return Optional.empty();
  }

  /**
   * Emits a call to the registered packet version of {@code name}, if there is one for this width.
   *
   * @param vec  gives an argument's packet value as a vector
   * @param scal gives a uniform argument's scalar value
   */
  public Optional<Value> emitMappedCall(IrBuilder b, Value call, String name, Function<Value, Value> vec,
      Function<Value, Value> scal, Value mask) {
    Optional<VectorMapping> found = find(name);
    if (found.isEmpty()) return Optional.empty();
    VectorMapping m = found.get();
    org.packetizer.core.ir.Function vf = module.function(m.vectorName()).orElseThrow(() ->
        PacketizationException.invalid(Rejection.INVALID_MAPPING, "the packet version @" + m.vectorName() + " registered for @" + name
            + " is not declared in the module", function));
    int nargs = call.numArgOperands();
    List<Value> args = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      ParamKind k = i < m.argKinds().size() ? m.argKinds().get(i) : ParamKind.VARYING;
      Value a = call.operand(i);
      args.add(k instanceof ParamKind.Uniform ? scal.apply(a) : vec.apply(a));
    }
    m.maskPosition().ifPresent(pos -> {
      if (pos < 0 || pos > args.size()) {
        throw PacketizationException.invalid(Rejection.INVALID_MAPPING, "mask position " + pos + " of @" + m.vectorName() + " is out of range", function);
      }
      args.add(pos, mask);
    });
    List<Type> expected = vf.functionType().paramTypes();
    if (expected.size() != args.size()) {
      throw PacketizationException.invalid(Rejection.INVALID_MAPPING, "@" + m.vectorName() + " takes " + expected.size() + " parameters but the call to @"
          + name + " needs " + args.size() + " (arguments" + (m.maskPosition().isPresent() ? " plus mask" : "") + ")", function);
    }
    for (int i = 0; i < args.size(); i++) {
      if (!args.get(i).type().equals(expected.get(i))) {
        throw PacketizationException.invalid(Rejection.INVALID_MAPPING, "parameter " + i + " of @" + m.vectorName() + " has type " + expected.get(i)
            + " but the packetized call passes " + args.get(i).type(), function);
      }
    }
    return Optional.of(b.call(vf, args, call.type().isVoid() ? "" : call.name()));
  }
}
