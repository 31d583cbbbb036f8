package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A kernel, width and ISA the benchmark does not report, and why.
 *
 * @param kernel  manifest name
 * @param width   packet width W
 * @param isa     ISA name
 * @param stage   where it failed: {@code plan} (the benchmark cannot drive the kernel), {@code
 *                packetize}, {@code compile} (clang), {@code jit}, {@code mismatch} (the packet loop
 *                computed other outputs than the scalar loop: refused), {@code timeout} (a loop did
 *                not finish), {@code crash} (the worker process died), {@code error}
 * @param message details
 */
@JsonPropertyOrder({"kernel", "width", "isa", "stage", "message"})
public record KernelFailure(
    @JsonProperty("kernel") String kernel,
    @JsonProperty("width") int width,
    @JsonProperty("isa") String isa,
    @JsonProperty("stage") String stage,
    @JsonProperty("message") String message) {

  public String label() { return "W" + width + "/" + isa; }

  /** True when the packet code was run and computed wrong results. */
  public boolean isMismatch() { return "mismatch".equals(stage); }
}
