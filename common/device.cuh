/**
 * @file device.cuh
 * @brief Small device helpers every lesson's kernels share.
 */
#ifndef HIST_DEVICE_CUH
#define HIST_DEVICE_CUH

#include <string.h>

#include "cuda_check.h"
#include "hist.h"

/**
 * @brief The bin of byte value @p v under @p m, or -1 if @p v is outside `[lo, hi]`
 *        (one subtract, one compare, one multiply, one shift: no division).
 * @param v the byte value
 * @param m the binning, as a bin map
 * @return the bin, or -1
 */
__device__ __forceinline__ int hist_bin_of(unsigned v, hist_bin_map m) {
    const unsigned offset = v - m.lo; /* wraps to a large value below lo */
    return offset <= m.span ? (int)((offset * m.magic) >> 16) : -1;
}

/**
 * @brief A 16-byte load folded to one word by XOR.
 * @param v a 16-byte load
 * @return the XOR of its four words
 */
__device__ __forceinline__ uint32_t hist_fold(uint4 v) {
    return v.x ^ v.y ^ v.z ^ v.w;
}
/**
 * @brief A 4-byte load as it is.
 * @param v a 4-byte load
 * @return @p v
 */
__device__ __forceinline__ uint32_t hist_fold(uint32_t v) {
    return v;
}

/**
 * @brief The read-only streaming loop of the floor (common/gpu.cu) and of day 06's probe: a
 *        grid-stride pass over @p n elements of type T, each thread with @p UNROLL independent
 *        loads in flight before any use; returns the XOR of what this thread read.
 * @tparam T       uint4 (16-byte loads) or uint32_t
 * @tparam UNROLL  loads in flight per thread
 * @param data  the elements
 * @param n     how many
 * @return the XOR of every element this thread read
 */
template <typename T, int UNROLL>
__device__ __forceinline__ uint32_t hist_stream_xor(const T *__restrict__ data, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t x = 0;
    for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
        T v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            v[u] = data[i + u * stride]; /* all loads issued before any use */
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            x ^= hist_fold(v[u]);
    }
    for (; i < n; i += stride)
        x ^= hist_fold(data[i]);
    return x;
}

/**
 * @brief What the harness knows of a GPU, from the CUDA runtime's properties: used by
 *        hist_device_open() and by day 06's CS149 submission, which has no harness around it.
 * @param prop the device's properties (cudaGetDeviceProperties)
 * @param ordinal the device's number
 * @param dev filled in
 */
static inline void hist_device_from_props(const cudaDeviceProp *prop, int ordinal,
                                          hist_device *dev) {
    memset(dev, 0, sizeof *dev);
    dev->ordinal = ordinal;
    memcpy(dev->name, prop->name, sizeof dev->name - 1); /* prop->name is NUL-terminated */
    dev->sm_count = prop->multiProcessorCount;
    dev->cc_major = prop->major;
    dev->cc_minor = prop->minor;
    dev->l2_bytes = (size_t)prop->l2CacheSize;
    dev->smem_per_block_optin = prop->sharedMemPerBlockOptin;
    dev->smem_per_sm = prop->sharedMemPerMultiprocessor;
    dev->max_threads_per_sm = prop->maxThreadsPerMultiProcessor;
    dev->global_bytes = prop->totalGlobalMem;
    dev->smem_reserved_per_block = prop->reservedSharedMemPerBlock;
    dev->real_sm_count = dev->sm_count;
    dev->real_smem_per_sm = dev->smem_per_sm;
    dev->real_max_threads_per_sm = dev->max_threads_per_sm;
    dev->real_l2_bytes = dev->l2_bytes;
}

/** @brief Threads per block of hist_sum_partials_kernel(). */
#define HIST_SUM_PARTIALS_THREADS 256

/**
 * @brief Day 03's second merge, used again by days 05 and 06: one thread per counter adds up
 *        @p copies partial histograms stored copy after copy (`d_partials[copy * counters + k]`)
 *        and stores the total in `d_hist[k]`. Neighbouring threads read neighbouring words, so
 *        every read is coalesced.
 *
 * Launch: HIST_SUM_PARTIALS_THREADS threads per block, `ceil(counters / HIST_SUM_PARTIALS_THREADS)`
 * blocks (hist_sum_partials() does). A template only so that each lesson's file that includes
 * this header compiles its own copy without warnings when it does not use it.
 * @tparam Unused  none; always the default
 * @param d_partials  `[copies][counters]` partial counts
 * @param copies      how many partial histograms
 * @param counters    counters per histogram (`channels * bins`)
 * @param d_hist      `[counters]` output, overwritten
 */
template <typename Unused = void>
__global__ void hist_sum_partials_kernel(const uint32_t *__restrict__ d_partials, uint32_t copies,
                                         uint64_t counters, uint32_t *__restrict__ d_hist) {
    // SOLUTION hist_sum_partials_kernel [gpu_private_reduce gpu_cs149 gpu_r6_v4_partials gpu_r6_v5_two_kernels]:
    //   day 03's second merge (days 05 and 06 use it again): thread k of the grid, if k is a
    //   counter, adds d_partials[copy * counters + k] over every copy and stores the sum in
    //   d_hist[k] (plain stores: no atomics needed). See day03_privatized/README.md.
    // stub: (void)d_partials, (void)copies, (void)counters, (void)d_hist;
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= counters)
        return;
    uint32_t sum = 0;
#pragma unroll 4
    for (uint32_t copy = 0; copy < copies; ++copy)
        sum += d_partials[copy * counters + k];
    d_hist[k] = sum;
    // END SOLUTION
}

/** @brief Queue hist_sum_partials_kernel() on the default stream (see it for the arguments). */
static inline hist_status hist_sum_partials(const uint32_t *d_partials, uint32_t copies,
                                            uint64_t counters, uint32_t *d_hist) {
    if (counters == 0)
        return HIST_OK;
    hist_sum_partials_kernel<<<(unsigned)HIST_CEIL_DIV(counters, HIST_SUM_PARTIALS_THREADS),
                               HIST_SUM_PARTIALS_THREADS>>>(d_partials, copies, counters, d_hist);
    HIST_CUDA_TRY_LAUNCH("hist_sum_partials_kernel");
    return HIST_OK;
}

#endif /* HIST_DEVICE_CUH */
