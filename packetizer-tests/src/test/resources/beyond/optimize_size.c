/* Kernels whose packet functions grow most in machine code when optimized for speed (issue 16, code
 * growth): the bit-exact vector math helpers (expf, logf, powf, sinf/cosf) are each larger than the
 * scalar function. OptimizeForSizeTest packetizes them with PacketizerOptions.Optimize.SIZE. */
float expf(float), logf(float), powf(float, float), sinf(float), cosf(float), sqrtf(float), fmaxf(float, float);

/* Black-Scholes shaped: logf, sqrtf, three expf */
float price(float s, float x, float t) {
  float v = 0.3f, r = 0.02f;
  float sq = sqrtf(t);
  float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sq);
  float d2 = d1 - v * sq;
  return s * expf(-0.5f * d1 * d1) - x * expf(-r * t) * expf(-0.5f * d2 * d2);
}

/* binomial shaped: expf and powf before a loop that does not call them */
float tree(float s, float x, float t) {
  float u = expf(0.2f * sqrtf(t * 0.0625f));
  float d = 1.0f / u;
  float st = s * powf(d, 16.0f);
  float acc = 0.0f;
  for (int j = 0; j <= 16; ++j) {
    acc += fmaxf(0.0f, st - x);
    st *= u * u;
  }
  return acc;
}

/* a sine and a cosine of one argument, under a divergent branch (a partial mask) and not */
float ray(float a, float x, float y) {
  float r = cosf(a) * x + sinf(a) * y;
  if (a > 0.5f) r += cosf(a * y) * x - sinf(a * y) * y;
  return r;
}
