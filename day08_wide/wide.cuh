/**
 * @file wide.cuh
 * @brief Day 08's building blocks: the bin of a 16-bit sample, the walk over the input that every
 *        kernel of the lesson shares, 16-bit counters packed two to a word and kept exact, and
 *        which block of a cluster owns a counter.
 *
 * Read it with wide.cu, whose kernels put these pieces together step by step.
 */
#ifndef DAY08_WIDE_CUH
#define DAY08_WIDE_CUH

#include <stdint.h>

#include "device.cuh"

/* ---- the bin of a 16-bit sample ---- */

/**
 * @brief A binning in the form the kernels use: bin = `umulhi(v - lo, magic)` when
 *        `v - lo <= span`, with `magic = ceil(2^32 / width)` (0 for width 1: the offset is the
 *        bin).
 *
 * Exact for every 16-bit offset and every width 1..65536: `magic` is at most 1 above
 * `2^32 / width`, so the product is off by less than `offset / 2^32 < 2^-16 <= 1 / width`, never
 * enough to reach the next whole bin (day 02's byte form, `hist_bin_map`, holds for bytes only).
 */
typedef struct wide_map {
    uint32_t lo;    /**< lowest counted value */
    uint32_t span;  /**< `hi - lo` */
    uint32_t magic; /**< `ceil(2^32 / width)`, or 0 for width 1 */
    uint32_t bins;  /**< bins per channel */
} wide_map;

/** @brief The kernel form of a binning. @param b the binning @return its map */
static inline wide_map wide_map_of(hist_binning b) {
    const uint64_t w = b.width;
    wide_map m = {b.lo, (uint32_t)(b.hi - b.lo),
                  w == 1 ? 0u : (uint32_t)(((UINT64_C(1) << 32) + w - 1) / w), hist_bins(b)};
    return m;
}

/**
 * @brief The bin of sample @p v, or -1 outside `[lo, hi]`.
 * @param v the sample @param m the binning @return its bin, or -1
 */
__device__ __forceinline__ int wide_bin(uint32_t v, wide_map m) {
    const uint32_t offset = v - m.lo; /* wraps to a large value below lo */
    if (offset > m.span)
        return -1;
    return (int)(m.magic ? __umulhi(offset, m.magic) : offset);
}

/* ---- the walk over the input ---- */

/** @brief Threads of a warp: the walk gives each warp a contiguous chunk of the input. */
#define WIDE_WARP 32
#ifndef WIDE_IN_FLIGHT
/** @brief Words a lane loads before it counts them (its loads in flight at once). */
#define WIDE_IN_FLIGHT 4
#endif

/**
 * @brief Walk this block's share of @p n samples: every sample once, 8 at a time from 16-byte
 *        words where the input is aligned. The words are cut into one contiguous chunk per warp
 *        of the grid's row of blocks (blockIdx.x), and a warp reads its chunk 512 bytes at a time,
 *        lane l the l-th word: coalesced, and a lane's words follow each other, so that a run of
 *        equal samples stays in one lane's registers (step 6). WIDE_IN_FLIGHT words a lane are in
 *        flight before the first is counted.
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

/* ---- 16-bit counters packed two to a word, exact ---- */

/**
 * @brief What packed_add() does when its add wrapped a half (the rare path): 65,536 to the half's
 * spill; for the low half, the carry into the high half taken back, and what the carry and the
 * taking-back did to the high half booked on its spill.
 * @param words the packed counters @param k the counter that wrapped @param old the word its add
 * returned @param spill the global counters @param counters how many are real
 */
__device__ __noinline__ void packed_wrapped(uint32_t *words, uint32_t k, uint32_t old,
                                            uint32_t *spill, uint32_t counters) {
    // SOLUTION packed_wrapped [gpu_packed16 gpu_wide]: the wrap booked. Add 65536 to spill[k].
    //   If k is odd (the high half), stop: its carry left the word. Else the carry went into the
    //   high half: take it back, back = atomicAdd(&words[k / 2], 0xFFFF0000u), and, if
    //   k + 1 < counters, book on spill[k + 1] what it did: +65536 if the carry wrapped the high
    //   half up (old >> 16 was 0xFFFF), -65536 (0u - 65536u) if the taking-back wrapped it down
    //   (back >> 16 is 0).
    // stub: (void)words, (void)k, (void)old, (void)spill, (void)counters;
    atomicAdd(&spill[k], 65536u);
    if (k & 1u)
        return; /* the high half's carry leaves the word: nothing else changed */
    const uint32_t back = atomicAdd(&words[k / 2], 0xFFFF0000u); /* the carry taken back */
    if (k + 1 < counters) {
        const uint32_t up = (old >> 16) == 0xFFFFu ? 65536u : 0u; /* the carry wrapped it */
        const uint32_t down = (back >> 16) == 0u ? 65536u : 0u;   /* taking it back did */
        if (up != down)
            atomicAdd(&spill[k + 1], up - down);
    }
    // END SOLUTION
}

/**
 * @brief Add @p d (1 .. 65,535) to 16-bit counter @p k of a packed array (counter 2j is the low
 *        half of word j, 2j + 1 the high half), exactly: whatever the counter loses by wrapping
 *        past 65,535 goes to @p spill[k] in global memory, under every interleaving of the threads
 *        that add to the same word.
 *
 * Why it is exact: each atomicAdd returns the word before it, so the thread that issued it knows
 * what its own addition did to both halves, whatever other threads did before or after. A half
 * that wraps past 65,535 lost 65,536: that thread adds 65,536 to the half's spill. A wrap of the
 * low half also carries 1 into the high half; the thread takes it back with a second atomicAdd
 * (of `0xFFFF0000`, minus 65,536 modulo 2^32), and books what the carry and the taking-back did to
 * the high half, from the words they returned: the carry wrapped it up (it was 65,535: +65,536 to
 * its spill), the taking-back wrapped it down (it was 0: -65,536). Between the two, other threads
 * see the high half one too high, and book their own wraps from what they see; summed over every
 * atomicAdd on the word, each half's final value plus its spill is exactly what was added to it.
 * The spill is modulo 2^32, like the output it is part of.
 *
 * @param words the packed counters (shared memory, this block's or, in a cluster, another's)
 * @param k the counter
 * @param d what to add, 1 .. 65,535
 * @param spill the global counters of the same layout (the output's, at the array's first counter)
 * @param counters how many counters of @p spill are real (the last word's high half may be padding)
 */
__device__ __forceinline__ void packed_add(uint32_t *words, uint32_t k, uint32_t d, uint32_t *spill,
                                           uint32_t counters) {
    // SOLUTION packed_add [gpu_packed16 gpu_wide]: the exact 16-bit counter.
    //   shift = 16 * (k & 1); old = atomicAdd(&words[k / 2], d << shift). If the half wrapped
    //   (((old >> shift) & 0xFFFF) + d > 0xFFFF), call packed_wrapped(words, k, old, spill,
    //   counters), which books what the wrap did.
    // stub: (void)words, (void)k, (void)d, (void)spill, (void)counters;
    const uint32_t shift = 16u * (k & 1u);
    const uint32_t old = atomicAdd(&words[k / 2], d << shift);
    if (((old >> shift) & 0xFFFFu) + d > 0xFFFFu)
        packed_wrapped(words, k, old, spill, counters); /* one add in 65,536 on a busy counter */
    // END SOLUTION
}

/**
 * @brief `atomicAdd()` on a shared word given by its shared-memory address, which a kernel can
 *        compute in fewer operations than a pointer's.
 * @param addr the word's shared-memory address (`__cvta_generic_to_shared()`)
 * @param inc what to add
 * @return the word before the add
 */
__device__ __forceinline__ uint32_t shared_add(uint32_t addr, uint32_t inc) {
    uint32_t old;
    asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(inc) : "memory");
    return old;
}

/* ---- a cluster's blocks share one histogram ---- */

/** @brief Where a counter of a cluster's histogram lives: which block, and where in it. */
typedef struct wide_owner {
    uint32_t rank;  /**< the block of the cluster that holds it */
    uint32_t local; /**< its index in that block's counters */
} wide_owner;

/**
 * @brief The owner of counter @p f of a cluster's histogram, whose blocks hold @p per_block
 *        counters each, in order: block 0 the first @p per_block, block 1 the next, ...
 * @param f the counter, 0 .. cluster size * per_block - 1
 * @param per_block counters each block holds
 * @return its block and its index there
 */
__device__ __forceinline__ wide_owner wide_owner_of(uint32_t f, uint32_t per_block) {
    wide_owner o;
    // SOLUTION wide_owner_of [gpu_cluster2_16 gpu_cluster4_16 gpu_cluster8_16]: the
    //   owner mapping. Block `rank` holds counters rank * per_block .. rank * per_block +
    //   per_block - 1: rank = f / per_block, local = f % per_block.
    // stub: o.rank = 0, o.local = 0, (void)f, (void)per_block;
    o.rank = f / per_block;
    o.local = f % per_block;
    // END SOLUTION
    return o;
}

#endif /* DAY08_WIDE_CUH */
