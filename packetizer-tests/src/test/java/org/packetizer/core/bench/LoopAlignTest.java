package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The packet function's innermost loops start on a 64-byte boundary ({@code llvm.loop.align} per loop,
 * {@code ir.LoopAlign}; issue 16: binomial's inner loop ran about 30 % slower when it straddled a 64-byte
 * line): an outer loop with two inner loops (a divergent self-loop and a uniform counted loop) packetized
 * at W8 for haswell and W16 for znver4. The IR carries a distinct loop ID with the alignment on each
 * innermost latch and none on the outer latch; compiled as {@code llc -O3} compiles it, each inner loop
 * header is preceded by {@code .p2align 6} and the outer one is not. {@code -Dpacketizer.loopAlign=0}
 * leaves LLVM's default: no metadata, no {@code .p2align 6}.
 */
class LoopAlignTest {
  static final String IR = """
      define float @f(float %x, i32 %n) {
      entry:
        br label %outer
      outer:
        %j = phi i32 [ 0, %entry ], [ %j.next, %outer.latch ]
        %a = phi float [ %x, %entry ], [ %b2.lcssa, %outer.latch ]
        br label %in1
      in1:
        %b = phi float [ %a, %outer ], [ %b.next, %in1 ]
        %b.next = fmul float %b, 5.000000e-01
        %c1 = fcmp ogt float %b.next, 1.000000e+00
        br i1 %c1, label %in1, label %mid
      mid:
        %b.lcssa = phi float [ %b.next, %in1 ]
        br label %in2
      in2:
        %k = phi i32 [ 0, %mid ], [ %k.next, %in2 ]
        %b2 = phi float [ %b.lcssa, %mid ], [ %b3, %in2 ]
        %b3 = fadd float %b2, 2.500000e-01
        %k.next = add i32 %k, 1
        %c2 = icmp slt i32 %k.next, %n
        br i1 %c2, label %in2, label %outer.latch
      outer.latch:
        %b2.lcssa = phi float [ %b3, %in2 ]
        %j.next = add i32 %j, 1
        %c3 = icmp slt i32 %j.next, 4
        br i1 %c3, label %outer, label %exit
      exit:
        %r = phi float [ %b2.lcssa, %outer.latch ]
        ret float %r
      }
      """;

  private static String packetize(LlvmModule m, int w, String cpu) {
    new Packetizer(PacketizerOptions.builder().width(w).params("vu").targetCpu(cpu).build()).run(m, "f", "f_simd");
    return m.function("f_simd").orElseThrow().print();
  }

  /** The lines of {@code fn}'s body in the assembly text. */
  private static List<String> body(String asm, String fn) {
    List<String> out = new ArrayList<>();
    boolean in = false;
    for (String line : asm.split("\n")) {
      if (line.startsWith(fn + ":")) in = true;
      else if (in && line.startsWith(".Lfunc_end")) break;
      else if (in) out.add(line);
    }
    return out;
  }

  /**
   * The labels that are loop headers (a later line jumps back to them) in {@code lines}, each with the
   * alignment directive right before it ("-" when none): {@code .LBB1_2 6}.
   */
  private static List<String> loopHeaders(List<String> lines) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (!l.startsWith(".LBB") || !l.contains(":")) continue;
      String label = l.substring(0, l.indexOf(':'));
      boolean back = false;
      for (int k = i + 1; k < lines.size(); k++) if (lines.get(k).trim().matches("j[a-z]+\\s+" + java.util.regex.Pattern.quote(label))) back = true;
      if (!back) continue;
      String prev = i > 0 ? lines.get(i - 1).trim() : "";
      out.add(label + " " + (prev.startsWith(".p2align") ? prev.split("\\s+")[1] : "-"));
    }
    return out;
  }

  @Test
  void innermostLoopsStartOnACacheLine() {
    for (String wc : List.of("8:haswell", "16:znver4")) {
      int w = Integer.parseInt(wc.split(":")[0]);
      String cpu = wc.split(":")[1];
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "loops")) {
        String ir = packetize(m, w, cpu);
        String module = m.toIr();
        String where = wc + ":\n" + module;
        assertEquals(2, count(ir, "!llvm.loop !"), where);
        assertTrue(module.contains("!{!\"llvm.loop.align\", i32 64}"), where);
        String asm = MachineCode.assembly(m, cpu);
        where += asm;
        // the outer loop's header first in the layout, then the two inner ones
        List<String> headers = loopHeaders(body(asm, "f_simd"));
        assertEquals(3, headers.size(), where + headers);
        assertFalse(headers.get(0).endsWith(" 6"), where + headers);
        assertTrue(headers.get(1).endsWith(" 6") && headers.get(2).endsWith(" 6"), where + headers);
      }
    }
  }

  @Test
  void knobZeroLeavesLlvmsDefault() {
    String saved = System.setProperty("packetizer.loopAlign", "0");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "loops")) {
      String ir = packetize(m, 8, "haswell");
      assertEquals(0, count(ir, "!llvm.loop"), ir);
      List<String> headers = loopHeaders(body(MachineCode.assembly(m, "haswell"), "f_simd"));
      assertEquals(3, headers.size(), headers.toString());
      for (String h : headers) assertFalse(h.endsWith(" 6"), headers.toString());
    } finally {
      if (saved == null) System.clearProperty("packetizer.loopAlign");
      else System.setProperty("packetizer.loopAlign", saved);
    }
  }

  static final String STRAIGHT = """
      define float @g(float %x, float %y) {
      entry:
        %m = fmul float %x, 1.500000e+00
        %r = fadd float %m, %y
        ret float %r
      }
      """;

  /**
   * The array driver's loop over the full packets is aligned too (issue 17's straight-line goal: the saxpy
   * driver ran 1.24x the time of a hand-written packet loop that happened to be placed on a line, 1.00x with
   * its own loop aligned); with the knob at 0 it keeps LLVM's default.
   */
  @Test
  void theArrayDriversLoopStartsOnACacheLine() {
    for (String align : List.of("64", "0")) {
      String saved = System.setProperty("packetizer.loopAlign", align);
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(STRAIGHT, "straight")) {
        new Packetizer(PacketizerOptions.builder().width(8).params("vv").targetCpu("haswell").arrayDriver("*_map").build())
            .run(m, "g", "g_simd");
        String driver = m.function("g_map").orElseThrow().print();
        String asm = MachineCode.assembly(m, "haswell");
        List<String> headers = loopHeaders(body(asm, "g_map"));
        String where = "loopAlign=" + align + ":\n" + m.toIr() + asm + headers;
        assertFalse(headers.isEmpty(), where);
        if (align.equals("64")) {
          assertTrue(driver.contains("!llvm.loop !"), where);
          assertTrue(m.toIr().contains("!{!\"llvm.loop.align\", i32 64}"), where);
          for (String h : headers) assertTrue(h.endsWith(" 6"), where);
        } else {
          assertFalse(driver.contains("!llvm.loop"), where);
          for (String h : headers) assertFalse(h.endsWith(" 6"), where);
        }
      } finally {
        if (saved == null) System.clearProperty("packetizer.loopAlign");
        else System.setProperty("packetizer.loopAlign", saved);
      }
    }
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
    return n;
  }
}
