/* Small blocks under divergent branches that cost more than their instruction count (compiled with
 * plain -O1/-O2 -fno-math-errno by CostModelTest): a libm call and an integer division by a varying
 * divisor (erff: a libm function without an LLVM intrinsic, so clang does not speculate it
 * out of the branch). The cost model of the any-lane test skips them when no lane takes the branch. */
float erff(float);

float cost_call(float x) {
  float r = x;
  if (x > 2.0f) r = erff(x * 0.5f) + 1.0f;
  return r;
}

int cost_div(int x, int y) {
  int r = x;
  if ((x & 7) == 3) r = x / (y | 1) + 7;
  return r;
}
