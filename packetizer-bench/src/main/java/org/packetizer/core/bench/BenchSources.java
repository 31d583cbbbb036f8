package org.packetizer.core.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.packetizer.core.toolchain.Manifest;

/**
 * A temporary folder holding the kernels' C sources (from the testdata jar on the class path) where
 * the generated drivers are compiled: the driver sits at the root and includes the kernel's file by
 * its manifest path, which in turn includes {@code ../kernel.h}.
 */
final class BenchSources implements AutoCloseable {
  private final Path dir;
  private final Set<String> extracted = new HashSet<>();

  BenchSources() {
    try {
      dir = Files.createTempDirectory("packetizer-bench-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary folder for the benchmark drivers", e);
    }
    extract("kernel.h");
  }

  Path dir() { return dir; }

  /** Makes sure the entry's C file is in the folder. */
  void require(Manifest.Entry e) { extract(e.file()); }

  private void extract(String rel) {
    if (!extracted.add(rel)) return;
    String name = Manifest.RESOURCE_ROOT + "c/" + rel;
    ClassLoader cl = Objects.requireNonNullElse(Thread.currentThread().getContextClassLoader(), BenchSources.class.getClassLoader());
    try (InputStream in = cl.getResourceAsStream(name)) {
      if (in == null) throw new UncheckedIOException(new IOException("class-path resource " + name + " not found"));
      Path out = dir.resolve(rel);
      Files.createDirectories(out.getParent());
      Files.write(out, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + name, e);
    }
  }

  /** Writes a file (a generated driver) into the folder. */
  Path write(String rel, String text) {
    try {
      Path out = dir.resolve(rel);
      Files.writeString(out, text);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + rel, e);
    }
  }

  @Override
  public void close() {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException e) {
      // best effort
    }
  }
}
