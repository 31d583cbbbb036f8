/* One kernel calling expf, logf and powf (powf under a branch: a partial mask), the function chosen by a
   uniform argument, as a C programmer writes it, compiled by the bundled clang with plain -O2: packetized
   in one packetization, its glibc-exact helpers share one set of cold pieces (issue 16, code growth,
   SharedCold). The name is renamed by -D per module, so that several modules link into one program. */
float expf(float);
float logf(float);
float powf(float, float);

float cold_mix(float x, float y, int which) {
  if (which == 0) return expf(x);
  if (which == 1) return logf(x);
  float r = -1.0f;
  if (x > -2.0f) r = powf(x, y);
  return r;
}
