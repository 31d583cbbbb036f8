/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode o2 --seed 13000 --first 176 --cases 16 (fz_13000_176_o, -O2; the
 *   case fails only when compiled in its batch's translation unit: alone, clang -O2 does not merge the stores)
 * function: fz_merged
 * flags: -O2 -nostdlibinc -fno-ident
 * kinds: vvuvus
 * expect: pass
 * bug: a silent wrong answer in the struct-of-arrays fields s->i[4] and s->i[5] at W=4, 8, 16 and
 *   masked 8. clang -O2 turns the two int stores of zero into one `store i64 0` at byte 16 of s->i.
 *   The struct-of-arrays layout puts lane k's copy of a leaf at W*o + k*s with s the access size, so
 *   the i64 store was one masked <W x i64> store: lane k's zero landed on lanes 2k and 2k+1 of
 *   s->i[4] (or of s->i[5]), not on lane k of both. A scalar access that overlaps smaller leaves
 *   other accesses give the same bytes (here the i32 load and store of s->i[5]) is now split into
 *   those leaves (SoaPointers.splitLeafSize, SoaWidener.splitStore/splitLoad). Failed at every width
 *   before the fix (also on a22ddb9: not a regression of the session).
 */
#include <stdint.h>
struct S { float f[8]; int32_t i[8]; double d[4]; };
void fz_merged(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  if (a & 1) {
    for (int k = 4; k < 6; k++) s->i[k] = 0;
    s->i[5] = s->i[1];
  }
  s->i[(uint32_t) (a * b) & 7u] = b;
}
