/**
 * @file wide.cu
 * @brief Day 08: when the histogram does not fit. 16-bit samples, up to 65,536 bins a channel:
 *        256 KiB of 32-bit counters for one channel, more than any GPU's shared memory per block.
 *        Steps 1-4, and the lesson's registry (its last lines).
 *
 * Every GPU step walks the input with wide_walk() (wide_walk.cuh) and differs only in where it
 * counts. A line a step: its entry, its kernel, what changed, the command that runs it.
 *
 *  0. `cpu_wide16` (cpu_wide.c, no kernel): the CPU's histogram, each thread its own counters,
 *     then their sum: `./build/day08_wide --preset u16 --impl cpu_wide16`
 *  1. `gpu_global16`, global_kernel(): one global atomic per sample, straight into the output
 *     (L2 serves them): `./build/day08_wide --preset u16 --impl gpu_global16`
 *  2. `gpu_copies16`, global_kernel() then sum_copies_kernel(): the same atomics into a few
 *     copies of the histogram that L2 holds, blocks spread over them, then their sum:
 *     `./build/day08_wide --preset u16 --impl gpu_copies16`
 *  3. `gpu_passes16`, passes_kernel(): the counters in shared memory, a slice a pass, the input
 *     read once per slice: `./build/day08_wide --preset u16 --impl gpu_passes16`
 *  4. `gpu_packed16`, packed_kernel(): step 3 with 16-bit counters two to a word, made exact
 *     (packed_add(), packed.cuh): 65,536 bins in 128 KiB, one pass on an H100 or an A100:
 *     `./build/day08_wide --preset u16 --impl gpu_packed16`
 *  5. `gpu_wide`, wide_kernel() then sum_partials_kernel() (wide_final.cu): step 4 with its plan
 * from the GPU's limits, a lean loop, and equal samples summed in a register (wide_count.cuh):
 *     `./build/day08_wide --preset u16 --impl gpu_wide`
 *
 * CUB's `DeviceHistogram::HistogramEven` (`gpu_cub16`, cub16.cu) is the library call beside them.
 */
#include <stdio.h>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu_limits.h"
#include "packed.cuh"
#include "wide.h"
#include "wide_map.cuh"
#include "wide_walk.cuh"

/** @brief Threads per block of the global-memory steps (1, 2). */
#define GLOBAL_THREADS 256
/** @brief Blocks per SM of the global-memory steps. */
#define GLOBAL_BLOCKS_PER_SM 8
/** @brief At most this many histogram copies in global memory (step 2). */
#define MAX_COPIES 32
/** @brief Threads per block of step 2's sum of the copies. */
#define SUM_COPIES_THREADS 256
/** @brief Blocks per SM of step 2's sum of the copies (a grid-stride loop over the counters). */
#define SUM_COPIES_BLOCKS_PER_SM 4

/** @brief What every GPU step refuses (day08_not_16_bit()).
 *  @param p the problem @param dev the GPU (unused) @return the reason, or NULL */
static const char *unsupported_any(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return day08_not_16_bit(p);
}

/* ---- step 1: one global atomic per sample ---- */

/** @brief Step 1's counter: every sample straight into the output with a global atomic. */
struct global_count {
    wide_map m;        /**< the binning */
    uint32_t channels; /**< channels per row */
    uint32_t *out;     /**< the histogram it adds to (the output, or step 2's copy) */
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int b = wide_bin(v, m);
        if (b >= 0)
            atomicAdd(&out[flat_counter(c, b, m)], 1u);
    }
    /** @brief eight samples @param c the first's channel @param w the word */
    __device__ void word(uint32_t c, uint4 w) {
        uint32_t v[8];
        wide_unpack(w, v);
#pragma unroll
        for (int k = 0; k < 8; ++k, c = next_channel(c, channels))
            one(c, v[k]);
    }
};

/**
 * @brief Step 1: one global atomic per sample (step 2: into copy `blockIdx.x % copies`).
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param hist the output, zeroed (step 2: @p copies copies of it, zeroed)
 * @param copies how many copies @p hist holds (1: the output itself)
 */
__global__ void __launch_bounds__(GLOBAL_THREADS)
    global_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                  uint32_t *hist, uint32_t copies) {
    global_count count = {m, channels, hist + (uint64_t)(blockIdx.x % copies) * channels * m.bins};
    wide_walk(samples, n, channels, count);
}

static dim3 global_grid(const hist_device *dev) {
    return dim3(dev->sm_count * GLOBAL_BLOCKS_PER_SM);
}

static hist_status run_global(const hist_args *a) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    return hist_launch(a->device, global_kernel, global_grid(a->device), GLOBAL_THREADS, 0, 0,
                       "global_kernel", a->samples, hist_samples(p), p->channels,
                       wide_map_of(p->binning), a->hist, 1u);
}

/* ---- step 2: copies in global memory that L2 holds ---- */

/** @brief Step 2's copies: as many as fit in half the L2, at most MAX_COPIES, at least 1. */
static uint32_t copies_for(const hist_problem *p, const hist_device *dev) {
    const uint64_t bytes = hist_counters(p) * sizeof(uint32_t);
    uint64_t copies = bytes > 0 ? dev->l2_bytes / 2 / bytes : MAX_COPIES;
    copies = copies < 1 ? 1 : copies > MAX_COPIES ? MAX_COPIES : copies;
    return (uint32_t)copies;
}

static size_t workspace_copies(const hist_problem *p, const hist_device *dev) {
    return dev ? (size_t)copies_for(p, dev) * hist_counters(p) * sizeof(uint32_t) : 0;
}

/**
 * @brief Step 2's second kernel: the output is the sum of the copies.
 * @param copies_base the copies, `[copies][counters]` @param copies how many
 * @param counters counters of one @param out the output
 */
__global__ void sum_copies_kernel(const uint32_t *__restrict__ copies_base, uint32_t copies,
                                  uint64_t counters, uint32_t *__restrict__ out) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < counters;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t sum = 0;
        for (uint32_t k = 0; k < copies; ++k)
            sum += copies_base[k * counters + i];
        out[i] = sum;
    }
}

static const char *describe_copies(const hist_problem *p, const hist_device *dev) {
    static char text[160];
    snprintf(text, sizeof text,
             "%u copies of the histogram in global memory (%.1f MiB; L2 %.0f MiB)",
             copies_for(p, dev), workspace_copies(p, dev) / 1048576.0, dev->l2_bytes / 1048576.0);
    return text;
}

static hist_status run_copies(const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint32_t copies = copies_for(p, a->device);
    const uint64_t counters = hist_counters(p);
    uint32_t *ws = (uint32_t *)a->workspace;
    HIST_CUDA_TRY(cudaMemsetAsync(ws, 0, copies * counters * sizeof(uint32_t)));
    if (p->rows > 0) {
        hist_status s = hist_launch(
            a->device, global_kernel, global_grid(a->device), GLOBAL_THREADS, 0, 0, "global_kernel",
            a->samples, hist_samples(p), p->channels, wide_map_of(p->binning), ws, copies);
        if (s != HIST_OK)
            return s;
    }
    return hist_launch(a->device, sum_copies_kernel,
                       dim3(a->device->sm_count * SUM_COPIES_BLOCKS_PER_SM), SUM_COPIES_THREADS, 0,
                       0, "sum_copies_kernel", ws, copies, counters, a->hist);
}

/* ---- steps 3 and 4: a slice of the counters in shared memory, one pass per slice ---- */

/** @brief How a problem's counters are cut into slices that fit a block (steps 3 and 4). */
typedef struct slice_plan {
    uint32_t slice;    /**< counters of a slice (the last may be shorter) */
    uint32_t passes;   /**< slices: the input is read once for each */
    size_t smem_bytes; /**< shared memory a block needs for one slice */
    uint32_t blocks;   /**< blocks of one pass (gridDim.x) */
} slice_plan;

/** @brief The slices of @p p on @p dev with @p bytes_per_counter bytes a counter (4, or 2 packed),
 *  a block holding at most @p most bytes of them, at most @p cap blocks a pass (0: no cap; the
 *  call's hist_args.caps.blocks). */
static slice_plan slices_for(const hist_problem *p, const hist_device *dev,
                             uint32_t bytes_per_counter, size_t most, uint32_t cap) {
    slice_plan plan;
    const uint64_t counters = hist_counters(p);
    uint64_t fit = most / 4 * 4 / bytes_per_counter; /* whole words of counters */
    const uint64_t passes = (counters + fit - 1) / fit;
    uint64_t slice = (counters + passes - 1) / passes; /* passes of equal size */
    slice += slice % 2;                                /* whole words when packed */
    plan.slice = (uint32_t)slice;
    plan.passes = (uint32_t)passes;
    plan.smem_bytes = (size_t)((slice * bytes_per_counter + 3) / 4 * 4);
    const int per_sm = hist_blocks_per_sm(dev, WIDE_THREADS, plan.smem_bytes);
    plan.blocks = (uint32_t)(dev->sm_count * (per_sm > 0 ? per_sm : 1));
    if (cap > 0 && cap < plan.blocks)
        plan.blocks = cap;
    return plan;
}

/** @brief The most shared memory a block of the slice steps may hold. */
static size_t block_budget(const hist_device *dev) {
    return dev->smem_per_block_optin;
}

/** @brief Step 3's counter: 32-bit shared counters of this pass's slice. */
struct slice_count32 {
    wide_map m;        /**< the binning */
    uint32_t channels; /**< channels per row */
    uint32_t first;    /**< the slice's first counter */
    uint32_t size;     /**< its counters */
    uint32_t *s_hist;  /**< the block's shared counters */
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first; /* wraps below the slice */
        if (b >= 0 && f < size)
            atomicAdd(&s_hist[f], 1u);
    }
    /** @brief eight samples @param c the first's channel @param w the word */
    __device__ void word(uint32_t c, uint4 w) {
        uint32_t v[8];
        wide_unpack(w, v);
#pragma unroll
        for (int k = 0; k < 8; ++k, c = next_channel(c, channels))
            one(c, v[k]);
    }
};

/**
 * @brief Step 3: the block counts pass `blockIdx.y`'s slice of the counters in 32-bit shared
 *        counters, then adds the non-zero ones to the output.
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param slice counters of a slice @param out the output, zeroed
 */
__global__ void __launch_bounds__(WIDE_THREADS, 1)
    passes_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                  uint32_t slice, uint32_t *out) {
    extern __shared__ uint32_t s_hist[];
    const uint32_t counters = channels * m.bins, first = blockIdx.y * slice;
    const uint32_t size = min(slice, counters - first);
    for (uint32_t k = threadIdx.x; k < size; k += blockDim.x)
        s_hist[k] = 0;
    __syncthreads();
    slice_count32 count = {m, channels, first, size, s_hist};
    wide_walk(samples, n, channels, count);
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < size; k += blockDim.x)
        if (s_hist[k])
            atomicAdd(&out[first + k], s_hist[k]);
}

/** @brief Step 4's counter: packed 16-bit shared counters of this pass's slice, exact. */
struct slice_count16 {
    wide_map m;        /**< the binning */
    uint32_t channels; /**< channels per row */
    uint32_t first;    /**< the slice's first counter */
    uint32_t size;     /**< its counters */
    uint32_t *words;   /**< the block's packed counters */
    uint32_t *spill;   /**< the output at the slice's first counter */
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first;
        if (b >= 0 && f < size)
            packed_add(words, f, 1u, spill, size);
    }
    /** @brief eight samples @param c the first's channel @param w the word */
    __device__ void word(uint32_t c, uint4 w) {
        uint32_t v[8];
        wide_unpack(w, v);
#pragma unroll
        for (int k = 0; k < 8; ++k, c = next_channel(c, channels))
            one(c, v[k]);
    }
};

/**
 * @brief Add a block's packed counters (both halves of each word) to the output.
 * @param words the packed counters @param size how many counters @param out the output there
 */
__device__ __forceinline__ void flush_packed(const uint32_t *words, uint32_t size, uint32_t *out) {
    for (uint32_t j = threadIdx.x; j < (size + 1) / 2; j += blockDim.x) {
        const uint32_t w = words[j];
        if (w & 0xFFFFu)
            atomicAdd(&out[2 * j], w & 0xFFFFu);
        if ((w >> 16) && 2 * j + 1 < size)
            atomicAdd(&out[2 * j + 1], w >> 16);
    }
}

/**
 * @brief Step 4: step 3 with 16-bit counters packed two to a word (packed_add()): twice the
 *        counters in the same shared memory, so half the passes.
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param slice counters of a slice (even) @param out the output, zeroed
 */
__global__ void __launch_bounds__(WIDE_THREADS, 1)
    packed_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                  uint32_t slice, uint32_t *out) {
    extern __shared__ uint32_t words[];
    const uint32_t counters = channels * m.bins, first = blockIdx.y * slice;
    const uint32_t size = min(slice, counters - first);
    for (uint32_t j = threadIdx.x; j < (size + 1) / 2; j += blockDim.x)
        words[j] = 0;
    __syncthreads();
    slice_count16 count = {m, channels, first, size, words, out + first};
    wide_walk(samples, n, channels, count);
    __syncthreads();
    flush_packed(words, size, out + first);
}

static const char *describe_slices(const char *what, const hist_problem *p, const slice_plan &s) {
    static char text[200];
    snprintf(text, sizeof text,
             "%s: %u pass%s of %u counters (%zu bytes of shared memory), %u blocks of %d threads",
             what, s.passes, s.passes == 1 ? "" : "es", s.slice, s.smem_bytes, s.blocks,
             WIDE_THREADS);
    (void)p;
    return text;
}

static const char *describe_passes(const hist_problem *p, const hist_device *dev) {
    return describe_slices("32-bit counters", p, slices_for(p, dev, 4, block_budget(dev), 0));
}

static const char *describe_packed(const hist_problem *p, const hist_device *dev) {
    return describe_slices("16-bit counters, two a word", p,
                           slices_for(p, dev, 2, block_budget(dev), 0));
}

static hist_status launch_slices(const hist_args *a,
                                 void (*kernel)(const uint8_t *, uint64_t, uint32_t, wide_map,
                                                uint32_t, uint32_t *),
                                 const char *name, uint32_t bytes_per_counter) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const slice_plan s =
        slices_for(p, a->device, bytes_per_counter, block_budget(a->device), a->caps.blocks);
    return hist_launch(a->device, kernel, dim3(s.blocks, s.passes), WIDE_THREADS, s.smem_bytes, 0,
                       name, a->samples, hist_samples(p), p->channels, wide_map_of(p->binning),
                       s.slice, a->hist);
}

static hist_status run_passes(const hist_args *a) {
    return launch_slices(a, passes_kernel, "passes_kernel", 4);
}

extern "C" hist_status day08_packed16_run(const hist_args *a) {
    return launch_slices(a, packed_kernel, "packed_kernel", 2);
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day08);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day08_impls[] = {
    {
        .name = "cpu_wide16",
        .where = HIST_HOST,
        .summary = "each thread counts its rows into its own counters, then their sum (--threads)",
        .constraints = "16-bit samples or bytes, any shape and binning",
        .run = day08_cpu_wide16_run,
        /* timed on the main preset's bytes against cpu_reference, per thread, as day 01's
           cpu_private (the same design, without its padding): half its speed per thread */
        .target = 0.5,
        .samples16 = 1,
    },
    {
        .name = "gpu_cub16",
        .where = HIST_DEVICE,
        .summary = "CUB DeviceHistogram::HistogramEven on the 16-bit samples (the library call)",
        .constraints = "16-bit samples, one channel, equal bins",
        .unsupported = day08_cub16_unsupported,
        .workspace_bytes = day08_cub16_workspace,
        .run = day08_cub16_run,
        .library = 1,
        .samples16 = 1,
    },
    {
        .name = "gpu_global16",
        .where = HIST_DEVICE,
        .summary = "16-bit samples: one global atomic per sample, into the output",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .run = run_global,
        .samples16 = 1,
    },
    {
        .name = "gpu_copies16",
        .where = HIST_DEVICE,
        .summary = "global atomics into copies of the histogram that L2 holds, then their sum",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .workspace_bytes = workspace_copies,
        .run = run_copies,
        .plan = describe_copies,
        .samples16 = 1,
    },
    {
        .name = "gpu_passes16",
        .where = HIST_DEVICE,
        .summary =
            "bin-range passes: a slice of 32-bit counters in shared memory, one read a slice",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .run = run_passes,
        .plan = describe_passes,
        .samples16 = 1,
    },
    {
        .name = "gpu_packed16",
        .where = HIST_DEVICE,
        .summary =
            "16-bit shared counters two a word, exact (wraps booked from what atomics return)",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .run = day08_packed16_run,
        .plan = describe_packed,
        .samples16 = 1,
    },
    {
        .name = "gpu_wide",
        .where = HIST_DEVICE,
        .summary = "the final kernel: packed counters in a block or in passes, runs summed in "
                   "registers",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .workspace_bytes = day08_wide_workspace,
        .run = day08_wide_run,
        .target = 0.85,
        .plan = day08_wide_plan,
        .samples16 = 1,
    },
};

/** @brief How many entries day08_impls holds. */
const size_t day08_impl_count = sizeof day08_impls / sizeof day08_impls[0];
