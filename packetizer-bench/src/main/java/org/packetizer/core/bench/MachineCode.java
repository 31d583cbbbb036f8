package org.packetizer.core.bench;

import java.util.List;
import java.util.Map;
import org.packetizer.core.ir.LlvmModule;

/** The benchmark's view of {@link org.packetizer.core.ir.MachineCode} (machine-code size of functions). */
final class MachineCode {
  private MachineCode() {}

  /** {@link org.packetizer.core.ir.MachineCode#assembly(LlvmModule, String)}. */
  static String assembly(LlvmModule module, String cpu) {
    return org.packetizer.core.ir.MachineCode.assembly(module, cpu);
  }

  /** {@link org.packetizer.core.ir.MachineCode#count(LlvmModule, String, List)}. */
  static Map<String, Integer> count(LlvmModule module, String cpu, List<String> functions) {
    return org.packetizer.core.ir.MachineCode.count(module, cpu, functions);
  }

  /** {@link org.packetizer.core.ir.MachineCode#count(String, List)}. */
  static Map<String, Integer> count(String asm, List<String> functions) {
    return org.packetizer.core.ir.MachineCode.count(asm, functions);
  }

  /** {@link org.packetizer.core.ir.MachineCode#definesFunction}. */
  static boolean definesFunction(String asm, String function) {
    return org.packetizer.core.ir.MachineCode.definesFunction(asm, function);
  }

  /** {@link org.packetizer.core.ir.MachineCode#callees}. */
  static List<String> callees(String asm, String function) {
    return org.packetizer.core.ir.MachineCode.callees(asm, function);
  }

  /** {@link org.packetizer.core.ir.MachineCode#countInstructions}. */
  static int countInstructions(String asm, String function) {
    return org.packetizer.core.ir.MachineCode.countInstructions(asm, function);
  }
}
