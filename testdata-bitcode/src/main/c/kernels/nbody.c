/* One n-body force step over an array of structs, written for this project: the acceleration of
 * body i from 32 bodies {x, y, z, mass} (softened), reading p[i].x, p[i].y, p[i].z per lane and
 * every p[j] (the same for all lanes) in the loop. */
#include "../kernel.h"

typedef struct { float x, y, z, m; } Body;

/*@ kernel nbody
family: kernel
desc: N-body force step: body i of an array of structs {x,y,z,m} (per-lane field loads of p[i]), a uniform loop over 32 bodies with 1/sqrtf softened gravity; returns the acceleration's magnitude.
param p: uniform pointee=float count=128 dir=in init=random[-2,2] -- 32 bodies {x, y, z, mass}, masses in [-2, 2]
param i: varying range=[0,31] -- the body
returns: |acceleration| of body i
sample: _, 0
sample: _, 17
sample: _, 31
*/
float nbody(const Body *p, int i) {
  float xi = p[i].x, yi = p[i].y, zi = p[i].z;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < 32; ++j) {
    float dx = p[j].x - xi, dy = p[j].y - yi, dz = p[j].z - zi;
    float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
    float inv = 1.0f / sqrtf(r2);
    float s = p[j].m * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  return sqrtf(ax * ax + ay * ay + az * az);
}
