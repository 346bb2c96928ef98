/**
 * @file final.cuh
 * @brief Day 08, step 6: the final kernel, `gpu_wide` (included by wide.cu, after steps 1-5).
 *
 * The counters are packed 16-bit ones (step 4, packed_add()), held by the first of these that
 * the GPU allows:
 *  - one block: the whole histogram fits a block's shared memory (65,536 bins: 128 KiB, an H100's
 *    or an A100's block);
 *  - a cluster of 2, 4 or 8 blocks (step 5; compute capability 9.0 and newer): it fits there;
 *  - passes: slices of it that fit a block, the input read once a slice (an RTX 4090: 2, a T4: 3).
 *
 * And equal samples are summed in a register before they reach shared memory: a thread keeps one
 * counter in a register (the last bin of which it saw 8 equal samples in one word), adds to it
 * whatever falls there, and sums the other runs of equal samples inside a word. Constant data and
 * the hot value of `contention:90` never touch shared memory; a run of equal samples costs one
 * shared atomic per lane when it ends, instead of one per sample.
 */
#ifndef DAY08_FINAL_CUH
#define DAY08_FINAL_CUH

/** @brief Threads a block of the final kernel's clusters (a remote add needs more registers). */
#define WIDE_CLUSTER_THREADS 512

/** @brief Where the final kernel keeps its counters. */
typedef enum wide_kind {
    WIDE_BLOCK = 0, /**< one block holds the whole histogram */
    WIDE_CLUSTER,   /**< a cluster's blocks hold it between them */
    WIDE_PASSES     /**< a block holds a slice; one pass over the input a slice */
} wide_kind;

/** @brief The final kernel's plan for one problem on one GPU. */
typedef struct wide_plan {
    wide_kind kind; /**< where the counters live */
    cluster_plan c; /**< blocks, threads, counters a block (size 1 without a cluster) */
} wide_plan;

/** @brief The plan: one block, else a cluster of 2, 4 or 8 blocks (sm_90+), else passes. */
static wide_plan wide_plan_for(const hist_problem *p, const hist_device *dev) {
    wide_plan w;
    const uint64_t counters = hist_counters(p);
    const uint64_t fit = block_budget(dev) / 4 * 2; /* packed counters a block holds */
    uint32_t size = 1;
    while (size < 8 && counters > fit * size)
        size *= 2;
    if (counters <= fit)
        w.kind = WIDE_BLOCK;
    else if (dev->cc_major >= 9 && counters <= fit * size)
        w.kind = WIDE_CLUSTER;
    else
        w.kind = WIDE_PASSES;
    /* whole 16-byte words of counters a block, for the copy to the partials */
    w.c = cluster_plan_for(p, dev, w.kind == WIDE_CLUSTER ? size : 1, 2, 8);
    w.c.threads = w.kind == WIDE_CLUSTER ? WIDE_CLUSTER_THREADS : WIDE_THREADS;
    int per_sm = hist_blocks_per_sm(dev, (int)w.c.threads, w.c.smem_bytes);
    per_sm = per_sm > 0 ? per_sm : 1;
    w.c.blocks = (uint32_t)(dev->sm_count * per_sm) / w.c.size * w.c.size;
    if (test_blocks > 0 && (uint32_t)test_blocks * w.c.size < w.c.blocks)
        w.c.blocks = (uint32_t)test_blocks * w.c.size;
    return w;
}

/* The cluster's or the block's barrier, rank and size: one kernel serves both plans. */
template <bool CLUSTER> __device__ __forceinline__ void group_sync() {
#if __CUDA_ARCH__ >= 900
    if (CLUSTER) {
        cg::this_cluster().sync();
        return;
    }
#endif
    __syncthreads();
}
template <bool CLUSTER> __device__ __forceinline__ uint32_t group_rank() {
#if __CUDA_ARCH__ >= 900
    if (CLUSTER)
        return cg::this_cluster().block_rank();
#endif
    return 0;
}
template <bool CLUSTER> __device__ __forceinline__ uint32_t group_blocks() {
#if __CUDA_ARCH__ >= 900
    if (CLUSTER)
        return cg::this_cluster().num_blocks();
#endif
    return 1;
}
/** @brief Block @p rank's counters: another block's shared memory in a cluster. */
template <bool CLUSTER>
__device__ __forceinline__ uint32_t *group_words(uint32_t *words, uint32_t rank) {
#if __CUDA_ARCH__ >= 900
    if (CLUSTER)
        return cg::this_cluster().map_shared_rank(words, rank);
#endif
    (void)rank;
    return words;
}

/** @brief The final kernel's counter: packed counters (a block's or a cluster's), and one
 *  register counter a thread for the bin it sees most. */
template <bool CLUSTER> struct wide_count {
    wide_map m;         /**< the binning */
    uint32_t channels;  /**< channels per row */
    uint32_t first;     /**< the pass's first counter */
    uint32_t size;      /**< the pass's counters */
    uint32_t per_block; /**< counters a block holds */
    uint32_t *words;    /**< this block's packed counters */
    uint32_t *out;      /**< the output at the pass's first counter */
    int cached;         /**< the bin (pass counter) of the register counter, or -1 */
    uint32_t n;         /**< the register counter */

    /** @brief Add @p d to pass counter @p f, in whichever block holds it. */
    __device__ void add(uint32_t f, uint32_t d) {
        if (!CLUSTER) {
            packed_add(words, f, d, out, size);
            return;
        }
        const wide_owner o = wide_owner_of(f, per_block);
        const uint32_t base = o.rank * per_block;
        packed_add(group_words<CLUSTER>(words, o.rank), o.local, d, out + base,
                   min(per_block, size - base));
    }
    /** @brief The pass counter of sample @p v of channel @p c, or -1. */
    __device__ int counter_of(uint32_t c, uint32_t v) const {
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first;
        return b >= 0 && f < size ? (int)f : -1;
    }
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int f = counter_of(c, v);
        if (f == cached)
            ++n;
        else if (f >= 0)
            add((uint32_t)f, 1u);
    }
    /** @brief eight samples @param c the first's channel @param w the word */
    __device__ void word(uint32_t c, uint4 w) {
        uint32_t v[8];
        int f[8];
        wide_unpack(w, v);
#pragma unroll
        for (int k = 0; k < 8; ++k, c = next_channel(c, channels))
            f[k] = counter_of(c, v[k]);
        // SOLUTION wide_runs [gpu_wide]: equal samples summed before they reach shared memory.
        //   If all 8 counters f[k] are the same and >= 0: the register counter takes them (n += 8
        //   when f[0] == cached; otherwise add(cached, n) if n > 0, then cached = f[0], n = 8).
        //   Otherwise, k = 0 .. 7: skip f[k] < 0; f[k] == cached: ++n; else sum the run of equal
        //   f[k], f[k + 1], ... and add it with one add(). Then, if n > 0xFF00, add(cached, n) and
        //   n = 0 (an add stays below 65,536).
        // stub: for (int k = 0; k < 8; ++k) if (f[k] >= 0) add((uint32_t)f[k], 1u);
        bool same = f[0] >= 0;
#pragma unroll
        for (int k = 1; k < 8; ++k)
            same = same && f[k] == f[0];
        if (same) {
            if (f[0] != cached) {
                if (n > 0)
                    add((uint32_t)cached, n);
                cached = f[0];
                n = 0;
            }
            n += 8;
        } else {
            uint32_t run = 1;
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                if (f[k] < 0)
                    continue;
                if (f[k] == cached) {
                    ++n;
                    continue;
                }
                if (k < 7 && f[k + 1] == f[k]) {
                    ++run; /* the run goes on into the next sample */
                    continue;
                }
                add((uint32_t)f[k], run);
                run = 1;
            }
        }
        if (n > 0xFF00u) {
            add((uint32_t)cached, n);
            n = 0;
        }
        // END SOLUTION
    }
    /** @brief What is left in the register counter, into shared memory. */
    __device__ void finish() {
        if (n > 0)
            add((uint32_t)cached, n);
        n = 0;
    }
};

/**
 * @brief Step 6: the final kernel. Pass `blockIdx.y`'s counters live packed in one block, or
 *        spread over a cluster's blocks (CLUSTER); zero, barrier, count, barrier, each block adds
 *        its own counters to the output.
 * @param samples the input @param n samples @param channels channels per row @param m the binning
 * @param per_block counters a block holds (a multiple of 8) @param out the output, zeroed
 * @param partials where each block leaves its counters (`[passes][blocks][per_block / 2]` words)
 */
template <bool CLUSTER>
__global__ void __launch_bounds__(CLUSTER ? WIDE_CLUSTER_THREADS : WIDE_THREADS, 1)
    wide_kernel(const uint8_t *__restrict__ samples, uint64_t n, uint32_t channels, wide_map m,
                uint32_t per_block, uint32_t *out, uint32_t *partials) {
    extern __shared__ uint32_t words[];
    const uint32_t group = group_blocks<CLUSTER>(), rank = group_rank<CLUSTER>();
    const uint32_t counters = channels * m.bins, first = blockIdx.y * per_block * group;
    const uint32_t size = min(per_block * group, counters - first);
    for (uint32_t j = threadIdx.x; j < per_block / 2; j += blockDim.x)
        words[j] = 0;
    group_sync<CLUSTER>(); /* every counter zero before anyone adds */
    wide_count<CLUSTER> count = {m, channels, first, size, per_block, words, out + first, -1, 0};
    wide_walk(samples, n, channels, count);
    count.finish();
    group_sync<CLUSTER>(); /* every add landed before a block reads its counters */
    /* this block's counters, as they are, to its place in the partials: sum_partials_kernel adds
       them up (one global atomic per counter and block would be 8.6 million on an H100) */
    uint4 *mine =
        (uint4 *)(partials + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * (per_block / 2));
    for (uint32_t j = threadIdx.x; j < per_block / 8; j += blockDim.x)
        mine[j] = ((const uint4 *)words)[j];
    (void)rank;
}

/** @brief Partial sums a thread of sum_partials_kernel() adds up (of 132 on an H100). */
#define PARTIALS_PER_THREAD 17

/**
 * @brief The output plus every block's partial counters: `out[g] += sum over the blocks that
 *        hold counter g` (the output holds the wraps' spills already).
 * @param partials the blocks' packed counters, `[passes][blocks][per_block / 2]` words
 * @param blocks blocks a pass @param group blocks a cluster (1: none) @param per_block counters a
 * block holds @param counters counters of the output @param out the output
 */
__global__ void sum_partials_kernel(const uint32_t *__restrict__ partials, uint32_t blocks,
                                    uint32_t group, uint32_t per_block, uint32_t counters,
                                    uint32_t *out) {
    const uint32_t word = blockIdx.x * blockDim.x + threadIdx.x; /* a word: two counters */
    const uint32_t per_pass = per_block * group, g = 2 * word;
    if (g >= counters)
        return;
    const uint32_t pass = g / per_pass, rank = g % per_pass / per_block, local = g % per_block;
    const uint32_t groups = blocks / group;
    uint32_t lo = 0, hi = 0;
    const uint32_t first = blockIdx.y * PARTIALS_PER_THREAD;
    const uint32_t last = min(first + PARTIALS_PER_THREAD, groups);
    for (uint32_t k = first; k < last; ++k) {
        const uint32_t block = k * group + rank;
        const uint32_t w = partials[((size_t)pass * blocks + block) * (per_block / 2) + local / 2];
        lo += w & 0xFFFFu;
        hi += w >> 16;
    }
    if (lo)
        atomicAdd(&out[g], lo);
    if (hi && g + 1 < counters)
        atomicAdd(&out[g + 1], hi);
}

static const char *describe_wide(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const wide_plan w = wide_plan_for(p, dev);
    const char *kind = w.kind == WIDE_BLOCK     ? "one block holds the histogram"
                       : w.kind == WIDE_CLUSTER ? "a cluster holds the histogram"
                                                : "passes";
    snprintf(text, sizeof text,
             "%s: %u block%s of %u packed counters (%zu bytes), %u pass%s, %u blocks of %d "
             "threads",
             kind, w.c.size, w.c.size == 1 ? "" : "s", w.c.per_block, w.c.smem_bytes, w.c.passes,
             w.c.passes == 1 ? "" : "es", w.c.blocks, w.c.threads);
    return text;
}

static size_t workspace_wide(const hist_problem *p, const hist_device *dev) {
    if (!dev)
        return 0;
    const wide_plan w = wide_plan_for(p, dev);
    return (size_t)w.c.passes * w.c.blocks * (w.c.per_block / 2) * sizeof(uint32_t);
}

static hist_status run_wide(const hist_args *a) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const wide_plan w = wide_plan_for(p, a->device);
    const wide_map m = wide_map_of(p->binning);
    uint32_t *partials = (uint32_t *)a->workspace;
    hist_status s;
    if (w.kind == WIDE_CLUSTER)
        s = launch_clusters(a->device, wide_kernel<true>, w.c, "wide_kernel<cluster>", a->samples,
                            hist_samples(p), p->channels, m, w.c.per_block, a->hist, partials);
    else
        s = hist_launch(a->device, wide_kernel<false>, dim3(w.c.blocks, w.c.passes), WIDE_THREADS,
                        w.c.smem_bytes, 0, "wide_kernel", a->samples, hist_samples(p), p->channels,
                        m, w.c.per_block, a->hist, partials);
    if (s != HIST_OK)
        return s;
    const uint32_t counters = (uint32_t)hist_counters(p), words = (counters + 1) / 2;
    const dim3 grid((words + 255) / 256,
                    (w.c.blocks / w.c.size + PARTIALS_PER_THREAD - 1) / PARTIALS_PER_THREAD);
    sum_partials_kernel<<<grid, 256>>>(partials, w.c.blocks, w.c.size, w.c.per_block, counters,
                                       a->hist);
    HIST_CUDA_TRY_LAUNCH("sum_partials_kernel");
    return HIST_OK;
}

#endif /* DAY08_FINAL_CUH */
