/* Kernels over arrays of structs (AosDriverCallerTest, compiled by the bundled clang with plain -O2,
 * SLP vectorizer on): an array driver with linear struct pointers reads several fields of the same
 * struct per element (an interleaved load group: rows and a transpose on AVX at W8/W16), some only
 * under a branch, and writes whole structs back (an interleaved store group). */
#include <math.h>

struct hit { float px, py, pz, nx, ny, nz, vx, vy, vz, ar, ag, ab, shin, refl; }; /* 56 bytes, like shade's Hit */
struct rgb { float r, g, b; };
struct particle { float x, y, z, vx, vy, vz; }; /* 24 bytes, like integrate's */
struct s8 { float v[8]; };
struct i5 { int a, b, c, d, e; };

/* twelve fields read unconditionally, two under branches, three written */
void hit_shade(const struct hit *h, struct rgb *o) {
  float nl = h->nx * h->vx + h->ny * h->vy + h->nz * h->vz;
  float d = h->px * h->px + h->py * h->py + h->pz * h->pz;
  float r = h->ar * nl, g = h->ag * nl, b = h->ab * d;
  if (nl > 0.0f) {
    float s = h->shin * nl * nl;
    r += s; g += s; b += s;
  }
  if (d < 4.0f) b = b * (1.0f - h->refl) + h->refl;
  o->r = r;
  o->g = g;
  o->b = b;
}

/* six fields read and all six written back, with a loop in between (uniform trip count) */
void particle_step(struct particle *p, float dt, int steps) {
  float x = p->x, y = p->y, z = p->z, vx = p->vx, vy = p->vy, vz = p->vz;
  for (int s = 0; s < steps; ++s) {
    vy -= 9.81f * dt;
    x += vx * dt; y += vy * dt; z += vz * dt;
    if (y < 0.0f) { y = -y; vy = -vy * 0.8f; }
  }
  p->x = x; p->y = y; p->z = z; p->vx = vx; p->vy = vy; p->vz = vz;
}

/* all eight fields of a 32-byte struct */
float sum8(const struct s8 *p) {
  return (p->v[0] + p->v[1]) * (p->v[2] - p->v[3]) + (p->v[4] * p->v[5]) - p->v[6] / (1.0f + fabsf(p->v[7]));
}

/* 32-bit integers at a stride of five */
int mix5(const struct i5 *p) {
  return (p->a ^ (p->b << 3)) + p->c * p->d - (p->e >> 2);
}
