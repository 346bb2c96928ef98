/**
 * @file device.cuh
 * @brief Small device helpers every lesson's kernels share.
 */
#ifndef HIST_DEVICE_CUH
#define HIST_DEVICE_CUH

#include "hist.h"

/**
 * @brief The bin of byte value @p v under @p m, or -1 if @p v is outside `[lo, hi]`
 *        (one subtract, one compare, one multiply, one shift: no division).
 */
__device__ __forceinline__ int hist_bin_of(unsigned v, hist_bin_map m) {
    const unsigned offset = v - m.lo; /* wraps to a large value below lo */
    return offset <= m.span ? (int)((offset * m.magic) >> 16) : -1;
}

#endif /* HIST_DEVICE_CUH */
