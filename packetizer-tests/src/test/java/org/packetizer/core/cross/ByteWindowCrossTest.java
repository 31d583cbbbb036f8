package org.packetizer.core.cross;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.toolchain.Manifest;

/**
 * The byte windows' reload from inside the pages ({@code MemoryWidener.byteWindowShifted}, issue 16, nineteenth
 * round) on AArch64 NEON, SVE at 256 and 512 bits and RISC-V V at VLEN 128 and 256 under qemu-user: strhash
 * packetized with {@code -Dpacketizer.byteWindows=true} (windows at every width) and
 * {@code -Dpacketizer.byteWindows.slowLanes=always}, so that every reload takes the clamped addresses, the gather
 * or the loads, the per-lane shift and the bytes-used restart, and checked lane by lane against the scalar function
 * as {@link CrossTargetKernelTest} checks the kernels. Mutation (the reloaded windows shifted by one more byte):
 * all six configurations fail.
 */
class ByteWindowCrossTest {
  @TestFactory
  Stream<DynamicTest> strhashWithEveryReloadFromInsideThePages() {
    Manifest manifest = Manifest.load();
    Manifest.Entry e = manifest.require("strhash");
    List<DynamicTest> tests = new ArrayList<>();
    for (CrossTargetKernelTest.Config c : CrossTargetKernelTest.configs()) {
      tests.add(DynamicTest.dynamicTest("strhash " + c, () -> withKnobs(() -> CrossTargetKernelTest.check(manifest, e, c))));
    }
    return tests.stream();
  }

  private static void withKnobs(Runnable r) {
    String windows = System.getProperty("packetizer.byteWindows"), slow = System.getProperty("packetizer.byteWindows.slowLanes");
    System.setProperty("packetizer.byteWindows", "true");
    System.setProperty("packetizer.byteWindows.slowLanes", "always");
    try {
      r.run();
    } finally {
      restore("packetizer.byteWindows", windows);
      restore("packetizer.byteWindows.slowLanes", slow);
    }
  }

  private static void restore(String key, String value) {
    if (value == null) System.clearProperty(key);
    else System.setProperty(key, value);
  }
}
