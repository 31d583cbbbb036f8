package org.packetizer.core.scalable;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetArch;
import org.packetizer.core.ir.Type;

/**
 * The SVE form of Arm's vector function ABI for AArch64 ({@code --vector-abi --scalable}): a scalable
 * packet function published as {@code _ZGVsMx<params>_<scalar>} — ISA {@code s} (SVE), masked, vector
 * length {@code x} (agnostic: vscale × W lanes) — whose vector arguments are SVE vectors of one register
 * each ({@code svfloat32_t} for W = 4) and whose last argument is the governing predicate as an {@code
 * svbool_t} ({@code <vscale x 16 x i1>}, one bit per byte; a lane is active when the bit of its first
 * byte is set). Uniform and linear parameters are scalars, as in the packet function.
 *
 * <p>The published function converts the {@code svbool_t} into the packet function's {@code <vscale x
 * W x i1>} ({@code llvm.aarch64.sve.convert.from.svbool}) and calls it; the packet function stays as
 * {@code NAME.ir}. Refused: targets other than AArch64 with SVE, and packets whose lanes are not 128/W
 * bits wide (they would take several registers each, a tuple type the ABI maps differently).
 */
public final class ScalableVectorAbi {
  private ScalableVectorAbi() {}

  /** {@code _ZGVsMx<letters>_<scalar>}. */
  public static String mangledName(String scalarName, List<ParamKind> kinds) {
    return new org.packetizer.core.mapping.VectorAbi.ScalableVariant(kinds, scalarName).mangledName();
  }

  /** Refuses a module or function that cannot carry an SVE variant (before any work is done). */
  public static void requireSve(LlvmModule module, Function scalar, String scalarName) {
    if (TargetArch.of(module.targetTriple()) != TargetArch.AARCH64) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "--vector-abi with --scalable publishes the SVE"
          + " variant _ZGVsMx..., which is AArch64's; the module's target is " + module.targetTriple()
          + " (RISC-V V has no vector function ABI implemented here)", scalarName);
    }
    String features = scalar.stringAttribute("target-features").orElse("");
    boolean sve = false;
    for (String f : features.split(",")) sve |= f.strip().startsWith("+sve");
    if (!sve) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "--vector-abi with --scalable publishes the SVE"
          + " variant _ZGVsMx..., but @" + scalarName + " is not compiled with +sve (target-features \"" + features
          + "\"; add --target-features +sve)", scalarName);
    }
  }

  /**
   * Adds {@code mangled} around the scalable packet function {@code irName} (its last parameter the
   * {@code <vscale x w x i1>} predicate).
   */
  public static Function publish(LlvmModule module, String irName, String mangled, int w, String scalarName) {
    Function f = module.function(irName).orElseThrow();
    List<Type> pts = f.functionType().paramTypes();
    int lanes = w;
    int laneBits = 128 / w;
    if (128 % w != 0 || laneBits < 8) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_TYPE, "SVE vector function ABI: width " + w
          + " does not give whole-byte lanes in a 128-bit granule", scalarName, null, null);
    }
    for (int i = 0; i <= pts.size(); i++) {
      Type t = i < pts.size() ? pts.get(i) : f.returnType();
      if (i == pts.size() - 1 || !t.toString().startsWith("<vscale x ")) continue;
      Type et = t.elementType();
      int bits = et.isPointer() ? 64 : et.isFloat() ? 32 : et.isDouble() ? 64 : et.isHalf() ? 16 : et.isInteger() ? et.intWidth() : -1;
      if (bits != laneBits) {
        String what = i < pts.size() ? "parameter #" + i : "the return value";
        throw PacketizationException.unsupported(Rejection.UNSUPPORTED_TYPE, "SVE vector function ABI: " + what + " is " + t
            + ", but with " + w + " lanes per 128 bits every packet must have " + laneBits + "-bit lanes (one SVE register;"
            + " wider lanes would need a register tuple)", scalarName, null, null);
      }
    }
    StringBuilder params = new StringBuilder();
    List<String> args = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (int i = 0; i + 1 < pts.size(); i++) {
      params.append(pts.get(i)).append(" %a").append(i).append(", ");
      args.add(pts.get(i) + " %a" + i);
      types.add(pts.get(i).toString());
    }
    String maskType = pts.getLast().toString();
    types.add(maskType);
    params.append("<vscale x 16 x i1> %pg");
    StringBuilder body = new StringBuilder();
    String mask = "%pg";
    if (lanes != 16) {
      String conv = "llvm.aarch64.sve.convert.from.svbool.nxv" + lanes + "i1";
      body.append("declare ").append(maskType).append(" @").append(conv).append("(<vscale x 16 x i1>)\n");
      mask = "%m";
    }
    Type rt = f.returnType();
    body.append("declare ").append(rt).append(" @").append(quote(irName)).append('(').append(String.join(", ", types)).append(")\n");
    body.append("define ").append(rt).append(" @").append(quote(mangled)).append('(').append(params).append(") {\n");
    if (lanes != 16) {
      body.append("  %m = call ").append(maskType).append(" @llvm.aarch64.sve.convert.from.svbool.nxv").append(lanes)
          .append("i1(<vscale x 16 x i1> %pg)\n");
    }
    args.add(maskType + " " + mask);
    if (rt.isVoid()) {
      body.append("  call void @").append(quote(irName)).append('(').append(String.join(", ", args)).append(")\n  ret void\n}\n");
    } else {
      body.append("  %r = call ").append(rt).append(" @").append(quote(irName)).append('(').append(String.join(", ", args))
          .append(")\n  ret ").append(rt).append(" %r\n}\n");
    }
    LlvmModule parsed = module.context().parseIr(body.toString(), "sve-abi:" + mangled);
    try {
      parsed.setTargetTriple(module.targetTriple());
      parsed.setDataLayout(module.dataLayoutString());
      Function pub = parsed.function(mangled).orElseThrow();
      for (String a : List.of("target-cpu", "target-features")) f.stringAttribute(a).ifPresent(v -> pub.setStringAttribute(a, v));
      pub.addEnumAttribute("nounwind");
    } catch (RuntimeException e) {
      parsed.close();
      throw e;
    }
    module.linkIn(parsed);
    return module.function(mangled).orElseThrow();
  }

  private static String quote(String name) {
    return name.matches("[A-Za-z$._][\\w$.]*") ? name : "\"" + name.replace("\"", "\\22") + "\"";
  }
}
