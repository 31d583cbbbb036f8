/*
 * packetizer_spmd.h -- SPMD intrinsics for code that the Packetizer turns into packet functions.
 *
 * A packet function computes W calls of a scalar function at once, one call per lane. Scalar code
 * may ask about, and talk to, the other lanes of its packet through the functions below. The
 * packetizer recognises calls to them by name and implements them on the whole packet; compiled
 * without packetization (link packetizer_spmd_scalar.c), they behave as in a packet of one lane.
 *
 * Active lanes. Lanes are numbered 0 .. W-1. A lane is active at a call when the scalar call it
 * stands for reaches that call: the caller's mask of a masked packet function, narrowed by every
 * divergent branch and loop exit on the way. Inactive lanes never influence a result (any, all,
 * ballot, counts, reductions, broadcast and compaction only look at active lanes), and the results
 * are only defined for the active lanes.
 *
 * Uniform results (the same in every active lane) come from: pk_packet_width, pk_active_count,
 * pk_any, pk_all, pk_ballot, pk_count, pk_broadcast_first_*, pk_reduce_*, and pk_read_lane_* with
 * a uniform lane number. pk_lane_index is linear (lane k gets k), so t[base + pk_lane_index()] is a
 * plain vector access.
 *
 * Typed functions exist for int32_t (_i32), int64_t (_i64), float (_f32) and double (_f64); the
 * macros without suffix pick one by the type of their first argument (C11 _Generic).
 *
 * The functions are declared convergent: an optimizer must not make a call depend on more or
 * different branches than in the source (e.g. hoist it out of an if), because its result depends on
 * which lanes are active there.
 */
#ifndef PACKETIZER_SPMD_H
#define PACKETIZER_SPMD_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__clang__)
#define PK_SPMD __attribute__((convergent, nothrow))
#else
#define PK_SPMD
#endif

/* ---- lanes and the packet ---------------------------------------------------------------- */

/* This lane's number k, 0 <= k < W. Linear: lane k gets k. Scalar: 0. */
PK_SPMD int32_t pk_lane_index(void);

/* W, the number of lanes of the packet (active or not). Uniform. Scalar: 1. */
PK_SPMD int32_t pk_packet_width(void);

/* The number of active lanes (1 .. W). Uniform. Scalar: 1. */
PK_SPMD int32_t pk_active_count(void);

/* ---- votes ----------------------------------------------------------------------------------- */

/* Whether c is true in at least one active lane. Uniform. Scalar: c. */
PK_SPMD bool pk_any(bool c);

/* Whether c is true in every active lane. Uniform. Scalar: c. */
PK_SPMD bool pk_all(bool c);

/* The lanes where c is true, as bits: bit k is set when lane k is active and c is true in it (bits
 * of inactive lanes are 0). Uniform. Needs W <= 64. Scalar: c ? 1 : 0. */
PK_SPMD uint64_t pk_ballot(bool c);

/* The number of active lanes where c is true (the population count of pk_ballot(c)). Uniform.
 * Scalar: c ? 1 : 0. */
PK_SPMD int32_t pk_count(bool c);

/* ---- moving values between lanes ------------------------------------------------------------- */

/* The value of v in lane (lane mod W). Uniform when lane is uniform. Defined only when that lane is
 * active. Scalar: v. */
PK_SPMD int32_t pk_read_lane_i32(int32_t v, int32_t lane);
PK_SPMD int64_t pk_read_lane_i64(int64_t v, int32_t lane);
PK_SPMD float pk_read_lane_f32(float v, int32_t lane);
PK_SPMD double pk_read_lane_f64(double v, int32_t lane);

/* The value of v in the first (lowest-numbered) active lane. Uniform. Scalar: v. */
PK_SPMD int32_t pk_broadcast_first_i32(int32_t v);
PK_SPMD int64_t pk_broadcast_first_i64(int64_t v);
PK_SPMD float pk_broadcast_first_f32(float v);
PK_SPMD double pk_broadcast_first_f64(double v);

/* Lane k receives the value of v in lane (src mod W), where src is lane k's own src: a permutation
 * (or any mapping) of values across the packet. Defined only where that source lane is active.
 * Scalar: v. */
PK_SPMD int32_t pk_shuffle_i32(int32_t v, int32_t src);
PK_SPMD int64_t pk_shuffle_i64(int64_t v, int32_t src);
PK_SPMD float pk_shuffle_f32(float v, int32_t src);
PK_SPMD double pk_shuffle_f64(double v, int32_t src);

/* Stream compaction. Let L0 < L1 < ... < L(n-1) be the active lanes where keep is true
 * (n = pk_count(keep)). Lane j < n receives the value of v in lane Lj; lane j >= n keeps its own v.
 * Typical use: if (pk_lane_index() < n) out[base + pk_lane_index()] = pk_compact_f32(v, keep);
 * Scalar: v. */
PK_SPMD int32_t pk_compact_i32(int32_t v, bool keep);
PK_SPMD int64_t pk_compact_i64(int64_t v, bool keep);
PK_SPMD float pk_compact_f32(float v, bool keep);
PK_SPMD double pk_compact_f64(double v, bool keep);

/* ---- reductions over the active lanes (uniform results) -------------------------------------- */

/* Sum of v over the active lanes. Integers wrap around. Floating point adds in lane order,
 * starting from -0.0: ((-0.0 + v[L0]) + v[L1]) + ..., so the result is exactly that of a sequential
 * loop over the active lanes. Scalar: v. */
PK_SPMD int32_t pk_reduce_add_i32(int32_t v);
PK_SPMD int64_t pk_reduce_add_i64(int64_t v);
PK_SPMD float pk_reduce_add_f32(float v);
PK_SPMD double pk_reduce_add_f64(double v);

/* Minimum / maximum of v over the active lanes: signed for integers; for floating point with the
 * semantics of fminf/fmaxf (a NaN is ignored unless every active lane has one; which zero of -0.0
 * and +0.0 wins is unspecified). Scalar: v. */
PK_SPMD int32_t pk_reduce_min_i32(int32_t v);
PK_SPMD int64_t pk_reduce_min_i64(int64_t v);
PK_SPMD float pk_reduce_min_f32(float v);
PK_SPMD double pk_reduce_min_f64(double v);
PK_SPMD int32_t pk_reduce_max_i32(int32_t v);
PK_SPMD int64_t pk_reduce_max_i64(int64_t v);
PK_SPMD float pk_reduce_max_f32(float v);
PK_SPMD double pk_reduce_max_f64(double v);

/* ---- type-generic spellings ------------------------------------------------------------------ */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PK_GENERIC_(name, v) _Generic((v), int32_t: name##_i32, int64_t: name##_i64, float: name##_f32, double: name##_f64)
#define pk_read_lane(v, lane) PK_GENERIC_(pk_read_lane, v)((v), (lane))
#define pk_broadcast_first(v) PK_GENERIC_(pk_broadcast_first, v)(v)
#define pk_shuffle(v, src) PK_GENERIC_(pk_shuffle, v)((v), (src))
#define pk_compact(v, keep) PK_GENERIC_(pk_compact, v)((v), (keep))
#define pk_reduce_add(v) PK_GENERIC_(pk_reduce_add, v)(v)
#define pk_reduce_min(v) PK_GENERIC_(pk_reduce_min, v)(v)
#define pk_reduce_max(v) PK_GENERIC_(pk_reduce_max, v)(v)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PACKETIZER_SPMD_H */
