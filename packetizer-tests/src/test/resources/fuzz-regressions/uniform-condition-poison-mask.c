/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode opt --seed 9910 --first 512 --cases 1 (fz_9910_512_o, -O2)
 * function: fz_9910_512_o
 * flags: -O2 -nostdlibinc -fno-ident
 * kinds: lvvvus
 * expect: pass
 * bug: a silent wrong answer in the struct-of-arrays field s->i at W=4, 8, 16 and masked 8. clang
 *   -O2 unrolls the loop fully (n <= 7) into a chain of blocks guarded by (a ^ (b != 0)) == k; the
 *   packetizer's scalar clean-up (instcombine) proves the guards after the first one false, so the
 *   blocks behind them are dead and their branch conditions poison (the blocks stay). Under the
 *   partial mask those uniform branches were linearized with edge masks `select c, m, false`:
 *   poison although m is empty, so the mask of the store's block was poison and so was the
 *   scatter's (LLVM may then store any lane, or none). The uniform condition is now frozen before it
 *   selects a partial mask (MaskOps.frozen; also fuzz-regressions/uniform-condition-poison-mask.ll
 *   and irchecks masks/uniform-condition-dead-block.ll). Reduced automatically from the fuzzer's
 *   290-line case (a line was dropped only while the packetizer before the fix still failed the
 *   check and the fixed one passed), then by hand; it fails at every width before the fix.
 */
#include <stdint.h>
struct S { float f[8]; int32_t i[8]; double d[4]; };
static inline uint32_t udiv(uint32_t a, uint32_t b) { return b == 0 ? a : a / b; }
void fz_9910_512_o(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  int32_t n = (int32_t) ((uint32_t) a & 7u);
  for (int32_t k = 0; k < n; k++) {
    if ((int32_t) udiv((uint32_t) b, (uint32_t) b) != (k ^ a)) {
      s->i[k & 7] = (int32_t) udiv((uint32_t) (k & a), (uint32_t) a);
      break;
    }
  }
}
