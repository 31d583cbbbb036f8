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
 * <p>Without VBMI (eleventh round, {@link Route}): four entries per dword, permuted by
 * {@code vpermi2d} (AVX-512F, 128 entries) or {@code vpermd} (AVX2, 32 entries) and the entry's byte
 * shifted down per lane; up to 16 entries {@code vpshufb} (AVX2) and, on SSE4.1, {@code pshufb} per 16
 * entries. The route follows the target's level ({@link #isa}) and the table's size, and on AVX2 the CPU's
 * family (twenty-first round: Intel's cores up to 64 entries, {@link #intelAvx2Entries}).
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

  /**
   * Knob: {@code -Dpacketizer.permuteLookups=false} turns the routes off, {@code =vbmi} keeps only the
   * AVX-512 VBMI route of the tenth round (the side-by-side baseline of the AVX2, SSE4.1 and AVX-512F
   * routes); read at each use.
   */
  static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.permuteLookups", "true"));
  }

  /** Whether only the VBMI route is on ({@code -Dpacketizer.permuteLookups=vbmi}). */
  static boolean vbmiOnly() {
    return "vbmi".equalsIgnoreCase(System.getProperty("packetizer.permuteLookups", "true").strip());
  }

  /**
   * Largest table, in entries after its period is removed, for the AVX2 ({@code isa} AVX2) and SSE4.1
   * routes; {@code -Dpacketizer.permuteLookupEntries=N} (at most {@value #MAX_ENTRIES}) sets both for
   * measurements. The defaults are where the permutes were measured to pay (docs/performance.md,
   * eleventh round; znver4 host): on AVX2 {@value #AVX2_ENTRIES}, noise3's 256-entry table (8
   * {@code vpermd} and 7 blends per lookup) ran 8% faster than its paired gathers at W8; on SSE4.1
   * {@value #SSE41_ENTRIES}, volume's 64 bytes (4 {@code pshufb}, 3 blends) 1.3x faster than scalar
   * loads at W4, where noise3's 256 entries (16 {@code pshufb}) ran at half the speed. On AVX2 for an Intel
   * core ({@code intel}) {@link #intelAvx2Entries} instead (twenty-first round).
   */
  static int smallEntries(Isa isa, boolean intel) {
    String s = System.getProperty("packetizer.permuteLookupEntries", "").strip();
    if (s.isEmpty()) return isa == Isa.AVX2 ? (intel ? intelAvx2Entries() : AVX2_ENTRIES) : SSE41_ENTRIES;
    return entries("packetizer.permuteLookupEntries", s);
  }

  private static int entries(String knob, String s) {
    try {
      return Math.max(0, Math.min(MAX_ENTRIES, Integer.parseInt(s)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + knob + "=" + s + ": expected a number of table entries");
    }
  }

  /** The defaults of {@link #smallEntries}. */
  static final int AVX2_ENTRIES = 256, SSE41_ENTRIES = 64;

  /**
   * The AVX2 limit on Intel's cores ({@code core.wrapper.Latency.Family.INTEL}: Haswell to Granite Rapids and the
   * Alder Lake line, and {@code x86-64-v3}, which LLVM schedules as Haswell), twenty-first round: there
   * {@code vpermd} runs on the one shuffle port (port 5, one per cycle) and {@code vblendvps} is two or three
   * micro-operations, so a lookup of P entries costs P/32 port-5 cycles plus its blends, where AMD's Zen has two
   * shuffle pipes. Measured on a Sapphire Rapids-class host (docs/performance.md, twenty-first round): noise3 W8's
   * 256-entry table as 8 {@code vpermd} and 7 blends per lookup ran 1.3-2.2x slower than the paired per-lane loads
   * (haswell's code) and the paired 8-byte gathers (skylake's, alderlake's); volume's 64 entries (2 {@code vpermd}, 1
   * blend) 1.2-1.7x faster than its word gathers; a test kernel's 128 entries (4 {@code vpermd}, 3 blends) 1.3x slower
   * than word gathers, its 64 entries 1.5x faster. Knob {@code -Dpacketizer.permuteLookupEntries.intel=N} (256: the rule before, as on Zen);
   * {@code -Dpacketizer.permuteLookupEntries=N} sets every limit, Intel's included.
   */
  static int intelAvx2Entries() {
    String s = System.getProperty("packetizer.permuteLookupEntries.intel", "").strip();
    return s.isEmpty() ? AVX2_INTEL_ENTRIES : entries("packetizer.permuteLookupEntries.intel", s);
  }

  /** The default of {@link #intelAvx2Entries}. */
  static final int AVX2_INTEL_ENTRIES = 64;

  /** Why a larger table is not permuted on an Intel AVX2 core (the remark; CPU and LIMIT filled in). */
  static final String INTEL_DECLINED = "the target (CPU) is an Intel core, where every vpermd takes the one shuffle port and a"
      + " variable blend two or three micro-operations, so above LIMIT entries the gather routes"
      + " (measured on a Sapphire Rapids-class host: noise3 W8's 256-entry table, 8 vpermd and 7 blends per lookup, 1.3-2.2x"
      + " slower than per-lane loads or paired gathers, a 128-entry table 1.3x slower than word gathers, 64 entries 1.5x faster;"
      + " -Dpacketizer.permuteLookupEntries.intel=256: the permutes)";

  /** LLVM CPU names that have AVX512-VBMI (LLVM 20's X86 processor table). */
  private static final Set<String> VBMI_CPUS = Set.of("cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake",
      "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5");

  /** LLVM CPU names with AVX-512F and 512-bit vectors but no VBMI. */
  private static final Set<String> AVX512_CPUS = Set.of("knl", "knm", "skylake-avx512", "skx", "cascadelake", "cooperlake", "x86-64-v4");

  /** LLVM CPU names without SSE4.1 (and the empty name: no CPU named, the generic x86-64 baseline). */
  private static final Set<String> NO_SSE41_CPUS = Set.of("", "x86-64", "generic", "k8", "k8-sse3", "opteron", "opteron-sse3",
      "athlon64", "athlon64-sse3", "athlon-fx", "amdfam10", "barcelona", "nocona", "core2", "pentium4", "prescott", "i686", "i586",
      "i386", "pentium-m", "atom", "bonnell", "btver1");

  /** The x86 vector level the permute routes are chosen by. */
  public enum Isa {
    NONE, SSE41, AVX2, AVX512, VBMI
  }

  /**
   * The level of code compiled for {@code cpu} with {@code features}: the CPU's own, raised by the
   * feature string's {@code +} entries and capped by its {@code -} entries (an explicit {@code -avx2}
   * leaves SSE4.1, {@code -avx512f} AVX2, {@code -avx512vbmi} AVX-512F).
   */
  public static Isa isa(String cpu, String features) {
    String c = cpu == null ? "" : cpu.strip().toLowerCase(java.util.Locale.ROOT);
    Isa level = VBMI_CPUS.contains(c) ? Isa.VBMI : AVX512_CPUS.contains(c) ? Isa.AVX512
        : MemoryWidener.avx2(c, null) ? Isa.AVX2 : NO_SSE41_CPUS.contains(c) ? Isa.NONE : Isa.SSE41;
    Isa cap = Isa.VBMI;
    if (features != null) {
      for (String f : features.split(",")) {
        String g = f.strip();
        Isa up = switch (g) {
          case "+avx512vbmi" -> Isa.VBMI;
          case "+avx512f" -> Isa.AVX512;
          case "+avx2" -> Isa.AVX2;
          case "+sse4.1", "+sse4.2" -> Isa.SSE41;
          default -> Isa.NONE;
        };
        if (up.compareTo(level) > 0) level = up;
        Isa down = switch (g) {
          case "-avx512vbmi" -> Isa.AVX512;
          case "-avx512f", "-avx512bw", "-evex512" -> Isa.AVX2;
          case "-avx2", "-avx" -> Isa.SSE41;
          case "-sse4.1", "-ssse3", "-sse3", "-sse2" -> Isa.NONE;
          default -> Isa.VBMI;
        };
        if (down.compareTo(cap) < 0) cap = down;
      }
    }
    // (VBMI needs AVX-512F and BW too: "+avx512vbmi" alone on a CPU without them is not enough)
    if (level == Isa.VBMI && !VBMI_CPUS.contains(c) && (features == null || !features.contains("+avx512f")) && !AVX512_CPUS.contains(c)) level = Isa.AVX2;
    return level.compareTo(cap) < 0 ? level : cap;
  }

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
   * How a lookup is done in registers. The byte permutes take the low byte of each 32-bit index lane
   * as the index; the dword permutes hold four entries per dword (entry e at dword e mod P, byte
   * (e / P) mod 4 of a P-dword register) and shift the chosen byte down by a per-lane amount.
   */
  public enum Route {
    /** AVX-512 VBMI: {@code vpermi2b}, 128 entries per permute, 16 lanes (the tenth round). */
    VBMI(16, 128, "byte permute", "AVX-512 VBMI vpermi2b"),
    /** AVX-512F without VBMI: {@code vpermi2d} of 32 dwords, 128 entries per permute, 16 lanes. */
    DWORD512(16, 128, "dword permute", "AVX-512 vpermi2d, 4 entries per dword"),
    /** AVX2: {@code vpermd} of 8 dwords, 32 entries per permute, 8 lanes. */
    DWORD256(8, 32, "dword permute", "AVX2 vpermd, 4 entries per dword"),
    /** AVX2: {@code vpshufb} of 16 bytes repeated in both 128-bit halves, 16 entries, 8 lanes. */
    BYTE256(8, 16, "byte shuffle", "AVX2 vpshufb"),
    /** SSE4.1: {@code pshufb} of 16 bytes, 16 entries per shuffle, 4 lanes. */
    BYTE128(4, 16, "byte shuffle", "SSSE3 pshufb, SSE4.1 blends");

    /** Lanes per permute. */
    final int lanes;
    /** Table entries per permute. */
    final int entries;
    final String noun, instruction;

    Route(int lanes, int entries, String noun, String instruction) {
      this.lanes = lanes;
      this.entries = entries;
      this.noun = noun;
      this.instruction = instruction;
    }

    /** Whether the entry is a byte of a dword chosen by index bits, shifted down per lane. */
    boolean shifts(Table t) { return (this == DWORD512 || this == DWORD256) && t.entries() > entries / 4; }

    /** Words for a remark: the instructions, and the variable shift where there is one. */
    String describe(Table t) { return instruction + (shifts(t) ? ", a variable shift" : ""); }
  }

  /**
   * The route for {@code t} on a target of level {@code isa} ({@code intel}: an Intel core, {@link #intelAvx2Entries}),
   * or null: VBMI and AVX-512F up to {@value #MAX_ENTRIES} entries; AVX2 {@code vpshufb} up to 16 entries and
   * {@code vpermd} up to {@link #smallEntries} (256, on Intel 64); SSE4.1 {@code pshufb} up to {@link #smallEntries} (64).
   */
  static Route route(Isa isa, boolean intel, Table t) {
    if (isa == Isa.VBMI) return Route.VBMI;
    if (vbmiOnly()) return null;
    return switch (isa) {
      case AVX512 -> Route.DWORD512;
      case AVX2 -> t.entries() <= 16 ? Route.BYTE256 : t.entries() <= smallEntries(isa, intel) ? Route.DWORD256 : null;
      case SSE41 -> t.entries() <= smallEntries(isa, intel) ? Route.BYTE128 : null;
      default -> null;
    };
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
    int permutes() { return permutes(Route.VBMI); }

    /** Permutes per {@code r.lanes} lanes: a power of two. */
    int permutes(Route r) { return Integer.highestOneBit(Math.max(1, (entries + r.entries - 1) / r.entries) * 2 - 1); }

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
   * {@code table[idx]} for every lane of {@code idx} ({@code <W x i32>}, any W): as {@code <W x elem>},
   * by route {@code r}. The index is padded to a power of two of at least {@code r.lanes} lanes and
   * looked up {@code r.lanes} lanes at a time.
   */
  static Value emit(IrBuilder b, LlvmModule m, Table t, Value idx, int w, Type elem, String name, Route r) {
    Type i8 = m.context().i8();
    int lanes = r.lanes;
    while (lanes < w) lanes <<= 1;
    Value all = idx;
    if (lanes != w) {
      List<Value> ix = new ArrayList<>();
      for (int i = 0; i < lanes; i++) ix.add(i < w ? b.i32(i) : b.i32(0));
      all = b.shuffle(idx, b.poison(idx.type()), b.constVector(ix), "");
    }
    List<Value[]> tables = tables(b, m, t, r);
    List<Value> parts = new ArrayList<>();
    for (int p = 0; p < lanes / r.lanes; p++) {
      Value part = VectorParts.slice(b, all, p * r.lanes, r.lanes);
      parts.add(b.cast(Opcode.TRUNC, lookup(b, m, t, r, tables, part, name), i8.vectorOf(r.lanes), ""));
    }
    Value bytes = parts.size() == 1 ? parts.get(0) : VectorParts.concat(b, parts);
    if (lanes != w) bytes = VectorParts.slice(b, bytes, 0, w);
    if (elem.intWidth() == 8) {
      if (bytes.isInstruction()) bytes.setName(name);
      return bytes;
    }
    return b.cast(t.signed() ? Opcode.SEXT : Opcode.ZEXT, bytes, elem.vectorOf(w), name);
  }

  /**
   * The table's registers for route {@code r}, one array per permute: the two 64-byte halves of a
   * {@code vpermi2b}, the two 16-dword halves of a {@code vpermi2d}, one 8-dword {@code vpermd}
   * register, or one {@code pshufb} register (16 bytes, repeated per 128-bit lane). Entries past the
   * period repeat it; past a table without one they are its first entries again, which no active lane
   * reads.
   */
  private static List<Value[]> tables(IrBuilder b, LlvmModule m, Table t, Route r) {
    Type i8 = m.context().i8(), i32 = m.context().i32();
    int e = t.entries();
    List<Value[]> out = new ArrayList<>();
    for (int c = 0; c < t.permutes(r); c++) {
      int base = c * r.entries;
      switch (r) {
        case VBMI -> {
          Value[] pair = new Value[2];
          for (int h = 0; h < 2; h++) {
            List<Value> bs = new ArrayList<>();
            for (int j = 0; j < 64; j++) bs.add(b.constInt(i8, t.bytes()[(base + h * 64 + j) % e]));
            pair[h] = b.constVector(bs);
          }
          out.add(pair);
        }
        case DWORD512, DWORD256 -> {
          int dwords = r.entries / 4;
          int[] packed = new int[dwords];
          for (int d = 0; d < dwords; d++)
            for (int j = 0; j < 4; j++) packed[d] |= (t.bytes()[(base + j * dwords + d) % e] & 0xff) << (8 * j);
          int per = Math.min(dwords, 16);
          Value[] regs = new Value[dwords / per];
          for (int h = 0; h < regs.length; h++) {
            List<Value> ds = new ArrayList<>();
            for (int d = 0; d < per; d++) ds.add(b.constInt(i32, packed[h * per + d]));
            regs[h] = b.constVector(ds);
          }
          out.add(regs);
        }
        case BYTE256, BYTE128 -> {
          List<Value> bs = new ArrayList<>();
          for (int j = 0; j < 4 * r.lanes; j++) bs.add(b.constInt(i8, t.bytes()[(base + j % 16) % e]));
          out.add(new Value[] {b.constVector(bs)});
        }
      }
    }
    return out;
  }

  /**
   * The lookup of one part ({@code <r.lanes x i32>} indices): {@code <r.lanes x i32>} whose low bytes
   * are the entries. The permutes read the index's low bits; the table's blocks are chosen by the
   * next bits, a select each (on AVX2 and SSE4.1 the bit is shifted to the sign, so the select is a
   * {@code blendvps} on it; on AVX-512 a bit test into a mask register).
   */
  private static Value lookup(IrBuilder b, LlvmModule m, Table t, Route r, List<Value[]> tables, Value part, String name) {
    Type i8 = m.context().i8(), i32 = m.context().i32();
    Type dv = i32.vectorOf(r.lanes);
    Value bytesIdx = null;
    if (r == Route.VBMI || r == Route.BYTE256 || r == Route.BYTE128) {
      Value ix = part;
      // pshufb gives zero where an index byte's bit 7 is set: an active lane's index is below 128 unless
      // the table (or its repetitions) is longer
      if (r != Route.VBMI && t.length() > 128) ix = b.and(part, b.splat(b.i32(15), r.lanes, ""), "");
      bytesIdx = b.cast(Opcode.BITCAST, ix, i8.vectorOf(4 * r.lanes), name + ".pidx");
    }
    List<Value> got = new ArrayList<>();
    for (Value[] regs : tables) {
      Value v = switch (r) {
        case VBMI -> b.call(m.intrinsic("llvm.x86.avx512.vpermi2var.qi.512"), List.of(regs[0], bytesIdx, regs[1]), name + ".perm");
        case DWORD512 -> b.call(m.intrinsic("llvm.x86.avx512.vpermi2var.d.512"), List.of(regs[0], part, regs[1]), name + ".perm");
        case DWORD256 -> b.call(m.intrinsic("llvm.x86.avx2.permd"), List.of(regs[0], part), name + ".perm");
        case BYTE256 -> b.call(m.intrinsic("llvm.x86.avx2.pshuf.b"), List.of(regs[0], bytesIdx), name + ".perm");
        case BYTE128 -> b.call(m.intrinsic("llvm.x86.ssse3.pshuf.b.128"), List.of(regs[0], bytesIdx), name + ".perm");
      };
      got.add(b.cast(Opcode.BITCAST, v, dv, ""));
    }
    // blocks chosen by the index bits above a permute's entries, dword by dword
    int bit = Integer.numberOfTrailingZeros(r.entries);
    boolean avx512 = r == Route.VBMI || r == Route.DWORD512;
    while (got.size() > 1) {
      Value sel = avx512 ? b.icmpNe(b.and(part, b.splat(b.i32(1 << bit), r.lanes, ""), ""), b.constNull(dv), "")
          : b.icmpSlt(b.binop(Opcode.SHL, part, b.splat(b.i32(31 - bit), r.lanes, ""), ""), b.constNull(dv), "");
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < got.size(); i += 2) next.add(b.select(sel, got.get(i + 1), got.get(i), ""));
      got = next;
      bit++;
    }
    Value v = got.get(0);
    if (r.shifts(t)) {
      // the entry's byte within its dword: index bits log2(P) and log2(P)+1, times 8
      int dwordBits = Integer.numberOfTrailingZeros(r.entries / 4);
      Value at = dwordBits == 3 ? part : b.binop(Opcode.LSHR, part, b.splat(b.i32(dwordBits - 3), r.lanes, ""), "");
      Value amount = b.and(at, b.splat(b.i32(24), r.lanes, ""), name + ".byte");
      v = b.binop(Opcode.LSHR, v, amount, "");
    }
    return v;
  }
}
