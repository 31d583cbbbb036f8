package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.Manifest;

/** Remark texts come from one printout per function; they must equal LLVM's text of each instruction alone. */
class RemarkTextTest {
  @Test
  void batchTextsEqualSingleInstructionPrints() throws Exception {
    Manifest manifest = Manifest.load();
    int checked = 0;
    java.util.Set<String> files = new java.util.TreeSet<>();
    for (Manifest.Entry e : manifest.kernels()) files.add(e.bitcode());
    for (String bc : files) {
      Manifest.Entry any = manifest.kernels().stream().filter(e -> e.bitcode().equals(bc)).findFirst().orElseThrow();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(any), bc)) {
        for (Function f : m.functions()) {
          if (f.isDeclaration()) continue;
          Map<Value, String> texts = PacketizationState.instructionTexts(f);
          assertFalse(texts.isEmpty(), () -> "no texts for @" + f.name() + " in " + bc);
          for (Block bl : f.blocks()) {
            for (Value v = bl.firstInstruction(); v != null; v = v.nextInstruction()) {
              // (metadata nodes are numbered per printout: !4 alone may be !7 in the function's)
              String alone = v.print().replaceAll("!\\d+", "!N");
              String batch = texts.get(v);
              assertEquals(alone, batch == null ? null : batch.replaceAll("!\\d+", "!N"), "@" + f.name() + " in " + bc);
              checked++;
            }
          }
        }
      }
    }
    assertFalse(checked < 1000, "only " + checked + " instructions compared");
  }
}
