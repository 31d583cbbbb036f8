/* Byte and 16-bit loads from a uniform base plus a varying, bounded index, written for
 * WordGatherTest: the packetizer loads them as one gather of the aligned 4-byte words that contain
 * the elements (issue 16, volume). Tables of a length that is not a multiple of 4, lanes switched off
 * by a branch or a loop's exit, indices bounded by an and, a remainder or a byte type. */
#include <stdint.h>

static const unsigned char perm[61] = {
  41, 7, 59, 22, 3, 48, 15, 33, 60, 0, 27, 54, 11, 38, 19, 45, 6, 52, 29, 1, 36, 58, 13, 24, 50, 9, 43, 31, 18, 57, 2,
  40, 26, 14, 47, 34, 5, 21, 56, 10, 39, 28, 16, 53, 44, 4, 37, 20, 12, 30, 49, 25, 8, 55, 17, 42, 32, 23, 46, 35, 51};

static const short wtab[29] = {-5, 100, -300, 4000, 7, -8, 9, 10, 11, -12, 13, 14, 15, 16, 17, -18,
  19, 20, -21, 22, 23, 24, -32768, 32767, 27, 28, -29, 30, 31};

/* Three dependent lookups in a byte table (a lattice noise's hash), the last byte of the table included. */
int chain3(int x, int y, int z) {
  int h = perm[(unsigned)x % 61u];
  h = perm[(unsigned)(h + y) % 61u];
  return perm[(unsigned)(h + z) % 61u];
}

/* A lookup in a 16-bit table under a divergent branch. */
int short_lookup(int x, int y) {
  if (x > y) return wtab[(unsigned)x % 29u] * 3;
  return wtab[y & 15] - 1;
}

/* A byte of a caller's buffer of n bytes, for the lanes whose index is in range (others must not read). */
int byte_at(const unsigned char *t, int n, int i) {
  if (i >= 0 && i < n) return t[i & 8191] + 1;
  return -1;
}

/* The same for 16-bit elements. */
int short_at(const short *t, int n, int i) {
  if (i >= 0 && i < n) return t[i & 4095] * 7;
  return 1;
}

/* A per-lane count of bytes at wrapped indices into a buffer of 1021 bytes: the lanes leave the loop
 * one by one (the loop's mask is partial). */
uint32_t hash_wrapped(const unsigned char *t, int start, int len) {
  uint32_t h = 2166136261u;
  for (int k = 0; k < len; ++k) {
    h ^= t[(unsigned)(start + k) % 1021u];
    h *= 16777619u;
  }
  return h ^ (h >> 15);
}

/* A byte index: table[(unsigned char) c] over a caller's 256-byte table. */
int by_byte(const unsigned char *table, int c) {
  return table[(unsigned char)c] * 2 + table[(unsigned char)(c >> 8)];
}
