/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode opt --seed 7000 --first 211 --cases 1 (fz_7000_211_o, -O1)
 * function: fz_7000_211_r
 * flags: -O1 -nostdlibinc -fno-ident
 * kinds: uvvuus
 * expect: pass
 * bug: a silent wrong answer: s->i[..] got a stale d0 in lanes that left the middle loop (the one
 *   the g loop's body becomes at -O1) into the n loop in an earlier iteration. When no lane entered
 *   the uniform k loop, its entry test jumped past every later block the k loop's header dominates,
 *   including the middle loop's exit where those lanes were waiting, straight to the final store.
 *   The skipped stretch now ends with the enclosing loop (loop-skip-pending-exit.ll is the same
 *   bug by hand; seed 8000 #299 was the same).
 */
#include <stdint.h>
struct S { float f[8]; int32_t i[8]; double d[4]; };
static inline int32_t sdiv(int32_t a, int32_t b) { return (b == 0 || (a == INT32_MIN && b == -1)) ? a : a / b; }
static inline uint32_t udiv(uint32_t a, uint32_t b) { return b == 0 ? a : a / b; }
static inline int32_t d2i(double v) { return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t) v : 0; }
static __attribute__((noinline)) float h(float x) { return 0.75f / x - 17.375f / x; }
void fz_7000_211_r(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  int32_t q = 0;
  float f1 = 16.0f;
  double d0 = y, d1 = 32.375;
  for (int32_t g = 0; g < 8;) {
    g++;
    for (int32_t k = 0; k < 6; k++) q = sdiv(122880, b);
    if (34.375f <= x && x == f1) continue;
    int32_t n = (int32_t) (udiv((uint32_t) g, (uint32_t) q) & 7u);
    for (int32_t k = 0; k < n; k++) {
      f1 = h(f1);
      d1 = d0;
    }
    d0 = d1;
  }
  s->i[b == -6] = d2i(d0);
}
