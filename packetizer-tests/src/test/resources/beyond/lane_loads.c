/* Loads from varying addresses that are not table lookups (compiled with plain -O1 / -O2 by
 * LaneLoadsTest): a varying root pointer plus uniform offsets. Where gathers are W scalar loads anyway
 * (SSE, AVX2 without fast gathers, 1- and 2-byte elements everywhere) the packetizer extracts the
 * root's lanes once and applies the offsets per lane; under a partial mask an inactive lane reads a
 * private zero constant instead of its (possibly invalid) address. */

/* neighbours at constant offsets from one per-lane point of a 16x16 grid (guard pages around it) */
float neighbours(const float *g, int x, int y) {
  const float *c = g + (y & 7) * 16 + 4 + (x & 7);
  return 0.5f * c[0] + 0.25f * (c[-1] + c[1] + c[-16] + c[16]) - 0.125f * (c[-3] + c[3] + c[-48] + c[48]);
}

/* bytes [start, start + n) of a 64-byte table, n clamped to the table: per-lane trip counts, so lanes
 * finish at different iterations and their next addresses run past the table's end (guard page) */
unsigned bytes_loop(const unsigned char *s, int start, int len) {
  int b = start & 63, n = len & 63;
  if (b + n > 64) n = 64 - b;
  unsigned h = 2166136261u;
  for (int k = 0; k < n; ++k) {
    h ^= s[b + k];
    h *= 16777619u;
  }
  return h ^ (h >> 15);
}

/* 16-bit loads through a per-lane pointer (each lane its own buffer) under a divergent branch whose
 * inactive lanes' addresses are out of range */
int shorts_divergent(const short *p, int x) {
  int s = x;
  if (x >= 0 && x < 30) s += p[x] * 3 + p[x + 2];
  if ((x & 1) == 0) s -= p[(x & 15) + 1];
  return s;
}

/* a field of an array of structs at a varying index: the address is base + index * 16 + 8 */
struct rec { double w; int tag; short sub; char kind; };
double fields(const struct rec *r, int i) {
  const struct rec *q = r + (i & 31);
  double v = q->w;
  if (q->kind > 0) v += (double) q->tag + q->sub;
  return v;
}

/* a stencil's row (five neighbours c[-2..2]) and column on a 16x16 grid: a window of four
 * consecutive elements per lane becomes one 16-byte load and a transpose */
float stencil5(const float *g, int x, int y) {
  const float *c = g + 2 * 16 + ((y & 7) + 2) * 16 + 2 + (x & 7);
  float row = c[-2] * 0.125f + c[-1] * 0.25f + c[0] * 0.5f + c[1] * 0.25f + c[2] * 0.125f;
  return row - 0.0625f * (c[-32] + c[32]);
}

/* a row of ints in each lane's own buffer, with a store to one of c[0..3] (which one varies) between
 * the loads of c[-2..-1] and those of c[0..3]: the later loads must see it (no window across the
 * store; the window c[0..3] after it) */
int row_store(int *b, int x) {
  int *c = b + 4 + (x & 15);
  int a = c[-2] + c[-1];
  c[(x >> 4) & 3] = a;
  return a + c[0] * 3 + c[1] - c[2] + c[3];
}
