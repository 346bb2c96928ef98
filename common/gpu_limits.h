/**
 * @file gpu_limits.h
 * @brief The published limits of the GPUs the course serves, and emulating them: `--gpu-limits
 *        NAME` (every program) and `GPU_LIMITS=NAME` (make) cap what the harness reports of the
 *        present GPU to a named GPU's figures, so that the plan a kernel chooses for that GPU runs,
 *        for real, on the GPU we have.
 *
 * What is capped: compute capability, multiprocessors (unless kept), shared memory per block
 * (opt-in) and per SM, the shared memory reserved per block, resident threads per SM, L2 size and
 * device memory. A limit can only be lowered: naming a GPU whose shared memory or threads per SM
 * exceed the present GPU's is refused. The multiprocessors, L2 and memory are taken as the smaller
 * of the two (the header says when the named GPU has more), and the L2 flush before every timed
 * repetition always flushes the real L2. Plain C: the which-GPU page is made from this table on a
 * machine without a GPU.
 */
#ifndef HIST_GPU_LIMITS_H
#define HIST_GPU_LIMITS_H

#include <stdio.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One GPU's published figures (each row of the table names its sources). */
typedef struct hist_gpu_limits {
    const char *name;               /**< what `--gpu-limits` takes, e.g. "t4" */
    const char *gpu;                /**< the product, e.g. "NVIDIA T4" */
    int cc_major;                   /**< compute capability, major */
    int cc_minor;                   /**< compute capability, minor */
    int sm_count;                   /**< multiprocessors */
    size_t smem_per_sm;             /**< shared memory per SM, bytes */
    size_t smem_per_block_optin;    /**< shared memory a block may opt in to, bytes */
    size_t smem_reserved_per_block; /**< shared memory the driver keeps per resident block */
    int max_threads_per_sm;         /**< resident threads per SM */
    size_t l2_bytes;                /**< L2 cache */
    size_t global_bytes;            /**< device memory */
    double bandwidth_gb_s;          /**< memory bandwidth, GB/s (the datasheet's; not emulated) */
    const char *source;             /**< where the per-product figures come from */
} hist_gpu_limits;

/** @brief Where every per-compute-capability figure comes from (shared memory, threads). */
#define HIST_LIMITS_CC_SOURCE                                                                      \
    "CUDA C++ Programming Guide, Compute Capabilities: Technical Specifications per Compute "      \
    "Capability (shared memory per SM and per block, threads per SM); the reserved 1 KB per "      \
    "block from the same guide's Shared Memory sections (cc 8.0 and later)"

/**
 * @brief The table, in the order the course lists GPUs (T4 to B200).
 * @param count receives the number of rows
 * @return the rows
 */
const hist_gpu_limits *hist_gpu_limits_table(size_t *count);

/**
 * @brief A row of the table by name.
 * @param name e.g. "t4", "rtx4090"
 * @return the row, or NULL
 */
const hist_gpu_limits *hist_gpu_limits_find(const char *name);

/**
 * @brief Print the table (`--gpu-limits list`).
 * @param f where to
 */
void hist_gpu_limits_print(FILE *f);

/**
 * @brief The emulation a name asks for: `--gpu-limits NAME` (cli.c) or `GPU_LIMITS=NAME`.
 * @param what the option or variable the name came from, for the message
 * @param name a row's name, or NULL / "" / "none" for the real GPU
 * @param keep_sms 1: keep the present GPU's multiprocessors (for benchmarks of a plan)
 * @param out receives the emulation
 * @return HIST_OK, or HIST_ERR_USAGE naming the GPUs the table has
 */
hist_status hist_emulation_named(const char *what, const char *name, int keep_sms,
                                 hist_emulation *out);

/**
 * @brief The emulation make's `GPU_LIMITS=NAME` asks for: the environment's `HIST_GPU_LIMITS`
 *        (and `HIST_GPU_KEEP_SMS=1`). The one place that reads them: the command line's default
 *        (cli.c) and the tests' device (tests/test_util.c) come from here.
 * @param out receives the emulation
 * @return HIST_OK, or HIST_ERR_USAGE when the variable names no GPU of the table
 */
hist_status hist_emulation_from_env(hist_emulation *out);

/**
 * @brief Cap @p dev (as read from the GPU) to @p l: its name becomes "<name> limited to <row>"
 *        (and " (N SMs kept)"), so every header, CSV and results file says so; @p dev keeps the
 *        emulation it was capped by.
 * @param dev the present GPU's figures, changed in place
 * @param l the row
 * @param keep_sms 1: keep the present GPU's multiprocessors
 * @return HIST_OK, or HIST_ERR_USAGE when @p l has more shared memory or threads per SM than the
 *         present GPU (a limit can only be lowered)
 */
hist_status hist_device_limit(hist_device *dev, const hist_gpu_limits *l, int keep_sms);

/**
 * @brief A device described by a row alone, as if present (the which-GPU page's plans).
 * @param l the row
 * @param dev filled in
 */
void hist_device_of_limits(const hist_gpu_limits *l, hist_device *dev);

/**
 * @brief Blocks of @p threads threads and @p smem bytes of shared memory that fit on one SM of
 *        @p dev (its reported, possibly emulated, limits).
 * @param dev the GPU
 * @param threads threads per block
 * @param smem shared memory per block (static and dynamic)
 * @return blocks per SM (0: not even one)
 */
static inline int hist_blocks_per_sm(const hist_device *dev, int threads, size_t smem) {
    const size_t per_block = smem + dev->smem_reserved_per_block;
    if (threads <= 0 || per_block > dev->smem_per_sm || threads > dev->max_threads_per_sm)
        return 0;
    const int by_smem = per_block > 0 ? (int)(dev->smem_per_sm / per_block) : 1 << 30;
    const int by_threads = dev->max_threads_per_sm / threads;
    return by_smem < by_threads ? by_smem : by_threads;
}

/**
 * @brief The dynamic shared memory to launch with so that no more blocks share an SM of the real
 *        GPU than hist_blocks_per_sm() allows on @p dev: @p smem itself on a real GPU, padded
 *        under emulation (a T4 holds one block of 1,024 threads per SM; an H100 would hold two).
 *        The kernel must be allowed that much (cudaFuncAttributeMaxDynamicSharedMemorySize).
 * @param dev the GPU
 * @param threads threads per block
 * @param smem the dynamic shared memory the block needs
 * @return the dynamic shared memory to ask for
 */
static inline size_t hist_launch_smem(const hist_device *dev, int threads, size_t smem) {
    const int want = hist_blocks_per_sm(dev, threads, smem);
    if (!dev->limited_to[0] || want == 0 || dev->real_max_threads_per_sm / threads <= want)
        return smem;
    /* on the real GPU, blocks of this many bytes (its reserve only adds) fit at most `want` */
    const size_t padded = dev->real_smem_per_sm / (size_t)(want + 1) + 1;
    return padded > smem ? padded : smem;
}

#ifdef __cplusplus
}
#endif

#endif /* HIST_GPU_LIMITS_H */
