/* A string hashing kernel with integer work only, written for this project: FNV-1a over a lane's
 * substring of a byte table (per-lane start and length: divergent trip counts), then a murmur-style
 * finaliser. */
#include "../kernel.h"

/*@ kernel strhash
family: kernel
desc: String hash: FNV-1a over bytes [start, start+len) of a byte table (per-lane lengths 0..48: divergent loop, byte gathers), xor-shift-multiply finaliser; integer only.
param s: uniform pointee=i8 count=320 dir=in init=random[0,255] -- the bytes
param start: varying range=[0,255] -- first byte
param len: varying range=[0,48] -- number of bytes
returns: the 32-bit hash
sample: _, 0, 0
sample: _, 17, 48
sample: _, 255, 13
*/
uint32_t strhash(const unsigned char *s, int start, int len) {
  uint32_t h = 2166136261u;
  for (int k = 0; k < len; ++k) {
    h ^= s[start + k];
    h *= 16777619u;
  }
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}
