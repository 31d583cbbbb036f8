package org.packetizer.core.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.ir.TargetArch;

/**
 * The refill driver of scalable packets ({@code --scalable --array-driver --refill}, issue 17; docs/drivers.md
 * "Scalable packets"): the lane refill of {@link RefillDriver} for L = vscale × W lanes, L known only at run
 * time, on AArch64 SVE and RISC-V V. The scalar function is split as for the fixed-length driver ({@link RefillSplit}), and
 * {@code pre} and {@code iter} are made scalable packet functions ({@code <vscale x W x T>} values,
 * a {@code <vscale x W x i1>} predicate). The driver is written as IR text like {@link ArrayDriver#buildScalable}:
 *
 * <pre>
 * round:
 *   lanes done: masked scatter of their results to out[idx] (SVE st1w/st1d with vector offsets)
 *   c = cntp(active) (RVV: vcpop; the lanes in the loop); while input remains and c &lt; L:
 *     the state and the element indices compacted by SVE compact (the lanes in the loop move to the front,
 *       in order); 64-bit values at W = 4 (two registers) as two compacts of their halves joined by two
 *       SVE splices at the first half's count; RVV: one vcompress per value over its register group
 *     take = whilelo(0, c + taken) &amp; ~whilelo(0, c), taken = min(L - c, n - next)
 *     inputs: one masked contiguous load per array at &amp;a[next - c] under take (lanes c.. get next, next+1, ...)
 *     pre on take; its lanes enter the loop or are done
 *   iterations: a counted block of k (k = ⌊√(4·T)⌋ as {@link RefillDriver}, T = L·steps / elements started,
 *     L read from vscale), or until half the lanes are free ({@code --refill-batch}, or block scale 0)
 * </pre>
 *
 * One set of lanes (no interleaving). Supported: on SVE W = 2 and 4 (an element index is 64 bits: at W = 4 two
 * registers, at W = 8 four, which the compaction does not join), on RVV W = 2, 4 and 8 (LMUL = W for the index);
 * the target pieces are {@link Isa}'s; other widths and other targets are refused
 * ({@code CONFLICTING_OPTIONS}); a function the split cannot cut, or whose state is not integers, floats,
 * doubles or pointers, gets the plain scalable driver with a remark.
 */
public final class ScalableRefillDriver {
  private ScalableRefillDriver() {}

  /** The widths the scalable refill driver is built for on SVE. */
  public static final List<Integer> WIDTHS = List.of(2, 4);

  /**
   * The widths it is built for on RISC-V V: a 64-bit element index of W lanes is a register group of LMUL = W
   * (vscale = VLEN / 64), and RVV groups at most 8 registers.
   */
  public static final List<Integer> RVV_WIDTHS = List.of(2, 4, 8);

  /**
   * The target's compaction pieces; everything else in the driver (rounds, take mask, loads, scatter, blocks) is
   * target-independent IR. SVE: {@code cntp}, {@code compact} on 32/64-bit lanes (a 64-bit value at W = 4 as two
   * compacts joined by splices); RVV: {@code vcpop} and one {@code vcompress} per value at its own width (a
   * register group compacts as one, so no splice).
   */
  enum Isa {
    SVE("SVE compact", "cntp", "whilelo"),
    RVV("RVV vcompress", "vcpop", "a mask (vle under v0.t)");

    final String compact;
    final String count;
    final String loadMask;

    Isa(String compact, String count, String loadMask) {
      this.compact = compact;
      this.count = count;
      this.loadMask = loadMask;
    }

    static Isa of(LlvmModule module) { return TargetArch.of(module.targetTriple()) == TargetArch.RISCV64 ? RVV : SVE; }
  }

  /**
   * Builds the scalable refill driver for {@code result} (the scalable packet function {@code scalableName} is
   * made), or the plain scalable driver ({@link ArrayDriver#buildScalable}) with a remark saying why not.
   */
  public static PacketizationResult build(LlvmModule module, PacketizationResult result, String scalableName,
      PacketizerOptions options, VariantPacketizer packetizer) {
    String fn = result.scalarFunction();
    Function scalar = module.function(fn).orElseThrow();
    int w = result.width();
    requireSupported(module, scalar, w, options, fn);
    String name = options.arrayDriverName(fn).orElseThrow();
    if (module.function(name).isPresent() || module.global(name).isPresent() || module.hasAlias(name)) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the array driver's name @" + name + " is already used in"
          + " the module; choose another name pattern (--array-driver=PATTERN, * stands for the scalar function's name)", fn);
    }
    List<ParamKind> kinds = result.params();
    Object s = RefillSplit.split(module, scalar, kinds, options);
    if (s instanceof RefillSplit.Refusal r) return plain(module, result, scalableName, options, fn, r.reason());
    RefillSplit.Split split = (RefillSplit.Split) s;
    for (Type t : split.state()) {
      boolean ok = !t.isVector() && !t.isStruct() && !t.isArray()
          && (t.isFloat() || t.isDouble() || t.isPointer() || (t.isInteger() && t.intWidth() <= 64));
      if (!ok) {
        split.pre().delete();
        split.iter().delete();
        return plain(module, result, scalableName, options, fn, "a value live at the loop header has type " + t
            + " (the SVE compaction moves integers, floats, doubles and pointers)");
      }
    }
    List<ParamKind> preKinds = new ArrayList<>();
    for (ParamKind k : kinds) preKinds.add(k instanceof ParamKind.Uniform ? k : ParamKind.VARYING);
    List<ParamKind> iterKinds = new ArrayList<>();
    for (int i = 0; i < split.state().size(); i++) iterKinds.add(ParamKind.VARYING);
    for (int i : split.uniformArgs()) iterKinds.add(kinds.get(i));
    String preName = "__packetizer.refill.pre." + fn + ".nxv" + w;
    String iterName = "__packetizer.refill.iter." + fn + ".nxv" + w;
    PacketizerOptions base = options.toBuilder().scalable(true).masked(true).vectorAbi(false).cAbi(false)
        .arrayDriver((String) null).refill(Refill.OFF).wrapperMode(WrapperMode.DIRECT).remarks(r -> {}).build();
    Function pre;
    Function iter;
    try {
      packetizer.run(base.toBuilder().params(preKinds).build(), split.pre().name(), preName);
      packetizer.run(base.toBuilder().params(iterKinds).build(), split.iter().name(), iterName);
      pre = module.function(preName).orElseThrow();
      iter = module.function(iterName).orElseThrow();
    } catch (PacketizationException e) {
      module.function(preName).ifPresent(Function::delete);
      module.function(iterName).ifPresent(Function::delete);
      return plain(module, result, scalableName, options, fn, "the split functions could not be made scalable packet"
          + " functions (" + e.getMessage() + ")");
    } finally {
      split.pre().delete();
      split.iter().delete();
    }
    Function iterF = iter;
    Optional<String> whyMasked = split.whyIterMasked().or(() -> RefillDriver.branchOnLanes(iterF));
    boolean blocks = options.refillBatch() == 0 && RefillDriver.BLOCK_SCALE > 0;
    // the batch rule: iterate until this many of every W lanes are free (times vscale)
    int minFree = RefillDriver.minFree(w, options);
    Isa isa = Isa.of(module);
    String text = new Text(module, scalar, name, kinds, split, pre, iter, w, whyMasked.isEmpty(), blocks, minFree, isa).emit();
    ArrayDriver.linkDriverText(module, scalar, name, text, "scalable-refill-driver:" + name,
        ArrayDriver.cNames(scalar, !scalar.returnType().isVoid()));
    Function driver = module.function(name).orElseThrow();
    driver.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the scalable refill driver @"
          + name + " is invalid: " + msg, fn);
    });
    pre = module.function(preName).orElseThrow();
    iter = module.function(iterName).orElseThrow();
    pre.setInternalLinkage();
    iter.setInternalLinkage();
    RefillDriver.inline(module, List.of(pre, iter));
    splitAggregates(module, driver);
    LlvmModule.runPasses(driver, RefillDriver.DRIVER_CLEANUP, null);
    for (String n : List.of(preName, iterName)) {
      module.function(n).ifPresent(f -> {
        if (!f.hasUses()) f.delete();
        else SignatureAbi.fitCallers(f);
      });
    }
    module.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the scalable refill driver is"
          + " invalid: " + msg, fn);
    });
    int share = split.instructions() == 0 ? 0 : 100 * split.loopInstructions() / split.instructions();
    String decl = ArrayDriver.cDeclaration(name, kinds, scalar.functionType().paramTypes(), scalar.returnType(),
        ArrayDriver.cNames(scalar, !scalar.returnType().isVoid()));
    Remark note = new Remark(Remark.Kind.NOTE, fn, null, null, "lane refill (--refill) at the loop at %" + split.header() + " ("
        + (split.divergentLoop() ? "trip count differs between lanes" : "same trip count in every lane") + ", " + share
        + "% of the instructions): scalable packets, vscale x " + w + " lanes (the vector length read at run time); "
        + split.state().size() + " values of state per lane; "
        + (blocks ? "a refill round every k iterations, k = ⌊√(" + RefillDriver.BLOCK_SCALE + "·T)⌋ (1 to " + RefillDriver.MAX_BLOCK
            + "), T the measured iterations per element, adapted at every round; "
            : "a refill round when " + minFree + " of every " + w + " lanes are free; ")
        + "free lanes take the next elements by compaction: the lanes still in the loop move to the front (" + isa.compact
        + (isa == Isa.SVE && w == 4 ? "; 64-bit values as two compacts joined by SVE splice" : "") + ", the count by "
        + isa.count + "), the next elements follow them by one masked contiguous load per array at &a[next - in loop] under "
        + isa.loadMask + ", finished ones scatter their results; one set of lanes (no interleaving); "
        + whyMasked.map(y -> "iterations masked (" + y + ")")
            .orElse("iterations unmasked (no memory access, call, division or inner loop: lanes not in the loop compute unused values)"));
    options.remarks().accept(note);
    return result.withRemark(note).withDriver(new PacketizationResult.DriverInfo(name, decl, scalableName));
  }

  /**
   * The inlined split functions return {at H, state..., result} structs of scalable vectors, merged by phis and
   * selects that LLVM's clean-up does not take apart; codegen cannot keep such a struct (AArch64's constant
   * promotion puts a constant one in memory, where it has no size). Each phi or select of a struct whose users
   * are all extractvalues becomes one phi or select per field.
   */
  static void splitAggregates(LlvmModule module, Function f) {
    for (boolean changed = true; changed; ) {
      changed = false;
      outer:
      for (org.packetizer.core.ir.Block bl : f.blocks()) {
        for (org.packetizer.core.ir.Value inst : bl.instructions()) {
          org.packetizer.core.ir.Opcode op = inst.opcode();
          if ((op != org.packetizer.core.ir.Opcode.PHI && op != org.packetizer.core.ir.Opcode.SELECT) || !inst.type().isStruct()) continue;
          List<org.packetizer.core.ir.Value> users = inst.users();
          boolean fieldsOnly = !users.isEmpty();
          for (org.packetizer.core.ir.Value u : users) {
            fieldsOnly &= u.opcode() == org.packetizer.core.ir.Opcode.EXTRACTVALUE && u.aggregateIndices().length == 1
                && u.operand(0).equals(inst);
          }
          if (!fieldsOnly) continue;
          List<Type> fields = inst.type().structElements();
          List<org.packetizer.core.ir.Value> parts = new ArrayList<>();
          try (org.packetizer.core.ir.IrBuilder b = new org.packetizer.core.ir.IrBuilder(module.context())) {
            if (op == org.packetizer.core.ir.Opcode.PHI) {
              int n = inst.incomingCount();
              for (int i = 0; i < fields.size(); i++) {
                b.before(inst);
                org.packetizer.core.ir.Value p = b.phi(fields.get(i), "");
                List<org.packetizer.core.ir.Value> vs = new ArrayList<>();
                List<org.packetizer.core.ir.Block> bs = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                  org.packetizer.core.ir.Block from = inst.incomingBlock(k);
                  b.before(from.terminator());
                  vs.add(b.extractValue(inst.incomingValue(k), i, ""));
                  bs.add(from);
                }
                p.addIncoming(vs, bs);
                parts.add(p);
              }
            } else {
              b.before(inst);
              for (int i = 0; i < fields.size(); i++) {
                parts.add(b.select(inst.operand(0), b.extractValue(inst.operand(1), i, ""), b.extractValue(inst.operand(2), i, ""), ""));
              }
            }
          }
          for (org.packetizer.core.ir.Value u : users) {
            u.replaceAllUsesWith(parts.get(u.aggregateIndices()[0]));
            u.eraseFromParent();
          }
          inst.eraseFromParent();
          changed = true;
          break outer;
        }
      }
    }
  }

  /** Refuses what the scalable refill driver is not built for (the options, not the function). */
  private static void requireSupported(LlvmModule module, Function scalar, int w, PacketizerOptions options, String fn) {
    String why = null;
    TargetArch arch = TargetArch.of(module.targetTriple());
    if (arch == TargetArch.RISCV64) {
      String features = options.targetFeatures().or(() -> scalar.stringAttribute("target-features")).orElse("");
      boolean v = false;
      for (String f : features.split(",")) v |= f.strip().equals("+v") || f.strip().startsWith("+zve64");
      if (!v) {
        why = "@" + fn + " is not compiled with +v (target-features \"" + features + "\"; add --target-features +v)";
      } else if (!RVV_WIDTHS.contains(w)) {
        why = "on RISC-V V it is built for widths 2, 4 and 8 (-w " + w + " given): an element index is 64 bits, a register"
            + " group of LMUL = W, and RVV groups at most 8 registers; use -w 8 or less, or give the vector length"
            + " (--vector-bits N without --scalable: the fixed-length refill driver), or drop --refill";
      }
    } else if (arch != TargetArch.AARCH64) {
      why = "the module's target is " + module.targetTriple() + "; it is built for AArch64 with SVE (compact, splice, cntp)"
          + " and RISC-V V (vcompress, vcpop) only: drop --refill for the plain scalable driver";
    } else {
      String features = options.targetFeatures().or(() -> scalar.stringAttribute("target-features")).orElse("");
      boolean sve = false;
      for (String f : features.split(",")) sve |= f.strip().startsWith("+sve");
      if (!sve) {
        why = "@" + fn + " is not compiled with +sve (target-features \"" + features + "\"; add --target-features +sve)";
      } else if (!WIDTHS.contains(w)) {
        why = "it is built for widths 2 and 4 (-w " + w + " given): an element index is 64 bits, which at W = 4 fills two SVE"
            + " registers (two compacts and a splice) and at W = " + w + " more than the compaction joins; use -w 4, or give"
            + " the vector length (--vector-bits N without --scalable: the fixed-length refill driver), or drop --refill";
      }
    }
    if (why == null && options.interleave() > 1) {
      why = "it runs one set of lanes (--interleave " + options.interleave() + " given; drop it)";
    }
    if (why != null) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "lane refill (--refill) for scalable packets"
          + " (--scalable): " + why, fn);
    }
  }

  private static PacketizationResult plain(LlvmModule module, PacketizationResult result, String scalableName,
      PacketizerOptions options, String fn, String why) {
    Remark r = new Remark(Remark.Kind.NOTE, fn, null, null, "lane refill not used (--refill): " + why + "; plain scalable driver");
    options.remarks().accept(r);
    return ArrayDriver.buildScalable(module, result.withRemark(r), scalableName, options);
  }

  /** The driver as IR text. */
  private static final class Text {
    private final LlvmModule module;
    private final Function scalar;
    private final String name;
    private final List<ParamKind> kinds;
    private final RefillSplit.Split split;
    private final Function pre;
    private final Function iter;
    private final int w;
    private final boolean unmasked;
    private final boolean blocks;
    private final int minFree;
    private final Isa isa;
    private final Map<String, String> decls = new LinkedHashMap<>();
    private final StringBuilder sb = new StringBuilder();
    private int tmp;
    private final String mT;
    private final String idxT;
    private final String trueM;

    Text(LlvmModule module, Function scalar, String name, List<ParamKind> kinds, RefillSplit.Split split, Function pre,
        Function iter, int w, boolean unmasked, boolean blocks, int minFree, Isa isa) {
      this.module = module;
      this.scalar = scalar;
      this.name = name;
      this.kinds = kinds;
      this.split = split;
      this.pre = pre;
      this.iter = iter;
      this.w = w;
      this.unmasked = unmasked;
      this.blocks = blocks;
      this.minFree = minFree;
      this.isa = isa;
      this.mT = nx("i1");
      this.idxT = nx("i64");
      this.trueM = "splat (i1 true)";
    }

    private String nx(String e) { return "<vscale x " + w + " x " + e + ">"; }

    private String nx(int lanes, String e) { return "<vscale x " + lanes + " x " + e + ">"; }

    private String t() { return "%t" + (tmp++); }

    private void line(String s) { sb.append("  ").append(s).append('\n'); }

    private void label(String s) { sb.append(s).append(":\n"); }

    /** A call of intrinsic (or function) {@code fn} returning {@code ret} (null: void) with typed arguments (type, value). */
    private String call(String ret, String fn, String... typed) {
      StringBuilder types = new StringBuilder();
      StringBuilder args = new StringBuilder();
      for (int i = 0; i < typed.length; i += 2) {
        if (i > 0) {
          types.append(", ");
          args.append(", ");
        }
        types.append(typed[i]);
        args.append(typed[i]).append(' ').append(typed[i + 1]);
      }
      decls.putIfAbsent(fn, "declare " + (ret == null ? "void" : ret) + " @" + ArrayDriver.quoteName(fn) + "(" + types + ")");
      if (ret == null) {
        line("call void @" + ArrayDriver.quoteName(fn) + "(" + args + ")");
        return null;
      }
      String v = t();
      line(v + " = call " + ret + " @" + ArrayDriver.quoteName(fn) + "(" + args + ")");
      return v;
    }

    private String splat(String vecT, String scalarT, String v) {
      String a = t();
      line(a + " = insertelement " + vecT + " poison, " + scalarT + " " + v + ", i64 0");
      String r = t();
      line(r + " = shufflevector " + vecT + " " + a + ", " + vecT + " poison, " + nx(vecLanes(vecT), "i32") + " zeroinitializer");
      return r;
    }

    private static int vecLanes(String vecT) {
      String s = vecT.substring("<vscale x ".length());
      return Integer.parseInt(s.substring(0, s.indexOf(' ')));
    }

    private String anyOf(String m) { return call("i1", "llvm.vector.reduce.or.nxv" + w + "i1", mT, m); }

    /** {@code v} of type {@code from} as type {@code to} (packet functions may keep i1 packets as integer vectors). */
    private String convert(String v, Type from, Type to) { return convert(v, from, to, null); }

    /** As above, the result named {@code named} (when a conversion is needed). */
    private String convert(String v, Type from, Type to, String named) {
      if (from.equals(to)) return v;
      Type fe = elem(from);
      Type te = elem(to);
      if (fe.isInteger() && te.isInteger()) {
        String r = named != null ? named : t();
        if (te.isInteger(1)) line(r + " = icmp ne " + from + " " + v + ", zeroinitializer");
        else if (fe.isInteger(1)) line(r + " = sext " + from + " " + v + " to " + to);
        else line(r + " = " + (fe.intWidth() < te.intWidth() ? "sext " : "trunc ") + from + " " + v + " to " + to);
        return r;
      }
      throw new IllegalStateException("scalable refill: cannot pass " + from + " as " + to);
    }

    /** Per-round values of the compaction of two-register (64-bit, W = 4) packets: mask halves and splice predicates. */
    private String[] halves;

    private String[] halves(String active) {
      if (halves != null) return halves;
      String m2 = nx(2, "i1");
      String lo = call(m2, "llvm.vector.extract.nxv2i1.nxv4i1", mT, active, "i64", "0");
      String hi = call(m2, "llvm.vector.extract.nxv2i1.nxv4i1", mT, active, "i64", "2");
      String nLo = call("i64", "llvm.aarch64.sve.cntp.nxv2i1", m2, "splat (i1 true)", m2, lo);
      // the first half of the result: lo's nLo lanes, then hi's (SPLICE: the active segment of the first
      // operand, then the second's lanes from its start; no lane active: the second operand)
      String pgLo = call(m2, "llvm.get.active.lane.mask.nxv2i1.i64", "i64", "0", "i64", nLo);
      // the second half: hi's lanes from 2·vscale − nLo on (the segment from there to the end)
      String from = t();
      line(from + " = sub i64 %half, " + nLo);
      String below = call(m2, "llvm.get.active.lane.mask.nxv2i1.i64", "i64", "0", "i64", from);
      String pgHi = t();
      line(pgHi + " = xor " + m2 + " " + below + ", splat (i1 true)");
      halves = new String[] {lo, hi, pgLo, pgHi};
      return halves;
    }

    /**
     * The lanes {@code active} of {@code v} (type {@code t}, a {@code <vscale x W x E>}) moved to the front in lane
     * order (SVE compact, RVV vcompress; the other lanes: zero or anything).
     */
    private String compact(String v, Type t, String active) {
      return isa == Isa.RVV ? vcompress(v, t, active) : sveCompact(v, t, active);
    }

    /** {@code r} = the number of lanes of mask {@code m} (SVE cntp, RVV vcpop over the whole register group). */
    private void count(String r, String m) {
      if (isa == Isa.RVV) {
        // VL = -1: VLMAX, the whole mask (vsetvli zero)
        line(r + " = call i64 @llvm.riscv.vcpop.nxv" + w + "i1.i64(" + mT + " " + m + ", i64 -1)");
        decls.putIfAbsent("vcpop", "declare i64 @llvm.riscv.vcpop.nxv" + w + "i1.i64(" + mT + ", i64)");
      } else {
        line(r + " = call i64 @llvm.aarch64.sve.cntp.nxv" + w + "i1(" + mT + " splat (i1 true), " + mT + " " + m + ")");
        decls.putIfAbsent("cntp", "declare i64 @llvm.aarch64.sve.cntp.nxv" + w + "i1(" + mT + ", " + mT + ")");
      }
    }

    /**
     * RVV: one {@code vcompress.vm} per value at its own element width ({@code llvm.experimental.vector.compress},
     * which LLVM 20's RISC-V back end selects as vcompress over the register group); pointers as 64-bit integers,
     * {@code i1} state as bytes (vcompress moves elements, not mask bits).
     */
    private String vcompress(String v, Type t, String active) {
      Type e = elem(t);
      String x = v;
      String ct = t.toString();
      if (e.isPointer() || e.isInteger(1)) {
        ct = nx(e.isPointer() ? "i64" : "i8");
        x = t();
        line(x + " = " + (e.isPointer() ? "ptrtoint " : "zext ") + t + " " + v + " to " + ct);
      }
      String suffix = "nxv" + w + (e.isPointer() ? "i64" : e.isInteger(1) ? "i8" : typeName(e));
      String c = call(ct, "llvm.experimental.vector.compress." + suffix, ct, x, mT, active, ct, "poison");
      if (ct.equals(t.toString())) return c;
      String r = t();
      line(r + " = " + (e.isPointer() ? "inttoptr " : "trunc ") + ct + " " + c + " to " + t);
      return r;
    }

    /** SVE compact on 32- or 64-bit lanes (see {@link #compact}). */
    private String sveCompact(String v, Type t, String active) {
      Type e = elem(t);
      int bits = e.isFloat() ? 32 : e.isDouble() || e.isPointer() ? 64 : e.intWidth();
      int unit = bits <= 32 && w == 4 ? 32 : 64;
      String ut = nx("i" + unit);
      // to the unit integer
      String x = v;
      if (e.isPointer()) {
        x = t();
        line(x + " = ptrtoint " + t + " " + v + " to " + ut);
      } else if (e.isFloat() || e.isDouble()) {
        String bc = t();
        line(bc + " = bitcast " + t + " " + v + " to " + nx("i" + bits));
        x = bc;
        if (bits < unit) {
          x = t();
          line(x + " = zext " + nx("i" + bits) + " " + bc + " to " + ut);
        }
      } else if (bits < unit) {
        x = t();
        line(x + " = zext " + t + " " + v + " to " + ut);
      }
      String c;
      if (unit * w == 128) {
        c = call(ut, "llvm.aarch64.sve.compact.nxv" + w + "i" + unit, mT, active, ut, x);
      } else {
        // W = 4, 64-bit lanes: two registers; compact each half, then join them at the first half's count
        String[] h = halves(active);
        String pt = nx(2, "i64");
        String m2 = nx(2, "i1");
        String lo = call(pt, "llvm.vector.extract.nxv2i64.nxv4i64", ut, x, "i64", "0");
        String hi = call(pt, "llvm.vector.extract.nxv2i64.nxv4i64", ut, x, "i64", "2");
        String clo = call(pt, "llvm.aarch64.sve.compact.nxv2i64", m2, h[0], pt, lo);
        String chi = call(pt, "llvm.aarch64.sve.compact.nxv2i64", m2, h[1], pt, hi);
        String first = call(pt, "llvm.aarch64.sve.splice.nxv2i64", m2, h[2], pt, clo, pt, chi);
        // (not poison as the second operand: LLVM 20 then drops the splice and returns chi unshifted, measured wrong
        // under qemu at 128 bits)
        String second = call(pt, "llvm.aarch64.sve.splice.nxv2i64", m2, h[3], pt, chi, pt, "zeroinitializer");
        String j = call(ut, "llvm.vector.insert.nxv4i64.nxv2i64", ut, "poison", pt, first, "i64", "0");
        c = call(ut, "llvm.vector.insert.nxv4i64.nxv2i64", ut, j, pt, second, "i64", "2");
      }
      // back
      String r = t();
      if (e.isPointer()) line(r + " = inttoptr " + ut + " " + c + " to " + t);
      else if (e.isFloat() || e.isDouble()) {
        String y = c;
        if (bits < unit) {
          y = t();
          line(y + " = trunc " + ut + " " + c + " to " + nx("i" + bits));
        }
        line(r + " = bitcast " + nx("i" + bits) + " " + y + " to " + t);
      } else if (bits < unit) line(r + " = trunc " + ut + " " + c + " to " + t);
      else return c;
      return r;
    }

    /** The element type of a (scalable) vector type. */
    private static Type elem(Type t) { return t.isVector() || t.toString().startsWith("<vscale") ? t.elementType() : t; }

    private static String typeName(Type t) {
      return t.isFloat() ? "f32" : t.isDouble() ? "f64" : t.isPointer() ? "p0" : "i" + t.intWidth();
    }

    String emit() {
      List<Type> ptypes = scalar.functionType().paramTypes();
      Type rt = scalar.returnType();
      boolean hasOut = !rt.isVoid();
      Type preRet = pre.returnType();
      List<Type> preParams = pre.functionType().paramTypes();
      List<Type> iterParams = iter.functionType().paramTypes();
      Type iterRet = iter.returnType();
      int ns = split.state().size();
      List<Type> stateT = new ArrayList<>();
      for (int k = 0; k < ns; k++) stateT.add(preRet.structElements().get(1 + k));
      Type resT = hasOut ? preRet.structElements().get(1 + ns) : null;
      String preAtT = preRet.structElements().get(0).toString();
      Type mType = pre.functionType().paramTypes().getLast();
      if (!mType.toString().equals(mT)) throw new IllegalStateException("scalable refill: the predicate of @" + pre.name() + " is " + mType);
      String rT = hasOut ? nx(rt.toString()) : null;
      if (hasOut && !resT.toString().equals(rT)) throw new IllegalStateException("scalable refill: result " + resT + ", want " + rT);
      StringBuilder params = new StringBuilder();
      for (int i = 0; i < kinds.size(); i++) {
        params.append(kinds.get(i) instanceof ParamKind.Varying ? "ptr" : ptypes.get(i).toString()).append(" %a").append(i).append(", ");
      }
      if (hasOut) params.append("ptr %out, ");
      params.append("i64 %n");
      StringBuilder head = new StringBuilder("define void @" + ArrayDriver.quoteName(name) + "(" + params + ") {\n");
      label("entry");
      String vscale = call("i64", "llvm.vscale.i64");
      line("%lanes = mul i64 " + vscale + ", " + w);
      line("%half = mul i64 " + vscale + ", " + (w / 2));
      line("%budget.scale = mul i64 %lanes, " + RefillDriver.BLOCK_SCALE);
      line("%busy.most = mul i64 " + vscale + ", " + (w - minFree));
      String iota = call(idxT, "llvm.stepvector.nxv" + w + "i64");
      line("br label %round");

      label("round");
      line("%idx = phi " + idxT + " [ zeroinitializer, %entry ], [ %idx.r, %idle ], [ %idx.r, %iterate.exit ]");
      for (int k = 0; k < ns; k++) {
        line("%s" + k + " = phi " + stateT.get(k) + " [ poison, %entry ], [ %s" + k + ".r, %idle ], [ %s" + k
            + ".it.next, %iterate.exit ]");
      }
      if (hasOut) line("%res = phi " + rT + " [ poison, %entry ], [ %res.r, %idle ], [ %res.next, %iterate.exit ]");
      line("%active = phi " + mT + " [ zeroinitializer, %entry ], [ %active.r, %idle ], [ %active.next, %iterate.exit ]");
      line("%done = phi " + mT + " [ zeroinitializer, %entry ], [ %done.r, %idle ], [ %done.next, %iterate.exit ]");
      line("%next = phi i64 [ 0, %entry ], [ %next.r, %idle ], [ %next.r, %iterate.exit ]");
      line("%block = phi i64 [ 1, %entry ], [ %block.next, %idle ], [ %block.next, %iterate.exit ]");
      line("%iterations = phi i64 [ 0, %entry ], [ %iterations, %idle ], [ %iterations.next, %iterate.exit ]");
      String anyDone = anyOf("%done");
      line("br i1 " + anyDone + ", label %store.done, label %refill.check");

      label("store.done");
      if (hasOut) {
        String pv = nx("ptr");
        String at = t();
        line(at + " = getelementptr " + rt + ", ptr %out, " + idxT + " %idx");
        call(null, "llvm.masked.scatter." + "nxv" + w + typeName(rt) + ".nxv" + w + "p0", rT, "%res", pv, at, "i32",
            String.valueOf(module.abiAlignment(rt)), mT, "%done");
      }
      line("br label %refill.check");

      label("refill.check");
      count("%in.loop", "%active");
      line("%has.free = icmp ult i64 %in.loop, %lanes");
      line("%input.left = icmp ult i64 %next, %n");
      line("%can.refill = and i1 %has.free, %input.left");
      line("br i1 %can.refill, label %refill, label %run.check");

      label("refill");
      halves = null;
      line("%left = sub i64 %n, %next");
      line("%free.count = sub i64 %lanes, %in.loop");
      String taken = call("i64", "llvm.umin.i64", "i64", "%free.count", "i64", "%left");
      line("%end = add i64 %in.loop, " + taken);
      String front = call(mT, "llvm.get.active.lane.mask.nxv" + w + "i1.i64", "i64", "0", "i64", "%in.loop");
      String upto = call(mT, "llvm.get.active.lane.mask.nxv" + w + "i1.i64", "i64", "0", "i64", "%end");
      line("%take = xor " + mT + " " + upto + ", " + front);
      line("%base = sub i64 %next, %in.loop");
      String baseSplat = splat(idxT, "i64", "%base");
      line("%new.idx = add " + idxT + " " + baseSplat + ", " + iota);
      line("%next.after = add i64 %next, " + taken);
      List<String> stC = new ArrayList<>();
      for (int k = 0; k < ns; k++) stC.add(compact("%s" + k, stateT.get(k), "%active"));
      String idxC = compact("%idx", ctxI64Vec(), "%active");
      List<String> args = new ArrayList<>();
      for (int j = 0; j < kinds.size(); j++) {
        ParamKind k = kinds.get(j);
        Type t = ptypes.get(j);
        Type want = preParams.get(j);
        if (k instanceof ParamKind.Varying) {
          String vt = nx(t.toString());
          String at = t();
          // not inbounds: the lanes below c address elements before next (masked off)
          line(at + " = getelementptr " + t + ", ptr %a" + j + ", i64 %base");
          String v = call(vt, "llvm.masked.load.nxv" + w + typeName(t) + ".p0", "ptr", at, "i32",
              String.valueOf(module.abiAlignment(t)), mT, "%take", vt, "poison");
          args.add(want + " " + v);
        } else if (k instanceof ParamKind.Linear lin) {
          String off = t();
          String stepSplat = splat(idxT, "i64", String.valueOf(lin.step()));
          line(off + " = mul " + idxT + " %new.idx, " + stepSplat);
          String v = t();
          if (t.isPointer()) {
            line(v + " = getelementptr i8, ptr %a" + j + ", " + idxT + " " + off);
          } else {
            String vt = nx(t.toString());
            String o = off;
            if (t.intWidth() < 64) {
              o = t();
              line(o + " = trunc " + idxT + " " + off + " to " + vt);
            }
            String a = splat(vt, t.toString(), "%a" + j);
            line(v + " = add " + vt + " " + a + ", " + o);
          }
          args.add(want + " " + v);
        } else {
          args.add(t + " %a" + j);
        }
      }
      args.add(mT + " %take");
      decls.putIfAbsent(pre.name(), "declare " + preRet + " @" + ArrayDriver.quoteName(pre.name()) + "("
          + String.join(", ", preParams.stream().map(Type::toString).toList()) + ")");
      line("%pre = call " + preRet + " @" + ArrayDriver.quoteName(pre.name()) + "(" + String.join(", ", args) + ")");
      line("%pre.at0 = extractvalue " + preRet + " %pre, 0");
      String preAt = convert("%pre.at0", preRet.structElements().get(0), mType);
      line("%enter = and " + mT + " %take, " + preAt);
      line("%pre.out = xor " + mT + " " + preAt + ", splat (i1 true)");
      line("%pre.done = and " + mT + " %take, %pre.out");
      for (int k = 0; k < ns; k++) {
        line("%pre.s" + k + " = extractvalue " + preRet + " %pre, " + (1 + k));
        line("%s" + k + ".in = select " + mT + " %take, " + stateT.get(k) + " %pre.s" + k + ", " + stateT.get(k) + " " + stC.get(k));
      }
      line("%idx.in = select " + mT + " %take, " + idxT + " %new.idx, " + idxT + " " + idxC);
      if (hasOut) {
        line("%pre.res = extractvalue " + preRet + " %pre, " + (1 + ns));
        line("%res.in = select " + mT + " %pre.done, " + rT + " %pre.res, " + rT + " %res");
      }
      line("%active.in = or " + mT + " " + front + ", %enter");
      line("br label %run.check");

      label("run.check");
      line("%idx.r = phi " + idxT + " [ %idx, %refill.check ], [ %idx.in, %refill ]");
      for (int k = 0; k < ns; k++) line("%s" + k + ".r = phi " + stateT.get(k) + " [ %s" + k + ", %refill.check ], [ %s" + k + ".in, %refill ]");
      if (hasOut) line("%res.r = phi " + rT + " [ %res, %refill.check ], [ %res.in, %refill ]");
      line("%active.r = phi " + mT + " [ %active, %refill.check ], [ %active.in, %refill ]");
      line("%done.r = phi " + mT + " [ zeroinitializer, %refill.check ], [ %pre.done, %refill ]");
      line("%next.r = phi i64 [ %next, %refill.check ], [ %next.after, %refill ]");
      // blocks: k follows ⌊√(c·T)⌋, T = L·steps / elements started (compared squared: no division, no square root)
      String started = call("i64", "llvm.umax.i64", "i64", "%next.r", "i64", "1");
      line("%budget = mul i64 %iterations, %budget.scale");
      line("%k1 = add i64 %block, 1");
      line("%k1.sq = mul i64 %k1, %k1");
      line("%k1.need = mul i64 %k1.sq, " + started);
      line("%k.sq = mul i64 %block, %block");
      line("%k.need = mul i64 %k.sq, " + started);
      line("%below.max = icmp ult i64 %block, " + RefillDriver.MAX_BLOCK);
      line("%short = icmp uge i64 %budget, %k1.need");
      line("%block.up = and i1 %below.max, %short");
      line("%above.one = icmp ult i64 1, %block");
      line("%long = icmp ult i64 %budget, %k.need");
      line("%block.down = and i1 %above.one, %long");
      line("%k0 = sub i64 %block, 1");
      line("%block.dn = select i1 %block.down, i64 %k0, i64 %block");
      line("%block.next = select i1 %block.up, i64 %k1, i64 %block.dn");
      line("%input.left3 = icmp ult i64 %next.r, %n");
      line("%threshold = select i1 %input.left3, i64 %busy.most, i64 0");
      String anyActive = anyOf("%active.r");
      line("br i1 " + anyActive + ", label %iterate, label %idle");

      label("idle");
      String anyDone2 = anyOf("%done.r");
      line("%more = or i1 %input.left3, " + anyDone2);
      line("br i1 %more, label %round, label %exit");

      label("iterate");
      for (int k = 0; k < ns; k++) {
        line("%s" + k + ".it = phi " + stateT.get(k) + " [ %s" + k + ".r, %run.check ], [ %s" + k + ".it.next, %iterate ]");
      }
      if (hasOut) line("%res.it = phi " + rT + " [ %res.r, %run.check ], [ %res.next, %iterate ]");
      line("%active.it = phi " + mT + " [ %active.r, %run.check ], [ %active.next, %iterate ]");
      line("%count = phi i64 [ 0, %run.check ], [ %count.next, %iterate ]");
      List<String> iargs = new ArrayList<>();
      for (int k = 0; k < ns; k++) iargs.add(iterParams.get(k) + " " + convert("%s" + k + ".it", stateT.get(k), iterParams.get(k)));
      for (int i = 0; i < split.uniformArgs().size(); i++) {
        int j = split.uniformArgs().get(i);
        iargs.add(ptypes.get(j) + " %a" + j);
      }
      iargs.add(mT + " " + (unmasked ? "splat (i1 true)" : "%active.it"));
      decls.putIfAbsent(iter.name(), "declare " + iterRet + " @" + ArrayDriver.quoteName(iter.name()) + "("
          + String.join(", ", iterParams.stream().map(Type::toString).toList()) + ")");
      line("%iter = call " + iterRet + " @" + ArrayDriver.quoteName(iter.name()) + "(" + String.join(", ", iargs) + ")");
      line("%iter.at0 = extractvalue " + iterRet + " %iter, 0");
      String iterAt = convert("%iter.at0", iterRet.structElements().get(0), mType);
      for (int k = 0; k < ns; k++) {
        String v = iterRet.structElements().get(1 + k).equals(stateT.get(k)) ? "%s" + k + ".it.next" : t();
        line(v + " = extractvalue " + iterRet + " %iter, " + (1 + k));
        convert(v, iterRet.structElements().get(1 + k), stateT.get(k), "%s" + k + ".it.next");
      }
      if (hasOut) {
        line("%iter.res = extractvalue " + iterRet + " %iter, " + (1 + ns));
        String c = convert("%iter.res", iterRet.structElements().get(1 + ns), resT);
        line("%res.next = select " + mT + " %active.it, " + rT + " " + c + ", " + rT + " %res.it");
      }
      // (a select, not an and: an unmasked iter's answer for a lane that is not in the loop may be poison)
      line("%active.next = select " + mT + " %active.it, " + mT + " " + iterAt + ", " + mT + " zeroinitializer");
      line("%count.next = add i64 %count, 1");
      String still = anyOf("%active.next");
      if (blocks) {
        line("%in.count = icmp ult i64 %count.next, %block.next");
        line("%drain = icmp uge i64 %next.r, %n");
        line("%in.block = or i1 %in.count, %drain");
        line("%keep = and i1 " + still + ", %in.block");
      } else {
        count("%busy", "%active.next");
        line("%keep = icmp ult i64 %threshold, %busy");
      }
      line("br i1 %keep, label %iterate, label %iterate.exit");

      label("iterate.exit");
      line("%left.loop = xor " + mT + " %active.next, splat (i1 true)");
      line("%finished = and " + mT + " %active.r, %left.loop");
      line("%done.next = or " + mT + " %done.r, %finished");
      line("%iterations.next = add i64 %iterations, %count.next");
      line("br label %round");

      label("exit");
      line("ret void");
      sb.append("}\n");
      StringBuilder all = new StringBuilder();
      for (String d : decls.values()) all.append(d).append('\n');
      return all.append(head).append(sb).toString();
    }

    private Type ctxI64Vec() { return module.context().i64().scalableVectorOf(w); }
  }
}
