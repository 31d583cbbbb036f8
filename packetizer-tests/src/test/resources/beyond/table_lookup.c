/* Table lookups (compiled with plain -O1 / -O2 by TableLookupTest): a uniform base and a varying
 * 32-bit index, which the packetizer keeps as base + 32-bit offsets (a gather with an i32 index
 * vector, or scalar loads where the target has no fast gather). */

/* a table passed by pointer (guard pages after its 64 entries) */
int lookup_param(const int *t, int x) { return t[x & 63] + 3 * t[(x >> 6) & 63]; }

/* a lookup under a divergent branch (partial mask: inactive lanes must not load) */
float lookup_divergent(const float *t, int x) {
  float s = (float) x;
  if (x > 0) s += t[x & 63];
  if ((x & 3) == 1) s *= t[(x * 7 + 3) & 63];
  return s;
}

/* a permutation through a global table, as in gradient noise: perm[perm[i] + j] */
static const unsigned char perm[512] = {
  7, 200, 13, 91, 250, 3, 66, 128, 41, 19, 177, 2, 99, 230, 58, 144,
  [16] = 11, 201, 87, 34, 5, 255, 120, 61, 17, 190, 73, 222, 9, 160, 44, 101,
  [300] = 33, 12, 250, 199, [511] = 77
};
int lookup_chain(int x, int y) {
  int i = x & 255, j = y & 255;
  return perm[perm[i] + j] * 5 + perm[(i + j) & 511];
}

/* a 16-bit table, indexed by a value sign-extended from a narrower type */
static const short tab[32] = {-5, 100, -300, 4000, 7, -8, 9, 10, 11, -12, 13, 14, 15, 16, 17, -18,
                              19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, -30, 31, 32, 33, 34};
int lookup_short(int x) { return tab[x & 31] * 3 + tab[(x >> 5) & 31]; }

/* the index computed before a loop (LICM hoists the address there), the lookup inside it under a
 * divergent branch: the index's 32-bit operand has no slot in the lookup's block (FuzzSliceTest
 * seed 20261121 case 10: "used before its definition was emitted") */
float lookup_in_loop(const float *t, int x, int n) {
  float s = 0.0f;
  for (int i = 0; i < (n & 7) + 1; i++) {
    int k = (x & 15) | 1;
    if (((x >> i) & 1) != 0) s += t[k];
    s = s * 0.5f + (float) i;
  }
  return s;
}

/* gradient-noise hashing: fourteen lookups in straight-line code (the shape of noise3). As W scalar
 * loads each they would be 5 instructions per lane against the scalar function's 3 per lookup: the
 * packet function stays within the code-growth budget by keeping the later ones gathers */
static const int P[256] = {
  151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225,
  [16] = 140, 36, 103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148,
  [128] = 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32,
  [250] = 57, 177, 33, 88, 237, 149
};
int lookup_many(int x, int y, int z) {
  int X = x & 255, Y = y & 255, Z = z & 255;
  int A = P[X] + Y, AA = P[A & 255] + Z, AB = P[(A + 1) & 255] + Z;
  int B = P[(X + 1) & 255] + Y, BA = P[B & 255] + Z, BB = P[(B + 1) & 255] + Z;
  return P[AA & 255] ^ P[(AA + 1) & 255] * 3 ^ P[AB & 255] * 5 ^ P[(AB + 1) & 255] * 7
       ^ P[BA & 255] * 11 ^ P[(BA + 1) & 255] * 13 ^ P[BB & 255] * 17 ^ P[(BB + 1) & 255] * 19;
}
