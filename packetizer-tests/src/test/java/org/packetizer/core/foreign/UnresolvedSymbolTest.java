package org.packetizer.core.foreign;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;

/**
 * Issue #19: "one unresolved symbol today blocks --check for every function in the module". The
 * differential check now links only what the scalar and packet function reach, so @fine (an i128
 * division: compiler runtime builtins) is checked although @uses_missing calls an external that
 * exists nowhere; checking @uses_missing names the missing symbol. Clang -O1/-O2, W=4, 8, 16.
 */
class UnresolvedSymbolTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void aMissingSymbolBlocksOnlyTheFunctionsThatReachIt(String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "unresolved.c", opt)) {
      for (int w : new int[] {4, 8, 16}) {
        new Packetizer(PacketizerOptions.builder().width(w).build()).run(m, "fine", "fine_v" + w);
        new Packetizer(PacketizerOptions.builder().width(w).build()).run(m, "uses_missing", "uses_missing_v" + w);
        ValueDomain any = ValueDomain.ints(0, Long.MAX_VALUE);
        try (DifferentialCheck c = DifferentialCheck.builder(m, "fine", "fine_v" + w, w)
            .params(ParamSpec.varying(any), ParamSpec.varying(any)).build()) {
          CheckResult r = c.runMany(30, w);
          assertTrue(r.passed(), r::report);
        }
        LlvmException e = assertThrows(LlvmException.class,
            () -> DifferentialCheck.builder(m, "uses_missing", "uses_missing_v" + w, w).build().close());
        assertTrue(e.getMessage().contains("missing: nowhere_to_be_found"), e::getMessage);
      }
    }
  }
}
