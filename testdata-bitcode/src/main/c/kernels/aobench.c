/* Ambient occlusion in the structure of the public "aobench" micro benchmark, written for this
 * project: three spheres and a plane, an orthonormal basis around the hit normal, and random
 * hemisphere directions from a floating-point linear congruential generator kept in [0, 1) with
 * fmodf, as C ports of aobench do when they replace drand48; sinf/cosf/sqrtf per sample. */
#include "../kernel.h"

/* the random stream: seed in [0, 1), next = frac(seed * 9821 + 0.211327) */
static float frand(float *seed) {
  float s = fmodf(*seed * 9821.0f + 0.211327f, 1.0f);
  *seed = s;
  return s;
}

static float hit_sphere(float ox, float oy, float oz, float dx, float dy, float dz, float cx, float cy, float cz, float t) {
  float rx = ox - cx, ry = oy - cy, rz = oz - cz;
  float b = rx * dx + ry * dy + rz * dz;
  float c = rx * rx + ry * ry + rz * rz - 0.25f;
  float disc = b * b - c;
  if (disc > 0.0f) {
    float q = -b - sqrtf(disc);
    if (q > 0.0f && q < t) return q;
  }
  return t;
}

/*@ kernel aobench
family: kernel
desc: aobench-style ambient occlusion: per-sample fmodf random numbers (a float LCG in [0,1)), sinf/cosf/sqrtf hemisphere directions, three sphere and one plane tests; a uniform sample count.
param px: varying range=[-3,3] -- shading point x
param pz: varying range=[-4,0] -- shading point z (on the plane y = -0.5)
param seed: varying range=[0,1] -- the pixel's random seed in [0, 1)
param samples: uniform range=[1,32] -- rays per point
returns: unoccluded fraction in [0, 1]
sample: 0, -2, 0.25, 16
sample: -1.2, -3.2, 0.7, 16
sample: 2.5, -1, 0.01, 8
*/
float aobench(float px, float pz, float seed, int samples) {
  float py = -0.5f + 1.0e-4f;
  float s = fmodf(seed, 1.0f);
  if (s < 0.0f) s += 1.0f;
  int occluded = 0;
  for (int i = 0; i < samples; ++i) {
    float theta = sqrtf(frand(&s));
    float phi = 6.2831853f * frand(&s);
    float x = cosf(phi) * theta;
    float z = sinf(phi) * theta;
    float y = sqrtf(fmaxf(0.0f, 1.0f - theta * theta));
    float l = sqrtf(x * x + y * y + z * z);
    if (l > 1.0e-6f) { x /= l; y /= l; z /= l; } else { x = 0.0f; y = 1.0f; z = 0.0f; }
    float t = 1.0e17f;
    t = hit_sphere(px, py, pz, x, y, z, -2.0f, 0.0f, -3.5f, t);
    t = hit_sphere(px, py, pz, x, y, z, -0.5f, 0.0f, -3.0f, t);
    t = hit_sphere(px, py, pz, x, y, z, 1.0f, 0.0f, -2.2f, t);
    if (t < 1.0e17f) ++occluded;
  }
  return (float)(samples - occluded) / (float)samples;
}
