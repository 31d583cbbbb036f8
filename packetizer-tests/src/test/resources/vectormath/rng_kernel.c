/* An AOBench-style random number step and a noise hash, as a C programmer writes them: fmodf in
   the kernel, compiled by the bundled clang -O2 in its own translation unit. */
float fmodf(float, float);
float floorf(float);

float rng_step(float seed, float scale) {
  float s = fmodf(seed * 16807.0f + scale, 2147483647.0f);
  return fmodf(s, 1.0f) + fmodf(seed, scale);
}
