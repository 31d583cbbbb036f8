/* Height-map kernels over a magnified 64x64 texture (TwoValuedDriverCallerTest, compiled by the bundled
 * clang at plain -O1 / -O2): five texels at constant offsets from img + (int)v*64 + (int)u. Where the
 * texture is magnified, a packet of consecutive pixels holds one texel or straddles two: the dynamic
 * variants' all-equal or two-valued variant. */
#define TW 64

/* the central-difference gradient against a fixed light direction */
float hlight(const float *img, float u, float v) {
  int x = (int)u, y = (int)v;
  const float *p = img + y * TW + x;
  float dx = p[1] - p[-1], dy = p[TW] - p[-TW];
  return p[0] + 0.3f * dx - 0.2f * dy + 0.05f * (dx * dy);
}

/* the normal from the gradient, normalised, against the light */
float hshade(const float *img, float u, float v) {
  int x = (int)u, y = (int)v;
  const float *p = img + y * TW + x;
  float dx = p[1] - p[-1], dy = p[TW] - p[-TW];
  float r = 1.0f / __builtin_sqrtf(dx * dx + dy * dy + 1.0f);
  return p[0] * (0.6f + 0.4f * (0.5f * dx - 0.7f * dy + 0.5f) * r);
}
