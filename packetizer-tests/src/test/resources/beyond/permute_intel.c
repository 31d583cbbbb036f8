/* Byte-valued constant tables of 256 and 128 entries on AVX2 (issue 16, twenty-first round; PermuteLookupTest and
 * PermuteRouteCallerTest compile this with the bundled clang at plain -O2). On AMD's Zen a lookup in them is 8 or 4
 * vpermd of 8 dwords (four entries per dword) and 7 or 3 blends on index bits; on Intel's cores, whose one shuffle port
 * runs every vpermd, tables above 64 entries take the gather routes. The tables are this project's own seeded
 * shuffles of 0..255, 0..127 and 0..63. */

static const unsigned char p256[256] = {
  221, 255, 47, 67, 236, 74, 76, 136, 143, 193, 119, 101, 198, 83, 41, 184,
  70, 195, 196, 24, 203, 88, 222, 219, 191, 91, 251, 19, 71, 43, 244, 109,
  0, 158, 82, 141, 140, 217, 173, 97, 249, 87, 211, 10, 34, 192, 111, 245,
  69, 207, 147, 134, 210, 171, 169, 128, 86, 6, 179, 40, 48, 166, 35, 78,
  17, 115, 227, 151, 188, 129, 189, 84, 139, 9, 15, 157, 73, 38, 232, 135,
  178, 131, 52, 204, 63, 112, 46, 149, 50, 28, 110, 98, 96, 241, 213, 30,
  175, 215, 55, 254, 105, 165, 205, 80, 53, 14, 27, 163, 13, 49, 225, 32,
  235, 54, 150, 90, 174, 246, 228, 33, 152, 124, 93, 176, 199, 51, 4, 247,
  99, 68, 37, 26, 142, 146, 137, 145, 45, 61, 65, 186, 197, 12, 29, 159,
  100, 239, 62, 172, 214, 23, 25, 220, 250, 18, 130, 122, 183, 226, 102, 194,
  138, 8, 94, 103, 59, 233, 224, 167, 127, 20, 156, 181, 31, 121, 177, 187,
  113, 3, 253, 42, 16, 216, 117, 81, 237, 209, 223, 125, 242, 95, 133, 248,
  21, 252, 11, 148, 212, 144, 44, 164, 132, 108, 126, 89, 22, 201, 107, 243,
  92, 230, 200, 57, 238, 180, 160, 153, 116, 118, 7, 161, 234, 155, 206, 39,
  229, 64, 231, 240, 202, 5, 79, 154, 190, 36, 170, 85, 208, 77, 75, 2,
  56, 162, 60, 66, 182, 168, 218, 104, 1, 114, 58, 106, 72, 123, 120, 185,
};

static const unsigned char p128[128] = {
  110, 79, 123, 64, 7, 40, 126, 102, 8, 122, 70, 109, 124, 30, 69, 98,
  16, 38, 54, 31, 57, 77, 43, 85, 32, 18, 105, 6, 34, 100, 81, 0,
  67, 113, 28, 39, 60, 66, 90, 48, 65, 84, 75, 61, 9, 41, 1, 120,
  25, 76, 68, 21, 35, 42, 46, 63, 62, 119, 37, 3, 50, 71, 112, 74,
  27, 127, 87, 99, 117, 94, 115, 56, 80, 118, 49, 101, 33, 52, 51, 14,
  45, 5, 53, 96, 20, 86, 108, 73, 107, 10, 59, 114, 106, 121, 55, 72,
  26, 44, 29, 103, 92, 15, 111, 97, 88, 78, 23, 4, 19, 12, 82, 104,
  83, 36, 93, 47, 11, 2, 24, 13, 22, 116, 125, 95, 58, 91, 17, 89,
};

static const unsigned char p64[64] = {
  21, 52, 22, 27, 29, 18, 47, 10, 20, 62, 3, 63, 57, 30, 8, 15,
  19, 23, 33, 36, 55, 54, 37, 46, 35, 31, 32, 24, 38, 50, 58, 42,
  14, 16, 2, 6, 11, 4, 0, 59, 53, 56, 49, 28, 26, 5, 9, 41,
  44, 12, 48, 61, 51, 45, 17, 13, 1, 43, 34, 25, 39, 40, 7, 60,
};

/* Perlin-style hashing: two chains of three dependent lookups, every index masked into the table */
int hash256(int x, int y, int z) {
  int a = p256[(p256[(p256[x & 255] + y) & 255] + z) & 255];
  int b = p256[(p256[(p256[(x + 1) & 255] + y) & 255] + z + 1) & 255];
  return a * 3 - b;
}

int hash128(int x, int y, int z) {
  int a = p128[(p128[(p128[x & 127] + y) & 127] + z) & 127];
  int b = p128[(p128[(p128[(x + 1) & 127] + y) & 127] + z + 1) & 127];
  return a * 3 - b;
}

/* 64 entries: 2 vpermd and a blend per lookup on every AVX2 core, Intel's too (volume's table) */
int hash64(int x, int y, int z) {
  int a = p64[(p64[(p64[x & 63] + y) & 63] + z) & 63];
  int b = p64[(p64[(p64[(x + 1) & 63] + y) & 63] + z + 1) & 63];
  return a * 3 - b;
}

/* lookups under divergent branches: an inactive lane's index lies outside its table (negative or past the end) */
int branch_lookup(int x, int y) {
  int r = -1;
  if (x >= 0 && x < 128) r = p128[x] * 5;
  if (y >= 0 && y < 256) r += p256[y];
  return r;
}
