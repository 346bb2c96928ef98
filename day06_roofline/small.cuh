/**
 * @file small.cuh
 * @brief Day 06, step 9: one channel of a few megabytes (PMPP's own problem, GPU MODE's
 *        `histogram_v2` sizes), where the time is the launch and the way out, not the bytes.
 *
 *   step 9  gpu_r6_v9_small  small_kernel: one channel of a few megabytes, each lane its own 256
 *           counters, a grid sized to the data, the output zeroed by an extra block behind a
 *           gate instead of step 8's grid barrier
 *           ./build/day06_roofline --impl gpu_r6_v9_small --preset pmpp:1
 *   (gpu_roofline runs it too where it applies: ./build/day06_roofline --impl gpu_roofline
 *   --preset pmpp:1)
 *
 * Steps 1-8 plan for 512 MiB: a grid of every SM, 198 KiB of counters a block, a flush of 256
 * bins from every block. A histogram of 1-10 million bytes is read in a few microseconds, so what
 * each call costs besides the bytes decides. The plan for it:
 *
 *  - the grid sized to the data: a block of R6_SMALL_THREADS counting threads per 8 KiB, at
 *    most one block per SM, and each thread's first four 16-byte loads issued before anything
 *    else, so that the memory's latency hides the block's set-up;
 *  - this lesson's idea for one channel: each lane its own 256 counters, all in its own bank
 *    (`s_hist[value][lane]`), so that a value repeated by every lane (contention) costs no bank
 *    conflict;
 *  - no memset and no grid barrier in anyone's way: one extra block (the last) zeroes the output
 *    and opens a gate; each counting block has one more warp, its gatekeeper, which waits at the
 *    gate while the others count. A block adds its sums to the output only once its gatekeeper is
 *    through, so never into a counter not yet zeroed.
 *
 * The gate is one word per GPU (small_gate), a counter every block adds to once: the zeroing
 * block adds 2^31 - (blocks - 1) with release semantics after zeroing, every counting block adds
 * 1, so the word's top bit flips exactly when all have arrived, and it flips back to the same
 * low bits next launch (cooperative groups' grid barrier counts this way). A gatekeeper waits for
 * that flip with acquire loads, then its block's barrier hands the order on to the block's adds
 * (`cuda::atomic_ref` at device scope: a relaxed add, acquire loads, the zeroing block's release
 * add). So launches on one GPU must not overlap (one stream), and the launch is cooperative: every
 * block resident at once, or a gatekeeper would wait for a block that cannot start.
 *
 * Of the course's headers it includes only common/ptx.cuh (the named barrier), so that `make
 * gpumode` pastes the two whole into GPU MODE's file (tools/build/bundle.py), with COUNT =
 * unsigned long long for that problem's int64 output.
 */
#ifndef DAY06_SMALL_CUH
#define DAY06_SMALL_CUH

#include <stdint.h>

#include <cuda/atomic>
#include <cuda/ptx>

#include "ptx.cuh"

/** @brief Counting threads of a block of the small-input plan (a multiple of 256). */
#define R6_SMALL_THREADS 512
/** @brief Threads of a block: the counting threads and the gatekeeper warp. */
#define R6_SMALL_BLOCK (R6_SMALL_THREADS + 32)
/** @brief Bytes of input per counting block: 16 bytes per counting thread. */
#define R6_SMALL_BLOCK_BYTES (16 * R6_SMALL_THREADS)
/** @brief The most input the final kernel gives this plan (one channel): every GPU MODE size,
 *  where step 8's grid for 512 MiB costs more than the bytes. */
#define R6_SMALL_MAX_BYTES (16u << 20)

/** @brief The gate: one word per GPU, zero when the module loads, back to its low bits after
 *  every launch. */
static __device__ uint32_t small_gate;

/** @brief Step 9's phases, stamped per block where the breakdown asks (`d_stamps` not NULL). */
enum small_stamp_at { SMALL_STARTED, SMALL_COUNTED, SMALL_SUMMED, SMALL_THROUGH, SMALL_STAMPS };

/** @brief Record phase @p at of this block (its thread 0) in @p d_stamps
 *  (`[blocks][SMALL_STAMPS]` nanoseconds, %globaltimer), unless it is NULL (every run but the
 *  breakdown's). @param d_stamps the stamps, or NULL @param at the phase */
__device__ __forceinline__ void small_stamp(uint64_t *d_stamps, small_stamp_at at) {
    if (d_stamps != NULL && threadIdx.x == 0)
        d_stamps[blockIdx.x * SMALL_STAMPS + at] = cuda::ptx::get_sreg_globaltimer();
}

/**
 * @brief The grid of step 9 for @p n bytes: a counting block per R6_SMALL_BLOCK_BYTES, at most
 *        one per SM less the zeroing block, and the zeroing block.
 * @param n the input's bytes
 * @param sm_count the GPU's SMs
 * @return the blocks to launch (at least 2)
 */
static inline uint32_t small_grid(uint64_t n, int sm_count) {
    const uint64_t most = sm_count > 2 ? (uint64_t)sm_count - 1 : 1;
    uint64_t counting = (n + R6_SMALL_BLOCK_BYTES - 1) / R6_SMALL_BLOCK_BYTES;
    counting = counting < 1 ? 1 : counting > most ? most : counting;
    return (uint32_t)counting + 1;
}

/** @brief Count the bytes of `[first, end)` one at a time (an unaligned head, the tail).
 *  @param in the input @param first the first byte @param end one past the last
 *  @param s_lane this lane's column of the counters */
__device__ inline void small_count_bytes(const uint8_t *in, uint64_t first, uint64_t end,
                                         uint32_t *s_lane) {
    for (uint64_t i = first; i < end; i += 32)
        atomicAdd(&s_lane[(uint32_t)in[i] * 32], 1u);
}

/** @brief Count one 16-byte word: each of its bytes into this lane's counter of that value.
 *  @param v the word @param s_lane this lane's column of the counters */
__device__ inline void small_count_word(uint4 v, uint32_t *s_lane) {
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int b = 0; b < 4; ++b)
            atomicAdd(&s_lane[((w[j] >> (8 * b)) & 255u) * 32], 1u);
}

/**
 * @brief The counting threads' loop over the aligned 16-byte words: four loads in flight while
 *        the four before them are counted. @p w holds the thread's first four words, loaded (as
 *        far as they exist) before the counters were zeroed.
 * @param v the words @param words how many @param i this thread's first word
 * @param stride the counting threads of the grid @param w the thread's first four words
 * @param s_lane this lane's column of the counters
 */
__device__ __forceinline__ void small_count_words(const uint4 *v, uint64_t words, uint64_t i,
                                                  uint64_t stride, uint4 w[4], uint32_t *s_lane) {
    while (i < words) {
        const uint4 c[4] = {w[0], w[1], w[2], w[3]};
        const uint64_t next = i + 4 * stride;
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (next + k * stride < words)
                w[k] = __ldg(v + next + k * stride);
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (i + k * stride < words)
                small_count_word(c[k], s_lane);
        i = next;
    }
}

/** @brief The gatekeeper: arrive at the gate (relaxed: this block publishes nothing), then wait
 *  with acquire loads until every block has arrived, the zeroing block last with release. */
__device__ inline void small_wait_at_gate() {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> gate(small_gate);
    const uint32_t before = gate.fetch_add(1, cuda::memory_order_relaxed);
    uint32_t now;
    do
        now = gate.load(cuda::memory_order_acquire);
    while (((now ^ before) & 0x80000000u) == 0);
}

/** @brief The last block's work: zero the output, then open the gate: its add (2^31 less one per
 *  counting block, with release, so the zeros are visible to whoever sees the gate open) is what
 *  flips the gate's top bit once the counting blocks' adds are in.
 *  @param out the output @param bins its counters */
template <typename COUNT> __device__ inline void small_zero_and_open(COUNT *out, uint32_t bins) {
    for (uint32_t k = threadIdx.x; k < bins; k += blockDim.x)
        out[k] = 0;
    __syncthreads();
    if (threadIdx.x == 0)
        cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(small_gate)
            .fetch_add(0x80000000u - (gridDim.x - 1), cuda::memory_order_release);
}

/** @brief Sum value `threadIdx.x / P`'s 32 lane counters, P threads a value (each 32 / P lanes,
 *  read skewed so that a warp hits 32 banks, then added across the P threads).
 *  @param s_hist the counters `[256][32]` @return the sum (in every one of the P threads) */
__device__ inline uint32_t small_value_sum(const uint32_t *s_hist) {
    constexpr uint32_t P = R6_SMALL_THREADS / 256, L = 32 / P;
    const uint32_t value = threadIdx.x / P, part = threadIdx.x % P;
    uint32_t sum = 0;
#pragma unroll
    for (uint32_t l = 0; l < L; ++l)
        sum += s_hist[value * 32 + ((part * L + l + value) & 31)];
#pragma unroll
    for (uint32_t o = 1; o < P; o *= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    return sum;
}

/** @brief The counting threads' own barrier (named barrier 1: the gatekeeper is elsewhere). */
__device__ inline void small_sync_counters() {
    hist_ptx_bar_sync<1, R6_SMALL_THREADS>();
}

/**
 * @brief The counting threads' part: zero the block's counters, then count its share of the
 *        input into them (the 16-byte words from the first aligned byte, and in block 0 the bytes
 *        before and after them). Each thread's first four words are asked for before anything
 *        else, so that the memory's latency hides the zeroing.
 * @param in the input @param n its bytes
 * @param s_hist the counters `[256][32]` @param s_bins the block's sums per bin, zeroed here
 */
__device__ __forceinline__ void small_count(const uint8_t *in, uint64_t n, uint32_t *s_hist,
                                            uint32_t *s_bins) {
    const uint64_t skip = (16 - (uintptr_t)in % 16) % 16, head = skip < n ? skip : n;
    const uint64_t words = (n - head) / 16, stride = (uint64_t)(gridDim.x - 1) * R6_SMALL_THREADS;
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
    const uint64_t i = (uint64_t)blockIdx.x * R6_SMALL_THREADS + threadIdx.x;
    uint4 w[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (i + k * stride < words)
            w[k] = __ldg(v + i + k * stride);
    for (uint32_t k = threadIdx.x; k < 256 * 32 / 4; k += R6_SMALL_THREADS)
        reinterpret_cast<uint4 *>(s_hist)[k] = make_uint4(0, 0, 0, 0);
    if (threadIdx.x < 256)
        s_bins[threadIdx.x] = 0;
    small_sync_counters();
    uint32_t *s_lane = s_hist + threadIdx.x % 32;
    small_count_words(v, words, i, stride, w, s_lane);
    if (blockIdx.x == 0 && threadIdx.x < 32) { /* the bytes before and after the words */
        small_count_bytes(in, threadIdx.x, head, s_lane);
        small_count_bytes(in, head + words * 16 + threadIdx.x, n, s_lane);
    }
    small_sync_counters();
}

/**
 * @brief Step 9: the histogram of @p n bytes of one channel into @p out (`bins` counters, bin
 *        `(v - lo) / width` for `lo <= v <= hi`), zeroed by the kernel itself.
 * @tparam COUNT the output's counter type (uint32_t; unsigned long long for GPU MODE's int64)
 * @param in the input, any alignment
 * @param n its bytes
 * @param lo the first value counted
 * @param hi the last
 * @param width values per bin
 * @param bins the bins
 * @param out the output (`bins` counters)
 * @param d_stamps per-block phase stamps for the breakdown, or NULL
 * @par Launch
 * Cooperative, small_grid() blocks of R6_SMALL_BLOCK threads, 33 KiB of static shared memory;
 * one launch at a time on a GPU (small_gate).
 */
template <typename COUNT>
__global__ void __launch_bounds__(R6_SMALL_BLOCK, 1)
    small_kernel(const uint8_t *__restrict__ in, uint64_t n, uint32_t lo, uint32_t hi,
                 uint32_t width, uint32_t bins, COUNT *__restrict__ out, uint64_t *d_stamps) {
    __shared__ uint32_t s_hist[256 * 32]; /* [value][lane]: lane l's counters all in bank l */
    __shared__ uint32_t s_bins[256];      /* the block's sums per bin (binned inputs only) */
    small_stamp(d_stamps, SMALL_STARTED);
    if (blockIdx.x == gridDim.x - 1) { /* the zeroing block */
        small_zero_and_open(out, bins);
        return;
    }
    const bool counting = threadIdx.x < R6_SMALL_THREADS;
    uint32_t sum = 0;
    if (counting) {
        small_count(in, n, s_hist, s_bins);
        small_stamp(d_stamps, SMALL_COUNTED);
        sum = small_value_sum(s_hist);
        const uint32_t value = threadIdx.x / (R6_SMALL_THREADS / 256);
        if (width != 1 && threadIdx.x % (R6_SMALL_THREADS / 256) == 0 && sum && value >= lo &&
            value <= hi)
            atomicAdd(&s_bins[(value - lo) / width], sum);
        small_stamp(d_stamps, SMALL_SUMMED);
    } else if (threadIdx.x == R6_SMALL_THREADS) {
        small_wait_at_gate();
    }
    __syncthreads(); /* the block's sums done, and its gatekeeper through: the output is zero */
    small_stamp(d_stamps, SMALL_THROUGH);
    if (!counting)
        return;
    const uint32_t value = threadIdx.x / (R6_SMALL_THREADS / 256);
    if (width == 1) { /* one value a bin: each value's first thread adds its sum */
        if (threadIdx.x % (R6_SMALL_THREADS / 256) == 0 && sum && value >= lo && value <= hi)
            atomicAdd(&out[value - lo], (COUNT)sum);
    } else {
        for (uint32_t k = threadIdx.x; k < bins; k += R6_SMALL_THREADS)
            if (s_bins[k])
                atomicAdd(&out[k], (COUNT)s_bins[k]);
    }
}

#endif /* DAY06_SMALL_CUH */
