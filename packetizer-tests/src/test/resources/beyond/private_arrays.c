/* Private (local) arrays, compiled with plain -O1 / -O2 by PrivateArrayLayoutTest: the packetizer lays
 * them out interleaved (element-major, the lanes' copies of an element side by side) unless the
 * address escapes; both layouts must give every lane the scalar function's result. */

/* a binomial-tree pricer's inner structure: V[k] with the same k in every lane */
float binomial(float s, float x, int steps) {
  float v[64];
  int n = steps & 63;
  for (int i = 0; i <= n; i++) {
    float p = s * (1.0f + 0.01f * (float) (2 * i - n)) - x;
    v[i] = p > 0.0f ? p : 0.0f;
  }
  for (int j = n; j > 0; j--)
    for (int k = 0; k < j; k++) v[k] = 0.49f * v[k + 1] + 0.5f * v[k];
  return v[0];
}

/* a fixed trip count (uniform index), a varying index read, and a divergent write */
int histo(int x, int y) {
  int h[16];
  for (int i = 0; i < 16; i++) h[i] = i * y;
  for (int i = 0; i < 16; i++) {
    int b = (x * (i + 3)) & 15;
    if (((x >> i) & 1) != 0) h[b] += i + 1;
  }
  int s = 0;
  for (int i = 0; i < 16; i++) s = s * 3 + h[(i * 5 + x) & 15];
  return s;
}

/* an array of structs in a private array */
struct p3 { float x, y, z; };
float structs(float a, int n) {
  struct p3 q[8];
  for (int i = 0; i < 8; i++) { q[i].x = a + i; q[i].y = a * i; q[i].z = a - i; }
  float s = 0.0f;
  int m = n & 7;
  for (int i = 0; i <= m; i++) s += q[i].x * q[(i + n) & 7].y - q[m].z;
  return s;
}

/* memset, and a private array filled only under a divergent branch */
int zeroed(int x, int n) {
  int a[32];
  __builtin_memset(a, 0, sizeof a);
  if (x > 0) {
    for (int i = 0; i < (n & 31); i++) a[i] = x + i;
  }
  int s = 0;
  for (int i = 0; i < 32; i++) s += a[i] * (i + 1);
  return s;
}

/* the address escapes to a helper that is not inlined: one block per lane */
__attribute__((noinline)) static int sum_helper(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += p[i] * (i + 1);
  return s;
}
int escapes(int x, int n) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = x ^ (i * 7);
  return sum_helper(a, (n & 15) + 1);
}

/* a sub-element access (bytes of an int array): one block per lane */
int bytes(int x, int k) {
  int a[8];
  for (int i = 0; i < 8; i++) a[i] = x * (i + 1);
  unsigned char *c = (unsigned char *) a;
  return c[k & 31] + c[(k * 5) & 31];
}

/* a private array of doubles indexed by a varying value */
double lookup(double x, int k) {
  double t[8];
  for (int i = 0; i < 8; i++) t[i] = x * i + 0.5;
  return t[k & 7] + t[(k >> 3) & 7];
}
