package org.packetizer.core.fuzz;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.BufferInit;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Runs fuzz cases and classifies each outcome:
 *
 * <ul>
 *   <li>{@code llvm-stress} functions: packetized with a few option sets; each must either succeed
 *       with a module that verifies, or fail with a clean {@link PacketizationException} of kind
 *       UNSUPPORTED or INVALID_INPUT that leaves the module byte-for-byte unchanged. Never INTERNAL,
 *       never another exception (a crash kills the run: the progress log names the case).
 *       Their code has undefined behaviour for many inputs (division by zero, out-of-bounds
 *       pointers), so it is not executed.
 *   <li>{@link CGenerator} functions: compiled with the kernels' flags, packetized at each width
 *       (and masked at the middle one), verified, and differentially checked against the scalar
 *       function on random inputs (and random masks).
 * </ul>
 */
public final class FuzzRunner {
  /** PASSED: all good; REJECTED: a clean UNSUPPORTED/INVALID_INPUT rejection; FAILED: a bug. */
  public enum Status { PASSED, REJECTED, FAILED }

  /** The outcome of one case (or one configuration of it). */
  public record Outcome(String id, Status status, String detail) {
    @Override public String toString() { return id + ": " + status + (detail.isEmpty() ? "" : ": " + detail); }
  }

  /**
   * Packetizes {@code fn} of {@code ir} (no pointer parameters) with {@code kinds} at each width and
   * checks it against the scalar function with inferred parameter specs.
   */
  public List<Outcome> runIr(String ir, String name, String fn, String kinds, int[] widths, long checkSeed) {
    List<Outcome> out = new ArrayList<>();
    for (int w : widths) {
      String id = name + " @" + fn + " W=" + w + " " + kinds;
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, name)) {
        PacketizerOptions o = PacketizerOptions.builder().width(w).params(kinds).verifyEachPhase(true)
            .prepareOptimize(false).build();
        String simd = fn + "_simd" + w;
        Outcome p = packetizeOnly(m, fn, simd, o, id);
        if (p.status() != Status.PASSED) {
          out.add(p);
          continue;
        }
        try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).build()) {
          CheckResult r = c.runMany(checkRuns, checkSeed);
          out.add(r.passed() ? new Outcome(id, Status.PASSED, "") : new Outcome(id, Status.FAILED, "differential check failed:\n" + r.report()));
        }
      } catch (RuntimeException | Error e) {
        out.add(new Outcome(id, Status.FAILED, "unexpected " + stack(e)));
      }
    }
    return out;
  }

  /** Random input sets per width in the differential check of a C case. */
  private final int checkRuns;

  public FuzzRunner(int checkRuns) { this.checkRuns = checkRuns; }

  // ==== llvm-stress ====

  /** The IR llvm-stress generates for (seed, size): one function {@code autogen_SD<seed>}. */
  public static String stressIr(long seed, int size) {
    ProcessResult r = BundledClang.locate().run(
        List.of("llvm-stress", "-seed=" + seed, "-size=" + size, "-o", "-"), null, null, Duration.ofMinutes(1));
    if (r.exitCode() != 0) throw new IllegalStateException("llvm-stress failed: " + r.stderr());
    return r.stdoutText();
  }

  /** The option sets each llvm-stress function is packetized with. */
  static List<PacketizerOptions> stressOptions(Function f, long seed) {
    int n = f.paramCount();
    StringBuilder pointersUniform = new StringBuilder();
    StringBuilder lastVarying = new StringBuilder();
    for (int i = 0; i < n; i++) {
      boolean ptr = f.param(i).type().isPointer();
      pointersUniform.append(ptr ? 'u' : 'v');
      lastVarying.append(i == n - 1 && !ptr ? 'v' : 'u');
    }
    List<PacketizerOptions> out = new ArrayList<>();
    out.add(PacketizerOptions.builder().width(4).verifyEachPhase(true).build()); // pointers SoA, scalars varying
    out.add(PacketizerOptions.builder().width(8).params(pointersUniform.toString()).memoryStrategy(
        seed % 2 == 0 ? MemoryStrategy.CASCADE : MemoryStrategy.GATHER).masked(seed % 3 == 0).verifyEachPhase(true).build());
    out.add(PacketizerOptions.builder().width(16).params(lastVarying.toString()).prepareOptimize(seed % 2 == 1)
        .verifyEachPhase(true).build());
    return out;
  }

  /** Packetizes the llvm-stress function of (seed, size) with each option set. */
  public List<Outcome> runStress(long seed, int size) {
    String ir = stressIr(seed, size);
    return runStressIr(ir, "stress-" + seed + "-" + size);
  }

  /** Packetizes every defined function of {@code ir} with each of the stress option sets. */
  public List<Outcome> runStressIr(String ir, String id) {
    List<Outcome> out = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, id + ".ll")) {
      for (Function f : m.functions()) {
        if (f.isDeclaration() || f.name().endsWith("_simd")) continue;
        // options depend on the function's name only, so a case saved to a file behaves the same
        List<PacketizerOptions> all = stressOptions(f, f.name().hashCode() & 0x7fffffffL);
        for (int i = 0; i < all.size(); i++) {
          PacketizerOptions o = all.get(i);
          String cid = id + " @" + f.name() + " W=" + o.width() + " " + o.params().map(p -> kinds(p)).orElse("default")
              + (o.masked() ? " masked" : "");
          out.add(packetizeOnly(m, f.name(), f.name() + "_simd" + i, o, cid));
        }
      }
    }
    return out;
  }

  private static String kinds(List<org.packetizer.core.api.ParamKind> ks) {
    StringBuilder sb = new StringBuilder();
    for (var k : ks) sb.append(k.letters());
    return sb.toString();
  }

  /** One packetization that must succeed and verify, or fail cleanly leaving the module unchanged. */
  static Outcome packetizeOnly(LlvmModule m, String fn, String simd, PacketizerOptions o, String id) {
    byte[] before = m.toBitcode();
    try {
      new Packetizer(o).run(m, fn, simd);
    } catch (PacketizationException e) {
      if (!Arrays.equals(before, m.toBitcode())) return new Outcome(id, Status.FAILED, "module changed after a failed packetization: " + e.getMessage());
      if (e.kind() == PacketizationException.Kind.INTERNAL) return new Outcome(id, Status.FAILED, "INTERNAL: " + e.getMessage() + cause(e));
      return new Outcome(id, Status.REJECTED, e.kind() + ": " + firstLine(e.getMessage()));
    } catch (RuntimeException | Error e) {
      return new Outcome(id, Status.FAILED, "unexpected " + stack(e));
    }
    var v = m.verify();
    if (v.isPresent()) return new Outcome(id, Status.FAILED, "module invalid after packetization: " + v.get());
    if (m.function(simd).isEmpty()) return new Outcome(id, Status.FAILED, "no @" + simd + " after packetization");
    return new Outcome(id, Status.PASSED, "");
  }

  // ==== generated C ====

  /** Compiles a C translation unit with the kernels' flags. */
  public static byte[] compile(String source, String fileName) {
    return BundledClang.locate().compileToBitcode(source, fileName, BundledClang.KERNEL_FLAGS);
  }

  /** A translation unit holding several cases (one clang run for all). */
  public static String translationUnit(List<CGenerator.Case> cases) {
    StringBuilder sb = new StringBuilder(CGenerator.PRELUDE);
    for (CGenerator.Case c : cases) sb.append('\n').append(c.function());
    return sb.toString();
  }

  /**
   * Packetizes the C case's function (from {@code bitcode}, which may hold other functions too) at
   * each width, verifies, and checks it lane by lane against the scalar function.
   */
  public List<Outcome> runC(CGenerator.Case c, byte[] bitcode, int[] widths) {
    return runC(c.name(), c.kinds(), bitcode, widths, c.seed() ^ c.index());
  }

  public List<Outcome> runC(String fn, String kinds, byte[] bitcode, int[] widths, long checkSeed) {
    List<Outcome> out = new ArrayList<>();
    List<int[]> runs = new ArrayList<>();
    for (int w : widths) runs.add(new int[] {w, 0});
    if (widths.length > 0) runs.add(new int[] {widths[widths.length / 2], 1}); // a masked variant at the middle width
    for (int[] run : runs) {
      int w = run[0];
      boolean masked = run[1] == 1;
      String id = fn + " W=" + w + " " + kinds + (masked ? " masked" : "");
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bitcode, fn + ".bc")) {
        keepOnly(m, fn);
        PacketizerOptions o = PacketizerOptions.builder().width(w).params(kinds).verifyEachPhase(true).masked(masked)
            .memoryStrategy(w == 8 && !masked ? MemoryStrategy.CASCADE : MemoryStrategy.GATHER).build();
        String simd = fn + "_simd" + w;
        Outcome p = packetizeOnly(m, fn, simd, o, id);
        if (p.status() != Status.PASSED) {
          out.add(p);
          continue;
        }
        out.add(check(m, fn, simd, w, kinds, masked, checkSeed, id));
      } catch (RuntimeException | Error e) {
        out.add(new Outcome(id, Status.FAILED, "unexpected " + stack(e)));
      }
    }
    return out;
  }

  private Outcome check(LlvmModule m, String fn, String simd, int w, String kinds, boolean masked, long seed, String id) {
    List<ParamSpec> specs = new ArrayList<>(specs(m, kinds));
    if (masked) specs.add(ParamSpec.mask());
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(specs).build()) {
      CheckResult r = c.runMany(checkRuns, seed);
      if (!r.passed()) return new Outcome(id, Status.FAILED, "differential check failed:\n" + r.report());
      return new Outcome(id, Status.PASSED, "");
    }
  }

  /** The differential check's specs for {@link CGenerator}'s signature with the given kinds. */
  static List<ParamSpec> specs(LlvmModule m, String kinds) {
    ValueDomain[] domains = {
        ValueDomain.ints(-64, 64),
        ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE),
        ValueDomain.floats(-100, 100).withSpecials(),
        ValueDomain.floats(-1e6, 1e6)};
    List<ParamSpec> specs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      specs.add(switch (kinds.charAt(i)) {
        case 'u' -> ParamSpec.uniform(domains[i]);
        case 'l' -> ParamSpec.linear(1, domains[i]);
        default -> ParamSpec.varying(domains[i]);
      });
    }
    specs.add(ParamSpec.uniformPtr(m.context().floatType(), CGenerator.TABLE, ParamSpec.Direction.IN, BufferInit.random()));
    specs.add(ParamSpec.soaPtr(KernelChecks.parseType(m.context(), CGenerator.STRUCT_TYPE), 1, ParamSpec.Direction.INOUT,
        BufferInit.random()));
    return specs;
  }

  /** Deletes every other function the kept one does not use (the JIT then compiles only it). */
  static void keepOnly(LlvmModule m, String fn) {
    if (m.function(fn).map(Function::isDeclaration).orElse(true)) throw new IllegalArgumentException("no function @" + fn);
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Function f : m.functions()) {
        if (!f.name().equals(fn) && !f.hasUses()) {
          f.delete();
          changed = true;
        }
      }
    }
  }

  // ---- helpers ----

  static String firstLine(String s) {
    int i = s.indexOf('\n');
    return i < 0 ? s : s.substring(0, i);
  }

  private static String cause(Throwable e) {
    return e.getCause() == null ? "" : "\ncaused by " + stack(e.getCause());
  }

  static String stack(Throwable e) {
    StringWriter sw = new StringWriter();
    e.printStackTrace(new PrintWriter(sw));
    String s = sw.toString();
    return s.length() > 4000 ? s.substring(0, 4000) + "..." : s;
  }

  /** Summary line for a list of results. */
  static String tally(List<Outcome> os) {
    long p = os.stream().filter(o -> o.status() == Status.PASSED).count();
    long r = os.stream().filter(o -> o.status() == Status.REJECTED).count();
    long f = os.stream().filter(o -> o.status() == Status.FAILED).count();
    return p + " passed, " + r + " rejected, " + f + " failed";
  }

  /** For reports: the packetization result's summary (used by FuzzMain's verbose mode). */
  static String summary(PacketizationResult r) { return r.summary(); }
}
