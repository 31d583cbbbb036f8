/**
 * What tests and {@code --check} use: the differential checker and guarded memory
 * ({@code org.packetizer.core.check}), the bundled clang, the kernel manifest and test-data builder
 * ({@code org.packetizer.core.toolchain}).
 */
module org.packetizer.testkit {
  requires transitive org.packetizer.jit;
  requires com.fasterxml.jackson.databind;
  requires java.management;
  requires jdk.management;

  exports org.packetizer.core.check;
  exports org.packetizer.core.toolchain;
  // the manifest's records are read by Jackson
  opens org.packetizer.core.toolchain to com.fasterxml.jackson.databind;
}
