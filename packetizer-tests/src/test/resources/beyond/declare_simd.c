/*
 * OpenMP declare simd (docs/beyond-the-thesis.md, section 1): clang -fopenmp-simd lists the vector
 * variants of each function as _ZGV... attributes; Packetizer.runDeclaredVariants makes them.
 * Compiled by DeclareSimdTest with BundledClang.KERNEL_FLAGS plus -fopenmp-simd -mavx2.
 */

/* p is the same table for all lanes, i the lane's index (consecutive), x the lane's value. Not
 * inlined, so that the loop below keeps calling it. aligned(p : 32) alone does not make p[i]
 * aligned: i may start anywhere. */
#pragma omp declare simd uniform(p) linear(i) aligned(p : 32) simdlen(8)
#pragma omp declare simd uniform(p) linear(i) simdlen(16)
#pragma omp declare simd uniform(p) linear(i) notinbranch
__attribute__((noinline)) float get(const float *p, int i, float x) { return x > 0.0f ? p[i] * x : p[i] - x; }

/* q points at the lane's element: a linear pointer (step 4 bytes); aligned(q : 32) makes the vector
 * access at lane 0's q aligned. */
#pragma omp declare simd linear(q) uniform(s) aligned(q : 32) simdlen(8)
void scale(float *q, float s) { *q = *q * s + 1.0f; }

/* A loop calling get: LLVM 20's loop vectorizer does not vectorize it even with the variants
 * announced, because get reads memory through a pointer argument (LoopAccessAnalysis refuses such
 * calls: "instruction cannot be vectorized"). */
void loop_get(float *restrict out, const float *p, const float *restrict in, int n) {
  for (int i = 0; i < n; ++i) out[i] = get(p, i, in[i]);
}

/* No pointer arguments: the loop vectorizer calls the declared variant. */
#pragma omp declare simd linear(i) uniform(k) simdlen(8) notinbranch
__attribute__((noinline)) float wave(float x, int i, float k) {
  float r = x;
  if (x > k) r = x * k - (float)(i & 3);
  return r;
}

void loop_wave(float *restrict out, const float *restrict in, float k, int n) {
  for (int i = 0; i < n; ++i) out[i] = wave(in[i], i, k);
}
