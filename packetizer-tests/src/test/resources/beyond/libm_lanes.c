/* Math calls with no vector instruction (compiled with plain -O1 / -O2 -fno-math-errno by
 * LibmLaneLoopTest, so that clang writes llvm.exp.f32 and friends): the back end calls libm once per
 * lane; the packet code does so in a loop over the lanes, not W unrolled copies. */
float expf(float), powf(float, float), logf(float), exp2f(float), sinf(float), cosf(float);
double exp(double), log(double);

float growth(float s, float r, float t) {
  float d = expf(-r * t);
  float u = powf(s, 0.25f) + logf(s + 1.0f);
  return d * u + exp2f(t);
}

/* doubles, and a call under a divergent branch (a partial mask: the active lanes only) */
double dgrowth(double s, double t) {
  double v = exp(s * 0.5);
  if (t > 0.0) v += log(t);
  return v;
}

/* a sine and a cosine of one argument: on x86-64 glibc's algorithm as vector IR (ExactTrig), one reduction for both */
float rot(float a, float x, float y) { return cosf(a) * x - sinf(a) * y; }
