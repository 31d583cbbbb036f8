package org.packetizer.core.widen;

/**
 * The cost rule of dynamic variants ({@code MemoryWidener.dynamicVariants}): whether a group of loads
 * at constant offsets from one varying pointer is worth one run-time test of the pointer's lanes.
 *
 * <p>The test compares the W 64-bit pointers with lane 0's (all equal) and with lane 0's plus
 * {@code k * size} (consecutive): per compare one vector compare per register of 64-bit lanes
 * ({@code ceil(8W / registerBytes)}), then a mask move, a compare and a branch each (about 4 more
 * instructions). Without the variants the group costs about one load and one insert per lane and
 * member ({@code members * W} loads). The test is emitted when those per-lane loads are at least
 * {@value #PAYBACK} times its cost: on inputs where the lanes are neither equal nor consecutive (the
 * test fails every time, a predictable branch) it then adds at most about an eighth to the group's
 * instructions (2 instructions per load and insert), and where they are equal it removes nearly all.
 * With 16-byte registers (SSE, NEON) that is 8 or more loads at W4, 4 or more at W8; with 32-byte
 * (AVX2) 4 or more at W8; with 64-byte (AVX-512) 2 or more at W16.
 */
public final class DynamicVariantCost {
  private DynamicVariantCost() {}

  /** The group's per-lane loads must be at least this many times the test's instructions. */
  static final int PAYBACK = 4;

  /** The measurement knob: {@code -Dpacketizer.dynamicVariants=false} turns dynamic variants off. */
  public static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.dynamicVariants", "true"));
  }

  /**
   * Whether a variant that can never be taken is left out: the consecutive one for a group whose root
   * is an element of an array of structs ({@code p[i].x}, {@code p[i].y}), whose lanes differ by
   * multiples of the struct's size and so never by the fields' element size. Knob (for measurements
   * and the fail-before check): {@code -Dpacketizer.dynamicVariants.keepImpossible=true}.
   */
  static boolean dropImpossibleVariants() {
    return !"true".equalsIgnoreCase(System.getProperty("packetizer.dynamicVariants.keepImpossible", "false"));
  }

  /**
   * Whether the all-equal test compares the narrow offsets of a root that is a uniform base plus
   * varying offsets of at most 32 bits ({@code g + sext(y * 24) + sext(x)}) instead of the 64-bit
   * pointers: half the vector width per compare, and the pointer vector is built only where the test
   * fails. The price is on inputs where the test fails: the offsets' compares (about 8 instructions)
   * come on top of the pre-test on two pointer lanes that the per-lane path extracts anyway. Knob
   * {@code -Dpacketizer.dynamicVariants.offsets=auto|true|false}: {@code auto}, the default, only with
   * 64-byte vector registers (AVX-512), where stencil measured -25 % coherent and -1..+2 % random
   * per element at W16, against -18 % and +4..+5 % at W4/W8 (docs/performance.md); {@code false} tests
   * the pointers, as before.
   */
  static boolean offsetTest(int registerBytes) {
    String v = System.getProperty("packetizer.dynamicVariants.offsets", "auto");
    if ("false".equalsIgnoreCase(v)) return false;
    if ("true".equalsIgnoreCase(v)) return true;
    return registerBytes >= 64;
  }

  /**
   * Whether the dynamic variants get a fourth, two-valued variant where the all-equal and consecutive
   * tests fail: every active lane's pointer is the first or the last active lane's (a packet that
   * straddles two runs of a Z-ordered grid, two texels of a magnified texture): two scalar loads per
   * member and a blend instead of the per-lane path. Its test is one more compare per offset (or per
   * 64-bit pointer register) on the path where the others failed. Knob
   * {@code -Dpacketizer.dynamicVariants.twoValued=auto|true|false}; {@code auto}, the default, only
   * where the all-equal test is on narrow offsets ({@code narrowRoute}), whose compare with the first
   * lane's offsets the two-valued test reuses (docs/performance.md: the measurements).
   */
  static boolean twoValued(boolean narrowRoute, int registerBytes) {
    String v = System.getProperty("packetizer.dynamicVariants.twoValued", "auto");
    if ("false".equalsIgnoreCase(v)) return false;
    if ("true".equalsIgnoreCase(v)) return true;
    return narrowRoute;
  }

  /**
   * Whether vector-typed loads ({@code <2 x float>}: clang's SLP vectorizer at {@code -O2} merges two adjacent
   * float loads into one) join dynamic-variant groups, each counted by its elements in {@link #pays}. Knob
   * {@code -Dpacketizer.dynamicVariants.vectors=true|false} (default true; false: such a load is one gather per
   * element, as before the eighteenth round).
   */
  static boolean vectors() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.dynamicVariants.vectors", "true"));
  }

  /**
   * Whether the loads off other varying roots on the same uniform base ({@code t + y*w + x} and
   * {@code t + (y+1)*w + x}: the two rows of a bilinear fetch or a 2x2 box filter) join one group behind one
   * branch, each test the conjunction of its test on every root (one more compare per root and offset).
   * Knob {@code -Dpacketizer.dynamicVariants.mergeRoots=auto|true|false}; {@code auto}, the default, only
   * for groups with a vector-typed load (the SLP shapes this was built for; groups of scalar loads keep
   * their one-root groups and their code unchanged).
   */
  static boolean mergeRoots(boolean hasVectorMember) {
    String v = System.getProperty("packetizer.dynamicVariants.mergeRoots", "auto");
    if ("false".equalsIgnoreCase(v)) return false;
    if ("true".equalsIgnoreCase(v)) return true;
    return hasVectorMember;
  }

  /**
   * Whether the narrow-offset route rebuilds pointers where it needs them instead of taking lanes of the roots'
   * 64-bit pointer vectors: the consecutive pre-test's last active lane from its narrow offsets, and, on the per-lane
   * path, the roots' pointer vectors from the uniform base and the offsets' packets (so that x86 gathers see base +
   * 32-bit index, as they do without dynamic variants; built in the entry block and used across the branches they
   * are 64-bit vectors). Knob {@code -Dpacketizer.dynamicVariants.localPointers=auto|true|false}; {@code auto}, the
   * default, for groups with a vector-typed load (measured on the SLP'd bilinear fetch, docs/performance.md); groups
   * of scalar loads keep their code unchanged.
   */
  static boolean localPointers(boolean hasVectorMember) {
    String v = System.getProperty("packetizer.dynamicVariants.localPointers", "auto");
    if ("false".equalsIgnoreCase(v)) return false;
    if ("true".equalsIgnoreCase(v)) return true;
    return hasVectorMember;
  }

  /** Instructions of the run-time test for W 64-bit pointers in registers of {@code registerBytes}. */
  static int testCost(int w, int registerBytes) {
    int perCompare = (8 * w + registerBytes - 1) / Math.max(1, registerBytes);
    return 2 * perCompare + 4;
  }

  /** Whether {@code members} loads (vector loads counted by their elements) at W lanes pay for the test. */
  static boolean pays(int members, int w, int registerBytes) {
    return members >= 2 && (long) members * w >= (long) PAYBACK * testCost(w, registerBytes);
  }

  /** The rule's figures for a remark. */
  static String explain(int members, int w, int registerBytes) {
    return "cost rule: " + members + " loads x " + w + " lanes = " + (long) members * w + " per-lane loads "
        + (pays(members, w, registerBytes) ? ">=" : "<") + " " + PAYBACK + " x " + testCost(w, registerBytes)
        + " instructions of the test (" + registerBytes + "-byte vector registers)";
  }
}
