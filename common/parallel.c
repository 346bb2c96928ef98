/**
 * @file parallel.c
 * @brief hist_parallel_ranges(): a range cut into pieces, one POSIX thread each.
 */
#define _GNU_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN) */
#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/** @brief Most pieces a range is cut into, whatever the machine reports. */
#define MAX_PIECES 64

/** @brief One piece and the work to do on it. */
typedef struct piece {
    hist_range_fn fn; /**< the work */
    void *ctx;        /**< its context */
    uint64_t begin;   /**< the first item of the piece */
    uint64_t end;     /**< one past its last */
} piece;

static void *run_piece(void *arg) {
    const piece *p = arg;
    p->fn(p->ctx, p->begin, p->end);
    return NULL;
}

unsigned hist_parallel_ranges(uint64_t n, uint64_t grain, uint64_t align, unsigned max_pieces,
                              hist_range_fn fn, void *ctx) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t pieces = cores > 1 ? (uint64_t)cores : 1;
    if (pieces > MAX_PIECES)
        pieces = MAX_PIECES;
    if (max_pieces > 0 && pieces > max_pieces)
        pieces = max_pieces;
    if (grain < 1)
        grain = 1;
    if (align < 1)
        align = 1;
    if (pieces > n / grain)
        pieces = n / grain;
    if (pieces <= 1) {
        fn(ctx, 0, n);
        return 1;
    }
    /* piece k is [cut(k), cut(k + 1)): equal shares rounded down to the alignment */
    piece work[MAX_PIECES];
    pthread_t ids[MAX_PIECES];
    int started[MAX_PIECES] = {0};
    for (uint64_t k = 0; k < pieces; ++k) {
        const uint64_t begin = n / pieces * k / align * align;
        const uint64_t end = k + 1 == pieces ? n : n / pieces * (k + 1) / align * align;
        work[k] = (piece){fn, ctx, begin, end};
    }
    for (uint64_t k = 1; k < pieces; ++k)
        started[k] = pthread_create(&ids[k], NULL, run_piece, &work[k]) == 0;
    run_piece(&work[0]);
    for (uint64_t k = 1; k < pieces; ++k) {
        if (started[k])
            pthread_join(ids[k], NULL);
        else
            run_piece(&work[k]); /* no thread: the work is still done, here */
    }
    return (unsigned)pieces;
}
