package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-input table (packetizer-tests/src/test/resources/badinput/README.md) through the command:
 * each row's exit code and message, no stack trace, no output file when nothing was packetized. The
 * inputs are read from packetizer-tests' test resources (the same files as the API-level
 * BadInputTest).
 */
class BadInputCliTest {
  @TempDir Path dir;

  static Path badinput() {
    for (String p : List.of("../packetizer-tests/src/test/resources/badinput", "packetizer-tests/src/test/resources/badinput")) {
      Path d = Path.of(p);
      if (Files.isDirectory(d)) return d.toAbsolutePath().normalize();
    }
    throw new IllegalStateException("cannot find packetizer-tests/src/test/resources/badinput from " + Path.of("").toAbsolutePath());
  }

  /** Copies badinput/{@code name} into the temporary folder (outputs go beside inputs). */
  private String in(String name) {
    try {
      return Files.copy(badinput().resolve(name), dir.resolve(name)).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Cli.Run run(String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    return Cli.run(a.toArray(String[]::new));
  }

  private static void fails(int code, Cli.Run r, String... mustMention) {
    assertEquals(code, r.code(), r.toString());
    for (String s : mustMention) assertTrue(r.err().contains(s), "stderr should mention '" + s + "':\n" + r);
    assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace without --debug:\n" + r);
  }

  private static void ok(Cli.Run r) { assertEquals(0, r.code(), r.toString()); }

  private void noOutput(String input) {
    String base = input.replaceFirst("\\.[a-z]+$", "");
    assertFalse(Files.exists(dir.resolve(base + ".packet.bc")), "no output for " + input);
  }

  @Test
  void unreadableInputsExitTwoWithLlvmsMessage() {
    fails(2, run(in("empty.bc")), "empty.bc: error: empty input (0 bytes)");
    fails(2, run(in("truncated.bc")), "truncated.bc: error: invalid bitcode: can't skip to bit");
    fails(2, run(in("flipped.bc")), "flipped.bc: error: invalid bitcode: Invalid encoding");
    fails(2, run(in("random.bin")), "random.bin:1:2: error: expected integer");
    fails(2, run(in("random-magic.bc")), "random-magic.bc: error: invalid bitcode: Invalid encoding");
    fails(2, run(in("newer-epoch.bc")), "newer-epoch.bc: error: invalid bitcode: Incompatible epoch: Bitcode '1' vs current: '0'");
    fails(2, run(in("newer-attribute.bc")), "Unknown attribute kind (0) (Producer: 'LLVM99.1.7' Reader: 'LLVM 20.1.7')");
    fails(2, run(in("syntax-error.ll")), "syntax-error.ll:6:3: error: expected ',' in arithmetic operation");
    for (String f : List.of("empty.bc", "truncated.bc", "flipped.bc", "random-magic.bc", "newer-epoch.bc", "syntax-error.ll")) noOutput(f);
  }

  /** Before IsolatedLoad, this file crashed LLVM's reader and with it the JVM running the command. */
  @Test
  void bitcodeThatCrashesLlvmsReaderIsRejectedAndTheBatchGoesOn() {
    String crash = in("reader-crash.bc");
    String valid = in("valid.ll");
    Cli.Run r = run(crash, valid, "-f", "shade");
    fails(2, r, "reader-crash.bc: error: invalid bitcode: LLVM's bitcode reader crashed on this input (SIGSEGV");
    assertTrue(r.err().contains("valid.ll: @shade -> @shade_simd8"), r.err());
    assertTrue(Files.exists(dir.resolve("valid.packet.bc")), "the other input was still packetized");
  }

  @Test
  void invalidRequestsExitTwo() {
    fails(2, run(in("not-verifying.ll")), "is not valid IR", "Instruction does not dominate all uses");
    String mf = in("missing-function.ll");
    fails(2, run(mf, "-f", "shade_pixle"), "no function @shade_pixle", "did you mean @shade_pixel?");
    fails(2, run(mf, "-f", "render"), "no function @render", "@shade_pixel, @shade_sky");
    fails(2, run(in("declaration-only.ll"), "-f", "f"), "@f is only declared");
    fails(2, run(in("prototype-mismatch.ll"), "-f", "f:f_simd", "-w", "4"),
        "parameter 0 (%x) of the declared prototype @f_simd has type <4 x i32>");
    fails(2, run(in("name-taken.ll"), "-f", "shade:shade_simd"), "@shade_simd already names a global variable or alias");
    String v = in("valid.ll");
    for (String w : List.of("0", "1", "3", "-4", "512")) fails(2, run(v, "-f", "shade", "-w", w), "invalid width " + w);
    noOutput("valid.ll");
  }

  @Test
  void unsupportedConstructsExitThreeAndSayWhere() {
    fails(3, run(in("varargs.ll"), "-f", "sum"), "in function @sum: variadic functions cannot be packetized");
    fails(3, run(in("invoke-landingpad.ll"), "-f", "f"), "block %entry", "exception handling ('invoke')", "at: %r = invoke");
    fails(3, run(in("indirectbr.ll")), "indirect branches ('indirectbr')", "at: indirectbr ptr %target");
    fails(3, run(in("callbr.ll")), "'callbr' (asm goto) is not supported", "at: callbr void asm");
    fails(3, run(in("scalable-vector.ll")), "scalable vectors are not supported", "<vscale x 4 x float>");
    fails(3, run(in("x86-fp80.ll")), "varying value of type x86_fp80", "at: %e = fpext double %x to x86_fp80");
    fails(3, run(in("inline-asm.ll")), "inline assembly is not supported", "at: %r = call i32 asm");
    fails(3, run(in("volatile.ll"), "-f", "f", "--params", "uv"), "volatile or atomic load through a varying address");
    noOutput("invoke-landingpad.ll");
  }

  @Test
  void acceptedConstructsPacketizeAndCheck() {
    ok(run(in("recursion.ll"), "-f", "fib", "-w", "4", "--check=20", "--range", "n=0:15"));
    ok(run(in("i128.ll"), "-w", "8", "--check=20"));
    ok(run(in("atomic.ll"), "-f", "f", "-w", "8", "--params", "uv", "--buffer", "p=i32*4", "--range", "x=0:3", "--check=20"));
    ok(run(in("x86-fp80.ll"), "--params", "u", "--check=20"));
    ok(run(in("unreachable-block.ll"), "--check=20", "--range", "x=-1000:1000000"));
    ok(run(in("infinite-loop-divergent.ll"), "-w", "16", "--check=20", "--range", "x=-200:200"));
    ok(run(in("infinite-loop-untaken.ll"), "--check=20", "--range", "x=0:1000"));
    ok(run(in("infinite-loop-masked.ll"), "--masked"));
    ok(run(in("noreturn.ll")));
    ok(run(in("volatile.ll"), "-f", "g", "--params", "uv"));
  }
}
