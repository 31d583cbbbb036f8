/* Struct-of-arrays pointers passed to llvm.memcpy / llvm.memset (issue 14 §2): struct assignments
 * (clang emits a memcpy with !tbaa.struct, the field layout) and memsets, with all lanes and under a
 * partial mask, between struct-of-arrays objects and ordinary memory. */
typedef struct {
  float x, y, z;
  int id;
  double w;
} P;

/* an array field: clang's !tbaa.struct lists it as 8 bytes of char, no element size */
typedef struct {
  float x;
  short tag[4];
} Q;

void copy_in(P *soa, const P *src) { *soa = *src; }
void copy_out(P *dst, P *soa) { *dst = *soa; }
void copy_soa(P *dst, P *src) { *dst = *src; }
void copy_soa_if(P *dst, P *src, float t) {
  if (t > 0.0f) *dst = *src;
}
void copy_out_if(P *dst, P *soa, float t) {
  if (t < 1.0f) *dst = *soa;
}
void clear(P *soa) { __builtin_memset(soa, 0, sizeof(P)); }
void fill(P *soa, int b) { __builtin_memset(soa, b, sizeof(P)); }
void copy_array_field(Q *dst, const Q *src) { *dst = *src; }
