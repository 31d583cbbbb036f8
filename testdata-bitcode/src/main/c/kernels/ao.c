/* Ambient occlusion of a point in a small fixed scene (three spheres on a plane), estimated by
 * casting `samples` random rays over the hemisphere around the normal and counting the hits.
 * Written for this project in the spirit of the well-known "aobench" micro benchmark. */
#include "../kernel.h"

typedef struct { float x, y, z; } vec3;
typedef struct { vec3 center; float radius; } Sphere;
typedef struct { float t; vec3 p; vec3 n; int hit; } Isect;

static const Sphere scene_spheres[3] = {
  {{-2.0f, 0.0f, -3.5f}, 0.5f},
  {{-0.5f, 0.0f, -3.0f}, 0.5f},
  {{ 1.0f, 0.0f, -2.2f}, 0.5f},
};
static const vec3 plane_point = {0.0f, -0.5f, 0.0f};
static const vec3 plane_normal = {0.0f, 1.0f, 0.0f};

static void set3(vec3 *r, float x, float y, float z) { r->x = x; r->y = y; r->z = z; }
static float dot(const vec3 *a, const vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }
static void cross(vec3 *r, const vec3 *a, const vec3 *b) {
  set3(r, a->y * b->z - a->z * b->y, a->z * b->x - a->x * b->z, a->x * b->y - a->y * b->x);
}

/* Scales v to unit length; a (near) zero vector becomes (0, 1, 0). */
static void normalize(vec3 *v) {
  float len = sqrtf(dot(v, v));
  if (len > 1.0e-6f) set3(v, v->x / len, v->y / len, v->z / len);
  else set3(v, 0.0f, 1.0f, 0.0f);
}

static void ray_sphere(Isect *is, const vec3 *org, const vec3 *dir, const Sphere *s) {
  vec3 rs;
  set3(&rs, org->x - s->center.x, org->y - s->center.y, org->z - s->center.z);
  float b = dot(&rs, dir);
  float c = dot(&rs, &rs) - s->radius * s->radius;
  float d = b * b - c;
  if (d > 0.0f) {
    float t = -b - sqrtf(d);
    if (t > 0.0f && t < is->t) {
      is->t = t;
      is->hit = 1;
      set3(&is->p, org->x + dir->x * t, org->y + dir->y * t, org->z + dir->z * t);
      set3(&is->n, is->p.x - s->center.x, is->p.y - s->center.y, is->p.z - s->center.z);
      normalize(&is->n);
    }
  }
}

static void ray_plane(Isect *is, const vec3 *org, const vec3 *dir) {
  float d = -dot(&plane_point, &plane_normal);
  float v = dot(dir, &plane_normal);
  if (fabsf(v) < 1.0e-17f) return;
  float t = -(dot(org, &plane_normal) + d) / v;
  if (t > 0.0f && t < is->t) {
    is->t = t;
    is->hit = 1;
    set3(&is->p, org->x + dir->x * t, org->y + dir->y * t, org->z + dir->z * t);
    set3(&is->n, plane_normal.x, plane_normal.y, plane_normal.z);
  }
}

/* Two unit vectors perpendicular to n and to each other; basis[2] = n. */
static void ortho_basis(vec3 basis[3], const vec3 *n) {
  set3(&basis[2], n->x, n->y, n->z);
  set3(&basis[1], 0.0f, 0.0f, 0.0f);
  if (n->x < 0.6f && n->x > -0.6f) basis[1].x = 1.0f;
  else if (n->y < 0.6f && n->y > -0.6f) basis[1].y = 1.0f;
  else if (n->z < 0.6f && n->z > -0.6f) basis[1].z = 1.0f;
  else basis[1].x = 1.0f;
  cross(&basis[0], &basis[1], &basis[2]);
  normalize(&basis[0]);
  cross(&basis[1], &basis[2], &basis[0]);
  normalize(&basis[1]);
}

/* xorshift32: the per-call random stream, seeded from the shading point. */
static uint32_t next_random(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static float uniform01(uint32_t *state) { return (float)(next_random(state) >> 8) * (1.0f / 16777216.0f); }

static uint32_t seed_from(float x, float y, float z) {
  /* coordinates are within [-4, 3]: x * 4096 fits an int */
  uint32_t h = 0x9E3779B9u;
  h ^= (uint32_t)(int)(x * 4096.0f) * 0x85EBCA6Bu;
  h = (h << 13) | (h >> 19);
  h ^= (uint32_t)(int)(y * 4096.0f) * 0xC2B2AE35u;
  h = (h << 13) | (h >> 19);
  h ^= (uint32_t)(int)(z * 4096.0f) * 0x27D4EB2Fu;
  return h == 0u ? 1u : h;
}

/*@ kernel ao
family: kernel
desc: Ambient occlusion: orthonormal basis around the normal, per-lane xorshift random directions (sqrtf, sinf, cosf), ray tests against three spheres from a read-only global table and a plane, through local structs and a local basis array; per-lane hit counts.
param px: varying range=[-3,3] -- shading point x
param py: varying range=[-0.5,1] -- shading point y
param pz: varying range=[-4,3] -- shading point z
param nx: varying range=[-1,1] -- normal x (normalised inside; zero gives (0,1,0))
param ny: varying range=[-1,1] -- normal y
param nz: varying range=[-1,1] -- normal z
param samples: uniform range=[1,64] -- number of rays per point
returns: unoccluded fraction in [0, 1]
sample: 0, -0.49, -3, 0, 1, 0, 16
sample: -1.2, -0.49, -3.2, 0, 1, 0, 16
sample: 2.5, 0.5, 1.0, -1, 0, 0, 16
sample: -0.5, 0.6, -3, 0, 1, 0, 16
*/
float ao(float px, float py, float pz, float nx, float ny, float nz, int samples) {
  vec3 n;
  set3(&n, nx, ny, nz);
  normalize(&n);
  vec3 basis[3];
  ortho_basis(basis, &n);
  uint32_t state = seed_from(px, py, pz);
  /* start slightly off the surface */
  vec3 org;
  set3(&org, px + n.x * 1.0e-4f, py + n.y * 1.0e-4f, pz + n.z * 1.0e-4f);
  int occluded = 0;
  for (int s = 0; s < samples; ++s) {
    float r = sqrtf(uniform01(&state));
    float phi = 6.2831853f * uniform01(&state);
    float x = cosf(phi) * r;
    float y = sinf(phi) * r;
    float z = sqrtf(fmaxf(0.0f, 1.0f - r * r));
    vec3 dir;
    set3(&dir, x * basis[0].x + y * basis[1].x + z * basis[2].x,
               x * basis[0].y + y * basis[1].y + z * basis[2].y,
               x * basis[0].z + y * basis[1].z + z * basis[2].z);
    Isect is;
    is.t = 1.0e17f;
    is.hit = 0;
    for (int k = 0; k < 3; ++k) ray_sphere(&is, &org, &dir, &scene_spheres[k]);
    ray_plane(&is, &org, &dir);
    if (is.hit) ++occluded;
  }
  return (float)(samples - occluded) / (float)samples;
}
