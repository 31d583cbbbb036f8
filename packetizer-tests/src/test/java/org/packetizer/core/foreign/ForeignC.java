package org.packetizer.core.foreign;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The foreign path: test sources under {@code foreign/} compiled by the bundled clang with plain
 * optimization levels ({@code -O1}, {@code -O2}: static helpers become {@code fastcc}, the SLP
 * vectorizer runs), not with the kernels' {@link BundledClang#KERNEL_FLAGS}.
 */
final class ForeignC {
  private ForeignC() {}

  static String text(String resource) {
    try (InputStream in = ForeignC.class.getResourceAsStream("/foreign/" + resource)) {
      if (in == null) throw new IllegalArgumentException("no test resource foreign/" + resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compiles {@code foreign/<resource>} with exactly {@code flags} (e.g. "-O2") into a module of {@code ctx}. */
  static LlvmModule compile(LlvmContext ctx, String resource, String... flags) {
    List<String> fl = new ArrayList<>(List.of(flags));
    byte[] bc = BundledClang.locate().compileToBitcode(text(resource), resource, fl);
    return ctx.load(bc, resource);
  }

  /** Parses {@code foreign/<resource>} (LLVM IR text) after replacing each {@code @KEY@} by its value. */
  static LlvmModule parseIr(LlvmContext ctx, String resource, String... keyValues) {
    String s = text(resource);
    for (int i = 0; i < keyValues.length; i += 2) s = s.replace("@" + keyValues[i] + "@", keyValues[i + 1]);
    return ctx.parseIr(s, resource);
  }
}
