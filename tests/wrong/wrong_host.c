/**
 * @file wrong_host.c
 * @brief The host flaws (wrong.h): the reference loop with one mistake each.
 */
#include <string.h>

#include "wrong.h"

/** @brief Rows per chunk, channels per group: what the flawed versions get wrong at the end. */
#define WRONG_CHUNK_ROWS 64
#define WRONG_GROUP_CHANNELS 32

enum flaw { NO_ZERO, DROP_LAST_ROWS, DROP_LAST_GROUP, OUTSIDE_RANGE, COUNTERS_16_BIT };

static hist_status count_with(const hist_args *a, enum flaw flaw) {
    const hist_problem *p = a->problem;
    const uint32_t bins = hist_bins(p->binning);
    if (flaw != NO_ZERO)
        memset(a->hist, 0, (size_t)hist_counters(p) * sizeof(uint32_t));
    uint64_t rows = p->rows;
    uint32_t channels = p->channels;
    if (flaw == DROP_LAST_ROWS) /* whole chunks only */
        rows = rows / WRONG_CHUNK_ROWS * WRONG_CHUNK_ROWS;
    if (flaw == DROP_LAST_GROUP && channels > WRONG_GROUP_CHANNELS) /* whole groups only */
        channels = channels / WRONG_GROUP_CHANNELS * WRONG_GROUP_CHANNELS;
    for (uint64_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < channels; ++c) {
            const unsigned v = a->samples[r * p->channels + c];
            uint32_t bin;
            if (v < p->binning.lo || v > p->binning.hi) {
                if (flaw != OUTSIDE_RANGE)
                    continue;
                bin = v < p->binning.lo ? 0 : bins - 1; /* clamped into the edge bins */
            } else {
                bin = (v - p->binning.lo) / p->binning.width;
            }
            uint32_t *counter = &a->hist[(size_t)c * bins + bin];
            *counter = flaw == COUNTERS_16_BIT ? (uint16_t)(*counter + 1) : *counter + 1;
        }
    return HIST_OK;
}

static hist_status no_zero(const hist_args *a) {
    return count_with(a, NO_ZERO);
}
static hist_status drop_last_rows(const hist_args *a) {
    return count_with(a, DROP_LAST_ROWS);
}
static hist_status drop_last_group(const hist_args *a) {
    return count_with(a, DROP_LAST_GROUP);
}
static hist_status outside_range(const hist_args *a) {
    return count_with(a, OUTSIDE_RANGE);
}
static hist_status counters_16_bit(const hist_args *a) {
    return count_with(a, COUNTERS_16_BIT);
}

/** @brief The host flaws, one entry each. */
const hist_impl wrong_host_impls[] = {
    {
        .name = "host_forgets_to_zero",
        .where = HIST_HOST,
        .summary = "never zeroes its output",
        .constraints = "any",
        .run = no_zero,
    },
    {
        .name = "host_drops_last_rows",
        .where = HIST_HOST,
        .summary = "drops the last partial chunk of 64 rows",
        .constraints = "any",
        .run = drop_last_rows,
    },
    {
        .name = "host_drops_last_group",
        .where = HIST_HOST,
        .summary = "drops the last partial group of 32 channels",
        .constraints = "any",
        .run = drop_last_group,
    },
    {
        .name = "host_counts_outside",
        .where = HIST_HOST,
        .summary = "counts values outside [lo, hi] in the edge bins",
        .constraints = "any",
        .run = outside_range,
    },
    {
        .name = "host_16_bit_counters",
        .where = HIST_HOST,
        .summary = "16-bit counters: right on uniform data only",
        .constraints = "any",
        .run = counters_16_bit,
    },
};
/** @brief How many entries wrong_host_impls holds. */
const size_t wrong_host_impl_count = sizeof wrong_host_impls / sizeof wrong_host_impls[0];
