package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Lookups in a small constant integer table whose entries all fit in a byte, done by byte permutes
 * in registers instead of memory accesses (issue 16, W16/AVX-512): {@code perm[i]} of Perlin noise
 * (512 {@code int}s with values 0..255, the same 256 twice), {@code vperm[i]} of a volume kernel (64
 * {@code unsigned char}s). On AVX-512 with VBMI (Ice Lake and later, Zen 4 and 5) one
 * {@code vpermi2b} looks up 128 bytes for 64 byte lanes; the index of a 32-bit lane is its low byte,
 * so 16 lanes take one {@code vpermi2b} per 128 entries, the chunks chosen by index bits 7 and 8 (a
 * compare and a blend each), then a zero or sign extension of the low byte. A 512-entry table is 4
 * permutes and 3 blends (a 256-entry or periodic one 2 and 1, up to 128 entries one permute) where a
 * gather is one {@code vpgatherdd} of 16 elements (on Zen 4/5 many micro-operations and a long
 * latency) or, paired, {@code vpgatherqq} and shuffles.
 *
 * <p>No memory is read, so the mask does not matter: an inactive lane's index may be anything (it is
 * frozen) and its result is never used. An active lane's index is within the table: its scalar load
 * reads the table's element at that index, and a load outside the global would be undefined
 * behaviour. The table must be a constant global with an exact definition (not weak: another module
 * could replace its contents) whose value type is {@code [N x iK]} (K = 8, 16, 32 or 64), loaded as
 * {@code iK} at {@code gep iK, @t, i} or {@code gep [N x iK], @t, 0, i}; N after removing a
 * power-of-two period (entry i equals entry i mod P for every i) at most {@value #MAX_ENTRIES}; every
 * entry in [0, 255] (zero-extended) or [-128, 127] (sign-extended).
 *
 * <p>Knob: {@code -Dpacketizer.permuteLookups=false} keeps the earlier routes (gathers, paired
 * gathers, scalar loads), read at each use.
 */
public final class PermuteLookup {
  private PermuteLookup() {}

  /** Largest table, in entries after its period is removed: four 128-byte permutes. */
  static final int MAX_ENTRIES = 512;

  /** Lanes per 512-bit permute (32-bit lanes: one index byte each). */
  static final int CHUNK_LANES = 16;

  /** Knob: {@code -Dpacketizer.permuteLookups=false} turns the route off; read at each use. */
  static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.permuteLookups", "true"));
  }

  /** LLVM CPU names that have AVX512-VBMI (LLVM 20's X86 processor table). */
  private static final Set<String> VBMI_CPUS = Set.of("cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake",
      "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5");

  /**
   * Whether the target runs {@code vpermi2b} on zmm: the feature string names {@code +avx512vbmi} (and
   * does not turn off AVX-512F or BW), or it does not mention VBMI and the CPU has it.
   */
  public static boolean vbmi(String cpu, String features) {
    boolean plus = false, minus = false;
    if (features != null) {
      for (String f : features.split(",")) {
        String g = f.strip();
        if (g.equals("+avx512vbmi")) plus = true;
        if (g.equals("-avx512vbmi") || g.equals("-avx512f") || g.equals("-avx512bw") || g.equals("-evex512")) minus = true;
      }
    }
    if (minus) return false;
    return plus || cpu != null && VBMI_CPUS.contains(cpu);
  }

  /**
   * A table fit for the route.
   *
   * @param bytes   the entries as bytes, one period ({@code entries} of them)
   * @param signed  whether the loaded value is the byte sign-extended (else zero-extended)
   * @param length  the global's element count N
   * @param entries the period P (N when the table has no shorter power-of-two period)
   */
  record Table(byte[] bytes, boolean signed, long length, int entries) {
    /** 128-byte permutes per 16 lanes: 1, 2 or 4. */
    int permutes() {
      int c = (entries + 127) / 128;
      return c <= 1 ? 1 : c <= 2 ? 2 : 4;
    }

    String describe(String name, Type elem) {
      return "constant @" + name + " (" + length + " x i" + elem.intWidth() + ", values " + (signed ? "-128..127" : "0..255")
          + (entries < length ? ", period " + entries : "") + ")";
    }
  }

  /** Why a table does not fit, or null when it does ({@link #analyze} then returns it). */
  static Table analyze(LlvmModule m, Value global, Type elem, Type loaded) {
    if (!global.isGlobalVariable() || !global.isGlobalConstant() || !global.hasExactDefinition()) return null;
    Type g = global.globalValueType();
    if (!g.isArray() || !g.elementType().equals(elem) || !elem.isInteger() || !loaded.equals(elem)) return null;
    int k = elem.intWidth();
    if (k != 8 && k != 16 && k != 32 && k != 64) return null;
    long n = g.arrayLength();
    if (n <= 0 || n > 4096) return null;
    Value init = global.initializer().orElse(null);
    if (init == null) return null;
    long[] v = new long[(int) n];
    boolean unsignedFits = true, signedFits = true;
    for (int i = 0; i < n; i++) {
      Value e = init.aggregateElement(i);
      if (e == null || !e.isConstantInt()) return null;
      long x = e.constIntSExt();
      long u = k == 64 ? x : x & ((1L << k) - 1);
      v[i] = x;
      if (u < 0 || u > 255) unsignedFits = false;
      if (x < -128 || x > 127) signedFits = false;
    }
    if (!unsignedFits && !signedFits) return null;
    boolean signed = !unsignedFits;
    int period = (int) n;
    for (int p = 1; p < n; p <<= 1) {
      boolean ok = true;
      for (int i = p; i < n && ok; i++) ok = v[i] == v[i % p];
      if (ok) {
        period = p;
        break;
      }
    }
    if (period > MAX_ENTRIES) return null;
    byte[] bytes = new byte[period];
    for (int i = 0; i < period; i++) bytes[i] = (byte) v[i];
    return new Table(bytes, signed, n, period);
  }

  /**
   * {@code table[idx]} for every lane of {@code idx} ({@code <W x i32>}, any W): as {@code <W x elem>}.
   * The index is padded to a power of two of at least 16 lanes and looked up 16 lanes at a time.
   */
  static Value emit(IrBuilder b, LlvmModule m, Table t, Value idx, int w, Type elem, String name) {
    Type i8 = m.context().i8(), i32 = m.context().i32();
    int lanes = CHUNK_LANES;
    while (lanes < w) lanes <<= 1;
    Value all = idx;
    if (lanes != w) {
      List<Value> ix = new ArrayList<>();
      for (int i = 0; i < lanes; i++) ix.add(i < w ? b.i32(i) : b.i32(0));
      all = b.shuffle(idx, b.poison(idx.type()), b.constVector(ix), "");
    }
    Function perm = m.intrinsic("llvm.x86.avx512.vpermi2var.qi.512");
    int chunks = t.permutes();
    // the table's 128-byte chunks as pairs of 64-byte constants (entries past the period repeat it)
    List<Value[]> halves = new ArrayList<>();
    for (int c = 0; c < chunks; c++) {
      Value[] pair = new Value[2];
      for (int h = 0; h < 2; h++) {
        List<Value> bs = new ArrayList<>();
        for (int j = 0; j < 64; j++) bs.add(b.constInt(i8, t.bytes()[(c * 128 + h * 64 + j) % t.entries()]));
        pair[h] = b.constVector(bs);
      }
      halves.add(pair);
    }
    List<Value> parts = new ArrayList<>();
    for (int p = 0; p < lanes / CHUNK_LANES; p++) {
      Value part = VectorParts.slice(b, all, p * CHUNK_LANES, CHUNK_LANES);
      Value bytesIdx = b.cast(Opcode.BITCAST, part, i8.vectorOf(64), name + ".pidx");
      List<Value> r = new ArrayList<>();
      for (int c = 0; c < chunks; c++) {
        r.add(b.call(perm, List.of(halves.get(c)[0], bytesIdx, halves.get(c)[1]), name + ".perm"));
      }
      // chunks chosen by index bits 7 (and 8), dword by dword
      int bit = 128;
      while (r.size() > 1) {
        Value sel = b.icmpNe(b.and(part, b.splat(b.i32(bit), CHUNK_LANES, ""), ""), b.constNull(part.type()), "");
        List<Value> next = new ArrayList<>();
        for (int i = 0; i < r.size(); i += 2) {
          Value lo = b.cast(Opcode.BITCAST, r.get(i), i32.vectorOf(CHUNK_LANES), "");
          Value hi = b.cast(Opcode.BITCAST, r.get(i + 1), i32.vectorOf(CHUNK_LANES), "");
          next.add(b.cast(Opcode.BITCAST, b.select(sel, hi, lo, ""), i8.vectorOf(64), ""));
        }
        r = next;
        bit <<= 1;
      }
      Value dw = b.cast(Opcode.BITCAST, r.get(0), i32.vectorOf(CHUNK_LANES), "");
      parts.add(b.cast(Opcode.TRUNC, dw, i8.vectorOf(CHUNK_LANES), ""));
    }
    Value bytes = parts.size() == 1 ? parts.get(0) : VectorParts.concat(b, parts);
    if (lanes != w) bytes = VectorParts.slice(b, bytes, 0, w);
    if (elem.intWidth() == 8) {
      if (bytes.isInstruction()) bytes.setName(name);
      return bytes;
    }
    return b.cast(t.signed() ? Opcode.SEXT : Opcode.ZEXT, bytes, elem.vectorOf(w), name);
  }
}
