/* Calls the packet function rng_step8 (packetized from rng_kernel.c, W=8, parameters "vv") with
   AVX2 vector types, compiled by GCC in its own translation unit, and compares every lane with
   the scalar rng_step bit for bit. */
#include <immintrin.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

float rng_step(float seed, float scale);
__m256 rng_step8(__m256 seed, __m256 scale);

static uint32_t bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

int main(void) {
  uint32_t state = 12345u;
  int bad = 0, checked = 0;
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fc12345u,
                               0x00000001u, 0x7f7fffffu, 0x3f800000u, 0x4b000001u};
  for (int it = 0; it < 20000; it++) {
    float s[8], c[8], out[8];
    for (int k = 0; k < 8; k++) {
      state = state * 1664525u + 1013904223u;
      uint32_t a = state;
      state = state * 1664525u + 1013904223u;
      uint32_t b = state;
      if (it % 3 == 0) { float fa = (float)(a % 100000) * 0.37f, fb = 1.0f + (float)(b % 1000) * 0.01f; memcpy(&a, &fa, 4); memcpy(&b, &fb, 4); }
      if (it % 7 == 0) a = specials[(a >> 8) % 10];
      if (it % 11 == 0) b = specials[(b >> 8) % 10];
      memcpy(&s[k], &a, 4);
      memcpy(&c[k], &b, 4);
    }
    _mm256_storeu_ps(out, rng_step8(_mm256_loadu_ps(s), _mm256_loadu_ps(c)));
    for (int k = 0; k < 8; k++) {
      float want = rng_step(s[k], c[k]);
      checked++;
      if (bits(want) != bits(out[k])) {
        if (bad++ < 10) printf("lane %d: rng_step(%a, %a) = %a (0x%08x), packet %a (0x%08x)\n", k, s[k], c[k], want, bits(want), out[k], bits(out[k]));
      }
    }
  }
  printf("%d lanes checked, %d differences\n", checked, bad);
  return bad != 0;
}
