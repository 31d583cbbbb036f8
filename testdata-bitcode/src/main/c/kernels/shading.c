/* Phong shading of a surface hit with a Whitted-style shadow ray and a mirror term: struct
 * inputs and outputs, nested Vec3 members, a light shared by all lanes. */
#include "../kernel.h"

/*@ file
type struct.Hit = { { float, float, float }, { float, float, float }, { float, float, float }, { float, float, float }, float, float }
type struct.Light = { { float, float, float }, { float, float, float }, float }
type struct.Color = { float, float, float }
*/

typedef struct { float x, y, z; } Vec3;
typedef struct { float r, g, b; } Color;
typedef struct {
  Vec3 pos;      /* hit point */
  Vec3 normal;   /* surface normal (normalised here) */
  Vec3 view;     /* direction towards the eye (normalised here) */
  Vec3 albedo;   /* diffuse colour, components used as |c| */
  float shininess;
  float reflectivity;
} Hit;
typedef struct {
  Vec3 pos;
  Vec3 color;
  float ambient;
} Light;

/* One hard-coded sphere that may shadow the light. */
static const Vec3 occluder_center = {0.0f, 1.5f, 0.0f};
static const float occluder_radius = 0.75f;

static void set3(Vec3 *r, float x, float y, float z) { r->x = x; r->y = y; r->z = z; }
static float dot(const Vec3 *a, const Vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }

/* Unit vector along v; (0, 0, 1) for a (near) zero vector. */
static void normalized(Vec3 *r, const Vec3 *v) {
  float l = sqrtf(dot(v, v));
  if (l > 1.0e-6f) set3(r, v->x / l, v->y / l, v->z / l);
  else set3(r, 0.0f, 0.0f, 1.0f);
}

static int shadowed(const Vec3 *p, const Vec3 *l, float maxT) {
  Vec3 oc;
  set3(&oc, p->x - occluder_center.x, p->y - occluder_center.y, p->z - occluder_center.z);
  float b = dot(&oc, l);
  float c = dot(&oc, &oc) - occluder_radius * occluder_radius;
  float disc = b * b - c;
  if (disc < 0.0f) return 0;
  float t = -b - sqrtf(disc);
  return t > 1.0e-3f && t < maxT;
}

/*@ kernel shade
family: kernel
desc: Phong shading with a shadow ray against a fixed sphere and a reflected sky term: reads a Hit struct with nested Vec3 members (soa), a uniform Light, writes a Color; branches for back-facing light, shadow, specular and reflection; sqrtf and powf.
param hit: soa pointee=struct.Hit count=1 dir=in init=random[-2,2] -- the surface point
param light: uniform pointee=struct.Light count=1 dir=in init=random[0.25,3] -- the point light, shared by all lanes
param out: soa pointee=struct.Color count=1 dir=out init=zero -- the shaded colour
returns: void
*/
void shade(const Hit *hit, const Light *light, Color *out) {
  Vec3 n, v, l, toLight;
  normalized(&n, &hit->normal);
  normalized(&v, &hit->view);
  float ar = fabsf(hit->albedo.x), ag = fabsf(hit->albedo.y), ab = fabsf(hit->albedo.z);
  set3(&toLight, light->pos.x - hit->pos.x, light->pos.y - hit->pos.y, light->pos.z - hit->pos.z);
  float dist = sqrtf(dot(&toLight, &toLight));
  normalized(&l, &toLight);
  float amb = light->ambient * 0.1f;
  float cr = ar * amb, cg = ag * amb, cb = ab * amb;
  float ndotl = dot(&n, &l);
  if (ndotl > 0.0f && !shadowed(&hit->pos, &l, dist)) {
    float atten = 1.0f / (1.0f + 0.1f * dist * dist);
    cr += ar * light->color.x * ndotl * atten;
    cg += ag * light->color.y * ndotl * atten;
    cb += ab * light->color.z * ndotl * atten;
    Vec3 r;
    set3(&r, 2.0f * ndotl * n.x - l.x, 2.0f * ndotl * n.y - l.y, 2.0f * ndotl * n.z - l.z);
    float rdotv = dot(&r, &v);
    if (rdotv > 0.0f) {
      float shin = 2.0f + fabsf(hit->shininess) * 30.0f;
      float spec = powf(rdotv, shin) * atten;
      cr += light->color.x * spec;
      cg += light->color.y * spec;
      cb += light->color.z * spec;
    }
  }
  float refl = fabsf(hit->reflectivity) * 0.5f;
  if (refl > 0.05f) {
    /* mirror direction, looked up in a sky gradient */
    float ndotv = dot(&n, &v);
    Vec3 m, md;
    set3(&m, 2.0f * ndotv * n.x - v.x, 2.0f * ndotv * n.y - v.y, 2.0f * ndotv * n.z - v.z);
    normalized(&md, &m);
    float t = 0.5f * (md.y + 1.0f);
    cr = cr * (1.0f - refl) + (1.0f - 0.5f * t) * refl;
    cg = cg * (1.0f - refl) + (1.0f - 0.3f * t) * refl;
    cb = cb * (1.0f - refl) + refl;
  }
  out->r = cr;
  out->g = cg;
  out->b = cb;
}
