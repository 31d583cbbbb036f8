package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The matcher behind {@link IrCheckTest}: it passes what it should and fails, with context, what it should. */
class IrCheckSelfTest {
  @TempDir Path dir;

  private static final String OUT = String.join("\n",
      "define <8 x float> @f_simd8(<8 x float> %x, ptr %p) {",
      "entry:",
      "  %v = load <8 x float>, ptr %p, align 4",
      "  %s = fadd <8 x float> %v,   %x",
      "  %m = fcmp olt <8 x float> %s, zeroinitializer",
      "  ret <8 x float> %s",
      "}");

  private List<IrCheck.Directive> directives(String... checkLines) throws IOException {
    Path f = dir.resolve("t.ll");
    Files.writeString(f, "; RUN: packetize -w 8\n" + String.join("\n", checkLines) + "\n");
    return IrCheck.parse(f).directives();
  }

  private void ok(String... checkLines) throws IOException {
    IrCheck.match(dir.resolve("t.ll"), "CHECK", directives(checkLines), OUT, "out");
  }

  private String fails(String... checkLines) throws IOException {
    List<IrCheck.Directive> ds = directives(checkLines);
    AssertionError e = assertThrows(AssertionError.class, () -> IrCheck.match(dir.resolve("t.ll"), "CHECK", ds, OUT, "out"));
    return e.getMessage();
  }

  @Test
  void plainNextSameNotLabelAndCapturesMatch() throws IOException {
    ok("; CHECK-LABEL: define <8 x float> @f_simd8(",
        "; CHECK: %v = load <8 x float>, ptr [[P:%[a-z]+]]",
        "; CHECK-SAME: align 4",
        "; CHECK-NEXT: fadd <8 x float> %v, %x",
        "; CHECK-NOT: select",
        "; CHECK: ret <8 x float> {{%[a-z]+}}");
  }

  @Test
  void aMissingPatternNamesTheLineAndShowsTheOutput() throws IOException {
    String m = fails("; CHECK: load <8 x float>", "; CHECK: call <8 x float> @llvm.masked.gather");
    assertTrue(m.contains("t.ll:3: CHECK: call <8 x float> @llvm.masked.gather"), m);
    assertTrue(m.contains("not found after line 3"), m);
    assertTrue(m.contains(">    3 |   %v = load <8 x float>, ptr %p, align 4"), m);
    assertTrue(m.contains("|   ret <8 x float> %s"), m);
  }

  @Test
  void aForbiddenPatternBetweenTwoMatchesFails() throws IOException {
    String m = fails("; CHECK: load", "; CHECK-NOT: fadd", "; CHECK: ret");
    assertTrue(m.contains("CHECK-NOT: fadd") && m.contains("found where it must not be (line 4"), m);
    // after the last positive match, NOT looks to the end
    assertTrue(fails("; CHECK: load", "; CHECK-NOT: fcmp").contains("line 5"));
    // before its range it does not look
    ok("; CHECK: fcmp", "; CHECK-NOT: fadd");
  }

  @Test
  void nextMustBeOnTheFollowingLine() throws IOException {
    String m = fails("; CHECK: load", "; CHECK-NEXT: fcmp");
    assertTrue(m.contains("not found on the line after the previous match"), m);
  }

  @Test
  void capturesMustMatchWhatWasCaptured() throws IOException {
    ok("; CHECK: %v = load <8 x float>, ptr [[P:%[a-z]+]]", "; CHECK-NOT: [[P]]");
    String m = fails("; CHECK: %s = fadd <8 x float> [[A:%[a-z]+]]", "; CHECK: fcmp olt <8 x float> [[A]]");
    assertTrue(m.contains("not found"), m);
    assertTrue(fails("; CHECK: [[UNDEFINED]]").contains("is not defined"));
  }

  @Test
  void aFileWithoutRunOrWithoutPositiveChecksIsRejected() throws IOException {
    Path f = dir.resolve("bad.ll");
    Files.writeString(f, "; CHECK: x\n");
    assertTrue(assertThrows(AssertionError.class, () -> IrCheck.parse(f)).getMessage().contains("no '; RUN"));
    Files.writeString(f, "; RUN: packetize -w 4\n; CHECK-NOT: x\n");
    assertTrue(assertThrows(AssertionError.class, () -> IrCheck.parse(f)).getMessage().contains("must assert something"));
    Files.writeString(f, "; RUN: not packetize -w 4\n; SHAPES: error\n");
    assertTrue(IrCheck.parse(f).expectFailure());
  }
}
