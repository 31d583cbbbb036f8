package org.packetizer.core.driver;

import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;

/**
 * Packetizes the scalar function again (the other mask variant): handed in by the driver of the pipeline to the
 * array driver, which passes it on to the refill drivers.
 */
@FunctionalInterface
public interface VariantPacketizer {
  PacketizationResult run(PacketizerOptions options, String scalarName, String simdName);
}
