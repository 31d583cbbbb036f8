package org.packetizer.cli;

import java.util.Locale;
import org.packetizer.core.api.WrapperMode;

/**
 * The one place that knows how command-line options become core API options ({@link Settings#options}
 * applies them):
 *
 * <ul>
 *   <li>{@code --wrapper auto|loop|direct} is {@code PacketizerOptions.wrapperMode}; without it,
 *       {@code --hardware-width N} means LOOP (the N-wide function and the W-wide wrapper, thesis 4.6)
 *       and no hardware width means the API's default, AUTO;
 *   <li>{@code --hardware-width N} is {@code PacketizerOptions.hardwareWidth(N)}; without it the core
 *       detects N from {@code --target-cpu}/{@code --target-features} (which are also passed on), the
 *       function's or module's attributes, or the host ({@code core.wrapper.HardwareWidth});
 *   <li>{@code --vector-abi} is {@code PacketizerOptions.vectorAbi(true)}; a {@code -f SCALAR} without
 *       a SIMD name then passes no name, and the core names the packet function {@code _ZGV...}.
 * </ul>
 *
 * ({@code --target-cpu} and {@code --target-features} are also applied by the command itself: they
 * become the packet function's {@code target-cpu} / {@code target-features} attributes and the JIT
 * target of {@code --check}.)
 */
final class OptionsBridge {
  private OptionsBridge() {}

  /**
   * The wrapper mode for {@code --wrapper value} (null: not given) and {@code --hardware-width}
   * (null: not given).
   *
   * @throws CliException (usage) for a value other than auto, loop or direct
   */
  static WrapperMode wrapperMode(String value, Integer hardwareWidth) {
    if (value == null) return hardwareWidth != null ? WrapperMode.LOOP : WrapperMode.AUTO;
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "auto" -> WrapperMode.AUTO;
      case "loop" -> WrapperMode.LOOP;
      case "direct" -> WrapperMode.DIRECT;
      default -> throw CliException.usage("--wrapper " + value + ": expected auto, loop or direct");
    };
  }
}
