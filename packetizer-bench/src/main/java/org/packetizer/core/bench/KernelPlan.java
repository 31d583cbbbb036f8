package org.packetizer.core.bench;

import static org.bytedeco.llvm.global.LLVM.LLVMGlobalGetValueType;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.Manifest;

/**
 * How the benchmark feeds one kernel: per parameter what memory it gets and how it is laid out for
 * the scalar loops and for the packet loop, plus the result type. Derived from the kernel's manifest
 * entry; struct layouts come from LLVM's data layout of the kernel's module.
 */
record KernelPlan(Manifest.Entry entry, List<ParamPlan> params, ScalarType result) {

  /** The memory of one kernel parameter. */
  sealed interface ParamPlan {
    String name();
  }

  /** A varying scalar: one value per element, an array of N. */
  record VaryingScalar(String name, ScalarType type, double lo, double hi) implements ParamPlan {}

  /** A uniform scalar: one value for every element. */
  record UniformScalar(String name, ScalarType type, double value) implements ParamPlan {}

  /** A uniform pointer to read-only data shared by all elements ({@code count} objects). */
  record UniformPointer(String name, StructLayout pointee, long count, Manifest.Init init) implements ParamPlan {}

  /**
   * One object per element. The scalar loops get an array of structures (element i at
   * {@code i * size}); the packet loop gets blocks of W elements in struct-of-arrays form: lane k's
   * leaf at scalar offset o and size s lives at {@code W*o + k*s} from the block's start.
   */
  record SoaPointer(String name, StructLayout pointee, Manifest.Init init, String direction) implements ParamPlan {
    boolean written() { return !"in".equals(direction); }
  }

  /**
   * A pointee type's scalar leaves.
   *
   * @param size   alloc size of the type (array stride)
   * @param leaves every scalar field, in memory order
   */
  record StructLayout(String type, long size, List<Leaf> leaves) {}

  /** A scalar field at a byte offset. */
  record Leaf(long offset, ScalarType type) {}

  boolean returnsValue() { return result != null; }

  /** The parameters whose memory the kernel writes (compared after each run). */
  List<SoaPointer> writtenObjects() {
    List<SoaPointer> out = new ArrayList<>();
    for (ParamPlan p : params) if (p instanceof SoaPointer s && s.written()) out.add(s);
    return out;
  }

  /**
   * The plan for {@code entry}, with struct layouts from {@code kernelModule}'s data layout.
   *
   * @throws UnsupportedOperationException for parameter kinds the benchmark cannot drive
   */
  static KernelPlan of(Manifest.Entry entry, LlvmModule kernelModule) {
    List<ParamPlan> params = new ArrayList<>();
    List<Number> sample = entry.samples().isEmpty() ? null : entry.samples().get(0);
    for (int i = 0; i < entry.params().size(); i++) {
      Manifest.Param p = entry.params().get(i);
      String where = entry.name() + " parameter " + p.name();
      if (p.isPointer()) {
        long count = p.count() == null ? 1 : p.count();
        StructLayout layout = layout(kernelModule, p.pointee(), where);
        Manifest.Init init = p.init() == null ? Manifest.Init.ZERO : p.init();
        String dir = p.direction() == null ? "in" : p.direction();
        if (p.isUniform()) {
          if (!dir.equals("in")) throw new UnsupportedOperationException(where + ": uniform pointers the kernel writes are not benchmarked");
          params.add(new UniformPointer(p.name(), layout, count, init));
        } else if (p.isSoa()) {
          if (count != 1) throw new UnsupportedOperationException(where + ": struct-of-arrays pointers with count " + count + " are not benchmarked");
          params.add(new SoaPointer(p.name(), layout, init, dir));
        } else {
          throw new UnsupportedOperationException(where + ": " + p.kind() + " pointers are not benchmarked");
        }
      } else {
        ScalarType t = ScalarType.ofManifest(p.type());
        if (p.isVarying()) {
          params.add(new VaryingScalar(p.name(), t, p.lo(), p.hi()));
        } else if (p.isUniform()) {
          double v;
          if (sample != null && i < sample.size() && sample.get(i) != null) v = sample.get(i).doubleValue();
          else v = t.isFloatingPoint() ? (p.lo() + p.hi()) / 2 : Math.rint((p.lo() + p.hi()) / 2);
          params.add(new UniformScalar(p.name(), t, v));
        } else {
          throw new UnsupportedOperationException(where + ": " + p.kind() + " parameters are not benchmarked");
        }
      }
    }
    ScalarType result = entry.returnsVoid() ? null : ScalarType.ofManifest(entry.returns().type());
    return new KernelPlan(entry, List.copyOf(params), result);
  }

  /** Parses an LLVM type spelled in the manifest and lists its scalar leaves under the module's data layout. */
  static StructLayout layout(LlvmModule dl, String typeText, String where) {
    if (typeText == null) throw new UnsupportedOperationException(where + ": the manifest gives no pointee type");
    LlvmContext ctx = dl.context();
    try (LlvmModule tmp = ctx.parseIr("@__bench_pointee = external global " + typeText + "\n", "pointee")) {
      tmp.setDataLayout(dl.dataLayoutString());
      Value g = tmp.global("__bench_pointee").orElseThrow();
      Type t = Type.of(LLVMGlobalGetValueType(g.ref()));
      List<Leaf> leaves = new ArrayList<>();
      walk(tmp, t, 0, leaves, where);
      return new StructLayout(typeText, tmp.allocSize(t), List.copyOf(leaves));
    }
  }

  private static void walk(LlvmModule dl, Type t, long off, List<Leaf> out, String where) {
    if (t.isStruct()) {
      List<Type> es = t.structElements();
      for (int i = 0; i < es.size(); i++) walk(dl, es.get(i), off + dl.offsetOfElement(t, i), out, where);
    } else if (t.isArray()) {
      long stride = dl.allocSize(t.elementType());
      for (long i = 0; i < t.arrayLength(); i++) walk(dl, t.elementType(), off + i * stride, out, where);
    } else {
      try {
        out.add(new Leaf(off, ScalarType.ofLlvm(t)));
      } catch (UnsupportedOperationException e) {
        throw new UnsupportedOperationException(where + ": " + e.getMessage());
      }
    }
  }
}
