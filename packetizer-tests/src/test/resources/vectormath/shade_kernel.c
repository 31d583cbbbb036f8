/* A shading kernel's specular term calling powf on the lanes facing the light only (a partial mask),
   with exp2f and log2f on every lane, as a C programmer writes it (issue 16's glibc-exact route),
   compiled by the bundled clang with plain -O2 in its own translation unit. */
float powf(float, float);
float exp2f(float);
float log2f(float);

float shade_piece(float d, float s) {
  float spec = 0.0f;
  if (d > 0.0f) spec = powf(d, s);
  return spec + exp2f(d * 3.0f - 1.0f) - log2f(s + d);
}
