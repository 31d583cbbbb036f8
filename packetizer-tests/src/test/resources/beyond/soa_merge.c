/* A struct-of-arrays pointer merged (select/phi) with a pointer that is not struct-of-arrays
 * (issue 14 §2): every use of the merged pointer loads or stores one field size, so it becomes a
 * vector of per-lane pointers. */
typedef struct {
  float x, y;
  int id;
} S;

float pick(S *soa, float *fallback, float t) {
  float *p = t > 0.0f ? &soa->y : fallback;
  return *p * 2.0f;
}

void put(S *soa, float *mine, float t, float v) {
  float *p = t > 0.0f ? &soa->x : mine;
  *p = v;
}

int walk(S *soa, int *other, int n) {
  int *p = &soa->id;
  int s = 0;
  for (int k = 0; k < n; k++) {
    s += *p;
    if (k == 1) p = other;
  }
  return s;
}
