package org.packetizer.cli;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMRemarkArgRef;
import org.bytedeco.llvm.LLVM.LLVMRemarkEntryRef;
import org.bytedeco.llvm.LLVM.LLVMRemarkParserRef;
import org.bytedeco.llvm.LLVM.LLVMRemarkStringRef;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Llvm;

/** The remarks file is read back by LLVM's own remark parser (llvm-c/Remarks.h), as opt-viewer would. */
class RemarkYamlTest {

  record Parsed(int type, String pass, String name, String function, String file, Map<String, String> args) {}

  static List<Parsed> parseWithLlvm(String yaml) {
    Llvm.init();
    byte[] bytes = yaml.getBytes(StandardCharsets.UTF_8);
    List<Parsed> out = new ArrayList<>();
    try (BytePointer buf = new BytePointer(bytes.length + 1L)) {
      buf.put(bytes, 0, bytes.length).put(bytes.length, (byte) 0);
      LLVMRemarkParserRef p = LLVMRemarkParserCreateYAML(buf, bytes.length);
      try {
        for (LLVMRemarkEntryRef e = LLVMRemarkParserGetNext(p); e != null && !e.isNull(); e = LLVMRemarkParserGetNext(p)) {
          Map<String, String> args = new LinkedHashMap<>();
          for (LLVMRemarkArgRef a = LLVMRemarkEntryGetFirstArg(e); a != null && !a.isNull(); a = LLVMRemarkEntryGetNextArg(a, e)) {
            String k = str(LLVMRemarkArgGetKey(a));
            args.merge(k, str(LLVMRemarkArgGetValue(a)), (x, y) -> x + "|" + y);
          }
          var loc = LLVMRemarkEntryGetDebugLoc(e);
          out.add(new Parsed(LLVMRemarkEntryGetType(e), str(LLVMRemarkEntryGetPassName(e)), str(LLVMRemarkEntryGetRemarkName(e)),
              str(LLVMRemarkEntryGetFunctionName(e)), loc == null || loc.isNull() ? null : str(LLVMRemarkDebugLocGetSourceFilePath(loc)),
              args));
          LLVMRemarkEntryDispose(e);
        }
        if (LLVMRemarkParserHasError(p) != 0) {
          fail("LLVM's remark parser rejects the file: " + LLVMRemarkParserGetErrorMessage(p).getString() + "\n" + yaml);
        }
      } finally {
        LLVMRemarkParserDispose(p);
      }
    }
    return out;
  }

  private static String str(LLVMRemarkStringRef s) {
    if (s == null || s.isNull()) return null;
    int n = LLVMRemarkStringGetLen(s);
    byte[] b = new byte[n];
    LLVMRemarkStringGetData(s).capacity(n).get(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void llvmReadsEveryKindOfRemarkWeWrite() {
    StringBuilder sb = new StringBuilder();
    List<Remark> all = new ArrayList<>();
    for (Remark.Kind k : Remark.Kind.values()) {
      all.add(new Remark(k, "f", k.ordinal() % 2 == 0 ? "bb.1" : null, k.ordinal() % 3 == 0 ? "%x = fadd float %a, 1.0" : null,
          "it's a \"" + k + "\": with: colons, # hashes and 'quotes'"));
    }
    for (Remark r : all) RemarkYaml.remark(sb, "dir/in put.ll", r);
    RemarkYaml.failure(sb, "dir/in put.ll", "g",
        PacketizationException.unsupported("indirect branches are not supported", "g", "entry", "indirectbr ptr %t, [label %a]"));
    List<Parsed> ps = parseWithLlvm(sb.toString());
    assertEquals(all.size() + 1, ps.size());
    for (int i = 0; i < all.size(); i++) {
      Remark r = all.get(i);
      Parsed p = ps.get(i);
      int expected = switch (RemarkYaml.tag(r.kind())) {
        case "Passed" -> LLVMRemarkTypePassed;
        case "Missed" -> LLVMRemarkTypeMissed;
        default -> LLVMRemarkTypeAnalysis;
      };
      assertEquals(expected, p.type(), r.toString());
      assertEquals("packetize", p.pass());
      assertEquals(RemarkYaml.name(r.kind()), p.name());
      assertEquals("f", p.function());
      assertEquals("dir/in put.ll", p.file());
      // LLVM's parser hands out the raw scalar of a single-quoted string (quotes stripped, '' not
      // undone: its own writer quotes the same way); SnakeYAML in PacketizeCommandTest checks the YAML
      // meaning
      assertEquals(r.message().replace("'", "''"), p.args().get("String"), "the message survives quoting");
      assertEquals(r.block(), p.args().get("Block"));
      assertEquals(r.instruction(), p.args().get("Instruction"));
    }
    // as YAML (what opt-viewer and other YAML readers see), the text comes back exactly
    List<Map<String, Object>> docs = PacketizeCommandTest.yamlDocuments(sb.toString());
    for (int i = 0; i < all.size(); i++) {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> args = (List<Map<String, Object>>) docs.get(i).get("Args");
      assertTrue(args.contains(Map.of("String", all.get(i).message())), args.toString());
    }
    Parsed f = ps.get(all.size());
    assertEquals(LLVMRemarkTypeFailure, f.type());
    assertEquals("Unsupported", f.name());
    assertEquals("entry", f.args().get("Block"));
  }

  @Test
  void llvmReadsTheFileTheCommandWrites() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("remarks");
    try {
      java.nio.file.Path y = dir.resolve("r.yaml");
      Cli.Run r = Cli.run(Cli.copy(dir, "branchy.ll").toString(), "-f", "triangle", "-f", "clamp_scale", "--remarks=" + y,
          "-o", dir.resolve("o.bc").toString());
      assertEquals(0, r.code(), r.toString());
      List<Parsed> ps = parseWithLlvm(java.nio.file.Files.readString(y));
      assertTrue(ps.stream().anyMatch(p -> p.name().equals("Linearized") && p.function().equals("triangle")), ps.toString());
      assertEquals(2, ps.stream().filter(p -> p.name().equals("Packetized")).count(), ps.toString());
      Parsed summary = ps.stream().filter(p -> p.name().equals("Packetized") && p.function().equals("triangle")).findFirst().orElseThrow();
      assertEquals("8", summary.args().get("Width"));
      assertEquals("triangle_simd8", summary.args().get("PacketFunction"));
    } finally {
      try (var s = java.nio.file.Files.walk(dir)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
