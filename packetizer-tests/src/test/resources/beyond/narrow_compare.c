/* 64-bit compares of a uniform value with a varying non-negative int (issue 16: strhash's exit
 * compare `k < len` that clang widens to `iv == zext(len)`): done in 32 bits against the uniform
 * value clamped to 2^31. The uniform values straddle 2^31 and 2^32; the varying ones reach 2^31 - 1. */
static const unsigned long edges[8] = {0x7ffffffdul, 0x7ffffffeul, 0x7ffffffful, 0x80000000ul,
                                       0x80000001ul, 0xfffffffful, 0x100000000ul, 0x17ffffffful};
int cmp_wide(int sel, int x) {
  unsigned long u = sel >= 0 ? (unsigned long)sel : edges[(-sel) & 7];
  unsigned long v = (unsigned)(x & 0x7fffffff);
  int r = 0;
  if (v == u) r |= 1;
  if (v < u) r |= 2;
  if (u >= v) r |= 4;
  if (v > u) r |= 8;
  if (v != u) r |= 16;
  return r;
}

/* the loop shape: a uniform 64-bit induction variable against each lane's trip count */
int hash_to(const unsigned char *s, int n) {
  unsigned h = 2166136261u;
  for (int k = 0; k < (n & 63); ++k) {
    h ^= s[k];
    h *= 16777619u;
  }
  return (int)h;
}

/* the loop shape with a uniform start (issue 16, eleventh round: the clamped vector counter stepped
 * without a vector umin): a 64-bit counter from a uniform start on both sides of 2^31 and 2^32,
 * against each lane's bound; the counter passes 2^31 (where the clamp starts to hold) and 2^32 while
 * lanes are active, and a lane whose bound lies below the start leaves by the uniform limit only */
static const unsigned long starts[8] = {0ul, 3ul, 0x7ffffffdul, 0x7ffffffeul, 0xfffffffdul, 0xfffffffeul, 0xfffffffful,
                                        0x100000000ul};
int scan_from(const unsigned char *s, int sel, int n) {
  if (n < 0) return -1;
  unsigned long start = starts[sel & 7];
  unsigned long limit = start + 24;
  unsigned h = 2166136261u;
  for (unsigned long k = start; k < limit; ++k) {
    h = (h ^ s[k - start]) * 16777619u;
    if (k + 1 == (unsigned long)n) break;
  }
  return (int)h;
}
