package org.packetizer.core.pipeline;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.ParamKind;

/**
 * Recursive packetization (thesis 7.2): a call to another function defined in the module gets a
 * masked packet version of that function, specialised to the call site's parameter kinds, instead of
 * W scalar calls. Versions are cached per (callee, kinds); a callee already being packetized further
 * up (mutual or self recursion) is not packetized again: that call is scalarized instead.
 */
public final class CalleePacketizer {
  /** Packetizes {@code callee} into {@code name} with the given kinds, masked; returns false on failure. */
  public interface Backend {
    void packetize(String callee, String name, List<ParamKind> kinds, CalleePacketizer nested);
  }

  private final Backend backend;
  private final Set<String> inProgress = new HashSet<>();
  private final Map<String, String> done = new HashMap<>();
  private final Map<String, String> failures = new HashMap<>();

  public CalleePacketizer(Backend backend) {
    this.backend = backend;
  }

  public void enter(String function) { inProgress.add(function); }

  public void exit(String function) { inProgress.remove(function); }

  /** Name of the packet version to call, or empty (with the reason in {@link #failure}) when there is none. */
  public Optional<String> packetVersion(String callee, List<ParamKind> kinds, int width, Function<String, Boolean> exists) {
    if (inProgress.contains(callee)) return Optional.empty();
    StringBuilder sig = new StringBuilder();
    for (ParamKind k : kinds) sig.append(k.letters());
    String name = callee + ".packet" + width + "." + (sig.length() == 0 ? "n" : sig) + ".masked";
    String key = name;
    if (done.containsKey(key)) return Optional.of(done.get(key));
    if (failures.containsKey(key)) return Optional.empty();
    if (exists.apply(name)) {
      done.put(key, name);
      return Optional.of(name);
    }
    try {
      backend.packetize(callee, name, kinds, this);
      done.put(key, name);
      return Optional.of(name);
    } catch (PacketizationException e) {
      failures.put(key, e.getMessage());
      return Optional.empty();
    }
  }

  public Optional<String> failure(String callee, List<ParamKind> kinds, int width) {
    StringBuilder sig = new StringBuilder();
    for (ParamKind k : kinds) sig.append(k.letters());
    return Optional.ofNullable(failures.get(callee + ".packet" + width + "." + (sig.length() == 0 ? "n" : sig) + ".masked"));
  }
}
