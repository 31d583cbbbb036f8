/* Math calls under divergent control (compiled with plain -O1 / -O2, with and without
 * -fno-math-errno, by ActiveLanesCallTest). In the bit-exact vector math mode a call without a
 * vector instruction is one libm call per lane; under a partial mask only the active lanes call,
 * in a loop over the mask's set bits (issue 16: the volume kernel's expf). */
/* (the bundled clang has no system headers here: the C99 prototypes) */
float expf(float);
double sin(double);
float powf(float, float);
float logf(float);
float log2f(float);
long lroundf(float);

/* expf only where the branch is taken, as in a ray marcher's absorption step */
float exp_divergent(float x) {
  float r = x;
  if (x > 0.25f) r = expf(-x) * 3.0f;
  return r;
}

/* the volume kernel's shape: absorption only where the density is positive, early exit */
float exp_march(float x, int n) {
  float t = 1.0f;
  for (int i = 0; i < n; ++i) {
    float s = x - 0.125f * (float) i;
    if (s > 0.25f) {
      t *= expf(-s);
      if (t < 0.05f) break;
    }
  }
  return t;
}

/* a divergent loop: lanes leave at different iterations, the call runs in a nested branch */
double sin_loop(double x, int n) {
  double s = 0.0;
  for (int i = 0; i < (n & 7); ++i) {
    if (s < x) s += sin(x + i);
    else s -= 0.5;
  }
  return s;
}

/* two arguments; a lane's result feeds the next call */
float pow_log_divergent(float x, float y) {
  float r = y;
  if (x > 1.0f) r = powf(x, y);
  if (r > 2.0f) r = logf(r) + log2f(x + 3.0f);
  return r;
}

/* a call with no vector route (lroundf: per lane, no side effects with -fno-math-errno) */
long lround_divergent(float x) {
  long r = -1;
  if (x > 0.0f) r = lroundf(x * 3.0f) + 2;
  return r;
}
