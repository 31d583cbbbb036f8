/* Interleaved groups (compiled with plain -O1 / -O2 by InterleavedGroupTest): several fields of the
 * same structs of an array at a consecutive index, read (one shared span load, a shuffle per field)
 * and written (one interleaving shuffle and one wide store when the fields cover the whole struct). */
struct p3 { float x, y, z; };
struct p4 { float x, y, z, m; };
struct d2 { double re, im; };

/* a load group of three fields and a store group of three: the whole struct written */
void rotate(const struct p3 *in, struct p3 *out, int i) {
  float x = in[i].x, y = in[i].y, z = in[i].z;
  out[i].x = y * 2.0f + z;
  out[i].y = z - x;
  out[i].z = x * y;
}

/* a load group with a gap (x and z of four fields); a store group with gaps (y and m kept): scatters */
void gaps(const struct p4 *in, struct p4 *out, int i) {
  float a = in[i].x + in[i].z;
  out[i].x = a;
  out[i].z = a * 0.5f;
}

/* complex doubles: a two-field load group and a two-field store group */
void cmul(const struct d2 *a, const struct d2 *b, struct d2 *c, int i) {
  double re = a[i].re * b[i].re - a[i].im * b[i].im;
  double im = a[i].re * b[i].im + a[i].im * b[i].re;
  c[i].re = re;
  c[i].im = im;
}

/* a store group under a divergent branch: a partial mask, scatters */
void divergent(const struct p3 *in, struct p3 *out, int i) {
  if (in[i].x > 0.0f) {
    out[i].x = in[i].y;
    out[i].y = in[i].z;
    out[i].z = in[i].x;
  }
}

/* bytes: rgba pixels, four 1-byte fields */
void swizzle(const unsigned char *in, unsigned char *out, int i) {
  unsigned char r = in[4 * i], g = in[4 * i + 1], b = in[4 * i + 2], a = in[4 * i + 3];
  out[4 * i] = b;
  out[4 * i + 1] = g;
  out[4 * i + 2] = r;
  out[4 * i + 3] = a;
}

/* a stride of 16 floats: four fields read share one span; one field read is a gather (measured faster) */
struct big { float v[16]; };
float big4(const struct big *p, int i) { return p[i].v[0] + p[i].v[3] * p[i].v[7] - p[i].v[15]; }
float big1(const struct big *p, int i) { return p[i].v[5] * 2.0f; }

/* stores in reverse field order (one group), and a store group interrupted by a load of the same
 * structs (the loaded field must see the earlier store: no group across the load) */
void reversed(struct p3 *out, float a, int i) {
  out[i].z = a * 3.0f;
  out[i].y = a * 2.0f;
  out[i].x = a;
}
void reread(struct p3 *out, float a, int i) {
  out[i].x = a;
  out[i].y = out[i].x * 2.0f + out[i].z;
  out[i].z = a - 1.0f;
}
