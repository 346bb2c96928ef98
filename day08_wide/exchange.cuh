/**
 * @file exchange.cuh
 * @brief Day 08, step 5b: a cluster's blocks move samples to each other in bulk, then count
 *        locally (`gpu_exchange16`; included by wide.cu after final.cuh, whose counter it uses, and
 * whose plan for 8 channels it is).
 *
 * Step 5 sent one atomic a sample to the block that owns its bin. The cluster probe
 * (cluster_probe.cu) measured why that is slow and what is not: an atomic on another block's
 * shared memory is dozens of times slower than a local one, but 16-byte stores to another block's
 * shared memory move more bytes a second than DRAM delivers. So move samples, not atomics.
 *
 * With 8 channels (`u16x8`: a row is 16 bytes) and a cluster of 8 blocks, block r owns channel
 * r's whole histogram, 65,536 packed counters (128 KiB). Each round, every thread loads 2 rows,
 * turns them around in registers (exchange_transpose(): channel c's 2 samples in one word),
 * stores channel c's word into block c's buffer, and counts the buffer it received in the round
 * before with the final kernel's counter (wide_count, one channel), between the cluster
 * barrier's arrive and its wait. Three buffers make that safe (exchange_kernel()).
 */
#ifndef DAY08_EXCHANGE_CUH
#define DAY08_EXCHANGE_CUH

/** @brief Threads a block of the exchange. */
#define XCH_THREADS 1024
/** @brief Rows a thread loads a round: it sends each block one 32-bit word, two samples. */
#define XCH_ROWS 2
/** @brief Buffers a block receives into: three, so that a round's counting can sit between the
 *  cluster barrier's arrive and its wait (exchange_kernel()). */
#define XCH_BUFFERS 3
/** @brief Blocks a cluster: one a channel. */
#define XCH_CHANNELS 8
/** @brief Rows a cluster takes a round. */
#define XCH_TILE_ROWS (XCH_CHANNELS * XCH_THREADS * XCH_ROWS)
/** @brief One buffer, 32-bit words: one from every thread of every block of the cluster. */
#define XCH_BUFFER_WORDS (XCH_CHANNELS * XCH_THREADS)
/** @brief Shared memory of the buffers, bytes (96 KiB). */
#define XCH_BUFFERS_BYTES (XCH_BUFFERS * XCH_BUFFER_WORDS * sizeof(uint32_t))

//! [exchange_transpose]
/**
 * @brief Two rows of 8 channels turned around: @p o[c] holds channel c's two samples, row 0's
 *        in the low half. Word k of a row holds channels 2k (low half) and 2k + 1:
 *        `__byte_perm(a, b, 0x5410)` joins the low halves of a and b, `0x7632` the high ones.
 * @param a row 0 @param b row 1 @param o the channels
 */
__device__ __forceinline__ void exchange_transpose(uint4 a, uint4 b, uint32_t o[8]) {
    const uint32_t x[4] = {a.x, a.y, a.z, a.w}, y[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        o[2 * k] = __byte_perm(x[k], y[k], 0x5410);
        o[2 * k + 1] = __byte_perm(x[k], y[k], 0x7632);
    }
}
//! [exchange_transpose]

/** @brief Count one received buffer: all its samples are this block's channel, 8 to a 16-byte
 *  word (4 neighbouring threads' rows: runs stay together).
 *  @param buf the buffer @param count the block's counter */
template <bool FULL>
__device__ __forceinline__ void exchange_count(const uint32_t *buf, wide_count<FULL> &count) {
    const uint4 *w = reinterpret_cast<const uint4 *>(buf);
#pragma unroll
    for (uint32_t j = threadIdx.x; j < XCH_BUFFER_WORDS / 4; j += XCH_THREADS)
        count.word(0, w[j]);
}

/**
 * @brief Step 5b: clusters of 8 blocks, block r counting channel r. The cluster takes tiles of
 *        XCH_TILE_ROWS rows (tile q, q + clusters, ...), a round each: every thread turns its two
 *        rows around, sends block c channel c's word into buffer `round % 3`, arrives at the
 *        cluster barrier, counts the buffer of the round before, and waits. A buffer is written
 *        again two rounds later, after a wait that every block reached only once it had
 *        counted it. Each block's counters then go to the partials (pass = channel, block =
 *        cluster), which sum_partials_kernel() adds up; the rows after the last whole tile are
 *        counted by cluster 0, each block its channel.
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
    if (FULL && threadIdx.x < 32)
        wide_spare[threadIdx.x] = 0;
    cluster.sync(); /* every block's counters zero before anyone counts */
    wide_count<FULL> count = {m, 1, 0, m.bins, words, out + rank * m.bins, -1, 0};
    const uint64_t tiles = n_rows / XCH_TILE_ROWS;
    const uint32_t place = rank * XCH_THREADS + threadIdx.x; /* this thread's, in a buffer */
    const uint64_t mine = (uint64_t)place * XCH_ROWS;        /* its rows, in a tile */
    /* this thread's two rows of the tile being turned around (now) and of the next one (next):
       two tiles a thread in flight */
    uint4 now[2] = {}, next[2] = {};
    uint64_t t = q;
    if (t < tiles)
        now[0] = rows[t * XCH_TILE_ROWS + mine], now[1] = rows[t * XCH_TILE_ROWS + mine + 1];
    if (t + clusters < tiles)
        next[0] = rows[(t + clusters) * XCH_TILE_ROWS + mine],
        next[1] = rows[(t + clusters) * XCH_TILE_ROWS + mine + 1];
    uint32_t round = 0;
    for (; t < tiles; t += clusters, ++round) {
        uint32_t o[8];
        exchange_transpose(now[0], now[1], o);
        now[0] = next[0], now[1] = next[1];
        if (t + 2 * clusters < tiles) { /* the tile after next on its way */
            next[0] = rows[(t + 2 * clusters) * XCH_TILE_ROWS + mine];
            next[1] = rows[(t + 2 * clusters) * XCH_TILE_ROWS + mine + 1];
        }
        //! [exchange_round]
        uint32_t *slot = buf + (round % XCH_BUFFERS) * XCH_BUFFER_WORDS + place;
#pragma unroll
        for (uint32_t c = 0; c < XCH_CHANNELS; ++c)
            *cluster.map_shared_rank(slot, c) = o[c]; /* channel c to block c */
        /* arrive: this round's words are sent; count what every block sent the round before;
           wait: every block sent this round's, and counted the round before's */
        auto token = cluster.barrier_arrive();
        if (round > 0)
            exchange_count(buf + ((round - 1) % XCH_BUFFERS) * XCH_BUFFER_WORDS, count);
        cluster.barrier_wait(std::move(token));
        //! [exchange_round]
    }
    if (round > 0)
        exchange_count(buf + ((round - 1) % XCH_BUFFERS) * XCH_BUFFER_WORDS, count);
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
    __trap(); /* exchange_plan_for() takes no GPU without clusters */
#endif
}

/** @brief Step 5b's plan: clusters of 8 blocks (0 clusters: it does not apply). */
typedef struct exchange_plan {
    uint32_t clusters; /**< clusters launched (as many as are resident at once) */
    size_t smem_bytes; /**< shared memory a block */
} exchange_plan;

/** @brief Where step 5b does not apply (the final kernel then takes its other plan), or NULL.
 *  @param p the problem @param dev the GPU @return the reason, or NULL */
static const char *exchange_unsupported(const hist_problem *p, const hist_device *dev) {
    if (dev && dev->cc_major < 9) /* first: the tests skip what no problem can run here */
        return HIST_NOT_ON_GPU "thread-block clusters need compute capability 9.0 (Hopper) or "
                               "newer";
    const char *why = not_16_bit(p);
    if (why)
        return why;
    if (p->channels != XCH_CHANNELS)
        return "8 channels only (a cluster of 8 blocks, one a channel)";
    if (hist_bins(p->binning) % 8 != 0)
        return "a multiple of 8 bins only (whole 16-byte words of packed counters)";
    if (dev && hist_bins(p->binning) * 2 + XCH_BUFFERS_BYTES > block_budget(dev))
        return HIST_NOT_ON_GPU "a channel's packed counters and two buffers exceed a block's "
                               "shared memory";
    return NULL;
}

static exchange_plan exchange_plan_for(const hist_problem *p, const hist_device *dev) {
    exchange_plan x = {0, 0};
    if (!dev || exchange_unsupported(p, dev))
        return x;
    x.smem_bytes = (size_t)hist_bins(p->binning) * 2 + XCH_BUFFERS_BYTES;
    const int per_sm = hist_blocks_per_sm(dev, XCH_THREADS, x.smem_bytes);
    x.clusters = (uint32_t)(dev->sm_count * (per_sm > 0 ? per_sm : 1)) / XCH_CHANNELS;
    if (test_blocks > 0 && (uint32_t)test_blocks < x.clusters)
        x.clusters = (uint32_t)test_blocks;
    return x;
}

static const char *describe_exchange(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const exchange_plan x = exchange_plan_for(p, dev);
    snprintf(text, sizeof text,
             "clusters of %u blocks of %u threads, a channel a block: %u bins of packed counters "
             "and %d buffers of %zu bytes (%zu bytes), as many clusters as fit at once (at most "
             "%u)",
             XCH_CHANNELS, XCH_THREADS, hist_bins(p->binning), XCH_BUFFERS,
             (size_t)XCH_BUFFERS_BYTES / XCH_BUFFERS, x.smem_bytes, x.clusters);
    return text;
}

static size_t workspace_exchange(const hist_problem *p, const hist_device *dev) {
    const exchange_plan x = exchange_plan_for(p, dev);
    return (size_t)x.clusters * hist_counters(p) / 2 * sizeof(uint32_t);
}

/** @brief Run step 5b (the output zeroed first), its clusters capped to what is resident.
 *  @param a the call's arguments @param x the plan @return HIST_OK or the CUDA error */
static hist_status launch_exchange(const hist_args *a, const exchange_plan &x) {
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const wide_map m = wide_map_of(p->binning);
    const hist_binning b = p->binning;
    const bool full = b.lo == 0 && b.hi == 65535 && b.width == 1;
    /* step 5's launch: clusters of 8 along the grid's row, as many as are resident at once */
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
    const uint32_t clusters = blocks / XCH_CHANNELS;
    const uint32_t counters = (uint32_t)hist_counters(p), words = counters / 2;
    const dim3 grid((words + 255) / 256,
                    (clusters + PARTIALS_PER_THREAD - 1) / PARTIALS_PER_THREAD);
    sum_partials_kernel<<<grid, 256>>>(partials, clusters, hist_bins(b), counters, a->hist);
    HIST_CUDA_TRY_LAUNCH("sum_partials_kernel");
    return HIST_OK;
}

/** @brief Whether step 5b's plan applies to @p p on @p dev.
 *  @param p the problem @param dev the GPU @return true if it does */
static bool exchange_applies(const hist_problem *p, const hist_device *dev) {
    return exchange_plan_for(p, dev).clusters > 0;
}

/** @brief Whether step 5b takes this call: its plan applies and the input starts on 16 bytes.
 *  @param a the call's arguments @return true if it does */
static bool exchange_takes(const hist_args *a) {
    return exchange_applies(a->problem, a->device) && (uintptr_t)a->samples % 16 == 0;
}

/** @brief Step 5b on its plan. @param a the call's arguments @return HIST_OK or the CUDA error */
static hist_status run_exchange_plan(const hist_args *a) {
    return launch_exchange(a, exchange_plan_for(a->problem, a->device));
}

/** @brief Step 5b's registry entry: the exchange, or step 4's packed counters where the input
 *  does not start on 16 bytes. @param a the call's arguments @return HIST_OK or the CUDA error */
static hist_status run_exchange(const hist_args *a) {
    return exchange_takes(a) ? run_exchange_plan(a) : run_packed(a);
}

#endif /* DAY08_EXCHANGE_CUH */
