/* Byte loops for PageEndWindowCallerTest (issue 16, nineteenth round), compiled by the bundled clang at plain -O2: the
 * benchmark's strhash loop (FNV-1a over s[start, start+len) with an int index) and a pointer walk that stops at a byte
 * value or at the end. Both read one byte per iteration through an address that advances by one, so the packet
 * functions read 8-byte windows per lane; near a page's end those windows are the page's last 8 bytes, shifted. */

unsigned fnv_range(const unsigned char *s, int start, int len) {
  unsigned h = 2166136261u;
  for (int k = 0; k < len; ++k) {
    h ^= s[start + k];
    h *= 16777619u;
  }
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  return h ^ (h >> 13);
}

/* Bytes from s + start up to (not including) the first byte equal to 0x2A or to s + start + len, folded. */
unsigned until_star(const unsigned char *s, int start, int len) {
  const unsigned char *p = s + start, *e = s + start + len;
  unsigned n = 0, x = 5;
  while (p < e && *p != 0x2A) {
    x = x * 31u + *p++;
    ++n;
  }
  return x ^ (n << 24);
}
