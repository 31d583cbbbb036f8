/* Byte loops whose address advances by one byte per iteration, with per-lane start and length,
 * written for ByteWindowTest (MemoryWidener.byteWindow: an 8-byte window per lane, reloaded every
 * 8 iterations). Every function reads only bytes [start, start + len) of s. */
#include <stdint.h>

/* FNV-1a over s[start + k], k < len: an int index sign-extended into the address. */
uint32_t fnv_index(const unsigned char *s, int start, int len) {
  uint32_t h = 2166136261u;
  for (int k = 0; k < len; ++k) {
    h ^= s[start + k];
    h *= 16777619u;
  }
  return h ^ (h >> 15);
}

/* The same walk with a pointer stepped by one until it meets the end. */
uint32_t sum_pointer(const unsigned char *s, int start, int len) {
  const unsigned char *p = s + start, *e = s + start + len;
  uint32_t h = 7;
  if (len <= 0) return h;
  for (; p != e; ++p) h = h * 31u + *p;
  return h;
}

/* Nested: the inner loop is entered three times, at start + r, so each entry must reload its windows. */
uint32_t rows_hash(const unsigned char *s, int start, int len) {
  uint32_t h = 1;
  for (int r = 0; r < 3; ++r) {
    for (int k = r; k < len; ++k) h = (h ^ s[start + k]) * 16777619u + (uint32_t) r;
  }
  return h;
}

/* A data-dependent exit as well: the bytes up to the first zero or len. */
int until_zero(const unsigned char *s, int start, int len) {
  int i = 0;
  const unsigned char *p = s + start;
  while (i < len && p[i] != 0) ++i;
  return i;
}

/* A 64-bit counter and a branch on the byte inside the loop. */
int count_upper(const unsigned char *s, int start, int len) {
  int n = 0;
  for (long k = 0; k < (long) len; ++k) {
    unsigned char c = s[(long) start + k];
    if (c >= 'A' && c <= 'Z') n += 2;
    else if (c & 1) n -= 1;
  }
  return n;
}
