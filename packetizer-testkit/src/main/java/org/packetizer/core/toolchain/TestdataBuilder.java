package org.packetizer.core.toolchain;

import static org.bytedeco.llvm.global.LLVM.LLVMIsGlobalConstant;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.KernelAnnotations.KernelSpec;
import org.packetizer.core.toolchain.KernelAnnotations.ParamSpec;

/**
 * Builds the test data of {@code testdata-bitcode}: compiles every {@code .c} file under the source
 * folder (normally {@code testdata-bitcode/src/main/c}) to a {@code .bc} file of the same relative
 * name under the bitcode folder with {@link BundledClang#KERNEL_FLAGS}, then writes
 * {@code manifest.json} from the {@code /*@ ... *&#47;} annotations in the sources (see
 * {@link KernelAnnotations}) and facts read from the bitcode (parameter and return types, whether a
 * kernel touches memory or calls math functions).
 *
 * <p>clang runs with the source folder as working directory and relative paths, so the bitcode does
 * not depend on where the repository lives. Run through {@code testdata-bitcode/regenerate.sh}, or:
 * <pre>
 * cd testdata-bitcode/src/main/c &amp;&amp; java -cp ... org.packetizer.core.toolchain.TestdataBuilder
 *     [--source .] [--bitcode ../bc] [--manifest ../manifest/manifest.json] [--check]
 * </pre>
 * With {@code --check} nothing is written: the outputs are built in a temporary folder and compared
 * with the committed ones (exit code 1 when they differ).
 */
public final class TestdataBuilder {
  /** The families a kernel may belong to. */
  public static final List<String> FAMILIES = List.of("kernel", "thesis", "if", "loop", "loopmx", "loopns",
      "loopnsmx", "call", "irreducible", "mixed", "types", "memory");

  /** Math functions whose vector versions may round differently from the scalar libm. */
  private static final Set<String> TRANSCENDENTAL = Set.of("sin", "cos", "tan", "asin", "acos", "atan", "atan2",
      "sinh", "cosh", "tanh", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "powi", "cbrt");

  private static final Set<String> MATH = Set.of("sqrt", "fabs", "floor", "ceil", "round", "roundeven", "trunc",
      "rint", "nearbyint", "fmin", "fmax", "minnum", "maxnum", "minimum", "maximum", "copysign", "fma", "fmuladd",
      "fmod", "ldexp", "frexp", "lround", "llround", "lrint", "llrint");

  private TestdataBuilder() {}

  /** What a build produced. */
  public record Result(List<Path> bitcodeFiles, Manifest manifest, List<String> removedStaleFiles) {}

  public static void main(String[] args) throws Exception {
    Path source = Path.of(".");
    Path bitcode = null;
    Path manifest = null;
    boolean check = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--source" -> source = Path.of(args[++i]);
        case "--bitcode" -> bitcode = Path.of(args[++i]);
        case "--manifest" -> manifest = Path.of(args[++i]);
        case "--check" -> check = true;
        case "-h", "--help" -> {
          System.out.println("usage: TestdataBuilder [--source DIR] [--bitcode DIR] [--manifest FILE] [--check]");
          return;
        }
        default -> {
          System.err.println("unknown argument: " + args[i]);
          System.exit(2);
        }
      }
    }
    if (bitcode == null) bitcode = source.resolve("../bc");
    if (manifest == null) manifest = source.resolve("../manifest/manifest.json");
    long t0 = System.nanoTime();
    if (check) {
      List<String> diffs = check(source, bitcode, manifest);
      diffs.forEach(d -> System.err.println("differs: " + d));
      System.out.printf("checked in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9,
          diffs.isEmpty() ? "up to date" : diffs.size() + " file(s) differ");
      System.exit(diffs.isEmpty() ? 0 : 1);
    }
    Result r = build(source, bitcode, manifest);
    Map<String, Integer> perFamily = new LinkedHashMap<>();
    for (String f : FAMILIES) perFamily.put(f, r.manifest().family(f).size());
    System.out.printf("compiled %d files, %d kernels %s in %.1f s%n", r.bitcodeFiles().size(),
        r.manifest().kernels().size(), perFamily, (System.nanoTime() - t0) / 1e9);
    r.removedStaleFiles().forEach(f -> System.out.println("removed stale " + f));
  }

  /**
   * Builds into temporary folders and compares with {@code bitcodeDir} and {@code manifestFile}.
   *
   * @return the relative names of files that differ, are missing or are extra; empty when up to date
   */
  public static List<String> check(Path sourceDir, Path bitcodeDir, Path manifestFile) throws IOException {
    Path tmp = Files.createTempDirectory("packetizer-testdata-");
    try {
      Result r = build(sourceDir, tmp.resolve("bc"), tmp.resolve("manifest.json"));
      List<String> diffs = new ArrayList<>();
      Set<String> expected = new HashSet<>();
      for (Path p : r.bitcodeFiles()) {
        String rel = tmp.resolve("bc").relativize(p).toString();
        expected.add(rel);
        Path committed = bitcodeDir.resolve(rel);
        if (!Files.exists(committed) || !Arrays.equals(Files.readAllBytes(committed), Files.readAllBytes(p))) diffs.add("bc/" + rel);
      }
      if (Files.isDirectory(bitcodeDir)) {
        for (Path p : listFiles(bitcodeDir, ".bc")) {
          String rel = bitcodeDir.relativize(p).toString();
          if (!expected.contains(rel)) diffs.add("bc/" + rel + " (no source)");
        }
      }
      if (!Files.exists(manifestFile)
          || !Arrays.equals(Files.readAllBytes(manifestFile), Files.readAllBytes(tmp.resolve("manifest.json")))) {
        diffs.add("manifest.json");
      }
      return diffs;
    } finally {
      BundledClang.deleteRecursively(tmp);
    }
  }

  /**
   * Compiles every C file under {@code sourceDir} into {@code bitcodeDir}, removes {@code .bc} files
   * there that no longer have a source, and writes the manifest.
   *
   * @throws ToolchainException when a file does not compile
   * @throws IllegalStateException when an annotation does not match the bitcode
   */
  public static Result build(Path sourceDir, Path bitcodeDir, Path manifestFile) throws IOException {
    Path src = sourceDir.toAbsolutePath().normalize();
    Path out = bitcodeDir.toAbsolutePath().normalize();
    List<Path> sources = listFiles(src, ".c");
    if (sources.isEmpty()) throw new IllegalStateException("no .c files under " + src);
    BundledClang clang = BundledClang.locate();
    int jobs = Math.max(1, Math.min(sources.size(), Runtime.getRuntime().availableProcessors()));
    List<Path> outputs = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(jobs)) {
      List<Future<CompileResult>> futures = new ArrayList<>();
      for (Path s : sources) {
        Path rel = src.relativize(s);
        Path bc = out.resolve(bcName(rel));
        outputs.add(bc);
        futures.add(pool.submit(() -> clang.compileToBitcode(src, rel, bc, BundledClang.KERNEL_FLAGS)));
      }
      for (int i = 0; i < futures.size(); i++) {
        CompileResult r = get(futures.get(i));
        if (r.hasWarnings()) {
          throw new ToolchainException("clang warns about " + src.relativize(sources.get(i))
              + " (kernels must compile without warnings)", r.command(), 0, r.diagnostics(), null);
        }
      }
    }
    List<String> removed = new ArrayList<>();
    Set<Path> fresh = new HashSet<>(outputs);
    for (Path p : listFiles(out, ".bc")) {
      if (!fresh.contains(p)) {
        Files.delete(p);
        removed.add(out.relativize(p).toString());
      }
    }
    Manifest manifest = manifest(src, out, sources);
    if (manifestFile.toAbsolutePath().getParent() != null) Files.createDirectories(manifestFile.toAbsolutePath().getParent());
    Files.writeString(manifestFile, manifest.toJson(), StandardCharsets.UTF_8);
    return new Result(List.copyOf(outputs), manifest, List.copyOf(removed));
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) throw re;
      throw new IllegalStateException(e.getCause());
    }
  }

  static String bcName(Path relSource) {
    String s = relSource.toString();
    return s.substring(0, s.length() - 2) + ".bc";
  }

  private static List<Path> listFiles(Path dir, String suffix) throws IOException {
    if (!Files.isDirectory(dir)) return List.of();
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(suffix))
          .sorted().toList();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // manifest

  private static Manifest manifest(Path src, Path out, List<Path> sources) throws IOException {
    List<Manifest.Entry> entries = new ArrayList<>();
    Set<String> names = new HashSet<>();
    List<String> errors = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create()) {
      for (Path s : sources) {
        String rel = src.relativize(s).toString();
        String text = Files.readString(s, StandardCharsets.UTF_8);
        KernelAnnotations.Parsed parsed = KernelAnnotations.parse(text, rel);
        if (parsed.kernels().isEmpty()) continue;
        String bcRel = bcName(Path.of(rel));
        try (LlvmModule m = ctx.load(out.resolve(bcRel))) {
          for (KernelSpec k : parsed.kernels()) {
            try {
              Manifest.Entry e = entry(parsed.file(), k, rel, bcRel, m);
              if (!names.add(e.name())) throw new IllegalStateException("duplicate kernel name " + e.name());
              entries.add(e);
            } catch (RuntimeException ex) {
              errors.add(rel + ":" + k.line() + ": kernel " + k.name() + ": " + ex.getMessage());
            }
          }
        }
      }
    }
    if (!errors.isEmpty()) throw new IllegalStateException("manifest errors:\n  " + String.join("\n  ", errors));
    return new Manifest(1, BundledClang.TARGET_TRIPLE, BundledClang.KERNEL_FLAGS, entries);
  }

  private static Manifest.Entry entry(KernelAnnotations.FileSpec file, KernelSpec k, String rel, String bcRel, LlvmModule m) {
    Function f = m.function(k.function()).orElseThrow(() ->
        new IllegalStateException("function " + k.function() + " is not in " + bcRel + " (inlined away or misspelt?)"));
    if (f.isDeclaration()) throw new IllegalStateException("function " + k.function() + " is only declared in " + bcRel);
    String family = k.family() != null ? k.family() : file.family();
    if (family == null || !FAMILIES.contains(family)) throw new IllegalStateException("family must be one of " + FAMILIES + ", got " + family);
    List<ParamSpec> specs = k.params().isEmpty() ? file.params() : k.params();
    List<Type> types = f.functionType().paramTypes();
    if (specs.size() != types.size()) {
      throw new IllegalStateException("annotation lists " + specs.size() + " parameters, the function has " + types.size());
    }
    List<Manifest.Param> params = new ArrayList<>();
    StringBuilder sig = new StringBuilder();
    for (int i = 0; i < specs.size(); i++) {
      Manifest.Param p = param(specs.get(i), typeName(types.get(i)), file.types(), m);
      params.add(p);
      sig.append(p.letters());
    }
    Type ret = f.returnType();
    String retMeaning = k.returns() != null ? k.returns() : file.returns();
    if (ret.isVoid()) {
      if (retMeaning != null && !retMeaning.equals("void")) throw new IllegalStateException("a void function returns nothing");
      retMeaning = "nothing";
    } else if (retMeaning == null || retMeaning.equals("void")) {
      throw new IllegalStateException("no 'returns:' meaning for a " + typeName(ret) + " result");
    }
    List<List<Number>> samples = samples(k.samples().isEmpty() ? file.samples() : k.samples(), params);
    Facts facts = facts(f);
    boolean reducible = isReducible(f);
    if (family.equals("irreducible") && reducible) throw new IllegalStateException("the compiled CFG is reducible");
    if (!family.equals("irreducible") && !reducible) throw new IllegalStateException("the compiled CFG is irreducible; put it in family 'irreducible'");
    int ulps = k.ulps() != null ? k.ulps() : facts.transcendental ? 4 : 0;
    return new Manifest.Entry(k.name(), rel, bcRel, k.function(), family, k.description(), params,
        new Manifest.Returns(typeName(ret), retMeaning), sig.toString(), facts.registerOnly && !hasPointer(params),
        facts.math, ulps, samples);
  }

  private static boolean hasPointer(List<Manifest.Param> ps) { return ps.stream().anyMatch(Manifest.Param::isPointer); }

  private static Manifest.Param param(ParamSpec s, String type, Map<String, String> namedTypes, LlvmModule m) {
    String where = "parameter " + s.name() + " (line " + s.line() + "): ";
    if (type.equals("ptr")) {
      if (s.range() != null) throw new IllegalStateException(where + "a pointer has no range");
      if (s.pointee() == null || s.count() == null || s.direction() == null || s.init() == null) {
        throw new IllegalStateException(where + "a pointer needs pointee=, count=, dir= and init=");
      }
      if (s.count() <= 0) throw new IllegalStateException(where + "count must be positive");
      Long step = null;
      if (s.kind().equals("linear")) {
        if (s.step() == null) throw new IllegalStateException(where + "a linear pointer needs step= (bytes)");
        step = s.step();
      } else if (s.step() != null) {
        throw new IllegalStateException(where + "step= is for linear parameters");
      }
      String pointee = s.pointee();
      String pointeeName = null;
      if (namedTypes.containsKey(pointee)) {
        pointeeName = pointee;
        pointee = namedTypes.get(pointee);
      }
      checkLlvmType(pointee, m, where);
      return new Manifest.Param(s.name(), type, s.kind(), step, null, s.meaning(), pointee, pointeeName, s.count(),
          s.direction(), s.init());
    }
    if (s.kind().equals("soa")) throw new IllegalStateException(where + "soa is for pointers, this is " + type);
    if (s.pointee() != null || s.count() != null || s.direction() != null || s.init() != null) {
      throw new IllegalStateException(where + "pointee/count/dir/init are for pointers, this is " + type);
    }
    if (s.range() == null) throw new IllegalStateException(where + "a scalar needs range=[lo,hi]");
    if (s.range().get(0).doubleValue() > s.range().get(1).doubleValue()) throw new IllegalStateException(where + "empty range");
    if ((type.startsWith("i")) && (!(s.range().get(0) instanceof Long) || !(s.range().get(1) instanceof Long))) {
      throw new IllegalStateException(where + "an integer range needs integer bounds");
    }
    Long step = null;
    if (s.kind().equals("linear")) {
      if (!type.startsWith("i")) throw new IllegalStateException(where + "linear scalars must be integers");
      step = s.step() == null ? 1L : s.step();
    } else if (s.step() != null) {
      throw new IllegalStateException(where + "step= is for linear parameters");
    }
    return new Manifest.Param(s.name(), type, s.kind(), step, s.range(), s.meaning(), null, null, null, null, null);
  }

  private static void checkLlvmType(String text, LlvmModule m, String where) {
    LlvmContext ctx = m.context();
    try {
      ctx.parseIr("@probe = external global " + text + "\n", "pointee-check").close();
    } catch (RuntimeException e) {
      throw new IllegalStateException(where + "pointee '" + text + "' is not an LLVM type: " + e.getMessage());
    }
  }

  private static List<List<Number>> samples(List<List<String>> raw, List<Manifest.Param> params) {
    List<List<Number>> out = new ArrayList<>();
    for (List<String> s : raw) {
      if (s.size() != params.size()) {
        throw new IllegalStateException("sample " + s + " has " + s.size() + " values for " + params.size() + " parameters");
      }
      List<Number> row = new ArrayList<>();
      for (int i = 0; i < s.size(); i++) {
        Manifest.Param p = params.get(i);
        String v = s.get(i);
        if (p.isPointer()) {
          if (!v.equals("_")) throw new IllegalStateException("sample " + s + ": write _ for pointer " + p.name());
          row.add(null);
          continue;
        }
        Number n = KernelAnnotations.parseNumber(v);
        if (p.type().startsWith("i") && !(n instanceof Long)) throw new IllegalStateException("sample " + s + ": " + p.name() + " is an integer");
        if (n.doubleValue() < p.lo() || n.doubleValue() > p.hi()) {
          throw new IllegalStateException("sample " + s + ": " + p.name() + "=" + v + " is outside " + p.range());
        }
        row.add(n);
      }
      out.add(row);
    }
    return out;
  }

  static String typeName(Type t) {
    return switch (t.kind()) {
      case VOID -> "void";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case POINTER -> "ptr";
      case INTEGER -> "i" + t.intWidth();
      default -> t.toString();
    };
  }

  // ---------------------------------------------------------------------------------------------
  // facts read from the bitcode

  private record Facts(boolean registerOnly, boolean math, boolean transcendental) {}

  private static Facts facts(Function root) {
    boolean registerOnly = true;
    boolean math = false;
    boolean transcendental = false;
    Deque<Function> work = new ArrayDeque<>();
    Set<Function> seen = new HashSet<>();
    work.add(root);
    seen.add(root);
    while (!work.isEmpty()) {
      Function f = work.poll();
      if (!f.equals(root)) {
        for (Type t : f.functionType().paramTypes()) if (t.isPointer()) registerOnly = false;
      }
      for (Block b : f.blocks()) {
        for (Value v : b.instructions()) {
          Opcode op = v.opcode();
          if (!isScalarShaped(v)) {
            throw new IllegalStateException("@" + f.name() + " has a vector or aggregate value (kernels must be plain"
                + " scalar code; pass structs through pointers, not by value): " + v.print().strip());
          }
          switch (op) {
            case ALLOCA, STORE, ATOMICRMW, ATOMICCMPXCHG, FENCE, VAARG -> registerOnly = false;
            case LOAD -> {
              if (!isConstantGlobalAddress(v.operand(0))) registerOnly = false;
            }
            case FREM -> math = true;
            case CALL, INVOKE -> {
              var callee = v.calledFunction();
              if (callee.isEmpty()) {
                registerOnly = false;
                continue;
              }
              Function c = callee.get();
              String name = c.name();
              String base = mathBase(name);
              if (base != null) {
                math = true;
                if (TRANSCENDENTAL.contains(base)) transcendental = true;
              } else if (name.startsWith("llvm.")) {
                if (!name.startsWith("llvm.lifetime.") && !name.startsWith("llvm.assume")
                    && !name.startsWith("llvm.smax") && !name.startsWith("llvm.smin") && !name.startsWith("llvm.umax")
                    && !name.startsWith("llvm.umin") && !name.startsWith("llvm.abs")) {
                  registerOnly = false; // memcpy, memset, ...
                }
              } else if (c.isDeclaration()) {
                registerOnly = false; // external code, e.g. record()
              } else if (seen.add(c)) {
                work.add(c);
              }
            }
            default -> { }
          }
        }
      }
    }
    return new Facts(registerOnly, math, transcendental);
  }

  /** No vector or first-class aggregate among the instruction's result and operands. */
  private static boolean isScalarShaped(Value v) {
    if (badType(v.type())) return false;
    if (v.opcode() == Opcode.CALL) return true; // callee operand is a function; arguments checked as values
    for (Value o : v.operands()) {
      if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue() && badType(o.type())) return false;
    }
    return true;
  }

  private static boolean badType(Type t) {
    return t.isVector() || t.isStruct() || t.isArray();
  }

  /** "sin" for llvm.sin.f32, sinf, sin; null when not a math function. */
  private static String mathBase(String name) {
    String n = name;
    if (n.startsWith("llvm.")) {
      n = n.substring(5);
      int dot = n.indexOf('.');
      if (dot >= 0) n = n.substring(0, dot);
    } else if (n.endsWith("f") && (TRANSCENDENTAL.contains(n.substring(0, n.length() - 1))
        || MATH.contains(n.substring(0, n.length() - 1)))) {
      n = n.substring(0, n.length() - 1);
    }
    return TRANSCENDENTAL.contains(n) || MATH.contains(n) ? n : null;
  }

  private static boolean isConstantGlobalAddress(Value p) {
    Value v = p;
    for (int guard = 0; guard < 64 && v != null; guard++) {
      if (v.isGlobalVariable()) return LLVMIsGlobalConstant(v.ref()) != 0;
      if (v.opcode() == Opcode.GEP || v.opcode() == Opcode.BITCAST) {
        v = v.operand(0);
      } else if (v.opcode() == Opcode.SELECT) {
        return isConstantGlobalAddress(v.operand(1)) && isConstantGlobalAddress(v.operand(2));
      } else if (v.opcode() == Opcode.PHI) {
        return false;
      } else {
        return false;
      }
    }
    return false;
  }

  /**
   * Whether the function's CFG is reducible: every retreating edge of a depth-first search (an edge
   * to a block on the search stack) goes to a block that dominates its source.
   */
  static boolean isReducible(Function f) {
    List<Block> blocks = f.blocks();
    Map<Block, Integer> index = new HashMap<>();
    for (Block b : blocks) index.put(b, index.size());
    int n = blocks.size();
    List<List<Integer>> succ = new ArrayList<>();
    List<List<Integer>> pred = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      succ.add(new ArrayList<>());
      pred.add(new ArrayList<>());
    }
    for (Block b : blocks) {
      for (Block s : b.successors()) {
        succ.get(index.get(b)).add(index.get(s));
        pred.get(index.get(s)).add(index.get(b));
      }
    }
    // iterative DFS from the entry: post order and retreating edges
    int[] state = new int[n]; // 0 new, 1 on stack, 2 done
    List<Integer> post = new ArrayList<>();
    List<int[]> retreating = new ArrayList<>();
    Deque<int[]> stack = new ArrayDeque<>();
    stack.push(new int[] {0, 0});
    state[0] = 1;
    while (!stack.isEmpty()) {
      int[] top = stack.peek();
      List<Integer> ss = succ.get(top[0]);
      if (top[1] < ss.size()) {
        int s = ss.get(top[1]++);
        if (state[s] == 0) {
          state[s] = 1;
          stack.push(new int[] {s, 0});
        } else if (state[s] == 1) {
          retreating.add(new int[] {top[0], s});
        }
      } else {
        state[top[0]] = 2;
        post.add(top[0]);
        stack.pop();
      }
    }
    // dominators (Cooper, Harvey, Kennedy) over reachable blocks
    int[] rpoNum = new int[n];
    Arrays.fill(rpoNum, -1);
    List<Integer> rpo = new ArrayList<>(post.reversed());
    for (int i = 0; i < rpo.size(); i++) rpoNum[rpo.get(i)] = i;
    int[] idom = new int[n];
    Arrays.fill(idom, -1);
    idom[0] = 0;
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int b : rpo) {
        if (b == 0) continue;
        int nd = -1;
        for (int p : pred.get(b)) {
          if (rpoNum[p] < 0 || idom[p] < 0) continue;
          nd = nd < 0 ? p : intersect(p, nd, idom, rpoNum);
        }
        if (nd != idom[b]) {
          idom[b] = nd;
          changed = true;
        }
      }
    }
    for (int[] e : retreating) {
      int target = e[1];
      int x = e[0];
      boolean dominated = false;
      while (true) {
        if (x == target) {
          dominated = true;
          break;
        }
        if (x == 0 || idom[x] < 0) break;
        x = idom[x];
      }
      if (!dominated) return false;
    }
    return true;
  }

  private static int intersect(int a, int b, int[] idom, int[] rpoNum) {
    while (a != b) {
      while (rpoNum[a] > rpoNum[b]) a = idom[a];
      while (rpoNum[b] > rpoNum[a]) b = idom[b];
    }
    return a;
  }
}
