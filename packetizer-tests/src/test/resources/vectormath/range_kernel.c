/* expf, exp2f and powf called on every lane as a C programmer writes them, their results over- and underflowing on
   some lanes (issue 16's glibc-exact route, twenty-third round: the range lanes finished in the vector, errno as the
   scalar calls leave it), compiled by the bundled clang with plain -O2 (errno visible) in its own translation unit. */
float expf(float);
float exp2f(float);
float powf(float, float);

float range_exp(float x) { return expf(x); }
float range_exp2(float x) { return exp2f(x); }
float range_pow(float x, float y) { return powf(x, y); }
