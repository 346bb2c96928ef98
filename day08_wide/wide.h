/**
 * @file wide.h
 * @brief Day 08's host functions, by the file that defines them, for the registry (wide.cu): C
 *        linkage, so that C and CUDA files share them (and day 09 calls the two it names).
 */
#ifndef DAY08_WIDE_H
#define DAY08_WIDE_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief What every 16-bit GPU step of days 08 and 09 refuses: bytes, and more counters than a
 *        32-bit index reaches.
 * @param p the problem
 * @return the reason, or NULL
 */
static inline const char *day08_not_16_bit(const hist_problem *p) {
    if (hist_sample_bits(p) != 16)
        return "16-bit samples only (run with --bits 16; days 02-07 count bytes)";
    if (hist_counters(p) > INT32_MAX)
        return "at most 2^31 counters (channels x bins), 8 GiB of output";
    return NULL;
}

/* cpu_wide.c: the CPU's histogram of 16-bit samples (and bytes), `cpu_wide16` */

/** @brief `cpu_wide16`. @param a the call's arguments (host memory) @return HIST_OK or why not */
hist_status day08_cpu_wide16_run(const hist_args *a);

/* cub16.cu: CUB's DeviceHistogram::HistogramEven, `gpu_cub16` */

/* (documented where they are defined) */
const char *day08_cub16_unsupported(const hist_problem *p, const hist_device *dev);
size_t day08_cub16_workspace(const hist_problem *p, const hist_device *dev);
hist_status day08_cub16_run(const hist_args *a);

/* wide.cu: steps 1-4 (their host functions are the file's own), and step 4 by name */

/**
 * @brief `gpu_packed16` (step 4): 16-bit counters packed two to a word in a block's shared
 *        memory, in passes where they do not fit one block; day 09's exchange takes it on inputs
 *        that do not start on 16 bytes.
 * @param a the call's arguments (the output is zeroed first) @return HIST_OK or the CUDA error
 */
hist_status day08_packed16_run(const hist_args *a);

/* wide_final.cu: the final kernel, `gpu_wide`, and its sum of the blocks' packed partials */

/** @brief `gpu_wide`'s plan on @p dev. @param p the problem @param dev the GPU
 *  @return one line */
const char *day08_wide_plan(const hist_problem *p, const hist_device *dev);
/** @brief `gpu_wide`'s workspace: the blocks' packed partials. @param p the problem
 *  @param dev the GPU @return bytes */
size_t day08_wide_workspace(const hist_problem *p, const hist_device *dev);
/** @brief `gpu_wide`. @param a the call's arguments @return HIST_OK or the CUDA error */
hist_status day08_wide_run(const hist_args *a);

/**
 * @brief Queue the sum of the blocks' packed partial counters on the default stream:
 *        `out[g] += both 16-bit halves of every block's word that holds counter g` (the output
 *        holds the wraps' spills already). The final kernel's second kernel, and day 09's
 *        exchange's.
 * @param dev the GPU
 * @param partials the blocks' packed counters, `[passes][blocks][per_block / 2]` words (device)
 * @param blocks blocks a pass
 * @param per_block counters a block holds (even)
 * @param counters counters of the output
 * @param out the output (device)
 * @return HIST_OK or the launch error
 */
hist_status day08_sum_partials(const hist_device *dev, const uint32_t *partials, uint32_t blocks,
                               uint32_t per_block, uint32_t counters, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* DAY08_WIDE_H */
