/**
 * @file exchange.cuh
 * @brief Day 09, step 2's building blocks: the exchange's configuration, its rows turned around
 *        in registers, the words sent with `st.async` onto the receivers' mbarriers, and the
 *        cluster barrier that frees a buffer (exchange_kernel() in clusters.cu puts them together).
 *
 * With 8 channels (`u16x8`: a row is 16 bytes) and a cluster of 8 blocks, block r owns channel
 * r's whole histogram, 65,536 packed counters (128 KiB, day 08's packed.cuh). Each round, every
 * thread loads 2 rows, turns them around in registers (exchange_transpose(): channel c's 2
 * samples in one word), sends channel c's word into block c's buffer with `st.async`, which
 * completes on that buffer's mbarrier in block c and never makes the sender wait, and counts the
 * buffer it received the round before with day 08's final counter (wide_count, one channel).
 *
 * The words defined here (the README defines them at length):
 *  - an **mbarrier** is a 64-bit object in shared memory that counts arrivals and bytes for its
 *    current **phase**; the phase completes when the expected arrivals have come and every byte
 *    announced by `expect_tx` has been counted off by `complete_tx`, and the next phase begins.
 *    A waiter names the phase by its **parity** (0, 1, 0, ...: the phase number modulo 2);
 *  - `st.async` stores a word into another block's shared memory and performs `complete_tx` of
 *    its 4 bytes on an mbarrier of that block once the word is there;
 *  - `fence.release.sync_restrict::shared::cta.cluster` orders this thread's earlier accesses to
 *    its own block's shared memory before its later release at cluster scope, here the relaxed
 *    arrive at the cluster barrier, which orders nothing by itself.
 */
#ifndef DAY09_EXCHANGE_CUH
#define DAY09_EXCHANGE_CUH

#include <cuda/ptx>
#include <stdint.h>

#include "../day08_wide/wide_count.cuh"
#include "ptx.cuh"

/** @brief Threads a block of the exchange. */
#define XCH_THREADS 1024
/** @brief Rows a thread loads a round: it sends each block one 32-bit word, two samples. */
#define XCH_ROWS 2
/** @brief Buffers a block receives into: three, so that a round's words can arrive while the
 *  round before is counted and the cluster barrier says the round before that is
 *  (exchange_kernel()). */
#define XCH_BUFFERS 3
/** @brief Blocks a cluster: one a channel. */
#define XCH_CHANNELS 8
/** @brief Rows a cluster takes a round. */
#define XCH_TILE_ROWS (XCH_CHANNELS * XCH_THREADS * XCH_ROWS)
/** @brief One buffer, 32-bit words: one from every thread of every block of the cluster. */
#define XCH_BUFFER_WORDS (XCH_CHANNELS * XCH_THREADS)
/** @brief One buffer, bytes (32 KiB). */
#define XCH_BUFFER_BYTES (XCH_BUFFER_WORDS * 4u)
/** @brief Shared memory of the buffers, bytes (96 KiB). */
#define XCH_BUFFERS_BYTES (XCH_BUFFERS * XCH_BUFFER_BYTES)

//! [exchange_transpose]
/**
 * @brief Two rows of 8 channels turned around: @p o[c] holds channel c's two samples, row 0's
 *        in the low half. Word k of a row holds channels 2k (low half) and 2k + 1:
 *        `__byte_perm(a, b, 0x5410)` joins the low halves of a and b, `0x7632` the high ones.
 * @param a row 0 @param b row 1 @param o the channels
 */
__device__ __forceinline__ void exchange_transpose(uint4 a, uint4 b, uint32_t o[8]) {
    const uint32_t x[4] = {a.x, a.y, a.z, a.w}, y[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        o[2 * k] = __byte_perm(x[k], y[k], 0x5410);
        o[2 * k + 1] = __byte_perm(x[k], y[k], 0x7632);
    }
}
//! [exchange_transpose]

/** @brief Count one received buffer: all its samples are this block's channel, 8 to a 16-byte
 *  word (4 neighbouring threads' rows: runs stay together).
 *  @param buf the buffer @param count the block's counter */
template <bool FULL>
__device__ __forceinline__ void exchange_count(const uint32_t *buf, wide_count<FULL> &count) {
    const uint4 *w = reinterpret_cast<const uint4 *>(buf);
#pragma unroll
    for (uint32_t j = threadIdx.x; j < XCH_BUFFER_WORDS / 4; j += XCH_THREADS)
        count.word(0, w[j]);
}

/** @brief Each buffer's mbarrier in each block: its phase completes when the 32 KiB of a round
 *  have landed (every thread of every block sends one word) and its one arrival has come. */
__shared__ uint64_t xch_full[XCH_BUFFERS];

//! [exchange_barriers]
/** @brief Thread 0: each buffer's mbarrier set up for one arrival a phase (the receiver's
 *  expect_tx), and armed for rounds 0, 1 and 2: XCH_BUFFER_BYTES to come. The fence makes the
 *  set-up visible to the other blocks' `st.async` (they complete_tx on it) once the cluster
 *  barrier that follows has been passed. */
__device__ __forceinline__ void xch_init_barriers() {
    for (uint32_t b = 0; b < XCH_BUFFERS; ++b) {
        cuda::ptx::mbarrier_init(&xch_full[b], 1);
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                             cuda::ptx::space_shared, &xch_full[b],
                                             XCH_BUFFER_BYTES);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

/** @brief Store @p word at @p addr in another block (`st.async`): the store completes on that
 *  block's mbarrier @p bar, counting off its 4 bytes, and the sender does not wait for it.
 *  @param addr where (a shared::cluster address, hist_ptx_mapa()) @param word what
 *  @param bar the receiver's mbarrier (a shared::cluster address) */
__device__ __forceinline__ void xch_send(uint32_t addr, uint32_t word, uint32_t bar) {
    hist_ptx_st_async_u32(addr, word, bar);
}

/** @brief Wait until buffer @p b's mbarrier completes the phase of @p parity: its words have
 *  landed, and are visible to this thread (acquire at cluster scope); then (thread 0) arm it for
 *  its next phase, XCH_BUFFER_BYTES to come. @param b the buffer @param parity 0 or 1 */
__device__ __forceinline__ void xch_wait_full(uint32_t b, uint32_t parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                &xch_full[b], parity))
        ;
    if (threadIdx.x == 0)
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                             cuda::ptx::space_shared, &xch_full[b],
                                             XCH_BUFFER_BYTES);
}

/** @brief Tell the cluster this thread has counted a buffer: a release of its operations on its
 *  block's shared memory only (the counting's reads of the buffer, which the buffer's next writer
 *  must follow), then the cluster barrier's arrive without a fence of its own. */
__device__ __forceinline__ void xch_counted() {
    cuda::ptx::fence_sync_restrict(cuda::ptx::sem_release, cuda::ptx::space_shared,
                                   cuda::ptx::scope_cluster);
    hist_ptx_cluster_arrive_relaxed_aligned();
}

/** @brief Wait until every thread of the cluster has arrived (xch_counted()): the buffer counted
 *  two rounds ago is free in every block. */
__device__ __forceinline__ void xch_wait_counted() {
    hist_ptx_cluster_wait_aligned();
}
//! [exchange_barriers]

/** @brief One thread's end of step 2's exchange: its rows in flight, and where each block's
 *  buffers and mbarriers are. */
struct exchange_pipe {
    const uint4 *rows; /**< the input */
    uint64_t first;    /**< this thread's first row in the cluster's first tile */
    uint64_t step;     /**< rows from one of the cluster's tiles to its next */
    uint64_t rounds;   /**< the cluster's tiles */
    uint32_t bars;  /**< this block's mbarriers, xch_full (shared address; mapped to block c's) */
    uint32_t gap;   /**< from a block's mbarriers to this thread's word in its first buffer */
    uint32_t to[8]; /**< block c's mbarriers (shared::cluster address) */
    uint4 now[2];   /**< the two rows of the next round to send */
    uint4 next[2];  /**< the two rows of the round after */

    /** @brief Load round @p i's two rows into @p r (if the cluster has that round).
     *  @param i the round @param r the rows */
    __device__ void load(uint64_t i, uint4 r[2]) const {
        if (i < rounds)
            r[0] = rows[first + i * step], r[1] = rows[first + i * step + 1];
    }
    /** @brief Round @p i: turn the rows around and send block c channel c's word into buffer
     *  `i % 3`; then the next round's rows are the ones to send, and round i + 2's are loaded.
     *  @param i the round */
    __device__ void send(uint64_t i) {
        uint32_t o[8];
        exchange_transpose(now[0], now[1], o);
        const uint32_t b = (uint32_t)(i % XCH_BUFFERS);
#pragma unroll
        for (uint32_t c = 0; c < XCH_CHANNELS; ++c) /* channel c to block c */
            xch_send(to[c] + gap + b * XCH_BUFFER_BYTES, o[c],
                     to[c] + b * (uint32_t)sizeof(xch_full[0]));
        now[0] = next[0], now[1] = next[1];
        load(i + 2, next);
    }
    /** @brief Wait for round @p i's buffer to fill (and arm its mbarrier for round i + 3), then
     *  count it. @param i the round @param buf the buffers @param count the counter */
    template <bool FULL>
    __device__ void receive(uint64_t i, const uint32_t *buf, wide_count<FULL> &count) const {
        const uint32_t b = (uint32_t)(i % XCH_BUFFERS);
        xch_wait_full(b, (uint32_t)(i / XCH_BUFFERS) & 1u);
        exchange_count(buf + b * XCH_BUFFER_WORDS, count);
    }
};

#endif /* DAY09_EXCHANGE_CUH */
