/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode opt --seed 8000 --first 299 --cases 1 (fz_8000_299_o, -O1)
 * function: fz_8000_299_o
 * flags: -O1 -nostdlibinc -fno-ident
 * kinds: vuvuus
 * expect: pass
 * bug: a silent wrong answer in the struct-of-arrays fields of s (most of s->f and s->i, in every
 *   lane that left one of the nested loops early) at every width. The same bug as
 *   loop-skip-pending-exit.c: an inner loop's entry test, when no lane entered, skipped past the
 *   enclosing loop's exit block where lanes from earlier iterations were waiting. (Reduced
 *   automatically: kept while it failed before the fix and passed after it.)
 */
#include <stdint.h>
float sqrtf(float);
float fabsf(float);
double sqrt(double);
double fabs(double);
struct S { float f[8]; int32_t i[8]; double d[4]; };
static inline int32_t sdiv(int32_t a, int32_t b) { return (b == 0 || (a == INT32_MIN && b == -1)) ? a : a / b; }
static inline uint32_t udiv(uint32_t a, uint32_t b) { return b == 0 ? a : a / b; }
static inline int32_t f2i(float v) { return (v > -2147483520.0f && v < 2147483520.0f) ? (int32_t) v : 0; }
static __attribute__((noinline)) int32_t fz_8000_299_o_h2(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  int32_t i0 = a, i1 = b, i2 = 19;
  float f0 = x, f1 = (-43.0f);
}
float fz_8000_299_o(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  int32_t i0 = a, i1 = b, i2 = 5;
  float f0 = x, f1 = (-21.25f);
  double d0 = y, d1 = (-22.75);
  if (!((-75310) & 1)) {
    {
      int32_t k12n = (int32_t) ((uint32_t) ((int32_t) ((uint32_t) (i2) & (uint32_t) (i1))) & 7u);
      for (int32_t k12 = 0; k12 < k12n; k12++) {
        if (((int32_t) (((i2) & 1)) < k12)) {
          i1 = fz_8000_299_o_h2((int32_t) (int8_t) (k12), i0, fabsf(f0), d1, tab, s);
        } else {
          d1 = ((d0 - d0) / (double) (INT32_MIN));
          s->f[0] = s->f[0] * 37.25f * f1;
          s->f[1] = s->f[1] * (-40.75f) * f1;
          s->f[2] = s->f[2] * 18.0f * f1;
          s->f[3] = s->f[3] * (-32.875f) * f1;
          f0 += tab[(uint32_t) (i1) & 15u];
        }
      }
    }
  }
  s->d[(uint32_t) (INT32_MIN) & 3u] = ((y / d0) + fabs(d1));
  f0 += (f0 < (1.0E10f - f0) ? f0 : (1.0E10f - f0));
  {
    int32_t g13 = 0;
    while (g13 < 3 && !(f0 != f0)) {
      g13++;
      for (int32_t k14 = 0; k14 < 8; k14++) s->f[k14] = s->f[k14] * f1 + tab[k14 + 0];
      if (((sdiv(i2, g13)) & 1)) {
      } else {
        {
          int32_t g15 = 0;
          while (g15 < 3 && ((48.5f <= f1) || ((-1.0E-10f) <= f0))) {
            g15++;
            if (!((i1) & 1)) break;
            s->f[0] = s->f[0] * 25.125f * tab[(uint32_t) ((int32_t) ((uint32_t) (59584) ^ (uint32_t) (4))) & 15u];
            s->f[1] = s->f[1] * (-48.125f) * tab[(uint32_t) ((int32_t) ((uint32_t) (59584) ^ (uint32_t) (4))) & 15u];
            s->f[2] = s->f[2] * (-37.625f) * tab[(uint32_t) ((int32_t) ((uint32_t) (59584) ^ (uint32_t) (4))) & 15u];
            s->f[3] = s->f[3] * (-46.25f) * tab[(uint32_t) ((int32_t) ((uint32_t) (59584) ^ (uint32_t) (4))) & 15u];
          }
        }
        if ((s->d[(uint32_t) ((int32_t) ((uint32_t) (i2) | (uint32_t) (i2))) & 3u] < (7.875 - 0.375))) {
          if ((((INT32_MAX) & 1) && (i2 <= i2))) continue;
          s->f[0] = s->f[0] * 23.5f + sqrtf(fabsf(x));
          s->f[1] = s->f[1] * (-1.0E-10f) + sqrtf(fabsf(x));
          s->f[2] = s->f[2] * 49.75f + sqrtf(fabsf(x));
          s->f[3] = s->f[3] * 0.0f + sqrtf(fabsf(x));
          d1 = (double) (g13);
        } else {
          i1 = (int32_t) ((uint32_t) ((int32_t) ((uint32_t) (i1) << ((uint32_t) (g13) & 31u))) * (uint32_t) (((-7) >> ((uint32_t) (i1) & 31u))));
          s->f[(uint32_t) ((int32_t) (int8_t) (g13)) & 7u] = sqrtf(fabsf((-41.875f)));
        }
      }
    }
  }
  for (int32_t k16 = 0; k16 < 8; k16++) s->i[k16] = s->f[k16] < f0 ? s->i[k16] : f2i(s->f[k16]);
  d1 *= d1;
  return (!((i2) & 1) ? (float) (a) : sqrtf(fabsf((-1.0E-10f))));
}
