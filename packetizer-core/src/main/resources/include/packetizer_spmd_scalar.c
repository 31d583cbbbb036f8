/*
 * packetizer_spmd_scalar.c -- the SPMD intrinsics of packetizer_spmd.h in a packet of one lane.
 *
 * Link this file with scalar code that calls the intrinsics and is run without packetization: every
 * call then behaves as in a packet of width 1 whose only lane is active, which is what running the
 * scalar function once per lane means. (The packetizer never calls these definitions: it replaces
 * calls to the intrinsics in the code it packetizes.)
 */
#include "packetizer_spmd.h"

int32_t pk_lane_index(void) { return 0; }
int32_t pk_packet_width(void) { return 1; }
int32_t pk_active_count(void) { return 1; }

bool pk_any(bool c) { return c; }
bool pk_all(bool c) { return c; }
uint64_t pk_ballot(bool c) { return c ? 1u : 0u; }
int32_t pk_count(bool c) { return c ? 1 : 0; }

#define PK_SCALAR_(T, s)                                              \
  T pk_read_lane_##s(T v, int32_t lane) { (void)lane; return v; }     \
  T pk_broadcast_first_##s(T v) { return v; }                         \
  T pk_shuffle_##s(T v, int32_t src) { (void)src; return v; }         \
  T pk_compact_##s(T v, bool keep) { (void)keep; return v; }          \
  T pk_reduce_add_##s(T v) { return v; }                              \
  T pk_reduce_min_##s(T v) { return v; }                              \
  T pk_reduce_max_##s(T v) { return v; }

PK_SCALAR_(int32_t, i32)
PK_SCALAR_(int64_t, i64)
PK_SCALAR_(float, f32)
PK_SCALAR_(double, f64)
