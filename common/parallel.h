/**
 * @file parallel.h
 * @brief Work over a range on every core: what the harness uses to generate and check large
 *        datasets (never a lesson's kernel: day 01 writes its own threads, which it measures).
 */
#ifndef HIST_PARALLEL_H
#define HIST_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One piece of work: items [begin, end) of the range, with the caller's context. */
typedef void (*hist_range_fn)(void *ctx, uint64_t begin, uint64_t end);

/**
 * @brief Calls @p fn on [0, @p n) cut into consecutive pieces, one thread each, and returns once
 *        every piece is done.
 *
 * At most one piece per online core (and at most @p max_pieces; 0: no limit), each at least
 * @p grain items, every cut a multiple of @p align. A range too small to cut is one call on the
 * calling thread, and so is a piece whose thread cannot start: the work is always done, and what
 * it computes does not depend on how it was cut when pieces write disjoint outputs.
 * @param n how many items
 * @param grain the fewest items a piece may have
 * @param align every cut a multiple of this
 * @param max_pieces at most this many pieces (0: one per core)
 * @param fn the work, called once per piece
 * @param ctx what @p fn is given
 * @return how many pieces the range was cut into (1 .. cores)
 */
unsigned hist_parallel_ranges(uint64_t n, uint64_t grain, uint64_t align, unsigned max_pieces,
                              hist_range_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* HIST_PARALLEL_H */
