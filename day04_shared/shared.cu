/**
 * @file shared.cu
 * @brief Day 04: shared-memory privatization with channel tiling (the 1-D lesson's kernel,
 * generalised).
 *
 * Blocks are tiled over (channel group, row chunk). A group holds as many channels as fit in
 * the shared memory the device gives a block, so its `[group, bins]` histogram lives on chip:
 * zero -> barrier -> shared atomics -> barrier -> flush of the non-zero counters with global
 * atomics.
 *
 *  1. `gpu_shared`: one shared atomic per sample.
 *  2. `gpu_shared_aggregate`: PMPP's aggregation: a thread counts a run of equal bins in a
 *     register and issues one atomic per run.
 */
#include <stdio.h>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu_limits.h"

/** @brief Threads per block. */
#define SHARED_THREADS 512
/** @brief Blocks the shared-memory budget leaves room for on one SM (3 x 64 KiB fit Hopper's
 *  228 KiB). */
#define SHARED_BLOCKS_PER_SM 3
/** @brief Waves of blocks over the GPU: enough row chunks that the last wave's tail is short. */
#define SHARED_WAVES 4
/** @brief Rows each thread loads before it counts them: independent loads in flight. */
#define ROWS_IN_FLIGHT 8

/** @brief The tiling of one problem on one device. */
typedef struct shared_plan {
    uint32_t group;      /**< channels per block */
    uint32_t groups;     /**< channel groups (gridDim.x) */
    uint32_t chunks;     /**< row chunks (gridDim.y) */
    uint64_t chunk_rows; /**< rows per chunk */
    size_t smem_bytes;   /**< group * bins counters */
} shared_plan;

static shared_plan plan_for(const hist_problem *p, const hist_device *dev) {
    const uint32_t bins = hist_bins(p->binning);
    /* channels whose counters fit the per-block budget; above 32, a power of two */
    const size_t budget = dev->smem_per_sm / SHARED_BLOCKS_PER_SM - 1024; /* 1 KiB: per block */
    uint32_t fit = (uint32_t)(budget / (bins * sizeof(uint32_t)));
    if (fit >= 32) {
        uint32_t pow2 = 32;
        while (pow2 * 2 <= fit && pow2 * 2 <= SHARED_THREADS)
            pow2 *= 2;
        fit = pow2;
    }
    shared_plan plan;
    plan.group = p->channels < fit ? p->channels : fit;
    plan.groups = (p->channels + plan.group - 1) / plan.group;
    plan.smem_bytes = (size_t)plan.group * bins * sizeof(uint32_t);
    const uint64_t target = (uint64_t)dev->sm_count * SHARED_BLOCKS_PER_SM * SHARED_WAVES;
    const hist_row_split split = hist_split_rows(p->rows, (target + plan.groups - 1) / plan.groups);
    plan.chunk_rows = split.chunk_rows;
    plan.chunks = (uint32_t)split.chunks;
    return plan;
}

/** @brief The plan on @p dev in one line (the registry's `plan`): how many channels a block's
 *  shared histogram holds, from the GPU's shared memory per SM.
 * @param p the problem @param dev the GPU @return the text (a static buffer) */
static const char *describe_plan(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const shared_plan plan = plan_for(p, dev);
    const int blocks = hist_blocks_per_sm(dev, SHARED_THREADS, plan.smem_bytes);
    snprintf(text, sizeof text,
             "%u channels per block (%zu bytes of shared memory for %u bins), %d threads, %d "
             "block%s per SM",
             plan.group, plan.smem_bytes, hist_bins(p->binning), SHARED_THREADS, blocks,
             blocks == 1 ? "" : "s");
    return text;
}

/* ---- the counting loop both kernels share: who reads which sample ---- */

/* Threads of a block cover `lanes` consecutive channels of `rows_per_step` rows at once, so a
 * warp reads consecutive bytes of one row: coalesced. */
/** @brief Which channels and rows a block counts, and which of them this thread reads. */
struct tile {
    uint32_t c0;             /**< first channel of the block */
    uint32_t group_channels; /**< channels of the block (the last group may be partial) */
    uint64_t r0;             /**< first row of the chunk */
    uint64_t r1;             /**< one past its last row */
    uint32_t lanes;          /**< consecutive channels a pass covers */
    uint32_t rows_per_step;  /**< rows a pass covers */
    uint32_t lane;           /**< this thread's channel in the pass */
    uint32_t row_offset;     /**< this thread's row in the pass */
};

/**
 * @brief The tile of this block and this thread's place in it.
 * @param channels channels per row
 * @param group channels per block
 * @param rows rows
 * @param chunk_rows rows per block
 * @return the tile
 */
__device__ __forceinline__ tile tile_of_block(uint32_t channels, uint32_t group, uint64_t rows,
                                              uint64_t chunk_rows) {
    tile t;
    t.c0 = blockIdx.x * group;
    t.group_channels = min(group, channels - t.c0); /* the last group may be partial */
    t.r0 = blockIdx.y * chunk_rows;
    t.r1 = min(t.r0 + chunk_rows, rows);
    t.lanes = min(t.group_channels, blockDim.x);
    t.rows_per_step = blockDim.x / t.lanes;
    t.lane = threadIdx.x % t.lanes;
    t.row_offset = threadIdx.x / t.lanes;
    return t;
}

/**
 * @brief Zero @p n shared counters, then a barrier.
 * @param s_hist the block's shared counters
 * @param n how many
 */
__device__ __forceinline__ void zero_shared(uint32_t *s_hist, uint32_t n) {
    // SOLUTION zero_shared [gpu_shared gpu_shared_aggregate]: the block's threads set the n
    //   counters to 0 together (thread t takes t, t + blockDim.x, ...); then no thread may count
    //   before every counter is zero.
    // stub: (void)s_hist, (void)n;
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x)
        s_hist[k] = 0;
    __syncthreads(); /* every counter zeroed before any thread counts */
    // END SOLUTION
}

/**
 * @brief A barrier, then one global atomic per non-zero shared counter.
 * @param s_hist the block's shared counters
 * @param n how many
 * @param d_hist_group the output of the block's first channel
 */
__device__ __forceinline__ void flush_shared(const uint32_t *s_hist, uint32_t n,
                                             uint32_t *d_hist_group) {
    // SOLUTION flush_shared [gpu_shared gpu_shared_aggregate]: once every thread of the block is
    //   done counting, add each non-zero shared counter k into d_hist_group[k] with one global
    //   atomic (other blocks add into the same counters).
    // stub: (void)s_hist, (void)n, (void)d_hist_group;
    __syncthreads(); /* every thread done counting before the counters are read */
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x)
        if (s_hist[k] > 0)
            atomicAdd(&d_hist_group[k], s_hist[k]);
    // END SOLUTION
}

/* ---- counting a tile: one shared atomic per sample, or per run of equal bins ---- */

/**
 * @brief Extend the current run of equal bins, or close it with one atomic and start another.
 * @param bin this sample's bin, or -1 (not counted)
 * @param run_bin the bin of the current run, or -1
 * @param run_length its length
 * @param s_channel this thread's channel's shared counters
 */
__device__ __forceinline__ void aggregate(int bin, int &run_bin, uint32_t &run_length,
                                          uint32_t *s_channel) {
    // SOLUTION aggregate [gpu_shared_aggregate]: PMPP's aggregation. The same bin as the run:
    //   the run grows by one, no atomic. Another bin: add the run so far with one shared
    //   atomicAdd (if there is one: run_bin >= 0), and start a run of length 1 at bin.
    // stub: (void)bin, (void)run_bin, (void)run_length, (void)s_channel;
    if (bin == run_bin) {
        ++run_length;
        return;
    }
    if (run_bin >= 0)
        atomicAdd(&s_channel[run_bin], run_length);
    run_bin = bin;
    run_length = 1;
    // END SOLUTION
}

/**
 * @brief Count one sample's bin: a shared atomic (kernel 1), or PMPP's aggregation (kernel 2).
 * @param bin the sample's bin, or -1 (not counted)
 * @param run_bin AGGREGATE: the bin of the current run, or -1
 * @param run_length AGGREGATE: its length
 * @param s_channel this thread's channel's shared counters
 */
template <bool AGGREGATE>
__device__ __forceinline__ void count_bin(int bin, int &run_bin, uint32_t &run_length,
                                          uint32_t *s_channel) {
    if (AGGREGATE)
        aggregate(bin, run_bin, run_length, s_channel);
    else if (bin >= 0)
        atomicAdd(&s_channel[bin], 1u);
}

/**
 * @brief This thread's share of the block's tile: its channels, down its rows, every sample's bin
 *        counted by count_bin(); with AGGREGATE, the run left open at the end of a channel added.
 * @param d_samples the input, row-major `[rows][channels]`
 * @param channels channels per row
 * @param bins bins per channel
 * @param map the binning
 * @param t the block's tile and this thread's place in it
 * @param s_hist the block's `[group][bins]` shared histogram, zeroed
 */
template <bool AGGREGATE>
__device__ __forceinline__ void shared_count(const uint8_t *__restrict__ d_samples,
                                             uint32_t channels, uint32_t bins, hist_bin_map map,
                                             const tile &t, uint32_t *s_hist) {
    // SOLUTION shared_count [gpu_shared gpu_shared_aggregate]: the count. Threads with
    //   t.row_offset >= t.rows_per_step have no rows: they return. This thread takes channels
    //   ch = t.lane, t.lane + t.lanes, ... (< t.group_channels); for each, with
    //   s_channel = s_hist + ch * bins (that channel's shared counters) and no run yet
    //   (int run_bin = -1, uint32_t run_length = 0), it walks rows r = t.r0 + t.row_offset,
    //   + t.rows_per_step, ... (< t.r1) of byte d_samples[r * channels + t.c0 + ch]. While
    //   ROWS_IN_FLIGHT rows remain, load them all into `uint8_t v[ROWS_IN_FLIGHT]` (a fixed
    //   array, its loops under #pragma unroll, so that it stays in registers), then call
    //   count_bin<AGGREGATE>(hist_bin_of(v[k], map), run_bin, run_length, s_channel) for each;
    //   then the rows left over, one at a time. With AGGREGATE, if run_bin >= 0 when the
    //   channel ends, add the open run: atomicAdd(&s_channel[run_bin], run_length).
    //   Example (a block of 256 threads, 32 channels, t.lanes = 32, t.rows_per_step = 8):
    //   thread 37 has t.lane = 5, t.row_offset = 1: channel t.c0 + 5, rows t.r0 + 1, t.r0 + 9, ...
    // stub: (void)d_samples, (void)channels, (void)bins, (void)map, (void)t, (void)s_hist;
    if (t.row_offset >= t.rows_per_step)
        return;
    const uint64_t step = t.rows_per_step;
    for (uint32_t ch = t.lane; ch < t.group_channels; ch += t.lanes) {
        const uint8_t *column = d_samples + t.c0 + ch;
        uint32_t *s_channel = s_hist + ch * bins;
        int run_bin = -1; /* no run yet (and samples outside [lo, hi] are never flushed) */
        uint32_t run_length = 0;
        uint64_t r = t.r0 + t.row_offset;
        for (; r + (ROWS_IN_FLIGHT - 1) * step < t.r1; r += ROWS_IN_FLIGHT * step) {
            uint8_t v[ROWS_IN_FLIGHT];
#pragma unroll
            for (int k = 0; k < ROWS_IN_FLIGHT; ++k) /* all loads first, then the atomics */
                v[k] = column[(r + k * step) * channels];
#pragma unroll
            for (int k = 0; k < ROWS_IN_FLIGHT; ++k)
                count_bin<AGGREGATE>(hist_bin_of(v[k], map), run_bin, run_length, s_channel);
        }
        for (; r < t.r1; r += step)
            count_bin<AGGREGATE>(hist_bin_of(column[r * channels], map), run_bin, run_length,
                                 s_channel);
        if (AGGREGATE && run_bin >= 0)
            atomicAdd(&s_channel[run_bin], run_length);
    }
    // END SOLUTION
}

/**
 * @brief Kernel 1: one shared atomic per sample into the block's `[group][bins]` histogram.
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row
 * @param bins bins per channel
 * @param map the binning
 * @param group channels per block (its shared histogram is `[group][bins]`)
 * @param chunk_rows rows per block
 * @param d_hist the output `[channels][bins]`, zeroed before the launch
 * @par Launch
 * `plan_for()`: a grid of (channel groups, row chunks), SHARED_THREADS (512) threads,
 * `group * bins * 4` bytes of dynamic shared memory (opted in above 48 KiB), about
 * SHARED_BLOCKS_PER_SM blocks per SM; the output zeroed before.
 */
__global__ void shared_kernel(const uint8_t *__restrict__ d_samples, uint64_t rows,
                              uint32_t channels, uint32_t bins, hist_bin_map map, uint32_t group,
                              uint64_t chunk_rows, uint32_t *__restrict__ d_hist) {
    extern __shared__ uint32_t s_hist[]; /* [group][bins] */
    const tile t = tile_of_block(channels, group, rows, chunk_rows);
    zero_shared(s_hist, t.group_channels * bins);
    shared_count<false>(d_samples, channels, bins, map, t, s_hist);
    flush_shared(s_hist, t.group_channels * bins, d_hist + (size_t)t.c0 * bins);
}

/**
 * @brief Kernel 2: shared_kernel() with PMPP's aggregation, one shared atomic per run of equal
 *        bins.
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row
 * @param bins bins per channel
 * @param map the binning
 * @param group channels per block (its shared histogram is `[group][bins]`)
 * @param chunk_rows rows per block
 * @param d_hist the output `[channels][bins]`, zeroed before the launch
 * @par Launch
 * as shared_kernel().
 */
__global__ void shared_aggregate_kernel(const uint8_t *__restrict__ d_samples, uint64_t rows,
                                        uint32_t channels, uint32_t bins, hist_bin_map map,
                                        uint32_t group, uint64_t chunk_rows,
                                        uint32_t *__restrict__ d_hist) {
    extern __shared__ uint32_t s_hist[]; /* [group][bins] */
    const tile t = tile_of_block(channels, group, rows, chunk_rows);
    zero_shared(s_hist, t.group_channels * bins);
    shared_count<true>(d_samples, channels, bins, map, t, s_hist);
    flush_shared(s_hist, t.group_channels * bins, d_hist + (size_t)t.c0 * bins);
}

/* ---- host wrappers ---- */

/** @brief The signature both kernels share. */
typedef void (*shared_kernel_fn)(const uint8_t *, uint64_t, uint32_t, uint32_t, hist_bin_map,
                                 uint32_t, uint64_t, uint32_t *);

static hist_status launch(shared_kernel_fn kernel, const char *kernel_name, const hist_args *a) {
    const hist_problem *p = a->problem;
    const shared_plan plan = plan_for(p, a->device);
    if (plan.smem_bytes > a->device->smem_per_block_optin)
        return hist_fail(
            HIST_ERR_UNSUPPORTED,
            "day04: %zu bytes of shared memory per block needed, the device allows %zu",
            plan.smem_bytes, a->device->smem_per_block_optin);
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    /* above 48 KiB a kernel must opt in to more dynamic shared memory (hist_launch() does) */
    return hist_launch(a->device, kernel, dim3(plan.groups, plan.chunks), SHARED_THREADS,
                       plan.smem_bytes, 0, kernel_name, a->samples, p->rows, p->channels,
                       hist_bins(p->binning), hist_bin_map_of(p->binning), plan.group,
                       plan.chunk_rows, a->hist);
}

static hist_status run_shared(const hist_args *a) {
    return launch(shared_kernel, "shared_kernel", a);
}

static hist_status run_shared_aggregate(const hist_args *a) {
    return launch(shared_aggregate_kernel, "shared_aggregate_kernel", a);
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day04);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day04_impls[] = {
    {
        .name = "gpu_shared",
        .where = HIST_DEVICE,
        .summary = "channel groups in shared memory, one shared atomic per sample, non-zero flush",
        .constraints = "any shape and binning",
        .run = run_shared,
        .target = 0.21,
        .roof = HIST_ROOF_ATOMICS,
        .plan = describe_plan,
    },
    {
        .name = "gpu_shared_aggregate",
        .where = HIST_DEVICE,
        .summary = "as gpu_shared, one shared atomic per run of equal bins (PMPP aggregation)",
        .constraints = "any shape and binning",
        .run = run_shared_aggregate,
        .target = 0.17,
        .roof = HIST_ROOF_ATOMICS,
        .plan = describe_plan,
    },
};

/** @brief How many entries day04_impls holds. */
const size_t day04_impl_count = sizeof day04_impls / sizeof day04_impls[0];
