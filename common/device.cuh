/**
 * @file device.cuh
 * @brief Small device helpers every lesson's kernels share.
 */
#ifndef HIST_DEVICE_CUH
#define HIST_DEVICE_CUH

#include <string.h>

#include "cuda_check.h"
#include "gpu_limits.h"
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

/**
 * @brief The dynamic shared memory a lesson kernel is launched with, and the kernel allowed it:
 *        @p smem on a real GPU; under an emulated one (gpu_limits.h) padded, so that no more
 *        blocks share an SM of the real GPU than would share one of the emulated GPU
 *        (hist_launch_smem()). Every launch of a kernel whose plan depends on the GPU goes
 *        through hist_launch() or hist_launch_args(), which call this.
 * @param dev the GPU, as the harness reports it (possibly emulated)
 * @param kernel the kernel
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param padded receives the dynamic shared memory to launch with
 * @return HIST_OK or the CUDA error
 */
static inline hist_status hist_launch_prepare(const hist_device *dev, const void *kernel,
                                              int threads, size_t smem, size_t *padded) {
    *padded = hist_launch_smem(dev, threads, smem);
    HIST_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*padded));
    return HIST_OK;
}

/**
 * @brief Launch @p kernel as the GPU @p dev would run it (hist_launch_prepare()), on @p stream.
 * @param dev the GPU
 * @param kernel the kernel
 * @param grid the grid
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param stream the stream (0: the default one)
 * @param name the kernel's name, for a launch error
 * @param args the kernel's arguments
 * @return HIST_OK or the CUDA error
 */
template <typename... Params, typename... Args>
static hist_status hist_launch(const hist_device *dev, void (*kernel)(Params...), dim3 grid,
                               int threads, size_t smem, cudaStream_t stream, const char *name,
                               Args... args) {
    size_t padded = 0;
    hist_status s = hist_launch_prepare(dev, (const void *)kernel, threads, smem, &padded);
    if (s != HIST_OK)
        return s;
    kernel<<<grid, threads, padded, stream>>>(args...);
    HIST_CUDA_TRY_LAUNCH(name);
    return HIST_OK;
}

/**
 * @brief hist_launch() for a kernel chosen at run time, its arguments as pointers
 *        (cudaLaunchKernel), cooperative where asked (cudaLaunchCooperativeKernel: every block
 *        resident at once).
 * @param dev the GPU
 * @param kernel the kernel
 * @param grid the grid
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param stream the stream
 * @param cooperative 1: a cooperative launch
 * @param args pointers to the kernel's arguments
 * @param name the kernel's name, for a launch error
 * @return HIST_OK or the CUDA error
 */
static inline hist_status hist_launch_args(const hist_device *dev, const void *kernel, dim3 grid,
                                           int threads, size_t smem, cudaStream_t stream,
                                           int cooperative, void **args, const char *name) {
    size_t padded = 0;
    hist_status s = hist_launch_prepare(dev, kernel, threads, smem, &padded);
    if (s != HIST_OK)
        return s;
    if (cooperative)
        HIST_CUDA_TRY(
            cudaLaunchCooperativeKernel(kernel, grid, dim3(threads), args, padded, stream));
    else
        HIST_CUDA_TRY(cudaLaunchKernel(kernel, grid, dim3(threads), args, padded, stream));
    HIST_CUDA_TRY_LAUNCH(name);
    return HIST_OK;
}

#endif /* HIST_DEVICE_CUH */
