/* Two kernels in one translation unit that call the same math functions (issue 16, code growth): packetized
   into one module, they share one definition of each bit-exact vector helper (expf, logf, sinf, cosf),
   called out of line. Compiled by the bundled clang with plain -O2. */
float expf(float);
float logf(float);
float sinf(float);
float cosf(float);

float price(float s, float k) {
  float l = logf(s / k);
  return s * expf(-0.5f * l * l) - k * expf(l * 0.25f);
}

float wave(float x, float k) {
  return expf(-x * 0.01f) * sinf(x) + cosf(x * 0.5f) * logf(k);
}
