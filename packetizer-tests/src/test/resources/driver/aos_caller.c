/* A C program calling array drivers over arrays of structs (AosDriverCallerTest) through the
 * generated header only, compiled in its own translation unit by clang and by GCC. For every n from 0
 * to 3W+1 it calls each driver once and compares every element and every byte written with the scalar
 * function called once per element here. Every struct array ends exactly at a PROT_NONE page (a row
 * or a masked tail reading or writing past the last struct faults), and every written array has G
 * guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

struct hit { float px, py, pz, nx, ny, nz, vx, vy, vz, ar, ag, ab, shin, refl; };
struct rgb { float r, g, b; };
struct particle { float x, y, z, vx, vy, vz; };
struct s8 { float v[8]; };
struct i5 { int a, b, c, d, e; };
void hit_shade(const struct hit *h, struct rgb *o);
void particle_step(struct particle *p, float dt, int steps);
float sum8(const struct s8 *p);
int mix5(const struct i5 *p);

#define G 64
static int bad, calls;
static unsigned long long rng = 88172645463325252ULL;

static float rnd(float lo, float hi) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 11) / 9007199254740992.0);
}

/* n objects of `size` bytes after G guard bytes (0xA5), ending at a PROT_NONE page */
static void *guarded(size_t n, size_t size) {
  unsigned char *g = at_page_end(G + n * size);
  memset(g, 0xA5, G + n * size);
  return g + G;
}

static void check(const char *what, size_t n, const void *got, const void *want, size_t size) {
  const unsigned char *g = (const unsigned char *)got - G;
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { if (bad++ < 30) printf("%s: n=%zu: guard bytes overwritten\n", what, n); return; }
  for (size_t i = 0; i < n; i++) {
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) != 0) {
      if (bad++ < 30) printf("%s: n=%zu: element %zu differs from the scalar function\n", what, n, i);
    }
  }
}

static void fill(float *f, size_t count, float lo, float hi) { for (size_t i = 0; i < count; i++) f[i] = rnd(lo, hi); }

int main(void) {
  for (size_t n = 0; n <= 3 * W + 1; n++) {
    {
      struct hit *h = at_page_end(n * sizeof *h);
      fill((float *)h, n * 14, -2, 2);
      struct rgb *o = guarded(n, sizeof *o), *want = guarded(n, sizeof *want);
      hit_shade_map(h, o, n); calls++;
      for (size_t i = 0; i < n; i++) hit_shade(&h[i], &want[i]);
      check("hit_shade", n, o, want, sizeof *o);
    }
    {
      struct particle *p = guarded(n, sizeof *p), *want = guarded(n, sizeof *want);
      fill((float *)p, n * 6, -5, 5);
      if (n) memcpy(want, p, n * sizeof *p);
      /* the struct array is both read and written: it ends at the page too (guarded() places it there) */
      particle_step_map(p, 0.01f, 17, n); calls++;
      for (size_t i = 0; i < n; i++) particle_step(&want[i], 0.01f, 17);
      check("particle_step", n, p, want, sizeof *p);
    }
    {
      struct s8 *p = at_page_end(n * sizeof *p);
      fill((float *)p, n * 8, -3, 3);
      float *o = guarded(n, sizeof *o), *want = guarded(n, sizeof *want);
      sum8_map(p, o, n); calls++;
      for (size_t i = 0; i < n; i++) want[i] = sum8(&p[i]);
      check("sum8", n, o, want, sizeof *o);
    }
    {
      struct i5 *p = at_page_end(n * sizeof *p);
      for (size_t i = 0; i < n * 5; i++) ((int *)p)[i] = (int)rnd(-100000, 100000);
      int32_t *o = guarded(n, sizeof *o), *want = guarded(n, sizeof *want);
      mix5_map(p, o, n); calls++;
      for (size_t i = 0; i < n; i++) want[i] = mix5(&p[i]);
      check("mix5", n, o, want, sizeof *o);
    }
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
