/*
 * Loops calling scalar functions, for the vector function ABI test (docs/beyond-the-thesis.md,
 * section 2). Compiled by VectorAbiTest with BundledClang.KERNEL_FLAGS plus -mavx2: the shading
 * functions are packetized at width 8 and published as _ZGVd{N,M}8..._<name>; default<O3> then lets
 * LLVM's loop vectorizer call them.
 */
#define NOINLINE __attribute__((noinline))

/* A little divergent function: a loop for positive inputs, something else for the rest. */
NOINLINE float shade(float x) {
  float r = x;
  if (x > 0.0f) {
    for (int k = 0; k < 3 && r < 100.0f; ++k) r = r * 1.5f + 0.25f;
  } else {
    r = -x * 2.0f;
  }
  return r;
}

/* A uniform parameter: the loop passes the same k every iteration. */
NOINLINE float blend(float x, float k) { return x > k ? x - k : x * k; }

/* A linear parameter: the loop passes its induction variable. */
NOINLINE float ramp(float x, int i) { return x + (float)(i & 7) * 0.5f; }

/* Unconditional calls: the unmasked variant is enough. */
void loop_all(float *restrict out, const float *restrict in, int n) {
  for (int i = 0; i < n; ++i) out[i] = shade(in[i]);
}

/* A conditional call: the vectorizer needs the masked variant. */
void loop_if(float *restrict out, const float *restrict in, int n) {
  for (int i = 0; i < n; ++i)
    if (in[i] > 1.0f) out[i] = shade(in[i]);
}

/* Tail folding asked for: the remainder iterations run as one masked vector iteration, so even
 * the unconditional call needs the masked variant. */
void loop_fold(float *restrict out, const float *restrict in, int n) {
#pragma clang loop vectorize_predicate(enable)
  for (int i = 0; i < n; ++i) out[i] = shade(in[i]);
}

void loop_uniform(float *restrict out, const float *restrict in, float k, int n) {
  for (int i = 0; i < n; ++i) out[i] = blend(in[i], k);
}

void loop_linear(float *restrict out, const float *restrict in, int n) {
  for (int i = 0; i < n; ++i) out[i] = ramp(in[i], i);
}
