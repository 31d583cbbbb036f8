/* Loads at constant offsets from a varying point that is a uniform base plus narrow offsets: on Intel
 * targets with fast gathers each one gather with a 32-bit index packet (issue 16, nineteenth round). */
#define GW 16

/* a 9-point stencil at (x, y): two 32-bit offsets (y * GW and x), summed in 32 bits behind the overflow test */
float grid9(const float *g, int x, int y) {
  const float *c = g + y * GW + x;
  return 0.5f * c[0] + 0.125f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.0625f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}

/* one 32-bit offset into doubles (scale 8) */
double taps_d(const double *g, int i) {
  const double *c = g + i;
  return c[-1] - 2.0 * c[0] + c[1] + 0.25 * c[2];
}

/* a 16-bit offset sign-extended and a byte zero-extended, into ints */
int taps_sc(const int *g, short d, unsigned char e) {
  const int *r = g + d;
  const int *c = r + e;
  return c[0] + 3 * c[1] - c[2];
}

/* an unsigned 32-bit offset (a zero-extended i32 is not a 32-bit gather index): windows and per-lane loads as before */
float taps_u(const float *g, unsigned i) {
  const float *c = g + i;
  return c[0] + c[1] - c[2] + c[3];
}
