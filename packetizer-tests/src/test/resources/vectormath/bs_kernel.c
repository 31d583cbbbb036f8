/* A Black-Scholes-like piece calling expf and logf as a C programmer writes them (issue 16's
   glibc-exact route), compiled by the bundled clang with plain -O2 in its own translation unit. */
float expf(float);
float logf(float);

float bs_piece(float s, float k) {
  float l = logf(s / k);
  float d = (l + 0.02f) * 3.3333333f;
  return s * expf(-0.5f * d * d) - k * expf(l * 0.25f);
}
