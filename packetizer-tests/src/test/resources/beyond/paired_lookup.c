/* Paired table lookups (compiled with plain -O1 / -O2 by PairedLookupTest): t[i] and t[i + 1] with a
 * uniform table and a varying index, in one block — Perlin noise's perm[A] and perm[A + 1]. The
 * packetizer loads both with one 8-byte access per lane (a gather of 64-bit elements, or W scalar
 * 8-byte loads) and splits it. */

/* Perlin's hashing: a permutation listed twice, so that perm[i + perm[j]] needs no wrap-around;
 * every index of a lookup pair is a sum (add nsw) of a lookup and a coordinate */
static const int perm[512] = {
  151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225,
  [16] = 140, 36, 103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148,
  [128] = 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32,
  [250] = 57, 177, 33, 88, 237, 149, 151, 160, 137, 91, 90, 15, 131, 13, 201, 95,
  [400] = 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59,
  [500] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255
};
int pair_hash(int x, int y, int z) {
  int X = x & 255, Y = y & 255, Z = z & 127;
  int A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z;
  int B = perm[X + 1] + Y, BA = perm[B] + Z, BB = perm[B + 1] + Z;
  return perm[AA] ^ perm[AA + 1] * 3 ^ perm[AB] * 5 ^ perm[AB + 1] * 7
       ^ perm[BA] * 11 ^ perm[BA + 1] * 13 ^ perm[BB] * 17 ^ perm[BB + 1] * 19;
}

/* a float table by pointer (guard pages right after its 64 entries): the pair may be the last two
 * elements, so the 8-byte access ends exactly at the table's end; the upper lookup comes first */
float pair_param(const float *t, int k) {
  int i = (int) ((unsigned) k % 63u);
  float hi = t[i + 1];
  return hi * 2.0f - t[i];
}

/* a pair under a divergent branch (a partial mask: not paired, inactive lanes must not load), and
 * one in the block after the join (full mask again) */
float pair_divergent(const float *t, int k) {
  int i = (int) ((unsigned) k % 63u);
  float s = (float) k;
  if (k > 0) s += t[i] * t[i + 1];
  int j = (int) ((unsigned) (k * 7 + 5) % 63u);
  return s - t[j + 1] + 0.5f * t[j];
}
