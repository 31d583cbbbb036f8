/* Table lookups (compiled with plain -O1 / -O2 by TableLookupTest): a uniform base and a varying
 * 32-bit index, which the packetizer keeps as base + 32-bit offsets (a gather with an i32 index
 * vector, or scalar loads where the target has no fast gather). */

/* a table passed by pointer (guard pages after its 64 entries) */
int lookup_param(const int *t, int x) { return t[x & 63] + 3 * t[(x >> 6) & 63]; }

/* a lookup under a divergent branch (partial mask: inactive lanes must not load) */
float lookup_divergent(const float *t, int x) {
  float s = (float) x;
  if (x > 0) s += t[x & 63];
  if ((x & 3) == 1) s *= t[(x * 7 + 3) & 63];
  return s;
}

/* a permutation through a global table, as in gradient noise: perm[perm[i] + j] */
static const unsigned char perm[512] = {
  7, 200, 13, 91, 250, 3, 66, 128, 41, 19, 177, 2, 99, 230, 58, 144,
  [16] = 11, 201, 87, 34, 5, 255, 120, 61, 17, 190, 73, 222, 9, 160, 44, 101,
  [300] = 33, 12, 250, 199, [511] = 77
};
int lookup_chain(int x, int y) {
  int i = x & 255, j = y & 255;
  return perm[perm[i] + j] * 5 + perm[(i + j) & 511];
}

/* a 16-bit table, indexed by a value sign-extended from a narrower type */
static const short tab[32] = {-5, 100, -300, 4000, 7, -8, 9, 10, 11, -12, 13, 14, 15, 16, 17, -18,
                              19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, -30, 31, 32, 33, 34};
int lookup_short(int x) { return tab[x & 31] * 3 + tab[(x >> 5) & 31]; }

/* the index computed before a loop (LICM hoists the address there), the lookup inside it under a
 * divergent branch: the index's 32-bit operand has no slot in the lookup's block (FuzzSliceTest
 * seed 20261121 case 10: "used before its definition was emitted") */
float lookup_in_loop(const float *t, int x, int n) {
  float s = 0.0f;
  for (int i = 0; i < (n & 7) + 1; i++) {
    int k = (x & 15) | 1;
    if (((x >> i) & 1) != 0) s += t[k];
    s = s * 0.5f + (float) i;
  }
  return s;
}

/* gradient-noise hashing: fourteen lookups in straight-line code (the shape of noise3). As W scalar
 * loads each they would be 5 instructions per lane against the scalar function's 3 per lookup: the
 * packet function stays within the code-growth budget by keeping the later ones gathers */
static const int P[256] = {
  151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225,
  [16] = 140, 36, 103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148,
  [128] = 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32,
  [250] = 57, 177, 33, 88, 237, 149
};
int lookup_many(int x, int y, int z) {
  int X = x & 255, Y = y & 255, Z = z & 255;
  int A = P[X] + Y, AA = P[A & 255] + Z, AB = P[(A + 1) & 255] + Z;
  int B = P[(X + 1) & 255] + Y, BA = P[B & 255] + Z, BB = P[(B + 1) & 255] + Z;
  return P[AA & 255] ^ P[(AA + 1) & 255] * 3 ^ P[AB & 255] * 5 ^ P[(AB + 1) & 255] * 7
       ^ P[BA & 255] * 11 ^ P[(BA + 1) & 255] * 13 ^ P[BB & 255] * 17 ^ P[(BB + 1) & 255] * 19;
}

/* Lookups in global tables under divergent control (issue 16, the volume kernel's shape): element 0
 * of a global is always readable, so the inactive lanes read it instead of their own offset and the
 * load needs no mask (no branch per lane where LLVM expands a masked gather). */
static const unsigned char hash[64] = {
  41, 7, 59, 22, 3, 48, 15, 33, 62, 0, 27, 54, 11, 38, 19, 45, 6, 52, 29, 1, 36, 60, 13, 24, 50, 9, 43, 31, 18, 57, 2, 40,
  26, 63, 14, 47, 34, 5, 21, 56, 10, 39, 61, 28, 16, 53, 44, 4, 37, 20, 58, 12, 30, 49, 25, 8, 55, 17, 42, 32, 23, 46, 35, 51};
int lookup_global_divergent(int x, int y) {
  int s = x;
  if (x > y) s += hash[(hash[x & 63] + y) & 63];
  return s;
}

/* a divergent loop: lanes that left keep their last index, lanes that never entered have none */
int lookup_global_loop(int x, int n) {
  int h = x & 63, i = 0;
  while (i < (n & 15) && h != 5) {
    h = hash[(h + i) & 63];
    ++i;
  }
  return h * 16 + i;
}

/* a 4-byte global table under a divergent branch (fast-gather targets keep the masked gather) */
static const float weights[16] = {0.5f, 1.25f, -2.0f, 3.5f, 0.125f, -7.0f, 9.0f, 1.0f,
                                  2.0f, -0.25f, 4.0f, 6.5f, -1.5f, 8.0f, 0.75f, -3.0f};
float lookup_global_float(float v, int k) {
  float r = v;
  if (v > 0.5f) r *= weights[k & 15];
  if (k < 0) r += weights[(k >> 4) & 15];
  return r;
}

/* Lookups whose index stays within the global table whatever a lane holds (issue 16, the volume
 * kernel's loop): k & 63, a byte loaded from another table (zero-extended), k % 48 into 64 entries.
 * Under a partial mask they need neither the mask nor a select on it, so in a divergent loop the
 * lookups do not wait for the previous iteration's mask. */
static const int wide[256] = {
  -50000, -12842, 24316, -38528, -1370, 35788, -27056, 10102, 47261, -15584, 21574, -41270, -4112, 33046, -29798, 7360,
  44519, -18326, 18832, -44012, -6854, 30305, -32540, 4618, 41777, -21068, 16090, -46754, -9596, 27563, -35282, 1876,
  39035, -23810, 13349, -49496, -12338, 24821, -38024, -866, 36293, -26552, 10607, 47765, -15080, 22079, -40766, -3608,
  33551, -29294, 7865, 45023, -17822, 19337, -43508, -6349, 30809, -32036, 5123, 42281, -20564, 16595, -46250, -9091,
  28067, -34778, 2381, 39539, -23305, 13853, -48992, -11833, 25325, -37520, -361, 36797, -26047, 11111, 48269, -14575,
  22583, -40261, -3103, 34055, -28789, 8369, 45527, -17317, 19841, -43003, -5845, 31313, -31531, 5627, 42785, -20059,
  17099, -45745, -8587, 28571, -34273, 2885, 40044, -22801, 14357, -48487, -11329, 25829, -37015, 143, 37302, -25543,
  11615, 48774, -14071, 23088, -39757, -2599, 34560, -28285, 8873, 46032, -16813, 20346, -42499, -5341, 31818, -31027,
  6132, 43290, -19555, 17604, -45241, -8083, 29076, -33769, 3390, 40548, -22297, 14862, -47983, -10825, 26334, -36511,
  648, 37806, -25039, 12120, 49278, -13566, 23592, -39253, -2094, 35064, -27781, 9378, 46536, -16308, 20850, -41995,
  -4836, 32322, -30522, 6636, 43794, -19050, 18108, -44737, -7578, 29580, -33264, 3894, 41052, -21792, 15366, -47479,
  -10320, 26838, -36006, 1152, 38310, -24534, 12624, 49783, -13062, 24096, -38748, -1590, 35568, -27276, 9882, 47041,
  -15804, 21354, -41490, -4332, 32827, -30018, 7140, 44299, -18546, 18612, -44232, -7074, 30085, -32760, 4398, 41557,
  -21288, 15871, -46974, -9816, 27343, -35502, 1656, 38815, -24030, 13129, -49716, -12558, 24601, -38244, -1086, 36073,
  -26772, 10387, 47545, -15300, 21859, -40986, -3827, 33331, -29514, 7645, 44803, -18042, 19117, -43728, -6569, 30589,
  -32256, 4903, 42061, -20783, 16375, -46470, -9311, 27847, -34998, 2161, 39319, -23525, 13633, -49212, -12053, 25105};
static const unsigned short shorts[64] = {
  0, 40503, 15470, 55973, 30940, 5907, 46410, 21377, 61880, 36847, 11814, 52317, 27284, 2251, 42754, 17721,
  58224, 33191, 8158, 48661, 23628, 64131, 39098, 14065, 54568, 29535, 4502, 45005, 19972, 60475, 35442, 10409,
  50912, 25879, 846, 41349, 16316, 56819, 31786, 6753, 47256, 22223, 62726, 37693, 12660, 53163, 28130, 3097,
  43600, 18567, 59070, 34037, 9004, 49507, 24474, 64977, 39944, 14911, 55414, 30381, 5348, 45851, 20818, 61321};
int lookup_bounded_loop(int x, int n) {
  int h = x, i = 0;
  while (i < (n & 31) && (h & 7) != 3) {
    h = hash[(h + i) & 63] + wide[hash[(h ^ i) & 63]] + shorts[(unsigned)(h * 5 + i) % 48u];
    ++i;
  }
  return h + i;
}
