/**
 * @file wrong_host.c
 * @brief The host flaws (wrong.h): the reference loop with one mistake each, and two that game a
 *        timing which repeats its input.
 */
#include <stdlib.h>
#include <string.h>

#include "wrong.h"

/** @brief Rows per chunk, channels per group: what the flawed versions get wrong at the end. */
#define WRONG_CHUNK_ROWS 64
#define WRONG_GROUP_CHANNELS 32

enum flaw { NO_ZERO, DROP_LAST_ROWS, DROP_LAST_GROUP, OUTSIDE_RANGE, COUNTERS_16_BIT, FLAWLESS };

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
static hist_status flawless(const hist_args *a) {
    return count_with(a, FLAWLESS);
}

/* ---- two cheats: right on any input they count, but they do not always count ---- */

/** @brief An answer a cheat keeps between calls (state on purpose: keeping it is the cheat). */
typedef struct kept_answer {
    int valid;              /**< 1 once an answer is kept */
    hist_problem problem;   /**< the problem it answered */
    const uint8_t *samples; /**< where that input was */
    uint32_t *hist;         /**< the answer */
} kept_answer;

static kept_answer first_answer, answer_by_address;

static int same_problem(const hist_problem *a, const hist_problem *b) {
    return a->rows == b->rows && a->channels == b->channels && a->binning.lo == b->binning.lo &&
           a->binning.hi == b->binning.hi && a->binning.width == b->binning.width &&
           hist_sample_bits(a) == hist_sample_bits(b);
}

/* Count, and keep the answer (with its problem and its input's address) for later calls. */
static hist_status count_and_keep(const hist_args *a, kept_answer *k) {
    const size_t bytes = (size_t)hist_counters(a->problem) * sizeof(uint32_t);
    count_with(a, FLAWLESS);
    uint32_t *hist = realloc(k->hist, bytes > 0 ? bytes : 1);
    if (!hist)
        return HIST_OK; /* nothing kept: an honest call */
    memcpy(hist, a->hist, bytes);
    *k = (kept_answer){1, *a->problem, a->samples, hist};
    return HIST_OK;
}

/* The kept answer when @p reuse, else a count. */
static hist_status kept_or_counted(const hist_args *a, kept_answer *k, int reuse) {
    if (!reuse)
        return count_and_keep(a, k);
    memcpy(a->hist, k->hist, (size_t)hist_counters(a->problem) * sizeof(uint32_t));
    return HIST_OK;
}

/* Counts the first input of a problem, then returns that answer for every later call of it. */
static hist_status keeps_first_answer(const hist_args *a) {
    kept_answer *k = &first_answer;
    return kept_or_counted(a, k, k->valid && same_problem(&k->problem, a->problem));
}

/* Counts an input unless it is at the address of the last one it counted (and of its problem). */
static hist_status keys_on_address(const hist_args *a) {
    kept_answer *k = &answer_by_address;
    return kept_or_counted(
        a, k, k->valid && same_problem(&k->problem, a->problem) && k->samples == a->samples);
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

/** @brief The host cheats, one entry each. */
const hist_impl wrong_host_cheats[] = {
    {
        .name = "host_keeps_first_answer",
        .where = HIST_HOST,
        .summary = "returns its first answer to a problem for every later call of it",
        .constraints = "any",
        .run = keeps_first_answer,
    },
    {
        .name = "host_keys_on_address",
        .where = HIST_HOST,
        .summary = "returns its last answer when the input is at the same address",
        .constraints = "any",
        .run = keys_on_address,
    },
};
/** @brief How many entries wrong_host_cheats holds. */
const size_t wrong_host_cheat_count = sizeof wrong_host_cheats / sizeof wrong_host_cheats[0];

/** @brief The reference loop without a flaw: the control. */
const hist_impl wrong_host_flawless = {
    .name = "host_flawless",
    .where = HIST_HOST,
    .summary = "the reference loop every flaw above starts from, without one",
    .constraints = "any",
    .run = flawless,
};
