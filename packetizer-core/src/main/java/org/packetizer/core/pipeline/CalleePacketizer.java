package org.packetizer.core.pipeline;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.ParamKind;

/**
 * Recursive packetization (thesis 7.2): a call to another function defined in the module gets a
 * masked packet version of that function, specialised to the call site's parameter kinds, instead of
 * W scalar calls. Versions are cached per (callee, kinds).
 *
 * <p>Recursion: a masked version that is still being emitted further up (self or mutual recursion)
 * is called directly — it is the packet version of the callee, only not finished yet. So a recursive
 * function calls its own packet version; a call with other kinds than the one in progress gets (and
 * makes) the version for those kinds, which terminates because there are finitely many kind lists.
 *
 * <p>When a packetization fails, everything it created is removed from the module (see
 * {@code Packetizer}); cached versions that no longer exist are made again on demand.
 */
public final class CalleePacketizer {
  /** Packetizes {@code callee} into {@code name} with the given kinds, masked; throws on failure. */
  public interface Backend {
    void packetize(String callee, String name, List<ParamKind> kinds, CalleePacketizer nested);
  }

  private final Backend backend;
  /** Masked versions being emitted: version name -> the current name of the function under construction. */
  private final Map<String, String> inProgress = new HashMap<>();
  private final Map<String, String> done = new HashMap<>();
  private final Map<String, String> failures = new HashMap<>();

  public CalleePacketizer(Backend backend) {
    this.backend = backend;
  }

  /**
   * A packetization of {@code function} starts emitting {@code packetFunction} (its current name);
   * a masked one can then be called by recursive calls with the same kinds.
   */
  public void enter(String function, List<ParamKind> kinds, int width, boolean masked, String packetFunction) {
    if (masked) inProgress.put(versionName(function, kinds, width), packetFunction);
  }

  public void exit(String function, List<ParamKind> kinds, int width, boolean masked) {
    if (masked) inProgress.remove(versionName(function, kinds, width));
  }

  /** The name under which the masked version of {@code callee} for {@code kinds} is published. */
  public static String versionName(String callee, List<ParamKind> kinds, int width) {
    StringBuilder sig = new StringBuilder();
    for (ParamKind k : kinds) sig.append(k.letters());
    return callee + ".packet" + width + "." + (sig.length() == 0 ? "n" : sig) + ".masked";
  }

  /**
   * Name of the function to call (a finished version, or one still being emitted for a recursive
   * call), or empty (with the reason in {@link #failure}) when the callee cannot be packetized.
   */
  public Optional<String> packetVersion(String callee, List<ParamKind> kinds, int width, Function<String, Boolean> exists) {
    String name = versionName(callee, kinds, width);
    String building = inProgress.get(name);
    if (building != null) return Optional.of(building);
    String cached = done.get(name);
    if (cached != null) {
      if (exists.apply(cached)) return Optional.of(cached);
      done.remove(name); // removed with a failed enclosing packetization: make it again
    }
    if (failures.containsKey(name)) return Optional.empty();
    if (exists.apply(name)) {
      done.put(name, name);
      return Optional.of(name);
    }
    try {
      backend.packetize(callee, name, kinds, this);
      done.put(name, name);
      return Optional.of(name);
    } catch (PacketizationException e) {
      failures.put(name, e.getMessage());
      return Optional.empty();
    }
  }

  public Optional<String> failure(String callee, List<ParamKind> kinds, int width) {
    return Optional.ofNullable(failures.get(versionName(callee, kinds, width)));
  }
}
