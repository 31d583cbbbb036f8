/** The benchmark: kernel speed-ups and packetization time ({@link org.packetizer.core.bench.Benchmark}). */
module org.packetizer.bench {
  requires transitive org.packetizer.testkit;
  requires com.fasterxml.jackson.databind;
  requires java.management;

  exports org.packetizer.core.bench;
  // results and options are written and read by Jackson
  opens org.packetizer.core.bench to com.fasterxml.jackson.databind;
}
