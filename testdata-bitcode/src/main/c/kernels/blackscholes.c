/* Black-Scholes price of a European call option, with a polynomial approximation of the
 * cumulative normal distribution (Abramowitz & Stegun 26.2.17). */
#include "../kernel.h"

#define INV_SQRT_2PI 0.39894228040143267794f

/* Cumulative standard normal distribution, |error| < 7.5e-8 on the exact polynomial. */
static float cumulative_normal(float d) {
  float l = fabsf(d);
  float k = 1.0f / (1.0f + 0.2316419f * l);
  float poly = k * (0.319381530f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  float w = 1.0f - INV_SQRT_2PI * expf(-0.5f * l * l) * poly;
  if (d < 0.0f) w = 1.0f - w;
  return w;
}

/*@ kernel bs_call
family: kernel
desc: Black-Scholes European call price: logf, expf, sqrtf, a polynomial cumulative normal with a sign branch (inlined twice).
param S: varying range=[5,100] -- spot price
param X: varying range=[5,100] -- strike price
param T: varying range=[0.1,2] -- time to expiry in years
param r: varying range=[0.01,0.1] -- risk-free interest rate
param v: varying range=[0.05,0.6] -- volatility
returns: the option price
sample: 50, 50, 1, 0.05, 0.2
sample: 100, 5, 0.5, 0.02, 0.3
sample: 5, 100, 2, 0.1, 0.1
sample: 42, 40, 0.5, 0.1, 0.2
*/
float bs_call(float S, float X, float T, float r, float v) {
  float sqrtT = sqrtf(T);
  float d1 = (logf(S / X) + (r + 0.5f * v * v) * T) / (v * sqrtT);
  float d2 = d1 - v * sqrtT;
  return S * cumulative_normal(d1) - X * expf(-r * T) * cumulative_normal(d2);
}
