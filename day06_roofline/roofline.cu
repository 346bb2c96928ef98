/**
 * @file roofline.cu
 * @brief Day 06: the profile-guided kernel at the memory roofline (the published profile's next
 * steps).
 *
 * Day 05's L1/shared pipe was 95% busy, mostly replaying bank conflicts. Here every warp-wide
 * shared atomic hits 32 different banks whatever the data, loads are wide and many, and one
 * kernel does the whole job:
 *
 *  - a block owns 128 channels of a chunk of rows; its histogram is `[bin][slot]` in shared
 *    memory (256 x 128 x 4 bytes = 128 KiB, one block of 1024 threads per SM), where the slot of
 *    a channel is chosen so that the 32 lanes of a warp always use 32 different banks;
 *  - each thread loads VEC bytes of a row (4 or 16) with UNROLL loads in flight, double buffered;
 *  - at the end the block adds its counts into the output with global atomics (MERGE_ATOMIC),
 *    or stores them as partials for a reduction kernel (MERGE_PARTIALS), either straight from the
 *    histogram (scattered: 32 channels per warp instruction) or through a transposition buffer
 *    (COALESCED: 32 consecutive bins of one channel per warp instruction);
 *  - PREFETCH > 0 streams the input into L2 ahead of the loads (step 3, which did not pay).
 *
 * roofline_kernel()'s template parameters are steps 1-6 (byte histogram only, channels divisible
 * by VEC); step 6 is VEC 4, UNROLL 8, MERGE_ATOMIC, no prefetch, COALESCED. Step 7
 * (`gpu_r6_v7_any_shape`) is any_kernel(): step 6's loop and flush for any channel count, input
 * alignment and binning (the section "step 7" says how). Step 8, `gpu_roofline` at the bottom, the
 * answer, is the same kernel launched cooperatively: it zeroes the output itself and hands out
 * its last rows to whichever block asks first (the section "step 8"). `make submission` wraps it
 * for CS149 (submission.sh); day06_final_launch() gives breakdown.cu its phases.
 */
#include <cooperative_groups.h>
#include <utility>

#include "cuda_check.h"
#include "device.cuh"

/** @brief Threads per block: 32 warps, one block per SM. */
#define R6_THREADS 1024
/** @brief Channels per block. */
#define R6_CHANNELS 128
/** @brief Bins of the byte histogram. */
#define R6_BINS 256
/** @brief Shared histogram `[256 bins][128 slots]` of 32-bit counters: 128 KiB. */
#define R6_SMEM_BYTES (R6_BINS * R6_CHANNELS * sizeof(uint32_t))
/** @brief Bins the flush moves per round through its transposition buffer. */
#define R6_FLUSH_BINS 64
/** @brief The transposition buffer `[128 slots][64 bins + 1 word of padding]`: 33,280 bytes. */
#define R6_FLUSH_BYTES (R6_CHANNELS * (R6_FLUSH_BINS + 1) * sizeof(uint32_t))

/** @brief Loads in flight per thread in the final kernel (step 1's 8, double buffered). */
#define R6_UNROLL 8

/** @brief How a block's counts reach the output. */
enum merge_mode { MERGE_ATOMIC, MERGE_PARTIALS };

/* ---- the bank-conflict-free layout ----
 *
 * The counter of (bin, channel) sits at s_hist[bin * 128 + slot(channel)], so its bank is
 * slot(channel) % 32, whatever the bin. A warp's 32 atomics are conflict-free when its 32 lanes
 * count 32 channels with 32 different slot % 32: then any data, constant data included, costs one
 * pass through the banks.
 *
 * VEC = 4: lane L reads channels 4L..4L+3 of one row; byte b of it is channel 4L + b, at slot
 *          32b + L: bank L, always.
 * VEC = 16: lane L reads channels 16w..16w+15 (w = L % 8) of row L / 8 of the warp's 4 rows; four
 *          lanes share w. At step s (word i = s / 4, byte b = s % 4) the lane of row r counts
 *          word (i + r) % 4, so the four take the four words: channel 16w + 4q + b with
 *          q = (i + r) % 4, at slot 32b + 8q + w: bank 8q + w, different for all 32 lanes.
 */
/**
 * @brief The channel (within the block's 128) counted in @p slot: the layout above, inverted.
 * @param slot the slot, 0..127
 * @return the channel, 0..127
 */
template <int VEC> __device__ __forceinline__ uint32_t slot_to_channel(uint32_t slot) {
    // SOLUTION slot_to_channel [gpu_r6_v1_conflict_free gpu_r6_v2_wide_loads gpu_r6_v3_l2_prefetch gpu_r6_v4_partials gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel gpu_r6_v7_any_shape gpu_roofline]:
    //   invert the layout above: slot = 32b + bank, so VEC 4 counts channel 4 * bank + b there,
    //   and VEC 16 channel 16w + 4q + b with w = bank % 8, q = bank / 8.
    // stub: return slot;
    const uint32_t b = slot / 32, bank = slot % 32;
    if (VEC == 4)
        return 4 * bank + b;
    return 16 * (bank % 8) + 4 * (bank / 8) + b;
    // END SOLUTION
}

/* ---- counting ---- */

/** @brief Count the 4 bytes of a 32-bit word; @p s_word points at this lane's slot of byte 0,
 *  byte b lives 32 slots further per b.
 * @param v four bytes of four consecutive channels
 * @param s_word this lane's slot of byte 0 in `[bin][slot]`
 */
__device__ __forceinline__ void count_word(uint32_t v, uint32_t *s_word) {
    // SOLUTION count_word [gpu_r6_v1_conflict_free gpu_r6_v2_wide_loads gpu_r6_v3_l2_prefetch gpu_r6_v4_partials gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel gpu_r6_v7_any_shape gpu_roofline]:
    //   one shared atomicAdd per byte b of v (b = 0 is the low byte): its value is the bin, the
    //   row of 128 slots in [bin][slot]; the byte's slot is 32 * b past s_word's.
    // stub: (void)v, (void)s_word;
    atomicAdd(&s_word[(v & 0xFF) * R6_CHANNELS + 0], 1u);
    atomicAdd(&s_word[((v >> 8) & 0xFF) * R6_CHANNELS + 32], 1u);
    atomicAdd(&s_word[((v >> 16) & 0xFF) * R6_CHANNELS + 64], 1u);
    atomicAdd(&s_word[(v >> 24) * R6_CHANNELS + 96], 1u);
    // END SOLUTION
}

/** @brief What one thread loads per row: a word, or 4 words. */
template <int VEC> struct load_t;
/** @brief 32-bit loads. */
template <> struct load_t<4> { typedef uint32_t type; /**< one word */ };
/** @brief 16-byte loads. */
template <> struct load_t<16> { typedef uint4 type; /**< four words */ };

/**
 * @brief Count a 32-bit load.
 * @param v the load
 * @param s_lane this lane's first slot
 */
__device__ __forceinline__ void count_load(uint32_t v, uint32_t *s_lane, uint32_t,
                                           const uint32_t *) {
    count_word(v, s_lane);
}
/**
 * @brief Count a 16-byte load, its words rotated by the lane's row (see the layout above).
 * @param v the load: 16 channels of one row
 * @param s_hist the block's `[bin][slot]` histogram
 * @param row_in_warp which of the warp's 4 rows this lane reads
 * @param word_slot this lane's slot of byte 0 of each of its 4 words
 */
__device__ __forceinline__ void count_load(uint4 v, uint32_t *s_hist, uint32_t row_in_warp,
                                           const uint32_t *word_slot) {
    /* rotate the 4 words by row_in_warp: two conditional swaps instead of a dynamic index */
    uint32_t w0 = v.x, w1 = v.y, w2 = v.z, w3 = v.w, t;
    if (row_in_warp & 1) {
        t = w0;
        w0 = w1;
        w1 = w2;
        w2 = w3;
        w3 = t;
    }
    if (row_in_warp & 2) {
        t = w0;
        w0 = w2;
        w2 = t;
        t = w1;
        w1 = w3;
        w3 = t;
    }
    count_word(w0, s_hist + word_slot[0]);
    count_word(w1, s_hist + word_slot[1]);
    count_word(w2, s_hist + word_slot[2]);
    count_word(w3, s_hist + word_slot[3]);
}

/* ---- streaming ahead into L2 ----
 *
 * The loads of a warp wait in the same queue as its atomics, so fewer bytes are in flight than
 * the loop asks for. The copy engine's bulk L2 prefetch needs one instruction for kilobytes:
 * thread 0 of each block prefetches its share of the chunk's rows (the groups' blocks of a chunk
 * split the full rows between them) PREFETCH batches ahead, and the loads then hit in L2. */
/**
 * @brief Bulk-prefetch rows `[first_row, first_row + n_rows)` (all channels) into L2.
 * @param d_samples the input
 * @param first_row the first row to prefetch
 * @param n_rows how many
 * @param rows the input's rows (nothing past them is prefetched)
 * @param channels channels per row
 */
__device__ __forceinline__ void prefetch_rows_l2(const uint8_t *d_samples, uint64_t first_row,
                                                 uint64_t n_rows, uint64_t rows,
                                                 uint32_t channels) {
    const uint64_t end_row = min(first_row + n_rows, rows);
    if (first_row >= end_row)
        return;
    const uint64_t begin = (first_row * channels) & ~UINT64_C(15); /* 16-byte aligned */
    const uint64_t end = (end_row * channels) & ~UINT64_C(15);
    for (uint64_t at = begin; at < end; at += UINT64_C(1) << 20) { /* at most 1 MiB each */
        const uint32_t bytes = (uint32_t)min(end - at, UINT64_C(1) << 20);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* a Hopper instruction */
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(d_samples + at), "r"(bytes)
                     : "memory");
#else
        (void)bytes; /* not built for Hopper: unsupported() keeps step 3 off this GPU */
#endif
    }
}

/* ---- the flush ----
 *
 * Scattered: slot-major reads of the histogram are conflict-free, but then a warp's 32 counts go
 * to 32 channels, 4 KiB apart in the output (lanes count every 4th channel): 32 separate sectors
 * per instruction, 4.3 million in all on the main preset, every one of them live on uniform data.
 * Coalesced: 64 bins at a time go through a padded [slot][64 + 1] buffer (both its writes and its
 * reads are conflict-free thanks to the padding), so that a warp then adds 32 consecutive bins of
 * one channel: one 128-byte line per instruction. */
/**
 * @brief Flush straight from the histogram: 32 channels (32 sectors) per warp instruction.
 * @param s_hist the block's `[bin][slot]` histogram
 * @param c0 the block's first channel
 * @param group_channels channels this block counts (fewer in a last, partial group)
 * @param d_dest the output or this chunk's partials
 */
template <int VEC, merge_mode MERGE>
__device__ __forceinline__ void flush_scattered(const uint32_t *s_hist, uint32_t c0,
                                                uint32_t group_channels, uint32_t *d_dest) {
    for (uint32_t k = threadIdx.x; k < R6_BINS * R6_CHANNELS; k += blockDim.x) {
        const uint32_t bin = k / R6_CHANNELS, channel = slot_to_channel<VEC>(k % R6_CHANNELS);
        if (channel >= group_channels)
            continue;
        const uint32_t count = s_hist[k];
        uint32_t *dest = &d_dest[(size_t)(c0 + channel) * R6_BINS + bin];
        if (MERGE == MERGE_PARTIALS)
            *dest = count;
        else if (count > 0)
            atomicAdd(dest, count);
    }
}

/** @brief Flush through the padded transposition buffer: 32 consecutive bins per warp instruction.
 * @param s_hist the block's `[bin][slot]` histogram
 * @param s_flush the `[128][65]` transposition buffer
 * @param c0 the block's first channel
 * @param group_channels channels this block counts
 * @param d_dest the output or this chunk's partials
 */
template <int VEC, merge_mode MERGE>
__device__ __forceinline__ void flush_coalesced(const uint32_t *s_hist, uint32_t *s_flush,
                                                uint32_t c0, uint32_t group_channels,
                                                uint32_t *d_dest) {
    // SOLUTION flush_coalesced [gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel]: 64 bins at a time: copy
    //   s_hist[(b0 + bin) * 128 + slot] to s_flush[slot * 65 + bin] (k = bin * 128 + slot per
    //   thread), barrier, then read it slot-major (k = slot * 64 + bin) so a warp handles 32
    //   consecutive bins of one channel: skip channels >= group_channels, then MERGE_PARTIALS
    //   stores, MERGE_ATOMIC adds the non-zero counts; barrier before the next 64 bins.
    // stub: (void)s_hist, (void)s_flush, (void)c0, (void)group_channels, (void)d_dest;
    const uint32_t pad = R6_FLUSH_BINS + 1;
    for (uint32_t b0 = 0; b0 < R6_BINS; b0 += R6_FLUSH_BINS) {
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * R6_CHANNELS; k += blockDim.x) {
            const uint32_t bin = k / R6_CHANNELS, slot = k % R6_CHANNELS;
            s_flush[slot * pad + bin] = s_hist[(b0 + bin) * R6_CHANNELS + slot];
        }
        __syncthreads(); /* the buffer is full */
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * R6_CHANNELS; k += blockDim.x) {
            const uint32_t slot = k / R6_FLUSH_BINS, bin = k % R6_FLUSH_BINS;
            const uint32_t channel = slot_to_channel<VEC>(slot);
            if (channel >= group_channels)
                continue;
            const uint32_t count = s_flush[slot * pad + bin];
            uint32_t *dest = &d_dest[(size_t)(c0 + channel) * R6_BINS + b0 + bin];
            if (MERGE == MERGE_PARTIALS)
                *dest = count;
            else if (count > 0)
                atomicAdd(dest, count);
        }
        __syncthreads(); /* the buffer is read before the next round overwrites it */
    }
    // END SOLUTION
}

/** @brief Day 06's kernel: one block counts 128 channels of a chunk of rows conflict-free in
 *  shared memory, then flushes (see the file comment for the template parameters).
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by VEC)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]` (zeroed, MERGE_ATOMIC) or the partials, one per chunk
 * (MERGE_PARTIALS)
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. `run_roofline()`: a grid of (channel groups of 128, row
 * chunks: SMs / groups), R6_THREADS (1024) threads, one block per SM, `R6_SMEM_BYTES` (128 KiB)
 * plus, when COALESCED, `R6_FLUSH_BYTES` (33,280 bytes) of dynamic shared memory: 164,352 bytes,
 * opted in (`cudaFuncSetAttribute`); with MERGE_ATOMIC the output is zeroed before.
 */
template <int VEC, int UNROLL, merge_mode MERGE, int PREFETCH, bool COALESCED>
__global__ void __launch_bounds__(R6_THREADS, 1)
    roofline_kernel(const uint8_t *__restrict__ d_samples, uint64_t rows, uint32_t channels,
                    uint64_t chunk_rows, uint32_t *__restrict__ d_out) {
    typedef typename load_t<VEC>::type load_type;
    extern __shared__ uint32_t s_hist[]; /* [256 bins][128 slots] */
    for (uint32_t k = threadIdx.x; k < R6_BINS * R6_CHANNELS; k += blockDim.x)
        s_hist[k] = 0;
    __syncthreads(); /* all counters zeroed before any thread counts */

    const uint32_t c0 = blockIdx.x * R6_CHANNELS;
    const uint32_t group_loads = min((uint32_t)R6_CHANNELS, channels - c0) / VEC;
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t loads_per_row = R6_CHANNELS / VEC;  /* 32 or 8 */
    const uint32_t rows_per_warp = 32 / loads_per_row; /* 1 or 4 */
    const uint32_t load_in_row = lane % loads_per_row;
    const uint32_t row_in_warp = lane / loads_per_row;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * rows_per_warp;
    const uint64_t r0 = blockIdx.y * chunk_rows;
    const uint64_t r1 = min(r0 + chunk_rows, rows);

    /* this lane's slot for byte 0 of each word it counts (see the layout above) */
    uint32_t word_slot[4];
    if (VEC == 4) {
        word_slot[0] = lane;
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            word_slot[i] = 8 * ((i + row_in_warp) % 4) + load_in_row;
    }
    uint32_t *s_base = VEC == 4 ? s_hist + lane : s_hist;

    if (load_in_row < group_loads) { /* a last, partial channel group leaves some lanes idle */
        const load_type *column = reinterpret_cast<const load_type *>(d_samples + c0) + load_in_row;
        const size_t row_stride = channels / VEC; /* in loads */
        uint64_t r = r0 + warp * rows_per_warp + row_in_warp;
        const uint64_t batch_rows = UNROLL * step;
        const uint32_t groups = gridDim.x;
        const uint64_t share = max(batch_rows / groups, (uint64_t)1);
        if (PREFETCH > 0 && threadIdx.x == 0) /* the first batches, this block's share */
            for (int b = 0; b < PREFETCH; ++b)
                prefetch_rows_l2(d_samples, r0 + (uint64_t)b * batch_rows + blockIdx.x * share,
                                 share, r1, channels);
        load_type cur[UNROLL], next[UNROLL];
        if (r + (UNROLL - 1) * step < r1) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                cur[u] = column[(r + u * step) * row_stride];
            r += UNROLL * step;
            while (r + (UNROLL - 1) * step < r1) {
                if (PREFETCH > 0 && threadIdx.x == 0)
                    prefetch_rows_l2(d_samples,
                                     r + (uint64_t)(PREFETCH > 0 ? PREFETCH - 1 : 0) * batch_rows +
                                         blockIdx.x * share,
                                     share, rows, channels);
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) /* the next batch in flight ... */
                    next[u] = column[(r + u * step) * row_stride];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) /* ... while this one is counted */
                    count_load(cur[u], s_base, row_in_warp, word_slot);
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    cur[u] = next[u];
                r += UNROLL * step;
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                count_load(cur[u], s_base, row_in_warp, word_slot);
        }
        for (; r < r1; r += step)
            count_load(column[r * row_stride], s_base, row_in_warp, word_slot);
    }
    __syncthreads(); /* every count in before the histogram is read */

    const uint32_t group_channels = group_loads * VEC;
    uint32_t *d_dest = MERGE == MERGE_ATOMIC
                           ? d_out
                           : d_out + (size_t)blockIdx.y * channels * R6_BINS; /* this chunk */
    if (COALESCED)
        flush_coalesced<VEC, MERGE>(s_hist, s_hist + R6_BINS * R6_CHANNELS, c0, group_channels,
                                    d_dest);
    else
        flush_scattered<VEC, MERGE>(s_hist, c0, group_channels, d_dest);
}

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
 * @brief One warp's rows: step 1's double-buffered loop of 32-bit loads, 8 in flight, each word
 *        counted by count_word().
 * @param p the warp's first row's word at the group's first channel
 * @param stride words from one of the warp's rows to its next (32 rows further)
 * @param n how many rows the warp counts
 * @param s_lane this lane's slot of byte 0 in `[bin][slot]`
 */
__device__ __forceinline__ void count_rows(const uint32_t *__restrict__ p, size_t stride,
                                           uint64_t n, uint32_t *s_lane) {
    const uint32_t lane = threadIdx.x % 32;
    uint32_t cur[R6_UNROLL], next[R6_UNROLL];
    uint64_t k = 0;
    if (n >= R6_UNROLL) {
#pragma unroll
        for (int u = 0; u < R6_UNROLL; ++u)
            cur[u] = __ldg(p + u * stride + lane);
        p += R6_UNROLL * stride;
        for (k = R6_UNROLL; k + R6_UNROLL <= n; k += R6_UNROLL) {
#pragma unroll
            for (int u = 0; u < R6_UNROLL; ++u) /* the next batch in flight ... */
                next[u] = __ldg(p + u * stride + lane);
#pragma unroll
            for (int u = 0; u < R6_UNROLL; ++u) /* ... while this one is counted */
                count_word(cur[u], s_lane);
#pragma unroll
            for (int u = 0; u < R6_UNROLL; ++u)
                cur[u] = next[u];
            p += R6_UNROLL * stride;
        }
#pragma unroll
        for (int u = 0; u < R6_UNROLL; ++u)
            count_word(cur[u], s_lane);
    }
    for (; k < n; ++k, p += stride)
        count_word(__ldg(p + lane), s_lane);
}

/** @brief The virtual rows of the final kernel (see the section comment). */
typedef struct virtual_rows {
    uint32_t channels; /**< real channels per row */
    uint32_t width;    /**< virtual channels per virtual row: a multiple of 4 and of channels */
    uint32_t shift;    /**< bytes from the input's start to its first word (0..3, at most its
                            size): virtual channel v is real channel (shift + v) % channels */
    uint64_t rows;     /**< whole virtual rows after those bytes */
    uint32_t tail;     /**< bytes after the last whole virtual row (fewer than width) */
} virtual_rows;

/**
 * @brief The flush for any binning and any virtual-to-real channel map: 64 bins at a time, bin b
 *        of slot s summed from its values' counters into the `[128][65]` buffer (as in step 5),
 *        then added to the output, 32 consecutive bins of one channel per warp instruction; with
 *        FOLD, first summed per real channel in a second `[128][65]` buffer. The loops index by
 *        the constants 64 and 128 (shifts): a division by the run-time bin count per counter cost
 *        4 us more per block, measured.
 * @param s_hist the block's `[256 values][128 slots]` histogram
 * @param s_flush the transposition buffer
 * @param s_real the real channel of each slot (UINT32_MAX: none)
 * @param s_fold FOLD's per-real-channel buffer
 * @param b the binning
 * @param bins its bins (hist_bins())
 * @param vr the virtual rows (channels: the real count)
 * @param d_out the output `[channels][bins]`, zeroed
 */
template <bool FOLD>
__device__ __forceinline__ void
flush_binned(const uint32_t *s_hist, uint32_t *s_flush, const uint32_t *s_real, uint32_t *s_fold,
             hist_binning b, uint32_t bins, virtual_rows vr, uint32_t *d_out) {
    const uint32_t pad = R6_FLUSH_BINS + 1;
    /* each thread's share of a round: 8 counters, in both phases at a constant stride */
    const uint32_t per_thread = R6_FLUSH_BINS * R6_CHANNELS / R6_THREADS;
    uint32_t reals[R6_FLUSH_BINS * R6_CHANNELS / R6_THREADS]; /* the real channels of this
                                                                 thread's slots in phase 2 */
#pragma unroll
    for (uint32_t i = 0; i < per_thread; ++i)
        reals[i] = s_real[threadIdx.x / R6_FLUSH_BINS + i * (R6_THREADS / R6_FLUSH_BINS)];
    for (uint32_t b0 = 0; b0 < bins; b0 += R6_FLUSH_BINS) {
        const uint32_t n = min(bins - b0, (uint32_t)R6_FLUSH_BINS);
        /* k = bin * 128 + slot: fold values into bins, one slot per lane (slot fixed, bin + 8) */
#pragma unroll
        for (uint32_t i = 0; i < per_thread; ++i) {
            const uint32_t slot = threadIdx.x % R6_CHANNELS;
            const uint32_t bin = threadIdx.x / R6_CHANNELS + i * (R6_THREADS / R6_CHANNELS);
            if (bin >= n)
                continue;
            const uint32_t v0 = b.lo + (b0 + bin) * b.width;
            uint32_t sum = s_hist[v0 * R6_CHANNELS + slot];
            if (b.width > 1) { /* the bin's other values */
                const uint32_t v1 = min((uint32_t)b.hi, v0 + b.width - 1);
                for (uint32_t v = v0 + 1; v <= v1; ++v)
                    sum += s_hist[v * R6_CHANNELS + slot];
            }
            s_flush[slot * pad + bin] = sum;
            if (FOLD)
                s_fold[slot * pad + bin] = 0; /* real channels < 128 use rows 0..channels-1 */
        }
        __syncthreads(); /* the buffer is full */
        /* k = slot * 64 + bin: a warp takes consecutive bins of one slot (bin fixed, slot + 16) */
#pragma unroll
        for (uint32_t i = 0; i < per_thread; ++i) {
            const uint32_t bin = threadIdx.x % R6_FLUSH_BINS;
            const uint32_t slot = threadIdx.x / R6_FLUSH_BINS + i * (R6_THREADS / R6_FLUSH_BINS);
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
            for (uint32_t k = threadIdx.x; k < vr.channels * R6_FLUSH_BINS; k += R6_THREADS) {
                const uint32_t real = k / R6_FLUSH_BINS, bin = k % R6_FLUSH_BINS;
                const uint32_t count = s_fold[real * pad + bin];
                if (bin < n && count > 0)
                    atomicAdd(&d_out[(size_t)real * bins + b0 + bin], count);
            }
            __syncthreads(); /* read before the next round zeroes it */
        }
    }
}

/** @brief Where a block's time goes: nanosecond stamps (%globaltimer) a block can record. */
enum stamp_at { STAMP_START, STAMP_ZEROED, STAMP_COUNTED, STAMP_FLUSHED, STAMPS };

/** @brief Record stamp @p at of this block in @p d_stamps (`[blocks][STAMPS]`), if not NULL.
 * @param d_stamps the stamps, or NULL
 * @param at which one
 */
__device__ __forceinline__ void stamp(uint64_t *d_stamps, stamp_at at) {
    if (d_stamps != NULL && threadIdx.x == 0) {
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
 * @brief Step 8: bring the first rows of this warp towards the SM (an L2 prefetch of each of its
 *        first R6_UNROLL rows), so that the loop's first loads do not start from DRAM while the
 *        block zeroes its histogram.
 * @param p the warp's first row's word at the group's first channel
 * @param stride words from one of the warp's rows to its next
 * @param n how many rows the warp counts
 */
__device__ __forceinline__ void prefetch_first_rows(const uint32_t *p, size_t stride, uint64_t n) {
    const uint32_t lane = threadIdx.x % 32;
#pragma unroll
    for (uint32_t u = 0; u < R6_UNROLL; ++u)
        if (u < n)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(p + u * stride + lane));
}

/** @brief Step 8's dynamic tiles: batches of R6_UNROLL rows per warp in each tile. */
#define R6_TILE_BATCHES 2
/** @brief Virtual rows per dynamic tile: 32 warps x 2 batches x 8 rows = 512. */
#define R6_TILE_ROWS (32 * R6_UNROLL * R6_TILE_BATCHES)

/**
 * @brief Step 8: count the tiles this block is handed, step 1's loop continued across tiles. A
 *        tile is R6_TILE_ROWS virtual rows, warp w counting rows w, w + 32, ... of it. Thread 0
 *        asks for tiles two ahead (atomicAdd on the group's counter), so that no warp waits for
 *        an index: each warp loads the first batch of the next tile before it counts the last
 *        batch of this one, then the block meets at one barrier per tile. The indices go round
 *        three slots: slot k % 3 holds the k-th tile's, so the slot thread 0 writes at the end of
 *        a tile was last read before the previous barrier.
 * @param p0 this warp's word of row 0 of the dynamic rows (at the group's first channel, minus
 *        the lane)
 * @param wpr words per virtual row
 * @param tiles tiles in the dynamic rows
 * @param active this lane counts (lanes past the group's words only keep the barriers)
 * @param s_lane this lane's slot of byte 0 in `[bin][slot]`
 * @param s_tile three slots: the block's first two tile indices in 0 and 1 (filled before the
 *        call)
 * @param d_next the group's tile counter
 */
__device__ __forceinline__ void count_tiles(const uint32_t *__restrict__ p0, size_t wpr,
                                            uint32_t tiles, bool active, uint32_t *s_lane,
                                            uint32_t *s_tile, uint32_t *d_next) {
    const uint32_t lane = threadIdx.x % 32;
    const size_t stride = 32 * wpr; /* one of the warp's rows to its next */
    const size_t tile_words = R6_TILE_ROWS * wpr;
    uint32_t t = s_tile[0];
    if (t >= tiles) /* the same for every thread */
        return;
    const uint32_t *p = p0 + t * tile_words;
    uint32_t cur[R6_UNROLL], next[R6_UNROLL];
    if (active)
#pragma unroll
        for (int u = 0; u < R6_UNROLL; ++u)
            cur[u] = __ldg(p + u * stride + lane);
    for (uint32_t i = 0;; ++i) {
        uint32_t ahead = 0;
        if (threadIdx.x == 0) /* the tile after the next; needed only at the end of this one */
            ahead = atomicAdd(d_next, 1u);
        if (active)
#pragma unroll
            for (int b = 1; b < R6_TILE_BATCHES; ++b) {
#pragma unroll
                for (int u = 0; u < R6_UNROLL; ++u)
                    next[u] = __ldg(p + (b * R6_UNROLL + u) * stride + lane);
#pragma unroll
                for (int u = 0; u < R6_UNROLL; ++u)
                    count_word(cur[u], s_lane);
#pragma unroll
                for (int u = 0; u < R6_UNROLL; ++u)
                    cur[u] = next[u];
            }
        const uint32_t t_next = s_tile[(i + 1) % 3];
        const uint32_t *q = p0 + t_next * tile_words;
        if (active) {
            if (t_next < tiles) /* the next tile's first batch in flight ... */
#pragma unroll
                for (int u = 0; u < R6_UNROLL; ++u)
                    next[u] = __ldg(q + u * stride + lane);
#pragma unroll
            for (int u = 0; u < R6_UNROLL; ++u) /* ... while this tile's last is counted */
                count_word(cur[u], s_lane);
#pragma unroll
            for (int u = 0; u < R6_UNROLL; ++u)
                cur[u] = next[u];
        }
        if (threadIdx.x == 0) /* tile i + 2; this slot was read (tile i - 1) before a barrier */
            s_tile[(i + 2) % 3] = ahead;
        __syncthreads(); /* the slot written is seen by all before they read it */
        if (t_next >= tiles)
            break;
        p = q;
    }
}

/**
 * @brief The final kernel: step 6's loop and flush over virtual rows, for any channel count,
 *        input alignment and binning (see the section comment); with FUSED (step 8) it also
 *        zeroes the output itself.
 * @tparam FOLD a group is wider than the real channels: fold its virtual channels in shared
 *         memory before adding to the output
 * @tparam FUSED launched cooperatively: every block zeroes its share of the output, arrives at a
 *         grid barrier, counts, and waits at that barrier only before its flush (by then every
 *         block zeroed its share long ago, so nobody waits)
 * @param d_samples the input as given, row-major `[rows][channels]`, any alignment
 * @param vr its virtual rows
 * @param group_width virtual channels per block (a multiple of 4, at most 128; the last group
 *        may have fewer)
 * @param chunk_rows virtual rows per block in its fixed chunk
 * @param dyn_first the first virtual row handed out in tiles (vr.rows: none)
 * @param dyn_tiles tiles of R6_TILE_ROWS rows from dyn_first on (FUSED only; 0: none)
 * @param d_next a tile counter per channel group (FUSED with tiles; zeroed by block 0), or NULL
 * @param binning the binning (applied by the flush)
 * @param bins its bins (hist_bins())
 * @param d_out the output `[channels][bins]`: zeroed before (not FUSED) or by the kernel (FUSED)
 * @param d_stamps per-block phase stamps (`[blocks][STAMPS]`), or NULL
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. `launch_any()`: a grid of (virtual channel groups, row
 * chunks: SMs / groups), R6_THREADS (1024) threads, `R6_SMEM_BYTES` (128 KiB) plus
 * `R6_FLUSH_BYTES` (33,280 bytes) plus 512 bytes (and with FOLD another `R6_FLUSH_BYTES`) of
 * dynamic shared memory; FUSED: a cooperative launch (all blocks resident at once), otherwise the
 * output zeroed before.
 */
template <bool FOLD, bool FUSED>
__global__ void __launch_bounds__(R6_THREADS, 1)
    any_kernel(const uint8_t *__restrict__ d_samples, virtual_rows vr, uint32_t group_width,
               uint64_t chunk_rows, uint64_t dyn_first, uint32_t dyn_tiles, uint32_t *d_next,
               hist_binning binning, uint32_t bins, uint32_t *__restrict__ d_out,
               uint64_t *d_stamps) {
    __shared__ uint32_t s_tile[3];       /* step 8: the block's next dynamic tiles */
    extern __shared__ uint32_t s_hist[]; /* [256 values][128 slots], then the flush buffers */
    uint32_t *s_flush = s_hist + R6_BINS * R6_CHANNELS;
    uint32_t *s_real = s_flush + R6_CHANNELS * (R6_FLUSH_BINS + 1);
    uint32_t *s_fold = s_real + R6_CHANNELS;
    stamp(d_stamps, STAMP_START);
    const uint32_t c0 = blockIdx.x * group_width;
    const uint32_t group_channels = min(group_width, vr.width - c0);
    const uint32_t words = (group_channels + 3) / 4; /* lanes that count */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint64_t step = R6_THREADS / 32; /* one virtual row per warp */
    const uint64_t r0 = blockIdx.y * chunk_rows;
    const uint64_t r1 = min(r0 + chunk_rows, dyn_first); /* the rest is handed out (FUSED) */
    const uint8_t *aligned = d_samples + vr.shift;       /* a word boundary */
    const uint64_t n = r1 > r0 + warp ? (r1 - r0 - warp + step - 1) / step : 0;
    const uint32_t *p = reinterpret_cast<const uint32_t *>(aligned + (r0 + warp) * vr.width + c0);
    if (FUSED && lane < words) /* step 8: the first rows on their way during the zeroing */
        prefetch_first_rows(p, step * vr.width / 4, n);

    for (uint32_t k = threadIdx.x; k < R6_BINS * R6_CHANNELS / 4; k += R6_THREADS)
        reinterpret_cast<uint4 *>(s_hist)[k] = make_uint4(0, 0, 0, 0); /* 16 bytes a store */
    if (threadIdx.x < R6_CHANNELS) { /* each slot's real channel */
        const uint32_t v = slot_to_channel<4>(threadIdx.x);
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
    stamp(d_stamps, STAMP_ZEROED);

    if (lane < words) {
        count_rows(p, step * vr.width / 4, n, s_hist + lane);
        if (blockIdx.y == 0 && warp == 0) { /* the bytes outside whole virtual rows */
#pragma unroll
            for (uint32_t j = 0; j < 4; ++j) {
                const uint32_t v = 4 * lane + j; /* in the group; count_word()'s slot */
                if (v >= group_channels)
                    continue;
                if (c0 + v + vr.shift >= vr.width) /* before the first word: virtual row -1 */
                    atomicAdd(&s_hist[d_samples[c0 + v + vr.shift - vr.width] * R6_CHANNELS +
                                      32 * j + lane],
                              1u);
                if (c0 + v < vr.tail) /* after the last whole virtual row */
                    atomicAdd(
                        &s_hist[aligned[vr.rows * vr.width + c0 + v] * R6_CHANNELS + 32 * j + lane],
                        1u);
            }
        }
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
            count_tiles(reinterpret_cast<const uint32_t *>(aligned + c0) + (dyn_first + warp) * wpr,
                        wpr, dyn_tiles, lane < words, s_hist + lane, s_tile, &d_next[blockIdx.x]);
        }
    }
    __syncthreads(); /* every count in before the histogram is read */
    stamp(d_stamps, STAMP_COUNTED);
    flush_binned<FOLD>(s_hist, s_flush, s_real, s_fold, binning, bins, vr, d_out);
    stamp(d_stamps, STAMP_FLUSHED);
}

/* ---- host side ---- */

/** @brief Row chunks: enough blocks for one per SM (4 groups x 33 chunks = 132 on an H100). */
static uint32_t chunks_for(const hist_problem *p, const hist_device *dev, uint64_t *chunk_rows) {
    const uint32_t groups = (p->channels + R6_CHANNELS - 1) / R6_CHANNELS;
    uint64_t chunks = (uint64_t)dev->sm_count / groups;
    if (chunks < 1)
        chunks = 1;
    *chunk_rows = p->rows > 0 ? HIST_CEIL_DIV(p->rows, chunks) : 1;
    return p->rows > 0 ? (uint32_t)HIST_CEIL_DIV(p->rows, *chunk_rows) : 1;
}

template <int VEC, int UNROLL, merge_mode MERGE, int PREFETCH, bool COALESCED>
static hist_status run_roofline(const hist_args *a) {
    const hist_problem *p = a->problem;
    uint64_t chunk_rows = 0;
    const uint32_t chunks = chunks_for(p, a->device, &chunk_rows);
    const uint32_t groups = (p->channels + R6_CHANNELS - 1) / R6_CHANNELS;
    const size_t smem_bytes = R6_SMEM_BYTES + (COALESCED ? R6_FLUSH_BYTES : 0);
    if (smem_bytes > a->device->smem_per_block_optin)
        return hist_fail(HIST_ERR_UNSUPPORTED,
                         "day06 needs %zu bytes of shared memory per block; %s allows %zu",
                         smem_bytes, a->device->name, a->device->smem_per_block_optin);
    auto kernel = roofline_kernel<VEC, UNROLL, MERGE, PREFETCH, COALESCED>;
    HIST_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_bytes));
    uint32_t *d_dest = MERGE == MERGE_ATOMIC ? a->hist : (uint32_t *)a->workspace;
    if (MERGE == MERGE_ATOMIC)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows > 0) {
        kernel<<<dim3(groups, chunks), R6_THREADS, smem_bytes>>>(a->samples, p->rows, p->channels,
                                                                 chunk_rows, d_dest);
        HIST_CUDA_TRY_LAUNCH("roofline_kernel");
    } else if (MERGE == MERGE_PARTIALS) {
        HIST_CUDA_TRY(cudaMemsetAsync(d_dest, 0, hist_counters(p) * sizeof(uint32_t)));
    }
    if (MERGE == MERGE_PARTIALS) /* day 03's merge (common/device.cuh) */
        return hist_sum_partials(d_dest, chunks, hist_counters(p), a->hist);
    return HIST_OK;
}

static size_t partials_bytes(const hist_problem *p, const hist_device *dev) {
    uint64_t chunk_rows = 0;
    return (size_t)chunks_for(p, dev, &chunk_rows) * hist_counters(p) * sizeof(uint32_t);
}

/* Whether this build holds Hopper code for step 3's kernel (an ARCH=sm_80 build runs on an H100
   from compute_80 PTX, where the bulk prefetch is compiled out). */
static bool built_for_hopper() {
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, roofline_kernel<4, 8, MERGE_ATOMIC, 2, false>) !=
        cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.ptxVersion >= 90;
}

template <int VEC, int PREFETCH>
static const char *unsupported(const hist_problem *p, const hist_device *dev) {
    if (!hist_is_byte_binning(p->binning))
        return "byte histogram only (--lo 0 --hi 255 --width 1)";
    if (p->channels % VEC != 0)
        return VEC == 4 ? "channels must be divisible by 4 (32-bit loads)"
                        : "channels must be divisible by 16 (16-byte loads)";
    if (PREFETCH > 0 && dev && dev->cc_major < 9)
        return "needs a Hopper GPU (compute capability 9.0) for cp.async.bulk.prefetch";
    if (PREFETCH > 0 && dev && !built_for_hopper())
        return "this build has no sm_90 code for cp.async.bulk.prefetch (build with ARCH=sm_90)";
    return NULL;
}

/** @brief One registry entry of a roofline_kernel() configuration. */
#define ROOFLINE_IMPL(name, summary, vec, unroll, merge, prefetch, coalesced, target)              \
    {                                                                                              \
        name, "day06_roofline", HIST_DEVICE, summary,                                              \
            prefetch > 0 ? "byte histogram only; channels divisible by 4; Hopper (sm_90) only"     \
            : vec == 4   ? "byte histogram only; channels divisible by 4"                          \
                         : "byte histogram only; channels divisible by 16",                          \
            unsupported<vec, prefetch>, merge == MERGE_PARTIALS ? partials_bytes : NULL,           \
            run_roofline<vec, unroll, merge, prefetch, coalesced>, target, 0                       \
    }

/* ---- host side of the final kernel ---- */

/**
 * @brief Virtual channels per virtual row for @p channels real ones: the least multiple of
 *        @p channels that is a multiple of 4 (a whole number of words), then as many of those as
 *        fit in one group of 128 when that is more than one (so that small channel counts fill
 *        the warp). (A multiple of 32, whole sectors, measured no faster: README.md.)
 * @param channels real channels per row
 * @return virtual channels per virtual row
 */
static uint32_t virtual_width(uint32_t channels) {
    // SOLUTION virtual_width [gpu_r6_v7_any_shape gpu_roofline]: rows per word-aligned run k = 4 / gcd(channels, 4)
    //   (1, 2 or 4); width = k * channels; if width < 128, the largest multiple of width that is
    //   at most 128.
    // stub: return channels;
    const uint32_t k = channels % 4 == 0 ? 1 : channels % 2 == 0 ? 2 : 4;
    const uint32_t width = k * channels;
    return width < R6_CHANNELS ? R6_CHANNELS / width * width : width;
    // END SOLUTION
}

/** @brief The final kernel's grid: balanced channel groups, and row chunks for one block per SM.
 */
typedef struct any_grid {
    virtual_rows vr;      /**< the input as virtual rows */
    uint32_t group_width; /**< virtual channels per group, a multiple of 4, at most 128 */
    uint32_t groups;      /**< channel groups (grid x) */
    uint64_t chunk_rows;  /**< virtual rows per block */
    uint32_t chunks;      /**< row chunks (grid y) */
} any_grid;

/**
 * @brief The grid for @p p's input at @p samples on @p dev: its virtual rows, ceil(width / 128)
 *        groups of equal width (rounded up to a word), then SMs / groups chunks of rows (at
 *        least one).
 * @param p the problem
 * @param samples the input (its alignment sets the shift)
 * @param dev the GPU
 * @return the grid
 */
static any_grid grid_for(const hist_problem *p, const uint8_t *samples, const hist_device *dev) {
    any_grid g;
    const uint64_t bytes = hist_samples(p);
    g.vr.channels = p->channels;
    g.vr.width = virtual_width(p->channels);
    g.vr.shift = (uint32_t)((4 - (uintptr_t)samples % 4) % 4); /* to a word */
    if (g.vr.shift > bytes)
        g.vr.shift = (uint32_t)bytes;
    g.vr.rows = (bytes - g.vr.shift) / g.vr.width;
    g.vr.tail = (uint32_t)(bytes - g.vr.shift - g.vr.rows * g.vr.width);
    const uint32_t groups = (g.vr.width + R6_CHANNELS - 1) / R6_CHANNELS;
    g.group_width = (((g.vr.width + groups - 1) / groups) + 3) / 4 * 4; /* whole words */
    g.groups = (g.vr.width + g.group_width - 1) / g.group_width;
    uint64_t chunks = (uint64_t)dev->sm_count / g.groups;
    if (chunks < 1)
        chunks = 1;
    g.chunk_rows = g.vr.rows > 0 ? HIST_CEIL_DIV(g.vr.rows, chunks) : 1;
    g.chunks = g.vr.rows > 0 ? (uint32_t)HIST_CEIL_DIV(g.vr.rows, g.chunk_rows) : 1;
    return g;
}

/** @brief Shared memory of the final kernel: histogram, flush buffer, slot map, and FOLD's
 *  buffer. */
#define R6_ANY_SMEM_BYTES (R6_SMEM_BYTES + 2 * R6_FLUSH_BYTES + R6_CHANNELS * sizeof(uint32_t))

/** @brief Step 8 hands out the last 1 / R6_DYN_SHARE of the rows in tiles (the spread of the
 *  blocks' finishing times must fit in it: about 5% on the main preset, 11% for 510 channels). */
#define R6_DYN_SHARE 8

/** @brief Step 8's workspace: a tile counter per channel group (at most one group per SM).
 * @param p the problem
 * @param dev the GPU (NULL: none needed)
 * @return bytes
 */
static size_t any_workspace(const hist_problem *p, const hist_device *dev) {
    (void)p;
    return dev ? (size_t)dev->sm_count * sizeof(uint32_t) : 0;
}

/** @brief How the final kernel's output starts. */
enum any_start {
    ANY_ADD,    /**< as it is: the counts are added to it (day 07's chunks; the breakdown) */
    ANY_MEMSET, /**< zeroed by a memset before the kernel (step 7) */
    ANY_FUSED   /**< zeroed by the kernel itself, launched cooperatively, and with a workspace of
                     any_workspace() bytes the last rows handed out as blocks ask (step 8);
                     where its blocks cannot all be resident at once (more channel groups than
                     SMs), as ANY_MEMSET */
};

/**
 * @brief Launch any_kernel() on the problem's virtual rows, the output started as @p start says.
 * @param a the call's arguments
 * @param start how the output starts
 * @param stream the stream to queue the work on (0: the default stream)
 * @param d_stamps per-block stamps, or NULL
 * @param blocks receives the number of blocks launched (0: none)
 * @return HIST_OK or the CUDA error
 */
static hist_status launch_any(const hist_args *a, any_start start, cudaStream_t stream,
                              uint64_t *d_stamps, uint32_t *blocks) {
    const hist_problem *p = a->problem;
    *blocks = 0;
    const bool empty = hist_samples(p) == 0;
    const any_grid g = grid_for(p, a->samples, a->device);
    /* a cooperative launch needs every block resident: one per SM, so no more blocks than SMs */
    const bool fused =
        start == ANY_FUSED && !empty && g.groups * g.chunks <= (uint32_t)a->device->sm_count;
    if (start != ANY_ADD && !fused)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t), stream));
    if (empty)
        return HIST_OK;
    const bool fold = g.group_width > p->channels;
    const void *kernel =
        fused
            ? (fold ? (const void *)any_kernel<true, true> : (const void *)any_kernel<false, true>)
            : (fold ? (const void *)any_kernel<true, false>
                    : (const void *)any_kernel<false, false>);
    const size_t smem = R6_ANY_SMEM_BYTES - (fold ? 0 : R6_FLUSH_BYTES);
    HIST_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    /* step 8, given a workspace for the counters: the last eighth of the rows in tiles handed
       out as blocks ask, the rest in fixed chunks as before */
    uint64_t chunk_rows = g.chunk_rows, dyn_first = g.vr.rows;
    uint32_t dyn_tiles = 0;
    uint32_t *d_next = fused ? (uint32_t *)a->workspace : NULL;
    if (d_next != NULL) {
        dyn_tiles = (uint32_t)(g.vr.rows / R6_DYN_SHARE / R6_TILE_ROWS);
        dyn_first = g.vr.rows - (uint64_t)dyn_tiles * R6_TILE_ROWS;
        chunk_rows = dyn_first > 0 ? HIST_CEIL_DIV(dyn_first, g.chunks) : 1;
    }
    const uint32_t bins = hist_bins(p->binning);
    void *args[] = {(void *)&a->samples, (void *)&g.vr,       (void *)&g.group_width,
                    (void *)&chunk_rows, (void *)&dyn_first,  (void *)&dyn_tiles,
                    (void *)&d_next,     (void *)&p->binning, (void *)&bins,
                    (void *)&a->hist,    (void *)&d_stamps};
    const dim3 grid(g.groups, g.chunks);
    if (fused)
        HIST_CUDA_TRY(
            cudaLaunchCooperativeKernel(kernel, grid, dim3(R6_THREADS), args, smem, stream));
    else
        HIST_CUDA_TRY(cudaLaunchKernel(kernel, grid, dim3(R6_THREADS), args, smem, stream));
    HIST_CUDA_TRY_LAUNCH("any_kernel");
    *blocks = g.groups * g.chunks;
    return HIST_OK;
}

/** @brief Step 7's registry entry: the output zeroed by a memset, then the kernel.
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
static hist_status run_any_memset(const hist_args *a) {
    uint32_t blocks;
    return launch_any(a, ANY_MEMSET, 0, NULL, &blocks);
}

/** @brief The registry's entry point of the final kernel (step 8: the zeroing fused).
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
static hist_status run_any(const hist_args *a) {
    uint32_t blocks;
    return launch_any(a, ANY_FUSED, 0, NULL, &blocks);
}

/** @brief The final kernel's one limit: its shared memory.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return why not, or NULL
 */
static const char *unsupported_any(const hist_problem *p, const hist_device *dev) {
    (void)p;
    if (dev && R6_ANY_SMEM_BYTES > dev->smem_per_block_optin)
        return "needs more shared memory per block (the histogram and the flush buffer) than this "
               "GPU allows";
    return NULL;
}

/**
 * @brief The final kernel for other programs: day 06's breakdown (with or without zeroing the
 *        output, stamping each block's phases into @p d_stamps if not NULL), the CS149 file, and
 *        day 07's pipelines (on their streams, adding each chunk's counts to the output).
 * @param a the call's arguments
 * @param zero 1: zero the output, as the registry entry does (step 8: inside the kernel; with
 *        `a->workspace` of any_workspace() bytes, day06_final_workspace(), also the dynamic
 *        tiles); 0: add to it
 * @param stream the stream to queue the work on (0: the default stream)
 * @param d_stamps `[blocks][4]` stamps (start, zeroed, counted, flushed; ns), or NULL
 * @param blocks receives the number of blocks launched (grid x times grid y; 0: none)
 * @return HIST_OK or the CUDA error
 */
extern "C" hist_status day06_final_launch(const hist_args *a, int zero, cudaStream_t stream,
                                          uint64_t *d_stamps, uint32_t *blocks) {
    return launch_any(a, zero ? ANY_FUSED : ANY_ADD, stream, d_stamps, blocks);
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
 * @brief For day 07's pipelines: why the final kernel cannot run @p p on @p dev, or NULL.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return the reason, or NULL
 */
extern "C" const char *day06_final_unsupported(const hist_problem *p, const hist_device *dev) {
    return unsupported_any(p, dev);
}

/* The lesson's steps, in order (README.md has each one's prediction and measurement); the last
 * one is the lesson's answer. */
/* The registry (common/LESSONS.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day06);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day06_impls[] = {
    ROOFLINE_IMPL(
        "gpu_r6_v1_conflict_free",
        "step 1: [bin][slot] layout, no bank conflicts for any data; 32-bit loads 8 deep; "
        "scattered atomic flush",
        4, 8, MERGE_ATOMIC, 0, false, 0.70),
    ROOFLINE_IMPL("gpu_r6_v2_wide_loads", "step 2: as step 1 with 16-byte loads, 4 deep", 16, 4,
                  MERGE_ATOMIC, 0, false, 0.70),
    ROOFLINE_IMPL(
        "gpu_r6_v3_l2_prefetch",
        "step 3: as step 1, the input streamed into L2 two batches ahead by bulk prefetch", 4, 8,
        MERGE_ATOMIC, 2, false, 0.70),
    ROOFLINE_IMPL("gpu_r6_v4_partials",
                  "step 4: as step 1, partials stored (scattered) and summed by a second kernel", 4,
                  8, MERGE_PARTIALS, 0, false, 0.65),
    ROOFLINE_IMPL("gpu_r6_v5_two_kernels",
                  "step 5: partials stored coalesced through a transposition buffer, then summed",
                  4, 8, MERGE_PARTIALS, 0, true, 0.85),
    ROOFLINE_IMPL("gpu_r6_v6_one_kernel",
                  "step 6: conflict-free counting, 32-bit loads 8 deep, one kernel with a "
                  "coalesced atomic flush",
                  4, 8, MERGE_ATOMIC, 0, true, 0.85),
    {"gpu_r6_v7_any_shape", "day06_roofline", HIST_DEVICE,
     "step 7: step 6 for any channel count, row alignment and binning; output zeroed by a memset",
     "any shape and binning (shared memory permitting)", unsupported_any, NULL, run_any_memset,
     0.85, 0},
    {"gpu_roofline", "day06_roofline", HIST_DEVICE,
     "final (step 8): step 7 zeroing the output itself, its last rows handed out as blocks ask",
     "any shape and binning (shared memory permitting)", unsupported_any, any_workspace, run_any,
     0.85, 0},
};

/** @brief How many entries day06_impls holds. */
const size_t day06_impl_count = sizeof day06_impls / sizeof day06_impls[0];
