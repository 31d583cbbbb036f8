/* Groups of loads at constant offsets from one varying pointer (compiled with plain -O1 / -O2 by
 * DynamicVariantsTest): the packetizer tests the pointer's lanes at run time (all equal: scalar loads
 * and broadcasts; consecutive: vector loads; otherwise per-lane loads or gathers). The test drives the
 * lanes all equal, consecutive, random, and masked with inactive lanes far outside the grid. */

#define GW 16
#define GH 16

/* nine neighbours of grid point i on a 16x16 grid (rows +-1, +-2; columns +-1, +-2) */
float stencil9(const float *g, int i) {
  const float *c = g + i;
  return 0.5f * c[0] + 0.125f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.0625f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* the same under a divergent branch: lanes outside the interior (inactive) must read nothing */
float stencil9_guarded(const float *g, int i) {
  if (i < 2 * GW + 2 || i >= GW * GH - 2 * GW - 2) return -1.0f;
  const float *c = g + i;
  return 0.5f * c[0] + 0.125f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.0625f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* a field group of an array of structs (mixed element sizes: no consecutive variant) */
struct body { double x, y, z; float m; int tag; };
double fields(const struct body *p, int i) {
  const struct body *q = p + i;
  return (q->x * q->m + q->y * q->y - q->z) * (double) q->tag;
}

/* integers at constant offsets in a loop with per-lane trip counts: the group is in the loop body,
 * under the loop's partial mask */
int window_loop(const int *a, int i, int n) {
  int s = 0;
  for (int k = 0; k < (n & 7); ++k) {
    const int *c = a + i + 4 * k;
    s += c[0] * 3 + c[1] - c[2] + (c[3] ^ k);
  }
  return s;
}

/* a uniform grid plus two 32-bit offsets, a row and a column (the address g + y*GW + x): the
 * all-equal test compares the two offsets' lanes, not the 64-bit pointers */
float stencil_xy(const float *g, int x, int y) {
  const float *c = g + y * GW + x;
  return 0.5f * c[0] + 0.125f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.0625f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* an unsigned 32-bit offset (zero extension) and a 16-bit one (sign extension) on two levels */
float taps_ush(const float *g, unsigned i, short d) {
  const float *r = g + i;
  const float *c = r + d;
  return c[0] - 2.0f * c[1] + c[2] + 0.25f * (c[-1] + c[3]);
}
