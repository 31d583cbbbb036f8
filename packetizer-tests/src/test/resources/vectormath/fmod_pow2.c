/* fmod and fmodf by constants, as a C programmer writes them (issue 16): powers of two over the whole
   exponent range (1, 2, -0.5, the smallest normal, the largest, 2^100 and 2^110 for float), one divisor
   that is not a power of two, a call under a branch (a partial mask), and an AOBench-style random
   stream whose fmodf by 1 is carried around a loop. Compiled by the bundled clang with plain -O2 (calls
   of fmodf) and -O2 -fno-math-errno (frem), in a translation unit of its own. */
float fmodf(float, float);
double fmod(double, double);

float f_one(float x) { return fmodf(x, 1.0f); }
float f_two(float x) { return fmodf(x, 2.0f); }
float f_mhalf(float x) { return fmodf(x, -0.5f); }
float f_tiny(float x) { return fmodf(x, 0x1p-126f); }
float f_huge(float x) { return fmodf(x, 0x1p127f); }
float f_p100(float x) { return fmodf(x, 0x1p100f); }
float f_p110(float x) { return fmodf(x, 0x1p110f); }
float f_three(float x) { return fmodf(x, 3.0f); }

float f_masked(float x) {
  float r = x;
  if (x > 0.0f) r = fmodf(x * 3.0f, 0.25f);
  return r;
}

float f_stream(float seed) {
  float s = fmodf(seed, 1.0f);
  float acc = 0.0f;
  for (int i = 0; i < 12; ++i) {
    s = fmodf(s * 9821.0f + 0.211327f, 1.0f);
    if (s > 0.5f) acc += s;
  }
  return acc + s;
}

double d_one(double x) { return fmod(x, 1.0); }
double d_m4(double x) { return fmod(x, -4.0); }
double d_tiny(double x) { return fmod(x, 0x1p-1022); }
double d_huge(double x) { return fmod(x, 0x1p1023); }
double d_p1000(double x) { return fmod(x, 0x1p1000); }
double d_third(double x) { return fmod(x, 0.1); }
