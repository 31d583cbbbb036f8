/* Memory accesses for the memory pipeline: loads and stores through pointer parameters with
 * constant, uniform, consecutive, strided and data-dependent (gather/scatter) addresses, through
 * arrays and nested structs, under uniform and divergent control; calls of a side-effecting external
 * function and of out-of-line helpers; local arrays indexed by varying values.
 *
 * Every pointer parameter's kind is given in the manifest annotation:
 *   soa      one object per lane, laid out as struct-of-arrays in the packet (the thesis' default);
 *   uniform  one buffer shared by all lanes (tables; output arrays indexed by the lane's index);
 *   linear   an array, lane k's pointer is base + k * step bytes;
 *   varying  each lane has its own buffer; the packet gets a vector of pointers.
 * Index parameters named i are the lane's position: kind linear, step 1, base in [0, 15], so lane
 * indices stay below 31 for packets of up to 16 lanes, and uniform buffers are sized for that.
 * Lanes never touch memory another lane writes (outputs indexed by i are disjoint per lane). */
#include "../kernel.h"

/*@ file
family: memory
type struct.Vec3 = { float, float, float }
type struct.Body = { { float, float, float }, { float, float, float }, float, i32 }
type struct.Small = { [4 x float], i32 }
type struct.Tri3 = { [3 x { float, float, float }] }
type struct.Color = { float, float, float }
type struct.Mixed = { i32, float, double }
type struct.Params = { float, float, i32 }
*/

typedef struct { float x, y, z; } Vec3;
typedef struct { Vec3 pos; Vec3 vel; float mass; int id; } Body;
typedef struct { float v[4]; int n; } Small;
typedef struct { Vec3 pts[3]; } Tri3;
typedef struct { float r, g, b; } Color;
typedef struct { int id; float w; double d; } Mixed;
typedef struct { float scale, offset; int mode; } Params;

/* Provided by whoever runs the kernels (the test harness): an external function with side effects. */
void record(int value);

/* ---------------------------------------------------------------------------------------------- */
/* struct-of-arrays pointers */

/*@ kernel mem01: load and store through a struct-of-arrays float pointer (one float per lane).
param p: soa pointee=float count=1 dir=inout init=random[-10,10] -- the lane's value, updated in place
returns: void
*/
void mem01(float *p) { *p = *p * 2.0f + 1.0f; }

/*@ kernel mem02: normalise a Vec3 in place through a soa pointer: three member loads, stores in both arms of a branch (clang sinks them into three stores of selects).
param v: soa pointee=struct.Vec3 count=1 dir=inout init=random[-5,5] -- the lane's vector
returns: void
*/
void mem02(Vec3 *v) {
  float l = sqrtf(v->x * v->x + v->y * v->y + v->z * v->z);
  if (l > 1.0e-3f) {
    v->x /= l;
    v->y /= l;
    v->z /= l;
  } else {
    v->x = 1.0f;
    v->y = 0.0f;
    v->z = 0.0f;
  }
}

/*@ kernel mem03: nested struct update through a soa pointer: pos += vel * dt with a uniform dt, velocity damped by a mass-dependent factor, id incremented.
param b: soa pointee=struct.Body count=1 dir=inout init=random[-4,4] -- the lane's body
param dt: uniform range=[0.001,0.1] -- time step
returns: void
sample: _, 0.01
*/
void mem03(Body *b, float dt) {
  float damp = 1.0f / (1.0f + fabsf(b->mass) * dt);
  b->vel.x *= damp;
  b->vel.y = (b->vel.y - 9.81f * dt) * damp;
  b->vel.z *= damp;
  b->pos.x += b->vel.x * dt;
  b->pos.y += b->vel.y * dt;
  b->pos.z += b->vel.z * dt;
  b->id = b->id + 1;
}

/*@ kernel mem20: stores to different members of a nested soa struct in different arms of a divergent branch (some lanes store nothing).
param bd: soa pointee=struct.Body count=1 dir=inout init=random[-4,4] -- the lane's body
param a: varying range=[-10,10] -- selects what is written
returns: void
sample: _, 3
sample: _, -7
sample: _, -2
sample: _, 0
*/
void mem20(Body *bd, float a) {
  if (a > 0.0f) {
    bd->vel.y = a;
  } else if (a < -5.0f) {
    bd->pos.x = -a;
    bd->mass = bd->mass * 0.5f;
  }
}

/*@ kernel mem36: an array member of a soa struct indexed by a loop counter whose bound comes from another member.
param s: soa pointee=struct.Small count=1 dir=in init=random[-3,3] -- the lane's record; n & 3 elements are summed
returns: sum of v[0 .. n&3]
*/
float mem36(const Small *s) {
  int n = s->n & 3;
  float t = 0.0f;
  for (int j = 0; j <= n; ++j) t += s->v[j] * (float)(j + 1);
  return t;
}

/*@ kernel mem37: an array of nested structs inside a soa struct: triangle area from constant indices plus a loop over the points.
param t: soa pointee=struct.Tri3 count=1 dir=in init=random[-2,2] -- the lane's triangle
returns: area plus the sum of the x coordinates
*/
float mem37(const Tri3 *t) {
  float ux = t->pts[1].x - t->pts[0].x, uy = t->pts[1].y - t->pts[0].y, uz = t->pts[1].z - t->pts[0].z;
  float vx = t->pts[2].x - t->pts[0].x, vy = t->pts[2].y - t->pts[0].y, vz = t->pts[2].z - t->pts[0].z;
  float cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  float area = 0.5f * sqrtf(cx * cx + cy * cy + cz * cz);
  float sx = 0.0f;
  for (int j = 0; j < 3; ++j) sx += t->pts[j].x;
  return area + sx;
}

/*@ kernel mem38: partial writes of a soa Color under a three-way divergent branch (Fig 4.17 generalised).
param c: soa pointee=struct.Color count=1 dir=inout init=random[0,1] -- the lane's colour
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: void
sample: _, 3, 1
sample: _, -3, 1
sample: _, 2, 5
sample: _, 0, 0
*/
void mem38(Color *c, float a, float b) {
  if (a > b) {
    c->r = a;
    c->g = b;
  } else if (a < 0.0f) {
    c->b = a * b;
  } else {
    c->r = 0.0f;
    c->b = 1.0f;
  }
}

/*@ kernel mem39: a pointer select between two members of a soa struct (thesis 4.5.1), then load and store through it; clang turns it into a select of the member offset, i.e. a GEP with a varying index into the struct.
param v: soa pointee=struct.Vec3 count=1 dir=inout init=random[-5,5] -- the lane's vector
param a: varying range=[-10,10] -- picks x (a > 0) or y
returns: void
sample: _, 1
sample: _, -1
*/
void mem39(Vec3 *v, float a) {
  float *p = a > 0.0f ? &v->x : &v->y;
  *p = *p * 0.5f + 1.0f;
}

/*@ kernel mem51: mixed member types through a soa pointer: an int, a float and a double (with padding).
param m: soa pointee=struct.Mixed count=1 dir=in init=random[-100,100] -- the lane's record
param a: varying range=[-10,10] -- a factor
returns: d * a + w - id in double precision
*/
double mem51(const Mixed *m, float a) {
  return m->d * (double)a + (double)m->w - (double)m->id;
}

/* ---------------------------------------------------------------------------------------------- */
/* uniform pointers: tables and buffers shared by all lanes */

/*@ kernel mem04: loads from a uniform table at constant indices (scalar loads in the packet).
param tab: uniform pointee=float count=16 dir=in init=random[-10,10] -- a table shared by all lanes
param a: varying range=[-10,10] -- a factor
returns: tab[3] * a + tab[0] - tab[15]
*/
float mem04(const float *tab, float a) { return tab[3] * a + tab[0] - tab[15]; }

/*@ kernel mem05: loads from a uniform table at a uniform index.
param tab: uniform pointee=float count=16 dir=in init=random[-10,10] -- a table shared by all lanes
param k: uniform range=[0,14] -- an index, the same for all lanes
param a: varying range=[-10,10] -- a factor
returns: tab[k] * a + tab[k + 1]
sample: _, 4, 1
sample: _, 4, -2
*/
float mem05(const float *tab, int k, float a) { return tab[k] * a + tab[k + 1]; }

/*@ kernel mem06: consecutive loads in[i] and in[i + 1] with i the lane's index (vector loads).
param in: uniform pointee=float count=64 dir=in init=random[-10,10] -- input array
param i: linear step=1 range=[0,15] -- the lane's index
returns: in[i] * 2 - in[i + 1]
*/
float mem06(const float *in, int i) { return in[i] * 2.0f - in[i + 1]; }

/*@ kernel mem07: a consecutive store out[i] (vector store).
param out: uniform pointee=float count=64 dir=out init=zero -- output array
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- the value
returns: void
*/
void mem07(float *out, int i, float a) { out[i] = a * a - 1.0f; }

/*@ kernel mem08: consecutive loads at two offsets and a consecutive store.
param out: uniform pointee=float count=64 dir=out init=zero -- output array
param in: uniform pointee=float count=64 dir=in init=random[-10,10] -- input array
param i: linear step=1 range=[0,15] -- the lane's index
returns: void
*/
void mem08(float *out, const float *in, int i) { out[i] = in[i] + in[i + 2] * 0.5f; }

/*@ kernel mem09: strided loads in[2i] and in[2i + 1] (interleaved pairs).
param in: uniform pointee=float count=64 dir=in init=random[-10,10] -- interleaved input
param i: linear step=1 range=[0,15] -- the lane's index
returns: in[2i] - in[2i + 1]
*/
float mem09(const float *in, int i) { return in[2 * i] - in[2 * i + 1]; }

/*@ kernel mem10: strided stores out[3i], out[3i + 1], out[3i + 2] (array of triples).
param out: uniform pointee=float count=96 dir=out init=zero -- output triples
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- first value
param b: varying range=[-10,10] -- second value
returns: void
*/
void mem10(float *out, int i, float a, float b) {
  out[3 * i] = a;
  out[3 * i + 1] = b;
  out[3 * i + 2] = a * b;
}

/*@ kernel mem11: a gather: the index is computed from the lane's data and clamped to the table.
param tab: uniform pointee=float count=64 dir=in init=random[-10,10] -- a table shared by all lanes
param a: varying range=[-10,10] -- selects the entry
returns: tab[clamp((a + 10) * 3)] * 0.5 + a
*/
float mem11(const float *tab, float a) {
  int k = (int)((a + 10.0f) * 3.0f);
  k = k < 0 ? 0 : (k > 63 ? 63 : k);
  return tab[k] * 0.5f + a;
}

/*@ kernel mem12: a gather through an index array: tab[idx[i]] (consecutive load of indices, then a gather).
param tab: uniform pointee=float count=64 dir=in init=random[-10,10] -- values
param idx: uniform pointee=i32 count=48 dir=in init=random[0,63] -- indices into tab
param i: linear step=1 range=[0,15] -- the lane's index
returns: tab[idx[i]] + tab[idx[i + 16]]
*/
float mem12(const float *tab, const int *idx, int i) { return tab[idx[i]] + tab[idx[i + 16]]; }

/*@ kernel mem13: a scatter: each lane stores to a data-dependent slot inside its own block of four.
param out: uniform pointee=float count=128 dir=out init=zero -- output blocks
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- the value; its integer part picks the slot
returns: void
*/
void mem13(float *out, int i, float a) {
  int slot = i * 4 + ((int)(a + 10.0f) & 3);
  out[slot] = a;
}

/*@ kernel mem18: a consecutive load under a divergent condition (needs a masked load: inactive lanes' addresses may be out of bounds in general).
param in: uniform pointee=float count=32 dir=in init=random[-10,10] -- input array
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: in[i] * a when a > b, else b
sample: _, 0, 1, 0
sample: _, 0, -1, 0
*/
float mem18(const float *in, int i, float a, float b) {
  if (a > b) return in[i] * a;
  return b;
}

/*@ kernel mem19: a consecutive store under a divergent condition (masked store).
param out: uniform pointee=float count=32 dir=inout init=random[-1,1] -- output array, partly overwritten
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: void
sample: _, 0, 1, 0
sample: _, 0, -1, 0
*/
void mem19(float *out, int i, float a, float b) {
  if (a > b) out[i] = a - b;
}

/*@ kernel mem21: a store of a constant to a uniform address under a divergent condition: every active lane writes the same value to the same place.
param flag: uniform pointee=float count=1 dir=inout init=zero -- set to 1 when any lane has a > 9
param a: varying range=[-10,10] -- the input
returns: void
sample: _, 9.5
sample: _, 0
*/
void mem21(float *flag, float a) {
  if (a > 9.0f) *flag = 1.0f;
}

/*@ kernel mem30: per-lane blocks of eight: a loop with a uniform trip count copying in[8i + j] to out[8i + j] (stride 32 bytes between lanes).
param out: uniform pointee=float count=256 dir=out init=zero -- output blocks
param in: uniform pointee=float count=256 dir=in init=random[-10,10] -- input blocks
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- a factor
returns: void
*/
void mem30(float *out, const float *in, int i, float a) {
  for (int j = 0; j < 8; ++j) out[i * 8 + j] = in[i * 8 + j] * a + (float)j;
}

/*@ kernel mem31: uniform loads in a loop with a constant trip count (the addresses are the same in every lane).
param tab: uniform pointee=float count=16 dir=in init=random[-1,1] -- coefficients
param a: varying range=[-10,10] -- the input
returns: a Horner-like evaluation with the coefficients
*/
float mem31(const float *tab, float a) {
  float s = 0.0f;
  for (int j = 0; j < 16; ++j) s = s * 0.5f + tab[j] * a;
  return s;
}

/*@ kernel mem32: uniform addresses loaded in a loop whose trip count varies per lane (0..30): the loads are under a mask.
param tab: uniform pointee=float count=32 dir=in init=random[-10,10] -- values
param a: varying range=[-10,10] -- gives the number of values summed
returns: the sum of the first (a + 10) * 1.5 values
*/
float mem32(const float *tab, float a) {
  int n = (int)((a + 10.0f) * 1.5f);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += tab[j];
  return s;
}

/*@ kernel mem33: pointer chasing through a uniform table: eight dependent gathers k = next[k].
param next: uniform pointee=i32 count=64 dir=in init=random[0,63] -- successor table
param start: varying range=[0,63] -- the lane's start index
returns: the index reached after eight steps, plus 64 times the number of steps that landed on an even index
*/
int mem33(const int *next, int start) {
  int k = start, even = 0;
  for (int s = 0; s < 8; ++s) {
    k = next[k];
    even += (k & 1) == 0;
  }
  return k + 64 * even;
}

/*@ kernel mem40: a select between two uniform arrays, then a consecutive load from the chosen one (pointer select, 4.5.1).
param ta: uniform pointee=float count=32 dir=in init=random[0,1] -- first array
param tb: uniform pointee=float count=32 dir=in init=random[-1,0] -- second array
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- picks the array
returns: (a > 0 ? ta : tb)[i]
sample: _, _, 0, 1
sample: _, _, 0, -1
*/
float mem40(const float *ta, const float *tb, int i, float a) {
  const float *t = a > 0.0f ? ta : tb;
  return t[i] + a;
}

/*@ kernel mem41: load, modify and store the same consecutive element.
param io: uniform pointee=float count=32 dir=inout init=random[-10,10] -- the array
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- a factor
returns: void
*/
void mem41(float *io, int i, float a) { io[i] = io[i] * a + 1.0f; }

/*@ kernel mem42: read-modify-write of 32-bit integers at consecutive addresses, the increment depends on the lane.
param counts: uniform pointee=i32 count=32 dir=inout init=random[-100,100] -- counters
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- its sign picks +1 or -1
returns: void
*/
void mem42(int *counts, int i, float a) { counts[i] += a > 0.0f ? 1 : -1; }

/*@ kernel mem43: consecutive double loads.
param d: uniform pointee=double count=32 dir=in init=random[-10,10] -- values
param i: linear step=1 range=[0,15] -- the lane's index
param x: varying range=[-10,10] -- a factor
returns: d[i] * x + d[i + 1]
*/
double mem43(const double *d, int i, double x) { return d[i] * x + d[i + 1]; }

/*@ kernel mem44: consecutive unsigned byte loads widened to int.
param bytes: uniform pointee=i8 count=64 dir=in init=random[0,255] -- bytes
param i: linear step=1 range=[0,15] -- the lane's index
returns: bytes[i] + 2 * bytes[i + 16]
*/
int mem44(const uint8_t *bytes, int i) { return bytes[i] + 2 * bytes[i + 16]; }

/*@ kernel mem45: a gather of 64-bit integers at a data-dependent index.
param t: uniform pointee=i64 count=32 dir=in init=random[-1000000000000,1000000000000] -- values
param a: varying range=[-10,10] -- selects the entries
returns: t[k] * 3 - t[31 - k] for k from a
*/
int64_t mem45(const int64_t *t, float a) {
  int k = ((int)(a + 10.0f) * 3) & 31;
  return t[k] * 3 - t[31 - k];
}

/*@ kernel mem46: a short uniform loop of consecutive stores inside the lane's block of four.
param out: uniform pointee=float count=128 dir=out init=zero -- output blocks
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- the value
returns: void
*/
void mem46(float *out, int i, float a) {
  for (int j = 0; j < 4; ++j) out[i * 4 + j] = a * (float)j;
}

/*@ kernel mem47: a search loop with a data-dependent exit that loads from a uniform sorted table.
param sorted: uniform pointee=float count=32 dir=in init=iota[-10,0.625] -- increasing values from -10
param a: varying range=[-10,10] -- the key
returns: index of the first element greater than a, or 32
*/
int mem47(const float *sorted, float a) {
  int j;
  for (j = 0; j < 32; ++j)
    if (sorted[j] > a) break;
  return j;
}

/*@ kernel mem52: a 2D uniform array (rows of eight floats) indexed by two data-dependent, clamped indices.
param grid: uniform pointee=[8 x float] count=8 dir=in init=random[-10,10] -- an 8 x 8 grid
param x: varying range=[-1,1] -- column coordinate
param y: varying range=[-1,1] -- row coordinate
returns: grid[row][column] plus its right neighbour (wrapping)
*/
float mem52(const float (*grid)[8], float x, float y) {
  int ix = (int)((x + 1.0f) * 4.0f);
  int iy = (int)((y + 1.0f) * 4.0f);
  ix = ix > 7 ? 7 : ix;
  iy = iy > 7 ? 7 : iy;
  return grid[iy][ix] + grid[iy][(ix + 1) & 7];
}

/*@ kernel mem55: a uniform struct pointer: the parameters are loaded once and a switch on the loaded (uniform) mode picks the formula.
param prm: uniform pointee=struct.Params count=1 dir=in init=random[0,3] -- scale, offset and mode (0..3)
param a: varying range=[-10,10] -- the input
returns: the input transformed according to the mode
*/
float mem55(const Params *prm, float a) {
  float s = prm->scale, o = prm->offset;
  switch (prm->mode & 3) {
  case 0: return a * s + o;
  case 1: return a * a * s - o;
  case 2: return (a > 0.0f ? a : -a) * s;
  default: return o - a;
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* linear pointers: the lane's pointer is base + k * step */

/*@ kernel mem16: two stores through a linear pointer with step 8 bytes (lane k's pair at p + 2k): interleaved stores.
param p: linear step=8 pointee=float count=32 dir=out init=zero -- pairs, one per lane
param a: varying range=[-10,10] -- the value
returns: void
*/
void mem16(float *p, float a) {
  p[0] = a;
  p[1] = -a * 2.0f;
}

/*@ kernel mem17: a load through a linear pointer with step 4 bytes (a consecutive load).
param p: linear step=4 pointee=float count=16 dir=in init=random[-10,10] -- one float per lane
returns: *p * 3 + 1
*/
float mem17(const float *p) { return *p * 3.0f + 1.0f; }

/*@ kernel mem53: an array of Vec3 structs walked with a linear pointer of step 12 bytes (array of structures).
param p: linear step=12 pointee=struct.Vec3 count=16 dir=inout init=random[-5,5] -- one Vec3 per lane
param a: varying range=[-10,10] -- added to x
returns: void
*/
void mem53(Vec3 *p, float a) {
  p->x += a;
  p->y *= 0.5f;
  if (p->z < 0.0f) p->z = -p->z;
}

/* ---------------------------------------------------------------------------------------------- */
/* varying pointers: each lane has its own buffer */

/*@ kernel mem14: a loop over the lane's own buffer with a varying trip count (gathers through a vector of pointers).
param buf: varying pointee=float count=16 dir=in init=random[-10,10] -- the lane's buffer
param n: varying range=[0,16] -- number of elements summed
returns: sum of buf[j] * (j + 1) for j < n
*/
float mem14(const float *buf, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += buf[j] * (float)(j + 1);
  return s;
}

/*@ kernel mem15: a constant-trip loop reading and writing the lane's own buffer (scatters through a vector of pointers).
param buf: varying pointee=float count=8 dir=inout init=random[-10,10] -- the lane's buffer
param a: varying range=[-10,10] -- a factor
returns: void
*/
void mem15(float *buf, float a) {
  for (int j = 0; j < 8; ++j) buf[j] = a * (float)j - buf[j] * 0.5f;
}

/*@ kernel mem34: data-dependent read-modify-write in the lane's own buffer.
param buf: varying pointee=float count=8 dir=inout init=random[-10,10] -- the lane's buffer
param a: varying range=[-10,10] -- picks the slots
returns: void
*/
void mem34(float *buf, float a) {
  int k = (int)((a + 10.0f) * 0.35f) & 7;
  buf[k] += 1.0f;
  buf[(k + 3) & 7] -= a;
}

/*@ kernel mem35: a histogram in the lane's own counters of values from the lane's own input buffer; clang turns the zeroing loop into an llvm.memset through the varying pointer.
param hist: varying pointee=i32 count=8 dir=out init=zero -- the lane's histogram
param vals: varying pointee=float count=16 dir=in init=random[-10,10] -- the lane's values
returns: void
*/
void mem35(int *hist, const float *vals) {
  for (int j = 0; j < 8; ++j) hist[j] = 0;
  for (int j = 0; j < 16; ++j) {
    float v = vals[j];
    int b = v < -10.0f ? 0 : (v >= 10.0f ? 7 : (int)((v + 10.0f) * 0.4f));
    hist[b] += 1;
  }
}

/*@ kernel mem49: stores in a loop with a varying trip count through a varying pointer (masked scatter).
param buf: varying pointee=float count=16 dir=inout init=random[-1,1] -- the lane's buffer
param a: varying range=[-10,10] -- the value
param n: varying range=[0,16] -- number of elements written
returns: void
*/
void mem49(float *buf, float a, int n) {
  for (int j = 0; j < n; ++j) buf[j] = a + (float)j;
}

/*@ kernel mem54: a varying pointer to a struct (each lane's Vec3 lives elsewhere: member loads become gathers).
param p: varying pointee=struct.Vec3 count=1 dir=in init=random[-5,5] -- the lane's vector
returns: its length squared minus x
*/
float mem54(const Vec3 *p) { return p->x * p->x + p->y * p->y + p->z * p->z - p->x; }

/* ---------------------------------------------------------------------------------------------- */
/* read-only globals and local arrays */

static const float weights[16] = {
  0.05f, 0.10f, 0.15f, 0.20f, 0.30f, 0.45f, 0.60f, 0.80f,
  1.00f, 1.25f, 1.50f, 1.80f, 2.10f, 2.50f, 2.90f, 3.40f,
};

/*@ kernel mem22: gathers from a read-only global table (no pointer parameters).
param a: varying range=[-10,10] -- picks the weights
param b: varying range=[-10,10] -- scaled by them
returns: weights[k] * b + weights[15 - k]
*/
float mem22(float a, float b) {
  int k = (int)(a + 10.0f) & 15;
  return weights[k] * b + weights[15 - k];
}

/*@ kernel mem23: a local array filled by a loop and read at two varying indices (the alloca survives SROA).
param a: varying range=[-10,10] -- slope
param b: varying range=[-10,10] -- offset; its magnitude picks the elements
returns: t[k] + t[7 - k]
*/
float mem23(float a, float b) {
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = a * (float)j + b;
  int k = (int)fabsf(b) & 7;
  return t[k] + t[7 - k];
}

/*@ kernel mem24: a local array written at varying, loop-dependent indices and read at varying indices.
param a: varying range=[-10,10] -- values added
param b: varying range=[-10,10] -- picks the start index
returns: t[k] - t[(k + 3) & 15]
*/
float mem24(float a, float b) {
  float t[16];
  for (int j = 0; j < 16; ++j) t[j] = 0.0f;
  int k = (int)(b + 10.0f) & 15;
  for (int j = 0; j < 16; ++j) t[(j * 5 + k) & 15] += a * (float)j;
  return t[k] - t[(k + 3) & 15];
}

/*@ kernel mem25: a local array of structs indexed by a varying value.
param a: varying range=[-10,10] -- fills the points
param b: varying range=[-10,10] -- picks a point
returns: y coordinate of the chosen point plus the x of the next one
*/
float mem25(float a, float b) {
  Vec3 pts[4];
  for (int j = 0; j < 4; ++j) {
    pts[j].x = a * (float)j;
    pts[j].y = b - (float)j;
    pts[j].z = a * b;
  }
  int k = (int)(b + 10.0f) & 3;
  return pts[k].y + pts[(k + 1) & 3].x;
}

/*@ kernel mem48: a local buffer initialised, then written and reduced at computed indices in loops with a varying trip count (n from a).
param a: varying range=[-10,10] -- gives n = 0..12
param b: varying range=[-10,10] -- the values
returns: a weighted sum over the buffer
*/
float mem48(float a, float b) {
  float buf[12];
  for (int j = 0; j < 12; ++j) buf[j] = (float)j;
  int n = (int)((a + 10.0f) * 0.6f);
  for (int j = 0; j < n; ++j) buf[(j * 7) % 12] = b * (float)j;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += buf[(j * 5) % 12] * 0.5f;
  return s;
}

/* ---------------------------------------------------------------------------------------------- */
/* calls with side effects and out-of-line helpers */

/*@ kernel mem26: a call of the external side-effecting function record() under a divergent condition (must be called once per active lane, in no other lane).
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- the condition
returns: void
sample: 0, 1
sample: 0, -1
*/
void mem26(int i, float a) {
  if (a > 0.0f) record(i);
}

/*@ kernel mem27: record() in a loop with a varying trip count (0..5 calls per lane).
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- gives the number of calls
returns: void
*/
void mem27(int i, float a) {
  int n = (int)(a + 10.0f) / 4;
  for (int k = 0; k < n; ++k) record(i * 100 + k);
}

NOINLINE void scale_helper(float *p, float s) { *p = *p * s + 1.0f; }

NOINLINE float lookup_helper(const float *t, int k) { return t[k & 15] + t[(k + 1) & 15]; }

/*@ kernel mem28: an out-of-line helper that writes through its pointer argument, called with the lane's own buffer (varying pointer) under a condition.
param p: varying pointee=float count=1 dir=inout init=random[-10,10] -- the lane's value
param a: varying range=[-10,10] -- the factor; no call for a <= -5
returns: void
*/
void mem28(float *p, float a) {
  if (a > -5.0f) scale_helper(p, a);
}

/*@ kernel mem29: an out-of-line helper reading a uniform table at a data-dependent index.
param tab: uniform pointee=float count=16 dir=in init=random[-10,10] -- the table
param a: varying range=[-10,10] -- picks the entries
returns: 2 * (tab[k] + tab[k + 1])
*/
float mem29(const float *tab, float a) { return lookup_helper(tab, (int)(a + 10.0f)) * 2.0f; }

/*@ kernel mem50: side effects in order: record() before and inside a branch, a store through a soa pointer, a helper call writing the same float.
param p: soa pointee=float count=1 dir=inout init=random[-10,10] -- the lane's value
param i: linear step=1 range=[0,15] -- the lane's index
param a: varying range=[-10,10] -- the condition and the value
returns: the value stored last
sample: _, 0, 2
sample: _, 0, -2
*/
float mem50(float *p, int i, float a) {
  record(i);
  if (a > 0.0f) {
    *p = a;
    record(-i - 1);
    scale_helper(p, 0.5f);
  }
  return *p;
}
