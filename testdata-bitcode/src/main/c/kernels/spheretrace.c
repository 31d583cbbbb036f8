/* Sphere tracing (ray marching) of a small signed-distance scene: a sphere, a rounded box and a
 * floor. Every lane stops after its own number of steps. */
#include "../kernel.h"

typedef struct { float x, y, z; } Vec3;

static float length3(float x, float y, float z) { return sqrtf(x * x + y * y + z * z); }

static float sd_sphere(Vec3 p) { return length3(p.x - 0.0f, p.y - 1.0f, p.z - 0.0f) - 1.0f; }

static float sd_round_box(Vec3 p) {
  float qx = fabsf(p.x - 2.5f) - 0.6f;
  float qy = fabsf(p.y - 0.7f) - 0.6f;
  float qz = fabsf(p.z + 1.0f) - 0.6f;
  float outside = length3(fmaxf(qx, 0.0f), fmaxf(qy, 0.0f), fmaxf(qz, 0.0f));
  float inside = fminf(fmaxf(qx, fmaxf(qy, qz)), 0.0f);
  return outside + inside - 0.1f;
}

static float scene(Vec3 p) {
  float d = fminf(sd_sphere(p), sd_round_box(p));
  return fminf(d, p.y + 0.1f); /* floor at y = -0.1 */
}

/*@ kernel march
family: kernel
desc: Sphere tracing: normalise the direction, then step by the scene distance (sqrtf, fabsf, fminf, fmaxf) until closer than 1e-3 (hit), farther than 40 (miss) or 128 steps; per-lane step counts and two exits from the loop.
param ox: varying range=[-4,4] -- ray origin x
param oy: varying range=[0,4] -- ray origin y
param oz: varying range=[-4,6] -- ray origin z
param dx: varying range=[-1,1] -- ray direction x
param dy: varying range=[-1,1] -- ray direction y
param dz: varying range=[-1,1] -- ray direction z
returns: distance to the hit along the normalised direction, or -1 for a miss
sample: 0, 1, 5, 0, 0, -1
sample: 0, 3, 5, 0, 0.2, -1
sample: 0, 2, 4, 0, -1, 0
sample: 0, 2.05, 2, 0.3, -0.1, -1
*/
float march(float ox, float oy, float oz, float dx, float dy, float dz) {
  float len = length3(dx, dy, dz);
  if (len < 1.0e-6f) return -1.0f;
  dx /= len;
  dy /= len;
  dz /= len;
  float t = 0.0f;
  for (int i = 0; i < 128; ++i) {
    Vec3 p = {ox + t * dx, oy + t * dy, oz + t * dz};
    float d = scene(p);
    if (d < 1.0e-3f) return t;
    t += d;
    if (t > 40.0f) break;
  }
  return -1.0f;
}
