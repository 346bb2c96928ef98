/**
 * @file cpu_wide.c
 * @brief Day 08, step 0: `cpu_wide16`, the CPU's histogram of 16-bit samples (wide.cu lists every
 *        step).
 *
 *  0. `cpu_wide16`, no kernel: day 01's privatized histogram for 65,536 bins a channel: each
 *     thread counts its own rows into its own `[channels][bins]` 32-bit counters, then one sum:
 *     `./build/day08_wide --preset u16 --impl cpu_wide16`
 *
 * A 16-bit channel's counters are 256 KiB: no L1 holds them, a core's L2 does. So day 01's
 * padding and interleaving (which keep one channel's counters in distinct L1 sets) buy nothing
 * here and are left out; the bin is computed as the GPU kernels compute it (wide_map.cuh), a
 * multiply where day 01 looks in a table of 256 values. It takes bytes too, so that the tests
 * time it on the main preset against `cpu_reference`, as every host entry is.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "wide.h"

/** @brief The threads' private counters together at most this many bytes: fewer threads where
 *  one histogram is large (one thread at least). */
#define CPU_WIDE_MAX_BYTES (UINT64_C(1) << 30)

/** @brief What one worker thread counts. */
typedef struct cpu_worker {
    const hist_problem *problem; /**< the problem */
    const uint8_t *samples;      /**< the input */
    uint64_t row_begin;          /**< first row of this worker */
    uint64_t row_end;            /**< one past its last row */
    uint32_t *counts;            /**< its `[channels][bins]` counters, zeroed by the worker */
} cpu_worker;

/** @brief Count rows [row_begin, row_end) of a cpu_worker into its counters.
 *  @param arg the cpu_worker @return NULL */
static void *cpu_count_rows(void *arg) {
    const cpu_worker *w = arg;
    const hist_problem *p = w->problem;
    const uint32_t channels = p->channels, bins = hist_bins(p->binning);
    const uint32_t lo = p->binning.lo, span = p->binning.hi - p->binning.lo;
    /* the bin of an offset below 2^16: (offset * ceil(2^32 / width)) >> 32, exact (wide_map.cuh) */
    const uint64_t width = p->binning.width;
    const uint64_t magic = width == 1 ? 0 : ((UINT64_C(1) << 32) + width - 1) / width;
    const int wide = hist_sample_bits(p) == 16;
    uint32_t *counts = w->counts;
    memset(counts, 0, (size_t)channels * bins * sizeof(uint32_t));
    for (uint64_t r = w->row_begin; r < w->row_end; ++r) {
        const uint8_t *row = w->samples + r * channels * (wide ? 2 : 1);
        for (uint32_t c = 0; c < channels; ++c) {
            const uint32_t v = wide ? (uint32_t)row[2 * c] | (uint32_t)row[2 * c + 1] << 8 : row[c];
            const uint32_t offset = v - lo; /* wraps to a large value below lo */
            if (offset <= span)
                counts[(size_t)c * bins + (magic ? (uint32_t)((offset * magic) >> 32) : offset)]++;
        }
    }
    return NULL;
}

/** @brief How many threads count: at most @p asked, never more than rows, their counters
 *  together within CPU_WIDE_MAX_BYTES, at least one. */
static int cpu_threads(int asked, const hist_problem *p) {
    const uint64_t bytes = hist_counters(p) * sizeof(uint32_t) + 1;
    uint64_t threads = asked > 0 ? (uint64_t)asked : 1;
    if (threads > p->rows)
        threads = p->rows;
    if (threads > CPU_WIDE_MAX_BYTES / bytes)
        threads = CPU_WIDE_MAX_BYTES / bytes;
    return threads > 0 ? (int)threads : 1;
}

hist_status day08_cpu_wide16_run(const hist_args *a) {
    const hist_problem *p = a->problem;
    const size_t counters = (size_t)hist_counters(p);
    const int threads = cpu_threads(a->threads, p);
    cpu_worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    uint32_t *counts = malloc((size_t)threads * counters * sizeof(uint32_t) + 1);
    if (!workers || !ids || !counts) {
        free(workers);
        free(ids);
        free(counts);
        return hist_fail(HIST_ERR_NOMEM, "cpu_wide16: out of memory for the threads' counters");
    }
    /* contiguous row ranges, one per thread; the calling thread is worker 0 */
    const uint64_t per_thread = (p->rows + (uint64_t)threads - 1) / (uint64_t)threads;
    int started = 0;
    hist_status s = HIST_OK;
    for (int t = 0; t < threads; ++t) {
        cpu_worker *w = &workers[t];
        w->problem = p;
        w->samples = a->samples;
        w->row_begin = per_thread * (uint64_t)t < p->rows ? per_thread * (uint64_t)t : p->rows;
        w->row_end = w->row_begin + per_thread < p->rows ? w->row_begin + per_thread : p->rows;
        w->counts = counts + (size_t)t * counters;
        if (t > 0 && pthread_create(&ids[t], NULL, cpu_count_rows, w) != 0) {
            s = hist_fail(HIST_ERR_NOMEM, "cpu_wide16: cannot start thread %d", t);
            break;
        }
        started = t;
    }
    if (s == HIST_OK)
        cpu_count_rows(&workers[0]);
    for (int t = 1; t <= started; ++t)
        pthread_join(ids[t], NULL);
    /* the sum: every thread's counters, counter by counter */
    if (s == HIST_OK)
        for (size_t k = 0; k < counters; ++k) {
            uint32_t sum = 0;
            for (int t = 0; t < threads; ++t)
                sum += counts[(size_t)t * counters + k];
            a->hist[k] = sum;
        }
    free(workers);
    free(ids);
    free(counts);
    return s;
}
