/**
 * @file wide.cu
 * @brief Day 08: when the histogram does not fit. 16-bit samples, up to 65,536 bins a channel:
 *        256 KiB of 32-bit counters for one channel, more than any GPU's shared memory per block.
 *
 * Every kernel walks the input with wide_walk() (wide.cuh) and differs only in where it counts:
 *
 *  1. `gpu_global16`: one global atomic per sample, straight into the output (L2 serves them).
 *  2. `gpu_copies16`: privatization in global memory: a few copies of the histogram that L2
 *     holds, blocks spread over them, one more kernel to sum them.
 *  3. `gpu_passes16`: bin-range passes: each block owns the slice of counters that fits its
 *     shared memory; the input is read once per slice.
 *  4. `gpu_packed16`: 16-bit counters, two to a 32-bit word, made exact (packed_add()): 65,536
 *     bins in 128 KiB, one block on an H100 or an A100.
 *  5. `gpu_cluster2_16`, `gpu_cluster4_16`, `gpu_cluster8_16`: a thread-block cluster's blocks
 *     hold one histogram of 32-bit counters between them (distributed shared memory); each
 *     sample's atomic goes to the block that owns its bin (sm_90 and newer).
 *  5b. `gpu_exchange16` (exchange.cuh): clusters again, moving samples instead of atomics: with
 *     8 channels, block r of a cluster of 8 owns channel r, and the blocks hand each other their
 *     rows' samples in bulk, then count locally.
 *  6. `gpu_wide`: the final kernel (final.cuh): packed counters in one block where they fit, in
 *     passes otherwise; step 5b's exchange for 8 channels where clusters exist; equal samples
 *     summed in a register before they reach shared memory.
 */
#include <cooperative_groups.h>
#include <stdio.h>
#include <utility>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu_limits.h"
#include "wide.cuh"

namespace cg = cooperative_groups;

/** @brief Threads per block of the global-memory steps (1, 2). */
#define GLOBAL_THREADS 256
/** @brief Blocks per SM of the global-memory steps. */
#define GLOBAL_BLOCKS_PER_SM 8
/** @brief Threads per block of the shared-memory steps (3, 4, 6). */
#define WIDE_THREADS 1024
/** @brief At most this many histogram copies in global memory (step 2). */
#define MAX_COPIES 32
/** @brief Threads per block of step 2's sum of the copies. */
#define SUM_COPIES_THREADS 256
/** @brief Blocks per SM of step 2's sum of the copies (a grid-stride loop over the counters). */
#define SUM_COPIES_BLOCKS_PER_SM 4

/* ---- what every step refuses ---- */

static const char *not_16_bit(const hist_problem *p) {
    if (hist_sample_bits(p) != 16)
        return "16-bit samples only (run with --bits 16; days 02-07 count bytes)";
    if (hist_counters(p) > INT32_MAX)
        return "at most 2^31 counters (channels x bins), 8 GiB of output";
    return NULL;
}

static const char *unsupported_any(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return not_16_bit(p);
}

static const char *unsupported_cluster(const hist_problem *p, const hist_device *dev) {
    if (dev && dev->cc_major < 9)
        return HIST_NOT_ON_GPU "thread-block clusters need compute capability 9.0 (Hopper) or "
                               "newer";
    return not_16_bit(p);
}

/** @brief The counter of the output (`[channels][bins]`, at most 2^31 counters: the registry
 *  refuses more) a sample of channel @p c in bin @p b adds to.
 *  @param c the channel @param b the bin @param m the binning @return the counter */
__device__ __forceinline__ uint32_t flat_counter(uint32_t c, int b, wide_map m) {
    return c * m.bins + (uint32_t)b;
}

/** @brief The next channel after @p c, of @p channels.
 *  @param c a channel @param channels channels per row @return the next one */
__device__ __forceinline__ uint32_t next_channel(uint32_t c, uint32_t channels) {
    return c + 1 == channels ? 0 : c + 1;
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

/** @brief How a problem's counters are cut into slices that fit a block (steps 3, 4, 6). */
typedef struct slice_plan {
    uint32_t slice;    /**< counters of a slice (the last may be shorter) */
    uint32_t passes;   /**< slices: the input is read once for each */
    size_t smem_bytes; /**< shared memory a block needs for one slice */
    uint32_t blocks;   /**< blocks of one pass (gridDim.x) */
} slice_plan;

/** @brief The slices of @p p on @p dev with @p bytes_per_counter bytes a counter (4, or 2 packed),
 *  a block holding at most @p most bytes of them, at most @p cap blocks a pass (0: no cap; the
 *  call's hist_args.block_cap). */
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
        slices_for(p, a->device, bytes_per_counter, block_budget(a->device), a->block_cap);
    return hist_launch(a->device, kernel, dim3(s.blocks, s.passes), WIDE_THREADS, s.smem_bytes, 0,
                       name, a->samples, hist_samples(p), p->channels, wide_map_of(p->binning),
                       s.slice, a->hist);
}

static hist_status run_passes(const hist_args *a) {
    return launch_slices(a, passes_kernel, "passes_kernel", 4);
}

static hist_status run_packed(const hist_args *a) {
    return launch_slices(a, packed_kernel, "packed_kernel", 2);
}

/* ---- step 5: a cluster's blocks share one histogram ---- */

/** @brief Step 5's counter: 32-bit counters spread over the cluster's blocks; each sample's
 *  atomic goes to the block that owns its counter (distributed shared memory). */
struct cluster_count32 {
    wide_map m;         /**< the binning */
    uint32_t channels;  /**< channels per row */
    uint32_t first;     /**< the pass's first counter */
    uint32_t size;      /**< the pass's counters */
    uint32_t per_block; /**< counters each block holds */
    uint32_t *s_hist;   /**< this block's counters */
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
#if __CUDA_ARCH__ >= 900
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first;
        if (b >= 0 && f < size) {
            const wide_owner o = wide_owner_of(f, per_block);
            atomicAdd(cg::this_cluster().map_shared_rank(s_hist, o.rank) + o.local, 1u);
        }
#else
        (void)c, (void)v;
#endif
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
 * @brief Step 5: the cluster's blocks hold pass `blockIdx.y`'s counters between them, each
 *        `per_block` of them: zero, a cluster-wide barrier, count (mostly into other blocks'
 *        shared memory), a barrier, then each block adds its own non-zero counters to the output.
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param per_block counters a block holds @param out the output, zeroed
 */
__global__ void __launch_bounds__(WIDE_THREADS, 1)
    cluster_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                   uint32_t per_block, uint32_t *out) {
#if __CUDA_ARCH__ >= 900
    extern __shared__ uint32_t s_hist[];
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t counters = channels * m.bins;
    const uint32_t first = blockIdx.y * per_block * cluster.num_blocks();
    const uint32_t size = min(per_block * cluster.num_blocks(), counters - first);
    for (uint32_t k = threadIdx.x; k < per_block; k += blockDim.x)
        s_hist[k] = 0;
    cluster.sync(); /* every block's counters zero before any block adds to them */
    cluster_count32 count = {m, channels, first, size, per_block, s_hist};
    wide_walk(samples, n, channels, count);
    cluster.sync(); /* every add landed, in every block, before a block reads its own */
    const uint32_t mine = first + cluster.block_rank() * per_block;
    for (uint32_t k = threadIdx.x; k < per_block && mine + k < first + size; k += blockDim.x)
        if (s_hist[k])
            atomicAdd(&out[mine + k], s_hist[k]);
#else
    (void)samples, (void)n, (void)channels, (void)m, (void)per_block, (void)out;
    __trap(); /* unsupported_cluster() refuses GPUs without clusters */
#endif
}

/** @brief Step 5's plan: a cluster of @p size blocks, each holding at most its share of the
 *  shared memory; passes where the cluster's share is still too small. */
typedef struct cluster_plan {
    uint32_t size;      /**< blocks a cluster */
    uint32_t per_block; /**< counters a block holds */
    uint32_t passes;    /**< passes over the input */
    uint32_t threads;   /**< threads a block */
    size_t smem_bytes;  /**< shared memory a block */
    uint32_t blocks;    /**< blocks of one pass (a multiple of size) */
} cluster_plan;

/** @brief Step 5's plan for @p p on @p dev: clusters of @p size blocks, @p bytes_per_counter bytes
 * a counter in whole groups of @p align, at most @p cap clusters a pass (0: no cap; the call's
 *  hist_args.block_cap). */
static cluster_plan cluster_plan_for(const hist_problem *p, const hist_device *dev, uint32_t size,
                                     uint32_t bytes_per_counter, uint32_t align, uint32_t cap) {
    cluster_plan c;
    c.size = size;
    c.threads = WIDE_THREADS / (size > 2 ? size / 2 : 1); /* 1024, 512, 256 */
    const uint64_t counters = hist_counters(p);
    /* a block's share: the whole histogram over the cluster, within the block's budget (in
       whole groups of `align` counters); passes where even that is too small */
    const uint64_t fit = block_budget(dev) / bytes_per_counter / align * align;
    c.passes = (uint32_t)((counters + fit * size - 1) / (fit * size));
    uint64_t per_block = (counters + (uint64_t)c.passes * size - 1) / ((uint64_t)c.passes * size);
    per_block = (per_block + align - 1) / align * align;
    c.per_block = (uint32_t)per_block;
    c.smem_bytes = (size_t)per_block * bytes_per_counter;
    int per_sm = hist_blocks_per_sm(dev, (int)c.threads, c.smem_bytes);
    if (per_sm < 1)
        per_sm = 1;
    c.blocks = (uint32_t)(dev->sm_count * per_sm) / size * size;
    if (cap > 0 && cap * size < c.blocks)
        c.blocks = cap * size;
    return c;
}

/** @brief Launch @p kernel in clusters of @p c.size blocks (hist_launch_cluster()), no more
 *  clusters than can be resident at once; *@p launched (if not NULL) receives the blocks of the
 *  grid's row launched (@p c.blocks, or fewer). */
template <typename... Params, typename... Args>
static hist_status launch_clusters(const hist_device *dev, void (*kernel)(Params...),
                                   const cluster_plan &c, const char *name, uint32_t *launched,
                                   Args... args) {
    /* no more clusters than can be resident at once: a second wave would read its data late */
    int active = 0;
    hist_status s = hist_cluster_occupancy(dev, (const void *)kernel, (int)c.threads, c.smem_bytes,
                                           c.size, &active);
    if (s != HIST_OK)
        return s;
    uint32_t blocks = c.blocks;
    if (active > 0 && (uint32_t)active * c.size < blocks)
        blocks = (uint32_t)active * c.size;
    if (launched)
        *launched = blocks;
    return hist_launch_cluster(dev, kernel, dim3(blocks, c.passes), (int)c.threads, c.smem_bytes, 0,
                               c.size, name, args...);
}

template <uint32_t SIZE>
static const char *describe_cluster(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const cluster_plan c = cluster_plan_for(p, dev, SIZE, 4, 1, 0);
    snprintf(text, sizeof text,
             "clusters of %u blocks of %u threads, %u 32-bit counters (%zu bytes) a block, %u "
             "pass%s, %u blocks",
             c.size, c.threads, c.per_block, c.smem_bytes, c.passes, c.passes == 1 ? "" : "es",
             c.blocks);
    return text;
}

template <uint32_t SIZE> static hist_status run_cluster(const hist_args *a) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const cluster_plan c = cluster_plan_for(p, a->device, SIZE, 4, 1, a->block_cap);
    return launch_clusters(a->device, cluster_kernel, c, "cluster_kernel", NULL, a->samples,
                           hist_samples(p), p->channels, wide_map_of(p->binning), c.per_block,
                           a->hist);
}

#include "final.cuh"

/* step 5b counts with the final kernel's counter, so it comes after it */
#include "exchange.cuh"

/* CUB's call (cub16.cu, documented there), the baseline */
extern "C" const char *day08_cub16_unsupported(const hist_problem *p, const hist_device *dev);
extern "C" size_t day08_cub16_workspace(const hist_problem *p, const hist_device *dev);
extern "C" hist_status day08_cub16_run(const hist_args *a);

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day08);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day08_impls[] = {
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
        .run = run_packed,
        .plan = describe_packed,
        .samples16 = 1,
    },
    {
        .name = "gpu_cluster2_16",
        .where = HIST_DEVICE,
        .summary = "a cluster of 2 blocks holds the histogram (distributed shared memory)",
        .constraints = "16-bit samples, any shape and binning; compute capability 9.0 or newer",
        .unsupported = unsupported_cluster,
        .run = run_cluster<2>,
        .plan = describe_cluster<2>,
        .samples16 = 1,
    },
    {
        .name = "gpu_cluster4_16",
        .where = HIST_DEVICE,
        .summary = "the same, a cluster of 4 blocks",
        .constraints = "16-bit samples, any shape and binning; compute capability 9.0 or newer",
        .unsupported = unsupported_cluster,
        .run = run_cluster<4>,
        .plan = describe_cluster<4>,
        .samples16 = 1,
    },
    {
        .name = "gpu_cluster8_16",
        .where = HIST_DEVICE,
        .summary = "the same, a cluster of 8 blocks",
        .constraints = "16-bit samples, any shape and binning; compute capability 9.0 or newer",
        .unsupported = unsupported_cluster,
        .run = run_cluster<8>,
        .plan = describe_cluster<8>,
        .samples16 = 1,
    },
    {
        .name = "gpu_exchange16",
        .where = HIST_DEVICE,
        .summary = "a cluster of 8 blocks, a channel each: samples moved in bulk, counted locally",
        .constraints = "16-bit samples, 8 channels, bins a multiple of 8; compute capability 9.0 "
                       "or newer",
        .unsupported = exchange_unsupported,
        .workspace_bytes = workspace_exchange,
        .run = run_exchange,
        .plan = describe_exchange,
        .samples16 = 1,
    },
    {
        .name = "gpu_wide",
        .where = HIST_DEVICE,
        .summary = "the final kernel: packed counters in a block or in passes (8 channels: step "
                   "5b), runs summed in registers",
        .constraints = "16-bit samples, any shape and binning",
        .unsupported = unsupported_any,
        .workspace_bytes = workspace_wide,
        .run = run_wide,
        .target = 0.85,
        .plan = describe_wide,
        .samples16 = 1,
    },
};

/** @brief How many entries day08_impls holds. */
const size_t day08_impl_count = sizeof day08_impls / sizeof day08_impls[0];
