/* Procedural textures: a checkerboard and a brick pattern with mortar lines. */
#include "../kernel.h"

/*@ file
family: kernel
param u: varying range=[-4,4] -- texture coordinate u
param v: varying range=[-4,4] -- texture coordinate v
sample: 0.1, 0.1
sample: 0.2, 0.1
sample: -0.05, 0.3
sample: 3.9, -3.9
sample: 1.0, 1.0
sample: -2.49, 0.74
sample: 0.5, -0.02
sample: 2.25, 1.5
*/

/*@ kernel checker
desc: Checkerboard of 1/8-unit squares: floorf to cell indices, parity of their sum picks the colour; a finer checker inside dark squares.
returns: brightness, 1.0 for light squares, 0.2 or 0.3 for dark ones
*/
float checker(float u, float v) {
  int iu = (int)floorf(u * 8.0f);
  int iv = (int)floorf(v * 8.0f);
  if (((iu + iv) & 1) == 0) return 1.0f;
  int ju = (int)floorf(u * 32.0f);
  int jv = (int)floorf(v * 32.0f);
  return ((ju ^ jv) & 1) ? 0.2f : 0.3f;
}

/*@ kernel brick
desc: Brick wall: rows offset by half a brick every other row (floorf, fmodf), mortar detected by branches, brick colour varied by a hash of the brick index.
returns: brightness: 0.1 in mortar, 0.5 to 0.9 on bricks
*/
float brick(float u, float v) {
  const float width = 0.5f, height = 0.25f, mortar = 0.03f;
  float row = floorf(v / height);
  float uu = u;
  if (fmodf(row, 2.0f) != 0.0f) uu += 0.5f * width;
  float col = floorf(uu / width);
  float fu = uu - col * width;
  float fv = v - row * height;
  if (fu < mortar || fv < mortar) return 0.1f;
  if (fu > width - mortar || fv > height - mortar) return 0.15f;
  int id = (int)col * 7 + (int)row * 13;
  unsigned h = (unsigned)id * 2654435761u;
  h ^= h >> 15;
  return 0.5f + 0.4f * (float)(h & 255u) / 255.0f;
}
