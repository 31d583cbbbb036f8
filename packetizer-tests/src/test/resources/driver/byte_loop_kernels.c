/* Byte loops for RefillBudgetCallerTest (issue 17, eighteenth round): a tokenizer that counts the words of a byte
 * range while hashing it, and a hash of a NUL-terminated string reached through a pointer. Both read one byte per
 * iteration through an address that advances by one, with a data-dependent trip count and code after the loop: the
 * refill iteration keeps the loop with a budget of 8 iterations there, so the byte windows apply inside it. Compiled by
 * the bundled clang at plain -O2. */

/* Words (runs of bytes other than blank, tab and newline) of buf[off, off+len) up to its first NUL (a bounded C
 * string), folded into an FNV-1a hash of those bytes. */
unsigned token_hash(const unsigned char *buf, int off, int len) {
  unsigned h = 0x811C9DC5u, words = 0;
  int inword = 0;
  for (int k = 0; k < len && buf[off + k] != 0; ++k) {
    unsigned c = buf[off + k];
    int blank = c == ' ' || c == '\t' || c == '\n';
    words += !blank && !inword;
    inword = !blank;
    h = (h ^ c) * 16777619u;
  }
  h ^= words * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h;
}

/* Bernstein's hash (times 33, xor) of the NUL-terminated string s, then a shift-xor. */
unsigned zhash(const char *s) {
  unsigned h = 5381;
  while (*s) h = h * 33 ^ (unsigned char)*s++;
  return h ^ (h >> 16);
}
