/* Mandelbrot set: escape-time iteration count of one point (the classic per-lane trip count). */
#include "../kernel.h"

/*@ kernel mandelbrot
family: kernel
desc: Escape-time iteration z = z^2 + c from z = 0 until |z| > 2 or maxIter steps: per-lane trip counts from 1 (far outside) to maxIter (inside the set).
param x0: varying range=[-2,1] -- real part of c
param y0: varying range=[-1.5,1.5] -- imaginary part of c
param maxIter: uniform range=[1,200] -- iteration limit, the same for all lanes
returns: iterations done before escaping (maxIter when the point did not escape)
sample: -0.5, 0, 100
sample: 0.3, 0.5, 100
sample: -2, 1.5, 100
sample: -0.75, 0.1, 100
sample: 0.25, 0, 100
sample: -1.25, 0.02, 100
sample: 1, 1, 100
sample: -0.1, 0.65, 100
*/
int mandelbrot(float x0, float y0, int maxIter) {
  float x = 0.0f, y = 0.0f;
  int i = 0;
  while (i < maxIter && x * x + y * y <= 4.0f) {
    float xt = x * x - y * y + x0;
    y = 2.0f * x * y + y0;
    x = xt;
    ++i;
  }
  return i;
}
