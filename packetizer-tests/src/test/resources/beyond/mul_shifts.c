/* Hash and generator loops whose recurrence goes through an integer multiply by a constant, written as a C
 * programmer writes them (issue 16, twenty-second round: multiplies by constants on a recurrence). Compiled by
 * the bundled clang with plain -O1/-O2; the packetizer meets them as clang leaves them. */
typedef unsigned int u32;
typedef unsigned long long u64;

/* FNV-1a (32-bit) over the four bytes of a key, `rounds` times (a varying trip count: divergent loop). */
u32 fnv1a32_key(u32 key, int rounds) {
  u32 h = 2166136261u;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 4; ++i) {
      h ^= (key >> (8 * i)) & 0xffu;
      h *= 16777619u;
    }
    key += (u32)r;
  }
  return h;
}

/* FNV-1a (64-bit) over the eight bytes of a 64-bit key, `rounds` times. */
u64 fnv1a64_key(u64 key, int rounds) {
  u64 h = 14695981039346656037ull;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 8; ++i) {
      h ^= (key >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
    key = key * 3 + 1;
  }
  return h;
}

/* A linear congruential generator with a sparse multiplier (134775813 = 0x8088405, six set bits), n steps. */
u32 lcg_sparse(u32 seed, int n) {
  u32 x = seed;
  for (int i = 0; i < n; ++i) x = x * 134775813u + 1u;
  return x;
}

/* Multiply-with-carry style mixing on 64 bits: the high half carries, the low half multiplies by a sparse constant. */
u64 mwc64(u64 state, int n) {
  for (int i = 0; i < n; ++i) {
    u64 lo = state & 0xffffffffull;
    u64 hi = state >> 32;
    state = lo * 4294957665ull + hi;
  }
  return state;
}

/* A polynomial hash whose constant has many set bits (0x9E3779B1): the multiply stays. */
u32 poly_dense(u32 key, int n) {
  u32 h = 0;
  for (int i = 0; i < n; ++i) h = h * 0x9E3779B1u + ((key >> (i & 31)) & 0xffu);
  return h;
}

/* A multiply by FNV's prime off any recurrence: the multiply stays unless the knob says true. */
u32 scale_once(u32 x, u32 y) {
  return (x * 16777619u) ^ (y >> 3);
}

/* Divergent trip counts and a branch inside the loop: FNV-1a over a lane's own number of steps. */
u32 fnv_branchy(u32 key, int n) {
  u32 h = 2166136261u;
  for (int i = 0; i < n; ++i) {
    u32 b = (key >> (i & 24)) & 0xffu;
    if (b & 1) b ^= 0x5au;
    h = (h ^ b) * 16777619u;
  }
  return h;
}
