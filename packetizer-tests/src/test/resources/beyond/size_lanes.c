/* Functions whose packet functions are more than 2.5 times their machine code however the packetizer
 * routes their loads (issue 16, code growth): nine loads at constant offsets from a per-lane point, and
 * a byte loop with per-lane start and trip count. Optimizing for size (OptimizeForSizeTest,
 * OptimizeForSizeGrowthTest) their packet functions become a loop over the lanes running the scalar
 * code; a function that stores through a pointer it is given is left packetized, one whose only stores
 * go to its own local array takes the loop too (thirteenth round), masked packet functions as well (an
 * inactive lane skips the scalar code). Indices are clamped into the buffers, which the
 * tests put between guard pages. */

/* nine neighbours of a per-lane point of a 24 x 24 grid (interior points 2..21) */
float grid9(const float *g, int x, int y) {
  const float *c = g + (2 + (y & 15)) * 24 + 2 + (x & 15);
  return 0.5f * c[0] + 0.1f * (c[-1] + c[1] + c[-24] + c[24]) - 0.025f * (c[-2] + c[2] + c[-48] + c[48]);
}

/* FNV-1a over bytes [start, start + n) of a 64-byte table: per-lane start and trip count */
unsigned fnv_bytes(const unsigned char *s, int start, int len) {
  int b = start & 63, n = len & 63;
  if (b + n > 64) n = 64 - b;
  unsigned h = 2166136261u;
  for (int k = 0; k < n; ++k) {
    h ^= s[b + k];
    h *= 16777619u;
  }
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return h;
}

/* the same neighbours, stored through a per-lane pointer: a function that writes memory keeps its
 * packetized body however large */
void grid9_to(float *out, const float *g, int x, int y) {
  const float *c = g + (2 + (y & 15)) * 24 + 2 + (x & 15);
  *out = 0.5f * c[0] + 0.1f * (c[-1] + c[1] + c[-24] + c[24]) - 0.025f * (c[-2] + c[2] + c[-48] + c[48]);
}

/* a histogram of byte classes in a local array (clang: alloca, memset, stores at a data-dependent index;
 * its only writes), hashed: a function whose only stores go to its own variables */
unsigned byte_classes(const unsigned char *s, int start, int len) {
  int b = start & 63, n = len & 63;
  if (b + n > 64) n = 64 - b;
  unsigned counts[8] = {0};
  for (int k = 0; k < n; ++k) counts[s[b + k] & 7]++;
  unsigned h = 2166136261u;
  for (int i = 0; i < 8; ++i) h = (h ^ counts[i]) * 16777619u;
  return h;
}

/* the nine neighbours in double precision from a 64-bit column and a 16-bit row: other argument and
 * result types in the lane loop's argument and result packets */
double grid9d(const double *g, long x, short y) {
  const double *c = g + (2 + (y & 15)) * 24 + 2 + (x & 15);
  return 0.5 * c[0] + 0.1 * (c[-1] + c[1] + c[-24] + c[24]) - 0.025 * (c[-2] + c[2] + c[-48] + c[48]);
}
