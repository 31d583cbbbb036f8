package org.packetizer.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * What the command needs to know about the terminal: whether a standard stream is one (progress bars
 * only on a terminal, never in pipes or CI) and how wide it is (side-by-side IR in the demo).
 *
 * <p>Uses {@code isatty} and {@code ioctl(TIOCGWINSZ)} from the C library through the FFM linker;
 * when those are not available it falls back to {@link System#console()} and {@code $COLUMNS}.
 */
public final class Terminal {
  private Terminal() {}

  public static final int STDIN = 0, STDOUT = 1, STDERR = 2;

  private static final MethodHandle ISATTY;
  private static final MethodHandle IOCTL;
  private static final long TIOCGWINSZ = 0x5413; // Linux

  static {
    MethodHandle[] hs = link();
    ISATTY = hs[0];
    IOCTL = hs[1];
  }

  @SuppressWarnings("restricted")
  private static MethodHandle[] link() {
    MethodHandle isatty = null, ioctl = null;
    try {
      Linker linker = Linker.nativeLinker();
      var lookup = linker.defaultLookup();
      isatty = lookup.find("isatty").map(a -> linker.downcallHandle(a,
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))).orElse(null);
      ioctl = lookup.find("ioctl").map(a -> linker.downcallHandle(a,
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
          Linker.Option.firstVariadicArg(2))).orElse(null);
    } catch (RuntimeException | LinkageError e) {
      // no native access: fall back below
    }
    return new MethodHandle[] {isatty, ioctl};
  }

  /** Whether file descriptor {@code fd} (0, 1, 2) is a terminal. */
  public static boolean isTerminal(int fd) {
    if (ISATTY != null) {
      try {
        return (int) ISATTY.invokeExact(fd) == 1;
      } catch (Throwable e) {
        // fall through
      }
    }
    var c = System.console();
    return c != null && c.isTerminal();
  }

  /**
   * The width of the terminal in columns: {@code $COLUMNS} when set, else the size of the terminal on
   * stdout or stderr, else empty (not a terminal).
   */
  public static Optional<Integer> columns() {
    String env = System.getenv("COLUMNS");
    if (env != null) {
      try {
        int c = Integer.parseInt(env.strip());
        if (c > 0) return Optional.of(c);
      } catch (NumberFormatException e) {
        // ignore
      }
    }
    for (int fd : new int[] {STDOUT, STDERR}) {
      if (!isTerminal(fd) || IOCTL == null) continue;
      try (Arena a = Arena.ofConfined()) {
        MemorySegment ws = a.allocate(8, 8); // struct winsize { ushort rows, cols, xpixel, ypixel }
        if ((int) IOCTL.invokeExact(fd, TIOCGWINSZ, ws) == 0) {
          int cols = Short.toUnsignedInt(ws.get(ValueLayout.JAVA_SHORT, 2));
          if (cols > 0) return Optional.of(cols);
        }
      } catch (Throwable e) {
        // ignore
      }
    }
    return Optional.empty();
  }
}
