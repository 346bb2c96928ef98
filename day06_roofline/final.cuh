/**
 * @file final.cuh
 * @brief Day 06: what steps 7 and 8 share, the device functions their kernels (final.cu) are
 *        built from: counting a lane's rows, the bytes outside whole virtual rows, the flush
 *        for any binning, the phases' stamps; and step 8's own (the first rows prefetched, the
 *        output zeroed by the blocks, the tiles). Then the launches final.cu exports to the
 *        breakdown (breakdown.cu), stamped.
 */
#ifndef DAY06_FINAL_CUH
#define DAY06_FINAL_CUH

#include <cuda/ptx>

#include "hist.h"
#include "plan.cuh"
#include "ptx.cuh"
#include "roofline.cuh"

/* ---- steps 7 and 8: counting ---- */

/**
 * @brief Zero the block's `[256][CH]` histogram (16-byte stores) and fill its slot table: the
 *        real channel each slot counts (UINT32_MAX: none), virtual channel v of the group being
 *        real channel `(shift + c0 + v) % channels`.
 * @tparam CH channels per block (the plan's)
 * @param s_hist the histogram
 * @param s_real the slot table, CH entries
 * @param vr the virtual rows
 * @param c0 the group's first virtual channel
 * @param group_channels the group's virtual channels
 */
template <int CH>
__device__ __forceinline__ void start_block(uint32_t *s_hist, uint32_t *s_real, virtual_rows vr,
                                            uint32_t c0, uint32_t group_channels) {
    for (uint32_t k = threadIdx.x; k < R6_BINS * CH / 4; k += R6_THREADS)
        reinterpret_cast<uint4 *>(s_hist)[k] = make_uint4(0, 0, 0, 0); /* 16 bytes a store */
    if (threadIdx.x < CH) { /* each slot's real channel */
        const uint32_t v = slot_to_channel<4, CH>(threadIdx.x);
        s_real[threadIdx.x] = v < group_channels ? (vr.shift + c0 + v) % vr.channels : UINT32_MAX;
    }
}

/**
 * @brief One lane's rows: step 1's double-buffered loop of 32-bit loads, 8 in flight, each word
 *        counted by count_word(). Each load asks L2 for its whole 128-byte line
 *        (hist_ptx_ld_nc_L2_128B()): a block of 128 channels reads whole lines anyway; a block
 *        of 64 or 32 (the smaller GPUs' plans) reads 64 or 32 bytes of each row, and without the
 *        hint memory serves those as scattered 32-byte sectors, more slowly; with it the line's
 *        other sectors wait in L2 for the neighbouring groups' blocks (the notebook's *Plans*).
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
        0, 1, n, [&](uint64_t k) { return hist_ptx_ld_nc_L2_128B(p + k * stride); },
        [&](uint32_t v) { count_word<CH>(v, s_lane, q); });
}

/**
 * @brief The bytes outside whole virtual rows, a byte at a time by one warp (warp 0 of each
 *        group's first chunk): the `shift` bytes before the input's first word (virtual row
 *        -1) and the `tail` bytes after the last whole virtual row.
 * @tparam CH channels per block (the plan's)
 * @param d_samples the input as given
 * @param vr its virtual rows
 * @param c0 the group's first virtual channel
 * @param group_channels the group's virtual channels
 * @param s_hist the block's `[256][CH]` histogram
 * @param lane the thread's lane (the warp's 32 take every 32nd channel)
 */
template <int CH>
__device__ __forceinline__ void count_edges(const uint8_t *d_samples, virtual_rows vr, uint32_t c0,
                                            uint32_t group_channels, uint32_t *s_hist,
                                            uint32_t lane) {
    constexpr uint32_t W = CH / 4;
    const uint8_t *aligned = d_samples + vr.shift; /* a word boundary */
    for (uint32_t v = lane; v < group_channels; v += 32) {
        const uint32_t slot = W * (v % 4) + v / 4; /* channel v's (the layout) */
        if (c0 + v + vr.shift >= vr.width)         /* before the first word: virtual row -1 */
            atomicAdd(&s_hist[d_samples[c0 + v + vr.shift - vr.width] * CH + slot], 1u);
        if (c0 + v < vr.tail) /* after the last whole virtual row */
            atomicAdd(&s_hist[aligned[vr.rows * vr.width + c0 + v] * CH + slot], 1u);
    }
}

/* ---- steps 7 and 8: the flush ---- */

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

/* ---- where a block's time goes (the breakdown) ---- */

/** @brief The nanosecond stamps (%globaltimer) a block of steps 7 and 8 records in the
 *  breakdown's launches of them (STAMPED). */
enum stamp_at { STAMP_START, STAMP_ZEROED, STAMP_COUNTED, STAMP_FLUSHED, STAMPS };

/** @brief Record stamp @p at of this block in @p d_stamps (`[blocks][STAMPS]`): only in the
 *  breakdown's kernels (STAMPED), and there only when @p d_stamps is not NULL; compiled out of
 *  the registry's.
 * @tparam STAMPED the breakdown's kernel
 * @param d_stamps the stamps, or NULL
 * @param at which one
 */
template <bool STAMPED> __device__ __forceinline__ void stamp(uint64_t *d_stamps, stamp_at at) {
    if (STAMPED && d_stamps != NULL && threadIdx.x == 0)
        d_stamps[((size_t)blockIdx.y * gridDim.x + blockIdx.x) * STAMPS + at] =
            cuda::ptx::get_sreg_globaltimer();
}

/* ---- step 8's own ---- */

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
            hist_ptx_prefetch_global_L2(p + u * stride);
}

/**
 * @brief Step 8: this block's share of the output zeroed (the grid's blocks split its counters),
 *        and by block 0 each channel group's tile counter when there are tiles.
 * @param d_out the output
 * @param counters its counters
 * @param d_next the groups' tile counters (one per group: gridDim.x)
 * @param dyn_tiles the tiles (0: none, and @p d_next may be NULL)
 */
__device__ __forceinline__ void zero_output_share(uint32_t *d_out, size_t counters,
                                                  uint32_t *d_next, uint32_t dyn_tiles) {
    const size_t block = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    const size_t blocks = (size_t)gridDim.x * gridDim.y;
    for (size_t k = block * R6_THREADS + threadIdx.x; k < counters; k += blocks * R6_THREADS)
        d_out[k] = 0;
    if (block == 0 && threadIdx.x < gridDim.x && dyn_tiles > 0)
        d_next[threadIdx.x] = 0; /* each group's tile counter */
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
            cur[u] = hist_ptx_ld_nc_L2_128B(p + u * stride);
    for (uint32_t i = 0;; ++i) {
        uint32_t ahead = 0;
        if (threadIdx.x == 0) /* the tile after the next; needed only at the end of this one */
            ahead = atomicAdd(d_next, 1u);
        if (active)
#pragma unroll
            for (int b = 1; b < R6_TILE_BATCHES; ++b)
                r6_overlap(
                    cur,
                    [&](int u) { return hist_ptx_ld_nc_L2_128B(p + (b * R6_UNROLL + u) * stride); },
                    count);
        const uint32_t t_next = s_tile[(i + 1) % 3];
        const uint32_t *t_p = p0 + t_next * tile_words;
        if (active) /* the next tile's first batch in flight while this tile's last is counted */
            r6_overlap(
                cur,
                [&](int u) {
                    return t_next < tiles ? hist_ptx_ld_nc_L2_128B(t_p + u * stride) : 0u;
                },
                count);
        if (threadIdx.x == 0) /* tile i + 2; this slot was read (tile i - 1) before a barrier */
            s_tile[(i + 2) % 3] = ahead;
        __syncthreads(); /* the slot written is seen by all before they read it */
        if (t_next >= tiles)
            break;
        p = t_p;
    }
}

/* ---- final.cu's launches for the breakdown (breakdown.cu) ---- */

/**
 * @brief Steps 7 and 8 as day06_final_launch() runs them (@p zero 1: step 8, the output zeroed by
 *        the kernel; 0: step 7 adding to the output), every block stamping its phases into
 *        @p d_stamps (`[blocks][STAMPS]` nanoseconds); with @p d_stamps NULL the registry's own
 *        kernels, unstamped.
 * @param a the call's arguments (with step 8, a workspace of any_workspace() bytes: the tiles)
 * @param zero 1: step 8; 0: step 7, adding
 * @param stream the stream
 * @param d_stamps the stamps, or NULL
 * @param blocks receives the number of blocks launched (0: none)
 * @return HIST_OK or the CUDA error
 */
hist_status final_launch_stamped(const hist_args *a, int zero, cudaStream_t stream,
                                 uint64_t *d_stamps, uint32_t *blocks);

/**
 * @brief Step 9 (small.cuh) as the registry runs it, its counting blocks stamping their phases
 *        into @p d_stamps (`[blocks][SMALL_STAMPS]` nanoseconds) unless it is NULL.
 * @param a the call's arguments (one channel of at most R6_SMALL_MAX_BYTES)
 * @param stream the stream
 * @param d_stamps the stamps, or NULL
 * @return HIST_OK or the CUDA error
 */
hist_status small_launch_stamped(const hist_args *a, cudaStream_t stream, uint64_t *d_stamps);

#endif /* DAY06_FINAL_CUH */
