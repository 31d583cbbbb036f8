/*
 * Renderer-style code written with small vector structs and SSE / GNU vector types, as users write
 * it. Compiled by the bundled clang with plain -O2 (SLP on) and -O1: clang's x86-64 ABI passes and
 * returns struct vec as <2 x float> + float, and SLP packs the x/y halves into <2 x float> values.
 * The check lines list the parameters of the IR functions (after that ABI lowering).
 */
// check @normal_at: varying, varying, varying, varying, varying
// check @ray_sphere: varying, varying, varying, varying, varying, varying, varying, varying
// check @ambient: varying, varying, varying, varying, varying
// check @reflect_v: varying, varying, varying, varying, varying
// check @trace_row: lptr:{_float,_float,_float_}:16:12:in, lptr:{_float,_float,_float_}:16:12:inout, varying
// check @v4_kernel: varying, varying, varying, varying
// check @sse_kernel: varying, varying, varying
// check @pick_lane: varying, varying
#include <xmmintrin.h>

float sqrtf(float);

typedef struct { float x, y, z; } vec;

static vec vmake(float x, float y, float z) { vec r = {x, y, z}; return r; }
static vec vadd(vec a, vec b) { return vmake(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec vsub(vec a, vec b) { return vmake(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec vscale(vec a, float s) { return vmake(a.x * s, a.y * s, a.z * s); }
static float vdot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec vcross(vec a, vec b) { return vmake(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static vec vnormalize(vec a) {
  float l = sqrtf(vdot(a, a));
  return l > 1e-6f ? vscale(a, 1.0f / l) : a;
}

/* passed and returned by value: the packet function takes and returns the ABI's pieces as packets */
vec normal_at(vec p, float cx, float cy, float cz) { return vnormalize(vsub(p, vmake(cx, cy, cz))); }

/* distance along the ray to a sphere of radius 1 at c, or -1 (a divergent branch) */
static float hit(vec o, vec d, vec c) {
  vec rs = vsub(o, c);
  float b = vdot(rs, d);
  float cc = vdot(rs, rs) - 1.0f;
  float disc = b * b - cc;
  if (disc > 0.0f) {
    float t = -b - sqrtf(disc);
    if (t > 1e-4f) return t;
  }
  return -1.0f;
}

float ray_sphere(vec o, float dx, float dy, float dz, float cx, float cy, float cz) {
  return hit(o, vnormalize(vmake(dx, dy, dz)), vmake(cx, cy, cz));
}

/* ambient occlusion: a per-lane number of sample rays (a divergent loop) around the normal */
float ambient(vec p, vec n, int samples) {
  int count = samples & 15;
  vec t = vnormalize(vcross(n, vmake(0.3f, 1.0f, 0.2f)));
  vec bt = vcross(n, t);
  float occluded = 0.0f;
  unsigned seed = (unsigned) count * 2654435761u;
  for (int i = 0; i < count; i++) {
    seed = seed * 1664525u + 1013904223u;
    float u = (float) (seed >> 8) * (1.0f / 16777216.0f);
    seed = seed * 1664525u + 1013904223u;
    float v = (float) (seed >> 8) * (1.0f / 16777216.0f);
    vec dir = vadd(vadd(vscale(t, u - 0.5f), vscale(bt, v - 0.5f)), n);
    if (hit(vadd(p, vscale(n, 1e-3f)), vnormalize(dir), vmake(0.0f, 0.0f, -3.0f)) > 0.0f) occluded += 1.0f;
  }
  return count ? 1.0f - occluded / (float) count : 1.0f;
}

vec reflect_v(vec d, float nx, float ny, float nz) {
  vec n = vnormalize(vmake(nx, ny, nz));
  return vsub(d, vscale(n, 2.0f * vdot(d, n)));
}

/* arrays of structs: lane i reads origins[i] and updates out[i] */
void trace_row(const vec *origins, vec *out, float k) {
  vec o = origins[0];
  vec r = vscale(vadd(o, out[0]), k);
  if (vdot(r, r) < 100.0f) out[0] = r;
  else out[0] = vmake(r.z, r.x, r.y);
}

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));

/* GNU vector types */
float v4_kernel(float a, float b, float c, float d) {
  v4sf v = {a, b, c, d};
  v4sf w = v * v + (v4sf){1.0f, 2.0f, 3.0f, 4.0f};
  v4si gt = w > (v4sf){5.0f, 5.0f, 5.0f, 5.0f};
  v4si bits = (gt & (v4si){1, 2, 4, 8});
  v4sf s = __builtin_shufflevector(w, v, 0, 5, 2, 7);
  return s[0] + s[1] * s[2] - s[3] + (float) (bits[0] + bits[1] + bits[2] + bits[3]);
}

/* SSE intrinsics on __m128 */
float sse_kernel(float a, float b, float c) {
  __m128 v = _mm_set_ps(a, b, a * b, c);
  __m128 m = _mm_max_ps(v, _mm_set1_ps(0.25f));
  __m128 s = _mm_sqrt_ps(m);
  __m128 t = _mm_shuffle_ps(s, v, _MM_SHUFFLE(0, 1, 2, 3));
  __m128 u = _mm_add_ps(_mm_mul_ps(t, s), _mm_min_ps(v, s));
  int mask = _mm_movemask_ps(_mm_cmplt_ps(v, t));
  return _mm_cvtss_f32(u) + (float) mask;
}

/* a varying index into a vector */
float pick_lane(float a, int i) {
  v4sf v = {a, a * 2.0f, a * 3.0f, 1.0f};
  return v[i & 3] - v[(i + 1) & 3];
}
