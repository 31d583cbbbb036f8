package org.packetizer.core.jit;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Builds {@code void @<fn>.tramp(ptr %args, ptr %result)}: loads argument i from
 * {@code args + i * ARG_SLOT} (align 1), calls {@code @fn} with its exact prototype, calling
 * convention and ABI attributes, and stores the result at {@code result} (align 1). Masks travel as
 * one byte per lane: {@code i1} / {@code <W x i1>} are loaded as {@code i8} / {@code <W x i8>} and
 * truncated, and results of that kind are zero-extended before the store.
 */
final class Trampolines {
  private Trampolines() {}

  static String trampolineName(String fn) { return fn + ".tramp"; }

  /** A new module in {@code ctx} holding the trampoline for {@code sig}. */
  static LlvmModule build(Signature sig, LlvmContext ctx, String triple, String dataLayout) {
    LlvmModule m = ctx.createModule("trampoline:" + sig.name());
    try (IrBuilder b = new IrBuilder(ctx)) {
      m.setTargetTriple(triple);
      m.setDataLayout(dataLayout);
      List<Type> ptypes = new ArrayList<>();
      for (JitType p : sig.paramTypes()) ptypes.add(toLlvm(p, ctx));
      Type fnType = ctx.functionType(toLlvm(sig.returnType(), ctx), ptypes, false);
      Function target = m.addFunction(sig.name(), fnType);
      target.setCallingConvention(sig.callingConvention());
      for (String a : sig.returnAttributes()) addAttribute(target, LLVMAttributeReturnIndex, a, ctx);
      for (int i = 0; i < ptypes.size(); i++) {
        for (String a : sig.paramAttributes().get(i)) addAttribute(target, i + 1, a, ctx);
      }

      Type ptr = ctx.ptrType();
      Function tramp = m.addFunction(trampolineName(sig.name()), ctx.functionType(ctx.voidType(), List.of(ptr, ptr), false));
      if (sig.targetCpu() != null) tramp.setStringAttribute("target-cpu", sig.targetCpu());
      if (sig.targetFeatures() != null) tramp.setStringAttribute("target-features", sig.targetFeatures());
      if (sig.minLegalVectorWidth() != null) tramp.setStringAttribute("min-legal-vector-width", sig.minLegalVectorWidth());
      // (the vector length the callee assumes decides how it takes fixed-length vectors on RISC-V V; see Signature)
      if (sig.vscaleRange() != 0) tramp.setEnumAttributeValue("vscale_range", sig.vscaleRange());
      Value args = tramp.param(0);
      Value result = tramp.param(1);
      args.setName("args");
      result.setName("result");
      Block entry = tramp.appendBlock("entry");
      b.atEnd(entry);

      List<Value> argValues = new ArrayList<>();
      for (int i = 0; i < ptypes.size(); i++) {
        JitType jt = sig.paramTypes().get(i);
        Value slot = i == 0 ? args : b.gep(ctx.i8(), args, List.of(b.i64((long) i * sig.slotSize())), true, "slot" + i);
        Value v = b.load(memoryType(jt, ctx), slot, 1, "arg" + i);
        if (isMaskKind(jt)) v = b.cast(Opcode.TRUNC, v, ptypes.get(i), "arg" + i + ".bits");
        argValues.add(v);
      }
      Value call = b.call(fnType, target, argValues, "r");
      LLVMSetInstructionCallConv(call.ref(), sig.callingConvention());
      for (String a : sig.returnAttributes()) LLVMAddCallSiteAttribute(call.ref(), LLVMAttributeReturnIndex, attribute(a, ctx));
      for (int i = 0; i < ptypes.size(); i++) {
        for (String a : sig.paramAttributes().get(i)) LLVMAddCallSiteAttribute(call.ref(), i + 1, attribute(a, ctx));
      }
      JitType rt = sig.returnType();
      if (!(rt instanceof JitType.Void)) {
        Value r = isMaskKind(rt) ? b.cast(Opcode.ZEXT, call, memoryType(rt, ctx), "r.bytes") : call;
        b.store(r, result, 1);
      }
      b.retVoid();
      m.verify().ifPresent(msg -> {
        throw new LlvmException("internal error: trampoline for @" + sig.name() + " is invalid: " + msg);
      });
      return m;
    } catch (RuntimeException e) {
      m.close();
      throw e;
    }
  }

  private static boolean isMaskKind(JitType t) {
    return t instanceof JitType.Bool || (t instanceof JitType.Vector v && v.element() instanceof JitType.Bool);
  }

  private static void addAttribute(Function f, int index, String name, LlvmContext ctx) {
    LLVMAddAttributeAtIndex(f.ref(), index, attribute(name, ctx));
  }

  private static org.bytedeco.llvm.LLVM.LLVMAttributeRef attribute(String name, LlvmContext ctx) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    return LLVMCreateEnumAttribute(ctx.ref(), kind, 0);
  }

  /**
   * The LLVM type a {@link JitType} describes, in {@code ctx}. Structs become literal structs: a
   * named struct with the same body has the same layout and is passed the same way.
   */
  static Type toLlvm(JitType t, LlvmContext ctx) {
    return switch (t) {
      case JitType.Void v -> ctx.voidType();
      case JitType.Bool bo -> ctx.i1();
      case JitType.Int i -> ctx.intType(i.bits());
      case JitType.F16 h -> ctx.halfType();
      case JitType.F32 f -> ctx.floatType();
      case JitType.F64 d -> ctx.doubleType();
      case JitType.Ptr p -> ctx.ptrType();
      case JitType.Vector v -> toLlvm(v.element(), ctx).vectorOf(v.length());
      case JitType.Struct s -> {
        List<Type> es = new ArrayList<>();
        for (JitType e : s.elements()) es.add(toLlvm(e, ctx));
        yield ctx.structType(es, s.packed());
      }
      case JitType.Array a -> toLlvm(a.element(), ctx).arrayOf(a.length());
    };
  }

  /** The type the trampoline loads or stores: {@code i1} becomes {@code i8}, {@code <W x i1>} {@code <W x i8>}. */
  static Type memoryType(JitType t, LlvmContext ctx) {
    if (t instanceof JitType.Bool) return ctx.i8();
    if (t instanceof JitType.Vector v && v.element() instanceof JitType.Bool) return ctx.i8().vectorOf(v.length());
    return toLlvm(t, ctx);
  }
}
