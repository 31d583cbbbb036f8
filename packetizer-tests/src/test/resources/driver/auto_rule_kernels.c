/* Kernels for AutoRuleCallerTest (issue 17, seventeenth round): a while loop whose trip count depends on the data and
 * that holds a short share of the function's instructions (more code before and after it than in it), the shape the
 * sixteenth round's static --refill=auto rule (the loop holding at least half of the instructions) refused and the
 * rule weighting the loop by an estimated trip count takes. Compiled by the bundled clang at plain -O2. */

/* FNV-1a over bytes [off, off+len) of a byte table, between two rounds of integer mixing. */
unsigned tail_hash(const unsigned char *buf, int off, int len, unsigned seed) {
  unsigned h = seed ^ (unsigned)off * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  const unsigned char *p = buf + off;
  const unsigned char *e = p + len;
  while (p < e) {
    h = (h ^ *p) * 16777619u;
    ++p;
  }
  h += (unsigned)len * 0x27D4EB2Du;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

/* Newton's square root of a, iterated while the step is large (at most 40 times), between a polynomial in a before
 * and one in the root after. */
float newton_poly(float a, float b) {
  float x0 = a * 0.5f + 0.5f;
  float p = ((a * 0.25f - b) * a + 1.5f) * a - 0.125f * b;
  float x = x0 > 1.0f ? x0 : 1.0f;
  int k = 0;
  float step = x;
  while ((step > 1e-4f || step < -1e-4f) && k < 40) {
    float nx = 0.5f * (x + a / x);
    step = nx - x;
    x = nx;
    ++k;
  }
  float q = ((x * 0.75f + p) * x - 2.0f * b) * x + (float)k;
  return q * 0.5f + p * x - b * b * 0.25f;
}
