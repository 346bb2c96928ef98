/**
 * @file wide_final.cu
 * @brief Day 08, step 5: the final kernel, `gpu_wide` (wide.cu lists every step).
 *
 *  5. `gpu_wide`, wide_kernel() then sum_partials_kernel(): step 4's packed counters with three
 *     changes: the plan from the GPU's limits, a lean loop, equal samples summed in a register
 *     (wide_count.cuh): `./build/day08_wide --preset u16 --impl gpu_wide`
 *
 * The counters are packed 16-bit ones (step 4, packed_add()): one block holds the whole
 * histogram where it fits (65,536 bins: 128 KiB, an H100's or an A100's block), else slices of
 * it, the input read once a slice (an RTX 4090 or a T4: 2 passes). Each block leaves its packed
 * counters as they are in a workspace that L2 holds, and a second kernel adds them up: no global
 * atomic per counter and block.
 */
#include <stdio.h>

#include "cuda_check.h"
#include "device.cuh"
#include "wide.h"
#include "wide_count.cuh"
#include "wide_map.cuh"
#include "wide_walk.cuh"

/** @brief The final kernel's plan for one problem on one GPU. */
typedef struct wide_plan {
    uint32_t per_block; /**< counters a block holds (whole 16-byte words: a multiple of 8) */
    uint32_t passes;    /**< passes over the input */
    size_t smem_bytes;  /**< shared memory a block */
    uint32_t blocks;    /**< blocks of one pass */
} wide_plan;

/** @brief Counters of a block's share in whole 16-byte words of packed counters. */
#define WIDE_COUNTER_GROUP 8

/**
 * @brief The plan: packed counters (2 bytes each), in one pass where they fit a block's shared
 *        memory, else in passes of equal slices; as many blocks of WIDE_THREADS as are resident,
 *        at most @p cap a pass (0: no cap; the call's hist_args.caps.blocks).
 * @param p the problem @param dev the GPU @param cap the cap @return the plan
 */
static wide_plan wide_plan_for(const hist_problem *p, const hist_device *dev, uint32_t cap) {
    wide_plan w;
    const uint64_t counters = hist_counters(p);
    const uint64_t fit =
        dev->smem_per_block_optin / 2 / WIDE_COUNTER_GROUP * WIDE_COUNTER_GROUP; /* a block */
    w.passes = (uint32_t)((counters + fit - 1) / fit);
    uint64_t per_block = (counters + w.passes - 1) / w.passes; /* passes of equal size */
    per_block = (per_block + WIDE_COUNTER_GROUP - 1) / WIDE_COUNTER_GROUP * WIDE_COUNTER_GROUP;
    w.per_block = (uint32_t)per_block;
    w.smem_bytes = (size_t)per_block * 2;
    const int per_sm = hist_blocks_per_sm(dev, WIDE_THREADS, w.smem_bytes);
    w.blocks = (uint32_t)(dev->sm_count * (per_sm > 0 ? per_sm : 1));
    if (cap > 0 && cap < w.blocks)
        w.blocks = cap;
    return w;
}

/**
 * @brief Step 5: the final kernel (FULL: one channel, 65,536 bins of one value, one pass). Pass
 *        `blockIdx.y`'s counters live packed in the block: zero,
 *        barrier, count, barrier, then the block's counters go as they are to its
 *        place in the partials (sum_partials_kernel() adds them up).
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param per_block counters a block holds (a multiple of 8) @param out the output, zeroed (the
 * wraps' spills go there)
 * @param partials where each block leaves its counters (`[passes][blocks][per_block / 2]` words)
 */
template <bool FULL>
__global__ void __launch_bounds__(WIDE_THREADS, 1)
    wide_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                uint32_t per_block, uint32_t *out, uint32_t *partials) {
    extern __shared__ uint32_t words[];
    const uint32_t counters = channels * m.bins, first = blockIdx.y * per_block;
    const uint32_t size = min(per_block, counters - first);
    for (uint32_t j = threadIdx.x; j < per_block / 2; j += blockDim.x)
        words[j] = 0;
    if (FULL)
        wide_own[threadIdx.x] = 0;
    __syncthreads(); /* every counter zero before anyone adds */
    wide_count<FULL, FULL> count = {m, channels, first, size, words, out + first, -1, 0};
    wide_walk(samples, n, channels, count);
    count.flush();   /* what is left in the register counter */
    __syncthreads(); /* every add landed before the counters are read */
    /* the counters as they are, to this block's place in the partials (one global atomic per
       counter and block would be 8.6 million on an H100) */
    uint4 *mine =
        (uint4 *)(partials + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * (per_block / 2));
    for (uint32_t j = threadIdx.x; j < per_block / 8; j += blockDim.x)
        mine[j] = ((const uint4 *)words)[j];
}

/** @brief Blocks' partials a thread of sum_partials_kernel() adds up, a tuning constant of the
 *  kernel (no GPU's figure): the grid has a row of threads for every 17 blocks (blockIdx.y), so
 *  that the sum of a word over B blocks takes ceil(B / 17) threads, each a short loop and one
 *  atomic a counter (B = the SMs in a plan of one block per SM: 8 threads for 132 SMs). */
#define PARTIALS_PER_THREAD 17
/** @brief Threads per block of sum_partials_kernel(): a word (two counters) each. */
#define PARTIALS_THREADS 256

/**
 * @brief The output plus every block's partial counters: `out[g] += sum over the blocks that
 *        hold counter g` (the output holds the wraps' spills already).
 * @param partials the blocks' packed counters, `[passes][blocks][per_block / 2]` words
 * @param blocks blocks a pass @param per_block counters a block holds @param counters counters
 * of the output @param out the output
 */
__global__ void sum_partials_kernel(const uint32_t *__restrict__ partials, uint32_t blocks,
                                    uint32_t per_block, uint32_t counters, uint32_t *out) {
    const uint32_t word = blockIdx.x * blockDim.x + threadIdx.x; /* a word: two counters */
    const uint32_t g = 2 * word;
    if (g >= counters)
        return;
    const uint32_t pass = g / per_block, local = g % per_block;
    uint32_t lo = 0, hi = 0;
    const uint32_t first = blockIdx.y * PARTIALS_PER_THREAD;
    const uint32_t last = min(first + PARTIALS_PER_THREAD, blocks);
#pragma unroll 4
    for (uint32_t block = first; block < last; ++block) {
        const uint32_t w = partials[((size_t)pass * blocks + block) * (per_block / 2) + local / 2];
        lo += w & 0xFFFFu;
        hi += w >> 16;
    }
    if (lo)
        atomicAdd(&out[g], lo);
    if (hi && g + 1 < counters)
        atomicAdd(&out[g + 1], hi);
}

/* The one launch of sum_partials_kernel(): wide.h documents it (day 09's exchange calls it). */
extern "C" hist_status day08_sum_partials(const hist_device *dev, const uint32_t *partials,
                                          uint32_t blocks, uint32_t per_block, uint32_t counters,
                                          uint32_t *out) {
    const uint32_t words = (counters + 1) / 2; /* a thread a word */
    const dim3 grid((words + PARTIALS_THREADS - 1) / PARTIALS_THREADS,
                    (blocks + PARTIALS_PER_THREAD - 1) / PARTIALS_PER_THREAD);
    return hist_launch(dev, sum_partials_kernel, grid, PARTIALS_THREADS, 0, 0,
                       "sum_partials_kernel", partials, blocks, per_block, counters, out);
}

extern "C" const char *day08_wide_plan(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const wide_plan w = wide_plan_for(p, dev, 0);
    snprintf(text, sizeof text,
             "16-bit counters, two a word: %u pass%s of %u counters (%zu bytes of shared memory), "
             "%u blocks of %u threads",
             w.passes, w.passes == 1 ? "" : "es", w.per_block, w.smem_bytes, w.blocks,
             WIDE_THREADS);
    return text;
}

extern "C" size_t day08_wide_workspace(const hist_problem *p, const hist_device *dev) {
    if (!dev)
        return 0;
    const wide_plan w = wide_plan_for(p, dev, 0);
    return (size_t)w.passes * w.blocks * (w.per_block / 2) * sizeof(uint32_t);
}

extern "C" hist_status day08_wide_run(const hist_args *a) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const wide_plan w = wide_plan_for(p, a->device, a->caps.blocks);
    uint32_t *partials = (uint32_t *)a->workspace;
    const hist_binning b = p->binning;
    const bool full =
        p->channels == 1 && b.lo == 0 && b.hi == 65535 && b.width == 1 && w.passes == 1;
    hist_status s = hist_launch(a->device, full ? wide_kernel<true> : wide_kernel<false>,
                                dim3(w.blocks, w.passes), WIDE_THREADS, w.smem_bytes, 0,
                                "wide_kernel", a->samples, hist_samples(p), p->channels,
                                wide_map_of(p->binning), w.per_block, a->hist, partials);
    if (s != HIST_OK)
        return s;
    return day08_sum_partials(a->device, partials, w.blocks, w.per_block,
                              (uint32_t)hist_counters(p), a->hist);
}
