package org.packetizer.core.ir;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * {@link Opcode#of} looks codes up in a dense table (issue 16, eleventh round; a boxed HashMap lookup
 * before): every code LLVM's C API defines maps to the constant that declares it, anything else to
 * UNKNOWN.
 */
class OpcodeTest {
  @Test
  void everyCodeMapsToItsConstantAndOthersToUnknown() {
    int known = 0;
    for (int code = -3; code <= 200; code++) {
      Opcode expected = Opcode.UNKNOWN;
      for (Opcode o : Opcode.values()) if (o != Opcode.UNKNOWN && o.code() == code) expected = o;
      assertEquals(expected, Opcode.of(code), "code " + code);
      if (expected != Opcode.UNKNOWN) known++;
    }
    assertEquals(Opcode.values().length - 1, known, "every constant but UNKNOWN has its own code");
    assertEquals(Opcode.UNKNOWN, Opcode.of(Integer.MAX_VALUE));
    assertEquals(Opcode.UNKNOWN, Opcode.of(Integer.MIN_VALUE));
    assertEquals(Opcode.PHI, Opcode.of(org.bytedeco.llvm.global.LLVM.LLVMPHI));
    assertEquals(Opcode.FREEZE, Opcode.of(org.bytedeco.llvm.global.LLVM.LLVMFreeze));
  }
}
