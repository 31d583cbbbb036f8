package org.packetizer.core.toolchain;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The manifest of the test kernels in {@code testdata-bitcode}: one {@link Entry} per kernel
 * function, saying where its C source and bitcode are, what each parameter means (kind, range,
 * memory it points to) and what it returns. The JSON schema is documented in
 * {@code testdata-bitcode/README.md}; these records mirror it one to one.
 *
 * <p>{@link #load()} reads {@code testdata/manifest.json} from the class path (the testdata-bitcode
 * jar); {@link #bitcode(Entry)} and {@link #source(Entry)} read an entry's files from there too.
 *
 * @param schema  the schema version (1)
 * @param target  the target triple the bitcode was compiled for
 * @param flags   the clang flags the bitcode was compiled with
 * @param kernels the kernels, grouped by file in file order, then in source order
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schema", "target", "flags", "kernels"})
public record Manifest(int schema, String target, List<String> flags, List<Entry> kernels) {
  /** Class-path folder of the test data. */
  public static final String RESOURCE_ROOT = "testdata/";

  public Manifest {
    flags = flags == null ? List.of() : List.copyOf(flags);
    kernels = kernels == null ? List.of() : List.copyOf(kernels);
  }

  /** The manifest of the testdata-bitcode jar on the class path. */
  public static Manifest load() {
    return parse(readResource(RESOURCE_ROOT + "manifest.json"));
  }

  public static Manifest parse(byte[] json) {
    try {
      return MAPPER.readValue(json, Manifest.class);
    } catch (IOException e) {
      throw new UncheckedIOException("invalid kernel manifest: " + e.getMessage(), e);
    }
  }

  /** The manifest as JSON text, formatted stably (two-space indent, '\n' line ends, final newline). */
  public String toJson() {
    DefaultPrettyPrinter pp = new DefaultPrettyPrinter()
        .withObjectIndenter(new DefaultIndenter("  ", "\n"))
        .withArrayIndenter(DefaultPrettyPrinter.FixedSpaceIndenter.instance);
    try {
      return MAPPER.writer(pp).writeValueAsString(this) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bitcode of an entry's file, from the class path ({@code testdata/bc/...}). */
  public byte[] bitcode(Entry e) { return readResource(RESOURCE_ROOT + "bc/" + e.bitcode()); }

  /** The C source of an entry's file, from the class path ({@code testdata/c/...}). */
  public String source(Entry e) {
    return new String(readResource(RESOURCE_ROOT + "c/" + e.file()), StandardCharsets.UTF_8);
  }

  /** The entry with this name. */
  public Optional<Entry> entry(String name) {
    return kernels.stream().filter(k -> k.name().equals(name)).findFirst();
  }

  /** The entry with this name, or an exception listing what is there. */
  public Entry require(String name) {
    return entry(name).orElseThrow(() -> new IllegalArgumentException("no kernel '" + name + "' in the manifest"));
  }

  /** The entries of one family ({@code "if"}, {@code "memory"}, ...), in manifest order. */
  public List<Entry> family(String family) {
    return kernels.stream().filter(k -> k.family().equals(family)).toList();
  }

  /** The distinct bitcode files, in manifest order. */
  public List<String> bitcodeFiles() {
    return kernels.stream().map(Entry::bitcode).distinct().toList();
  }

  static byte[] readResource(String name) {
    ClassLoader cl = Objects.requireNonNullElse(Thread.currentThread().getContextClassLoader(), Manifest.class.getClassLoader());
    try (InputStream in = cl.getResourceAsStream(name)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("class-path resource " + name
            + " not found (is org.packetizer:testdata-bitcode on the class path?)"));
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read class-path resource " + name + ": " + e.getMessage(), e);
    }
  }

  static final ObjectMapper MAPPER = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  // -----------------------------------------------------------------------------------------------

  /**
   * One kernel function.
   *
   * @param name          unique id (usually the function name)
   * @param file          C source, relative to {@code testdata/c/}
   * @param bitcode       bitcode file, relative to {@code testdata/bc/}
   * @param function      the function's name in the bitcode
   * @param family        {@code kernel, thesis, if, loop, loopmx, loopns, loopnsmx, call, irreducible,
   *                      mixed, types, memory}
   * @param description   what it computes and which feature it exercises
   * @param params        one per function parameter, in order
   * @param returns       the return type and its meaning
   * @param signature     one letter group per parameter: v varying, u uniform, l / lN linear, s soa
   * @param registerOnly  no pointer parameters and no memory accesses besides loads from constant
   *                      global tables (and no calls with side effects)
   * @param mathCalls     calls a math intrinsic or libm function (directly or through a helper)
   * @param ulps          allowed difference in units in the last place between scalar and packet
   *                      results (non-zero only where vector math may round differently)
   * @param samples       argument tuples that make lanes diverge interestingly, one value per
   *                      parameter (null for pointers); use them as lanes of one packet
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"name", "file", "bitcode", "function", "family", "description", "params", "returns",
      "signature", "registerOnly", "mathCalls", "ulps", "samples"})
  public record Entry(String name, String file, String bitcode, String function, String family, String description,
      List<Param> params, Returns returns, String signature, boolean registerOnly, boolean mathCalls, int ulps,
      List<List<Number>> samples) {
    public Entry {
      params = params == null ? List.of() : List.copyOf(params);
      samples = samples == null ? List.of() : samples.stream()
          .map(s -> java.util.Collections.unmodifiableList(new ArrayList<>(s))).toList();
    }

    public Param param(String paramName) {
      return params.stream().filter(p -> p.name().equals(paramName)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException(name + " has no parameter " + paramName));
    }

    @JsonIgnore
    public boolean hasPointerParams() { return params.stream().anyMatch(Param::isPointer); }

    @JsonIgnore
    public boolean returnsVoid() { return "void".equals(returns.type()); }

    @Override
    public String toString() { return name + " (" + file + ": " + function + ", " + signature + ")"; }
  }

  /**
   * A parameter.
   *
   * @param name        the C parameter name
   * @param type        {@code float, double, i8, i16, i32, i64, ptr}
   * @param kind        {@code varying, uniform, linear, soa}
   * @param step        linear only: lane k gets base + k*step (units for integers, bytes for pointers)
   * @param range       scalars: the inclusive range [lo, hi] the kernel is defined for; for a linear
   *                    parameter the range of the base
   * @param meaning     what it is
   * @param pointee     pointers: the pointee as an LLVM type ({@code float}, {@code [16 x float]},
   *                    {@code { float, float, float }}); structs are spelled as literal bodies since
   *                    optimised bitcode rarely keeps the struct name
   * @param pointeeName pointers to C structs: the struct's name ({@code struct.Color}), informative
   * @param count       pointers: pointee elements per lane (soa, varying) or in total (uniform, linear)
   * @param direction   pointers: {@code in, out, inout}
   * @param init        pointers: initial contents of the memory
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"name", "type", "kind", "step", "range", "meaning", "pointee", "pointeeName", "count",
      "direction", "init"})
  public record Param(String name, String type, String kind, Long step, List<Number> range, String meaning,
      String pointee, String pointeeName, Long count, String direction, Init init) {
    public Param {
      range = range == null ? null : List.copyOf(range);
    }

    @JsonIgnore
    public boolean isPointer() { return "ptr".equals(type); }

    @JsonIgnore
    public boolean isUniform() { return "uniform".equals(kind); }

    @JsonIgnore
    public boolean isVarying() { return "varying".equals(kind); }

    @JsonIgnore
    public boolean isLinear() { return "linear".equals(kind); }

    @JsonIgnore
    public boolean isSoa() { return "soa".equals(kind); }

    /** Lower bound of the range (scalars). */
    @JsonIgnore
    public double lo() { return requireRange().get(0).doubleValue(); }

    /** Upper bound of the range (scalars). */
    @JsonIgnore
    public double hi() { return requireRange().get(1).doubleValue(); }

    private List<Number> requireRange() {
      if (range == null || range.size() != 2) throw new IllegalStateException("parameter " + name + " has no range");
      return range;
    }

    /** The vector-function-ABI letters of this parameter's kind (v, u, l, lN, s). */
    @JsonIgnore
    public String letters() {
      return switch (kind) {
        case "varying" -> "v";
        case "uniform" -> "u";
        case "soa" -> "s";
        case "linear" -> step == null || step == 1 ? "l" : step < 0 ? "ln" + (-step) : "l" + step;
        default -> throw new IllegalStateException("unknown kind " + kind);
      };
    }
  }

  /** @param type LLVM return type: float, double, iN, ptr or void. @param meaning what it is. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "meaning"})
  public record Returns(String type, String meaning) {}

  /**
   * Initial memory contents: {@code "zero"}, {@code {"random":[lo,hi]}} (uniform in [lo, hi]; for
   * integer pointees inclusive integers) or {@code {"iota":[start,step]}} (element i = start + i*step).
   */
  @JsonSerialize(using = InitSerializer.class)
  @JsonDeserialize(using = InitDeserializer.class)
  public record Init(Kind kind, double a, double b) {
    public enum Kind { ZERO, RANDOM, IOTA }

    public static final Init ZERO = new Init(Kind.ZERO, 0, 0);

    public static Init random(double lo, double hi) { return new Init(Kind.RANDOM, lo, hi); }

    public static Init iota(double start, double step) { return new Init(Kind.IOTA, start, step); }

    /** RANDOM: the lower bound; IOTA: the start. */
    public double lo() { return a; }

    /** RANDOM: the upper bound; IOTA: the step. */
    public double hi() { return b; }
  }

  static final class InitSerializer extends JsonSerializer<Init> {
    @Override
    public void serialize(Init v, JsonGenerator g, SerializerProvider p) throws IOException {
      if (v.kind() == Init.Kind.ZERO) {
        g.writeString("zero");
        return;
      }
      g.writeStartObject();
      g.writeFieldName(v.kind() == Init.Kind.RANDOM ? "random" : "iota");
      g.writeStartArray();
      writeNumber(g, v.a());
      writeNumber(g, v.b());
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  static void writeNumber(JsonGenerator g, double d) throws IOException {
    if (d == Math.rint(d) && Math.abs(d) < 1e15) g.writeNumber((long) d);
    else g.writeNumber(d);
  }

  static final class InitDeserializer extends JsonDeserializer<Init> {
    @Override
    public Init deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
      JsonNode n = p.readValueAsTree();
      if (n.isTextual() && n.asText().equals("zero")) return Init.ZERO;
      if (n.isObject() && n.size() == 1) {
        var f = n.fields().next();
        JsonNode arr = f.getValue();
        if (arr.isArray() && arr.size() == 2) {
          double a = arr.get(0).asDouble();
          double b = arr.get(1).asDouble();
          switch (f.getKey()) {
            case "random": return Init.random(a, b);
            case "iota": return Init.iota(a, b);
            default: break;
          }
        }
      }
      throw ctx.weirdStringException(n.toString(), Init.class, "expected \"zero\", {\"random\":[lo,hi]} or {\"iota\":[start,step]}");
    }
  }
}
