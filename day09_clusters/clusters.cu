/**
 * @file clusters.cu
 * @brief Day 09: thread-block clusters and distributed shared memory. A cluster's blocks hold one
 *        histogram between them (step 1), then move samples to each other instead (step 2);
 *        compute capability 9.0 (Hopper) or newer. The lesson's registry is the file's last lines.
 *
 * A line a step: its entries, its kernel, what changed, the command that runs it.
 *
 *  1. `gpu_cluster2_16`, `gpu_cluster4_16`, `gpu_cluster8_16`, cluster_kernel(): the CUDA
 *     Programming Guide's cluster histogram: a grid-stride loop over the samples, the counters
 *     spread over the shared memory of a cluster of 2, 4 or 8 blocks (chosen at launch), each
 *     sample's atomicAdd sent to the block that owns its counter:
 *     `./build/day09_clusters --preset u16 --impl gpu_cluster2_16,gpu_cluster4_16,gpu_cluster8_16`
 *  2. `gpu_exchange16`, exchange_kernel() then day 08's sum_partials_kernel(): 8 channels, a
 *     cluster of 8, block r counting channel r; samples moved between the blocks with `st.async`
 *     into three buffers each, counted locally with day 08's final counter (exchange.cuh):
 *     `./build/day09_clusters --preset u16x8 --impl gpu_exchange16`
 */
#include <cooperative_groups.h>
#include <stdio.h>

#include "../day08_wide/wide_count.cuh"
#include "../day08_wide/wide_map.cuh"
#include "../day08_wide/wide_walk.cuh"
#include "cuda_check.h"
#include "device.cuh"
#include "exchange.cuh"

namespace cg = cooperative_groups;

/** @brief Day 08's sum of the blocks' packed partials (day08_wide/wide_final.cu; LESSON_USES
 *  day08_wide): `out[g] +=` both halves of every block's word that holds counter g. */
extern "C" hist_status day08_sum_partials(const hist_device *dev, const uint32_t *partials,
                                          uint32_t blocks, uint32_t per_block, uint32_t counters,
                                          uint32_t *out);
/** @brief Day 08's step 4, `gpu_packed16` (day08_wide/wide.cu): the exchange's plan for inputs
 *  that do not start on 16 bytes. */
extern "C" hist_status day08_packed16_run(const hist_args *a);

/** @brief Threads per block of step 1 in a cluster of 2 (half as many in a cluster of 4, a
 *  quarter in one of 8: each block then holds a smaller share of the counters). */
#define CLUSTER_THREADS 1024

/* ---- what every step refuses ---- */

/** @brief Clusters need compute capability 9.0; the samples must be 16 bits (the steps count
 *  with day 08's bin map). @param p the problem @param dev the GPU (NULL: any)
 *  @return the reason, or NULL */
static const char *unsupported_cluster(const hist_problem *p, const hist_device *dev) {
    if (dev && dev->cc_major < 9) /* first: the tests skip what no problem can run here */
        return HIST_NOT_ON_GPU "thread-block clusters need compute capability 9.0 (Hopper) or "
                               "newer";
    if (hist_sample_bits(p) != 16)
        return "16-bit samples only (run with --bits 16; days 02-07 count bytes)";
    if (hist_counters(p) > INT32_MAX)
        return "at most 2^31 counters (channels x bins), 8 GiB of output";
    return NULL;
}

/* ---- step 1: a cluster's blocks hold one histogram between them ---- */

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* clusters: compute capability 9.0 on */
/**
 * @brief Add 1 to counter @p f of the cluster's histogram, in the block that owns it: block r of
 *        the cluster holds counters `r * per_block` .. `(r + 1) * per_block - 1` in its @p s_hist.
 * @param cluster this block's cluster @param s_hist this block's counters @param f the counter
 * @param per_block counters each block holds
 */
__device__ __forceinline__ void owner_add(cg::cluster_group &cluster, uint32_t *s_hist, uint32_t f,
                                          uint32_t per_block) {
    // SOLUTION owner_add [gpu_cluster2_16 gpu_cluster4_16 gpu_cluster8_16]: the remote atomic.
    //   Which block owns counter f, and where in its s_hist is it? Map s_hist to that block's
    //   shared memory with cluster.map_shared_rank(s_hist, owner) (a pointer like any other,
    //   into another SM), and atomicAdd 1 there.
    // stub: (void)cluster, (void)s_hist, (void)f, (void)per_block;
    atomicAdd(cluster.map_shared_rank(s_hist, f / per_block) + f % per_block, 1u);
    // END SOLUTION
}

/**
 * @brief The barrier between zeroing and counting: no thread may add to another block's counters
 *        before that block has zeroed them (and has started: its shared memory exists).
 * @param cluster this block's cluster
 */
__device__ __forceinline__ void counters_ready(cg::cluster_group &cluster) {
    // SOLUTION counters_ready [gpu_cluster2_16 gpu_cluster4_16 gpu_cluster8_16]: the first
    //   barrier. Every thread of the block has zeroed its share; which barrier makes every
    //   block's zeros visible to every thread of the cluster before any of them adds?
    // stub: (void)cluster;
    cluster.sync(); /* every block's counters zero before any block adds to them */
    // END SOLUTION
}

/**
 * @brief The barrier between counting and the flush: no block may read its counters before every
 *        add of every block has landed, nor leave while another may still add to its memory.
 * @param cluster this block's cluster
 */
__device__ __forceinline__ void adds_landed(cg::cluster_group &cluster) {
    // SOLUTION adds_landed [gpu_cluster2_16 gpu_cluster4_16 gpu_cluster8_16]: the second
    //   barrier. Which barrier makes every block's adds to this block's counters visible here,
    //   and keeps this block's shared memory alive until no block adds to it?
    // stub: (void)cluster;
    cluster.sync(); /* every add landed, in every block, before a block reads its own */
    // END SOLUTION
}
#endif

/**
 * @brief Step 1: the cluster's blocks hold pass `blockIdx.y`'s counters between them, each
 *        `per_block` of them: zero, a cluster barrier, count (mostly into other blocks' shared
 *        memory), a cluster barrier, then each block adds its own non-zero counters to the output.
 * @param samples the input, 16-bit little-endian samples @param n samples
 * @param channels channels per row @param m the binning
 * @param per_block counters a block holds @param out the output, zeroed
 */
__global__ void cluster_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels,
                               wide_map m, uint32_t per_block, uint32_t *out) {
#if __CUDA_ARCH__ >= 900
    extern __shared__ uint32_t s_hist[]; /* this block's share of the pass's counters */
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t held = per_block * cluster.num_blocks(); /* counters the cluster holds */
    const uint32_t first = blockIdx.y * held;               /* this pass's first counter */
    const uint32_t size = min(held, channels * m.bins - first);
    for (uint32_t k = threadIdx.x; k < per_block; k += blockDim.x)
        s_hist[k] = 0;
    counters_ready(cluster);
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const int b = wide_bin(samples[2 * i] | (uint32_t)samples[2 * i + 1] << 8, m);
        const uint32_t f = flat_counter((uint32_t)(i % channels), b, m) - first;
        if (b >= 0 && f < size) /* counted, and in this pass */
            owner_add(cluster, s_hist, f, per_block);
    }
    adds_landed(cluster);
    const uint32_t mine = first + cluster.block_rank() * per_block; /* this block's first */
    for (uint32_t k = threadIdx.x; k < per_block && mine + k < first + size; k += blockDim.x)
        if (s_hist[k])
            atomicAdd(&out[mine + k], s_hist[k]);
#else
    (void)samples, (void)n, (void)channels, (void)m, (void)per_block, (void)out;
    __trap(); /* unsupported_cluster() refuses GPUs without clusters */
#endif
}

/** @brief A plan in clusters: a cluster of `size` blocks, each holding at most its share of the
 *  shared memory; passes where the cluster's share is still too small. */
typedef struct cluster_plan {
    uint32_t size;      /**< blocks a cluster */
    uint32_t per_block; /**< counters a block holds */
    uint32_t passes;    /**< passes over the input */
    uint32_t threads;   /**< threads a block */
    size_t smem_bytes;  /**< shared memory a block */
    uint32_t blocks;    /**< blocks of one pass (a multiple of size) */
} cluster_plan;

/** @brief Step 1's plan for @p p on @p dev: clusters of @p size blocks of 32-bit counters, the
 *  whole histogram spread over the cluster within each block's budget, passes where even that is
 *  too small; as many blocks as are resident, at most @p cap clusters a pass (0: no cap; the
 *  call's hist_args.caps.blocks). */
static cluster_plan cluster_plan_for(const hist_problem *p, const hist_device *dev, uint32_t size,
                                     uint32_t cap) {
    cluster_plan c;
    c.size = size;
    c.threads = CLUSTER_THREADS / (size > 2 ? size / 2 : 1); /* 1024, 512, 256 */
    const uint64_t counters = hist_counters(p);
    const uint64_t fit = dev->smem_per_block_optin / sizeof(uint32_t); /* a block's counters */
    c.passes = (uint32_t)((counters + fit * size - 1) / (fit * size));
    c.per_block =
        (uint32_t)((counters + (uint64_t)c.passes * size - 1) / ((uint64_t)c.passes * size));
    c.smem_bytes = (size_t)c.per_block * sizeof(uint32_t);
    int per_sm = hist_blocks_per_sm(dev, (int)c.threads, c.smem_bytes);
    if (per_sm < 1)
        per_sm = 1;
    c.blocks = (uint32_t)(dev->sm_count * per_sm) / size * size;
    if (cap > 0 && cap * size < c.blocks)
        c.blocks = cap * size;
    return c;
}

//! [cluster_launch]
/** @brief Launch @p kernel in clusters of @p c.size blocks along the grid's row
 *  (hist_launch_cluster()), no more clusters than can be resident at once (a second wave would
 *  read its data late); *@p launched (if not NULL) receives the blocks of the row launched. */
template <typename... Params, typename... Args>
static hist_status launch_clusters(const hist_device *dev, void (*kernel)(Params...),
                                   const cluster_plan &c, const char *name, uint32_t *launched,
                                   Args... args) {
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
//! [cluster_launch]

template <uint32_t SIZE>
static const char *describe_cluster(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const cluster_plan c = cluster_plan_for(p, dev, SIZE, 0);
    snprintf(text, sizeof text,
             "clusters of %u blocks of %u threads, %u 32-bit counters (%zu bytes) a block, %u "
             "pass%s, %u blocks",
             c.size, c.threads, c.per_block, c.smem_bytes, c.passes, c.passes == 1 ? "" : "es",
             c.blocks);
    return text;
}

//! [cluster_run]
/** @brief Step 1 in clusters of SIZE blocks: the output zeroed, then one launch a pass row. */
template <uint32_t SIZE> static hist_status run_cluster(const hist_args *a) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const cluster_plan c = cluster_plan_for(p, a->device, SIZE, a->caps.blocks);
    return launch_clusters(a->device, cluster_kernel, c, "cluster_kernel", NULL, a->samples,
                           hist_samples(p), p->channels, wide_map_of(p->binning), c.per_block,
                           a->hist);
}
//! [cluster_run]

/* ---- step 2: the exchange, samples moved in bulk and counted locally ---- */

/**
 * @brief Step 2: clusters of 8 blocks, block r counting channel r. The cluster takes tiles of
 *        XCH_TILE_ROWS rows (tile q, q + clusters, ...), a round each. Round i's words go into
 *        buffer `i % 3` of every block with `st.async`, which completes on that buffer's
 *        mbarrier in the receiver; a block counts round i - 1's buffer once its mbarrier says it
 *        is full. The cluster barrier says when a buffer may be written again: a thread arrives
 *        once it has counted a round, and waits for the others after counting the next one, so
 *        that the barrier has a round to complete; round i + 1 writes the buffer of round i - 2.
 *        Each block's counters then go to the partials (pass = channel, block = cluster), which
 *        day 08's sum_partials_kernel() adds up; the rows after the last whole tile are counted
 *        by cluster 0, each block its channel.
 * @param rows the input, 8 channels of 16 bits a row, 16-byte aligned
 * @param n_rows rows
 * @param m the binning (bins a multiple of 8)
 * @param out the output, zeroed (the wraps' spills go there)
 * @param partials `[8 channels][clusters][bins / 2]` words
 */
template <bool FULL>
__global__ void __launch_bounds__(XCH_THREADS, 1)
    exchange_kernel(const uint4 *__restrict__ rows, uint64_t n_rows, wide_map m, uint32_t *out,
                    uint32_t *partials) {
#if __CUDA_ARCH__ >= 900
    extern __shared__ uint32_t words[]; /* the channel's packed counters, then the buffers */
    uint32_t *buf = words + m.bins / 2;
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t rank = cluster.block_rank();
    const uint32_t q = blockIdx.x / XCH_CHANNELS, clusters = gridDim.x / XCH_CHANNELS;
    for (uint32_t j = threadIdx.x; j < m.bins / 2; j += XCH_THREADS)
        words[j] = 0;
    if (FULL && threadIdx.x < WIDE_WARP)
        wide_spare[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        xch_init_barriers();
    cluster.sync(); /* every block's counters zero and mbarriers armed before anyone sends */
    wide_count<FULL> count = {m, 1, 0, m.bins, words, out + rank * m.bins, -1, 0};
    const uint64_t tiles = n_rows / XCH_TILE_ROWS;
    const uint32_t place = rank * XCH_THREADS + threadIdx.x; /* this thread's, in a buffer */
    const uint32_t bars = (uint32_t)__cvta_generic_to_shared(xch_full);
    exchange_pipe pipe = {rows,
                          q * (uint64_t)XCH_TILE_ROWS + place * XCH_ROWS,
                          (uint64_t)clusters * XCH_TILE_ROWS,
                          tiles > q ? (tiles - q - 1) / clusters + 1 : 0,
                          bars,
                          (uint32_t)__cvta_generic_to_shared(buf + place) - bars};
#pragma unroll
    for (uint32_t c = 0; c < XCH_CHANNELS; ++c) /* its buffers lie as far from them as ours */
        pipe.to[c] = hist_ptx_mapa(pipe.bars, c);
    pipe.load(0, pipe.now);
    pipe.load(1, pipe.next);
    //! [exchange_round]
    for (uint64_t i = 0; i < pipe.rounds; ++i) {
        pipe.send(i); /* into buffer i % 3, whose round i - 3 every block has counted */
        if (i > 0) {
            pipe.receive(i - 1, buf, count); /* wait for round i - 1's words, count them */
            xch_wait_counted();              /* every thread has counted round i - 2 */
        }
        xch_counted(); /* this thread has counted round i - 1 */
    }
    if (pipe.rounds > 0) { /* the last round, and the barrier its count meets */
        pipe.receive(pipe.rounds - 1, buf, count);
        xch_wait_counted();
    }
    //! [exchange_round]
    if (q == 0) /* the rows after the last whole tile */
        for (uint64_t r = tiles * XCH_TILE_ROWS + threadIdx.x; r < n_rows; r += XCH_THREADS) {
            uint32_t v[8];
            wide_unpack(rows[r], v);
            count.one(0, v[rank]);
        }
    count.flush();   /* what is left in the register counter */
    __syncthreads(); /* every add landed before the counters are read */
    uint4 *dst = reinterpret_cast<uint4 *>(partials + ((size_t)rank * clusters + q) * (m.bins / 2));
    for (uint32_t j = threadIdx.x; j < m.bins / 8; j += XCH_THREADS)
        dst[j] = reinterpret_cast<const uint4 *>(words)[j];
#else
    (void)rows, (void)n_rows, (void)m, (void)out, (void)partials;
    __trap(); /* exchange_unsupported() refuses GPUs without clusters */
#endif
}

/** @brief Turns a number into its text (XCH_TEXT(XCH_BUFFERS) is "3"). */
#define XCH_TEXT(x) XCH_TEXT_OF(x)
/** @brief XCH_TEXT()'s second step (the argument expanded first). */
#define XCH_TEXT_OF(x) #x

/** @brief Step 2's plan: clusters of 8 blocks (0 clusters: it does not apply). */
typedef struct exchange_plan {
    uint32_t clusters; /**< clusters launched (as many as are resident at once) */
    size_t smem_bytes; /**< shared memory a block */
} exchange_plan;

/** @brief Where step 2 cannot run, or NULL.
 *  @param p the problem @param dev the GPU @return the reason, or NULL */
static const char *exchange_unsupported(const hist_problem *p, const hist_device *dev) {
    const char *why = unsupported_cluster(p, dev);
    if (why)
        return why;
    if (p->channels != XCH_CHANNELS)
        return "8 channels only (a cluster of 8 blocks, one a channel)";
    if (hist_bins(p->binning) % 8 != 0)
        return "a multiple of 8 bins only (whole 16-byte words of packed counters)";
    if (dev && hist_bins(p->binning) * 2 + XCH_BUFFERS_BYTES > dev->smem_per_block_optin)
        return HIST_NOT_ON_GPU "a channel's packed counters and its " XCH_TEXT(
            XCH_BUFFERS) " receive buffers exceed a block's shared memory";
    return NULL;
}

/** @brief Step 2's plan for @p p on @p dev, at most @p cap clusters (0: no cap; the call's
 *  hist_args.caps.blocks). @param p the problem @param dev the GPU @param cap the cap
 *  @return the plan */
static exchange_plan exchange_plan_for(const hist_problem *p, const hist_device *dev,
                                       uint32_t cap) {
    exchange_plan x = {0, 0};
    if (!dev || exchange_unsupported(p, dev))
        return x;
    x.smem_bytes = (size_t)hist_bins(p->binning) * 2 + XCH_BUFFERS_BYTES;
    const int per_sm = hist_blocks_per_sm(dev, XCH_THREADS, x.smem_bytes);
    x.clusters = (uint32_t)(dev->sm_count * (per_sm > 0 ? per_sm : 1)) / XCH_CHANNELS;
    if (cap > 0 && cap < x.clusters)
        x.clusters = cap;
    return x;
}

static const char *describe_exchange(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const exchange_plan x = exchange_plan_for(p, dev, 0);
    snprintf(text, sizeof text,
             "clusters of %u blocks of %u threads, a channel a block: %u bins of packed counters "
             "and %d buffers of %zu bytes (%zu bytes), as many clusters as fit at once (at most "
             "%u)",
             XCH_CHANNELS, XCH_THREADS, hist_bins(p->binning), XCH_BUFFERS,
             (size_t)XCH_BUFFERS_BYTES / XCH_BUFFERS, x.smem_bytes, x.clusters);
    return text;
}

static size_t workspace_exchange(const hist_problem *p, const hist_device *dev) {
    const exchange_plan x = exchange_plan_for(p, dev, 0);
    return (size_t)x.clusters * hist_counters(p) / 2 * sizeof(uint32_t);
}

/** @brief Step 2 (the output zeroed first), its clusters capped to what is resident, then day
 *  08's sum of the partials. @param a the call's arguments @param x the plan
 *  @return HIST_OK or the CUDA error */
static hist_status launch_exchange(const hist_args *a, const exchange_plan &x) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const wide_map m = wide_map_of(p->binning);
    const hist_binning b = p->binning;
    const bool full = b.lo == 0 && b.hi == 65535 && b.width == 1;
    /* step 1's launch: clusters of 8 along the grid's row, as many as are resident at once */
    cluster_plan c = {};
    c.size = XCH_CHANNELS, c.per_block = hist_bins(b), c.passes = 1, c.threads = XCH_THREADS;
    c.smem_bytes = x.smem_bytes, c.blocks = x.clusters * XCH_CHANNELS;
    const uint4 *rows = (const uint4 *)a->samples;
    uint32_t *partials = (uint32_t *)a->workspace;
    uint32_t blocks = 0;
    hist_status s =
        launch_clusters(a->device, full ? exchange_kernel<true> : exchange_kernel<false>, c,
                        "exchange_kernel", &blocks, rows, (uint64_t)p->rows, m, a->hist, partials);
    if (s != HIST_OK)
        return s;
    /* pass = channel, block = cluster (bins a multiple of 8: whole words) */
    return day08_sum_partials(a->device, partials, blocks / XCH_CHANNELS, hist_bins(b),
                              (uint32_t)hist_counters(p), a->hist);
}

/** @brief Step 2's registry entry: the exchange, or day 08's step 4 (packed counters in passes)
 *  where the input does not start on 16 bytes (the rows are read as 16-byte words).
 *  @param a the call's arguments @return HIST_OK or the CUDA error */
static hist_status run_exchange(const hist_args *a) {
    if ((uintptr_t)a->samples % 16 != 0)
        return day08_packed16_run(a);
    return launch_exchange(a, exchange_plan_for(a->problem, a->device, a->caps.blocks));
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day09);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day09_impls[] = {
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
};

/** @brief How many entries day09_impls holds. */
const size_t day09_impl_count = sizeof day09_impls / sizeof day09_impls[0];
