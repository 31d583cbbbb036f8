package org.packetizer.core.beyond;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Compiles the C sources of these tests (test resources under {@code beyond/}) with the bundled
 * clang and {@link BundledClang#KERNEL_FLAGS}, with the shipped SPMD header on the include path.
 */
final class CSources {
  private CSources() {}

  static String text(String resource) {
    try (InputStream in = CSources.class.getResourceAsStream("/beyond/" + resource)) {
      if (in == null) throw new IllegalArgumentException("no test resource beyond/" + resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compiles {@code beyond/<resource>} into a module of {@code ctx}; {@code extraFlags} e.g. "-mavx2". */
  static LlvmModule compile(LlvmContext ctx, String resource, String... extraFlags) {
    return compileText(ctx, resource, text(resource), extraFlags);
  }

  /** Compiles C text (written to {@code fileName} next to the SPMD header). */
  static LlvmModule compileText(LlvmContext ctx, String fileName, String source, String... extraFlags) {
    String resource = fileName;
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetizer-beyond-");
      Files.writeString(dir.resolve(resource), source);
      Files.writeString(dir.resolve(SpmdIntrinsics.HEADER_NAME), SpmdIntrinsics.header());
      List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
      flags.add("-I.");
      flags.addAll(List.of(extraFlags));
      BundledClang.locate().compileToBitcode(dir, Path.of(resource), Path.of("out.bc"), flags);
      return ctx.load(Files.readAllBytes(dir.resolve("out.bc")), resource);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) deleteRecursively(dir);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary folder
    }
  }
}
