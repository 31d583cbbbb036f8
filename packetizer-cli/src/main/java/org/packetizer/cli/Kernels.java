package org.packetizer.cli;

import static org.bytedeco.llvm.global.LLVM.LLVMGetSourceFileName;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.SizeTPointer;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.Manifest;

/** The bundled kernels (testdata-bitcode's manifest) as the command sees them. */
final class Kernels {
  private Kernels() {}

  private static volatile Manifest manifest;
  private static volatile String loadError;

  /** The manifest, or empty when the testdata jar is not on the class path. */
  static Optional<Manifest> manifest() {
    Manifest m = manifest;
    if (m != null || loadError != null) return Optional.ofNullable(m);
    synchronized (Kernels.class) {
      if (manifest == null && loadError == null) {
        try {
          manifest = Manifest.load();
        } catch (RuntimeException e) {
          loadError = e.getMessage();
        }
      }
      return Optional.ofNullable(manifest);
    }
  }

  static Manifest requireManifest() {
    return manifest().orElseThrow(() -> new CliException(ExitCodes.INTERNAL,
        "the bundled kernels are not available: " + loadError));
  }

  /**
   * The manifest entry describing {@code scalar} when the input is one of the bundled kernels: the
   * same bitcode bytes, or (e.g. after llvm-dis or re-optimisation) the same source file name,
   * function name and parameter types.
   */
  static Optional<Manifest.Entry> match(byte[] input, LlvmModule module, Function scalar) {
    Optional<Manifest> man = manifest();
    if (man.isEmpty()) return Optional.empty();
    List<Manifest.Entry> byName = man.get().kernels().stream().filter(e -> e.function().equals(scalar.name())).toList();
    if (byName.isEmpty()) return Optional.empty();
    String source = sourceFileName(module);
    for (Manifest.Entry e : byName) {
      boolean sameFile;
      try {
        sameFile = Arrays.equals(man.get().bitcode(e), input) || source.equals(e.file()) || source.endsWith("/" + e.file());
      } catch (RuntimeException ex) {
        sameFile = false;
      }
      if (sameFile && sameParams(e, scalar)) return Optional.of(e);
    }
    return Optional.empty();
  }

  private static boolean sameParams(Manifest.Entry e, Function f) {
    List<Value> ps = f.params();
    if (ps.size() != e.params().size()) return false;
    for (int i = 0; i < ps.size(); i++) {
      if (!ps.get(i).type().toString().equals(e.params().get(i).type())) return false;
    }
    return true;
  }

  static String sourceFileName(LlvmModule m) {
    try (SizeTPointer len = new SizeTPointer(1)) {
      BytePointer p = LLVMGetSourceFileName(m.ref(), len);
      return p == null || p.isNull() ? "" : p.getString();
    }
  }
}
