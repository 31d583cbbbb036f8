/* glibc's expf and logf as a C programmer calls them (issue 16's table lookups of the glibc-exact
   helpers), compiled by the bundled clang with plain -O2 in its own translation unit: the calls alone,
   and under a branch (a partial mask). */
float expf(float);
float logf(float);

float tl_exp(float x) { return expf(x); }

float tl_log(float x) { return logf(x); }

float tl_mix(float x, float y) {
  if (x > y) return expf(x - y) * 0.5f;
  return logf(y - x) + y;
}
