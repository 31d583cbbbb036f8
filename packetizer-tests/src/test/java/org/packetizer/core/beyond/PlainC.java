package org.packetizer.core.beyond;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The foreign path: compiles a C test resource under {@code beyond/} with the bundled clang and plain
 * {@code -O1} or {@code -O2} — clang's default pipeline, not the kernels' flags (no
 * {@code -fno-vectorize}, no {@code -fno-discard-value-names}) — so the packetizer meets code as a user
 * gets it. {@code -nostdlibinc}: only clang's own headers (stdarg.h, stdatomic.h), no system headers.
 */
final class PlainC {
  /** The differential cases of the foreign-code tests: (W, CPU, clang level) over W 4, 8, 16, x86-64-v2, haswell, znver4, -O1, -O2. */
  static Stream<Arguments> widthCpuOptCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String cpu : new String[] {"x86-64-v2", "haswell", "znver4"}) for (String o : new String[] {"-O1", "-O2"}) {
      out.add(Arguments.of(w, cpu, o));
    }
    return out.stream();
  }

  private PlainC() {}

  static LlvmModule compile(LlvmContext ctx, String resource, String optLevel, String... extraFlags) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-plainc-");
      Files.writeString(dir.resolve(resource), CSources.text(resource));
      List<String> flags = new ArrayList<>(List.of(optLevel, "-nostdlibinc"));
      flags.addAll(List.of(extraFlags));
      BundledClang.locate().compileToBitcode(dir, Path.of(resource), Path.of("out.bc"), flags);
      return ctx.load(Files.readAllBytes(dir.resolve("out.bc")), resource);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) {
        try (Stream<Path> s = Files.walk(dir)) {
          s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
          // a temporary folder
        }
      }
    }
  }
}
