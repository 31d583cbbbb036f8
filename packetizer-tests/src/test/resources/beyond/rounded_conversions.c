/* Rounded floats converted to int: (int)floorf, ceilf, rintf, nearbyintf, the cell index of grids,
 * noise and checkerboards. On AVX-512 at 16 lanes each is one conversion with an embedded rounding mode
 * (RoundedConversions) where the rounded float has no other use. */
/* (the bundled clang has no C library headers: the libm prototypes, which clang knows as builtins) */
float floorf(float);
float ceilf(float);
float rintf(float);
float nearbyintf(float);

/* a checkerboard's cell parity: two floors, used only as ints */
float checker_cell(float u, float v) {
  int a = (int)floorf(u * 8.0f) + (int)floorf(v * 8.0f);
  return (a & 1) ? 0.25f : 1.0f;
}

/* ceil, and ties of rint / nearbyint (x * 0.5f of an integral x is a tie half the time) */
int ceil_int(float x) { return (int)ceilf(x * 3.0f); }
int rint_int(float x) { return (int)rintf(x * 0.5f); }
int nearby_int(float x) { return (int)nearbyintf(x * 0.5f) - (int)floorf(x * 0.25f); }

/* the floor is used as a float too (x - floorf(x)): not rewritten */
float floor_twice(float x) {
  float f = floorf(x);
  return (float)((int)f & 7) + (x - f);
}

/* under a divergent branch: the masked lanes' x may be anything */
int floor_branch(float x, float y) {
  int r;
  if (x > y) r = (int)floorf(x * 3.5f - y);
  else r = -(int)ceilf(y * 0.75f);
  return r;
}

/* in a loop with a varying trip count */
int floor_loop(float x, int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += (int)floorf(x * (float)i * 0.37f) ^ i;
  return acc;
}
