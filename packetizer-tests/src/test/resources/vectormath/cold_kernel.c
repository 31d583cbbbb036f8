/* Three kernels of one translation unit calling expf, logf and powf (powf under a branch: a partial
   mask), as a C programmer writes them, compiled by the bundled clang with plain -O2: packetized into
   one module per width, their glibc-exact helpers share one set of cold pieces (issue 16, code growth,
   SharedCold). The names are renamed by -D per module, so that several modules link into one program. */
float expf(float);
float logf(float);
float powf(float, float);

float cold_exp(float x) { return expf(x); }

float cold_log(float x) { return logf(x); }

float cold_pow(float x, float y) {
  float r = -1.0f;
  if (x > -2.0f) r = powf(x, y);
  return r;
}
