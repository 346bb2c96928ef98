/**
 * @file steps.cu
 * @brief Day 06, steps 1-6: one kernel, roofline_kernel(), whose template parameters are the
 *        steps (the README's table has each one's prediction and measurement).
 *
 * Day 05's L1/shared pipe was 95% busy, mostly replaying bank conflicts. Here every warp-wide
 * shared atomic hits 32 different banks whatever the data (roofline.cuh's layout), loads are wide
 * and many, and one kernel does the whole job:
 *
 *  - a block owns 128 channels of a chunk of rows; its histogram is `[bin][slot]` in shared
 *    memory (256 x 128 x 4 bytes = 128 KiB, one block of 1024 threads per SM); on a GPU whose
 *    shared memory per block holds less (every GPU below an A100), 64 or 32 channels
 *    (step_channels(), the CH template parameter);
 *  - each thread loads VEC bytes of a row (4 or 16) with UNROLL loads in flight, double buffered;
 *  - at the end the block adds its counts into the output with global atomics (MERGE_ATOMIC),
 *    or stores them as partials for a reduction kernel (MERGE_PARTIALS), either straight from the
 *    histogram (scattered: 32 channels per warp instruction) or through a transposition buffer
 *    (COALESCED: 32 consecutive bins of one channel per warp instruction);
 *  - PREFETCH > 0 streams the input into L2 ahead of the loads (step 3, which did not pay).
 *
 * The steps, at the bottom of this file, are its configurations: step 1 is VEC 4, UNROLL 8,
 * MERGE_ATOMIC, scattered; step 6 is VEC 4, UNROLL 8, MERGE_ATOMIC, no prefetch, COALESCED. All of
 * them count the byte histogram of channels divisible by VEC; final.cu takes step 6 to every
 * shape and binning.
 */
#include <stdio.h>

#include "cuda_check.h"
#include "device.cuh"

/** @brief Day 03's merge: one thread per counter sums the partial histograms
 *  (day03_privatized/privatized.cu; LESSON_USES day03_privatized). */
extern "C" hist_status day03_sum_partials(const hist_device *dev, const uint32_t *d_partials,
                                          uint32_t copies, uint64_t counters, uint32_t *d_hist);
#include "gpu_limits.h"
#include "plan.cuh"
#include "roofline.cuh"

/** @brief How a block's counts reach the output. */
enum merge_mode { MERGE_ATOMIC, MERGE_PARTIALS };

/** @brief What one thread loads per row: a word, or 4 words. */
template <int VEC> struct load_t;
/** @brief 32-bit loads. */
template <> struct load_t<4> { typedef uint32_t type; /**< one word */ };
/** @brief 16-byte loads. */
template <> struct load_t<16> { typedef uint4 type; /**< four words */ };

/**
 * @brief Count a 32-bit load.
 * @tparam CH channels per block
 * @param v the load
 * @param s_lane this lane's first slot
 * @param row_in_warp which of the warp's rows this lane reads (its bytes' rotation)
 */
template <int CH>
__device__ __forceinline__ void count_load(uint32_t v, uint32_t *s_lane, uint32_t row_in_warp,
                                           const uint32_t *) {
    count_word<CH>(v, s_lane, row_in_warp);
}
/**
 * @brief Count a 16-byte load, its words rotated by the lane's row (see the layout above).
 * @tparam CH channels per block
 * @param v the load: 16 channels of one row
 * @param s_hist the block's `[bin][slot]` histogram
 * @param row_in_warp which of the warp's rows (4, 8 or 16) this lane reads
 * @param word_slot this lane's slot of byte 0 of each of its 4 words
 */
//! [count_load16]
template <int CH>
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
    const uint32_t q = CH == 128 ? 0 : row_in_warp / 4; /* fewer channels: bytes rotated too */
    count_word<CH>(w0, s_hist + word_slot[0], q);
    count_word<CH>(w1, s_hist + word_slot[1], q);
    count_word<CH>(w2, s_hist + word_slot[2], q);
    count_word<CH>(w3, s_hist + word_slot[3], q);
}
//! [count_load16]

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
 * @brief One counter of the block reaches the output: stored as a partial (MERGE_PARTIALS), or
 *        added with a global atomic when it is not zero (MERGE_ATOMIC).
 * @param dest the output's counter, or this chunk's partial
 * @param count the block's count
 */
template <merge_mode MERGE>
__device__ __forceinline__ void merge_count(uint32_t *dest, uint32_t count) {
    if (MERGE == MERGE_PARTIALS)
        *dest = count;
    else if (count > 0)
        atomicAdd(dest, count);
}

/**
 * @brief Flush straight from the histogram: 32 channels (32 sectors) per warp instruction.
 * @param s_hist the block's `[bin][slot]` histogram
 * @param c0 the block's first channel
 * @param group_channels channels this block counts (fewer in a last, partial group)
 * @param d_dest the output or this chunk's partials
 */
template <int VEC, merge_mode MERGE, int CH>
__device__ __forceinline__ void flush_scattered(const uint32_t *s_hist, uint32_t c0,
                                                uint32_t group_channels, uint32_t *d_dest) {
    for (uint32_t k = threadIdx.x; k < R6_BINS * CH; k += blockDim.x) {
        const uint32_t bin = k / CH, channel = slot_to_channel<VEC, CH>(k % CH);
        if (channel >= group_channels)
            continue;
        merge_count<MERGE>(&d_dest[(size_t)(c0 + channel) * R6_BINS + bin], s_hist[k]);
    }
}

/** @brief Flush through the padded transposition buffer: 32 consecutive bins per warp instruction.
 * @param s_hist the block's `[bin][slot]` histogram
 * @param s_flush the `[CH][65]` transposition buffer
 * @param c0 the block's first channel
 * @param group_channels channels this block counts
 * @param d_dest the output or this chunk's partials
 */
template <int VEC, merge_mode MERGE, int CH>
__device__ __forceinline__ void flush_coalesced(const uint32_t *s_hist, uint32_t *s_flush,
                                                uint32_t c0, uint32_t group_channels,
                                                uint32_t *d_dest) {
    // SOLUTION flush_coalesced [gpu_r6_v5_two_kernels gpu_r6_v6_one_kernel]: 64 bins at a time: copy
    //   s_hist[(b0 + bin) * CH + slot] to s_flush[slot * 65 + bin] (k = bin * CH + slot per
    //   thread), barrier, then read it slot-major (k = slot * 64 + bin) so a warp handles 32
    //   consecutive bins of one channel (slot_to_channel<VEC, CH>): skip channels >=
    //   group_channels, then merge_count<MERGE> each count into its output counter; barrier
    //   before the next 64 bins.
    // stub: (void)s_hist, (void)s_flush, (void)c0, (void)group_channels, (void)d_dest;
    const uint32_t pad = R6_FLUSH_BINS + 1;
    for (uint32_t b0 = 0; b0 < R6_BINS; b0 += R6_FLUSH_BINS) {
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * CH; k += blockDim.x) {
            const uint32_t bin = k / CH, slot = k % CH;
            s_flush[slot * pad + bin] = s_hist[(b0 + bin) * CH + slot];
        }
        __syncthreads(); /* the buffer is full */
        for (uint32_t k = threadIdx.x; k < R6_FLUSH_BINS * CH; k += blockDim.x) {
            const uint32_t slot = k / R6_FLUSH_BINS, bin = k % R6_FLUSH_BINS;
            const uint32_t channel = slot_to_channel<VEC, CH>(slot);
            if (channel >= group_channels)
                continue;
            merge_count<MERGE>(&d_dest[(size_t)(c0 + channel) * R6_BINS + b0 + bin],
                               s_flush[slot * pad + bin]);
        }
        __syncthreads(); /* the buffer is read before the next round overwrites it */
    }
    // END SOLUTION
}

/** @brief Day 06's kernel: one block counts CH channels (128; 64 or 32 on a GPU with less shared
 *  memory) of a chunk of rows conflict-free in shared memory, then flushes (see the file comment
 *  for the template parameters).
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by VEC)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]` (zeroed, MERGE_ATOMIC) or the partials, one per chunk
 * (MERGE_PARTIALS)
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. `run_roofline()`: a grid of (channel groups of CH, row
 * chunks: SMs / groups), R6_THREADS (1024) threads, one block per SM, the `[256][CH]` histogram
 * (128 KiB with 128 channels) plus, when COALESCED, the `[CH][64 + 1]` transposition buffer
 * (33,280 bytes) of dynamic shared memory: `R6_STEP_SMEM(CH)`, 164,352 bytes with 128 channels,
 * opted in (`cudaFuncSetAttribute`); with MERGE_ATOMIC the output is zeroed before.
 */
template <int VEC, int UNROLL, merge_mode MERGE, int PREFETCH, bool COALESCED, int CH>
__global__ void __launch_bounds__(R6_THREADS, 1)
    roofline_kernel(const uint8_t *__restrict__ d_samples, uint64_t rows, uint32_t channels,
                    uint64_t chunk_rows, uint32_t *__restrict__ d_out) {
    typedef typename load_t<VEC>::type load_type;
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    for (uint32_t k = threadIdx.x; k < R6_BINS * CH; k += blockDim.x)
        s_hist[k] = 0;
    __syncthreads(); /* all counters zeroed before any thread counts */

    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t group_loads = min((uint32_t)CH, channels - c0) / VEC;
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t loads_per_row = CH / VEC;           /* 32, 16, 8 (VEC 4); 8, 4, 2 (VEC 16) */
    const uint32_t rows_per_warp = 32 / loads_per_row; /* 1 to 16 */
    const uint32_t load_in_row = lane % loads_per_row;
    const uint32_t row_in_warp = lane / loads_per_row;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * rows_per_warp;
    const uint64_t r0 = blockIdx.y * chunk_rows;
    const uint64_t r1 = min(r0 + chunk_rows, rows);

    /* this lane's slot for byte 0 of each word it counts (see the layout above) */
    uint32_t word_slot[4];
    if (VEC == 4) {
        word_slot[0] = load_in_row; /* the lane itself with 128 channels */
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) /* word (i + r) % 4 of the load */
            word_slot[i] = CH == 128 ? 8 * ((i + row_in_warp) % 4) + load_in_row
                                     : 4 * load_in_row + (i + row_in_warp) % 4;
    }
    uint32_t *s_base = VEC == 4 ? s_hist + load_in_row : s_hist;

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
        r6_double_buffered<UNROLL>(
            r, step, r1, [&](uint64_t row) { return column[row * row_stride]; },
            [&](const load_type &v) { count_load<CH>(v, s_base, row_in_warp, word_slot); },
            [&](uint64_t next) {
                if (PREFETCH > 0 && threadIdx.x == 0) /* the batch PREFETCH - 1 after the next */
                    prefetch_rows_l2(d_samples,
                                     next +
                                         (uint64_t)(PREFETCH > 0 ? PREFETCH - 1 : 0) * batch_rows +
                                         blockIdx.x * share,
                                     share, rows, channels);
            });
    }
    __syncthreads(); /* every count in before the histogram is read */

    const uint32_t group_channels = group_loads * VEC;
    uint32_t *d_dest = MERGE == MERGE_ATOMIC
                           ? d_out
                           : d_out + (size_t)blockIdx.y * channels * R6_BINS; /* this chunk */
    //! [flush_choice]
    if (COALESCED)
        flush_coalesced<VEC, MERGE, CH>(s_hist, s_hist + R6_BINS * CH, c0, group_channels, d_dest);
    else
        flush_scattered<VEC, MERGE, CH>(s_hist, c0, group_channels, d_dest);
    //! [flush_choice]
}

/* ---- the block on this GPU ---- */

/** @brief A block's shared memory with CH channels: the histogram and the transposition buffer
 *  (164,352 bytes with 128, 82,176 with 64, 41,088 with 32). */
#define R6_STEP_SMEM(CH) ((size_t)R6_BINS * (CH)*4 + (size_t)(CH) * (R6_FLUSH_BINS + 1) * 4)

/** @brief Steps 1-6's channels per block on @p dev: 128, or the largest of 64 and 32 whose block
 *  its shared memory per block holds (every step the same, so that they compare); 0 if none. */
static uint32_t step_channels(const hist_device *dev) {
    for (uint32_t ch = R6_CHANNELS; ch >= 32; ch /= 2)
        if (R6_STEP_SMEM(ch) <= dev->smem_per_block_optin)
            return ch;
    return 0;
}

const char *describe_step_plan(const hist_problem *p, const hist_device *dev) {
    static char text[160];
    (void)p;
    const uint32_t ch = step_channels(dev);
    snprintf(text, sizeof text,
             "%u channels per block (%zu bytes of shared memory), %d threads, "
             "one block per SM",
             ch, R6_STEP_SMEM(ch), R6_THREADS);
    return text;
}

template <int VEC, int UNROLL, merge_mode MERGE, int PREFETCH, bool COALESCED, int CH>
static hist_status launch_roofline(const hist_args *a) {
    const hist_problem *p = a->problem;
    uint64_t chunk_rows = 0;
    const uint32_t chunks = chunks_for(p, a->device, CH, &chunk_rows);
    const uint32_t groups = (p->channels + CH - 1) / CH;
    const size_t smem = COALESCED ? R6_STEP_SMEM(CH) : (size_t)R6_BINS * CH * sizeof(uint32_t);
    uint32_t *d_dest = MERGE == MERGE_ATOMIC ? a->hist : (uint32_t *)a->workspace;
    if (MERGE == MERGE_ATOMIC)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows > 0) {
        hist_status s =
            hist_launch(a->device, roofline_kernel<VEC, UNROLL, MERGE, PREFETCH, COALESCED, CH>,
                        dim3(groups, chunks), R6_THREADS, smem, 0, "roofline_kernel", a->samples,
                        p->rows, p->channels, chunk_rows, d_dest);
        if (s != HIST_OK)
            return s;
    } else if (MERGE == MERGE_PARTIALS) {
        HIST_CUDA_TRY(cudaMemsetAsync(d_dest, 0, hist_counters(p) * sizeof(uint32_t)));
    }
    if (MERGE == MERGE_PARTIALS) /* day 03's merge */
        return day03_sum_partials(a->device, d_dest, chunks, hist_counters(p), a->hist);
    return HIST_OK;
}

/* A step on this GPU: its kernel with the channels per block that the GPU holds. */
template <int VEC, int UNROLL, merge_mode MERGE, int PREFETCH, bool COALESCED>
static hist_status run_roofline(const hist_args *a) {
    switch (step_channels(a->device)) {
    case 128:
        return launch_roofline<VEC, UNROLL, MERGE, PREFETCH, COALESCED, 128>(a);
    case 64:
        return launch_roofline<VEC, UNROLL, MERGE, PREFETCH, COALESCED, 64>(a);
    case 32:
        return launch_roofline<VEC, UNROLL, MERGE, PREFETCH, COALESCED, 32>(a);
    default:
        return hist_fail(HIST_ERR_UNSUPPORTED,
                         "day06's steps need %zu bytes of shared memory per block; %s allows %zu",
                         R6_STEP_SMEM(32), a->device->name, a->device->smem_per_block_optin);
    }
}

size_t partials_bytes(const hist_problem *p, const hist_device *dev) {
    uint64_t chunk_rows = 0;
    return (size_t)chunks_for(p, dev, step_channels(dev), &chunk_rows) * hist_counters(p) *
           sizeof(uint32_t);
}

/* Whether this build holds Hopper code for step 3's kernel (an ARCH=sm_80 build runs on an H100
   from compute_80 PTX, where the bulk prefetch is compiled out). */
static bool built_for_hopper() {
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, roofline_kernel<4, 8, MERGE_ATOMIC, 2, false, 128>) !=
        cudaSuccess) {
        cudaGetLastError();
        return true; /* no GPU to ask (the which-GPU page): the build's own architecture decides */
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
    if (dev && step_channels(dev) == 0)
        return HIST_NOT_ON_GPU "steps 1-6 need at least 41,088 bytes of shared memory per block "
                               "(32 channels)";
    if (PREFETCH > 0 && dev && dev->cc_major < 9)
        return HIST_NOT_ON_GPU "needs a Hopper GPU (compute capability 9.0) for "
                               "cp.async.bulk.prefetch";
    if (PREFETCH > 0 && dev && !built_for_hopper())
        return HIST_NOT_ON_GPU "this build has no sm_90 code for cp.async.bulk.prefetch (build "
                               "with ARCH=sm_90)";
    return NULL;
}

/* ---- the steps, as registry.cu lists them ---- */

/** @brief Step 1: the conflict-free layout, 32-bit loads 8 deep, scattered atomic flush.
 *  @param a the call's arguments @return HIST_OK or the failure */
hist_status run_step1(const hist_args *a) {
    return run_roofline<4, 8, MERGE_ATOMIC, 0, false>(a);
}
/** @brief Step 2: 16-byte loads, 4 deep. @param a the call's arguments @return as step 1 */
hist_status run_step2(const hist_args *a) {
    return run_roofline<16, 4, MERGE_ATOMIC, 0, false>(a);
}
/** @brief Step 3: step 1 with the bulk L2 prefetch two batches ahead.
 *  @param a the call's arguments @return as step 1 */
hist_status run_step3(const hist_args *a) {
    return run_roofline<4, 8, MERGE_ATOMIC, 2, false>(a);
}
/** @brief Step 4: partials stored (scattered), summed by a second kernel.
 *  @param a the call's arguments @return as step 1 */
hist_status run_step4(const hist_args *a) {
    return run_roofline<4, 8, MERGE_PARTIALS, 0, false>(a);
}
/** @brief Step 5: partials stored coalesced, then summed. @param a the call's arguments
 *  @return as step 1 */
hist_status run_step5(const hist_args *a) {
    return run_roofline<4, 8, MERGE_PARTIALS, 0, true>(a);
}
/** @brief Step 6: one kernel with the coalesced atomic flush. @param a the call's arguments
 *  @return as step 1 */
hist_status run_step6(const hist_args *a) {
    return run_roofline<4, 8, MERGE_ATOMIC, 0, true>(a);
}

const char *unsupported_vec4(const hist_problem *p, const hist_device *dev) {
    return unsupported<4, 0>(p, dev);
}
const char *unsupported_vec16(const hist_problem *p, const hist_device *dev) {
    return unsupported<16, 0>(p, dev);
}
const char *unsupported_prefetch(const hist_problem *p, const hist_device *dev) {
    return unsupported<4, 2>(p, dev);
}
