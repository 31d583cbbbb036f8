package org.packetizer.core.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestTest {
  @Test
  void jsonRoundTripsExactly() {
    byte[] json = Manifest.readResource(Manifest.RESOURCE_ROOT + "manifest.json");
    Manifest m = Manifest.parse(json);
    assertEquals(new String(json, StandardCharsets.UTF_8), m.toJson());
  }

  @Test
  void readsEveryInitForm() {
    Manifest m = Manifest.load();
    Manifest.Param out = m.require("fig414").param("color");
    assertEquals(Manifest.Init.ZERO, out.init());
    assertEquals("{ float, float, float }", out.pointee());
    assertEquals("struct.Color", out.pointeeName());
    Manifest.Init random = m.require("mem01").param("p").init();
    assertEquals(Manifest.Init.Kind.RANDOM, random.kind());
    assertEquals(-10.0, random.lo());
    assertEquals(10.0, random.hi());
    Manifest.Init iota = m.require("mem47").param("sorted").init();
    assertEquals(Manifest.Init.iota(-10, 0.625), iota);
    Manifest.Param i = m.require("mem06").param("i");
    assertEquals("linear", i.kind());
    assertEquals(1L, i.step());
    assertEquals("l", i.letters());
    assertEquals(List.of(0.0, 15.0), List.of(i.lo(), i.hi()));
  }

  @Test
  void rejectsAMalformedInit() {
    String bad = """
        {"schema":1,"kernels":[{"name":"k","params":[{"name":"p","type":"ptr","init":"ones"}]}]}
        """;
    assertThrows(java.io.UncheckedIOException.class, () -> Manifest.parse(bad.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void annotationsParse() {
    String src = """
        /*@ file
        family: if
        type struct.P = { float, i32 }
        param a: varying range=[-1,1] -- first
        returns: the value
        sample: 0.5
        */
        /*@ kernel k1: one line */
        /*@ kernel k2
        desc: two
          lines
        param p: soa pointee=struct.P count=2 dir=inout init=random[0,3] -- a record
        param i: linear step=1 range=[0,15] -- index
        sample: _, 3
        ulps: 4
        */
        """;
    KernelAnnotations.Parsed parsed = KernelAnnotations.parse(src, "x.c");
    assertEquals("if", parsed.file().family());
    assertEquals("{ float, i32 }", parsed.file().types().get("struct.P"));
    assertEquals(2, parsed.kernels().size());
    assertEquals("one line", parsed.kernels().get(0).description());
    KernelAnnotations.KernelSpec k2 = parsed.kernels().get(1);
    assertEquals("two lines", k2.description());
    assertEquals(4, k2.ulps());
    assertEquals("soa", k2.params().get(0).kind());
    assertEquals(2L, k2.params().get(0).count());
    assertEquals(Manifest.Init.random(0, 3), k2.params().get(0).init());
    assertEquals(List.of(0L, 15L), k2.params().get(1).range());
    assertEquals(List.of("_", "3"), k2.samples().get(0));
  }

  @Test
  void annotationErrorsNameFileAndLine() {
    var e = assertThrows(KernelAnnotations.AnnotationException.class, () ->
        KernelAnnotations.parse("int x;\n/*@ kernel k\ndesc: d\nparam a: sideways range=[0,1]\n*/\n", "y.c"));
    assertTrue(e.getMessage().startsWith("y.c:4: "), e.getMessage());
  }
}
