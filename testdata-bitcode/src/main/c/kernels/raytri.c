/* Ray-triangle intersection after Moeller and Trumbore (1997): barycentric coordinates from
 * two cross products, with early outs. */
#include "../kernel.h"

/*@ file
type struct.Triangle = { { float, float, float }, { float, float, float }, { float, float, float } }
*/

typedef struct { float x, y, z; } Vec3;
typedef struct { Vec3 v0, v1, v2; } Triangle;

static void sub(Vec3 *r, const Vec3 *a, const Vec3 *b) {
  r->x = a->x - b->x;
  r->y = a->y - b->y;
  r->z = a->z - b->z;
}
static float dot(const Vec3 *a, const Vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }
static void cross(Vec3 *r, const Vec3 *a, const Vec3 *b) {
  r->x = a->y * b->z - a->z * b->y;
  r->y = a->z * b->x - a->x * b->z;
  r->z = a->x * b->y - a->y * b->x;
}

/*@ kernel intersect
family: kernel
desc: Moeller-Trumbore ray/triangle test against one triangle shared by all lanes (uniform pointer, so its loads are scalar): four early returns (parallel ray, u out of range, v out of range, behind the origin).
param ox: varying range=[-2,2] -- ray origin x
param oy: varying range=[-2,2] -- ray origin y
param oz: varying range=[-2,2] -- ray origin z
param dx: varying range=[-1,1] -- ray direction x (need not be normalised)
param dy: varying range=[-1,1] -- ray direction y
param dz: varying range=[-1,1] -- ray direction z
param tri: uniform pointee=struct.Triangle count=1 dir=in init=random[-1,1] -- the triangle
returns: the ray parameter t of the hit, or -1 for a miss
sample: 0, 0, -2, 0, 0, 1, _
sample: 0.1, 0.2, 2, 0, 0, -1, _
sample: 2, 2, 2, 1, 1, 1, _
sample: 0, 0, 0, 0.01, -0.02, 0.5, _
*/
float intersect(float ox, float oy, float oz, float dx, float dy, float dz, const Triangle *tri) {
  Vec3 o = {ox, oy, oz}, d = {dx, dy, dz};
  Vec3 e1, e2, p, s, q;
  sub(&e1, &tri->v1, &tri->v0);
  sub(&e2, &tri->v2, &tri->v0);
  cross(&p, &d, &e2);
  float det = dot(&e1, &p);
  if (fabsf(det) < 1.0e-7f) return -1.0f;
  float inv = 1.0f / det;
  sub(&s, &o, &tri->v0);
  float u = dot(&s, &p) * inv;
  if (u < 0.0f || u > 1.0f) return -1.0f;
  cross(&q, &s, &e1);
  float v = dot(&d, &q) * inv;
  if (v < 0.0f || u + v > 1.0f) return -1.0f;
  float t = dot(&e2, &q) * inv;
  return t > 1.0e-5f ? t : -1.0f;
}
