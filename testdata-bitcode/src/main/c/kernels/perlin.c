/* Gradient noise in three dimensions in the style of Perlin's improved noise: a lattice of
 * pseudo-random gradients chosen through a permutation table, quintic fade curves, trilinear
 * interpolation. The permutation below is this project's own (a seeded shuffle of 0..255, listed
 * twice so that perm[i + perm[j]] needs no wrap-around). */
#include "../kernel.h"

static const int perm[512] = {
  128, 219,   0,  25,  34,  85, 114, 218, 144, 204,  93, 187, 223,  70, 135,   8,
  155, 113, 249,  38,  72,   2,  19, 146, 111, 239, 139, 117, 189, 168, 220,   4,
  203, 107, 149,  77, 237, 255, 161, 177, 142, 169, 215,  60,  50,  37, 175,  66,
  173,  64, 242,  63, 205, 127,  11,  28,  20, 206,   5,  27, 166, 106, 246, 241,
   78, 230,  30,  68, 228, 109,  74, 137, 152,  48, 116,  79, 141,  90, 118,  45,
  233, 243, 193,  49, 180, 157, 159,  99, 123,  58,  18,  88, 196, 105, 214,  46,
  101, 103, 130, 140,  62,  43,  29, 213,   7, 250, 124, 207,  12,   9, 121,  83,
   21,   3, 198, 156,  36, 122, 126, 202,  39, 201, 231, 251, 236,  16,   1,  81,
  110, 167, 153, 195, 143,  52, 208, 183, 217, 224, 132, 100, 226, 174,  61,   6,
  170, 134,  67,  91,  89,  56,  24,  76, 190, 221, 252,  22, 154, 133, 112,  75,
   40, 209,  32,  98,  59,  65, 211,  69, 151,  10,  15, 235,  82, 147, 238,  73,
  136, 245, 200, 176, 210,  86, 125, 254, 138,  13,  33, 199, 108, 171,  51, 186,
   35, 234, 115, 160, 212, 192, 253, 191,  80, 185, 248, 102, 172,  41, 182,  53,
  188, 216,  23, 131,  92,  26,  84, 178,  47, 145,  95,  42, 232, 120,  87, 119,
   94, 247, 240,  54, 164,  31,  96, 227, 150,  14, 181, 197,  57, 229, 162, 165,
  179,  97, 163, 148, 225,  55, 184, 158,  44, 104, 244,  71,  17, 194, 129, 222,
  128, 219,   0,  25,  34,  85, 114, 218, 144, 204,  93, 187, 223,  70, 135,   8,
  155, 113, 249,  38,  72,   2,  19, 146, 111, 239, 139, 117, 189, 168, 220,   4,
  203, 107, 149,  77, 237, 255, 161, 177, 142, 169, 215,  60,  50,  37, 175,  66,
  173,  64, 242,  63, 205, 127,  11,  28,  20, 206,   5,  27, 166, 106, 246, 241,
   78, 230,  30,  68, 228, 109,  74, 137, 152,  48, 116,  79, 141,  90, 118,  45,
  233, 243, 193,  49, 180, 157, 159,  99, 123,  58,  18,  88, 196, 105, 214,  46,
  101, 103, 130, 140,  62,  43,  29, 213,   7, 250, 124, 207,  12,   9, 121,  83,
   21,   3, 198, 156,  36, 122, 126, 202,  39, 201, 231, 251, 236,  16,   1,  81,
  110, 167, 153, 195, 143,  52, 208, 183, 217, 224, 132, 100, 226, 174,  61,   6,
  170, 134,  67,  91,  89,  56,  24,  76, 190, 221, 252,  22, 154, 133, 112,  75,
   40, 209,  32,  98,  59,  65, 211,  69, 151,  10,  15, 235,  82, 147, 238,  73,
  136, 245, 200, 176, 210,  86, 125, 254, 138,  13,  33, 199, 108, 171,  51, 186,
   35, 234, 115, 160, 212, 192, 253, 191,  80, 185, 248, 102, 172,  41, 182,  53,
  188, 216,  23, 131,  92,  26,  84, 178,  47, 145,  95,  42, 232, 120,  87, 119,
   94, 247, 240,  54, 164,  31,  96, 227, 150,  14, 181, 197,  57, 229, 162, 165,
  179,  97, 163, 148, 225,  55, 184, 158,  44, 104, 244,  71,  17, 194, 129, 222
};

static float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

static float lerp(float t, float a, float b) { return a + t * (b - a); }

/* Dot product of (x, y, z) with one of twelve edge-midpoint gradients picked by the hash. */
static float grad(int hash, float x, float y, float z) {
  int h = hash & 15;
  float u = h < 8 ? x : y;
  float v = h < 4 ? y : (h == 12 || h == 14 ? x : z);
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

/*@ kernel noise3
family: kernel
desc: 3D gradient noise: floorf to the lattice cell, eight gathers from a read-only global permutation table with data-dependent indices, fade curves and trilinear interpolation; branchy gradient selection.
param x: varying range=[-64,64] -- x coordinate
param y: varying range=[-64,64] -- y coordinate
param z: varying range=[-64,64] -- z coordinate
returns: noise value, roughly in [-1, 1], 0 at lattice points
sample: 0.5, 0.5, 0.5
sample: 1.25, -3.5, 7.75
sample: -10.1, 20.2, -30.3
sample: 3, 4, 5
*/
float noise3(float x, float y, float z) {
  float fx = floorf(x), fy = floorf(y), fz = floorf(z);
  int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
  x -= fx;
  y -= fy;
  z -= fz;
  float u = fade(x), v = fade(y), w = fade(z);
  int A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z;
  int B = perm[X + 1] + Y, BA = perm[B] + Z, BB = perm[B + 1] + Z;
  return lerp(w,
      lerp(v, lerp(u, grad(perm[AA], x, y, z), grad(perm[BA], x - 1.0f, y, z)),
              lerp(u, grad(perm[AB], x, y - 1.0f, z), grad(perm[BB], x - 1.0f, y - 1.0f, z))),
      lerp(v, lerp(u, grad(perm[AA + 1], x, y, z - 1.0f), grad(perm[BA + 1], x - 1.0f, y, z - 1.0f)),
              lerp(u, grad(perm[AB + 1], x, y - 1.0f, z - 1.0f), grad(perm[BB + 1], x - 1.0f, y - 1.0f, z - 1.0f))));
}
