/* Loads from a vector of 64-bit pointers (fields of p[i], an array of structs indexed by a varying i)
 * in a block outside every loop of a function that then loops (compiled with plain -O1 / -O2 by
 * GatherOutsideLoopsTest). On targets with fast hardware gathers they stay gathers (code size: the
 * block runs once per call); elsewhere, and inside loops, per-lane loads. */

typedef struct { float x, y, z, m; } Body;

/* an n-body force step: body i's position once, then a loop over 16 bodies */
float force(const Body *p, int i) {
  float xi = p[i].x, yi = p[i].y, zi = p[i].z;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < 16; ++j) {
    float dx = p[j].x - xi, dy = p[j].y - yi, dz = p[j].z - zi;
    float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
    float s = p[j].m / r2;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  return ax * ax + ay * ay + az * az;
}

/* the same behind a divergent branch: lanes outside [0, 16) read nothing (partial mask) */
float force_guarded(const Body *p, int i) {
  if (i < 2 || i >= 30) return -1.0f;
  float xi = p[i].x, zi = p[i].z;
  float a = 0.0f;
  for (int j = 0; j < 16; ++j) a += (p[j].x - xi) * (p[j].z - zi) * p[j].m;
  return a;
}

/* 8- and 4-byte fields of a mixed struct, then a loop whose trip count is one of them (per lane) */
typedef struct { double a; int k; float f; } Rec;
double mixed(const Rec *r, int i) {
  double a = r[i].a;
  int k = r[i].k & 7;
  float f = r[i].f;
  double s = 0.0;
  for (int j = 0; j < k; ++j) s += a * j + f;
  return s;
}
