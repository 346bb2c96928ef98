/**
 * @file packed.cuh
 * @brief Day 08's packed counter: 16-bit counters two to a 32-bit word of shared memory, kept
 *        exact by booking every wrap past 65,535 from what the atomics return (step 4 onwards).
 */
#ifndef DAY08_PACKED_CUH
#define DAY08_PACKED_CUH

#include <stdint.h>

/**
 * @brief What packed_add() does when its add wrapped a half (the rare path): 65,536 to the half's
 * spill; for the low half, the carry into the high half taken back, and what the carry and the
 * taking-back did to the high half booked on its spill.
 * @param words the packed counters @param k the counter that wrapped @param old the word its add
 * returned @param spill the global counters @param counters how many are real
 */
static __device__ __noinline__ void packed_wrapped(uint32_t *words, uint32_t k, uint32_t old,
                                                   uint32_t *spill, uint32_t counters) {
    // SOLUTION packed_wrapped [gpu_packed16 gpu_wide gpu_exchange16]: the wrap booked. Add 65536
    //   to spill[k]. If k is odd (the high half), stop: its carry left the word. Else the carry
    //   went into the high half: take it back, back = atomicAdd(&words[k / 2], 0xFFFF0000u),
    //   and, if k + 1 < counters, book on spill[k + 1] what it did: +65536 if the carry wrapped
    //   the high half up (old >> 16 was 0xFFFF), -65536 (0u - 65536u) if the taking-back wrapped
    //   it down (back >> 16 is 0).
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
 * @param words the packed counters (shared memory)
 * @param k the counter
 * @param d what to add, 1 .. 65,535
 * @param spill the global counters of the same layout (the output's, at the array's first counter)
 * @param counters how many counters of @p spill are real (the last word's high half may be padding)
 */
__device__ __forceinline__ void packed_add(uint32_t *words, uint32_t k, uint32_t d, uint32_t *spill,
                                           uint32_t counters) {
    // SOLUTION packed_add [gpu_packed16 gpu_wide gpu_exchange16]: the exact 16-bit counter.
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

#endif /* DAY08_PACKED_CUH */
