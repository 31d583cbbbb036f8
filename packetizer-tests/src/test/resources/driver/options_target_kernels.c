/* Kernels for OptionsTargetCallerTest, compiled by the bundled clang at plain -O2 for no CPU (clang's generic x86-64
 * attributes) and packetized with a CPU named in the API's options only. cell: two roundings used only as integers
 * (the rounded conversions, one AVX-512 instruction each at 16 lanes), two integer multiplies, and a multiply-add that
 * clang leaves to the target (llvm.fmuladd: fused only for FMA CPUs, so the packet function must keep the generic
 * scalar function's rounding); fnv: FNV-1a over a lane's byte range, a loop whose recurrence is an xor and a 32-bit
 * multiply (the interleave rule's latency table). */
float floorf(float);
float ceilf(float);

int cell(float x, float y) {
  int a = (int)floorf(x * 0.37f + y * 0.5f);
  int b = (int)ceilf(y * 1.3f);
  return (a * 73856093) ^ (b * 19349663);
}

unsigned fnv(const unsigned char *s, int start, int len) {
  unsigned h = 2166136261u;
  for (int k = 0; k < len; ++k) h = (h ^ s[start + k]) * 16777619u;
  return h ^ (h >> 15);
}
