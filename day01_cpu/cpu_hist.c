/**
 * @file cpu_hist.c
 * @brief Day 01: the CPU reference loop, and a privatized multi-threaded CPU histogram.
 *
 * The lesson in one file:
 *  1. `cpu_reference`: every sample, one increment into the shared `[channels, bins]` table
 *     (the harness's reference, common/reference.c).
 *  2. `cpu_private`: each thread counts its own rows into a private, padded histogram (several
 *     sub-histograms when channels are few), then one merge: the CPU twin of what the GPU
 *     lessons do in shared memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "reference.h"

/** @brief Increments between two touches of one counter that keep the CPU from waiting on the
 *  previous increment: a row-major sweep puts `channels` increments between two touches of one
 *  channel's counters, so with fewer than 4 channels each thread keeps several sub-histograms
 *  (consecutive rows count into consecutive copies). */
#define CPU_MIN_INTERLEAVE 4

/** @brief Sub-histograms per thread for a channel count. */
static uint32_t private_copies(uint32_t channels) {
    return channels >= CPU_MIN_INTERLEAVE ? 1 : (CPU_MIN_INTERLEAVE + channels - 1) / channels;
}

/** @brief Counters per channel in a private copy: the bins and one trash bin for values outside
 *  `[lo, hi]`, rounded up to an *odd* number of 64-byte lines. The L1 picks a set by address
 *  bits 6-11 (64 sets), so channels `s` lines apart use `64 / gcd(s, 64)` sets for one value:
 *  all 64 for odd `s`, 32 for 18 lines, only 4 for the reference loop's 16 lines (1 KiB), which
 *  is what makes it slow on constant data (README: the cache-set trap). */
static uint32_t private_stride(uint32_t bins) {
    uint32_t lines = (bins + 1 + 15) / 16;
    if (lines % 2 == 0)
        lines += 1;
    return lines * 16;
}

static hist_status run_reference(const hist_args *a) {
    hist_reference(a->problem, a->samples, a->hist);
    return HIST_OK;
}

/** @brief What one worker thread counts. */
typedef struct worker {
    const hist_problem *problem; /**< the problem */
    const uint8_t *samples;      /**< the input */
    const uint16_t *bin_of;      /**< value -> bin, or the trash bin */
    uint64_t row_begin;          /**< first row of this worker */
    uint64_t row_end;            /**< one past its last row */
    uint32_t *counts;            /**< [copies][channels][stride], zeroed by the worker */
    uint32_t copies;             /**< sub-histograms */
    uint32_t stride;             /**< counters per channel in a copy */
} worker;

static void *count_rows(void *arg) {
    const worker *w = arg;
    /* locals, so the compiler need not reload them after every counter store */
    const uint32_t channels = w->problem->channels, copies = w->copies, stride = w->stride;
    const uint16_t *bin_of = w->bin_of;
    const size_t copy_size = (size_t)channels * stride;
    memset(w->counts, 0, copies * copy_size * sizeof(uint32_t));

    // SOLUTION count_rows [cpu_private]: count rows [w->row_begin, w->row_end) into this
    //   worker's private copies (zeroed above): copy k is the copy_size counters at
    //   w->counts + k * copy_size; row r (its bytes at w->samples + r * channels) counts into copy
    //   r % copies, where channel c's value v adds 1 to counter c * stride + bin_of[v] (bin_of
    //   sends values outside [lo, hi] to the trash bin, counter bins).
    // stub: (void)bin_of;
    // stub: (void)channels;
    // stub: (void)copies;
    // stub: (void)stride;
    uint32_t copy_index = 0;
    for (uint64_t r = w->row_begin; r < w->row_end; ++r) {
        const uint8_t *row = w->samples + r * channels;
        uint32_t *copy = w->counts + copy_index * copy_size;
        for (uint32_t c = 0; c < channels; ++c)
            copy[(size_t)c * stride + bin_of[row[c]]]++;
        copy_index = copy_index + 1 < copies ? copy_index + 1 : 0; /* the next row, the next copy */
    }
    // END SOLUTION
    return NULL;
}

static hist_status run_private(const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint32_t bins = hist_bins(p->binning);
    const uint32_t stride = private_stride(bins);
    const uint32_t copies = private_copies(p->channels);
    const size_t copy_size = (size_t)p->channels * stride;

    /* a table instead of the range test and division: bin of each value, `bins` = not counted */
    uint16_t bin_of[256];
    for (unsigned v = 0; v < 256; ++v)
        bin_of[v] = (v >= p->binning.lo && v <= p->binning.hi)
                        ? (uint16_t)((v - p->binning.lo) / p->binning.width)
                        : (uint16_t)bins;

    /* never more threads than rows, at least one */
    int threads = a->threads > 0 ? a->threads : 1;
    if ((uint64_t)threads > p->rows)
        threads = p->rows > 0 ? (int)p->rows : 1;
    worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    uint32_t *counts = malloc((size_t)threads * copies * copy_size * sizeof(uint32_t));
    if (!workers || !ids || !counts) {
        free(workers);
        free(ids);
        free(counts);
        return hist_fail(HIST_ERR_NOMEM, "cpu_private: out of memory for private histograms");
    }

    /* contiguous row ranges, one per thread */
    const uint64_t per_thread = (p->rows + (uint64_t)threads - 1) / (uint64_t)threads;
    int started = 0;
    hist_status s = HIST_OK;
    for (int t = 0; t < threads; ++t) {
        worker *w = &workers[t];
        w->problem = p;
        w->samples = a->samples;
        w->bin_of = bin_of;
        w->row_begin = per_thread * (uint64_t)t < p->rows ? per_thread * (uint64_t)t : p->rows;
        w->row_end = w->row_begin + per_thread < p->rows ? w->row_begin + per_thread : p->rows;
        w->counts = counts + (size_t)t * copies * copy_size;
        w->copies = copies;
        w->stride = stride;
        if (t == 0)
            continue; /* the calling thread is worker 0 */
        if (pthread_create(&ids[t], NULL, count_rows, w) != 0) {
            s = hist_fail(HIST_ERR_NOMEM, "cpu_private: cannot start thread %d", t);
            break;
        }
        started = t;
    }
    if (s == HIST_OK)
        count_rows(&workers[0]);
    for (int t = 1; t <= started; ++t)
        pthread_join(ids[t], NULL);

    /* merge: every thread's every copy, bin by bin; the trash bin is dropped */
    if (s == HIST_OK) {
        // SOLUTION run_private [cpu_private]: merge. hist[c * bins + b] is the sum over every
        //   worker's every copy (threads * copies of them, copy_size counters apart) of counter
        //   c * stride + b; the trash bin (b = bins) is dropped.
        for (uint32_t c = 0; c < p->channels; ++c) {
            for (uint32_t b = 0; b < bins; ++b) {
                uint32_t sum = 0;
                for (int k = 0; k < threads * (int)copies; ++k)
                    sum += counts[(size_t)k * copy_size + (size_t)c * stride + b];
                a->hist[(size_t)c * bins + b] = sum;
            }
        }
        // END SOLUTION
    }
    free(workers);
    free(ids);
    free(counts);
    return s;
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day01);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day01_impls[] = {
    {
        .name = "cpu_reference",
        .where = HIST_HOST,
        .summary = "the reference loop: one increment per sample into the shared table",
        .constraints = "any shape and binning",
        .run = run_reference,
    },
    {
        .name = "cpu_private",
        .where = HIST_HOST,
        .summary = "per-thread private padded sub-histograms, then one merge (--threads)",
        .constraints = "any shape and binning",
        .run = run_private,
        .target = 0.5,
    },
};

/** @brief How many entries day01_impls holds. */
const size_t day01_impl_count = sizeof day01_impls / sizeof day01_impls[0];
