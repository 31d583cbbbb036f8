package org.packetizer.core.check;

import java.util.random.RandomGenerator;

/** Active-lane patterns for the mask parameter of a masked packet function. */
public enum MaskPattern {
  ALL_ACTIVE, NONE_ACTIVE, ALTERNATING, SINGLE_ACTIVE, SINGLE_INACTIVE, FIRST_HALF, RANDOM;

  public boolean[] mask(int width, RandomGenerator rnd) {
    boolean[] m = new boolean[width];
    switch (this) {
      case ALL_ACTIVE -> java.util.Arrays.fill(m, true);
      case NONE_ACTIVE -> { }
      case ALTERNATING -> {
        int phase = rnd.nextInt(2);
        for (int k = 0; k < width; k++) m[k] = (k + phase) % 2 == 0;
      }
      case SINGLE_ACTIVE -> m[rnd.nextInt(width)] = true;
      case SINGLE_INACTIVE -> {
        java.util.Arrays.fill(m, true);
        m[rnd.nextInt(width)] = false;
      }
      case FIRST_HALF -> {
        for (int k = 0; k < width / 2; k++) m[k] = true;
      }
      case RANDOM -> {
        for (int k = 0; k < width; k++) m[k] = rnd.nextBoolean();
      }
    }
    return m;
  }
}
