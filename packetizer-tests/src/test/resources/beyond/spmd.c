/*
 * SPMD intrinsics (docs/beyond-the-thesis.md, section 4). Compiled by SpmdIntrinsicsTest with
 * BundledClang.KERNEL_FLAGS and the shipped packetizer_spmd.h; packetized masked at W = 4, 8, 16 and
 * compared with a Java model of the whole packet. Linked with packetizer_spmd_scalar.c, every
 * function also runs as scalar code in a packet of one lane.
 */
#include "packetizer_spmd.h"

int lane(void) { return pk_lane_index(); }
int width(void) { return pk_packet_width(); }
int active(void) { return pk_active_count(); }

/* any | all << 1 | count << 2 of x > 0 */
int votes(int x) { return (pk_any(x > 0) ? 1 : 0) | (pk_all(x > 0) ? 2 : 0) | (pk_count(x > 0) << 2); }

uint64_t ballot(int x) { return pk_ballot((x & 1) != 0); }

int read_lane_u(int v, int l) { return pk_read_lane_i32(v, l); }  /* l uniform */
float read_lane_v(float v, int l) { return pk_read_lane_f32(v, l); } /* l varying: a shuffle */
int64_t first(int64_t v) { return pk_broadcast_first_i64(v); }
double shuffle(double v, int src) { return pk_shuffle_f64(v, src); }
float compact(float v) { return pk_compact_f32(v, v > 0.0f); }

int radd_i(int v) { return pk_reduce_add_i32(v); }
int rmin_i(int v) { return pk_reduce_min_i32(v); }
int64_t rmax_l(int64_t v) { return pk_reduce_max_i64(v); }
float radd_f(float v) { return pk_reduce_add_f32(v); }
float rmin_f(float v) { return pk_reduce_min_f32(v); }
double rmax_d(double v) { return pk_reduce_max_f64(v); }

/* Divergent control: each side of the branch reduces over its own lanes only. */
float div_reduce(float x, float y) {
  float r;
  if (x > 0.0f) r = pk_reduce_add_f32(y);
  else r = pk_reduce_max_f32(y) + (float)pk_count(y > x);
  return r;
}

/* A loop with a per-lane trip count: iteration i counts the lanes still looping. */
int loop_count(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += pk_active_count() * 100 + pk_lane_index();
  return s;
}

/* A coherent branch: the fast path runs when all lanes agree (a uniform branch); both paths compute
 * the same per-lane value, so only the way differs. */
__attribute__((noinline)) int triple(int x) { return x * 3; }

int coherent(int x) {
  if (pk_all(x >= 0)) return triple(x);
  return x < 0 ? -x * 3 : x * 3;
}

/* Stream compaction to memory: the positive values of the active lanes, packed to out[0..n-1]. */
int compact_store(float *out, float v) {
  bool keep = v > 0.0f;
  int n = pk_count(keep);
  float c = pk_compact_f32(v, keep);
  if (pk_lane_index() < n) out[pk_lane_index()] = c;
  return n;
}

/* Loads consecutive elements through the lane index: t[base + lane] is a vector load. */
float window(const float *t, int base) { return t[base + pk_lane_index()] + pk_broadcast_first_f32(t[base]); }

/* Inside a callee (recursive packetization gives it the caller's mask). */
__attribute__((noinline)) int helper_votes(int x) { return pk_count(x > 2); }
int calls_helper(int x) { return x > 0 ? helper_votes(x) : -1; }
