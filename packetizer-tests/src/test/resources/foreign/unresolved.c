/* One function of the module calls an external that exists nowhere: the others must still be
 * checkable, and checking that one names the missing symbol. */
int nowhere_to_be_found(int x);

int uses_missing(int x) { return x > 0 ? nowhere_to_be_found(x) : x; }

unsigned long long fine(unsigned long long a, unsigned long long b) {
  unsigned __int128 n = (unsigned __int128)a * 977 + b;
  return a > b ? (unsigned long long)(n / (b | 1)) : (unsigned long long)(n % (a | 1));
}
