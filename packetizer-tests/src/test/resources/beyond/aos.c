/* Fields of an array of structs at a consecutive index (compiled with plain -O1 / -O2 by
 * StridedLoadTest): loads with a constant stride of a few elements, which the packetizer loads as one
 * span and de-interleaves under a full mask, and gathers under a partial one. */
struct p3 { float x, y, z; };
struct p4 { float x, y, z, m; };

/* a linear pointer: lane k's struct at p + 12k; the last lane's z is the buffer's last float */
float aos_len(const struct p3 *p) { return p->x * p->x + p->y * p->y + p->z * p->z; }

/* a linear index into an array of four-field structs */
float aos_index(const struct p4 *p, int i) { return p[i].x * p[i].m - p[i].y + p[i].z * 0.5f; }

/* pairs of shorts and strided doubles */
int pairs(const short *q, int i) { return q[2 * i] * 3 - q[2 * i + 1]; }
double dtriples(const double *q, int i) { return q[3 * i + 2] - q[3 * i] * 0.25; }

/* a field read under a divergent branch: a partial mask (a gather; the span's ends may be inactive lanes) */
float aos_divergent(const struct p3 *p, int i) {
  float s = p[i].x;
  if (s > 0.0f) s += p[i].z;
  return s;
}
