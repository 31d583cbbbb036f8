/* Memory shapes clang's default -O2 (the SLP vectorizer on) gives the packetizer (SlpVariantTest,
 * compiled with plain -O2 -ffp-contract=off): two adjacent float loads merged into one <2 x float>
 * load. bilinear and box2 read two such pairs, one from each of two texture rows (two varying roots
 * on one base, t + y*TW + x and t + (y+1)*TW + x); pairdist reads both fields of an array element
 * p[i] of a two-float struct as one <2 x float>; diff2 two unrelated pairs (two roots whose lanes are
 * independent). */
#define TW 64

/* a bilinear texture fetch: the four texels around (u, v), weighted by the fractions */
float bilinear(const float *t, float u, float v) {
  int x = (int)u, y = (int)v;
  float fx = u - (float)x, fy = v - (float)y;
  float a = t[y * TW + x], b = t[y * TW + x + 1];
  float c = t[(y + 1) * TW + x], d = t[(y + 1) * TW + x + 1];
  float top = a + fx * (b - a), bot = c + fx * (d - c);
  return top + fy * (bot - top);
}

/* a 2x2 box filter at (x, y) */
float box2(const float *t, int x, int y) {
  float a = t[y * TW + x], b = t[y * TW + x + 1];
  float c = t[(y + 1) * TW + x], d = t[(y + 1) * TW + x + 1];
  float s0 = a * 0.25f + c * 0.25f, s1 = b * 0.25f + d * 0.25f;
  return s0 + s1;
}

struct v2 { float x, y; };

/* the squared distance of p[i] from (cx, cy): both fields through a varying index */
float pairdist(const struct v2 *p, int i, float cx, float cy) {
  struct v2 q = p[i];
  float dx = q.x - cx, dy = q.y - cy;
  return dx * dx + dy * dy;
}

/* two independent pairs t[i], t[i+1] and t[j], t[j+1]: two roots on one base whose lanes are unrelated */
float diff2(const float *t, int i, int j) {
  float a = t[i] - t[j], b = t[i + 1] - t[j + 1];
  return a * a + b * b;
}
