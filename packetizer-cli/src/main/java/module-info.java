/**
 * The {@code packetize} command (and {@code packetize bench}, {@code demo}). An application: it
 * exports nothing; picocli reads its commands' options reflectively.
 */
module org.packetizer.cli {
  requires org.packetizer.bench;
  requires info.picocli;

  opens org.packetizer.cli to info.picocli;
}
