/* Per-lane loads built by broadcasts from memory and blends on Intel cores with AVX (issue 16, twentieth round):
 * loads at constant offsets from a varying point, too far apart for one window, of 4- and 8-byte floats and integers. */
#define GW 24

/* a 9-point stencil at (x, y): a window c[-2..1] per lane and five single elements per lane */
float grid9(const float *g, int x, int y) {
  const float *c = g + y * GW + x;
  return 0.5f * c[0] + 0.1f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.025f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* three ints 40 apart: single elements only, integer lanes */
int taps_i(const int *g, int i) {
  const int *c = g + i;
  return c[-40] - 3 * c[0] + (c[40] ^ 0x55);
}

/* doubles 50 apart */
double taps_d(const double *g, int i) {
  const double *c = g + i;
  return c[-50] + 0.5 * c[0] - c[50];
}

/* 64-bit integers 30 apart */
long long taps_l(const long long *g, int i) {
  const long long *c = g + i;
  return c[0] * 7 + c[30];
}
