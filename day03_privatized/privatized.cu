/**
 * @file privatized.cu
 * @brief Day 03: block-private histograms in global memory, then a merge (the 1-D lesson,
 * PMPP 9.4).
 *
 * Every block owns a private `[channels, bins]` copy in the workspace, so its atomics only ever
 * compete with its own threads and stay in the L2. Two ways to merge the copies:
 *
 *  1. `gpu_private_atomics`: at the end of the same kernel, each block adds its non-zero
 *     counters into the output with global atomics (the 1-D lesson's kernel).
 *  2. `gpu_private_reduce`: a second kernel, one thread per counter, sums the copies and writes
 *     the output with plain stores (the two-phase shape day 05 builds on; days 05 and 06 call
 *     day03_sum_partials() again).
 */
#include "cuda_check.h"
#include "device.cuh"

/** @brief Threads per block of the counting kernel. */
#define PRIVATE_THREADS 1024
/** @brief The private copies together may take at most this much device memory. */
#define PRIVATE_MAX_WORKSPACE (UINT64_C(1) << 30)

/** @brief One block per private copy: one full wave (2 blocks of 1024 threads per SM, 264 on an
 *  H100), fewer if the copies would pass PRIVATE_MAX_WORKSPACE. */
static uint32_t private_copies(const hist_problem *p, const hist_device *dev) {
    const uint64_t wave = (uint64_t)dev->sm_count * (dev->max_threads_per_sm / PRIVATE_THREADS);
    const uint64_t fit = PRIVATE_MAX_WORKSPACE / (hist_counters(p) * sizeof(uint32_t));
    const uint64_t copies = wave < fit ? wave : fit;
    return copies > 0 ? (uint32_t)copies : 1;
}

static size_t private_workspace(const hist_problem *p, const hist_device *dev) {
    return (size_t)private_copies(p, dev) * hist_counters(p) * sizeof(uint32_t);
}

/* ---- counting into the block's own copy (and, for version 1, merging it) ---- */

/**
 * @brief Count into this block's private global copy; optionally merge it with global atomics.
 * @param d_samples the input, row-major `[rows][channels]`
 * @param n_samples `rows * channels`
 * @param channels channels per row
 * @param bins bins per channel
 * @param map the binning
 * @param d_private the private copies, one `[channels][bins]` per block, zeroed
 * @param d_hist the output, zeroed (used when @p merge_with_atomics)
 * @param merge_with_atomics 1: add this block's copy into @p d_hist at the end; 0: leave it for
 * sum_partials_kernel()
 * @par Launch
 * one block per private copy, `private_copies()` blocks (one wave, 2 x 132 on an H100) of
 * PRIVATE_THREADS (1024) threads, no shared memory (`run_private`); copies and output zeroed
 * before.
 */
__global__ void private_kernel(const uint8_t *__restrict__ d_samples, uint64_t n_samples,
                               uint32_t channels, uint32_t bins, hist_bin_map map,
                               uint32_t *__restrict__ d_private, uint32_t *__restrict__ d_hist,
                               bool merge_with_atomics) {
    // SOLUTION private_kernel [gpu_private_atomics gpu_private_reduce]: day 02's grid-stride
    //   loop, the atomics now into this block's own copy my_hist = d_private + blockIdx.x *
    //   counters (counters = channels * bins; the host zeroed the copies before the launch).
    // stub: (void)d_samples, (void)n_samples, (void)channels, (void)bins, (void)map;
    // stub: (void)d_private;
    const uint64_t counters = (uint64_t)channels * bins;
    uint32_t *my_hist = d_private + blockIdx.x * counters;

    /* the grid-stride loop of day 02, atomics now into this block's copy */
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t channel_step = (uint32_t)(stride % channels);
    uint32_t channel = (uint32_t)(i % channels);
    for (; i < n_samples; i += stride) {
        const int bin = hist_bin_of(d_samples[i], map);
        if (bin >= 0)
            atomicAdd(&my_hist[(size_t)channel * bins + bin], 1u);
        channel += channel_step;
        if (channel >= channels)
            channel -= channels;
    }
    // END SOLUTION
    if (!merge_with_atomics)
        return;

    // SOLUTION private_kernel [gpu_private_atomics]: the merge: once every thread of the block
    //   is done counting, the block's threads add each non-zero counter of my_hist into d_hist
    //   with a global atomic (read my_hist with __ldcg: the atomics left it in L2, not in L1).
    // stub: (void)d_hist;
    /* every thread of the block must be done counting before its copy is read */
    __syncthreads();
    for (uint64_t k = threadIdx.x; k < counters; k += blockDim.x) {
        const uint32_t count = __ldcg(&my_hist[k]); /* from L2, where the atomics landed */
        if (count > 0)
            atomicAdd(&d_hist[k], count);
    }
    // END SOLUTION
}

/* ---- version 2's merge: one thread per counter (days 05 and 06 call it again) ---- */

/** @brief Threads per block of sum_partials_kernel(). */
#define SUM_PARTIALS_THREADS 256

/**
 * @brief One thread per counter adds up @p copies partial histograms stored copy after copy
 *        (`d_partials[copy * counters + k]`) and stores the total in `d_hist[k]`. Neighbouring
 *        threads read neighbouring words, so every read is coalesced.
 * @param d_partials  `[copies][counters]` partial counts
 * @param copies      how many partial histograms
 * @param counters    counters per histogram (`channels * bins`)
 * @param d_hist      `[counters]` output, overwritten
 * @par Launch
 * SUM_PARTIALS_THREADS threads per block, `ceil(counters / SUM_PARTIALS_THREADS)` blocks
 * (day03_sum_partials()).
 */
__global__ void sum_partials_kernel(const uint32_t *__restrict__ d_partials, uint32_t copies,
                                    uint64_t counters, uint32_t *__restrict__ d_hist) {
    // SOLUTION sum_partials_kernel [gpu_private_reduce gpu_cs149 gpu_r6_v4_partials gpu_r6_v5_two_kernels]:
    //   version 2's merge (days 05 and 06 call it again): thread k of the grid, if k is a
    //   counter, adds d_partials[copy * counters + k] over every copy and stores the sum in
    //   d_hist[k] (plain stores: no atomics needed).
    // stub: (void)d_partials, (void)copies, (void)counters, (void)d_hist;
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= counters)
        return;
    uint32_t sum = 0;
#pragma unroll 4
    for (uint32_t copy = 0; copy < copies; ++copy)
        sum += d_partials[copy * counters + k];
    d_hist[k] = sum;
    // END SOLUTION
}

/**
 * @brief Queue sum_partials_kernel() on the default stream: the merge later lessons call
 *        (LESSON_USES day03_privatized, docs/LESSON_CONTRACT.md).
 * @param dev the GPU (the launch goes through hist_launch())
 * @param d_partials `[copies][counters]` partial counts
 * @param copies how many
 * @param counters counters per histogram
 * @param d_hist `[counters]` output, overwritten
 * @return HIST_OK or the launch error
 */
extern "C" hist_status day03_sum_partials(const hist_device *dev, const uint32_t *d_partials,
                                          uint32_t copies, uint64_t counters, uint32_t *d_hist) {
    if (counters == 0)
        return HIST_OK;
    return hist_launch(
        dev, sum_partials_kernel, dim3((unsigned)HIST_CEIL_DIV(counters, SUM_PARTIALS_THREADS)),
        SUM_PARTIALS_THREADS, 0, 0, "sum_partials_kernel", d_partials, copies, counters, d_hist);
}

/* ---- host wrappers ---- */

static hist_status count_privately(const hist_args *a, bool merge_with_atomics) {
    const hist_problem *p = a->problem;
    const uint32_t copies = private_copies(p, a->device);
    const uint64_t counters = hist_counters(p);
    uint32_t *d_private = (uint32_t *)a->workspace;
    /* the private copies start at zero: part of the cost, so inside the timed region */
    HIST_CUDA_TRY(cudaMemsetAsync(d_private, 0, private_workspace(p, a->device)));
    if (merge_with_atomics)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, counters * sizeof(uint32_t)));
    hist_status s = hist_launch(a->device, private_kernel, dim3(copies), PRIVATE_THREADS, 0, 0,
                                "private_kernel", a->samples, hist_samples(p), p->channels,
                                hist_bins(p->binning), hist_bin_map_of(p->binning), d_private,
                                a->hist, merge_with_atomics);
    if (s != HIST_OK)
        return s;
    /* version 2's merge: one thread per counter sums the copies */
    return merge_with_atomics ? HIST_OK
                              : day03_sum_partials(a->device, d_private, copies, counters, a->hist);
}

static hist_status run_private_atomics(const hist_args *a) {
    return count_privately(a, true);
}

static hist_status run_private_reduce(const hist_args *a) {
    return count_privately(a, false);
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day03);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day03_impls[] = {
    {
        .name = "gpu_private_atomics",
        .where = HIST_DEVICE,
        .summary =
            "a private global copy per block, merged with global atomics of the non-zero counters",
        .constraints = "any shape and binning; one copy per block, at most 1 GiB of copies",
        .workspace_bytes = private_workspace,
        .run = run_private_atomics,
        .target = 0.0026,
        .roof = HIST_ROOF_ATOMICS,
    },
    {
        .name = "gpu_private_reduce",
        .where = HIST_DEVICE,
        .summary = "a private global copy per block, summed by a second kernel (plain stores)",
        .constraints = "any shape and binning; one copy per block, at most 1 GiB of copies",
        .workspace_bytes = private_workspace,
        .run = run_private_reduce,
        .target = 0.0026,
        .roof = HIST_ROOF_ATOMICS,
    },
};

/** @brief How many entries day03_impls holds. */
const size_t day03_impl_count = sizeof day03_impls / sizeof day03_impls[0];
