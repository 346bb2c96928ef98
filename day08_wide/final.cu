/**
 * @file final.cuh
 * @brief Day 08, step 6: the final kernel, `gpu_wide` (included by wide.cu, after steps 1-5).
 *
 * The counters are packed 16-bit ones (step 4, packed_add()): one block holds the whole
 * histogram where it fits (65,536 bins: 128 KiB, an H100's or an A100's block), else slices of
 * it, the input read once a slice (an RTX 4090 or a T4: 2 passes). No cluster of remote atomics:
 * step 5 measured them several times slower than passes. Eight channels on a GPU with clusters
 * take step 5b's exchange (exchange.cuh), which counts with this file's wide_count.
 *
 * And equal samples are summed before they reach a shared counter: a thread keeps one counter in
 * a register (the last bin of which it saw 8 equal samples in one word) and adds to it whatever
 * falls there. A word all of that bin costs no atomic; in a word that mixes it with others (the
 * hot value of `contention:90`), one channel's 8 atomics still go back to back without a branch:
 * those of the register's bin go to a word of the thread's own, which counts them (add_full()).
 */
#ifndef DAY08_FINAL_CUH
#define DAY08_FINAL_CUH

/** @brief The final kernel's plan for one problem on one GPU: blocks, counters a block (whole
 *  16-byte words), passes. */
typedef cluster_plan wide_plan;

/** @brief The plan: packed counters, in one pass where they fit a block, else in passes; at most
 *  @p cap blocks a pass (0: no cap; the call's hist_args.block_cap). */
static wide_plan wide_plan_for(const hist_problem *p, const hist_device *dev, uint32_t cap) {
    return cluster_plan_for(p, dev, 1, 2, 8, cap);
}

/** @brief A spare shared word a lane: where add_full() sends the atomics of the samples the
 *  register counter takes. Zeroed with the counters; what it holds is never read as a count
 *  (it can only send a word to add_full()'s exact wrap test, as often as it passes 65,535). */
__shared__ uint32_t wide_spare[32];

/** @brief A word of its own a thread (OWN): where add_full() sends the atomics of the samples the
 *  register counter takes, so that the word counts them (in the half of the register's bin)
 *  and the thread keeps no count of its own; flush() reads it. */
__shared__ uint32_t wide_own[WIDE_THREADS];

/** @brief The final kernel's counter: the block's packed counters, and one register counter a
 *  thread for the bin it saw 8 times in a word last. FULL: one channel, one bin a value, the whole
 *  range (the bin is the sample: no binning to compute). OWN (with FULL): the register counter's
 *  other samples counted in the thread's own shared word (wide_own) instead of in `n`. */
template <bool FULL, bool OWN = false> struct wide_count {
    wide_map m;        /**< the binning */
    uint32_t channels; /**< channels per row */
    uint32_t first;    /**< the pass's first counter */
    uint32_t size;     /**< the pass's counters */
    uint32_t *words;   /**< the block's packed counters */
    uint32_t *out;     /**< the output at the pass's first counter */
    int cached;        /**< the bin (pass counter) of the register counter, or -1 */
    uint32_t n;        /**< the register counter */
    bool runs;         /**< a lane of the warp has seen 8 equal samples in a word */

    /** @brief Add @p d to pass counter @p f. @param f the counter @param d what to add */
    __device__ void add(uint32_t f, uint32_t d) {
        packed_add(words, f, d, out, size);
    }
    /** @brief The pass counter of sample @p v of channel @p c, or -1.
     *  @param c the channel @param v the sample @return the counter, or -1 */
    __device__ int counter_of(uint32_t c, uint32_t v) const {
        if (FULL)
            return (int)v;
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first;
        return b >= 0 && f < size ? (int)f : -1;
    }
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int f = counter_of(c, v);
        if (f < 0)
            return; /* not counted (and the register counter's bin may be -1: none yet) */
        if (f == cached)
            ++n;
        else
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
        /* FULL: each sample's word in shared memory, before the branches (both paths use it) */
        uint32_t to[8];
        if (FULL) {
            const uint32_t base = (uint32_t)__cvta_generic_to_shared(words);
            const uint32_t x[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                to[2 * q] = base + (x[q] & 0xFFFEu) * 2u; /* word v / 2, 4 bytes a word */
                to[2 * q + 1] = base + ((x[q] & 0xFFFE0000u) >> 15);
            }
        }
        //! [wide_word]
        /* the plain path until a lane of the warp sees 8 equal samples in a word: one add a
           sample, nothing to compare (uniform data never leaves it) */
        const bool eight =
            ((w.x ^ w.y) | (w.y ^ w.z) | (w.z ^ w.w) | ((w.x ^ (w.x >> 16)) & 0xFFFFu)) == 0;
        const unsigned lanes = __activemask(), eights = __ballot_sync(lanes, eight);
        runs = runs || eights != 0;
        if (!runs) {
            if (FULL)
                add_full<false>(w, to, 0); /* every sample */
            else
                add_each(f, -2); /* every counted sample (no counter is -2) */
            return;
        }
        //! [wide_word]
        // SOLUTION wide_runs [gpu_wide]: equal samples summed before they reach shared memory.
        //   With FULL (one channel, the bin is the sample): if cached < 0, or eight and f[0] !=
        //   cached, move the register counter: flush(), then cached = f[0]. Then n += 8 if
        //   every lane has eight (eights == lanes), else n += add_full<true>(w, to, cached),
        //   which adds the others. Without FULL: if all 8 counters f[k] are the same and >= 0,
        //   the register counter takes them (if f[0] != cached: flush(), cached = f[0]; then
        //   n += 8). Otherwise k = 0 .. 7: skip f[k] < 0; f[k] == cached: ++n; else sum the run
        //   of equal f[k], f[k + 1], ... and add it with one add(). In both, if n > 0xFF00,
        //   flush() (an add stays below 65,536).
        // stub: (void)f;
        if (FULL) {
            if (cached < 0 || (eight && f[0] != cached)) { /* none yet, or a new value's word */
                flush();
                cached = f[0];
            }
            /* every lane's word its register's: no atomic at all; else one path for the warp */
            if (eights == lanes)
                n += 8;
            else
                n += add_full<true>(w, to, (uint32_t)cached);
        } else {
            bool same = f[0] >= 0;
#pragma unroll
            for (int k = 1; k < 8; ++k)
                same = same && f[k] == f[0];
            if (same) {
                if (f[0] != cached) {
                    flush();
                    cached = f[0];
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
        }
        if (n > 0xFF00u)
            flush();
        // END SOLUTION
    }
    /** @brief packed_add(f[k], 1) for each counted f[k] other than @p skip: the 8 atomics
     *  predicated and back to back, their wraps tested once after (packed_add()'s test).
     *  @param f a word's 8 counters (-1: not counted) @param skip a counter to leave out */
    __device__ void add_each(const int f[8], int skip) {
        uint32_t old[8];
        bool wrapped = false;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const bool take = f[k] >= 0 && f[k] != skip;
            const uint32_t shift = 16u * (f[k] & 1);
            old[k] = take ? atomicAdd(&words[f[k] / 2], 1u << shift) : 0u;
            wrapped |= take && ((old[k] >> shift) & 0xFFFFu) == 0xFFFFu;
        }
        if (wrapped) /* one word in 65,536 on a busy counter */
#pragma unroll
            for (int k = 0; k < 8; ++k)
                if (f[k] >= 0 && f[k] != skip &&
                    ((old[k] >> (16u * (f[k] & 1))) & 0xFFFFu) == 0xFFFFu)
                    packed_wrapped(words, (uint32_t)f[k], old[k], out, size);
    }
    /** @brief One channel, the whole range (FULL): the 8 samples of @p w added to their packed
     *  counters, except (HOT) those equal to @p hot, which the register counter takes: their
     *  atomics go to a spare word instead (OWN: the thread's own, which counts them; else the
     *  lane's, wide_spare, and the count is returned), so that the warp's 8 atomics run back to
     *  back with no branch. One test a word finds the wraps: a half of an old word was 65,535
     *  exactly when `old & ~(old + 0x10001)` has bit 15 or 31 set.
     *  @param w the word @param to each sample's word in shared memory @param hot the register
     *  counter's bin (HOT) @return the samples left out, equal to @p hot (0 with OWN) */
    template <bool HOT> __device__ uint32_t add_full(uint4 w, const uint32_t to[8], uint32_t hot) {
        const uint32_t x[4] = {w.x, w.y, w.z, w.w}, hot2 = hot * 0x10001u;
        const uint32_t spare = (uint32_t)__cvta_generic_to_shared(
            OWN ? &wide_own[threadIdx.x] : &wide_spare[threadIdx.x % 32]);
        uint32_t at[8], old[8], near = 0, left = 0;
#pragma unroll
        for (int q = 0; q < 4; ++q) { /* samples 2q (the low half) and 2q + 1 */
            at[2 * q] = to[2 * q];
            at[2 * q + 1] = to[2 * q + 1];
            if (HOT && ((x[q] ^ hot2) & 0xFFFFu) == 0)
                at[2 * q] = spare, left += !OWN;
            if (HOT && ((x[q] ^ hot2) >> 16) == 0)
                at[2 * q + 1] = spare, left += !OWN;
            old[2 * q] = shared_add(at[2 * q], (x[q] & 1u) ? 0x10000u : 1u);
            old[2 * q + 1] = shared_add(at[2 * q + 1], (x[q] & 0x10000u) ? 0x10000u : 1u);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k)
            near |= old[k] & ~(old[k] + 0x10001u);
        if (near & 0x80008000u) /* a half at 65,535 (maybe not the one added to): each exactly */
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const uint32_t v = (x[k / 2] >> (16 * (k & 1))) & 0xFFFFu;
                if (((old[k] >> (16u * (v & 1u))) & 0xFFFFu) != 0xFFFFu)
                    continue;
                if (at[k] != spare)
                    packed_wrapped(words, v, old[k], out, size); /* out of line: the loop's code
                                                                    stays small */
                else if (OWN)
                    atomicAdd(&out[hot], 65536u); /* the own word's count of hot wrapped */
            }
        return left;
    }
    /** @brief The register counter into the counters: `n` and (OWN) what the thread's own word
     *  counted, the half of the register's bin (the other half may hold a carry); then both 0. */
    __device__ void flush() {
        uint32_t d = n;
        if (OWN && cached >= 0) {
            uint32_t &mine = wide_own[threadIdx.x];
            d += (mine >> (16u * ((uint32_t)cached & 1u))) & 0xFFFFu;
            mine = 0;
        }
        if (d > 0xFFFFu) /* an add of packed_add() stays below 65,536 */
            atomicAdd(&out[cached], d);
        else if (d > 0)
            add((uint32_t)cached, d);
        n = 0;
    }
};

/**
 * @brief Step 6: the final kernel (FULL: one channel, 65,536 bins of one value, one pass). Pass
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

/** @brief Partial sums a thread of sum_partials_kernel() adds up (of 132 on an H100). */
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

/**
 * @brief Queue sum_partials_kernel() on the default stream: the output plus every block's packed
 *        partial counters (the final kernel's and step 5b's second kernel).
 * @param dev the GPU
 * @param partials the blocks' packed counters, `[passes][blocks][per_block / 2]` words
 * @param blocks blocks a pass @param per_block counters a block holds (even) @param counters
 * counters of the output @param out the output (the wraps' spills in it already)
 * @return HIST_OK or the launch error
 */
static hist_status sum_partials(const hist_device *dev, const uint32_t *partials, uint32_t blocks,
                                uint32_t per_block, uint32_t counters, uint32_t *out) {
    const uint32_t words = (counters + 1) / 2; /* a thread a word */
    const dim3 grid((words + PARTIALS_THREADS - 1) / PARTIALS_THREADS,
                    (blocks + PARTIALS_PER_THREAD - 1) / PARTIALS_PER_THREAD);
    return hist_launch(dev, sum_partials_kernel, grid, PARTIALS_THREADS, 0, 0,
                       "sum_partials_kernel", partials, blocks, per_block, counters, out);
}

/* Step 5b (exchange.cuh, after this file: it counts with wide_count), the plan for 8 channels. */
static bool exchange_applies(const hist_problem *p, const hist_device *dev);
static bool exchange_takes(const hist_args *a);
static hist_status run_exchange_plan(const hist_args *a);
static const char *describe_exchange(const hist_problem *p, const hist_device *dev);
static size_t workspace_exchange(const hist_problem *p, const hist_device *dev);

static const char *describe_wide(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    if (exchange_applies(p, dev))
        return describe_exchange(p, dev);
    const wide_plan w = wide_plan_for(p, dev, 0);
    snprintf(text, sizeof text,
             "16-bit counters, two a word: %u pass%s of %u counters (%zu bytes of shared memory), "
             "%u blocks of %u threads",
             w.passes, w.passes == 1 ? "" : "es", w.per_block, w.smem_bytes, w.blocks, w.threads);
    return text;
}

static size_t workspace_wide(const hist_problem *p, const hist_device *dev) {
    if (!dev)
        return 0;
    const wide_plan w = wide_plan_for(p, dev, 0);
    const size_t own = (size_t)w.passes * w.blocks * (w.per_block / 2) * sizeof(uint32_t);
    const size_t exchange = workspace_exchange(p, dev); /* 0 where step 5b does not apply */
    return own > exchange ? own : exchange;
}

static hist_status run_wide(const hist_args *a) {
    if (exchange_takes(a)) /* 8 channels on a GPU with clusters: step 5b's exchange */
        return run_exchange_plan(a);
    const hist_problem *p = a->problem;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    const wide_plan w = wide_plan_for(p, a->device, a->block_cap);
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
    return sum_partials(a->device, partials, w.blocks, w.per_block, (uint32_t)hist_counters(p),
                        a->hist);
}

#endif /* DAY08_FINAL_CUH */
