/**
 * @file small.cuh
 * @brief Day 06, step 9: one channel of a few megabytes (PMPP's own problem, GPU MODE's
 *        `histogram_v2` sizes), where the time is the launch and the way out, not the bytes.
 *
 * Steps 1-8 plan for 512 MiB: a grid of every SM, 198 KiB of counters a block, a flush of 256
 * bins from every block. A histogram of 1-10 million bytes is read in a few microseconds, so what
 * each call costs besides the bytes decides. The plan for it:
 *
 *  - the grid sized to the data (one block of R6_SMALL_THREADS per 16 KiB, at most one per SM);
 *  - this lesson's idea for one channel: each lane its own 256 counters, all in its own bank
 *    (`s_hist[value][lane]`), so that a value repeated by every lane (contention) costs no bank
 *    conflict;
 *  - one cooperative launch and no memset: block 0 zeroes the output while the others count, and
 *    every block waits at one grid barrier only before it adds its sums to the output.
 *
 * Self-contained (no header of the course's): `make gpumode` pastes it whole into GPU MODE's
 * file, with COUNT = unsigned long long for that problem's int64 output.
 */
#ifndef DAY06_SMALL_CUH
#define DAY06_SMALL_CUH

#include <cooperative_groups.h>
#include <stdint.h>

/** @brief Threads per block of the small-input plan. */
#define R6_SMALL_THREADS 1024
/** @brief Bytes of input per block (at most one block per SM): 16 bytes per thread. */
#define R6_SMALL_BLOCK_BYTES (16 * R6_SMALL_THREADS)
/** @brief The most input the final kernel gives this plan (one channel): every GPU MODE size,
 *  where step 8's grid for 512 MiB costs more than the bytes. */
#define R6_SMALL_MAX_BYTES (16u << 20)

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
 * @par Launch
 * A cooperative launch (all blocks resident: at most one block per SM) of R6_SMALL_THREADS
 * threads, a block per R6_SMALL_BLOCK_BYTES of input; 33 KiB of static shared memory.
 */
template <typename COUNT>
__global__ void __launch_bounds__(R6_SMALL_THREADS, 1)
    small_kernel(const uint8_t *__restrict__ in, uint64_t n, uint32_t lo, uint32_t hi,
                 uint32_t width, uint32_t bins, COUNT *__restrict__ out) {
    __shared__ uint32_t s_hist[256 * 32]; /* [value][lane]: lane l's counters all in bank l */
    __shared__ uint32_t s_bins[256];      /* the block's sums per bin */
    const uint32_t lane = threadIdx.x % 32;
    if (blockIdx.x == 0) /* the output, zeroed while the others count */
        for (uint32_t k = threadIdx.x; k < bins; k += R6_SMALL_THREADS)
            out[k] = 0;
    for (uint32_t k = threadIdx.x; k < 256 * 32 / 4; k += R6_SMALL_THREADS)
        reinterpret_cast<uint4 *>(s_hist)[k] = make_uint4(0, 0, 0, 0);
    if (threadIdx.x < 256)
        s_bins[threadIdx.x] = 0;
    auto token = cooperative_groups::this_grid().barrier_arrive();
    __syncthreads();

    /* the 16-byte words from the first aligned byte, then the bytes before and after them */
    uint32_t *s_lane = s_hist + lane;
    const uint64_t head = ((16 - (uintptr_t)in % 16) % 16) < n ? (16 - (uintptr_t)in % 16) % 16 : n;
    const uint64_t words = (n - head) / 16;
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
    const uint64_t stride = (uint64_t)gridDim.x * R6_SMALL_THREADS;
    uint64_t i = (uint64_t)blockIdx.x * R6_SMALL_THREADS + threadIdx.x;
    for (; i + 3 * stride < words; i += 4 * stride) { /* four loads in flight */
        const uint4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride),
                    d = __ldg(v + i + 3 * stride);
        small_count_word(a, s_lane);
        small_count_word(b, s_lane);
        small_count_word(c, s_lane);
        small_count_word(d, s_lane);
    }
    for (; i < words; i += stride)
        small_count_word(__ldg(v + i), s_lane);
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        small_count_bytes(in, threadIdx.x, head, s_lane);
        small_count_bytes(in, head + words * 16 + threadIdx.x, n, s_lane);
    }
    __syncthreads();

    /* value t's 32 lanes, read skewed (thread t starts at bank t) so that a warp hits 32 banks;
       then into its bin */
    if (threadIdx.x < 256) {
        uint32_t sum = 0;
        for (uint32_t l = 0; l < 32; ++l)
            sum += s_hist[threadIdx.x * 32 + ((l + threadIdx.x) % 32)];
        if (sum && threadIdx.x >= lo && threadIdx.x <= hi)
            atomicAdd(&s_bins[(threadIdx.x - lo) / width], sum);
    }
    cooperative_groups::this_grid().barrier_wait(std::move(token)); /* the output zeroed */
    for (uint32_t k = threadIdx.x; k < bins; k += R6_SMALL_THREADS)
        if (s_bins[k])
            atomicAdd(&out[k], (COUNT)s_bins[k]);
}

#endif /* DAY06_SMALL_CUH */
