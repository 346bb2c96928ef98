/**
 * @file gpu.cu
 * @brief Device detection, device buffers, event timing with L2 flushes, and the read-only floor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda/ptx>

#include "cuda_check.h"
#include "device.cuh"
#include "fresh.h"
#include "gpu.h"
#include "gpu_limits.h"
#include "ptx.cuh"

/** @brief Threads per block of the floor kernel: one block per SM, the fastest read day 06's probe
 *  found (docs/data/TAG_probe.txt keeps its figures). */
#define FLOOR_THREADS 1024
/** @brief 16-byte loads each floor thread keeps in flight. */
#define FLOOR_UNROLL 8

/** @brief A GPU session (see gpu.h): device buffers, events, the pinned host input. */
struct hist_gpu {
    hist_device dev;          /**< the device */
    hist_problem problem;     /**< the problem */
    const uint8_t *h_samples; /**< the host input */
    int h_registered;         /**< 1 if h_samples is pinned through cudaHostRegister */
    uint8_t *d_samples;       /**< the input on the device */
    uint32_t *d_hist;         /**< the output on the device */
    void *d_workspace;        /**< the largest workspace any implementation asked for */
    uint8_t *d_flush;         /**< written before every repetition to evict the input from L2 */
    size_t flush_bytes;       /**< twice the L2 */
    uint32_t *d_block_xor;    /**< one word per floor block */
    int floor_blocks;         /**< blocks of the floor kernel */
    cudaEvent_t start;        /**< event before the timed region */
    cudaEvent_t stop;         /**< event after it */
};

extern "C" hist_status hist_device_open(const hist_emulation *emulation, hist_device *dev) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
        cudaGetLastError(); /* clear the error so later calls start clean */
    /* no driver (a machine without an NVIDIA GPU) and no device read the same to a student */
    if ((err == cudaSuccess && count == 0) || err == cudaErrorNoDevice ||
        err == cudaErrorInsufficientDriver)
        return hist_fail(HIST_ERR_NO_DEVICE, "%s", HIST_NO_GPU);
    if (err != cudaSuccess)
        return hist_fail(HIST_ERR_NO_DEVICE, "the CUDA runtime cannot use the GPU: %s",
                         cudaGetErrorString(err));
    HIST_CUDA_TRY(cudaSetDevice(0));
    return hist_device_read(0, emulation, dev);
}

extern "C" hist_status hist_device_read(int ordinal, const hist_emulation *emulation,
                                        hist_device *dev) {
    cudaDeviceProp prop;
    HIST_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
    hist_device_from_props(&prop, ordinal, dev);
    if (!emulation || !emulation->limits)
        return HIST_OK;
    return hist_device_limit(dev, emulation->limits, emulation->keep_sms);
}

extern "C" int hist_gpu_count(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

/* ---- the floor: read every byte once, as fast as the memory system allows ---- */

/**
 * @brief Read-only streaming pass: each thread XORs 16-byte words in a grid-stride loop, with
 *        FLOOR_UNROLL independent loads in flight (hist_stream_xor()), and each block writes one
 *        word. Launch: `__launch_bounds__(FLOOR_THREADS)`, one block of FLOOR_THREADS per SM.
 * @param data        the input as 16-byte words
 * @param n16         how many whole 16-byte words
 * @param tail        the last `tail_bytes` (< 16) bytes
 * @param tail_bytes  how many
 * @param block_xor   one word per block
 */
__global__ void __launch_bounds__(FLOOR_THREADS)
    floor_kernel(const uint4 *__restrict__ data, size_t n16, const uint8_t *__restrict__ tail,
                 unsigned tail_bytes, uint32_t *__restrict__ block_xor) {
    uint32_t x = hist_stream_xor<uint4, FLOOR_UNROLL>(data, n16);
    if (blockIdx.x == 0 && threadIdx.x == 0) /* the last, partial 16 bytes */
        for (unsigned j = 0; j < tail_bytes; ++j)
            x ^= (uint32_t)tail[j] << (8 * (j % 4));

    __shared__ uint32_t s_warp_xor[FLOOR_THREADS / 32];
    for (int offset = 16; offset > 0; offset /= 2)
        x ^= __shfl_xor_sync(0xFFFFFFFFu, x, offset);
    if (threadIdx.x % 32 == 0)
        s_warp_xor[threadIdx.x / 32] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < FLOOR_THREADS / 32; ++w)
            x ^= s_warp_xor[w];
        block_xor[blockIdx.x] = x;
    }
}

static hist_status launch_floor(hist_gpu *g) {
    const uint64_t bytes = hist_input_bytes(&g->problem);
    const size_t n16 = (size_t)(bytes / 16);
    floor_kernel<<<g->floor_blocks, FLOOR_THREADS>>>((const uint4 *)g->d_samples, n16,
                                                     g->d_samples + n16 * 16,
                                                     (unsigned)(bytes % 16), g->d_block_xor);
    HIST_CUDA_TRY_LAUNCH("floor_kernel");
    return HIST_OK;
}

/* ---- session ---- */

static size_t at_least_16(uint64_t bytes) {
    return bytes < 16 ? 16 : (size_t)bytes;
}

/* Device buffers and events of a session, and the input copied over. */
static hist_status allocate(hist_gpu *g, size_t workspace_bytes) {
    const uint64_t sample_bytes = hist_input_bytes(&g->problem);
    const uint64_t hist_bytes = hist_counters(&g->problem) * sizeof(uint32_t);
    /* pinned input makes the end-to-end copy as fast as the link allows; pageable still works */
    if (sample_bytes > 0 && cudaHostRegister((void *)g->h_samples, (size_t)sample_bytes,
                                             cudaHostRegisterReadOnly) == cudaSuccess)
        g->h_registered = 1;
    else
        cudaGetLastError();
    HIST_CUDA_TRY(cudaMalloc((void **)&g->d_samples, at_least_16(sample_bytes)));
    HIST_CUDA_TRY(cudaMalloc((void **)&g->d_hist, at_least_16(hist_bytes)));
    if (workspace_bytes > 0)
        HIST_CUDA_TRY(cudaMalloc(&g->d_workspace, workspace_bytes));
    HIST_CUDA_TRY(cudaMalloc((void **)&g->d_flush, g->flush_bytes));
    HIST_CUDA_TRY(cudaMemset(g->d_flush, 0, g->flush_bytes)); /* read by the clean-L2 floor */
    HIST_CUDA_TRY(cudaMalloc((void **)&g->d_block_xor, g->floor_blocks * sizeof(uint32_t)));
    HIST_CUDA_TRY(cudaEventCreate(&g->start));
    HIST_CUDA_TRY(cudaEventCreate(&g->stop));
    if (sample_bytes > 0)
        HIST_CUDA_TRY(
            cudaMemcpy(g->d_samples, g->h_samples, (size_t)sample_bytes, cudaMemcpyHostToDevice));
    return HIST_OK;
}

extern "C" hist_status hist_gpu_create(hist_gpu **out, const hist_device *dev,
                                       const hist_problem *p, const uint8_t *h_samples,
                                       size_t workspace_bytes) {
    *out = NULL;
    const uint64_t sample_bytes = hist_input_bytes(p);
    const uint64_t hist_bytes = hist_counters(p) * sizeof(uint32_t);
    const int floor_blocks = dev->sm_count;
    const size_t flush_bytes = 2 * dev->real_l2_bytes; /* the real L2, emulated or not */
    const uint64_t needed = sample_bytes + hist_bytes + workspace_bytes + flush_bytes +
                            (uint64_t)floor_blocks * sizeof(uint32_t);
    size_t free_bytes = 0, total_bytes = 0;
    HIST_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed > free_bytes)
        return hist_fail(HIST_ERR_NOMEM,
                         "the problem needs %.2f GiB of device memory; %s has %.2f GiB free "
                         "(%.2f GiB in all)",
                         needed / 1073741824.0, dev->name, free_bytes / 1073741824.0,
                         total_bytes / 1073741824.0);

    hist_gpu *g = (hist_gpu *)calloc(1, sizeof *g);
    if (!g)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    g->dev = *dev;
    g->problem = *p;
    g->h_samples = h_samples;
    g->flush_bytes = flush_bytes;
    g->floor_blocks = floor_blocks;
    hist_status s = allocate(g, workspace_bytes);
    if (s != HIST_OK) {
        hist_gpu_destroy(g);
        return s;
    }
    *out = g;
    return HIST_OK;
}

extern "C" void hist_gpu_destroy(hist_gpu *g) {
    if (!g)
        return;
    cudaFree(g->d_samples);
    cudaFree(g->d_hist);
    cudaFree(g->d_workspace);
    cudaFree(g->d_flush);
    cudaFree(g->d_block_xor);
    if (g->start)
        cudaEventDestroy(g->start);
    if (g->stop)
        cudaEventDestroy(g->stop);
    if (g->h_registered)
        cudaHostUnregister((void *)g->h_samples);
    cudaGetLastError();
    free(g);
}

__global__ void spin_kernel(unsigned long long ns);

/** @brief What one timing loop needs besides the work. */
typedef struct timing {
    uint8_t *d_flush;     /**< written before every call to evict the input from L2 */
    size_t flush_bytes;   /**< twice the L2 */
    cudaEvent_t start;    /**< event before the work */
    cudaEvent_t stop;     /**< event after it */
    uint32_t *d_poison;   /**< filled with 0xFF before every call (NULL: none) */
    size_t poison_bytes;  /**< its size */
    const char *progress; /**< "name pass" shown on stderr per call, or NULL */
    hist_gpu *read_flush; /**< non-NULL: evict by *reading* d_flush (a clean L2), not writing */
    hist_call_fn before;  /**< untimed, before each call's poison and flush (NULL: none) */
    hist_call_fn after;   /**< untimed, after each call's stop event (NULL: none) */
    void *hooks;          /**< passed to before and after */
} timing;

/* The harness's timing loop: (before), poison, flush, event, work, event, (after); median and min
   of the timed calls (reps 0: one untimed call). */
static hist_status time_loop(const timing *t, hist_gpu_work_fn launch, void *ctx, int warmup,
                             int reps, hist_stats *out) {
    const int timed = reps > 0 ? reps : 1;
    double *times = (double *)calloc((size_t)timed, sizeof *times);
    if (!times)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    hist_status s = HIST_OK;
    for (int i = 0; i < warmup + timed && s == HIST_OK; ++i) {
        if (t->progress)
            fprintf(stderr, "\r  %s rep %d/%d ", t->progress, i + 1, warmup + timed);
        if (t->before && (s = t->before(t->hooks)) != HIST_OK)
            break;
        /* poison: an implementation that forgets to zero its output fails verification */
        cudaError_t err =
            t->d_poison ? cudaMemsetAsync(t->d_poison, 0xFF, t->poison_bytes) : cudaSuccess;
        if (err == cudaSuccess && !t->read_flush)
            err = cudaMemsetAsync(t->d_flush, i & 0xFF, t->flush_bytes);
        if (err == cudaSuccess && t->read_flush) { /* read 2x the L2: no dirty line left */
            floor_kernel<<<t->read_flush->floor_blocks, FLOOR_THREADS>>>(
                (const uint4 *)t->d_flush, t->flush_bytes / 16, t->d_flush, 0,
                t->read_flush->d_block_xor);
            err = cudaGetLastError();
            if (err == cudaSuccess) /* every write-back done before the clock starts */
                err = cudaDeviceSynchronize();
            if (err == cudaSuccess) { /* keep the GPU busy while the timed work is queued, so
                                         that the launch latency stays outside the events */
                spin_kernel<<<1, 1>>>(20000ull);
                err = cudaGetLastError();
            }
        }
        if (err != cudaSuccess) {
            s = hist_fail(HIST_ERR_CUDA, "flushing the L2: %s", cudaGetErrorString(err));
            break;
        }
        if ((err = cudaEventRecord(t->start)) != cudaSuccess) {
            s = hist_fail(HIST_ERR_CUDA, "recording the start event: %s", cudaGetErrorString(err));
            break;
        }
        if ((s = launch(ctx)) != HIST_OK)
            break;
        float ms = 0.0f;
        err = cudaEventRecord(t->stop);
        if (err == cudaSuccess)
            err = cudaEventSynchronize(t->stop);
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, t->start, t->stop);
        if (err != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "timing: %s", cudaGetErrorString(err));
        else if (i >= warmup)
            times[i - warmup] = ms * 1000.0;
        if (s == HIST_OK && t->after)
            s = t->after(t->hooks);
    }
    if (t->progress)
        fprintf(stderr, "\r%70s\r", "");
    if (s == HIST_OK && out)
        *out = hist_stats_of(times, reps);
    free(times);
    return s;
}

static hist_status launch_floor_work(void *ctx) {
    return launch_floor((hist_gpu *)ctx);
}

extern "C" hist_status hist_gpu_time_floor(hist_gpu *g, int warmup, int reps, hist_stats *out) {
    const timing t = {g->d_flush, g->flush_bytes, g->start, g->stop, NULL, 0, NULL, NULL};
    return time_loop(&t, launch_floor_work, g, warmup, reps, out);
}

extern "C" hist_status hist_gpu_time_floor_clean(hist_gpu *g, int warmup, int reps,
                                                 hist_stats *out) {
    const timing t = {g->d_flush, g->flush_bytes, g->start, g->stop, NULL, 0, NULL, g};
    return time_loop(&t, launch_floor_work, g, warmup, reps, out);
}

/* ---- the second roof: conflict-free shared-memory atomics ---- */

/** @brief Threads per block of the atomic ceiling: the final kernel's shape, one block per SM. */
#define CEILING_THREADS 1024

/**
 * @brief The shared-atomic ceiling: every thread adds 1 to a `[256 values][32 lanes]` shared
 *        histogram @p per_thread times (one more for the first @p extra threads of the grid),
 *        lane L always in column L, so a warp's 32 atomics hit 32 banks: no conflict, whatever the
 *        value. The value steps through all 256 bins as a histogram's would. Each block then
 *        writes how many adds its histogram holds, so a test can check that every one counted.
 *        Launch: CEILING_THREADS threads, one block per SM, 32 KiB of dynamic shared memory.
 * @param per_thread adds per thread
 * @param extra threads (in grid order) that add one more
 * @param block_sum one word per block: the adds it counted
 */
__global__ void __launch_bounds__(CEILING_THREADS)
    atomic_ceiling_kernel(uint32_t per_thread, uint32_t extra, uint32_t *block_sum) {
    extern __shared__ uint32_t s_counts[]; /* [256 values][32 lanes] */
    for (uint32_t k = threadIdx.x; k < 256 * 32; k += blockDim.x)
        s_counts[k] = 0;
    __syncthreads();
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t n = per_thread + (t < extra ? 1 : 0);
    uint32_t *column = s_counts + lane;
    uint32_t v = threadIdx.x / 32; /* warps start on different values */
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4, v += 4) { /* four independent adds in flight, as count_word has */
        atomicAdd(&column[(v & 255) * 32], 1u);
        atomicAdd(&column[((v + 1) & 255) * 32], 1u);
        atomicAdd(&column[((v + 2) & 255) * 32], 1u);
        atomicAdd(&column[((v + 3) & 255) * 32], 1u);
    }
    for (; i < n; ++i, ++v)
        atomicAdd(&column[(v & 255) * 32], 1u);
    __syncthreads();
    uint32_t sum = 0;
    for (uint32_t k = threadIdx.x; k < 256 * 32; k += blockDim.x)
        sum += s_counts[k];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
    if (lane == 0)
        atomicAdd(&block_sum[blockIdx.x], sum);
}

/** @brief One launch of the ceiling for a session's problem (the counts start at zero). */
static hist_status launch_ceiling(void *ctx) {
    hist_gpu *g = (hist_gpu *)ctx;
    const uint64_t adds = hist_samples(&g->problem),
                   threads = (uint64_t)g->floor_blocks * CEILING_THREADS;
    HIST_CUDA_TRY(cudaMemsetAsync(g->d_block_xor, 0, g->floor_blocks * sizeof(uint32_t)));
    return hist_launch(&g->dev, atomic_ceiling_kernel, dim3(g->floor_blocks), CEILING_THREADS,
                       256 * 32 * sizeof(uint32_t), 0, "atomic_ceiling_kernel",
                       (uint32_t)(adds / threads), (uint32_t)(adds % threads), g->d_block_xor);
}

extern "C" hist_status hist_gpu_time_atomic_ceiling(hist_gpu *g, int warmup, int reps,
                                                    hist_stats *out, uint64_t *counted) {
    const uint64_t threads = (uint64_t)g->floor_blocks * CEILING_THREADS;
    if (hist_samples(&g->problem) / threads > UINT32_MAX)
        return hist_fail(HIST_ERR_UNSUPPORTED, "the atomic ceiling takes at most 2^32 adds per "
                                               "thread");
    const timing t = {g->d_flush, g->flush_bytes, g->start, g->stop, NULL, 0, NULL, NULL};
    hist_status s = time_loop(&t, launch_ceiling, g, warmup, reps, out);
    if (s != HIST_OK || !counted)
        return s;
    uint32_t *sums = (uint32_t *)malloc(g->floor_blocks * sizeof(uint32_t));
    if (!sums)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    cudaError_t err = cudaMemcpy(sums, g->d_block_xor, g->floor_blocks * sizeof(uint32_t),
                                 cudaMemcpyDeviceToHost);
    *counted = 0;
    for (int b = 0; b < g->floor_blocks; ++b)
        *counted += sums[b];
    free(sums);
    return err == cudaSuccess ? HIST_OK
                              : hist_fail(HIST_ERR_CUDA, "reading the atomic ceiling's counts: %s",
                                          cudaGetErrorString(err));
}

extern "C" hist_status hist_gpu_time_work(const hist_device *dev, hist_gpu_work_fn launch,
                                          void *ctx, int warmup, int reps, hist_stats *out) {
    const size_t flush_bytes = 2 * dev->real_l2_bytes; /* the real L2, emulated or not */
    uint8_t *d_flush = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    hist_status s = HIST_OK;
    if (cudaMalloc((void **)&d_flush, flush_bytes) != cudaSuccess ||
        cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)
        s = hist_fail(HIST_ERR_CUDA, "setting up the timer: %s",
                      cudaGetErrorString(cudaGetLastError()));
    if (s == HIST_OK) {
        const timing t = {d_flush, flush_bytes, start, stop, NULL, 0, NULL, NULL};
        s = time_loop(&t, launch, ctx, warmup, reps, out);
    }
    cudaFree(d_flush);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    return s;
}

/** @brief One GPU's L2 flush (gpu.h). */
struct hist_l2_flush {
    int ordinal;    /**< the GPU */
    uint8_t *bytes; /**< twice its real L2, on it */
    size_t size;    /**< how many */
};

extern "C" hist_status hist_l2_flush_create(hist_l2_flush **out, const hist_device *dev) {
    *out = NULL;
    hist_l2_flush *f = (hist_l2_flush *)calloc(1, sizeof *f);
    if (!f)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    int caller = 0;
    f->ordinal = dev->ordinal;
    f->size = 2 * dev->real_l2_bytes; /* the real L2, emulated or not */
    cudaError_t e = cudaGetDevice(&caller);
    if (e == cudaSuccess)
        e = cudaSetDevice(f->ordinal);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&f->bytes, f->size);
    cudaSetDevice(caller);
    if (e != cudaSuccess) {
        free(f);
        return hist_fail(HIST_ERR_CUDA, "the L2 flush's buffer on GPU %d: %s", dev->ordinal,
                         cudaGetErrorString(e));
    }
    *out = f;
    return HIST_OK;
}

extern "C" hist_status hist_l2_flush_run(const hist_l2_flush *f) {
    int caller = 0;
    cudaError_t e = cudaGetDevice(&caller);
    if (e == cudaSuccess)
        e = cudaSetDevice(f->ordinal);
    if (e == cudaSuccess)
        e = cudaMemset(f->bytes, 1, f->size);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    cudaSetDevice(caller);
    return e == cudaSuccess ? HIST_OK
                            : hist_fail(HIST_ERR_CUDA, "flushing GPU %d's L2: %s", f->ordinal,
                                        cudaGetErrorString(e));
}

extern "C" void hist_l2_flush_destroy(hist_l2_flush *f) {
    if (!f)
        return;
    int caller = 0;
    cudaGetDevice(&caller);
    cudaSetDevice(f->ordinal);
    cudaFree(f->bytes);
    cudaSetDevice(caller);
    free(f);
}

extern "C" hist_status hist_gpu_floor_checksum(hist_gpu *g, uint32_t *checksum) {
    hist_status s = launch_floor(g);
    if (s != HIST_OK)
        return s;
    uint32_t *h = (uint32_t *)malloc(g->floor_blocks * sizeof(uint32_t));
    if (!h)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    cudaError_t err =
        cudaMemcpy(h, g->d_block_xor, g->floor_blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost);
    uint32_t x = 0;
    for (int b = 0; b < g->floor_blocks; ++b)
        x ^= h[b];
    free(h);
    HIST_CUDA_TRY(err);
    *checksum = x;
    return HIST_OK;
}

/** @brief One call of an implementation, alone or with the copies around it. */
typedef struct impl_call {
    hist_gpu *g;           /**< the session */
    const hist_impl *impl; /**< the implementation */
    const hist_args *args; /**< its arguments */
    uint32_t *h_hist;      /**< the host copy of the result (end to end) */
    int end_to_end;        /**< 1: copy the input in before and the result out after */
} impl_call;

static hist_status launch_impl(void *ctx) {
    const impl_call *c = (const impl_call *)ctx;
    hist_gpu *g = c->g;
    const uint64_t sample_bytes = hist_input_bytes(&g->problem);
    if (c->end_to_end && sample_bytes > 0)
        HIST_CUDA_TRY(cudaMemcpyAsync(g->d_samples, g->h_samples, (size_t)sample_bytes,
                                      cudaMemcpyHostToDevice));
    hist_status s = c->impl->run(c->args);
    if (s == HIST_OK && c->end_to_end)
        HIST_CUDA_TRY(cudaMemcpyAsync(c->h_hist, g->d_hist,
                                      (size_t)hist_counters(&g->problem) * sizeof(uint32_t),
                                      cudaMemcpyDeviceToHost));
    return s;
}

extern "C" hist_status hist_gpu_time_impl(hist_gpu *g, const hist_impl *impl, int warmup, int reps,
                                          hist_stats *kernel, hist_stats *e2e, uint32_t *h_hist,
                                          int progress) {
    const size_t hist_bytes = (size_t)hist_counters(&g->problem) * sizeof(uint32_t);
    /* caps all zero: a timed call runs the plans' own (the tests' caps go through
       hist_gpu_run_offset()) */
    const hist_args args = {&g->problem, g->d_samples, g->d_hist, g->d_workspace, &g->dev, 0};
    char label[2][96];
    snprintf(label[0], sizeof label[0], "%-24s kernel", impl->name);
    snprintf(label[1], sizeof label[1], "%-24s end-to-end", impl->name);
    timing t = {g->d_flush, g->flush_bytes, g->start, g->stop, g->d_hist, hist_bytes, NULL, NULL};

    /* pass 0: the call alone; pass 1: with the input copied in and the result copied out */
    impl_call call = {g, impl, &args, h_hist, 0};
    t.progress = progress ? label[0] : NULL;
    hist_status s = time_loop(&t, launch_impl, &call, warmup, reps, kernel);
    if (s == HIST_OK) {
        cudaError_t err = cudaMemcpy(h_hist, g->d_hist, hist_bytes, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "%s failed on the device: %s", impl->name,
                          cudaGetErrorString(err));
    }
    if (s == HIST_OK && e2e && reps > 0) {
        call.end_to_end = 1;
        t.progress = progress ? label[1] : NULL;
        s = time_loop(&t, launch_impl, &call, warmup, reps, e2e);
    }
    if (s == HIST_OK) {
        cudaError_t err = cudaDeviceSynchronize(); /* a fault inside a kernel surfaces here */
        if (err != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "%s failed on the device: %s", impl->name,
                          cudaGetErrorString(err));
    }
    return s;
}

/* ---- a graded timing: a fresh input for every call, every output checked (fresh.h) ---- */

/** @brief Threads per block of the kernel that makes a fresh input. */
#define FRESH_THREADS 256

/**
 * @brief One call's fresh input from the base: sample i is the base's sample (i + shift) % n
 *        (rows rotated) renamed by @p perm. Launch: any grid (a grid-stride loop).
 * @param base the base input
 * @param dst the call's input
 * @param n samples
 * @param shift samples the rows are rotated by, below @p n
 * @param perm `[2^bits]`: each value's new name
 */
template <typename T>
__global__ void fresh_kernel(const T *__restrict__ base, T *__restrict__ dst, uint64_t n,
                             uint64_t shift, const uint16_t *__restrict__ perm) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t from = i + shift < n ? i + shift : i + shift - n;
        dst[i] = (T)perm[base[from]];
    }
}

/** @brief A graded timing between its calls. */
typedef struct fresh_timing {
    hist_gpu *g;           /**< the session (its input is the base) */
    const hist_impl *impl; /**< the implementation */
    hist_fresh *f;         /**< the sequence of inputs */
    uint8_t *d_buffer;     /**< where each call's input is made */
    uint16_t *d_perm;      /**< the call's renaming of values */
    hist_args args;        /**< the call's arguments (samples: its input) */
    uint32_t *h_hist;      /**< the host copy of each output, checked */
} fresh_timing;

/* Before each call, untimed (ahead of its poison and L2 flush): draw it, make its input. */
static hist_status make_fresh_input(void *ctx) {
    fresh_timing *c = (fresh_timing *)ctx;
    hist_fresh *f = c->f;
    hist_fresh_next(f);
    HIST_CUDA_TRY(
        cudaMemcpy(c->d_perm, f->perm, f->values * sizeof(uint16_t), cudaMemcpyHostToDevice));
    uint8_t *dst = c->d_buffer + hist_fresh_offset(f);
    const uint64_t n = hist_samples(&f->problem), shift = f->rotate_rows * f->problem.channels;
    const unsigned blocks = (unsigned)c->g->floor_blocks * 8;
    if (n > 0 && hist_sample_bits(&f->problem) == 8)
        fresh_kernel<uint8_t><<<blocks, FRESH_THREADS>>>(c->g->d_samples, dst, n, shift, c->d_perm);
    else if (n > 0)
        fresh_kernel<uint16_t><<<blocks, FRESH_THREADS>>>((const uint16_t *)c->g->d_samples,
                                                          (uint16_t *)dst, n, shift, c->d_perm);
    HIST_CUDA_TRY_LAUNCH("fresh_kernel");
    c->args.samples = dst;
    return HIST_OK;
}

/* After each call's stop event, untimed: its output against its exact result. */
static hist_status check_fresh_output(void *ctx) {
    const fresh_timing *c = (const fresh_timing *)ctx;
    const size_t hist_bytes = (size_t)hist_counters(&c->f->problem) * sizeof(uint32_t);
    const cudaError_t err = cudaMemcpy(c->h_hist, c->g->d_hist, hist_bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
        return hist_fail(HIST_ERR_CUDA, "%s failed on the device: %s", c->impl->name,
                         cudaGetErrorString(err));
    return hist_fresh_check(c->f, c->impl->name, c->h_hist);
}

static hist_status launch_fresh(void *ctx) {
    const fresh_timing *c = (const fresh_timing *)ctx;
    return c->impl->run(&c->args);
}

extern "C" hist_status hist_gpu_time_impl_fresh(hist_gpu *g, const hist_impl *impl, hist_fresh *f,
                                                int warmup, int reps, hist_stats *kernel,
                                                uint32_t *h_hist) {
    if (memcmp(&f->problem, &g->problem, sizeof f->problem) != 0)
        return hist_fail(HIST_ERR_USAGE, "the fresh inputs are not of the session's problem");
    const size_t hist_bytes = (size_t)hist_counters(&g->problem) * sizeof(uint32_t);
    fresh_timing c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.impl = impl;
    c.f = f;
    c.args = {&g->problem, g->d_samples, g->d_hist, g->d_workspace, &g->dev, 0, {0, 0}};
    c.h_hist = h_hist;
    cudaError_t err = cudaMalloc((void **)&c.d_buffer, hist_fresh_buffer_bytes(f));
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&c.d_perm, f->values * sizeof(uint16_t));
    hist_status s = HIST_OK;
    if (err != cudaSuccess) {
        cudaGetLastError();
        s = hist_fail(HIST_ERR_CUDA, "the fresh inputs' buffer on the device: %s",
                      cudaGetErrorString(err));
    }
    if (s == HIST_OK) { /* poison, flush and events as every timed call; the hooks outside */
        timing t = {g->d_flush, g->flush_bytes, g->start, g->stop,
                    g->d_hist,  hist_bytes,     NULL,     NULL};
        t.before = make_fresh_input;
        t.after = check_fresh_output;
        t.hooks = &c;
        f->calls = 0;
        s = time_loop(&t, launch_fresh, &c, warmup, reps, kernel);
    }
    err = cudaDeviceSynchronize(); /* a fault inside a kernel surfaces here */
    if (s == HIST_OK && err != cudaSuccess)
        s = hist_fail(HIST_ERR_CUDA, "%s failed on the device: %s", impl->name,
                      cudaGetErrorString(err));
    cudaFree(c.d_buffer);
    cudaFree(c.d_perm);
    return s;
}

extern "C" hist_status hist_gpu_run_offset(const hist_device *dev, const hist_impl *impl,
                                           const hist_problem *p, const uint8_t *h_samples,
                                           size_t offset, const hist_caps *caps, uint32_t *h_hist) {
    const size_t bytes = (size_t)hist_input_bytes(p),
                 hist_bytes = hist_counters(p) * sizeof(uint32_t);
    const size_t ws = impl->workspace_bytes ? impl->workspace_bytes(p, dev) : 0;
    uint8_t *d_base = NULL;
    uint32_t *d_hist = NULL;
    void *d_ws = NULL;
    hist_status s = HIST_ERR_CUDA;
    cudaError_t err = cudaMalloc(&d_base, bytes + offset > 0 ? bytes + offset : 1);
    if (err == cudaSuccess)
        err = cudaMalloc(&d_hist, hist_bytes + 4);
    if (err == cudaSuccess && ws > 0)
        err = cudaMalloc(&d_ws, ws);
    if (err == cudaSuccess && bytes > 0)
        err = cudaMemcpy(d_base + offset, h_samples, bytes, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemset(d_hist, 0xFF, hist_bytes + 4); /* poisoned, as the timer does */
    if (err == cudaSuccess) {
        const hist_args args = {p, d_base + offset, d_hist, d_ws, dev, 0, hist_caps_or_none(caps)};
        s = impl->run(&args);
        if (s == HIST_OK) {
            err = cudaDeviceSynchronize();
            if (err == cudaSuccess)
                err = cudaMemcpy(h_hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost);
            s = err == cudaSuccess ? HIST_OK : HIST_ERR_CUDA;
        }
    }
    if (err != cudaSuccess)
        s = hist_fail(HIST_ERR_CUDA, "%s at input offset %zu: %s", impl->name, offset,
                      cudaGetErrorString(err));
    cudaFree(d_base);
    cudaFree(d_hist);
    cudaFree(d_ws);
    return s;
}

/**
 * @brief Spin one thread for @p ns nanoseconds of the global timer (tests of the event timer).
 * @param ns nanoseconds to spin
 */
__global__ void spin_kernel(unsigned long long ns) {
    const uint64_t t0 = cuda::ptx::get_sreg_globaltimer();
    while (cuda::ptx::get_sreg_globaltimer() - t0 < ns) {
    }
}

extern "C" hist_status hist_gpu_time_spin(const hist_device *dev, double sleep_us,
                                          double *elapsed) {
    (void)dev;
    cudaEvent_t start, stop;
    HIST_CUDA_TRY(cudaEventCreate(&start));
    HIST_CUDA_TRY(cudaEventCreate(&stop));
    cudaError_t timing = cudaEventRecord(start);
    spin_kernel<<<1, 1>>>((unsigned long long)(sleep_us * 1000.0));
    cudaError_t launch = cudaGetLastError();
    float ms = 0.0f;
    if (timing == cudaSuccess)
        timing = cudaEventRecord(stop);
    if (timing == cudaSuccess)
        timing = cudaEventSynchronize(stop);
    if (timing == cudaSuccess)
        timing = cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    HIST_CUDA_TRY(launch);
    HIST_CUDA_TRY(timing);
    *elapsed = ms * 1000.0;
    return HIST_OK;
}

/* ---- host-input implementations (day 07): pinned memory and the pinned-copy floor ---- */

extern "C" hist_status hist_host_pinned_alloc(void **out, size_t bytes) {
    *out = NULL;
    const cudaError_t err = cudaMallocHost(out, bytes > 0 ? bytes : 1);
    if (err == cudaSuccess)
        return HIST_OK;
    cudaGetLastError();
    *out = NULL;
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        return hist_fail(HIST_ERR_NO_DEVICE, "pinned host memory needs a CUDA GPU: %s",
                         cudaGetErrorString(err));
    return hist_fail(HIST_ERR_NOMEM, "cannot pin %.2f GiB of host memory: %s", bytes / 1073741824.0,
                     cudaGetErrorString(err));
}

extern "C" void hist_host_pinned_free(void *p) {
    if (p)
        cudaFreeHost(p);
    cudaGetLastError();
}

/** @brief The pieces the pinned-copy floor copies at a time (and its device buffer's size). */
#define COPY_FLOOR_PIECE (256u << 20)

/* One pass of the pinned-copy floor: every piece queued on @p stream, then waited for. */
static cudaError_t copy_pass(uint8_t *d_buf, size_t buf_bytes, const uint8_t *h, uint64_t bytes,
                             cudaStream_t stream) {
    for (uint64_t at = 0; at < bytes; at += buf_bytes) {
        const size_t n = (size_t)(bytes - at < buf_bytes ? bytes - at : buf_bytes);
        const cudaError_t err = cudaMemcpyAsync(d_buf, h + at, n, cudaMemcpyHostToDevice, stream);
        if (err != cudaSuccess)
            return err;
    }
    return cudaStreamSynchronize(stream);
}

/* One pinned-copy floor pass after another, each optionally after @p before (untimed) and
   followed by @p work (timed on its own), on the host clock; the device buffer and stream are
   made once. */
static hist_status time_copy_floor(const hist_device *dev, const uint8_t *h_pinned, uint64_t bytes,
                                   hist_gpu_work_fn before, hist_gpu_work_fn work, void *ctx,
                                   int warmup, int reps, hist_stats *floor, hist_stats *work_time) {
    HIST_CUDA_TRY(cudaSetDevice(dev->ordinal));
    const size_t buf_bytes = bytes < COPY_FLOOR_PIECE ? at_least_16(bytes) : COPY_FLOOR_PIECE;
    const int timed = reps > 0 ? reps : 1;
    double *times = (double *)calloc(2 * (size_t)timed, sizeof *times);
    uint8_t *d_buf = NULL;
    cudaStream_t stream = NULL;
    cudaError_t err = times ? cudaMalloc((void **)&d_buf, buf_bytes) : cudaErrorMemoryAllocation;
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    hist_status s = HIST_OK;
    for (int i = 0; i < warmup + timed && err == cudaSuccess && s == HIST_OK; ++i) {
        if (before && (s = before(ctx)) != HIST_OK)
            break;
        double t0 = hist_now_us();
        err = copy_pass(d_buf, buf_bytes, h_pinned, bytes, stream);
        const double copied = hist_now_us() - t0;
        double worked = 0.0;
        if (err == cudaSuccess && work) {
            t0 = hist_now_us();
            s = work(ctx);
            worked = hist_now_us() - t0;
        }
        if (i >= warmup) {
            times[i - warmup] = copied;
            times[timed + i - warmup] = worked;
        }
    }
    if (err == cudaSuccess && s == HIST_OK) {
        if (floor)
            *floor = hist_stats_of(times, timed);
        if (work_time)
            *work_time = hist_stats_of(times + timed, timed);
    }
    if (stream)
        cudaStreamDestroy(stream);
    cudaFree(d_buf);
    free(times);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return hist_fail(HIST_ERR_CUDA, "the pinned-copy floor: %s", cudaGetErrorString(err));
    }
    return s;
}

extern "C" hist_status hist_gpu_time_copy_floor(const hist_device *dev, const uint8_t *h_pinned,
                                                uint64_t bytes, int warmup, int reps,
                                                hist_stats *out) {
    return time_copy_floor(dev, h_pinned, bytes, NULL, NULL, NULL, warmup, reps, out, NULL);
}

extern "C" hist_status hist_gpu_time_alternately(const hist_device *dev, const uint8_t *h_pinned,
                                                 uint64_t bytes, hist_gpu_work_fn before,
                                                 hist_gpu_work_fn work, void *ctx, int warmup,
                                                 int reps, hist_stats *floor,
                                                 hist_stats *work_time) {
    return time_copy_floor(dev, h_pinned, bytes, before, work, ctx, warmup, reps, floor, work_time);
}
