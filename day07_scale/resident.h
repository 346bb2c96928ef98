/**
 * @file resident.h
 * @brief Day 07's data already on the GPUs (pipeline.cu, for `make gpus`): each GPU counts the
 *        rows it holds, then the histograms are summed so that every GPU holds the sum; the rows
 *        split over the GPUs (strong scaling) or each GPU its own dataset (weak scaling).
 */
#ifndef DAY07_RESIDENT_H
#define DAY07_RESIDENT_H

#include <stdint.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief GPUs the data-on-the-GPUs case drives at most (pipeline.cu's limit). */
#define DAY07_GPUS_MAX 16

/** @brief Where one call's time went, GPU by GPU (day07_gpus_resident() fills it when asked). */
typedef struct day07_phases {
    double
        queued_us[DAY07_GPUS_MAX];  /**< host clock, from the call's start: GPU g's count queued */
    double done_us[DAY07_GPUS_MAX]; /**< host clock, from the call's start: GPU g seen done */
    float count_us[DAY07_GPUS_MAX]; /**< GPU g's clock (events): its count */
    float sum_us[DAY07_GPUS_MAX];   /**< GPU g's clock: its sum after its count, waits included */
} day07_phases;

/** @brief One call of the data-on-the-GPUs case. */
typedef struct day07_resident {
    int n;                           /**< GPUs 0 .. n-1 */
    const uint8_t *const *d_samples; /**< GPU g's rows, in GPU g's memory */
    const hist_problem *shares; /**< GPU g's shape: rows may differ, channels and binning not */
    int peer;                   /**< 1: the peer add; 0: ncclAllReduce */
    uint32_t *h_hist;           /**< if not NULL: receives the sum (GPU 0's), in host memory */
    day07_phases *phases;       /**< if not NULL: where the call's time went */
} day07_resident;

/**
 * @brief For `make gpus` (gpus.cu): GPU g counts `shares[g]` at `d_samples[g]` into its own
 *        histogram, then the histograms are summed so that every GPU holds the sum (where, as in
 *        XGBoost's `gpu_hist`, the next step would use it), by the peer add or NCCL's
 *        all-reduce; the call returns when every GPU is done. One host thread per GPU queues
 *        that GPU's work and waits for it (the caller's thread drives GPU 0), so that every GPU
 *        starts at once.
 * @param first GPU 0, as the program opened it (the others are opened alike)
 * @param r the call
 * @return HIST_OK, the CUDA or NCCL error, or HIST_ERR_UNSUPPORTED (NCCL not built, or no peer
 *         access between two of the GPUs)
 */
hist_status day07_gpus_resident(const hist_device *first, const day07_resident *r);

/**
 * @brief The rows of @p whole split over @p n GPUs: GPU g gets rows `[first[g], first[g] +
 *        shares[g].rows)`, nearly equal shares (hist_share(): the first `rows % n` one row more),
 *        each with @p whole's channels and binning. Step 5 and `make gpus`' strong scaling both
 *        cut the rows this way; the shares' histograms sum to the whole's.
 * @param whole the rows to split
 * @param n how many GPUs, 1 .. DAY07_GPUS_MAX
 * @param shares receives @p n shapes
 * @param first receives each share's first row
 */
void day07_split_rows(const hist_problem *whole, int n, hist_problem *shares, uint64_t *first);

#ifdef __cplusplus
}
#endif

#endif /* DAY07_RESIDENT_H */
