/* A binomial options pricer (Cox-Ross-Rubinstein tree), written for this project in the structure
 * of the public SPMD benchmarks: a private float V[64] per option, rolled back step by step. */
#include "../kernel.h"

#define BIN_STEPS 63

/*@ kernel binomial
family: kernel
desc: Binomial option pricer: a private float V[64] per lane (same index in every lane), expf/sqrtf/powf set-up, 63 backward-induction steps of V[j] = pu*V[j+1] + pd*V[j], fmaxf payoffs.
param S: varying range=[5,100] -- spot price
param X: varying range=[5,100] -- strike price
param T: varying range=[0.1,2] -- time to expiry in years
param r: varying range=[0.01,0.1] -- risk-free interest rate
param v: varying range=[0.05,0.6] -- volatility
returns: the European call price
sample: 50, 50, 1, 0.05, 0.2
sample: 100, 5, 0.5, 0.02, 0.3
sample: 5, 100, 2, 0.1, 0.1
*/
float binomial(float S, float X, float T, float r, float v) {
  float V[BIN_STEPS + 1];
  float dt = T / (float)BIN_STEPS;
  float u = expf(v * sqrtf(dt));
  float d = 1.0f / u;
  float disc = expf(-r * dt);
  float pu = (expf(r * dt) - d) / (u - d);
  float pd = 1.0f - pu;
  pu *= disc;
  pd *= disc;
  float st = S * powf(d, (float)BIN_STEPS);
  float u2 = u * u;
  for (int j = 0; j <= BIN_STEPS; ++j) {
    V[j] = fmaxf(0.0f, st - X);
    st *= u2;
  }
  for (int i = BIN_STEPS; i > 0; --i)
    for (int j = 0; j < i; ++j) V[j] = pu * V[j + 1] + pd * V[j];
  return V[0];
}
