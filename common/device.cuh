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
 *        (hist_launch_smem()). Every kernel launch of a lesson goes through hist_launch(),
 *        hist_launch_args() or hist_launch_cluster() (or hist_launch_cluster_args()), which call
 *        this.
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

/**
 * @brief The configuration of a launch in thread-block clusters of @p cluster_size blocks along
 *        the grid's x (cudaLaunchAttributeClusterDimension), for cudaLaunchKernelEx() and
 *        cudaOccupancyMaxActiveClusters().
 * @param grid the grid (its x a multiple of @p cluster_size)
 * @param threads threads per block
 * @param smem the dynamic shared memory to launch with (already padded: hist_launch_prepare())
 * @param stream the stream
 * @param cluster_size blocks a cluster (1 to 8 portably; compute capability 9.0 or newer)
 * @param attr receives the cluster attribute the configuration points to (keep it alive)
 * @return the configuration
 */
static inline cudaLaunchConfig_t hist_cluster_config(dim3 grid, int threads, size_t smem,
                                                     cudaStream_t stream, uint32_t cluster_size,
                                                     cudaLaunchAttribute *attr) {
    cudaLaunchConfig_t config = {};
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster_size;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    config.gridDim = grid;
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = attr;
    config.numAttrs = 1;
    return config;
}

/**
 * @brief How many clusters of @p cluster_size blocks of @p kernel can be resident on the GPU at
 *        once (cudaOccupancyMaxActiveClusters), each block of @p threads threads and @p smem
 *        bytes of dynamic shared memory padded as hist_launch_cluster() launches it (an emulated
 *        GPU, hist_launch_prepare()): what a plan that wants a single wave of clusters caps its
 *        grid to. The answer does not depend on the grid (one cluster is asked about).
 * @param dev the GPU
 * @param kernel the kernel
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param cluster_size blocks a cluster
 * @param clusters receives the clusters resident at once (0: not even one)
 * @return HIST_OK or the CUDA error
 */
static inline hist_status hist_cluster_occupancy(const hist_device *dev, const void *kernel,
                                                 int threads, size_t smem, uint32_t cluster_size,
                                                 int *clusters) {
    size_t padded = 0;
    *clusters = 0;
    hist_status s = hist_launch_prepare(dev, kernel, threads, smem, &padded);
    if (s != HIST_OK)
        return s;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config =
        hist_cluster_config(dim3(cluster_size), threads, padded, 0, cluster_size, &attr);
    HIST_CUDA_TRY(cudaOccupancyMaxActiveClusters(clusters, kernel, &config));
    return HIST_OK;
}

/**
 * @brief hist_launch() in thread-block clusters of @p cluster_size blocks along the grid's x
 *        (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension; compute capability 9.0 or
 *        newer): the same padding for an emulated GPU, the same launch check.
 * @param dev the GPU
 * @param kernel the kernel
 * @param grid the grid (its x a multiple of @p cluster_size)
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param stream the stream (0: the default one)
 * @param cluster_size blocks a cluster
 * @param name the kernel's name, for a launch error
 * @param args the kernel's arguments
 * @return HIST_OK or the CUDA error
 */
template <typename... Params, typename... Args>
static hist_status hist_launch_cluster(const hist_device *dev, void (*kernel)(Params...), dim3 grid,
                                       int threads, size_t smem, cudaStream_t stream,
                                       uint32_t cluster_size, const char *name, Args... args) {
    size_t padded = 0;
    hist_status s = hist_launch_prepare(dev, (const void *)kernel, threads, smem, &padded);
    if (s != HIST_OK)
        return s;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config =
        hist_cluster_config(grid, threads, padded, stream, cluster_size, &attr);
    HIST_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, args...));
    HIST_CUDA_TRY_LAUNCH(name);
    return HIST_OK;
}

/**
 * @brief hist_launch_cluster() for a kernel chosen at run time, its arguments as pointers
 *        (cudaLaunchKernelExC).
 * @param dev the GPU
 * @param kernel the kernel
 * @param grid the grid (its x a multiple of @p cluster_size)
 * @param threads threads per block
 * @param smem the dynamic shared memory a block needs
 * @param stream the stream
 * @param cluster_size blocks a cluster
 * @param args pointers to the kernel's arguments
 * @param name the kernel's name, for a launch error
 * @return HIST_OK or the CUDA error
 */
static inline hist_status hist_launch_cluster_args(const hist_device *dev, const void *kernel,
                                                   dim3 grid, int threads, size_t smem,
                                                   cudaStream_t stream, uint32_t cluster_size,
                                                   void **args, const char *name) {
    size_t padded = 0;
    hist_status s = hist_launch_prepare(dev, kernel, threads, smem, &padded);
    if (s != HIST_OK)
        return s;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config =
        hist_cluster_config(grid, threads, padded, stream, cluster_size, &attr);
    HIST_CUDA_TRY(cudaLaunchKernelExC(&config, kernel, args));
    HIST_CUDA_TRY_LAUNCH(name);
    return HIST_OK;
}

#endif /* HIST_DEVICE_CUH */
