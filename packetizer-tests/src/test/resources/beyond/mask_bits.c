/* Divergent loops whose per-lane loads (and stores) run under the loop's partial mask, written for
 * MaskBitsPhiTest: the lane bits of the loop header's mask are carried as an integer phi. */
#include <stdint.h>

/* FNV-1a over s[start .. start+len) and a finaliser: per-lane trip counts. */
uint32_t fnv_bytes(const unsigned char *s, int start, int len) {
  uint32_t h = 2166136261u;
  for (int k = 0; k < len; ++k) {
    h ^= s[start + k];
    h *= 16777619u;
  }
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  return h ^ (h >> 12);
}

/* A data-dependent exit besides the count: the length of a lane's zero-terminated run, at most n. */
int run_length(const unsigned char *s, int start, int n) {
  int i = 0;
  while (i < n && s[start + i] != 0) ++i;
  return i;
}

/* Nested divergent loops: rows of per-lane length, each row a per-lane count of 16-bit values,
 * with a divergent branch inside (the inner loads run under the header mask and a condition). */
int nested_rows(const short *t, int rows, int cols) {
  int acc = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int v = t[r * 8 + c];
      if (v > 0) acc += v * (r + 1);
      else acc -= t[c];
    }
  }
  return acc;
}

/* A per-lane store in the loop as well: a lane copies its bytes to its own slot, bumped by one. */
int copy_bumped(const unsigned char *s, unsigned char *out, int start, int len) {
  int sum = 0;
  for (int k = 0; k < len; ++k) {
    unsigned char b = s[start + k];
    out[start + k] = (unsigned char)(b + 1);
    sum += b;
  }
  return sum;
}

/* A uniform first index (the counter starts at a run-time value) and a step of 3. */
uint32_t fnv_from(const unsigned char *s, int first, int start, int len) {
  uint32_t h = 2166136261u;
  for (int k = first; k < len; k += 3) {
    h ^= s[start + k];
    h *= 16777619u;
  }
  return h;
}
