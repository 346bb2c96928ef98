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
 * sends channel c's word into block c's buffer with `st.async`, which completes on that buffer's
 * mbarrier in block c and never makes the sender wait, and counts the buffer it received the
 * round before with the final kernel's counter (wide_count, one channel). The cluster barrier
 * only says when a buffer may be written again; three buffers give it a round to complete
 * (exchange_kernel()). The barrier's arrive is a relaxed one after a fence restricted to shared
 * memory: the plain arrive is a fence at the whole GPU's scope, which made every round wait for
 * the loads in flight (the notebook measures both).
 */
#ifndef DAY08_EXCHANGE_CUH
#define DAY08_EXCHANGE_CUH

/** @brief Threads a block of the exchange. */
#define XCH_THREADS 1024
/** @brief Rows a thread loads a round: it sends each block one 32-bit word, two samples. */
#define XCH_ROWS 2
/** @brief Buffers a block receives into: three, so that a round's words can arrive while the
 *  round before is counted and the cluster barrier says the round before that is
 * (exchange_kernel()). */
#define XCH_BUFFERS 3
/** @brief Blocks a cluster: one a channel. */
#define XCH_CHANNELS 8
/** @brief Rows a cluster takes a round. */
#define XCH_TILE_ROWS (XCH_CHANNELS * XCH_THREADS * XCH_ROWS)
/** @brief One buffer, 32-bit words: one from every thread of every block of the cluster. */
#define XCH_BUFFER_WORDS (XCH_CHANNELS * XCH_THREADS)
/** @brief One buffer, bytes (32 KiB). */
#define XCH_BUFFER_BYTES (XCH_BUFFER_WORDS * 4u)
/** @brief Shared memory of the buffers, bytes (96 KiB). */
#define XCH_BUFFERS_BYTES (XCH_BUFFERS * XCH_BUFFER_BYTES)

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

/** @brief A buffer's mbarrier in each block: its phase completes when the 32 KiB of a round
 *  have landed (every thread of every block sends one word). */
__shared__ uint64_t xch_full[XCH_BUFFERS];

/** @brief Address @p a of this block's shared memory in block @p rank's (`mapa`).
 *  @param a a shared address @param rank a block of the cluster @return its shared::cluster
 *  address */
__device__ __forceinline__ uint32_t xch_remote(uint32_t a, uint32_t rank) {
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

/** @brief Store @p word at @p addr in another block (`st.async`): the store completes on that
 *  block's mbarrier @p bar, counting its 4 bytes, and the sender does not wait for it.
 *  @param addr where @param word what @param bar the receiver's mbarrier */
__device__ __forceinline__ void xch_send(uint32_t addr, uint32_t word, uint32_t bar) {
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(addr),
        "r"(word), "r"(bar)
        : "memory");
}

/** @brief Arm mbarrier @p bar for its next phase: one arrival, @p bytes to come.
 *  @param bar the mbarrier @param bytes the bytes its phase waits for */
__device__ __forceinline__ void xch_expect(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/** @brief Wait until mbarrier @p bar completes the phase of @p parity (its words have landed,
 *  and are visible: acquire at cluster scope). @param bar the mbarrier @param parity 0 or 1 */
__device__ __forceinline__ void xch_wait_full(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, "
                     "[%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    while (!done);
}

/** @brief Tell the cluster this thread has counted a buffer: a release of its operations on its
 *  block's shared memory only (the counting's reads of the buffer, which the buffer's next writer
 *  must follow), then the cluster barrier's arrive without a fence of its own. */
__device__ __forceinline__ void xch_counted() {
    asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/** @brief Wait until every thread of the cluster has arrived (xch_counted()). */
__device__ __forceinline__ void xch_wait_counted() {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

/** @brief One thread's end of step 5b's exchange: its rows in flight, and where each block's
 *  buffers and mbarriers are. */
struct exchange_pipe {
    const uint4 *rows; /**< the input */
    uint64_t first;    /**< this thread's first row in the cluster's first tile */
    uint64_t step;     /**< rows from one of the cluster's tiles to its next */
    uint64_t rounds;   /**< the cluster's tiles */
    uint32_t bars;     /**< this block's mbarriers (shared address) */
    uint32_t gap;      /**< from a block's mbarriers to this thread's word in its first buffer */
    uint32_t to[8];    /**< block c's mbarriers (shared::cluster address) */
    uint4 now[2];      /**< the two rows of the next round to send */
    uint4 next[2];     /**< the two rows of the round after */

    /** @brief Load round @p i's two rows into @p r (if the cluster has that round).
     *  @param i the round @param r the rows */
    __device__ void load(uint64_t i, uint4 r[2]) const {
        if (i < rounds)
            r[0] = rows[first + i * step], r[1] = rows[first + i * step + 1];
    }
    /** @brief Round @p i: turn the rows around and send block c channel c's word into buffer
     *  `i % 3`; then the next round's rows are the ones to send, and round i + 2's are loaded.
     *  @param i the round */
    __device__ void send(uint64_t i) {
        uint32_t o[8];
        exchange_transpose(now[0], now[1], o);
        const uint32_t b = (uint32_t)(i % XCH_BUFFERS);
#pragma unroll
        for (uint32_t c = 0; c < XCH_CHANNELS; ++c) /* channel c to block c */
            xch_send(to[c] + gap + b * XCH_BUFFER_BYTES, o[c], to[c] + 8 * b);
        now[0] = next[0], now[1] = next[1];
        load(i + 2, next);
    }
    /** @brief Wait for round @p i's buffer to fill, arm its mbarrier for round i + 3 (one
     *  thread), count it. @param i the round @param buf the buffers @param count the counter */
    template <bool FULL>
    __device__ void receive(uint64_t i, const uint32_t *buf, wide_count<FULL> &count) const {
        const uint32_t b = (uint32_t)(i % XCH_BUFFERS);
        xch_wait_full(bars + 8 * b, (uint32_t)(i / XCH_BUFFERS) & 1u);
        if (threadIdx.x == 0)
            xch_expect(bars + 8 * b, XCH_BUFFER_BYTES);
        exchange_count(buf + b * XCH_BUFFER_WORDS, count);
    }
};

/**
 * @brief Step 5b: clusters of 8 blocks, block r counting channel r. The cluster takes tiles of
 *        XCH_TILE_ROWS rows (tile q, q + clusters, ...), a round each. Round i's words go into
 *        buffer `i % 3` of every block with `st.async`, which completes on that buffer's
 *        mbarrier in the receiver; a block counts round i - 1's buffer once its mbarrier says it
 *        is full. The cluster barrier says when a buffer may be written again: a thread arrives
 *        once it has counted a round, and waits for the others after counting the next one, so
 *        that the barrier has a round to complete; round i + 1 writes the buffer of round i - 2.
 *        Each block's counters then go to the partials (pass = channel, block = cluster), which
 *        sum_partials_kernel() adds up; the rows after the last whole tile are counted by
 *        cluster 0, each block its channel.
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
    const uint32_t bars = (uint32_t)__cvta_generic_to_shared(xch_full);
    if (threadIdx.x == 0) { /* each buffer's mbarrier, armed for rounds 0, 1 and 2 */
        for (uint32_t b = 0; b < XCH_BUFFERS; ++b) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bars + 8 * b) : "memory");
            xch_expect(bars + 8 * b, XCH_BUFFER_BYTES);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster.sync(); /* every block's counters zero and mbarriers armed before anyone sends */
    wide_count<FULL> count = {m, 1, 0, m.bins, words, out + rank * m.bins, -1, 0};
    const uint64_t tiles = n_rows / XCH_TILE_ROWS;
    const uint32_t place = rank * XCH_THREADS + threadIdx.x; /* this thread's, in a buffer */
    exchange_pipe pipe = {rows,
                          q * (uint64_t)XCH_TILE_ROWS + place * XCH_ROWS,
                          (uint64_t)clusters * XCH_TILE_ROWS,
                          tiles > q ? (tiles - q - 1) / clusters + 1 : 0,
                          bars,
                          (uint32_t)__cvta_generic_to_shared(buf + place) - bars};
#pragma unroll
    for (uint32_t c = 0; c < XCH_CHANNELS; ++c) /* its buffers lie as far from them as ours */
        pipe.to[c] = xch_remote(bars, c);
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

/** @brief Step 5b's plan for @p p on @p dev, at most @p cap clusters (0: no cap; the call's
 *  hist_args.block_cap). @param p the problem @param dev the GPU @param cap the cap
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
    /* pass = channel, block = cluster (bins a multiple of 8: whole words) */
    return sum_partials(a->device, partials, blocks / XCH_CHANNELS, hist_bins(b),
                        (uint32_t)hist_counters(p), a->hist);
}

/** @brief Whether step 5b's plan applies to @p p on @p dev.
 *  @param p the problem @param dev the GPU @return true if it does */
static bool exchange_applies(const hist_problem *p, const hist_device *dev) {
    return exchange_plan_for(p, dev, 0).clusters > 0; /* a cap leaves at least one */
}

/** @brief Whether step 5b takes this call: its plan applies and the input starts on 16 bytes.
 *  @param a the call's arguments @return true if it does */
static bool exchange_takes(const hist_args *a) {
    return exchange_applies(a->problem, a->device) && (uintptr_t)a->samples % 16 == 0;
}

/** @brief Step 5b on its plan. @param a the call's arguments @return HIST_OK or the CUDA error */
static hist_status run_exchange_plan(const hist_args *a) {
    return launch_exchange(a, exchange_plan_for(a->problem, a->device, a->block_cap));
}

/** @brief Step 5b's registry entry: the exchange, or step 4's packed counters where the input
 *  does not start on 16 bytes. @param a the call's arguments @return HIST_OK or the CUDA error */
static hist_status run_exchange(const hist_args *a) {
    return exchange_takes(a) ? run_exchange_plan(a) : run_packed(a);
}

#endif /* DAY08_EXCHANGE_CUH */
