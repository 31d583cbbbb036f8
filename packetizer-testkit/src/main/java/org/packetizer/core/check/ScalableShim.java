package org.packetizer.core.check;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * A fixed-width function around a scalable packet function, for checking it at one vector length:
 * {@code shim(<N x T>..., <N x i1>)} with N = vscale × W puts its vectors into {@code <vscale x W x T>}
 * ({@code llvm.vector.insert}), calls the scalable function and takes the result out again ({@code
 * llvm.vector.extract}). It carries {@code vscale_range(vscale, vscale)}: it is only right on hardware
 * (or an emulator) with that vector length, e.g. vscale 4 for SVE at 512 bits, 2 for 256.
 */
public final class ScalableShim {
  private ScalableShim() {}

  /** Adds {@code shimName} around {@code scalableName} to {@code m}; returns N. */
  public static int build(LlvmModule m, String scalableName, String shimName, int w, int vscale) {
    Function f = m.function(scalableName).orElseThrow(() -> new IllegalArgumentException("no @" + scalableName));
    int n = w * vscale;
    StringBuilder decls = new StringBuilder();
    StringBuilder body = new StringBuilder();
    List<String> params = new ArrayList<>();
    List<String> args = new ArrayList<>();
    List<Type> pts = f.functionType().paramTypes();
    java.util.Set<String> declared = new java.util.HashSet<>();
    for (int i = 0; i < pts.size(); i++) {
      Type t = pts.get(i);
      String st = t.toString();
      if (st.startsWith("<vscale x ") && t.elementType().isInteger(1)) {
        // a predicate goes in as bytes and is compared back: LLVM 20 mis-lowers llvm.vector.insert of a fixed
        // <N x i1> into an SVE predicate (lanes past the first W come out inactive)
        String fixed = "<" + n + " x i1>";
        String bytesFixed = "<" + n + " x i8>";
        String bytesScalable = "<vscale x " + w + " x i8>";
        params.add(fixed + " %p" + i);
        String name = "llvm.vector.insert.nxv" + w + "i8.v" + n + "i8";
        if (declared.add(name)) decls.append("declare ").append(bytesScalable).append(" @").append(name).append('(')
            .append(bytesScalable).append(", ").append(bytesFixed).append(", i64)\n");
        body.append("  %z").append(i).append(" = zext ").append(fixed).append(" %p").append(i).append(" to ").append(bytesFixed).append('\n');
        body.append("  %b").append(i).append(" = call ").append(bytesScalable).append(" @").append(name).append('(')
            .append(bytesScalable).append(" zeroinitializer, ").append(bytesFixed).append(" %z").append(i).append(", i64 0)\n");
        body.append("  %a").append(i).append(" = icmp ne ").append(bytesScalable).append(" %b").append(i).append(", zeroinitializer\n");
        args.add(st + " %a" + i);
      } else if (st.startsWith("<vscale x ")) {
        String et = t.elementType().toString();
        String fixed = "<" + n + " x " + et + ">";
        params.add(fixed + " %p" + i);
        String name = "llvm.vector.insert.nxv" + w + suffix(t.elementType()) + ".v" + n + suffix(t.elementType());
        if (declared.add(name)) decls.append("declare ").append(st).append(" @").append(name).append('(').append(st)
            .append(", ").append(fixed).append(", i64)\n");
        body.append("  %a").append(i).append(" = call ").append(st).append(" @").append(name).append('(').append(st)
            .append(" poison, ").append(fixed).append(" %p").append(i).append(", i64 0)\n");
        args.add(st + " %a" + i);
      } else {
        params.add(st + " %p" + i);
        args.add(st + " %p" + i);
      }
    }
    Type rt = f.returnType();
    String rts = rt.toString();
    decls.append("declare ").append(rts).append(" @").append(quote(scalableName)).append('(')
        .append(String.join(", ", pts.stream().map(Type::toString).toList())).append(")\n");
    String shimRet = rts;
    if (rts.startsWith("<vscale x ")) {
      String et = rt.elementType().toString();
      shimRet = "<" + n + " x " + et + ">";
      String name = "llvm.vector.extract.v" + n + suffix(rt.elementType()) + ".nxv" + w + suffix(rt.elementType());
      decls.append("declare ").append(shimRet).append(" @").append(name).append('(').append(rts).append(", i64)\n");
      body.append("  %r = call ").append(rts).append(" @").append(quote(scalableName)).append('(').append(String.join(", ", args)).append(")\n");
      body.append("  %x = call ").append(shimRet).append(" @").append(name).append('(').append(rts).append(" %r, i64 0)\n");
      body.append("  ret ").append(shimRet).append(" %x\n");
    } else if (rt.isVoid()) {
      body.append("  call void @").append(quote(scalableName)).append('(').append(String.join(", ", args)).append(")\n");
      body.append("  ret void\n");
    } else {
      body.append("  %r = call ").append(rts).append(" @").append(quote(scalableName)).append('(').append(String.join(", ", args)).append(")\n");
      body.append("  ret ").append(rts).append(" %r\n");
    }
    String text = decls + "define " + shimRet + " @" + quote(shimName) + "(" + String.join(", ", params) + ") vscale_range("
        + vscale + "," + vscale + ") {\n" + body + "}\n";
    LlvmModule parsed = m.context().parseIr(text, "shim:" + shimName);
    parsed.setTargetTriple(m.targetTriple());
    parsed.setDataLayout(m.dataLayoutString());
    Function shim = parsed.function(shimName).orElseThrow();
    f.stringAttribute("target-cpu").ifPresent(v -> shim.setStringAttribute("target-cpu", v));
    f.stringAttribute("target-features").ifPresent(v -> shim.setStringAttribute("target-features", v));
    m.linkIn(parsed);
    m.verify().ifPresent(msg -> {
      throw new IllegalStateException("the shim is invalid: " + msg);
    });
    return n;
  }

  private static String suffix(Type et) {
    if (et.isFloat()) return "f32";
    if (et.isDouble()) return "f64";
    if (et.isHalf()) return "f16";
    if (et.isPointer()) return "p0";
    if (et.isInteger()) return "i" + et.intWidth();
    throw new IllegalArgumentException("element type " + et);
  }

  private static String quote(String name) {
    return name.matches("[A-Za-z$._][\\w$.]*") ? name : "\"" + name + "\"";
  }
}
