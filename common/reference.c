/**
 * @file reference.c
 * @brief The reference loop, the same counts on every core, and exact verification.
 */
#define _GNU_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN) */
#include "reference.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parallel.h"

/* The definition for 16-bit samples (two little-endian bytes each), one sample at a time. */
static void reference16(const hist_problem *p, const uint8_t *samples, uint32_t *hist) {
    const hist_binning b = p->binning;
    const uint32_t bins = hist_bins(b), channels = p->channels;
    memset(hist, 0, hist_counters(p) * sizeof(uint32_t));
    for (uint64_t r = 0; r < p->rows; ++r) {
        for (uint32_t c = 0; c < channels; ++c) {
            const uint64_t i = r * channels + c;
            const uint32_t v = (uint32_t)samples[2 * i] | (uint32_t)samples[2 * i + 1] << 8;
            if (v >= b.lo && v <= b.hi)
                hist[(uint64_t)c * bins + (v - b.lo) / b.width] += 1;
        }
    }
}

void hist_reference(const hist_problem *p, const uint8_t *samples, uint32_t *hist) {
    if (hist_sample_bits(p) == 16) {
        reference16(p, samples, hist);
        return;
    }
    const hist_binning b = p->binning;
    const uint32_t bins = hist_bins(b);
    /* the definition, tabulated once per value: bin (v - lo) / width, or -1 outside [lo, hi] */
    int bin_of[256];
    for (unsigned v = 0; v < 256; ++v)
        bin_of[v] = (v >= b.lo && v <= b.hi) ? (int)((v - b.lo) / b.width) : -1;
    memset(hist, 0, hist_counters(p) * sizeof(uint32_t));
    for (uint64_t r = 0; r < p->rows; ++r) {
        for (uint32_t c = 0; c < p->channels; ++c) {
            const int bin = bin_of[samples[r * p->channels + c]];
            if (bin >= 0)
                hist[(uint64_t)c * bins + (uint32_t)bin] += 1;
        }
    }
}

/** @brief One slab's work in hist_reference_parallel(): rows [begin, end) into its own counters. */
typedef struct slab_job {
    const hist_problem *p;  /**< the whole problem */
    const uint8_t *samples; /**< its input */
    uint32_t *partials;     /**< one `[channels, bins]` histogram per slab */
    uint64_t slab_rows;     /**< rows per slab (the last takes the rest) */
} slab_job;

static void count_slabs(void *ctx, uint64_t first, uint64_t last) {
    const slab_job *j = ctx;
    const uint64_t counters = hist_counters(j->p);
    for (uint64_t s = first; s < last; ++s) {
        hist_problem slab = *j->p;
        const uint64_t begin = s * j->slab_rows;
        slab.rows = begin + j->slab_rows < j->p->rows ? j->slab_rows : j->p->rows - begin;
        hist_reference(&slab, j->samples + begin * j->p->channels * hist_sample_bytes(j->p),
                       j->partials + s * counters);
    }
}

void hist_reference_parallel(const hist_problem *p, const uint8_t *samples, uint32_t *hist) {
    /* slabs of at least 4 MiB of samples, their counters together at most 256 MiB */
    const uint64_t counters = hist_counters(p), samples_n = hist_samples(p);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t slabs = cores > 1 ? (uint64_t)cores : 1;
    if (slabs > samples_n / (UINT64_C(4) << 20))
        slabs = samples_n / (UINT64_C(4) << 20);
    if (slabs > (UINT64_C(256) << 20) / (counters * sizeof(uint32_t) + 1))
        slabs = (UINT64_C(256) << 20) / (counters * sizeof(uint32_t) + 1);
    uint32_t *partials = slabs > 1 ? malloc(slabs * counters * sizeof *partials) : NULL;
    if (!partials) {
        hist_reference(p, samples, hist);
        return;
    }
    slab_job job = {p, samples, partials, (p->rows + slabs - 1) / slabs};
    slabs = (p->rows + job.slab_rows - 1) / job.slab_rows;
    hist_parallel_ranges(slabs, 1, 1, 0, count_slabs, &job);
    memcpy(hist, partials, counters * sizeof *hist);
    for (uint64_t s = 1; s < slabs; ++s)
        for (uint64_t i = 0; i < counters; ++i)
            hist[i] += partials[s * counters + i];
    free(partials);
}

uint64_t hist_verify(const hist_problem *p, const uint32_t *expected, const uint32_t *got,
                     unsigned max_report, FILE *report) {
    const uint32_t bins = hist_bins(p->binning);
    const uint64_t n = hist_counters(p);
    uint64_t mismatches = 0;
    int poisoned = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (expected[i] == got[i])
            continue;
        if (report && mismatches < max_report) {
            if (mismatches == 0)
                fprintf(report, "  channel, bin, expected, got\n");
            fprintf(report, "  %" PRIu64 ", %" PRIu64 ", %" PRIu32 ", %" PRIu32 "\n", i / bins,
                    i % bins, expected[i], got[i]);
            poisoned |= got[i] == HIST_POISON;
        }
        ++mismatches;
    }
    if (report && mismatches > 0)
        fprintf(report, "  %" PRIu64 " of %" PRIu64 " counter%s differ%s\n", mismatches, n,
                n == 1 ? "" : "s", mismatches == 1 ? "s" : "");
    if (report && poisoned)
        fprintf(report,
                "  (%" PRIu32 " = 0xFFFFFFFF is the poison the harness writes over the "
                "output before every call: such a counter was never written; an "
                "implementation must zero its own output)\n",
                (uint32_t)HIST_POISON);
    return mismatches;
}
