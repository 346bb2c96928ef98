/**
 * @file add.h
 * @brief Day 07's sum of histograms across GPUs without a library (pipeline.cu): one kernel on
 *        the GPU that holds the sum reads every histogram where it lies, its peers' over NVLink,
 *        and may first wait for the peers to say their counts are done (ranks.cu's peer path).
 */
#ifndef DAY07_ADD_H
#define DAY07_ADD_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Histograms day07_add_histograms() sums at most. */
#define DAY07_ADD_MAX 16

/** @brief What the sum waits for, and what it tells: first, this GPU's count being done (the
 *  kernel runs behind it) is said at every `tell` word (each on a GPU that waits for this one);
 *  then the kernel waits until `flags[g] >= seq` for every input g but `self`, each written by
 *  that input's GPU (its own sum kernel's `tell`, or day07_signal()) after its count. */
typedef struct day07_wait {
    const uint32_t *flags;         /**< one word per input, on the summing GPU; NULL: no waiting */
    int self;                      /**< the input that is this GPU's own (not waited for) */
    uint32_t seq;                  /**< this sum's number (1, 2, ...: every sum a new one) */
    uint32_t *late;                /**< set to g if input g's flag did not come within 10 s */
    uint32_t *tell[DAY07_ADD_MAX]; /**< where to say "counted": a word on each waiting GPU */
    int n_tell;                    /**< how many of them */
} day07_wait;

hist_status day07_add_histograms(const hist_device *dev, uint32_t *out,
                                 const uint32_t *const *hists, int n, uint64_t counters,
                                 const day07_wait *wait, cudaStream_t stream);
hist_status day07_signal(const hist_device *dev, uint32_t *flag, uint32_t seq, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
