/* Calls the packet functions k_sin8, k_cos8, k_dir8 (packetized from trig_kernel.c at W=8 for an
   AVX2 target, or k_sin4, k_cos4, k_dir4 at W=4 with -DW4) from its own translation unit and compares
   every lane with glibc's scalar sinf/cosf (and the scalar k_dir) bit for bit.
   Usage: caller all           every one of the 2^32 float bit patterns, sinf and cosf
          caller N [seed]      N random bit patterns, N random values in [-130, 130], and the boundaries */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef W4
#define W 4
typedef __m128 vf;
#define LOAD _mm_loadu_ps
#define STORE _mm_storeu_ps
vf k_sin4(vf), k_cos4(vf), k_dir4(vf, vf);
#define KSIN k_sin4
#define KCOS k_cos4
#define KDIR k_dir4
#else
#define W 8
typedef __m256 vf;
#define LOAD _mm256_loadu_ps
#define STORE _mm256_storeu_ps
vf k_sin8(vf), k_cos8(vf), k_dir8(vf, vf);
#define KSIN k_sin8
#define KCOS k_cos8
#define KDIR k_dir8
#endif
float k_dir(float, float);

static uint32_t bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static float fl(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static long checked, bad;

static void check(const float *x) {
  float s[W], c[W];
  STORE(s, KSIN(LOAD(x)));
  STORE(c, KCOS(LOAD(x)));
  for (int k = 0; k < W; k++) {
    float ws = sinf(x[k]), wc = cosf(x[k]);
    checked += 2;
    if (bits(ws) != bits(s[k]) && bad++ < 10) printf("sinf(%a) (0x%08x) = %a, packet lane %d %a\n", x[k], bits(x[k]), ws, k, s[k]);
    if (bits(wc) != bits(c[k]) && bad++ < 10) printf("cosf(%a) (0x%08x) = %a, packet lane %d %a\n", x[k], bits(x[k]), wc, k, c[k]);
  }
}

static uint64_t state;
static uint32_t next(void) { state = state * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(state >> 32); }

int main(int argc, char **argv) {
  float x[W];
  if (argc > 1 && strcmp(argv[1], "all") == 0) {
    for (uint64_t u = 0; u < (1ull << 32); u += W) {
      for (int k = 0; k < W; k++) x[k] = fl((uint32_t)(u + k));
      check(x);
    }
    printf("%ld lanes checked, %ld differences\n", checked, bad);
    return bad != 0;
  }
  long n = argc > 1 ? atol(argv[1]) : 100000;
  state = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
  /* boundaries: multiples of pi/4 and their neighbours, the edges of the ranges, specials */
  float b[4096];
  int nb = 0;
  for (int q = -160; q <= 160; q++) {
    float m = (float)(q * 0.78539816339744831);
    for (int d = -2; d <= 2; d++) b[nb++] = fl(bits(m) + d);
  }
  const uint32_t sp[] = {0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u, 0x39800000u, 0x397fffffu, 0x3f400000u, 0x3f3fffffu,
                         0x42f00000u, 0x42efffffu, 0xc2f00000u, 0xc2efffffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                         0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0x7fc12345u, 0x4b000000u, 0x5f000000u, 0x3f490fdbu, 0x3fc90fdbu};
  for (unsigned i = 0; i < sizeof sp / sizeof sp[0]; i++) b[nb++] = fl(sp[i]);
  while (nb % W) b[nb++] = 1.0f;
  for (int i = 0; i < nb; i += W) check(b + i);
  for (long i = 0; i < n; i += W) {
    for (int k = 0; k < W; k++) x[k] = fl(next());
    check(x);
    for (int k = 0; k < W; k++) x[k] = (float)((next() / 4294967296.0) * 260.0 - 130.0);
    check(x);
  }
  /* the sincosf kernel: a sine and a cosine of one argument */
  long dbad = 0;
  for (long i = 0; i < n / 4; i += W) {
    float u[W], v[W], o[W];
    for (int k = 0; k < W; k++) { u[k] = (float)(next() / 4294967296.0) * 20.0f - 10.0f; v[k] = (float)(next() / 4294967296.0); }
    if (i == 0) u[0] = 1e30f, u[1] = fl(0x7f800000u);
    STORE(o, KDIR(LOAD(u), LOAD(v)));
    for (int k = 0; k < W; k++) {
      float want = k_dir(u[k], v[k]);
      checked++;
      if (bits(want) != bits(o[k]) && dbad++ < 10) printf("k_dir(%a, %a) = %a, packet lane %d %a\n", u[k], v[k], want, k, o[k]);
    }
  }
  bad += dbad;
  printf("%ld lanes checked, %ld differences\n", checked, bad);
  return bad != 0;
}
