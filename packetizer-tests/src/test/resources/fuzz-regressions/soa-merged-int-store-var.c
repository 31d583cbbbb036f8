/* packetizer fuzz regression
 * found: reduced from FuzzMain --mode o2 --seed 13000 --first 176 --cases 16 (fz_13000_176_o, -O2), a
 *   variant of soa-merged-int-store.c where no access at a constant offset shows the field size
 * function: fz_merged_var
 * flags: -O2 -nostdlibinc -fno-ident
 * kinds: vvuvus
 * expect: pass
 * bug: clang -O2 turns the two int stores of zero into one `store i64 0` at s->i[4]; the only other
 *   access of those bytes is s->i[k] at a variable index (an element of the [8 x i32] array field),
 *   which shows that the field's leaves are 4 bytes. The i64 store was one masked <W x i64> store
 *   over the rows of s->i[4] and s->i[5] (wrong lanes); it is now split into two 4-byte leaves.
 *   Failed at every width before the fix.
 */
#include <stdint.h>
struct S { float f[8]; int32_t i[8]; double d[4]; };
void fz_merged_var(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {
  if (a & 1) {
    for (int k = 4; k < 6; k++) s->i[k] = 0;
  }
  s->i[(uint32_t) (a * b) & 7u] += b;
}
