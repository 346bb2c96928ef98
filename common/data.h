/**
 * @file data.h
 * @brief Reproducible datasets: the splitmix64 generator, the distributions and the presets.
 *
 * Every dataset is a pure function of (shape, value range, distribution, seed): the same bytes on
 * any machine, in any thread order. Sample `i` (row-major index) is drawn from splitmix64 output
 * number `i / 4`, taking the 16-bit lane `i % 4` and mapping it to the value range by
 * multiply-shift, `vmin + (lane * range) >> 16` (exact for ranges of 256 and 65,536, bias under
 * 0.2% for other byte ranges). 16-bit samples (the problem's `bits`) are written as two
 * little-endian bytes each.
 */
#ifndef HIST_DATA_H
#define HIST_DATA_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Output number @p index of splitmix64 seeded with @p seed (a counter-based generator).
 * @param seed the stream's seed
 * @param index which output of the stream
 * @return the 64-bit output
 */
uint64_t hist_splitmix64(uint64_t seed, uint64_t index);

/** @brief The kinds of data `--dist` can ask for. */
typedef enum hist_dist_kind {
    HIST_DIST_UNIFORM = 0, /**< uniform over the value range */
    HIST_DIST_CONTENTION,  /**< `contention:P`: P% of samples replaced by one hot value */
    HIST_DIST_CONSTANT,    /**< every sample the hot value */
    HIST_DIST_RUNS         /**< `runs:L`: runs of L equal samples down each channel */
} hist_dist_kind;

/** @brief A distribution and its parameter. */
typedef struct hist_dist {
    hist_dist_kind kind; /**< which distribution */
    uint32_t param;      /**< P (0..100) for contention, L (>= 1) for runs, else 0 */
} hist_dist;

/** @brief A full dataset description: shape, value range, distribution, seed. */
typedef struct hist_dataset {
    hist_problem problem; /**< shape and binning */
    uint32_t vmin;        /**< smallest generated value */
    uint32_t vmax;        /**< largest generated value, at most the samples' largest */
    hist_dist dist;       /**< distribution */
    uint64_t seed;        /**< generator seed */
} hist_dataset;

/**
 * @brief Parse a `--dist` value: `uniform`, `contention:P`, `constant`, `runs:L`.
 * @return HIST_OK, or HIST_ERR_USAGE with the reason in hist_last_error().
 * @param text the `--dist` value
 * @param out the distribution
 */
hist_status hist_dist_parse(const char *text, hist_dist *out);

/**
 * @brief Write a distribution back as text (`contention:90`) into @p buf.
 * @param buf where the text goes
 * @param len the size of @p buf
 * @param d the distribution
 */
void hist_dist_format(hist_dist d, char *buf, size_t len);

/**
 * @brief Look up a preset by name (`main`, `small-binned`, or `pmpp:K`, K = 1 .. 6: GPU MODE's
 *        `histogram_v2` benchmark shapes, one channel of bytes; `pmpp` is `pmpp:1`; `u16` and
 *        `u16x8`: 256 Mi 16-bit samples, the full range in 65,536 bins, as 1 and 8 channels).
 * @return HIST_OK, or HIST_ERR_USAGE naming the presets that exist.
 * @param name the preset's name
 * @param out its dataset
 */
hist_status hist_preset(const char *name, hist_dataset *out);

/** @brief The value every sample takes under `constant` and the replaced share under
 *  `contention:P`: drawn from the seed, within `[vmin, vmax]`.
 * @param d the dataset
 * @return the value
 */
uint32_t hist_hot_value(const hist_dataset *d);

/**
 * @brief Fill `samples[rows * channels]` with the dataset @p d describes.
 * @return HIST_OK or HIST_ERR_USAGE (invalid parameters).
 * @param samples hist_input_bytes() bytes to fill
 * @param d the dataset
 */
hist_status hist_generate(const hist_dataset *d, uint8_t *samples);

/**
 * @brief Fill `samples[rows * channels]` with rows `first_row .. first_row + rows - 1` of the
 *        dataset @p d describes: the same bytes as those rows of hist_generate()'s output, so that
 *        processes that each make only their own rows (day 07's ranks) count the same data.
 * @return HIST_OK or HIST_ERR_USAGE (invalid parameters, rows outside the dataset).
 * @param d the dataset (its shape is the whole dataset's)
 * @param first_row the first row to make
 * @param rows how many rows
 * @param samples `rows * channels` samples to fill (`bits / 8` bytes each)
 */
hist_status hist_generate_rows(const hist_dataset *d, uint64_t first_row, uint64_t rows,
                               uint8_t *samples);

/**
 * @brief Refuse, before allocating, host memory this machine does not have: @p bytes against the
 *        memory it has available now (MemAvailable of /proc/meminfo: free plus reclaimable; the
 *        physical memory where that cannot be read). Linux would otherwise grant the allocation
 *        and end the program when the pages are touched.
 * @param bytes how many bytes are about to be allocated
 * @param what what they are for, e.g. "the samples" (for the message)
 * @return HIST_OK, or HIST_ERR_NOMEM with both sizes in the message
 */
hist_status hist_host_memory_check(uint64_t bytes, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* HIST_DATA_H */
