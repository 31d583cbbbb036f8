package org.packetizer.cli;

import static org.bytedeco.llvm.global.LLVM.LLVMGetVersion;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.packetizer.core.ir.Llvm;
import picocli.CommandLine;

/** {@code packetize --version}: the Maven project version, the LLVM it runs on, Java and the host. */
final class VersionProvider implements CommandLine.IVersionProvider {
  static String version() {
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      String v = p.getProperty("version", "unknown");
      return v.contains("${") ? "unknown" : v;
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public String[] getVersion() {
    int[] major = new int[1], minor = new int[1], patch = new int[1];
    String llvm;
    String host;
    try {
      Llvm.init();
      LLVMGetVersion(major, minor, patch);
      llvm = major[0] + "." + minor[0] + "." + patch[0];
      host = Llvm.hostCpuName() + " (" + Llvm.hostTriple() + ")";
    } catch (RuntimeException | LinkageError e) {
      llvm = "unavailable (" + e.getMessage() + ")";
      host = "unknown";
    }
    return new String[] {
        "packetize " + version(),
        "LLVM " + llvm + " (bytedeco bindings), Java " + Runtime.version(),
        "Host CPU: " + host};
  }
}
