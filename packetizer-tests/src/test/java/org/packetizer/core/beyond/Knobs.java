package org.packetizer.core.beyond;

/** Runs test code with a {@code -Dpacketizer.*} knob set, restoring the property's earlier state afterwards. */
final class Knobs {
  private Knobs() {}

  static void with(String property, String value, Runnable r) {
    String before = System.getProperty(property);
    System.setProperty(property, value);
    try {
      r.run();
    } finally {
      if (before == null) System.clearProperty(property);
      else System.setProperty(property, before);
    }
  }
}
