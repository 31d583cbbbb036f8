/* Per-lane loads built by broadcasts from memory and blends on Intel cores with AVX (issue 16, twentieth round):
 * loads at constant offsets from a varying point, too far apart for one window, of 4- and 8-byte floats and integers. */
#define GW 24

/* a 9-point stencil at (x, y): a window c[-2..1] per lane and five single elements per lane */
float grid9(const float *g, int x, int y) {
  const float *c = g + y * GW + x;
  return 0.5f * c[0] + 0.1f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.025f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* rows of RW elements; (x, y) a point, the loads two rows above and below: single elements only (too far apart for a
 * window), of ints (integer lanes), doubles and 64-bit ints */
#define RW 32

int taps_i(const int *g, int x, int y) {
  const int *c = g + y * RW + x;
  return c[-2 * RW] - 3 * c[0] + (c[2 * RW] ^ 0x55);
}

double taps_d(const double *g, int x, int y) {
  const double *c = g + y * RW + x;
  return c[-2 * RW] + 0.5 * c[0] - c[2 * RW];
}

long long taps_l(const long long *g, int x, int y) {
  const long long *c = g + y * RW + x;
  return c[0] * 7 + c[2 * RW];
}
