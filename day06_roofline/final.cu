/**
 * @file final.cu
 * @brief Day 06, steps 7 and 8: the final kernel, any_kernel(), for every shape and binning.
 *
 * Step 7 (`gpu_r6_v7_any_shape`) keeps step 6's loop and flush and changes what they are given:
 * virtual rows for any channel count and input alignment, balanced channel groups, bins folded in
 * the flush (the section "step 7" below; plan.cu computes the grid). Step 8, `gpu_roofline`, the
 * lesson's answer, is the same kernel launched cooperatively: it zeroes the output itself and
 * hands out its last rows to whichever block asks first (the section "step 8").
 * day06_final_launch() serves the other programs: the CS149 file (submission.sh) and day 07's
 * pipelines. breakdown.cu compiles this file again with the phases' stamps on (STAMPED).
 */
#include <cooperative_groups.h>
#include <utility>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu_limits.h"
#include "plan.cuh"
#include "roofline.cuh"
#include "small.cuh"

/* ---- step 7: every shape and binning ----
 *
 * Steps 1-6 count the byte histogram of rows whose 128-channel groups start on 4-byte words. The
 * final kernel keeps their loop exactly and changes only what it is given and how it flushes:
 *
 *  - Any channel count, by virtual rows. A row of 510 or 513 channels does not start on a word,
 *    but 2 rows of 510 (1,020 bytes) or 4 of 513 (2,052) end on one: the input read from its
 *    first word is an aligned `[rows / k][k * channels]` array (virtual_width()). Virtual channel
 *    v of it is real channel (shift + v) % channels, where shift is how many bytes the input's
 *    start lies before that word. The loop counts virtual channels in groups of up to 128 with
 *    32-bit loads, exactly as before; the flush adds each virtual channel's counts into its real
 *    channel. The first `shift` bytes and the last bytes that do not fill a virtual row are
 *    counted a byte at a time. Small channel counts are widened to fill a group (1 channel: 128
 *    rows per virtual row), so every lane has work.
 *  - Balanced groups: 1,020 virtual channels are 8 groups of 128 (the last 124), 2,052 are 17
 *    of 124 (the last 68), not 16 x 128 + 4, whose last group's blocks would take as long as the
 *    others for 4 channels.
 *  - Any binning, at no cost in the loop: it still counts the byte histogram, 256 values per
 *    channel, and the flush folds values into bins (bin b of a channel is the sum of the counts of
 *    its values lo + b * width .. min(hi, lo + (b + 1) * width - 1); values outside [lo, hi] are
 *    never read). Binning per byte would add about five instructions to each of the loop's four
 *    atomics; the fold costs one addition per value and channel, once per block.
 *
 * Where a group is wider than the real channels (fewer than 128), several of its virtual channels
 * are one real channel: the flush first sums them in shared memory (FOLD), so that the output
 * sees one atomic per real counter and block, not up to 128 on the same address.
 */

/**
 * @brief A word of the input, asking L2 to fetch its whole 128-byte line from memory
 *        (`ld.global.nc.L2::128B`, sm_75 and later). A block of 128 channels reads whole lines
 *        anyway; a block of 64 or 32 (the smaller GPUs' plans) reads 64 or 32 bytes of each row,
 *        and without the hint memory serves those as scattered 32-byte sectors, more slowly;
 *        with it the line's other sectors wait in L2 for the neighbouring groups' blocks (the
 *        notebook's *Plans* has the measurement).
 * @param p the word
 * @return its value
 */
__device__ __forceinline__ uint32_t load_word(const uint32_t *p) {
    uint32_t v;
    asm("ld.global.nc.L2::128B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

/**
 * @brief One lane's rows: step 1's double-buffered loop of 32-bit loads, 8 in flight, each word
 *        counted by count_word().
 * @tparam CH channels per block (the plan's)
 * @param p this lane's word of its first row
 * @param stride words from one of the lane's rows to its next (32 warps x 128 / CH rows further)
 * @param n how many rows the lane counts
 * @param s_lane this lane's slot of byte 0 in `[bin][slot]`
 * @param q which of the warp's 128 / CH rows the lane reads (roofline.cuh's layout)
 */
template <int CH>
__device__ __forceinline__ void count_rows(const uint32_t *__restrict__ p, size_t stride,
                                           uint64_t n, uint32_t *s_lane, uint32_t q) {
    r6_double_buffered<R6_UNROLL>(
        0, 1, n, [&](uint64_t k) { return load_word(p + k * stride); },
        [&](uint32_t v) { count_word<CH>(v, s_lane, q); }, [](uint64_t) {});
}

/**
 * @brief The flush for any binning and any virtual-to-real channel map: FB bins at a time, bin b
 *        of slot s summed from its values' counters into the `[CH][FB + 1]` buffer (as in step
 *        5), then added to the output, 32 consecutive bins of one channel per warp instruction;
 *        with FOLD, first summed per real channel in a second `[CH][FB + 1]` buffer. The loops
 *        index by the constants FB and CH (shifts): a division by the run-time bin count per
 *        counter was measurably slower.
 * @tparam FOLD sum the group's virtual channels per real channel first
 * @tparam CH channels per block (the plan's)
 * @tparam FB bins per round (the plan's)
 * @param s_hist the block's `[256 values][CH slots]` histogram
 * @param s_flush the transposition buffer
 * @param s_real the real channel of each slot (UINT32_MAX: none)
 * @param s_fold FOLD's per-real-channel buffer
 * @param b the binning
 * @param bins its bins (hist_bins())
 * @param vr the virtual rows (channels: the real count)
 * @param d_out the output `[channels][bins]`, zeroed
 */
template <bool FOLD, int CH, int FB>
__device__ __forceinline__ void
flush_binned(const uint32_t *s_hist, uint32_t *s_flush, const uint32_t *s_real, uint32_t *s_fold,
             hist_binning b, uint32_t bins, virtual_rows vr, uint32_t *d_out) {
    const uint32_t pad = FB + 1;
    /* each thread's share of a round (8 counters in the H100's plan), in both phases at a
       constant stride */
    constexpr uint32_t per_thread = FB * CH / R6_THREADS;
    uint32_t reals[per_thread]; /* the real channels of this thread's slots in phase 2 */
#pragma unroll
    for (uint32_t i = 0; i < per_thread; ++i)
        reals[i] = s_real[threadIdx.x / FB + i * (R6_THREADS / FB)];
    for (uint32_t b0 = 0; b0 < bins; b0 += FB) {
        const uint32_t n = min(bins - b0, (uint32_t)FB);
        /* k = bin * CH + slot: fold values into bins, one slot per lane */
#pragma unroll
        for (uint32_t i = 0; i < per_thread; ++i) {
            const uint32_t slot = threadIdx.x % CH;
            const uint32_t bin = threadIdx.x / CH + i * (R6_THREADS / CH);
            if (bin >= n)
                continue;
            const uint32_t v0 = b.lo + (b0 + bin) * b.width;
            uint32_t sum = s_hist[v0 * CH + slot];
            if (b.width > 1) { /* the bin's other values */
                const uint32_t v1 = min((uint32_t)b.hi, v0 + b.width - 1);
                for (uint32_t v = v0 + 1; v <= v1; ++v)
                    sum += s_hist[v * CH + slot];
            }
            s_flush[slot * pad + bin] = sum;
            if (FOLD)
                s_fold[slot * pad + bin] = 0; /* real channels < CH use rows 0..channels-1 */
        }
        __syncthreads(); /* the buffer is full */
                         /* k = slot * FB + bin: a warp takes consecutive bins of one slot */
#pragma unroll
        for (uint32_t i = 0; i < per_thread; ++i) {
            const uint32_t bin = threadIdx.x % FB;
            const uint32_t slot = threadIdx.x / FB + i * (R6_THREADS / FB);
            const uint32_t real = reals[i];
            const uint32_t count = s_flush[slot * pad + bin];
            if (bin >= n || real == UINT32_MAX || count == 0)
                continue;
            if (FOLD)
                atomicAdd(&s_fold[real * pad + bin], count);
            else
                atomicAdd(&d_out[(size_t)real * bins + b0 + bin], count);
        }
        __syncthreads(); /* read before the next round overwrites it */
        if (FOLD) {
            for (uint32_t k = threadIdx.x; k < vr.channels * FB; k += R6_THREADS) {
                const uint32_t real = k / FB, bin = k % FB;
                const uint32_t count = s_fold[real * pad + bin];
                if (bin < n && count > 0)
                    atomicAdd(&d_out[(size_t)real * bins + b0 + bin], count);
            }
            __syncthreads(); /* read before the next round zeroes it */
        }
    }
}

/** @brief Where a block's time goes (breakdown.cu): nanosecond stamps (%globaltimer) a block
 *  records in the breakdown's build of this kernel. */
enum stamp_at { STAMP_START, STAMP_ZEROED, STAMP_COUNTED, STAMP_FLUSHED, STAMPS };

/** @brief Record stamp @p at of this block in @p d_stamps (`[blocks][STAMPS]`): only in the
 *  breakdown's build (STAMPED), and there only when @p d_stamps is not NULL; compiled out of the
 *  registry's kernels.
 * @tparam STAMPED the breakdown's build
 * @param d_stamps the stamps, or NULL
 * @param at which one
 */
template <bool STAMPED> __device__ __forceinline__ void stamp(uint64_t *d_stamps, stamp_at at) {
    if (STAMPED && d_stamps != NULL && threadIdx.x == 0) {
        uint64_t t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        d_stamps[((size_t)blockIdx.y * gridDim.x + blockIdx.x) * STAMPS + at] = t;
    }
}

/* ---- step 8: no memset, no straggler ----
 *
 * Where step 7's time went (breakdown.cu measures it, README.md keeps the figures): a memset
 * launch before the kernel, and blocks that finish counting microseconds apart (more for 510
 * channels), the kernel ending with the last one. Step 8 launches the same kernel cooperatively
 * (cudaLaunchCooperativeKernel: all blocks resident at once, one per SM), which allows a grid
 * barrier:
 *
 *  - every block zeroes its share of the output and arrives at the barrier at its start, and
 *    waits at it only when done with its fixed rows, a whole chunk later: nobody waits;
 *  - the last eighth of the rows is cut into tiles of 512 rows that each block takes, one after
 *    another, from its channel group's counter (an atomicAdd), until none is left; block 0 zeroed
 *    the counters before arriving, so no tile is taken before they are zero. Blocks now finish
 *    counting within about one tile of each other.
 *  - while the histogram is zeroed, each warp's first rows are prefetched into L2.
 *
 * Where the blocks cannot all be resident (more channel groups than SMs) the launch is step 7's;
 * without a workspace for the counters (day 07's pipelines) there are no dynamic tiles. */

/**
 * @brief Step 8: bring the first rows of this lane towards the SM (an L2 prefetch of each of its
 *        first R6_UNROLL rows), so that the loop's first loads do not start from DRAM while the
 *        block zeroes its histogram.
 * @param p this lane's word of its first row
 * @param stride words from one of the lane's rows to its next
 * @param n how many rows the lane counts
 */
__device__ __forceinline__ void prefetch_first_rows(const uint32_t *p, size_t stride, uint64_t n) {
#pragma unroll
    for (uint32_t u = 0; u < R6_UNROLL; ++u)
        if (u < n)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(p + u * stride));
}

/**
 * @brief Step 8: count the tiles this block is handed, step 1's loop continued across tiles. A
 *        tile is R6_TILE_ROWS x R virtual rows (R = 128 / CH rows per warp load), lane q of warp
 *        w's rows counting rows wR + q, wR + q + 32R, ... of it. Thread 0
 *        asks for tiles two ahead (atomicAdd on the group's counter), so that no warp waits for
 *        an index: each warp loads the first batch of the next tile before it counts the last
 *        batch of this one, then the block meets at one barrier per tile. The indices go round
 *        three slots: slot k % 3 holds the k-th tile's, so the slot thread 0 writes at the end of
 *        a tile was last read before the previous barrier.
 * @tparam CH channels per block (the plan's)
 * @param p0 this lane's word of its first row in tile 0 of the dynamic rows
 * @param wpr words per virtual row
 * @param tiles tiles in the dynamic rows
 * @param active this lane counts (lanes past the group's words only keep the barriers)
 * @param s_lane this lane's slot of byte 0 in `[bin][slot]`
 * @param s_tile three slots: the block's first two tile indices in 0 and 1 (filled before the
 *        call)
 * @param d_next the group's tile counter
 * @param q which of the warp's R rows this lane reads
 */
template <int CH>
__device__ __forceinline__ void count_tiles(const uint32_t *__restrict__ p0, size_t wpr,
                                            uint32_t tiles, bool active, uint32_t *s_lane,
                                            uint32_t *s_tile, uint32_t *d_next, uint32_t q) {
    constexpr uint32_t R = R6_CHANNELS / CH; /* rows per warp load */
    const size_t stride = 32 * R * wpr;      /* one of the lane's rows to its next */
    const size_t tile_words = R6_TILE_ROWS * R * wpr;
    uint32_t t = s_tile[0];
    if (t >= tiles) /* the same for every thread */
        return;
    const uint32_t *p = p0 + t * tile_words;
    uint32_t cur[R6_UNROLL];
    const auto count = [&](uint32_t v) { count_word<CH>(v, s_lane, q); };
    if (active)
#pragma unroll
        for (int u = 0; u < R6_UNROLL; ++u)
            cur[u] = load_word(p + u * stride);
    for (uint32_t i = 0;; ++i) {
        uint32_t ahead = 0;
        if (threadIdx.x == 0) /* the tile after the next; needed only at the end of this one */
            ahead = atomicAdd(d_next, 1u);
        if (active)
#pragma unroll
            for (int b = 1; b < R6_TILE_BATCHES; ++b)
                r6_overlap(
                    cur, [&](int u) { return load_word(p + (b * R6_UNROLL + u) * stride); }, count);
        const uint32_t t_next = s_tile[(i + 1) % 3];
        const uint32_t *t_p = p0 + t_next * tile_words;
        if (active) /* the next tile's first batch in flight while this tile's last is counted */
            r6_overlap(
                cur, [&](int u) { return t_next < tiles ? load_word(t_p + u * stride) : 0u; },
                count);
        if (threadIdx.x == 0) /* tile i + 2; this slot was read (tile i - 1) before a barrier */
            s_tile[(i + 2) % 3] = ahead;
        __syncthreads(); /* the slot written is seen by all before they read it */
        if (t_next >= tiles)
            break;
        p = t_p;
    }
}

/**
 * @brief The final kernel: step 6's loop and flush over virtual rows, for any channel count,
 *        input alignment and binning (see the section comment), in the plan's shape (CH channels
 *        per block, FB bins per flush round: plan.cuh); with FUSED (step 8) it also zeroes the
 *        output itself.
 * @tparam FOLD a group is wider than the real channels: fold its virtual channels in shared
 *         memory before adding to the output
 * @tparam FUSED launched cooperatively: every block zeroes its share of the output, arrives at a
 *         grid barrier, counts, and waits at that barrier only before its flush (by then every
 *         block zeroed its share long ago, so nobody waits)
 * @tparam CH channels per block: 128, 64 or 32
 * @tparam FB bins per flush round: 64 or 32
 * @param d_samples the input as given, row-major `[rows][channels]`, any alignment
 * @param vr its virtual rows
 * @param group_width virtual channels per block (a multiple of 4, at most CH; the last group
 *        may have fewer)
 * @param chunk_rows virtual rows per block in its fixed chunk
 * @param dyn_first the first virtual row handed out in tiles (vr.rows: none)
 * @param dyn_tiles tiles of R6_TILE_ROWS x 128 / CH rows from dyn_first on (FUSED only; 0: none)
 * @param d_next a tile counter per channel group (FUSED with tiles; zeroed by block 0), or NULL
 * @param binning the binning (applied by the flush)
 * @param bins its bins (hist_bins())
 * @param d_out the output `[channels][bins]`: zeroed before (not FUSED) or by the kernel (FUSED)
 * @param d_stamps per-block phase stamps (`[blocks][STAMPS]`), or NULL (used only if STAMPED)
 * @tparam STAMPED the breakdown's build: the phases stamped (breakdown.cu)
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. `launch_any()`: a grid of (virtual channel groups, row
 * chunks: SMs / groups), R6_THREADS (1024) threads, R6_PLAN_SMEM(CH, FB) bytes of dynamic
 * shared memory (without FOLD less its second flush buffer; 198,144 bytes in the H100's plan);
 * FUSED: a cooperative launch (all blocks resident at once), otherwise the output zeroed before.
 */
template <bool FOLD, bool FUSED, int CH, int FB, bool STAMPED>
__global__ void __launch_bounds__(R6_THREADS, 1)
    any_kernel(const uint8_t *__restrict__ d_samples, virtual_rows vr, uint32_t group_width,
               uint64_t chunk_rows, uint64_t dyn_first, uint32_t dyn_tiles, uint32_t *d_next,
               hist_binning binning, uint32_t bins, uint32_t *__restrict__ d_out,
               uint64_t *d_stamps) {
    constexpr uint32_t W = CH / 4;           /* words of a group's row: lanes per row */
    constexpr uint32_t R = R6_CHANNELS / CH; /* rows per warp load (roofline.cuh's layout) */
    __shared__ uint32_t s_tile[3];           /* step 8: the block's next dynamic tiles */
    extern __shared__ uint32_t s_hist[];     /* [256 values][CH slots], then the flush buffers */
    uint32_t *s_flush = s_hist + R6_BINS * CH;
    uint32_t *s_real = s_flush + CH * (FB + 1);
    uint32_t *s_fold = s_real + CH;
    stamp<STAMPED>(d_stamps, STAMP_START);
    const uint32_t c0 = blockIdx.x * group_width;
    const uint32_t group_channels = min(group_width, vr.width - c0);
    const uint32_t words = (group_channels + 3) / 4; /* lanes of a row that count */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = R == 1 ? 0 : lane / W; /* word w of the warp's row q */
    const uint64_t step = (R6_THREADS / 32) * R;            /* a lane's rows are this far apart */
    const uint64_t r0 = blockIdx.y * chunk_rows;
    const uint64_t r1 = min(r0 + chunk_rows, dyn_first); /* the rest is handed out (FUSED) */
    const uint8_t *aligned = d_samples + vr.shift;       /* a word boundary */
    const uint64_t first = r0 + warp * R + q;            /* this lane's first row */
    const uint64_t n = r1 > first ? (r1 - first + step - 1) / step : 0;
    const uint32_t *p = reinterpret_cast<const uint32_t *>(aligned + first * vr.width + c0) + w;
    if (FUSED && w < words) /* step 8: the first rows on their way during the zeroing */
        prefetch_first_rows(p, step * vr.width / 4, n);

    for (uint32_t k = threadIdx.x; k < R6_BINS * CH / 4; k += R6_THREADS)
        reinterpret_cast<uint4 *>(s_hist)[k] = make_uint4(0, 0, 0, 0); /* 16 bytes a store */
    if (threadIdx.x < CH) { /* each slot's real channel */
        const uint32_t v = slot_to_channel<4, CH>(threadIdx.x);
        s_real[threadIdx.x] = v < group_channels ? (vr.shift + c0 + v) % vr.channels : UINT32_MAX;
    }
    cooperative_groups::grid_group::arrival_token token = 0;
    if (FUSED) { /* step 8: this block's share of the output, then arrive (a block barrier too) */
        const size_t counters = (size_t)vr.channels * bins;
        const size_t block = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
        const size_t blocks = (size_t)gridDim.x * gridDim.y;
        for (size_t k = block * R6_THREADS + threadIdx.x; k < counters; k += blocks * R6_THREADS)
            d_out[k] = 0;
        if (block == 0 && threadIdx.x < gridDim.x && dyn_tiles > 0)
            d_next[threadIdx.x] = 0; /* each group's tile counter */
        token = cooperative_groups::this_grid().barrier_arrive();
    } else {
        __syncthreads(); /* all counters zeroed before any thread counts */
    }
    stamp<STAMPED>(d_stamps, STAMP_ZEROED);

    if (w < words)
        count_rows<CH>(p, step * vr.width / 4, n, s_hist + w, q);
    if (blockIdx.y == 0 && warp == 0) /* the bytes outside whole virtual rows */
        for (uint32_t v = lane; v < group_channels; v += 32) {
            const uint32_t slot = W * (v % 4) + v / 4; /* channel v's (the layout) */
            if (c0 + v + vr.shift >= vr.width)         /* before the first word: virtual row -1 */
                atomicAdd(&s_hist[d_samples[c0 + v + vr.shift - vr.width] * CH + slot], 1u);
            if (c0 + v < vr.tail) /* after the last whole virtual row */
                atomicAdd(&s_hist[aligned[vr.rows * vr.width + c0 + v] * CH + slot], 1u);
        }
    if (FUSED) {
        /* every block zeroed its share of the output and block 0 the counters (long since) */
        cooperative_groups::this_grid().barrier_wait(std::move(token));
        if (dyn_tiles > 0) { /* the last rows, a tile at a time to whichever block asks first */
            if (threadIdx.x == 0) {
                s_tile[0] = atomicAdd(&d_next[blockIdx.x], 1u);
                s_tile[1] = atomicAdd(&d_next[blockIdx.x], 1u);
            }
            __syncthreads();
            const size_t wpr = vr.width / 4;
            count_tiles<CH>(reinterpret_cast<const uint32_t *>(aligned + c0) +
                                (dyn_first + warp * R + q) * wpr + w,
                            wpr, dyn_tiles, w < words, s_hist + w, s_tile, &d_next[blockIdx.x], q);
        }
    }
    __syncthreads(); /* every count in before the histogram is read */
    stamp<STAMPED>(d_stamps, STAMP_COUNTED);
    flush_binned<FOLD, CH, FB>(s_hist, s_flush, s_real, s_fold, binning, bins, vr, d_out);
    stamp<STAMPED>(d_stamps, STAMP_FLUSHED);
}

/* ---- host side ---- */

/** @brief How the final kernel's output starts. */
enum any_start {
    ANY_ACCUMULATE, /**< not zeroed: the counts are added to what it holds, so that chunk after
                         chunk of a larger input sums into one histogram (day 07's pipelines) */
    ANY_MEMSET,     /**< zeroed by a memset before the kernel (step 7) */
    ANY_FUSED /**< zeroed by the kernel itself, launched cooperatively, and with a workspace of
                   any_workspace() bytes the last rows handed out as blocks ask (step 8);
                   where its blocks cannot all be resident at once (more channel groups than
                   SMs), as ANY_MEMSET */
};

/** @brief The four any_kernel() functions of one plan: FOLD x FUSED. */
#define R6_KERNELS(CH, FB, ST)                                                                     \
    {                                                                                              \
        (const void *)any_kernel<false, false, CH, FB, ST>,                                        \
            (const void *)any_kernel<false, true, CH, FB, ST>,                                     \
            (const void *)any_kernel<true, false, CH, FB, ST>,                                     \
            (const void *)any_kernel<true, true, CH, FB, ST>                                       \
    }

/**
 * @brief any_kernel() for a plan and a launch: one function of the 16 its template parameters
 *        make.
 * @param plan the plan (plan_for())
 * @param fold FOLD
 * @param fused FUSED
 * @tparam STAMPED the breakdown's build
 * @return the kernel
 */
template <bool STAMPED>
static const void *any_kernel_for(const any_plan &plan, bool fold, bool fused) {
    static const void *const kernels[][4] = {
        R6_KERNELS(128, 64, STAMPED), R6_KERNELS(128, 32, STAMPED), R6_KERNELS(64, 64, STAMPED),
        R6_KERNELS(32, 64, STAMPED)};
    size_t i = 0; /* the plan's row of R6_PLANS, whose order the table follows */
    while (R6_PLANS[i].channels != plan.channels || R6_PLANS[i].flush_bins != plan.flush_bins)
        ++i;
    return kernels[i][2 * fold + fused];
}

/**
 * @brief Launch any_kernel() on the problem's virtual rows, the output started as @p start says.
 * @param a the call's arguments
 * @param start how the output starts
 * @param stream the stream to queue the work on (0: the default stream)
 * @param d_stamps per-block stamps, or NULL (the breakdown's build only)
 * @param blocks receives the number of blocks launched (0: none)
 * @tparam STAMPED the breakdown's build
 * @return HIST_OK or the CUDA error
 */
template <bool STAMPED>
static hist_status launch_any(const hist_args *a, any_start start, cudaStream_t stream,
                              uint64_t *d_stamps, uint32_t *blocks) {
    const hist_problem *p = a->problem;
    *blocks = 0;
    const bool empty = hist_samples(p) == 0;
    const any_plan plan = plan_for(a->device);
    if (plan.channels == 0)
        return hist_fail(HIST_ERR_UNSUPPORTED, "day06's final kernel: %s",
                         unsupported_any(p, a->device));
    const any_grid g = grid_for(p, a->samples, a->device, plan.channels);
    /* a cooperative launch needs every block resident: one per SM, so no more blocks than SMs */
    const bool fused =
        start == ANY_FUSED && !empty && g.groups * g.chunks <= (uint32_t)a->device->sm_count;
    if (start != ANY_ACCUMULATE && !fused)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t), stream));
    if (empty)
        return HIST_OK;
    const bool fold = g.group_width > p->channels;
    const void *kernel = any_kernel_for<STAMPED>(plan, fold, fused);
    /* step 8, given a workspace for the counters: the last eighth of the rows in tiles handed
       out as blocks ask, the rest in fixed chunks as before */
    uint64_t chunk_rows = g.chunk_rows, dyn_first = g.vr.rows;
    uint32_t dyn_tiles = 0;
    uint32_t *d_next = fused ? (uint32_t *)a->workspace : NULL;
    if (d_next != NULL) {
        const uint64_t tile_rows = (uint64_t)R6_TILE_ROWS * (R6_CHANNELS / plan.channels);
        dyn_tiles = (uint32_t)(g.vr.rows / R6_DYN_SHARE / tile_rows);
        dyn_first = g.vr.rows - (uint64_t)dyn_tiles * tile_rows;
        chunk_rows = hist_split_rows(dyn_first, g.chunks).chunk_rows;
    }
    const uint32_t bins = hist_bins(p->binning);
    void *args[] = {(void *)&a->samples, (void *)&g.vr,       (void *)&g.group_width,
                    (void *)&chunk_rows, (void *)&dyn_first,  (void *)&dyn_tiles,
                    (void *)&d_next,     (void *)&p->binning, (void *)&bins,
                    (void *)&a->hist,    (void *)&d_stamps};
    *blocks = g.groups * g.chunks;
    return hist_launch_args(a->device, kernel, dim3(g.groups, g.chunks), R6_THREADS,
                            fold ? plan.smem : plan.smem_no_fold, stream, fused, args,
                            "any_kernel");
}

/* ---- step 9: one channel of a few megabytes (small.cuh) ---- */

/** @brief Whether step 9's plan takes @p p: one channel of at most R6_SMALL_MAX_BYTES.
 *  @param p the problem @return true if it does */
static bool small_applies(const hist_problem *p) {
    return p->channels == 1 && hist_samples(p) <= R6_SMALL_MAX_BYTES;
}

/**
 * @brief Launch small_kernel() (cooperatively: every block resident, its last block zeroing the
 *        output) on small_grid()'s grid: sized to the data, at most one block per SM.
 * @param a the call's arguments (one channel)
 * @param stream the stream
 * @param d_stamps per-block phase stamps (the breakdown's), or NULL
 * @return HIST_OK or the CUDA error
 */
static hist_status launch_small(const hist_args *a, cudaStream_t stream, uint64_t *d_stamps) {
    const hist_problem *p = a->problem;
    uint64_t n = hist_samples(p);
    uint32_t bins = hist_bins(p->binning), lo = p->binning.lo, hi = p->binning.hi,
             width = p->binning.width;
    void *args[] = {(void *)&a->samples, (void *)&n,    (void *)&lo,      (void *)&hi,
                    (void *)&width,      (void *)&bins, (void *)&a->hist, (void *)&d_stamps};
    return hist_launch_args(a->device, (const void *)small_kernel<uint32_t>,
                            dim3(small_grid(n, a->device->sm_count)), R6_SMALL_BLOCK, 0, stream, 1,
                            args, "small_kernel");
}

#ifndef DAY06_BREAKDOWN_BUILD /* the breakdown compiles this file again, stamped, without these */

/** @brief Step 9's registry entry: the small-input plan alone (unsupported_small() says where).
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_small(const hist_args *a) {
    return launch_small(a, 0, NULL);
}

/** @brief Step 7's registry entry: the output zeroed by a memset, then the kernel.
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_any_memset(const hist_args *a) {
    uint32_t blocks;
    return launch_any<false>(a, ANY_MEMSET, 0, NULL, &blocks);
}

/** @brief The registry's entry point of the final kernel: step 9's plan where it applies (one
 *  channel of a few megabytes), else step 8 (the zeroing fused).
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_any(const hist_args *a) {
    if (small_applies(a->problem))
        return launch_small(a, 0, NULL);
    uint32_t blocks;
    return launch_any<false>(a, ANY_FUSED, 0, NULL, &blocks);
}

/**
 * @brief The final kernel for other programs: the CS149 file and day 07's pipelines (on their
 *        streams, adding each chunk's counts to the output).
 * @param a the call's arguments
 * @param zero 1: zero the output, as the registry entry does (step 8: inside the kernel; with
 *        `a->workspace` of any_workspace() bytes, day06_final_workspace(), also the dynamic
 *        tiles); 0: add to it
 * @param stream the stream to queue the work on (0: the default stream)
 * @param blocks receives the number of blocks launched (grid x times grid y; 0: none)
 * @return HIST_OK or the CUDA error
 */
extern "C" hist_status day06_final_launch(const hist_args *a, int zero, cudaStream_t stream,
                                          uint32_t *blocks) {
    return launch_any<false>(a, zero ? ANY_FUSED : ANY_ACCUMULATE, stream, NULL, blocks);
}

/**
 * @brief The workspace day06_final_launch() can use (`a->workspace`) for step 8's dynamic tiles.
 * @param p the problem
 * @param dev the GPU
 * @return bytes
 */
extern "C" size_t day06_final_workspace(const hist_problem *p, const hist_device *dev) {
    return any_workspace(p, dev);
}

/**
 * @brief For day 07's pipelines: the final kernel's plan on @p dev, in one line.
 * @param p the problem
 * @param dev the GPU
 * @return the text
 */
extern "C" const char *day06_final_plan(const hist_problem *p, const hist_device *dev) {
    return describe_any_plan(p, dev);
}

/**
 * @brief For day 07's pipelines: why the final kernel cannot run @p p on @p dev, or NULL.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return the reason, or NULL
 */
extern "C" const char *day06_final_unsupported(const hist_problem *p, const hist_device *dev) {
    return unsupported_any(p, dev);
}

#endif /* DAY06_BREAKDOWN_BUILD */
