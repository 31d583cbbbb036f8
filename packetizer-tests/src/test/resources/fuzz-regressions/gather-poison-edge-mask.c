/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode o1 --seed 6000 --first 553 --cases 1
 * function: fz_6000_553_r
 * flags: -O1 -nostdlibinc -fno-ident
 * kinds: uvvuus
 * expect: pass
 * bug: a silent wrong answer (the store to s->f[3] vanished at W4, W16 and masked W8). No lane enters
 *   the if, so the gather of s->i[..] runs under an empty mask and every lane of it is poison; the
 *   loop-exit edge mask was `select <c>, false, <m>` with c = (n == 0) derived from that gather, and a
 *   select on a poison condition is poison even where m is false. The branch on reduce.or of that mask
 *   was undefined behaviour, and LLVM's clean-up deleted everything after it. Edge masks now select on
 *   m (`select <m>, not <c>, false`). (W8 used the if-cascade, whose phis hid the poison from the
 *   optimizer.)
 */
#include <stdint.h>
float sqrtf(float);
float fabsf(float);
struct S { float f[8]; int32_t i[8]; double d[4]; };
int32_t fz_6000_553_r(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  if (sqrtf(fabsf(x)) < -1.0e-10f) {
    int32_t n = s->i[(uint32_t) b * (uint32_t) a & 7u] & 7;
    for (int32_t k = 0; k < n; k++)
      if ((uint32_t) b - 18u >= 3u) s->d[(-3 >> (a & 31)) & 3] = -1.5;
  }
  s->f[3] = -4.25f;
  return 0;
}
