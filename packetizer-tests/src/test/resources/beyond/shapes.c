/*
 * Parameter shapes with OpenMP "declare simd" semantics (docs/beyond-the-thesis.md, section 1).
 * Compiled by ParamShapesTest with BundledClang.KERNEL_FLAGS; the test gives the parameter kinds.
 */

/* y[i] = a * x[i] + y[i]. With y, x uniform and i linear (kinds "uuul"), lane k touches element
 * i + k: plain vector loads and stores. */
void saxpy(float *y, const float *x, float a, int i) { y[i] = a * x[i] + y[i]; }

/* *p = *p * s + 1. With p linear with a step of 4 bytes (kinds "l4u"), lane k's p is p + k:
 * consecutive. */
void scale(float *p, float s) { *p = *p * s + 1.0f; }

/* A consecutive access under divergent control: masked vector load and store. */
void clamp(float *y, int i, float lim) {
  if (y[i] > lim) y[i] = lim;
}

/* Every other element: linear but not consecutive (stride 8 bytes), so a gather. */
float strided(const float *t, int i) { return t[2 * i]; }

/* A linear index plus a uniform offset is still consecutive. */
int offset_sum(const int *t, int i, int j) { return t[i + 2 * j] + t[i]; }

/* A linear pointer carried around a divergent loop: lanes leave after n iterations, the others go on
 * writing the next element. */
void walk(float *p, int n) {
  while (n > 0) {
    *p = *p * 0.5f + 1.0f;
    ++p;
    --n;
  }
}
