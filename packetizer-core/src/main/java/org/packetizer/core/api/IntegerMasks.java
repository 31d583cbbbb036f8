package org.packetizer.core.api;

/**
 * Whether the packet function computes its masks as integer vectors ({@code <W x i32>} or
 * {@code <W x i64>} lanes of all ones or zeros) rather than {@code <W x i1>} (see
 * {@code org.packetizer.core.widen.MaskDemotion}).
 */
public enum IntegerMasks {
  /** Integer masks when the target has no mask registers (no AVX-512F) and W ≥ 4: on AVX2 this
   *  avoids packing every compare to 16-bit lanes and back. */
  AUTO,
  /** Always integer masks (after the clean-up). */
  ALWAYS,
  /** Never: {@code <W x i1>} everywhere, the backend legalizes them. */
  NEVER
}
