/* Julia set: escape time for a fixed parameter c shared by all lanes. */
#include "../kernel.h"

/*@ kernel julia
family: kernel
desc: Escape-time iteration z = z^2 + c from z = (x, y) with c and the limit uniform (broadcast operands); the exit test sits at the top of the body, so the loop has two exits (the count limit and the escape break).
param x: varying range=[-1.6,1.6] -- real part of the start point
param y: varying range=[-1.2,1.2] -- imaginary part of the start point
param cr: uniform range=[-0.8,0.4] -- real part of c
param ci: uniform range=[-0.8,0.8] -- imaginary part of c
param maxIter: uniform range=[1,200] -- iteration limit
returns: iterations before |z| > 2 (maxIter when bounded)
sample: 0, 0, -0.8, 0.156, 120
sample: 1.5, 1, -0.8, 0.156, 120
sample: 0.3, -0.2, -0.8, 0.156, 120
sample: -1.2, 0.4, -0.8, 0.156, 120
*/
int julia(float x, float y, float cr, float ci, int maxIter) {
  int i;
  for (i = 0; i < maxIter; ++i) {
    float xx = x * x, yy = y * y;
    if (xx + yy > 4.0f) break;
    y = 2.0f * x * y + ci;
    x = xx - yy + cr;
  }
  return i;
}
