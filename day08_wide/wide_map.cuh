/**
 * @file wide_map.cuh
 * @brief Day 08's bin map: the bin of a 16-bit sample in the form the kernels use, and the output
 *        counter it adds to. Every kernel of days 08 and 09 bins with it.
 */
#ifndef DAY08_WIDE_MAP_CUH
#define DAY08_WIDE_MAP_CUH

#include <stdint.h>

#include "hist.h"

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

/** @brief The counter of the output (`[channels][bins]`, at most 2^31 counters: the registries
 *  refuse more) a sample of channel @p c in bin @p b adds to.
 *  @param c the channel @param b the bin @param m the binning @return the counter */
__device__ __forceinline__ uint32_t flat_counter(uint32_t c, int b, wide_map m) {
    return c * m.bins + (uint32_t)b;
}

/** @brief The next channel after @p c, of @p channels.
 *  @param c a channel @param channels channels per row @return the next one */
__device__ __forceinline__ uint32_t next_channel(uint32_t c, uint32_t channels) {
    return c + 1 == channels ? 0 : c + 1;
}

#endif /* DAY08_WIDE_MAP_CUH */
