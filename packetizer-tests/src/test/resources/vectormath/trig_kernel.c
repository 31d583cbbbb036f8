/* sinf and cosf as a C programmer calls them (issue 16): each alone, and an ambient-occlusion-style
   direction from two random numbers whose sine and cosine of one angle clang fuses into sincosf. */
float sinf(float);
float cosf(float);

float k_sin(float x) { return sinf(x); }
float k_cos(float x) { return cosf(x); }

float k_dir(float u, float v) {
  float phi = 6.2831855f * u;
  float r = v * v;
  float x = cosf(phi) * r, y = sinf(phi) * r;
  return x * 0.75f + y * 1.25f + (1.0f - r);
}
