package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's project, built by Maven against the installed artifacts: it depends on
 * packetizer-core only, imports {@code org.packetizer.core.ir.*} and {@code org.packetizer.core.api.*}
 * with wildcards (no clash with {@code java.lang}), packetizes a function and runs. Its dependency
 * list holds core, analysis and the LLVM bindings, and none of the tooling (JIT, testkit, benchmark,
 * kernels, Jackson, Guava, picocli).
 *
 * <p>Runs in packetizer-cli, the last module of the build, so that every module it needs is installed
 * in the local repository (the one this build uses: {@code packetizer.localRepository}) before it runs.
 */
class ConsumerProjectTest {
  @TempDir Path dir;

  private static final String MAIN = """
      import java.nio.file.Path;
      import org.packetizer.core.Packetizer;
      import org.packetizer.core.api.*;
      import org.packetizer.core.ir.*;

      public class Main {
        public static void main(String[] args) {
          String ir = "define float @f(float %x, float %k) {\\n"
              + "entry:\\n  %c = fcmp olt float %x, %k\\n  br i1 %c, label %a, label %b\\n"
              + "a:\\n  %m = fmul float %x, %k\\n  br label %b\\n"
              + "b:\\n  %r = phi float [ %m, %a ], [ %x, %entry ]\\n  ret float %r\\n}\\n";
          try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "user.ll")) {
            PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(4).params("vu").build())
                .run(m, "f", "f4");
            Function f4 = m.function("f4").orElseThrow();
            System.out.println("packetized " + r.summary());
            System.out.println("type " + f4.functionType());
            System.out.println("verified " + m.verify().isEmpty());
          }
        }
      }
      """;

  private static String pom(String version) {
    return """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId><artifactId>consumer</artifactId><version>1</version>
          <properties>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
            <maven.compiler.release>25</maven.compiler.release>
          </properties>
          <dependencies>
            <dependency><groupId>org.packetizer</groupId><artifactId>packetizer-core</artifactId><version>%s</version></dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
            </plugins>
          </build>
        </project>
        """.formatted(version);
  }

  record Out(int code, String text) {}

  private Out run(List<String> cmd) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("MAVEN_OPTS");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "did not finish: " + cmd);
    return new Out(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /**
   * The installed jars' module descriptors: core exports the facade, the API types and the LLVM
   * facade, no phase, to everyone; the phases the project's own tools use (the checker, the command)
   * only to those modules, which a user's module cannot be; jit, testkit and bench export their own
   * packages; the command exports nothing.
   */
  @Test
  void theModulesExportOnlyThePublicApi() {
    String repo = System.getProperty("packetizer.localRepository");
    String version = System.getProperty("packetizer.version");
    assertNotNull(repo, "packetizer.localRepository is set by the pom (surefire systemPropertyVariables)");
    java.util.Map<String, java.util.Set<String>> expected = java.util.Map.of(
        "packetizer-core", java.util.Set.of("org.packetizer.core", "org.packetizer.core.api", "org.packetizer.core.ir"),
        "packetizer-analysis", java.util.Set.of("org.packetizer.analysis.cfg", "org.packetizer.analysis.divergence"),
        "packetizer-jit", java.util.Set.of("org.packetizer.core.jit"),
        "packetizer-testkit", java.util.Set.of("org.packetizer.core.check", "org.packetizer.core.toolchain"),
        "packetizer-bench", java.util.Set.of("org.packetizer.core.bench"));
    java.util.Set<String> ownModules = java.util.Set.of("org.packetizer.jit", "org.packetizer.testkit", "org.packetizer.bench", "org.packetizer.cli");
    for (var e : expected.entrySet()) {
      Path jar = Path.of(repo, "org/packetizer", e.getKey(), version, e.getKey() + "-" + version + ".jar");
      assertTrue(Files.isRegularFile(jar), jar + " is not installed (run with 'mvn install')");
      var refs = java.lang.module.ModuleFinder.of(jar).findAll();
      assertEquals(1, refs.size(), jar.toString());
      var d = refs.iterator().next().descriptor();
      assertFalse(d.isAutomatic(), e.getKey() + " has a module-info");
      java.util.Set<String> exported = new java.util.TreeSet<>();
      for (var x : d.exports()) {
        if (x.isQualified()) {
          assertTrue(ownModules.containsAll(x.targets()), () -> d.name() + ": " + x + " is exported beyond the project's tools");
        } else {
          exported.add(x.source());
        }
      }
      assertEquals(new java.util.TreeSet<>(e.getValue()), exported, d.name() + " exports");
      assertTrue(d.packages().size() > exported.size() || !e.getKey().equals("packetizer-core"),
          d.name() + " has internal packages: " + d.packages());
    }
    // this module's own descriptor (not installed yet while its tests run)
    try (var in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
      var cli = java.lang.module.ModuleDescriptor.read(in);
      assertEquals("org.packetizer.cli", cli.name());
      assertTrue(cli.exports().isEmpty(), () -> "the command exports nothing: " + cli.exports());
    } catch (java.io.IOException x) {
      throw new java.io.UncheckedIOException(x);
    }
  }

  @Test
  void aUserProjectBuildsAgainstCoreAloneAndRuns() throws Exception {
    String repo = System.getProperty("packetizer.localRepository");
    String version = System.getProperty("packetizer.version");
    assertNotNull(repo, "packetizer.localRepository is set by the pom (surefire systemPropertyVariables)");
    assertNotNull(version, "packetizer.version is set by the pom");
    Path installed = Path.of(repo, "org/packetizer/packetizer-core", version);
    assertTrue(Files.isDirectory(installed), "packetizer-core " + version + " is not installed in " + repo
        + " (this test runs after the modules it needs are installed: run it with 'mvn install')");
    Files.writeString(dir.resolve("pom.xml"), pom(version));
    Files.createDirectories(dir.resolve("src/main/java"));
    Files.writeString(dir.resolve("src/main/java/Main.java"), MAIN);
    Path cpFile = dir.resolve("cp.txt");
    Out build = run(List.of("mvn", "-o", "-q", "-B", "-Dmaven.repo.local=" + repo, "compile", "dependency:build-classpath",
        "-Dmdep.outputFile=" + cpFile, "-Dmdep.includeScope=runtime"));
    assertEquals(0, build.code(), "the consumer project does not build:\n" + build.text());
    String cp = Files.readString(cpFile).strip();
    List<String> jars = new ArrayList<>();
    for (String e : cp.split(java.io.File.pathSeparator)) jars.add(Path.of(e).getFileName().toString());
    String all = String.join("\n", jars);
    for (String wanted : List.of("packetizer-core-", "packetizer-analysis-", "llvm-20.1.7-1.5.12.jar",
        "llvm-20.1.7-1.5.12-linux-x86_64.jar", "javacpp-1.5.12.jar", "jgrapht-core-")) {
      assertTrue(all.contains(wanted), "the consumer's class path lacks " + wanted + ":\n" + all);
    }
    for (String unwanted : List.of("jackson", "testdata-bitcode", "packetizer-jit", "packetizer-testkit", "packetizer-bench",
        "guava", "picocli", "junit", "jqwik")) {
      assertFalse(all.contains(unwanted), "a user who only packetizes gets " + unwanted + ":\n" + all);
    }
    Out ran = run(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED",
        "-cp", dir.resolve("target/classes") + java.io.File.pathSeparator + cp, "Main"));
    assertEquals(0, ran.code(), ran.text());
    assertTrue(ran.text().contains("packetized @f -> @f4 (width 4, params vu)"), ran.text());
    assertTrue(ran.text().contains("type <4 x float> (<4 x float>, float)"), ran.text());
    assertTrue(ran.text().contains("verified true"), ran.text());
  }
}
