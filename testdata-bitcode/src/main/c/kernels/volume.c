/* Volume rendering by ray marching, written for this project: a ray through a cloud made of three
 * soft spheres modulated by a hashed lattice noise (a permutation table lookup per step), Beer-
 * Lambert absorption with expf, early termination once the ray is nearly opaque. */
#include "../kernel.h"

static const unsigned char vperm[64] = {
  41, 7, 59, 22, 3, 48, 15, 33, 62, 0, 27, 54, 11, 38, 19, 45, 6, 52, 29, 1, 36, 60, 13, 24, 50, 9, 43, 31, 18, 57, 2, 40,
  26, 63, 14, 47, 34, 5, 21, 56, 10, 39, 61, 28, 16, 53, 44, 4, 37, 20, 58, 12, 30, 49, 25, 8, 55, 17, 42, 32, 23, 46, 35, 51};

static float density(float x, float y, float z) {
  float d = 0.0f;
  float dx = x + 0.6f, dy = y, dz = z + 3.0f;
  d += fmaxf(0.0f, 1.0f - (dx * dx + dy * dy + dz * dz) * 2.0f);
  dx = x - 0.5f; dy = y - 0.3f; dz = z + 3.4f;
  d += fmaxf(0.0f, 1.0f - (dx * dx + dy * dy + dz * dz) * 1.5f);
  dx = x; dy = y + 0.4f; dz = z + 2.6f;
  d += fmaxf(0.0f, 1.0f - (dx * dx + dy * dy + dz * dz) * 3.0f);
  /* lattice noise: coordinates are within [-8, 8] here, so the int conversions are in range */
  int ix = (int)floorf(x * 4.0f) & 63, iy = (int)floorf(y * 4.0f) & 63, iz = (int)floorf(z * 4.0f) & 63;
  int h = vperm[(vperm[(vperm[ix] + iy) & 63] + iz) & 63];
  return d * (0.75f + (float)h * (0.5f / 63.0f));
}

/*@ kernel volume
family: kernel
desc: Volume ray march: up to `steps` steps through three soft spheres times a permutation-table lattice noise (floorf, table lookups), expf absorption, early exit when nearly opaque (divergent trip counts).
param ox: varying range=[-1,1] -- ray direction x (from the origin, towards -z)
param oy: varying range=[-1,1] -- ray direction y
param steps: uniform range=[8,96] -- maximum number of steps
returns: accumulated opacity in [0, 1]
sample: 0, 0, 64
sample: -0.3, 0.1, 64
sample: 0.9, -0.9, 32
*/
float volume(float ox, float oy, int steps) {
  float inv = 1.0f / sqrtf(ox * ox + oy * oy + 1.0f);
  float dx = ox * inv, dy = oy * inv, dz = -inv;
  float t = 1.5f, trans = 1.0f;
  const float dt = 0.05f;
  for (int i = 0; i < steps; ++i) {
    float s = density(dx * t, dy * t, dz * t);
    if (s > 0.0f) {
      trans *= expf(-s * dt * 4.0f);
      if (trans < 0.01f) break;
    }
    t += dt;
  }
  return 1.0f - trans;
}
