package org.packetizer.core.driver;

import org.packetizer.core.wrapper.Latency;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.mapping.VectorAbi;

/**
 * Array drivers (issue 17 §1): a C-callable function that maps the scalar function over arrays with
 * the packet function, so that a C program uses packet code with no vector types at all.
 *
 * <p>For a scalar {@code R f(P0 p0, ..., Pk pk)} the driver is
 * {@code void f_map(A0 a0, ..., Ak ak, R *out, size_t n)}: the scalar parameters in their order, then
 * the output array (absent for a void function), then the element count. A varying parameter
 * becomes a pointer to an array of n elements ({@code const P*}), a uniform one stays a value passed
 * to every element, a linear one is the value of element 0 (element i sees {@code a + i*step}; for a
 * pointer, step in bytes). Element i computes {@code out[i] = f(a0[i], ..., ak[i])}.
 *
 * <p>The body: full packets of W elements with plain vector loads, one call of the unmasked W-wide
 * packet function and a plain vector store; then, if n is not a multiple of W, the remainder as ONE
 * masked packet (lane l active iff {@code l < n % W}) with masked loads and stores, so that nothing
 * outside the n elements is read or written. No scalar epilogue. The driver has only scalar and
 * pointer parameters, so the target's C calling convention is its whole interface; the packet
 * functions it calls keep their own convention (the other variant is internal and may be inlined).
 *
 * <p>Refusals: struct-of-arrays pointer parameters (the caller would have to lay out packets, which
 * is what a driver is to hide), and parameter or result types without a plain C element type
 * (aggregates, vectors, half, integers other than 1/8/16/32/64 bits).
 *
 * <p>Lane refill (issue 17 §2, {@link org.packetizer.core.api.Refill}): with {@code Refill.ON} the
 * driver's body is {@link RefillDriver}'s loop instead (same signature); with {@code Refill.AUTO},
 * where the static rule holds, the driver runs chunks with either body (internal {@code NAME.plain},
 * {@code NAME.refill}), chosen by measurement while it runs. Where refill is not built, a remark says
 * why and the plain driver is emitted.
 */
public final class ArrayDriver {
  private ArrayDriver() {}

  /**
   * Adds the array driver for {@code result}'s packet function. On failure the caller rolls the module
   * back (everything this adds is new).
   */
  public static PacketizationResult build(LlvmModule module, PacketizationResult result, PacketizerOptions options,
      VariantPacketizer packetizer) {
    String fn = result.scalarFunction();
    String name = options.arrayDriverName(fn).orElseThrow();
    Function scalar = module.function(fn).orElseThrow();
    if (module.function(name).isPresent() || module.global(name).isPresent() || module.hasAlias(name)) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the array driver's name @" + name + " is already used in the module; choose"
          + " another name pattern (--array-driver=PATTERN, * stands for the scalar function's name)", fn);
    }
    if (name.equals(result.packetFunction())) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the array driver cannot have the packet function's name @" + name, fn);
    }
    List<ParamKind> kinds = result.params();
    LlvmContext ctx = module.context();
    List<Type> scalarParams = scalar.functionType().paramTypes();
    for (int i = 0; i < kinds.size(); i++) {
      Value p = scalar.param(i);
      String pn = p.name().isEmpty() ? "#" + i : "%" + p.name() + " (#" + i + ")";
      if (kinds.get(i) instanceof ParamKind.SoaPointer) {
        throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the array driver cannot map over the struct-of-arrays pointer parameter "
            + pn + ": its packet layout is what a driver hides from C callers; give it kind v (an array of pointers),"
            + " u or l instead, or call the packet function directly", fn, null, null);
      }
      if (cType(scalarParams.get(i)) == null) {
        throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the array driver cannot pass parameter " + pn + " of type "
            + scalarParams.get(i) + ": only i1 (bool), i8/i16/i32/i64, float, double and pointers have a C element type",
            fn, null, null);
      }
    }
    Type rt = scalar.returnType();
    if (!rt.isVoid() && cType(rt) == null) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the array driver cannot store results of type " + rt + ": only i1 (bool),"
          + " i8/i16/i32/i64, float, double and pointers have a C element type", fn, null, null);
    }
    Type sizeT = ctx.intType((int) (module.allocSize(ctx.ptrType()) * 8));
    List<Type> driverParams = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      driverParams.add(kinds.get(i) instanceof ParamKind.Varying ? ctx.ptrType() : scalarParams.get(i));
    }
    if (!rt.isVoid()) driverParams.add(ctx.ptrType());
    driverParams.add(sizeT);
    String decl0 = cDeclaration(name, kinds, scalarParams, rt, cNames(scalar, !rt.isVoid()));
    Remark refillNote = null;
    Remark refillIcNote = null;
    Remark refillTableNote = null;
    boolean adaptive = false;
    Function probe = null;
    Ic plainIc = null;
    int w = result.width();
    if (options.refill() != Refill.OFF) {
      // lane refill (issue 17 §2): the same C signature, another body (auto: both bodies, chosen while running);
      // IC independent refill states per step where Interleave's rule (its refill variant) says so
      boolean auto = options.refill() == Refill.AUTO;
      Function driver = newDriver(module, scalar, auto ? name + ".refill" : name, driverParams, rt, fn);
      Ic ric = interleave(scalar, w, options, kinds, true, null);
      // auto: the occupancy probe runs the plain body's IC·W lanes in lock step (a last parameter: its counters)
      if (auto && RefillDriver.adaptiveProbe()) {
        plainIc = interleave(scalar, w, options, kinds, false, module.function(result.packetFunction()).orElse(null));
        List<Type> probeParams = new ArrayList<>(driverParams);
        probeParams.add(ctx.ptrType());
        probe = newDriver(module, scalar, name + ".probe", probeParams, rt, fn);
      }
      RefillDriver.Outcome o = RefillDriver.tryBuild(module, scalar, driver, result, options, packetizer, sizeT, ric.factor(),
          probe, plainIc == null ? 1 : plainIc.factor());
      options.remarks().accept(o.remark());
      if (o.built()) {
        Remark icr = new Remark(Remark.Kind.NOTE, fn, null, null, "refill body: " + ric.text());
        options.remarks().accept(icr);
        o = new RefillDriver.Outcome(true, o.remark(), icr);
        refillTableNote = ric.tableRemark(fn);
        if (refillTableNote != null) options.remarks().accept(refillTableNote);
      }
      if (o.built() && !auto) {
        module.verify().ifPresent(msg -> {
          throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the refill driver is"
              + " invalid: " + msg, fn);
        });
        PacketizationResult rr = result.withRemark(o.remark()).withRemark(o.icRemark());
        if (refillTableNote != null) rr = rr.withRemark(refillTableNote);
        return rr.withDriver(new PacketizationResult.DriverInfo(name, decl0, name));
      }
      if (o.built()) {
        driver.setInternalLinkage();
        if (probe != null) probe.setInternalLinkage();
        adaptive = true;
      } else {
        driver.delete();
        if (probe != null) probe.delete();
        probe = null;
      }
      refillNote = o.remark();
      refillIcNote = o.icRemark();
    }
    // the interleave count (issue 16): IC independent W-lane chains per step where the loops are
    // bound by the latency of a loop-carried chain (Interleave's rule) — for the plain driver, and for
    // the plain body of --refill=auto (timed against the refill body); a plain driver emitted because
    // --refill could not be built keeps one chain (docs/drivers.md)
    int ic = 1;
    Remark icNote = null;
    Remark tableNote = null;
    if (options.refill() != Refill.ON) {
      Ic pic = plainIc != null ? plainIc : interleave(scalar, w, options, kinds, false, module.function(result.packetFunction()).orElse(null));
      ic = pic.factor();
      icNote = new Remark(Remark.Kind.NOTE, fn, null, null, pic.text());
      tableNote = pic.tableRemark(fn);
    }
    Function unmasked;
    Function masked;
    if (ic > 1) {
      // IC·W lanes compiled for the same W-lane registers: the code generator splits each operation
      // into IC independent W-wide ones (no wrapper, which would run the IC packets one after the other)
      String base = result.packetFunction() + ".x" + ic;
      PacketizerOptions.Builder ob = options.toBuilder().width(ic * w).params(kinds).vectorAbi(false).cAbi(false)
          .arrayDriver((String) null).refill(Refill.OFF).interleave(1).remarks(r -> {})
          .wrapperMode(org.packetizer.core.api.WrapperMode.DIRECT);
      packetizer.run(ob.masked(false).build(), fn, base);
      packetizer.run(ob.masked(true).build(), fn, base + ".masked");
      unmasked = module.function(base).orElseThrow();
      masked = module.function(base + ".masked").orElseThrow();
      unmasked.setInternalLinkage();
      masked.setInternalLinkage();
    } else {
      // the other mask variant: full packets run unmasked, the remainder masked
      String variantName = result.packetFunction() + (options.masked() ? ".unmasked" : ".masked");
      PacketizerOptions variantOptions = options.toBuilder().masked(!options.masked()).params(kinds).vectorAbi(false).cAbi(false)
          .arrayDriver((String) null).refill(Refill.OFF).remarks(r -> {}).build();
      packetizer.run(variantOptions, fn, variantName);
      Function variant = module.function(variantName).orElseThrow();
      variant.setInternalLinkage();
      // LLVM's form of the packet function (when it is also published in a C or vector-ABI form around it)
      Function primary = module.function(result.packetFunction() + SignatureAbi.IR_FORM_SUFFIX)
          .or(() -> module.function(result.packetFunction() + VectorAbi.IR_FORM_SUFFIX))
          .or(() -> module.function(result.packetFunction())).orElseThrow();
      unmasked = options.masked() ? variant : primary;
      masked = options.masked() ? primary : variant;
    }
    if (icNote != null) options.remarks().accept(icNote);
    if (tableNote != null) options.remarks().accept(tableNote);
    // (stackRealign) AVX-512: a packet function with a loop realigns its stack, so that its 64-byte spills are aligned
    // whatever its caller's frame (they split cache lines at some offsets: volume W16, the same code 2-3 % slower or
    // faster by where the caller's stack ended, and the auto driver's plain body, one frame deeper, at another offset
    // than the plain driver)
    if (stackRealign() && RefillDriver.targetFeatures(scalar, options).contains("+avx512f")) {
      for (Function f : List.of(unmasked, masked)) {
        if (org.packetizer.core.ir.LoopAlign.hasLoop(f)) f.setStringAttribute("stackrealign", "");
      }
    }
    Function driver = newDriver(module, scalar, adaptive ? name + ".plain" : name, driverParams, rt, fn);
    List<String> cNames = cNames(scalar, !rt.isVoid());
    new Emitter(module, driver, unmasked, masked, kinds, scalarParams, rt, sizeT, ic * w).emit();
    if (adaptive) {
      driver.setInternalLinkage();
      Function dispatcher = newDriver(module, scalar, name, driverParams, rt, fn);
      RefillDriver.emitAdaptive(module, dispatcher, driver, module.function(name + ".refill").orElseThrow(), probe, ic * w,
          kinds, scalarParams, rt, sizeT, result.width(), RefillDriver.pairedTrial(scalar, options));
    }
    // caller and callees pass the packets in the same registers
    SignatureAbi.fitCallers(unmasked);
    SignatureAbi.fitCallers(masked);
    module.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the array driver is invalid: "
          + msg, fn);
    });
    String decl = cDeclaration(name, kinds, scalarParams, rt, cNames);
    Remark note = new Remark(Remark.Kind.NOTE, fn, null, null, "array driver " + decl + " maps @" + fn + " over arrays: "
        + "full packets call @" + unmasked.name() + (ic > 1 ? " (" + ic + " x " + w + " lanes)" : "")
        + ", the remainder one masked @" + masked.name()
        + (adaptive ? "; --refill=auto: " + RefillDriver.adaptiveDescription(RefillDriver.pairedTrial(scalar, options)) : ""));
    options.remarks().accept(note);
    PacketizationResult r0 = refillNote == null ? result : result.withRemark(refillNote);
    if (refillIcNote != null) r0 = r0.withRemark(refillIcNote);
    if (refillTableNote != null) r0 = r0.withRemark(refillTableNote);
    if (icNote != null) r0 = r0.withRemark(icNote);
    if (tableNote != null) r0 = r0.withRemark(tableNote);
    return r0.withRemark(note).withDriver(new PacketizationResult.DriverInfo(name, decl, masked.name()));
  }

  /**
   * Whether the array driver's packet functions realign their stack on AVX-512 when they have a loop ({@code
   * -Dpacketizer.driverStackRealign=false}: LLVM's default, 64-byte spills at 16-byte-aligned offsets), read at each build.
   */
  static boolean stackRealign() { return !"false".equals(System.getProperty("packetizer.driverStackRealign")); }

  /** An interleave count, the remark text saying why, and the one naming the latency table (null when forced). */
  private record Ic(int factor, String text, String table) {
    /** The latency table's remark for {@code fn}, or null. */
    Remark tableRemark(String fn) { return table == null ? null : new Remark(Remark.Kind.NOTE, fn, null, null, table); }
  }

  /**
   * The interleave count of the plain driver's body or ({@code refill}) of the refill body: the option's
   * when forced, else {@link Interleave}'s rule (for refill {@link Interleave#chooseForRefill}); for the plain
   * driver 1 automatically when the packet is already wider than the hardware (its halves are independent chains).
   */
  private static Ic interleave(Function scalar, int w, PacketizerOptions options, List<ParamKind> kinds, boolean refill,
      Function packetFunction) {
    // the target the code is generated for: the options' CPU and features, else the function's, else the host's
    String cpu = options.targetCpu().orElse(null), features = options.targetFeatures().orElse(null);
    Interleave.Choice choice = refill ? Interleave.chooseForRefill(scalar, w, options.interleave(), kinds, cpu, features)
        : Interleave.choose(scalar, w, options.interleave(), kinds, packetFunction, cpu, features);
    int hw = options.hardwareWidth() > 0 ? options.hardwareWidth()
        : org.packetizer.core.wrapper.HardwareWidth.resolve(scalar, options.targetCpu().orElse(null),
            options.targetFeatures().orElse(null)).width();
    int ic = choice.factor();
    String text = choice.describe(w);
    // the latency table the estimates used (the CPU's family; a generic name's is LLVM's model for it: Latency.family)
    Interleave.Registers regs = Interleave.registers(scalar, cpu, features);
    String table = choice.forced() ? null : (refill ? "refill body: " : "") + "the interleave rule's latency table: "
        + Latency.family(regs.cpu(), regs.arm()).describe() + ", for CPU '" + regs.cpu() + "'";
    // (not for refill: its states are separate chains with their own rounds, and the rule's estimate already counts
    // the registers a wide value takes; measured on AVX2 at W16: IC 2 1.2-1.35x faster than 1, docs/performance.md)
    if (ic > 1 && !choice.forced() && w > hw && !refill) {
      ic = 1;
      text = "interleave count 1: the packet of " + w + " lanes is already wider than the hardware's " + hw
          + " (its halves run as independent chains); the rule's estimates: " + choice.describe(w);
    }
    return new Ic(ic, text, table);
  }

  /**
   * The array driver of a scalable packet function {@code scalableName} ({@code --scalable
   * --array-driver}): the same C signature as {@link #build}; the body loops over the n elements
   * vscale × W at a time, each step's predicate {@code llvm.get.active.lane.mask(i, n)} (SVE's {@code
   * whilelo}; the last step partial), masked loads of the varying inputs, one call, a masked store of
   * the results. Nothing outside the n elements is read or written; no scalar epilogue.
   */
  public static PacketizationResult buildScalable(LlvmModule module, PacketizationResult result, String scalableName,
      PacketizerOptions options) {
    String fn = result.scalarFunction();
    String name = options.arrayDriverName(fn).orElseThrow();
    Function scalar = module.function(fn).orElseThrow();
    if (module.function(name).isPresent() || module.global(name).isPresent() || module.hasAlias(name)) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the array driver's name @" + name + " is already used in"
          + " the module; choose another name pattern (--array-driver=PATTERN, * stands for the scalar function's name)", fn);
    }
    List<ParamKind> kinds = result.params();
    List<Type> scalarParams = scalar.functionType().paramTypes();
    Type rt = scalar.returnType();
    for (int i = 0; i <= kinds.size(); i++) {
      Type t = i < kinds.size() ? scalarParams.get(i) : rt;
      if (i == kinds.size() && t.isVoid()) continue;
      String what = i < kinds.size() ? "parameter #" + i + " of type " + t : "results of type " + t;
      if (cType(t) == null || t.isInteger(1)) {
        throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the scalable array driver cannot pass "
            + what + ": only i8/i16/i32/i64, float, double and pointers have a C element type here", fn, null, null);
      }
    }
    Function packet = module.function(scalableName).orElseThrow();
    List<Type> pts = packet.functionType().paramTypes();
    int w = result.width();
    String maskT = "<vscale x " + w + " x i1>";
    StringBuilder params = new StringBuilder();
    List<String> cNames = cNames(scalar, !rt.isVoid());
    StringBuilder body = new StringBuilder();
    StringBuilder decls = new StringBuilder();
    java.util.Set<String> declared = new java.util.HashSet<>();
    List<String> args = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      Type t = scalarParams.get(i);
      String a = "%a" + i;
      ParamKind k = kinds.get(i);
      params.append(k instanceof ParamKind.Varying ? "ptr" : t.toString()).append(' ').append(a).append(", ");
      if (k instanceof ParamKind.Varying) {
        String vt = pts.get(i).toString();
        String ld = "llvm.masked.load." + nxv(w, t) + ".p0";
        if (declared.add(ld)) decls.append("declare ").append(vt).append(" @").append(ld).append("(ptr, i32, ").append(maskT)
            .append(", ").append(vt).append(")\n");
        body.append("  %p").append(i).append(" = getelementptr ").append(t).append(", ptr ").append(a).append(", i64 %i\n");
        body.append("  %x").append(i).append(" = call ").append(vt).append(" @").append(ld).append("(ptr %p").append(i)
            .append(", i32 ").append(module.abiAlignment(t)).append(", ").append(maskT).append(" %m, ").append(vt).append(" poison)\n");
        args.add(vt + " %x" + i);
      } else if (k instanceof ParamKind.Linear lin) {
        if (t.isPointer()) {
          body.append("  %o").append(i).append(" = mul i64 %i, ").append(lin.step()).append('\n');
          body.append("  %x").append(i).append(" = getelementptr i8, ptr ").append(a).append(", i64 %o").append(i).append('\n');
        } else {
          body.append("  %o").append(i).append(" = mul i64 %i, ").append(lin.step()).append('\n');
          String o = "%o" + i;
          if (t.intWidth() < 64) {
            body.append("  %t").append(i).append(" = trunc i64 %o").append(i).append(" to ").append(t).append('\n');
            o = "%t" + i;
          }
          body.append("  %x").append(i).append(" = add ").append(t).append(' ').append(a).append(", ").append(o).append('\n');
        }
        args.add(t + " %x" + i);
      } else {
        args.add(t + " " + a);
      }
    }
    args.add(maskT + " %m");
    if (!rt.isVoid()) params.append("ptr %out, ");
    params.append("i64 %n");
    String prt = packet.returnType().toString();
    decls.append("declare ").append(prt).append(" @").append(quoteName(scalableName)).append('(')
        .append(String.join(", ", pts.stream().map(Type::toString).toList())).append(")\n");
    decls.append("declare i64 @llvm.vscale.i64()\n");
    decls.append("declare ").append(maskT).append(" @llvm.get.active.lane.mask.nxv").append(w).append("i1.i64(i64, i64)\n");
    StringBuilder text = new StringBuilder(decls);
    text.append("define void @").append(quoteName(name)).append('(').append(params).append(") {\n")
        .append("entry:\n  %vscale = call i64 @llvm.vscale.i64()\n  %step = mul i64 %vscale, ").append(w).append('\n')
        .append("  %some = icmp ne i64 %n, 0\n  br i1 %some, label %packet, label %done\n")
        .append("packet:\n  %i = phi i64 [ 0, %entry ], [ %next, %packet ]\n")
        .append("  %m = call ").append(maskT).append(" @llvm.get.active.lane.mask.nxv").append(w).append("i1.i64(i64 %i, i64 %n)\n")
        .append(body);
    if (rt.isVoid()) {
      text.append("  call void @").append(quoteName(scalableName)).append('(').append(String.join(", ", args)).append(")\n");
    } else {
      String st = "llvm.masked.store." + nxv(w, rt) + ".p0";
      text.insert(0, "declare void @" + st + "(" + prt + ", ptr, i32, " + maskT + ")\n");
      text.append("  %r = call ").append(prt).append(" @").append(quoteName(scalableName)).append('(').append(String.join(", ", args)).append(")\n")
          .append("  %q = getelementptr ").append(rt).append(", ptr %out, i64 %i\n")
          .append("  call void @").append(st).append('(').append(prt).append(" %r, ptr %q, i32 ").append(module.abiAlignment(rt))
          .append(", ").append(maskT).append(" %m)\n");
    }
    text.append("  %next = add i64 %i, %step\n  %more = icmp ult i64 %next, %n\n  br i1 %more, label %packet, label %done\n")
        .append("done:\n  ret void\n}\n");
    linkDriverText(module, scalar, name, text.toString(), "scalable-driver:" + name, cNames);
    module.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the scalable array driver is"
          + " invalid: " + msg, fn);
    });
    String decl = cDeclaration(name, kinds, scalarParams, rt, cNames);
    Remark note = new Remark(Remark.Kind.NOTE, fn, null, null, "array driver " + decl + " maps @" + fn + " over arrays"
        + " vscale x " + w + " elements per call of @" + scalableName + ", the predicate from llvm.get.active.lane.mask");
    options.remarks().accept(note);
    return result.withRemark(note).withDriver(new PacketizationResult.DriverInfo(name, decl, scalableName));
  }

  /**
   * Parses a driver written as IR text, gives its function {@code name} the module's triple and data layout, the
   * scalar function's string attributes (not its {@code _ZGV} variant names), {@code nounwind} and the C parameter
   * names, and links it into {@code module}. The parsed module is closed on failure and consumed by the link.
   */
  static void linkDriverText(LlvmModule module, Function scalar, String name, String text, String source,
      List<String> cNames) {
    LlvmModule parsed = module.context().parseIr(text, source);
    try {
      parsed.setTargetTriple(module.targetTriple());
      parsed.setDataLayout(module.dataLayoutString());
      Function d = parsed.function(name).orElseThrow();
      for (var e : scalar.stringAttributes().entrySet()) {
        if (!e.getKey().startsWith("_ZGV")) d.setStringAttribute(e.getKey(), e.getValue());
      }
      d.addEnumAttribute("nounwind");
      for (int i = 0; i < cNames.size(); i++) d.param(i).setName(cNames.get(i));
    } catch (RuntimeException e) {
      parsed.close();
      throw e;
    }
    module.linkIn(parsed);
  }

  static String nxv(int w, Type t) {
    String e = t.isFloat() ? "f32" : t.isDouble() ? "f64" : t.isPointer() ? "p0" : "i" + t.intWidth();
    return "nxv" + w + e;
  }

  static String quoteName(String name) {
    return name.matches("[A-Za-z$._][\\w$.]*") ? name : "\"" + name.replace("\"", "\\22") + "\"";
  }

  /** Declares the driver function: C-callable, the scalar function's target attributes, C parameter names. */
  private static Function newDriver(LlvmModule module, Function scalar, String name, List<Type> driverParams, Type rt,
      String fn) {
    LlvmContext ctx = module.context();
    Function driver = module.addFunction(name, ctx.functionType(ctx.voidType(), driverParams, false));
    if (!driver.name().equals(name)) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the array driver could not be"
          + " named @" + name, fn);
    }
    for (var e : scalar.stringAttributes().entrySet()) {
      if (!e.getKey().startsWith("_ZGV")) driver.setStringAttribute(e.getKey(), e.getValue());
    }
    // SVE's known vector length (clang's -msve-vector-bits): lets LLVM use SVE for the driver's packets too
    scalar.enumAttributeValue("vscale_range").ifPresent(v -> driver.setEnumAttributeValue("vscale_range", v));
    driver.addEnumAttribute("nounwind");
    List<String> cNames = cNames(scalar, !rt.isVoid());
    for (int i = 0; i < Math.min(driverParams.size(), cNames.size()); i++) driver.param(i).setName(cNames.get(i));
    return driver;
  }

  /** The C type of one element, or null when there is none we map. */
  static String cType(Type t) {
    if (t.isFloat()) return "float";
    if (t.isDouble()) return "double";
    if (t.isPointer()) return "void *";
    if (t.isInteger()) {
      return switch (t.intWidth()) {
        case 1 -> "bool";
        case 8, 16, 32, 64 -> "int" + t.intWidth() + "_t";
        default -> null;
      };
    }
    return null;
  }

  private static final Set<String> C_RESERVED = Set.of("auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict",
      "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "bool", "true", "false", "out", "n", "size_t", "class", "new", "delete", "this", "template",
      "private", "public", "protected", "operator", "namespace", "using", "virtual", "friend", "throw", "try", "catch");

  /** Parameter names for the driver (and its C prototype): the scalar names where they are C identifiers. */
  static List<String> cNames(Function scalar, boolean hasOut) {
    List<String> out = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (int i = 0; i < scalar.paramCount(); i++) {
      String s = scalar.param(i).name();
      boolean ok = s.matches("[A-Za-z][A-Za-z0-9_]*") && !C_RESERVED.contains(s) && used.add(s);
      if (!ok) {
        s = "p" + i;
        while (!used.add(s)) s = "_" + s;
      }
      out.add(s);
    }
    if (hasOut) out.add("out");
    out.add("n");
    return out;
  }

  static String cDeclaration(String name, List<ParamKind> kinds, List<Type> types, Type rt, List<String> names) {
    List<String> ps = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      String t = cType(types.get(i));
      String arg = kinds.get(i) instanceof ParamKind.Varying
          ? (types.get(i).isPointer() ? "void *const *" : "const " + t + " *")
          : (t.endsWith("*") ? t : t + " ");
      ps.add(arg + names.get(i));
    }
    if (!rt.isVoid()) {
      String t = cType(rt);
      ps.add((rt.isPointer() ? "void **" : t + " *") + names.get(kinds.size()));
    }
    ps.add("size_t " + names.getLast());
    return "void " + name + "(" + String.join(", ", ps) + ");";
  }

  /**
   * A C header declaring the drivers: plain C types ({@code <stdbool.h>}, {@code <stddef.h>},
   * {@code <stdint.h>}), {@code extern "C"} for C++. Integers are declared signed ({@code intN_t});
   * LLVM integers have no sign, so unsigned arrays of the same width may be passed with a cast.
   */
  public static String header(List<PacketizationResult.DriverInfo> drivers, String guard, String source) {
    String g = guard.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_]", "_");
    if (g.isEmpty() || Character.isDigit(g.charAt(0))) g = "_" + g;
    StringBuilder sb = new StringBuilder();
    sb.append("/* Array drivers generated by packetize").append(source == null ? "" : " from " + source).append(".\n")
        .append(" * void NAME(inputs..., OUT *out, size_t n): for i in [0, n), out[i] = SCALAR(inputs at element i).\n")
        .append(" * Varying inputs are arrays of n elements; uniform ones are passed to every element; a linear input\n")
        .append(" * is element 0's value (element i gets value + i*step). out may be identical to an input array of\n")
        .append(" * the same element type (in place); it must not otherwise overlap an input array or memory the\n")
        .append(" * function reads or writes through pointers. See docs/drivers.md. */\n")
        .append("#ifndef ").append(g).append('\n').append("#define ").append(g).append('\n')
        .append("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n")
        .append("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for (PacketizationResult.DriverInfo d : drivers) sb.append(d.cDeclaration()).append('\n');
    sb.append("\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
    return sb.toString();
  }

  /** Emits the driver's body. */
  private static final class Emitter {
    private final LlvmModule module;
    private final LlvmContext ctx;
    private final Function driver, unmasked, masked;
    private final List<ParamKind> kinds;
    private final List<Type> types;
    private final Type rt, sizeT;
    private final int w;

    Emitter(LlvmModule module, Function driver, Function unmasked, Function masked, List<ParamKind> kinds, List<Type> types,
        Type rt, Type sizeT, int w) {
      this.module = module;
      this.ctx = module.context();
      this.driver = driver;
      this.unmasked = unmasked;
      this.masked = masked;
      this.kinds = kinds;
      this.types = types;
      this.rt = rt;
      this.sizeT = sizeT;
      this.w = w;
    }

    void emit() {
      try (IrBuilder b = new IrBuilder(ctx)) {
        Block entry = driver.appendBlock("entry");
        Block loop = driver.appendBlock("packet");
        Block tailCheck = driver.appendBlock("remainder.check");
        Block tail = driver.appendBlock("remainder");
        Block exit = driver.appendBlock("exit");
        Value n = driver.param(driver.paramCount() - 1);
        b.atEnd(entry);
        Value full = b.and(n, b.constInt(sizeT, -w), "n.full");
        b.condBr(b.icmpEq(full, b.constInt(sizeT, 0), "no.full"), tailCheck, loop);

        b.atEnd(loop);
        Value i = b.phi(sizeT, "i");
        Value r = callPacket(b, unmasked, loadPacket(b, i, null), null);
        storePacket(b, i, r, null);
        Value next = b.add(i, b.constInt(sizeT, w), "i.next");
        next.setNuw(true);
        b.condBr(b.icmpUlt(next, full, "more"), loop, tailCheck);
        i.addIncoming(b.constInt(sizeT, 0), entry);
        i.addIncoming(next, loop);

        b.atEnd(tailCheck);
        Value rest = b.sub(n, full, "n.rest");
        b.condBr(b.icmpNe(rest, b.constInt(sizeT, 0), "has.rest"), tail, exit);

        b.atEnd(tail);
        // lane l is active iff l < n % W (rest < W, so the lane indices fit size_t)
        Value mask = b.icmpUlt(b.laneIndices(sizeT, w), b.splat(rest, w, "rest.splat"), "mask");
        Value mr = callPacket(b, masked, loadPacket(b, full, mask), mask);
        storePacket(b, full, mr, mask);
        b.br(exit);

        b.atEnd(exit);
        b.retVoid();
      }
    }

    private Type storageType(Type t) { return t.isInteger(1) ? ctx.i8() : t; }

    private int align(Type t) { return module.abiAlignment(storageType(t)); }

    /** The packet function's arguments for the W elements from index {@code i} (lanes where {@code mask} is set). */
    private List<Value> loadPacket(IrBuilder b, Value i, Value mask) {
      List<Value> args = new ArrayList<>();
      for (int j = 0; j < kinds.size(); j++) {
        Value p = driver.param(j);
        Type t = types.get(j);
        switch (kinds.get(j)) {
          case ParamKind.Varying v -> args.add(load(b, t, p, i, mask, p.name() + ".packet"));
          case ParamKind.Uniform u -> args.add(p);
          case ParamKind.Linear l -> {
            // element i's value: start + i*step (wrapping like the scalar arithmetic)
            if (t.isPointer()) {
              Value off = b.mul(i, b.constInt(sizeT, l.step()), p.name() + ".off");
              args.add(b.gep(ctx.i8(), p, List.of(off), false, p.name() + ".at"));
            } else {
              Value ii = t.intWidth() == sizeT.intWidth() ? i
                  : b.cast(t.intWidth() < sizeT.intWidth() ? Opcode.TRUNC : Opcode.ZEXT, i, t, "");
              args.add(b.add(p, b.mul(ii, b.constInt(t, l.step()), ""), p.name() + ".at"));
            }
          }
          case ParamKind.SoaPointer s -> throw new IllegalStateException("refused before");
        }
      }
      return args;
    }

    private Value load(IrBuilder b, Type t, Value base, Value i, Value mask, String name) {
      Type st = storageType(t);
      Type vt = st.vectorOf(w);
      Value at = b.gep(st, base, List.of(i), true, name + ".addr");
      Value v;
      if (mask == null) {
        v = b.load(vt, at, align(t), name);
      } else {
        Function f = module.intrinsic("llvm.masked.load", vt, ctx.ptrType());
        v = b.call(f, List.of(at, b.i32(align(t)), mask, b.poison(vt)), name);
      }
      return st.equals(t) ? v : b.cast(Opcode.TRUNC, v, t.vectorOf(w), name + ".bool");
    }

    private Value callPacket(IrBuilder b, Function f, List<Value> args, Value mask) {
      List<Value> all = new ArrayList<>(args);
      if (mask != null) {
        Type mt = f.functionType().paramTypes().getLast();
        all.add(mt.scalarType().isInteger(1) ? mask : b.sext(mask, mt, "mask.int"));
      }
      Value r = b.call(f, all, rt.isVoid() ? "" : mask == null ? "r" : "r.rest");
      r.setInstructionCallConv(f.callingConvention());
      return r;
    }

    private void storePacket(IrBuilder b, Value i, Value r, Value mask) {
      if (rt.isVoid()) return;
      Value out = driver.param(kinds.size());
      Type st = storageType(rt);
      Value v = st.equals(rt) ? r : b.cast(Opcode.ZEXT, r, st.vectorOf(w), "r.byte");
      Value at = b.gep(st, out, List.of(i), true, mask == null ? "out.addr" : "out.rest.addr");
      if (mask == null) {
        b.store(v, at, align(rt));
      } else {
        Function f = module.intrinsic("llvm.masked.store", v.type(), ctx.ptrType());
        b.call(f, List.of(v, at, b.i32(align(rt)), mask), "");
      }
    }
  }
}
