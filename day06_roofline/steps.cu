/**
 * @file steps.cu
 * @brief Day 06, steps 1-6: a kernel each, read top to bottom (the README's table has each one's
 *        prediction and measurement; run one from the repository root as shown).
 *
 *   step 1  gpu_r6_v1_conflict_free  step1_kernel: day 05's loop on the [bin][slot] layout (no
 *           bank conflict for any data), 32-bit loads 8 deep, the flush adds scattered counts
 *           ./build/day06_roofline --impl gpu_r6_v1_conflict_free
 *   step 2  gpu_r6_v2_wide_loads     step2_kernel: step 1 with 16-byte loads, 4 deep
 *           ./build/day06_roofline --impl gpu_r6_v2_wide_loads
 *   step 3  gpu_r6_v3_l2_prefetch    step3_kernel: step 1, the rows bulk-prefetched into L2 two
 *           batches ahead ./build/day06_roofline --impl gpu_r6_v3_l2_prefetch
 *   step 4  gpu_r6_v4_partials       step4_kernel: step 1, the flush stores partials that day
 *           03's kernel sums ./build/day06_roofline --impl gpu_r6_v4_partials
 *   step 5  gpu_r6_v5_two_kernels    step5_kernel: step 4, the partials stored coalesced
 *           ./build/day06_roofline --impl gpu_r6_v5_two_kernels
 *   step 6  gpu_r6_v6_one_kernel     step6_kernel: step 5's coalesced flush adding into the output
 *           ./build/day06_roofline --impl gpu_r6_v6_one_kernel
 *
 * Day 05's L1/shared pipe was 95% busy, mostly replaying bank conflicts. Here every warp-wide
 * shared atomic hits 32 different banks whatever the data (roofline.cuh's layout), loads are wide
 * and many. A block owns CH channels of a chunk of rows: 128 (256 x 128 x 4 bytes = 128 KiB of
 * histogram, one block of 1024 threads per SM), or 64 or 32 on a GPU whose shared memory per
 * block holds less (every GPU below an A100: step_channels()), the one template parameter of
 * each kernel. Every step counts the byte histogram of channels divisible by its loads' width;
 * final.cu takes step 6 to every shape and binning.
 */
#include <stdio.h>

#include <type_traits>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu_limits.h"
#include "plan.cuh"
#include "ptx.cuh"
#include "roofline.cuh"

/** @brief Day 03's merge: one thread per counter sums the partial histograms
 *  (day03_privatized/privatized.cu; LESSON_USES day03_privatized). */
extern "C" hist_status day03_sum_partials(const hist_device *dev, const uint32_t *d_partials,
                                          uint32_t copies, uint64_t counters, uint32_t *d_hist);

/* ---- step 1: the conflict-free layout ---- */

/**
 * @brief Step 1: one block counts CH channels of a chunk of rows conflict-free in shared memory
 *        (32-bit loads, 8 in flight, double buffered), then adds its counts into the output
 *        straight from the histogram (flush_scattered()).
 * @tparam CH channels per block: 128 (64 or 32 on a GPU with less shared memory)
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 4)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]`, zeroed
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. A grid of (channel groups of CH, row chunks: SMs / groups),
 * R6_THREADS (1024) threads, one block per SM, `R6_HIST_SMEM(CH)` bytes of dynamic shared memory
 * (128 KiB with 128 channels: `launch_adding()`, which zeroes the output first).
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step1_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_out) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: word w of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t words = min((uint32_t)CH, channels - c0) / 4;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t W = CH / 4, R = 32 / W; /* words of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = lane / W;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    if (w < words) { /* in a narrower last group some lanes idle */
        const uint32_t *column = reinterpret_cast<const uint32_t *>(d_samples + c0) + w;
        const size_t stride = channels / 4;
        const uint64_t first = r0 + warp * R + q;
        r6_double_buffered<8>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint32_t v) { count_word<CH>(v, s_hist + w, q); });
    }
    __syncthreads(); /* every count in before the histogram is read */
    flush_scattered<4, CH>(s_hist, c0, 4 * words, d_out, add_count());
}

/* ---- step 2: 16-byte loads ---- */

/**
 * @brief Count a 16-byte load: its 4 words rotated by the lane's row (two conditional swaps
 *        instead of a dynamic index), so that the lanes sharing a word count different words at
 *        each step (roofline.cuh's layout for VEC = 16).
 * @tparam CH channels per block
 * @param v the load: 16 channels of one row
 * @param s_hist the block's `[bin][slot]` histogram
 * @param q which of the warp's rows (4, 8 or 16) this lane reads
 * @param word_slot this lane's slot of byte 0 of each of its 4 words
 */
template <int CH>
__device__ __forceinline__ void count_wide(uint4 v, uint32_t *s_hist, uint32_t q,
                                           const uint32_t *word_slot) {
    uint32_t w0 = v.x, w1 = v.y, w2 = v.z, w3 = v.w, t;
    if (q & 1) {
        t = w0;
        w0 = w1;
        w1 = w2;
        w2 = w3;
        w3 = t;
    }
    if (q & 2) {
        t = w0;
        w0 = w2;
        w2 = t;
        t = w1;
        w1 = w3;
        w3 = t;
    }
    const uint32_t bq = CH == 128 ? 0 : q / 4; /* fewer channels: bytes rotated too */
    count_word<CH>(w0, s_hist + word_slot[0], bq);
    count_word<CH>(w1, s_hist + word_slot[1], bq);
    count_word<CH>(w2, s_hist + word_slot[2], bq);
    count_word<CH>(w3, s_hist + word_slot[3], bq);
}

/**
 * @brief Step 2: step 1 with 16-byte loads, 4 in flight: a quarter of the load instructions.
 * @tparam CH channels per block
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 16)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]`, zeroed
 * @par Launch
 * As step 1 (`launch_adding()`).
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step2_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_out) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: 16-byte load l of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t loads = min((uint32_t)CH, channels - c0) / 16;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t L = CH / 16, R = 32 / L; /* loads of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t l = lane % L, q = lane / L;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    uint32_t word_slot[4]; /* the slot of byte 0 of the word counted i-th: word (i + q) % 4 */
#pragma unroll
    for (uint32_t i = 0; i < 4; ++i)
        word_slot[i] = CH == 128 ? 8 * ((i + q) % 4) + l : 4 * l + (i + q) % 4;
    if (l < loads) { /* in a narrower last group some lanes idle */
        const uint4 *column = reinterpret_cast<const uint4 *>(d_samples + c0) + l;
        const size_t stride = channels / 16;
        const uint64_t first = r0 + warp * R + q;
        r6_double_buffered<4>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint4 v) { count_wide<CH>(v, s_hist, q, word_slot); });
    }
    __syncthreads(); /* every count in before the histogram is read */
    flush_scattered<16, CH>(s_hist, c0, 16 * loads, d_out, add_count());
}

/* ---- step 3: streaming ahead into L2 ----
 *
 * The loads of a warp wait in the same queue as its atomics, so fewer bytes are in flight than
 * the loop asks for. The copy engine's bulk L2 prefetch needs one instruction for kilobytes:
 * thread 0 of each block prefetches its share of the chunk's rows (the groups' blocks of a chunk
 * split the full rows between them) two batches ahead, and the loads then hit in L2. */

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
    for (uint64_t at = begin; at < end; at += UINT64_C(1) << 20) /* at most 1 MiB each */
        hist_ptx_bulk_prefetch_L2(d_samples + at, (uint32_t)min(end - at, UINT64_C(1) << 20));
}

/**
 * @brief Step 3: step 1, thread 0 of each block bulk-prefetching its share of the rows into L2
 *        two batches ahead of the loads (a Hopper instruction; below sm_90 it does nothing, and
 *        unsupported_prefetch() keeps the step off those GPUs).
 * @tparam CH channels per block
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 4)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]`, zeroed
 * @par Launch
 * As step 1 (`launch_adding()`).
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step3_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_out) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: word w of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t words = min((uint32_t)CH, channels - c0) / 4;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t W = CH / 4, R = 32 / W; /* words of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = lane / W;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    if (w < words) { /* in a narrower last group some lanes idle */
        const uint32_t *column = reinterpret_cast<const uint32_t *>(d_samples + c0) + w;
        const size_t stride = channels / 4;
        const uint64_t first = r0 + warp * R + q;
        /* thread 0 prefetches this block's share of each batch (its chunk's groups split it) */
        const uint64_t batch_rows = 8 * step;
        const uint64_t share = max(batch_rows / gridDim.x, (uint64_t)1);
        if (threadIdx.x == 0) /* the first two batches */
            for (int b = 0; b < 2; ++b)
                prefetch_rows_l2(d_samples, r0 + (uint64_t)b * batch_rows + blockIdx.x * share,
                                 share, r1, channels);
        r6_double_buffered<8>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint32_t v) { count_word<CH>(v, s_hist + w, q); },
            [&](uint64_t next) {
                if (threadIdx.x == 0) /* before each batch, the one after the next */
                    prefetch_rows_l2(d_samples, next + batch_rows + blockIdx.x * share, share, rows,
                                     channels);
            });
    }
    __syncthreads(); /* every count in before the histogram is read */
    flush_scattered<4, CH>(s_hist, c0, 4 * words, d_out, add_count());
}

/* ---- step 4: partials instead of atomics ---- */

/**
 * @brief Step 4: step 1, the block's counts stored (not added) as its chunk's partial histogram,
 *        which day 03's kernel then sums into the output.
 * @tparam CH channels per block
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 4)
 * @param chunk_rows rows per block
 * @param d_partials a partial histogram `[channels][256]` per row chunk
 * @par Launch
 * As step 1, into the workspace (`launch_partials()`, which then sums the partials).
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step4_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_partials) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: word w of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t words = min((uint32_t)CH, channels - c0) / 4;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t W = CH / 4, R = 32 / W; /* words of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = lane / W;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    if (w < words) { /* in a narrower last group some lanes idle */
        const uint32_t *column = reinterpret_cast<const uint32_t *>(d_samples + c0) + w;
        const size_t stride = channels / 4;
        const uint64_t first = r0 + warp * R + q;
        r6_double_buffered<8>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint32_t v) { count_word<CH>(v, s_hist + w, q); });
    }
    __syncthreads(); /* every count in before the histogram is read */
    uint32_t *d_partial = d_partials + (size_t)blockIdx.y * channels * R6_BINS; /* this chunk's */
    flush_scattered<4, CH>(s_hist, c0, 4 * words, d_partial, store_count());
}

/* ---- step 5: a coalesced flush ---- */

/**
 * @brief Step 5: step 4 with the coalesced flush: the partials stored through the padded
 *        transposition buffer, 32 consecutive bins of one channel per warp instruction.
 * @tparam CH channels per block
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 4)
 * @param chunk_rows rows per block
 * @param d_partials a partial histogram `[channels][256]` per row chunk
 * @par Launch
 * As step 4, with `R6_STEP_SMEM(CH)` bytes of dynamic shared memory: the histogram and the
 * `[CH][64 + 1]` transposition buffer (164,352 bytes with 128 channels).
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step5_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_partials) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: word w of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t words = min((uint32_t)CH, channels - c0) / 4;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t W = CH / 4, R = 32 / W; /* words of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = lane / W;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    if (w < words) { /* in a narrower last group some lanes idle */
        const uint32_t *column = reinterpret_cast<const uint32_t *>(d_samples + c0) + w;
        const size_t stride = channels / 4;
        const uint64_t first = r0 + warp * R + q;
        r6_double_buffered<8>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint32_t v) { count_word<CH>(v, s_hist + w, q); });
    }
    __syncthreads(); /* every count in before the histogram is read */
    uint32_t *d_partial = d_partials + (size_t)blockIdx.y * channels * R6_BINS; /* this chunk's */
    flush_coalesced<CH>(s_hist, s_hist + R6_BINS * CH, c0, 4 * words, d_partial, store_count());
}

/* ---- step 6: one kernel again ---- */

/**
 * @brief Step 6: step 5's coalesced flush adding into the output: no partials, no second kernel.
 * @tparam CH channels per block
 * @param d_samples the input, row-major `[rows][channels]`
 * @param rows rows
 * @param channels channels per row (divisible by 4)
 * @param chunk_rows rows per block
 * @param d_out the output `[channels][256]`, zeroed
 * @par Launch
 * As step 1 (`launch_adding()`), with step 5's `R6_STEP_SMEM(CH)` bytes of shared memory.
 */
template <int CH>
__global__ __launch_bounds__(R6_THREADS, 1) void step6_kernel(const uint8_t *__restrict__ d_samples,
                                                              uint64_t rows, uint32_t channels,
                                                              uint64_t chunk_rows,
                                                              uint32_t *__restrict__ d_out) {
    extern __shared__ uint32_t s_hist[]; /* [256 bins][CH slots] */
    zero_histogram<CH>(s_hist);
    __syncthreads(); /* all counters zeroed before any thread counts */

    /* the block: channels c0.. (fewer in a last group), rows r0 to r1; the lane: word w of
       row q of its warp's R rows (roofline.cuh's layout) */
    const uint32_t c0 = blockIdx.x * CH;
    const uint32_t words = min((uint32_t)CH, channels - c0) / 4;
    const uint64_t r0 = blockIdx.y * chunk_rows, r1 = min(r0 + chunk_rows, rows);
    constexpr uint32_t W = CH / 4, R = 32 / W; /* words of a row, rows of a warp load */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = lane / W;
    const uint64_t step = (uint64_t)(blockDim.x / 32) * R; /* a lane's row to its next */
    if (w < words) { /* in a narrower last group some lanes idle */
        const uint32_t *column = reinterpret_cast<const uint32_t *>(d_samples + c0) + w;
        const size_t stride = channels / 4;
        const uint64_t first = r0 + warp * R + q;
        r6_double_buffered<8>(
            first, step, r1, [&](uint64_t row) { return column[row * stride]; },
            [&](uint32_t v) { count_word<CH>(v, s_hist + w, q); });
    }
    __syncthreads(); /* every count in before the histogram is read */
    flush_coalesced<CH>(s_hist, s_hist + R6_BINS * CH, c0, 4 * words, d_out, add_count());
}

/* ---- the host side: the block on this GPU, and the two launches ---- */

/** @brief A block's shared memory with CH channels and no transposition buffer (steps 1-4):
 *  the histogram (131,072 bytes with 128, 65,536 with 64, 32,768 with 32). */
#define R6_HIST_SMEM(CH) ((size_t)R6_BINS * (CH)*4)
/** @brief A block's shared memory with CH channels (steps 5 and 6): the histogram and the
 *  transposition buffer (164,352 bytes with 128, 82,176 with 64, 41,088 with 32). */
#define R6_STEP_SMEM(CH) (R6_HIST_SMEM(CH) + (size_t)(CH) * (R6_FLUSH_BINS + 1) * 4)

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

/** @brief Every step's kernel: (input, rows, channels, rows per block, output or partials). */
typedef void (*step_kernel)(const uint8_t *, uint64_t, uint32_t, uint64_t, uint32_t *);

/**
 * @brief Call @p launch with this GPU's channels per block (step_channels()) as a compile-time
 *        constant (a `std::integral_constant`), so that it can pick the step's kernel for them.
 * @param a the call's arguments (its device)
 * @param launch launch(CH): the step's launch with CH channels per block
 * @return what @p launch returns, or the failure where no block fits the GPU
 */
template <typename Launch>
static hist_status with_step_channels(const hist_args *a, Launch launch) {
    switch (step_channels(a->device)) {
    case 128:
        return launch(std::integral_constant<int, 128>());
    case 64:
        return launch(std::integral_constant<int, 64>());
    case 32:
        return launch(std::integral_constant<int, 32>());
    default:
        return hist_fail(HIST_ERR_UNSUPPORTED,
                         "day06's steps need %zu bytes of shared memory per block; %s allows %zu",
                         R6_STEP_SMEM(32), a->device->name, a->device->smem_per_block_optin);
    }
}

/**
 * @brief Launch a step that adds into the output (steps 1-3 and 6): the output zeroed, then a
 *        grid of (channel groups of @p ch, row chunks: SMs / groups), one block per SM.
 * @param a the call's arguments
 * @param kernel the step's kernel with @p ch channels per block
 * @param ch channels per block
 * @param smem its dynamic shared memory
 * @param name the kernel's name, for a launch error
 * @return HIST_OK or the CUDA error
 */
static hist_status launch_adding(const hist_args *a, step_kernel kernel, uint32_t ch, size_t smem,
                                 const char *name) {
    const hist_problem *p = a->problem;
    uint64_t chunk_rows = 0;
    const uint32_t chunks = chunks_for(p, a->device, ch, &chunk_rows);
    const uint32_t groups = (p->channels + ch - 1) / ch;
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (p->rows == 0)
        return HIST_OK;
    return hist_launch(a->device, kernel, dim3(groups, chunks), R6_THREADS, smem, 0, name,
                       a->samples, p->rows, p->channels, chunk_rows, a->hist);
}

/**
 * @brief Launch a step that stores partials (steps 4 and 5): its kernel into the workspace, a
 *        partial histogram per row chunk, then day 03's merge sums them into the output.
 * @param a the call's arguments (its workspace: partials_bytes())
 * @param kernel the step's kernel with @p ch channels per block
 * @param ch channels per block
 * @param smem its dynamic shared memory
 * @param name the kernel's name, for a launch error
 * @return HIST_OK or the CUDA error
 */
static hist_status launch_partials(const hist_args *a, step_kernel kernel, uint32_t ch, size_t smem,
                                   const char *name) {
    const hist_problem *p = a->problem;
    uint64_t chunk_rows = 0;
    const uint32_t chunks = chunks_for(p, a->device, ch, &chunk_rows);
    const uint32_t groups = (p->channels + ch - 1) / ch;
    uint32_t *d_partials = (uint32_t *)a->workspace;
    if (p->rows > 0) {
        hist_status s = hist_launch(a->device, kernel, dim3(groups, chunks), R6_THREADS, smem, 0,
                                    name, a->samples, p->rows, p->channels, chunk_rows, d_partials);
        if (s != HIST_OK)
            return s;
    } else {
        HIST_CUDA_TRY(cudaMemsetAsync(d_partials, 0, hist_counters(p) * sizeof(uint32_t)));
    }
    return day03_sum_partials(a->device, d_partials, chunks, hist_counters(p), a->hist);
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
    if (cudaFuncGetAttributes(&attr, step3_kernel<128>) != cudaSuccess) {
        cudaGetLastError();
        return true; /* no GPU to ask (the which-GPU page): the build's own architecture decides */
    }
    return attr.ptxVersion >= 90;
}

/** @brief Why steps 1-6 cannot run @p p with loads of @p vec bytes, or NULL.
 *  @param p the problem @param dev the GPU, or NULL @param vec 4 or 16 @return the reason */
static const char *unsupported_step(const hist_problem *p, const hist_device *dev, uint32_t vec) {
    if (!hist_is_byte_binning(p->binning))
        return "byte histogram only (--lo 0 --hi 255 --width 1)";
    if (p->channels % vec != 0)
        return vec == 4 ? "channels must be divisible by 4 (32-bit loads)"
                        : "channels must be divisible by 16 (16-byte loads)";
    if (dev && step_channels(dev) == 0)
        return HIST_NOT_ON_GPU "steps 1-6 need at least 41,088 bytes of shared memory per block "
                               "(32 channels)";
    return NULL;
}

const char *unsupported_vec4(const hist_problem *p, const hist_device *dev) {
    return unsupported_step(p, dev, 4);
}
const char *unsupported_vec16(const hist_problem *p, const hist_device *dev) {
    return unsupported_step(p, dev, 16);
}
const char *unsupported_prefetch(const hist_problem *p, const hist_device *dev) {
    const char *why = unsupported_step(p, dev, 4);
    if (why != NULL)
        return why;
    if (dev && dev->cc_major < 9)
        return HIST_NOT_ON_GPU "needs a Hopper GPU (compute capability 9.0) for "
                               "cp.async.bulk.prefetch";
    if (dev && !built_for_hopper())
        return HIST_NOT_ON_GPU "this build has no sm_90 code for cp.async.bulk.prefetch (build "
                               "with ARCH=sm_90)";
    return NULL;
}

/* ---- the steps, as registry.cu lists them: each its kernel with this GPU's CH ---- */

/** @brief Step 1 (step1_kernel()). @param a the call's arguments @return HIST_OK or the failure */
hist_status run_step1(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_adding(a, step1_kernel<CH>, CH, R6_HIST_SMEM(CH), "step1_kernel");
    });
}
/** @brief Step 2 (step2_kernel()). @param a the call's arguments @return as step 1 */
hist_status run_step2(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_adding(a, step2_kernel<CH>, CH, R6_HIST_SMEM(CH), "step2_kernel");
    });
}
/** @brief Step 3 (step3_kernel()). @param a the call's arguments @return as step 1 */
hist_status run_step3(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_adding(a, step3_kernel<CH>, CH, R6_HIST_SMEM(CH), "step3_kernel");
    });
}
/** @brief Step 4 (step4_kernel(), then day 03's merge). @param a the call's arguments
 *  @return as step 1 */
hist_status run_step4(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_partials(a, step4_kernel<CH>, CH, R6_HIST_SMEM(CH), "step4_kernel");
    });
}
/** @brief Step 5 (step5_kernel(), then day 03's merge). @param a the call's arguments
 *  @return as step 1 */
hist_status run_step5(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_partials(a, step5_kernel<CH>, CH, R6_STEP_SMEM(CH), "step5_kernel");
    });
}
/** @brief Step 6 (step6_kernel()). @param a the call's arguments @return as step 1 */
hist_status run_step6(const hist_args *a) {
    return with_step_channels(a, [&](auto CH) {
        return launch_adding(a, step6_kernel<CH>, CH, R6_STEP_SMEM(CH), "step6_kernel");
    });
}
