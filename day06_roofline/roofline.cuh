/**
 * @file roofline.cuh
 * @brief Day 06: what steps 1-6 share, and the final kernel too. The block's configuration (1024
 *        threads counting 128 channels in a `[bin][slot]` shared histogram; 64 or 32 where the
 *        GPU's shared memory per block holds no more), the bank-conflict-free layout with its two
 *        device functions, the double-buffered loop, the two flushes, and the lesson's functions
 *        that registry.cu lists.
 *
 * The lesson's files, in the order of the README: this header; steps.cu (steps 1-6, a kernel
 * each); plan.cuh and plan.cu (how the final kernel's grid follows from the shape and the GPU);
 * final.cuh and final.cu (steps 7 and 8, a kernel each, for any shape and binning); small.cuh
 * (step 9, one channel of a few megabytes); registry.cu (every step as the runner lists it).
 */
#ifndef DAY06_ROOFLINE_CUH
#define DAY06_ROOFLINE_CUH

#include "hist.h"

/** @brief Threads per block: 32 warps, one block per SM. */
#define R6_THREADS 1024
/** @brief Channels per block. */
#define R6_CHANNELS 128
/** @brief Bins of the byte histogram. */
#define R6_BINS 256
/** @brief Bins the flush moves per round through its transposition buffer. */
#define R6_FLUSH_BINS 64

/** @brief Loads in flight per thread in the final kernel (step 1's 8, double buffered). */
#define R6_UNROLL 8

/* ---- the bank-conflict-free layout ----
 *
 * The counter of (bin, channel) sits at s_hist[bin * CH + slot(channel)], CH the block's channels
 * (128, 64 or 32: steps 1-6 take the largest the GPU's shared memory per block holds, the final
 * kernel its plan, plan.cuh), so its bank is
 * slot(channel) % 32, whatever the bin. A warp's 32 atomics are conflict-free when its 32 lanes
 * count 32 channels with 32 different slot % 32: then any data, constant data included, costs one
 * pass through the banks.
 *
 * VEC = 4: a row of CH channels is W = CH / 4 words, so a warp's 32 loads cover R = 32 / W rows
 *          (1, 2 or 4): lane L reads word w = L % W of row q = L / W. Byte b of word w is channel
 *          4w + b, at slot W * b + w. For CH = 128 (W = 32, R = 1) that is slot 32b + L: bank L,
 *          always. For fewer channels the R lanes that read the same word w of R rows would meet
 *          in one bank, so the lane of row q counts its bytes rotated by q: at step s it counts
 *          byte (s + q) % 4, at slot W * ((s + q) % 4) + w, and the R rows take R different
 *          multiples of W (bank 16 ((s + q) % 2) + w for CH = 64, 8 ((s + q) % 4) + w for 32).
 * VEC = 16 (step 2), CH = 128: lane L reads channels 16w..16w+15 (w = L % 8) of row L / 8 of the
 *          warp's 4 rows; four lanes share w. At step s (word i = s / 4, byte b = s % 4) the lane
 *          of row r counts word (i + r) % 4, so the four take the four words: channel
 *          16w + 4q + b with q = (i + r) % 4, at slot 32b + 8q + w: bank 8q + w, different for
 *          all 32 lanes.
 * VEC = 16, CH = 64 or 32 (step 2 on a GPU with less shared memory): the VEC = 4 layout, word
 *          4l + j of the row being word j of load l. A warp covers 32 / (CH / 16) rows (8 or 16);
 *          the lane of row r counts its words rotated by r (word (i + r) % 4 at step i) and each
 *          word's bytes rotated by r / 4, so that no two lanes meet in a bank.
 */
/**
 * @brief The channel (within the block's CH) counted in @p slot: the layout above, inverted.
 * @tparam VEC bytes a lane loads (4 or 16)
 * @tparam CH channels per block (128, 64 or 32)
 * @param slot the slot, 0..CH-1
 * @return the channel, 0..CH-1
 */
template <int VEC, int CH = R6_CHANNELS>
__device__ __forceinline__ uint32_t slot_to_channel(uint32_t slot) {
    // SOLUTION slot_to_channel [gpu_r6_v1_conflict_free gpu_r6_v2_wide_loads gpu_r6_v3_l2_prefetch gpu_r6_v4_partials gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel gpu_r6_v7_any_shape gpu_roofline pipe_pageable pipe_pinned pipe_streams pipe_copy_stream gpus_nccl]:
    //   invert the layout above: VEC 4 (and VEC 16 with fewer than 128 channels) has
    //   slot = W * b + w with W = CH / 4, so it counts channel 4w + b there; VEC 16 with 128
    //   (slot = 32b + bank) channel 16w + 4q + b with w = bank % 8, q = bank / 8.
    // stub: return slot;
    if (VEC == 4 || CH != 128)
        return 4 * (slot % (CH / 4)) + slot / (CH / 4);
    const uint32_t b = slot / 32, bank = slot % 32;
    return 16 * (bank % 8) + 4 * (bank / 8) + b;
    // END SOLUTION
}

/* ---- counting ---- */

/** @brief Zero the block's `[256][CH]` histogram, a word per thread at a time (steps 1-6).
 * @tparam CH channels per block (128, 64 or 32)
 * @param s_hist the histogram
 */
template <int CH> __device__ __forceinline__ void zero_histogram(uint32_t *s_hist) {
    for (uint32_t k = threadIdx.x; k < R6_BINS * CH; k += blockDim.x)
        s_hist[k] = 0;
}

/** @brief Count the 4 bytes of a 32-bit word; @p s_word points at this lane's slot of byte 0 (its
 *  word w), byte b lives W = CH / 4 slots further per b; the lane of row @p q of the warp's R
 *  rows counts its bytes rotated by q (the layout above; q is 0 when CH is 128).
 * @tparam CH channels per block (128, 64 or 32)
 * @param v four bytes of four consecutive channels
 * @param s_word this lane's slot of byte 0 in `[bin][slot]`
 * @param q which of the warp's rows this lane reads (0 for CH = 128)
 */
template <int CH = R6_CHANNELS>
__device__ __forceinline__ void count_word(uint32_t v, uint32_t *s_word, uint32_t q = 0) {
    // SOLUTION count_word [gpu_r6_v1_conflict_free gpu_r6_v2_wide_loads gpu_r6_v3_l2_prefetch gpu_r6_v4_partials gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel gpu_r6_v7_any_shape gpu_roofline pipe_pageable pipe_pinned pipe_streams pipe_copy_stream gpus_nccl]:
    //   one shared atomicAdd per byte of v: its value is the bin, the row of CH slots in
    //   [bin][slot]. With CH = 128 byte b (b = 0 is the low byte) goes 32 * b slots past s_word.
    //   With fewer channels first rotate v right by 8q bits (__funnelshift_r), so that byte s of
    //   it is the word's byte (s + q) % 4, and add it W * ((s + q) % 4) slots past s_word.
    // stub: (void)v, (void)s_word, (void)q;
    constexpr uint32_t W = CH / 4;
    if (CH != 128)
        v = __funnelshift_r(v, v, 8 * q);
#pragma unroll
    for (uint32_t s = 0; s < 4; ++s)
        atomicAdd(&s_word[((v >> (8 * s)) & 0xFF) * CH + W * ((s + q) % 4)], 1u);
    // END SOLUTION
}

/* ---- step 1's double buffering: the loop steps 1-6 and the final kernel share ---- */

/**
 * @brief One batch of step 1's double buffering: the next batch's @p N loads put in flight, then
 *        this batch (@p cur) counted while they travel, then the next batch becomes this one.
 * @tparam N loads per batch
 * @param cur this batch, loaded; on return the next one
 * @param load load(u): the next batch's u-th load
 * @param count count(v): count one loaded value
 */
template <int N, typename T, typename Load, typename Count>
__device__ __forceinline__ void r6_overlap(T (&cur)[N], Load load, Count count) {
    T next[N];
#pragma unroll
    for (int u = 0; u < N; ++u) /* the next batch in flight ... */
        next[u] = load(u);
#pragma unroll
    for (int u = 0; u < N; ++u) /* ... while this one is counted */
        count(cur[u]);
#pragma unroll
    for (int u = 0; u < N; ++u)
        cur[u] = next[u];
}

/**
 * @brief One lane's values at indices @p r, @p r + @p step, ... below @p end, @p N loads in
 *        flight, double buffered (r6_overlap()): whole batches, then the rest (fewer than @p N)
 *        one at a time.
 * @tparam N loads per batch
 * @param r the lane's first index (a row)
 * @param step from one of the lane's indices to its next
 * @param end the first index past the lane's
 * @param load load(i): the value at index i
 * @param count count(v): count one loaded value
 * @param ahead ahead(i): called before the batch from index i is loaded (step 3 prefetches there)
 */
template <int N, typename Load, typename Count, typename Ahead>
__device__ __forceinline__ void r6_double_buffered(uint64_t r, uint64_t step, uint64_t end,
                                                   Load load, Count count, Ahead ahead) {
    typedef decltype(load(r)) V;
    if (r + (N - 1) * step < end) {
        V cur[N];
#pragma unroll
        for (int u = 0; u < N; ++u)
            cur[u] = load(r + u * step);
        r += N * step;
        while (r + (N - 1) * step < end) {
            ahead(r);
            r6_overlap(
                cur, [&](int u) { return load(r + u * step); }, count);
            r += N * step;
        }
#pragma unroll
        for (int u = 0; u < N; ++u)
            count(cur[u]);
    }
    for (; r < end; r += step)
        count(load(r));
}

/** @brief r6_double_buffered() with nothing to do before a batch (every step but step 3).
 * @tparam N loads per batch
 * @param r the lane's first index @param step from one of the lane's indices to its next
 * @param end the first index past the lane's @param load load(i): the value at index i
 * @param count count(v): count one loaded value
 */
template <int N, typename Load, typename Count>
__device__ __forceinline__ void r6_double_buffered(uint64_t r, uint64_t step, uint64_t end,
                                                   Load load, Count count) {
    r6_double_buffered<N>(r, step, end, load, count, [](uint64_t) {});
}

/* ---- the flush: a block's counts to the output ----
 *
 * Scattered (steps 1-4): slot-major reads of the histogram are conflict-free, but then a warp's
 * 32 counts go to 32 channels, 4 KiB apart in the output (lanes count every 4th channel): 32
 * separate sectors per instruction, 4.3 million in all on the main preset, every one of them live
 * on uniform data. Coalesced (steps 5 and 6): 64 bins at a time go through a padded
 * [slot][64 + 1] buffer (both its writes and its reads are conflict-free thanks to the padding),
 * so that a warp then adds 32 consecutive bins of one channel: one 128-byte line per instruction.
 * Either way a count reaches its counter as the kernel says: add_count() (into the output) or
 * store_count() (a partial histogram, summed by a second kernel). */

/** @brief A block's count added into the output with a global atomic, when it is not zero
 *  (steps 1-3 and 6). */
struct add_count {
    /** @brief Add @p count to @p dest. @param dest the output's counter @param count the count */
    __device__ __forceinline__ void operator()(uint32_t *dest, uint32_t count) const {
        if (count > 0)
            atomicAdd(dest, count);
    }
};

/** @brief A block's count stored as this chunk's partial, zero or not (steps 4 and 5). */
struct store_count {
    /** @brief Store @p count in @p dest. @param dest the partial's counter @param count the
     *  count */
    __device__ __forceinline__ void operator()(uint32_t *dest, uint32_t count) const {
        *dest = count;
    }
};

/**
 * @brief Flush straight from the histogram: 32 channels (32 sectors) per warp instruction.
 * @tparam VEC the bytes a lane loaded (4 or 16: the layout that slot_to_channel() inverts)
 * @tparam CH channels per block
 * @param s_hist the block's `[bin][slot]` histogram
 * @param c0 the block's first channel
 * @param group_channels channels this block counts (fewer in a last, partial group)
 * @param d_dest the output or this chunk's partial histogram
 * @param merge add_count() or store_count()
 */
template <int VEC, int CH, typename Merge>
__device__ __forceinline__ void flush_scattered(const uint32_t *s_hist, uint32_t c0,
                                                uint32_t group_channels, uint32_t *d_dest,
                                                Merge merge) {
    for (uint32_t k = threadIdx.x; k < R6_BINS * CH; k += blockDim.x) {
        const uint32_t bin = k / CH, channel = slot_to_channel<VEC, CH>(k % CH);
        if (channel >= group_channels)
            continue;
        merge(&d_dest[(size_t)(c0 + channel) * R6_BINS + bin], s_hist[k]);
    }
}

/** @brief Flush through the padded transposition buffer: 32 consecutive bins per warp
 *  instruction (32-bit loads' layout).
 * @tparam CH channels per block
 * @param s_hist the block's `[bin][slot]` histogram
 * @param s_flush the `[CH][65]` transposition buffer
 * @param c0 the block's first channel
 * @param group_channels channels this block counts
 * @param d_dest the output or this chunk's partial histogram
 * @param merge add_count() or store_count()
 */
template <int CH, typename Merge>
__device__ __forceinline__ void flush_coalesced(const uint32_t *s_hist, uint32_t *s_flush,
                                                uint32_t c0, uint32_t group_channels,
                                                uint32_t *d_dest, Merge merge) {
    // SOLUTION flush_coalesced [gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel]: 64 bins at a time: copy
    //   s_hist[(b0 + bin) * CH + slot] to s_flush[slot * 65 + bin] (k = bin * CH + slot per
    //   thread), barrier, then read it slot-major (k = slot * 64 + bin) so a warp handles 32
    //   consecutive bins of one channel (slot_to_channel<4, CH>): skip channels >=
    //   group_channels, then merge each count into its counter (merge(&d_dest[...], count));
    //   barrier before the next 64 bins.
    // stub: (void)s_hist, (void)s_flush, (void)c0, (void)group_channels, (void)d_dest, (void)merge;
    const uint32_t pad = R6_FLUSH_BINS + 1;
    for (uint32_t b0 = 0; b0 < R6_BINS; b0 += R6_FLUSH_BINS) {
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * CH; k += blockDim.x) {
            const uint32_t bin = k / CH, slot = k % CH;
            s_flush[slot * pad + bin] = s_hist[(b0 + bin) * CH + slot];
        }
        __syncthreads(); /* the buffer is full */
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * CH; k += blockDim.x) {
            const uint32_t slot = k / R6_FLUSH_BINS, bin = k % R6_FLUSH_BINS;
            const uint32_t channel = slot_to_channel<4, CH>(slot);
            if (channel >= group_channels)
                continue;
            merge(&d_dest[(size_t)(c0 + channel) * R6_BINS + b0 + bin], s_flush[slot * pad + bin]);
        }
        __syncthreads(); /* the buffer is read before the next round overwrites it */
    }
    // END SOLUTION
}

/* ---- the lesson's entries (registry.cu lists them) ---- */

/* Steps 1-6 (steps.cu), each its own kernel, step1_kernel() ... step6_kernel(). */
hist_status run_step1(const hist_args *a);
hist_status run_step2(const hist_args *a);
hist_status run_step3(const hist_args *a);
hist_status run_step4(const hist_args *a);
hist_status run_step5(const hist_args *a);
hist_status run_step6(const hist_args *a);
/** @brief Steps 1-6's block on @p dev in one line (the registry's `plan`): its channels and
 *  shared memory. @param p the problem @param dev the GPU @return the text (a static buffer) */
const char *describe_step_plan(const hist_problem *p, const hist_device *dev);
/** @brief Why steps 1-6 with 32-bit loads cannot run @p p (steps.cu), or NULL.
 *  @param p the problem @param dev the GPU, or NULL @return the reason, or NULL */
const char *unsupported_vec4(const hist_problem *p, const hist_device *dev);
/** @brief Why step 2 (16-byte loads) cannot run @p p, or NULL.
 *  @param p the problem @param dev the GPU, or NULL @return the reason, or NULL */
const char *unsupported_vec16(const hist_problem *p, const hist_device *dev);
/** @brief Why step 3 (the Hopper bulk prefetch) cannot run @p p here, or NULL.
 *  @param p the problem @param dev the GPU, or NULL @return the reason, or NULL */
const char *unsupported_prefetch(const hist_problem *p, const hist_device *dev);
/** @brief Steps 4 and 5's workspace: one partial histogram per row chunk.
 *  @param p the problem @param dev the GPU @return bytes */
size_t partials_bytes(const hist_problem *p, const hist_device *dev);
/* Steps 7, 8 and 9 (final.cu): step7_kernel() after a memset; the final entry, step8_kernel()
   zeroing the output itself (or step 9 for one channel of a few megabytes); step 9's
   small_kernel() alone. */
hist_status run_step7(const hist_args *a);
hist_status run_final(const hist_args *a);
hist_status run_step9(const hist_args *a);

#endif /* DAY06_ROOFLINE_CUH */
