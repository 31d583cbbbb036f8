/* A 9-point stencil (two rings of a 5-point Laplacian) on a 24x24 grid, written for this project:
 * the lanes are grid points; the neighbours are loads at small constant offsets from the lane's
 * point. */
#include "../kernel.h"

#define GW 24

/*@ kernel stencil
family: kernel
desc: 9-point stencil on a 24x24 grid: per-lane point (x, y) in the interior, nine loads at constant offsets (row +-1, +-2; column +-1, +-2) with weights.
param g: uniform pointee=float count=576 dir=in init=random[-1,1] -- the grid, row-major
param x: varying range=[2,21] -- column
param y: varying range=[2,21] -- row
returns: the stencil value
sample: _, 2, 2
sample: _, 10, 11
sample: _, 21, 21
*/
float stencil(const float *g, int x, int y) {
  const float *c = g + y * GW + x;
  return 0.5f * c[0] + 0.1f * (c[-1] + c[1] + c[-GW] + c[GW]) - 0.025f * (c[-2] + c[2] + c[-2 * GW] + c[2 * GW]);
}
