package org.packetizer.core.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The inputs of the bad-input table (src/test/resources/badinput/, see its README.md): reading them,
 * and the recipes that derive the bad bitcode files from {@code valid.ll}.
 *
 * <p>Run {@link #main} to rewrite the derived {@code .bc} / {@code .bin} files (the test checks that
 * the checked-in files still match these recipes). {@code reader-crash.bc} is not derived: it is a
 * corrupted file found by fuzzing that crashes LLVM 20.1.7's bitcode reader.
 */
public final class BadInputs {
  private BadInputs() {}

  /** The Char6 encoding of the bitstream (a-z, A-Z, 0-9, '.', '_'). */
  static int char6(char c) {
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return c - 'A' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '.') return 62;
    if (c == '_') return 63;
    throw new IllegalArgumentException("not a char6 character: " + c);
  }

  /** The producer string LLVM 20.1.7 writes into the identification block. */
  static final String PRODUCER = "LLVM20.1.7";

  /** What the "newer LLVM" rows claim to come from. */
  static final String NEWER_PRODUCER = "LLVM99.1.7";

  public static byte[] resource(String name) {
    try (InputStream in = BadInputs.class.getResourceAsStream("/badinput/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource badinput/" + name);
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String text(String name) {
    return new String(resource(name), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** valid.ll as bitcode, as this LLVM writes it. */
  static byte[] validBitcode() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(text("valid.ll"), "valid.ll")) {
      return m.toBitcode();
    }
  }

  /** The derived bitcode rows: file name -> bytes. */
  static Map<String, byte[]> derived() {
    byte[] bc = validBitcode();
    Map<String, byte[]> out = new LinkedHashMap<>();
    out.put("empty.bc", new byte[0]);
    out.put("truncated.bc", Arrays.copyOf(bc, bc.length * 3 / 5 / 4 * 4));
    out.put("flipped.bc", flipped(bc));
    out.put("random.bin", random(0xBADL, 512, false));
    out.put("random-magic.bc", random(0xBADL, 512, true));
    out.put("newer-epoch.bc", newerEpoch(bc));
    out.put("newer-attribute.bc", newerAttribute(bc));
    return out;
  }

  /** Three bytes in the body inverted. */
  static byte[] flipped(byte[] bc) {
    byte[] b = bc.clone();
    for (int pct : new int[] {45, 60, 75}) b[b.length * pct / 100] ^= (byte) 0xFF;
    return b;
  }

  /** Random bytes, optionally after the bitcode magic "BC\xC0\xDE". */
  static byte[] random(long seed, int n, boolean magic) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    if (magic) {
      b[0] = 'B';
      b[1] = 'C';
      b[2] = (byte) 0xC0;
      b[3] = (byte) 0xDE;
    } else {
      b[0] = '!'; // neither bitcode magic nor a wrapper: the loader takes it for text
    }
    return b;
  }

  /**
   * Bitcode claiming to come from a newer, incompatible LLVM: the producer string becomes
   * {@value #NEWER_PRODUCER} and the epoch (0 in every LLVM since 2016) becomes 1.
   *
   * <p>The identification block holds the string record (abbreviated, Char6 array), then the
   * abbreviation definition of the epoch record (28 bits: abbrev id 2 in 5 bits, 2 operands as vbr5,
   * a literal code 2 as 1+vbr8, a VBR6 operand as 1+3+vbr5), then the epoch record: abbrev id 5 in
   * 5 bits and the epoch as VBR6.
   */
  static byte[] newerEpoch(byte[] bc) {
    byte[] b = withNewerProducer(bc);
    long end = findChar6(bc, PRODUCER) + 6L * PRODUCER.length();
    expect(bc, end, 5, 2, "DEFINE_ABBREV after the producer string");
    expect(bc, end + 28, 5, 5, "epoch record's abbreviation id");
    expect(bc, end + 33, 6, 0, "epoch 0");
    setBits(b, end + 33, 6, 1);
    return b;
  }

  /**
   * Bitcode using an attribute this LLVM does not know (as a newer LLVM's new attributes would be):
   * the function attribute group record {@code [grp, 0xFFFFFFFF (function), 0 (enum), 18
   * (nounwind)]} gets attribute code 0, which no LLVM defines. The record is unabbreviated, every
   * operand a VBR6; 0xFFFFFFFF is six chunks 111111 and one 000011.
   */
  static byte[] newerAttribute(byte[] bc) {
    byte[] b = withNewerProducer(bc);
    long found = -1;
    outer:
    for (long p = 0; p + 54 <= bc.length * 8L; p++) {
      for (int k = 0; k < 6; k++) if (bits(bc, p + 6L * k, 6) != 0b111111) continue outer;
      if (bits(bc, p + 36, 6) != 0b000011 || bits(bc, p + 42, 6) != 0 || bits(bc, p + 48, 6) != 18) continue;
      found = p;
      break;
    }
    if (found < 0) throw new IllegalStateException("no function attribute record [.., 0xFFFFFFFF, 0, 18] in valid.ll's bitcode");
    setBits(b, found + 48, 6, 0);
    return b;
  }

  private static byte[] withNewerProducer(byte[] bc) {
    byte[] b = bc.clone();
    long p = findChar6(bc, PRODUCER);
    for (int k = 0; k < NEWER_PRODUCER.length(); k++) setBits(b, p + 6L * k, 6, char6(NEWER_PRODUCER.charAt(k)));
    return b;
  }

  private static long findChar6(byte[] b, String s) {
    outer:
    for (long p = 0; p + 6L * s.length() <= b.length * 8L; p++) {
      for (int k = 0; k < s.length(); k++) if (bits(b, p + 6L * k, 6) != char6(s.charAt(k))) continue outer;
      return p;
    }
    throw new IllegalStateException("the producer string '" + s + "' is not in the bitcode (another LLVM version?)");
  }

  private static void expect(byte[] b, long pos, int n, long value, String what) {
    long v = bits(b, pos, n);
    if (v != value) throw new IllegalStateException("bitcode layout changed: expected " + what + " (" + value + ") at bit " + pos + ", found " + v);
  }

  /** {@code n} bits from bit {@code pos}, least significant first (the bitstream's order). */
  static long bits(byte[] b, long pos, int n) {
    long v = 0;
    for (int j = 0; j < n; j++) {
      long i = pos + j;
      v |= (long) ((b[(int) (i >>> 3)] >> (i & 7)) & 1) << j;
    }
    return v;
  }

  static void setBits(byte[] b, long pos, int n, long v) {
    for (int j = 0; j < n; j++) {
      long i = pos + j;
      int idx = (int) (i >>> 3);
      int mask = 1 << (i & 7);
      if (((v >> j) & 1) != 0) b[idx] |= (byte) mask;
      else b[idx] &= (byte) ~mask;
    }
  }

  /** Rewrites the derived files: {@code BadInputs <packetizer-tests/src/test/resources/badinput>}. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "packetizer-tests/src/test/resources/badinput");
    for (var e : derived().entrySet()) {
      Files.write(dir.resolve(e.getKey()), e.getValue());
      System.out.println("wrote " + dir.resolve(e.getKey()) + " (" + e.getValue().length + " bytes)");
    }
  }
}
