/**
 * @file wide_count.cuh
 * @brief Day 08's final counter (`gpu_wide`, and day 09's exchange): the block's packed 16-bit
 *        counters (packed.cuh), and one register counter a thread that sums equal samples before
 *        they reach shared memory.
 *
 * A thread keeps one counter in a register (the last bin of which it saw 8 equal samples in one
 * word) and adds to it whatever falls there. A word all of that bin costs no atomic; in a word
 * that mixes it with others (the hot value of `contention:90`), one channel's 8 atomics still go
 * back to back without a branch: those of the register's bin go to a word of the thread's own,
 * which counts them (add_full()).
 */
#ifndef DAY08_WIDE_COUNT_CUH
#define DAY08_WIDE_COUNT_CUH

#include <stdint.h>

#include "packed.cuh"
#include "ptx.cuh"
#include "wide_map.cuh"
#include "wide_walk.cuh"

/** @brief A spare shared word a lane: where add_full() sends the atomics of the samples the
 *  register counter takes. Zeroed with the counters; what it holds is never read as a count
 *  (it can only send a word to add_full()'s exact wrap test, as often as it passes 65,535). */
__shared__ uint32_t wide_spare[WIDE_WARP];

/** @brief A word of its own a thread (OWN): where add_full() sends the atomics of the samples the
 *  register counter takes, so that the word counts them (in the half of the register's bin)
 *  and the thread keeps no count of its own; flush() reads it. */
__shared__ uint32_t wide_own[WIDE_THREADS];

/** @brief The final kernel's counter: the block's packed counters, and one register counter a
 *  thread for the bin it saw 8 times in a word last. FULL: one channel, one bin a value, the whole
 *  range (the bin is the sample: no binning to compute). OWN (with FULL): the register counter's
 *  other samples counted in the thread's own shared word (wide_own) instead of in `n`. */
template <bool FULL, bool OWN = false> struct wide_count {
    wide_map m;        /**< the binning */
    uint32_t channels; /**< channels per row */
    uint32_t first;    /**< the pass's first counter */
    uint32_t size;     /**< the pass's counters */
    uint32_t *words;   /**< the block's packed counters */
    uint32_t *out;     /**< the output at the pass's first counter */
    int cached;        /**< the bin (pass counter) of the register counter, or -1 */
    uint32_t n;        /**< the register counter */
    bool runs;         /**< a lane of the warp has seen 8 equal samples in a word */

    /** @brief Add @p d to pass counter @p f. @param f the counter @param d what to add */
    __device__ void add(uint32_t f, uint32_t d) {
        packed_add(words, f, d, out, size);
    }
    /** @brief The pass counter of sample @p v of channel @p c, or -1.
     *  @param c the channel @param v the sample @return the counter, or -1 */
    __device__ int counter_of(uint32_t c, uint32_t v) const {
        if (FULL)
            return (int)v;
        const int b = wide_bin(v, m);
        const uint32_t f = flat_counter(c, b, m) - first;
        return b >= 0 && f < size ? (int)f : -1;
    }
    /** @brief one sample @param c its channel @param v its value */
    __device__ void one(uint32_t c, uint32_t v) {
        const int f = counter_of(c, v);
        if (f < 0)
            return; /* not counted (and the register counter's bin may be -1: none yet) */
        if (f == cached)
            ++n;
        else
            add((uint32_t)f, 1u);
    }
    /** @brief eight samples @param c the first's channel @param w the word */
    __device__ void word(uint32_t c, uint4 w) {
        uint32_t v[8];
        int f[8];
        wide_unpack(w, v);
#pragma unroll
        for (int k = 0; k < 8; ++k, c = next_channel(c, channels))
            f[k] = counter_of(c, v[k]);
        /* FULL: each sample's word in shared memory, before the branches (both paths use it) */
        uint32_t to[8];
        if (FULL) {
            const uint32_t base = (uint32_t)__cvta_generic_to_shared(words);
            const uint32_t x[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                to[2 * q] = base + (x[q] & 0xFFFEu) * 2u; /* word v / 2, 4 bytes a word */
                to[2 * q + 1] = base + ((x[q] & 0xFFFE0000u) >> 15);
            }
        }
        //! [wide_word]
        /* the plain path until a lane of the warp sees 8 equal samples in a word: one add a
           sample, nothing to compare (uniform data never leaves it) */
        const bool eight =
            ((w.x ^ w.y) | (w.y ^ w.z) | (w.z ^ w.w) | ((w.x ^ (w.x >> 16)) & 0xFFFFu)) == 0;
        const unsigned lanes = __activemask(), eights = __ballot_sync(lanes, eight);
        runs = runs || eights != 0;
        if (!runs) {
            if (FULL)
                add_full<false>(w, to, 0); /* every sample */
            else
                add_each(f, -2); /* every counted sample (no counter is -2) */
            return;
        }
        //! [wide_word]
        // SOLUTION wide_runs [gpu_wide gpu_exchange16]: your design: count this word, from a warp
        //   that has seen runs of equal samples, so that runs cost (almost) no atomic. What you
        //   have: the word's 8 samples w (v[k]), their pass counters f[k] (-1: not counted; with
        //   FULL, one channel of the whole range, f[k] is the sample), `eight` (the 8 samples are
        //   equal), `eights` and `lanes` (which lanes of the warp have such a word), and the
        //   register counter: `n` samples of counter `cached` (-1: none yet) that no shared
        //   counter holds yet. add(f, d) adds d (1 .. 65,535) to counter f exactly; flush() moves
        //   n into the counters and zeroes it (call it before `cached` changes); add_each(f, skip)
        //   adds every counted f[k] but those equal to skip, 8 atomics back to back; with FULL,
        //   add_full<true>(w, to, hot) does the same but sends the samples equal to hot to a spare
        //   word and returns how many it left out, for you to count (0 where OWN counts them).
        //   The invariants: every counted sample ends in exactly one place (a shared counter, the
        //   register counter, or the spill of a wrap); an add stays below 65,536, so flush before
        //   n passes 65,535. The target: 85% of the read floor on uniform data, 80% on constant,
        //   contention:90 and runs:1000 (make test DAY=08 prints each).
        // stub: (void)f;
        if (FULL) {
            if (cached < 0 || (eight && f[0] != cached)) { /* none yet, or a new value's word */
                flush();
                cached = f[0];
            }
            /* every lane's word its register's: no atomic at all; else one path for the warp */
            if (eights == lanes)
                n += 8;
            else
                n += add_full<true>(w, to, (uint32_t)cached);
        } else {
            bool same = f[0] >= 0;
#pragma unroll
            for (int k = 1; k < 8; ++k)
                same = same && f[k] == f[0];
            if (same) {
                if (f[0] != cached) {
                    flush();
                    cached = f[0];
                }
                n += 8;
            } else {
                uint32_t run = 1;
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    if (f[k] < 0)
                        continue;
                    if (f[k] == cached) {
                        ++n;
                        continue;
                    }
                    if (k < 7 && f[k + 1] == f[k]) {
                        ++run; /* the run goes on into the next sample */
                        continue;
                    }
                    add((uint32_t)f[k], run);
                    run = 1;
                }
            }
        }
        if (n > 0xFF00u)
            flush();
        // END SOLUTION
    }
    /** @brief packed_add(f[k], 1) for each counted f[k] other than @p skip: the 8 atomics
     *  predicated and back to back, their wraps tested once after (packed_add()'s test).
     *  @param f a word's 8 counters (-1: not counted) @param skip a counter to leave out */
    __device__ void add_each(const int f[8], int skip) {
        uint32_t old[8];
        bool wrapped = false;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const bool take = f[k] >= 0 && f[k] != skip;
            const uint32_t shift = 16u * (f[k] & 1);
            old[k] = take ? atomicAdd(&words[f[k] / 2], 1u << shift) : 0u;
            wrapped |= take && ((old[k] >> shift) & 0xFFFFu) == 0xFFFFu;
        }
        if (wrapped) /* one word in 65,536 on a busy counter */
#pragma unroll
            for (int k = 0; k < 8; ++k)
                if (f[k] >= 0 && f[k] != skip &&
                    ((old[k] >> (16u * (f[k] & 1))) & 0xFFFFu) == 0xFFFFu)
                    packed_wrapped(words, (uint32_t)f[k], old[k], out, size);
    }
    /** @brief One channel, the whole range (FULL): the 8 samples of @p w added to their packed
     *  counters, except (HOT) those equal to @p hot, which the register counter takes: their
     *  atomics go to a spare word instead (OWN: the thread's own, which counts them; else the
     *  lane's, wide_spare, and the count is returned), so that the warp's 8 atomics run back to
     *  back with no branch. One test a word finds the wraps: a half of an old word was 65,535
     *  exactly when `old & ~(old + 0x10001)` has bit 15 or 31 set.
     *  @param w the word @param to each sample's word in shared memory @param hot the register
     *  counter's bin (HOT) @return the samples left out, equal to @p hot (0 with OWN) */
    template <bool HOT> __device__ uint32_t add_full(uint4 w, const uint32_t to[8], uint32_t hot) {
        const uint32_t x[4] = {w.x, w.y, w.z, w.w}, hot2 = hot * 0x10001u;
        const uint32_t spare = (uint32_t)__cvta_generic_to_shared(
            OWN ? &wide_own[threadIdx.x] : &wide_spare[threadIdx.x % WIDE_WARP]);
        uint32_t at[8], old[8], near = 0, left = 0;
#pragma unroll
        for (int q = 0; q < 4; ++q) { /* samples 2q (the low half) and 2q + 1 */
            at[2 * q] = to[2 * q];
            at[2 * q + 1] = to[2 * q + 1];
            if (HOT && ((x[q] ^ hot2) & 0xFFFFu) == 0)
                at[2 * q] = spare, left += !OWN;
            if (HOT && ((x[q] ^ hot2) >> 16) == 0)
                at[2 * q + 1] = spare, left += !OWN;
            old[2 * q] = hist_ptx_shared_add(at[2 * q], (x[q] & 1u) ? 0x10000u : 1u);
            old[2 * q + 1] = hist_ptx_shared_add(at[2 * q + 1], (x[q] & 0x10000u) ? 0x10000u : 1u);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k)
            near |= old[k] & ~(old[k] + 0x10001u);
        if (near & 0x80008000u) /* a half at 65,535 (maybe not the one added to): each exactly */
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const uint32_t v = (x[k / 2] >> (16 * (k & 1))) & 0xFFFFu;
                if (((old[k] >> (16u * (v & 1u))) & 0xFFFFu) != 0xFFFFu)
                    continue;
                if (at[k] != spare)
                    packed_wrapped(words, v, old[k], out, size); /* out of line: the loop's code
                                                                    stays small */
                else if (OWN)
                    atomicAdd(&out[hot], 65536u); /* the own word's count of hot wrapped */
            }
        return left;
    }
    /** @brief The register counter into the counters: `n` and (OWN) what the thread's own word
     *  counted, the half of the register's bin (the other half may hold a carry); then both 0. */
    __device__ void flush() {
        uint32_t d = n;
        if (OWN && cached >= 0) {
            uint32_t &mine = wide_own[threadIdx.x];
            d += (mine >> (16u * ((uint32_t)cached & 1u))) & 0xFFFFu;
            mine = 0;
        }
        if (d > 0xFFFFu) /* an add of packed_add() stays below 65,536 */
            atomicAdd(&out[cached], d);
        else if (d > 0)
            add((uint32_t)cached, d);
        n = 0;
    }
};

#endif /* DAY08_WIDE_COUNT_CUH */
