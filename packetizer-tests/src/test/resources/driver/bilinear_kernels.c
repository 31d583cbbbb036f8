/* A bilinear texture fetch over a 64x64 texture (SlpDriverCallerTest), compiled by the bundled clang at
 * plain -O2: the SLP vectorizer merges each row's two texels into one <2 x float> load, two loads off
 * t + y*64 + x and t + (y+1)*64 + x. */
#define TW 64

float bilinear(const float *t, float u, float v) {
  int x = (int)u, y = (int)v;
  float fx = u - (float)x, fy = v - (float)y;
  float a = t[y * TW + x], b = t[y * TW + x + 1];
  float c = t[(y + 1) * TW + x], d = t[(y + 1) * TW + x + 1];
  float top = a + fx * (b - a), bot = c + fx * (d - c);
  return top + fy * (bot - top);
}
