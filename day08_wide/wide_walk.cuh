/**
 * @file wide_walk.cuh
 * @brief Day 08's walk over the input: every sample once, 8 at a time from 16-byte words, each
 *        warp its own contiguous chunk. Every GPU step of day 08 counts through it.
 */
#ifndef DAY08_WIDE_WALK_CUH
#define DAY08_WIDE_WALK_CUH

#include <stdint.h>

/** @brief Threads of a warp: the walk gives each warp a contiguous chunk of the input. */
#define WIDE_WARP 32
#ifndef WIDE_IN_FLIGHT
/** @brief Words a lane loads before it counts them (its loads in flight at once). */
#define WIDE_IN_FLIGHT 4
#endif
/** @brief Threads per block of the kernels that count in shared memory (day 08's steps 3-5): one
 *  block of 1,024 threads per SM, the rest of the SM's shared memory its counters. */
#define WIDE_THREADS 1024

/**
 * @brief Walk this block's share of @p n samples: every sample once, 8 at a time from 16-byte
 *        words where the input is aligned. The words are cut into one contiguous chunk per warp
 *        of the grid's row of blocks (blockIdx.x), and a warp reads its chunk 512 bytes at a time,
 *        lane l the l-th word: coalesced, and a lane's words follow each other, so that a run of
 *        equal samples stays in one lane's registers (the final kernel). WIDE_IN_FLIGHT words a
 *        lane are in flight before the first is counted.
 * @tparam Count a counter with `word(c0, w)`: the 8 samples of word @p w, the first of channel
 *         @p c0, and `one(c, v)`: one sample @p v of channel @p c
 * @param samples the input, `[rows][channels]` 16-bit little-endian samples (device memory)
 * @param n rows * channels
 * @param channels channels per row
 * @param count the counter
 */
template <class Count>
__device__ __forceinline__ void wide_walk(const uint8_t *__restrict__ samples, uint64_t n,
                                          uint32_t channels, Count &count) {
    const uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    if ((uintptr_t)samples % 2) { /* an odd address: no wider load is aligned; two bytes each */
        for (uint64_t i = thread; i < n; i += threads)
            count.one((uint32_t)(i % channels), samples[2 * i] | (uint32_t)samples[2 * i + 1] << 8);
        return;
    }
    const uint16_t *s16 = (const uint16_t *)samples;
    /* the samples before the first 16-byte boundary, and those after the last whole word */
    const uint64_t head = (uint64_t)((16 - (uintptr_t)samples % 16) % 16) / 2 < n
                              ? (uint64_t)((16 - (uintptr_t)samples % 16) % 16) / 2
                              : n;
    const uint64_t words = (n - head) / 8, tail = head + words * 8;
    if (thread < head)
        count.one((uint32_t)(thread % channels), s16[thread]);
    if (thread < n - tail)
        count.one((uint32_t)((tail + thread) % channels), s16[tail + thread]);
    const uint4 *w16 = (const uint4 *)(s16 + head);
    const uint64_t warps = threads / WIDE_WARP, warp = thread / WIDE_WARP;
    const uint32_t lane = threadIdx.x % WIDE_WARP;
    const uint64_t per_warp = (words + warps - 1) / warps; /* words of a warp's chunk */
    const uint64_t begin = warp * per_warp, end = min(begin + per_warp, words);
    uint64_t i = begin + lane;
    /* the channel of word i's first sample, then kept up to date without a division */
    uint32_t c = (uint32_t)((head + 8 * i) % channels);
    const uint32_t step = (8u * WIDE_WARP) % channels; /* 32 words on */
    for (; i + (WIDE_IN_FLIGHT - 1) * WIDE_WARP < end; i += WIDE_IN_FLIGHT * WIDE_WARP) {
        uint4 w[WIDE_IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < WIDE_IN_FLIGHT; ++u)
            w[u] = w16[i + u * WIDE_WARP]; /* every load issued before any is counted */
#pragma unroll
        for (int u = 0; u < WIDE_IN_FLIGHT; ++u) {
            count.word(c, w[u]);
            c = c + step >= channels ? c + step - channels : c + step;
        }
    }
    for (; i < end; i += WIDE_WARP) {
        count.word(c, w16[i]);
        c = c + step >= channels ? c + step - channels : c + step;
    }
}

/**
 * @brief The 8 samples of a 16-byte word, in order.
 * @param w the word @param v receives the samples
 */
__device__ __forceinline__ void wide_unpack(uint4 w, uint32_t v[8]) {
    const uint32_t x[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        v[2 * k] = x[k] & 0xFFFFu; /* little-endian: the first sample is the low half */
        v[2 * k + 1] = x[k] >> 16;
    }
}

#endif /* DAY08_WIDE_WALK_CUH */
