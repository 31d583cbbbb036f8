/* A C program calling scalable lane-refill drivers (--scalable --array-driver --refill, SVE or RISC-V V, the
 * vector length known only at run time) through the generated header only (no vector types), compiled in its own
 * translation unit by clang and by GCC (ScalableRefillDriverTest), one binary run under qemu at several vector
 * lengths. For every n from 0 to 3·64+1 (64: the most lanes, W = 4 at SVE 2048 bits, W = 8 at VLEN 512) and a few larger n,
 * random and coherent inputs, it calls each driver once and compares every element, byte for byte, with the
 * scalar function called once per element here. Every array ends at a PROT_NONE page, and every output has
 * G guard bytes in front and the bytes of a partial page up to the guard page behind it untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "drivers.h"
#define CALLER_INPUT_SEED 88172645463325252ULL
#include "caller_support.h"

#if defined(__riscv)
#define VL_NAME "VLEN"
#else
#define VL_NAME "SVE"
#endif

int escape(float x0, float y0, int maxIter);
long collatz(long v);
int multi_exit(float x, int limit);
double guarded(double x);
float damp(float x, int limit);
int gcd(int a, int b);
int nested(int seed, int rounds);
int trail(int id, float *slots, float x);
int narrow(int seed);
struct node { struct node *next; int v; };
int walk(const struct node *p);

/* lists for walk: node j's successor is another node or none (1 in 8), chains of varied length, some cycles */
#define POOL 4096
static struct node pool[POOL];
static void make_pool(void) {
  unsigned s = 12345;
  for (int j = 0; j < POOL; j++) {
    s = s * 1103515245u + 12345u;
    pool[j].v = (int)(s >> 20) - 2048;
    pool[j].next = (s >> 9) % 8 == 0 ? NULL : &pool[(j * 7 + 3 + (int)((s >> 4) % 5)) % POOL];
  }
}

static void run(size_t n) {
  cur_n = n;
  { IN(float, x, -2, 1) IN(float, y, -1.5, 1.5) OUT(int32_t, o) OUT(int32_t, o2) OUT(int32_t, o3)
    escape_map(x, y, 150, o, n); calls++;
    escape_w2(x, y, 150, o2, n); calls++;
    escape_batch(x, y, 150, o3, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("escape", o[i], (int32_t)escape(x[i], y[i], 150));
    for (size_t i = 0; i < n; i++) SAME("escape (W=2)", o2[i], (int32_t)escape(x[i], y[i], 150));
    for (size_t i = 0; i < n; i++) SAME("escape (batch)", o3[i], (int32_t)escape(x[i], y[i], 150));
    guard("escape", n, o_g); guard("escape (W=2)", n, o2_g); guard("escape (batch)", n, o3_g);
    FREE(float, x) FREE(float, y) FREE_OUT(int32_t, o) FREE_OUT(int32_t, o2) FREE_OUT(int32_t, o3) }
  { IN(int64_t, v, 1, 3000) OUT(int64_t, o) OUT(int64_t, o2)
    collatz_map(v, o, n); calls++;
    collatz_w2(v, o2, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("collatz", o[i], (int64_t)collatz(v[i]));
    for (size_t i = 0; i < n; i++) SAME("collatz (W=2)", o2[i], (int64_t)collatz(v[i]));
    guard("collatz", n, o_g); guard("collatz (W=2)", n, o2_g);
    FREE(int64_t, v) FREE_OUT(int64_t, o) FREE_OUT(int64_t, o2) }
  { IN(float, x, -3, 3) OUT(int32_t, o)
    multi_exit_map(x, 40, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("multi_exit", o[i], (int32_t)multi_exit(x[i], 40));
    guard("multi_exit", n, o_g); FREE(float, x) FREE_OUT(int32_t, o) }
  { IN(double, x, -1, 3) OUT(double, o)
    guarded_map(x, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("guarded", o[i], guarded(x[i]));
    guard("guarded", n, o_g); FREE(double, x) FREE_OUT(double, o) }
  { IN(float, x, -3, 3) OUT(float, o)
    damp_map(x, 70, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("damp", o[i], damp(x[i], 70));
    guard("damp", n, o_g); FREE(float, x) FREE_OUT(float, o) }
  { IN(int32_t, a, -1000, 1000) IN(int32_t, c, -1000, 1000) OUT(int32_t, o)
    gcd_map(a, c, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("gcd", o[i], (int32_t)gcd(a[i], c[i]));
    guard("gcd", n, o_g); FREE(int32_t, a) FREE(int32_t, c) FREE_OUT(int32_t, o) }
  { IN(int32_t, s, -1000, 1000) OUT(int32_t, o)
    nested_map(s, 5, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("nested", o[i], (int32_t)nested(s[i], 5));
    guard("nested", n, o_g); FREE(int32_t, s) FREE_OUT(int32_t, o) }
  { IN(float, x, 0, 4) OUT(int32_t, o) OUTN(float, sl8, 8 * n) OUTN(float, want8, 8 * n)
    /* (8 slots per element, guard bytes in front, a guard page behind, all 0xA5 before the calls) */
    int32_t *id = at_page_end(n * sizeof(int32_t));
    /* distinct element ids, in or against the element order */
    for (size_t i = 0; i < n; i++) id[i] = (int32_t)(coherent ? i : n - 1 - i);
    trail_map(id, sl8, x, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("trail", o[i], (int32_t)trail(id[i], want8, x[i]));
    for (size_t i = 0; i < 8 * n; i++) if (memcmp(&sl8[i], &want8[i], sizeof(float)) != 0) { fail("trail (stores)", n, (long)i); break; }
    guard("trail", n, o_g); guard("trail (stores)", n, sl8_g);
    FREE(float, x) FREE(int32_t, id) FREE_OUT(int32_t, o)
    FREE_OUTN(float, sl8, 8 * n) FREE_OUTN(float, want8, 8 * n) }
  { IN(int32_t, s, -100000, 100000) OUT(int32_t, o)
    narrow_map(s, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("narrow", o[i], (int32_t)narrow(s[i]));
    guard("narrow", n, o_g); FREE(int32_t, s) FREE_OUT(int32_t, o) }
  { const struct node **p = at_page_end(n * sizeof(struct node *)); OUT(int32_t, o)
    for (size_t i = 0; i < n; i++) {
      size_t j = coherent ? i % POOL : (size_t)(gen(0, POOL, i)) % POOL;
      p[i] = !coherent && j % 13 == 0 ? NULL : &pool[j];
    }
    walk_map((void *const *)p, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("walk", o[i], (int32_t)walk(p[i]));
    guard("walk", n, o_g); release(p, n * sizeof(struct node *)); FREE_OUT(int32_t, o) }
#ifdef W8_DRIVERS
  /* W = 8 (RISC-V V: the 64-bit index and state are register groups of 8) */
  { IN(float, x, -2, 1) IN(float, y, -1.5, 1.5) OUT(int32_t, o)
    escape_w8(x, y, 150, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("escape (W=8)", o[i], (int32_t)escape(x[i], y[i], 150));
    guard("escape (W=8)", n, o_g); FREE(float, x) FREE(float, y) FREE_OUT(int32_t, o) }
  { IN(int64_t, v, 1, 3000) OUT(int64_t, o)
    collatz_w8(v, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("collatz (W=8)", o[i], (int64_t)collatz(v[i]));
    guard("collatz (W=8)", n, o_g); FREE(int64_t, v) FREE_OUT(int64_t, o) }
  { IN(double, x, -1, 3) OUT(double, o)
    guarded_w8(x, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("guarded (W=8)", o[i], guarded(x[i]));
    guard("guarded (W=8)", n, o_g); FREE(double, x) FREE_OUT(double, o) }
#endif
}

/* the vector length of this run in bits, from the kernel or the hardware: the caller has no vector code */
static int vector_bits(void) {
#if defined(__aarch64__)
  int vl = prctl(51 /* PR_SVE_GET_VL */, 0, 0, 0, 0);
  return vl < 0 ? -1 : (vl & 0xffff) * 8;
#elif defined(__riscv)
  unsigned long vlenb;
  __asm__ volatile("csrr %0, 0xc22" : "=r"(vlenb)); /* vlenb: VLEN in bytes */
  return (int)vlenb * 8;
#else
  return -1;
#endif
}

int main(void) {
  int bits = vector_bits();
  make_pool();
  for (coherent = 0; coherent < 2; coherent++) {
    for (size_t n = 0; n <= 3 * 64 + 1; n++) run(n);
    run(1000);
    run(4099);
  }
  printf("%s %d bits: %d driver calls checked, %d differences\n", VL_NAME, bits, calls, bad);
  return bad != 0;
}
