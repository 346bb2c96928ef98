/**
 * @file probe.cu
 * @brief `make -C day06_roofline probe`: the two ceilings day 06 works between, measured apart.
 *
 *  1. Shared atomics alone: as many conflict-free `atomicAdd(p, 1)` as the main preset has
 *     samples (5.4e8), in day 06's `[bin][slot]` layout, one block of 1024 threads per SM, with
 *     bins from a register hash (uniform) or all equal (constant); no global loads at all.
 *  2. Reading alone: streaming kernels over 512 MiB with different load widths and depths, to
 *     check that the harness's floor kernel is the fastest read we know.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu.h"
#include "options.h"

/** @brief Threads per block of the probes (one block per SM). */
#define PROBE_THREADS 1024
/** @brief Slots per bin of the atomics probe (as day 06). */
#define PROBE_SLOTS 128
/** @brief Bins of the atomics probe. */
#define PROBE_BINS 256

/**
 * @brief Shared atomics alone, in day 06's layout; lanes in groups of @p share draw equal bins.
 * @param per_thread atomics per thread (a multiple of 4)
 * @param share lanes per group that draw equal bins (1, 2, 4, 8 or 32)
 * @param d_sink one word per block, so the counts are not optimised away
 * @par Launch
 * `__launch_bounds__(PROBE_THREADS, 1)`: one block of PROBE_THREADS (1024) per SM, 128 KiB of
 * dynamic shared memory.
 */
__global__ void __launch_bounds__(PROBE_THREADS, 1)
    atomics_only_kernel(uint32_t per_thread, int share, uint32_t *d_sink) {
    extern __shared__ uint32_t s_hist[];
    for (uint32_t k = threadIdx.x; k < PROBE_BINS * PROBE_SLOTS; k += blockDim.x)
        s_hist[k] = 0;
    __syncthreads();
    uint32_t *s_lane = s_hist + threadIdx.x % 32;
    /* lanes in groups of `share` draw the same bins (share 32: one bin for the whole warp) */
    uint32_t x = blockIdx.x * blockDim.x + (threadIdx.x & ~(uint32_t)(share - 1)) + 1;
    for (uint32_t i = 0; i < per_thread; i += 4) {
        x = x * 1664525u + 1013904223u; /* 4 bins per step from one LCG word */
        const uint32_t v = share == 32 ? 0x2A2A2A2Au : x;
        atomicAdd(&s_lane[(v & 0xFF) * PROBE_SLOTS + 0], 1u);
        atomicAdd(&s_lane[((v >> 8) & 0xFF) * PROBE_SLOTS + 32], 1u);
        atomicAdd(&s_lane[((v >> 16) & 0xFF) * PROBE_SLOTS + 64], 1u);
        atomicAdd(&s_lane[(v >> 24) * PROBE_SLOTS + 96], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        d_sink[blockIdx.x] = s_hist[42 * PROBE_SLOTS + 7];
}

/**
 * @brief The floor's read loop (hist_stream_xor()) with other load widths and depths.
 * @param data the elements
 * @param n how many
 * @param d_sink written only if the XOR takes an impossible value
 * @par Launch
 * the probe's table: 256 threads at full occupancy (or 4 waves of it), or 1024 threads with one
 * block per SM.
 */
template <typename T, int UNROLL>
__global__ void read_kernel(const T *__restrict__ data, size_t n, uint32_t *d_sink) {
    const uint32_t x = hist_stream_xor<T, UNROLL>(data, n);
    if (x == 0x12345678u) /* never true on the probe's data; keeps the loads */
        d_sink[0] = x;
}

/** @brief The atomics probe's launch. */
typedef struct atomics_probe {
    const hist_device *dev; /**< the GPU */
    int blocks;             /**< one per SM */
    uint32_t per_thread;    /**< atomics per thread */
    int share;              /**< lanes that draw equal bins */
    size_t smem;            /**< the histogram's bytes */
    uint32_t *d_sink;       /**< where the kernel leaves a word */
} atomics_probe;

static hist_status launch_atomics(void *ctx) {
    const atomics_probe *a = (const atomics_probe *)ctx;
    return hist_launch(a->dev, atomics_only_kernel, dim3(a->blocks), PROBE_THREADS, a->smem, 0,
                       "atomics_only_kernel", a->per_thread, a->share, a->d_sink);
}

/** @brief A read probe's launch. */
typedef struct read_probe {
    const hist_device *dev; /**< the GPU */
    const uint8_t *d_data;  /**< the 512 MiB */
    size_t bytes;           /**< their size */
    int blocks;             /**< grid */
    int threads;            /**< block */
    uint32_t *d_sink;       /**< never written (the kernel keeps its loads) */
    int reps;               /**< timed runs (the median is printed) */
} read_probe;

template <typename T, int UNROLL> static hist_status launch_read(void *ctx) {
    const read_probe *r = (const read_probe *)ctx;
    return hist_launch(r->dev, read_kernel<T, UNROLL>, dim3(r->blocks), r->threads, 0, 0,
                       "read_kernel", (const T *)r->d_data, r->bytes / sizeof(T), r->d_sink);
}

/* Time one read configuration with the harness's timer and print it. */
template <typename T, int UNROLL>
static hist_status time_read(const hist_device *dev, read_probe r, const char *label) {
    hist_stats st;
    hist_status s = hist_gpu_time_work(dev, launch_read<T, UNROLL>, &r, 1, r.reps, &st);
    if (s == HIST_OK)
        printf("  read %-36s %.1f us (%.0f GB/s)\n", label, st.median_us,
               r.bytes / (st.median_us * 1e3));
    return s;
}

static hist_status probe(const hist_device *dev, int reps) {
    const size_t bytes = (size_t)512 << 20; /* the main preset's input */
    uint8_t *d_data = NULL;
    uint32_t *d_sink = NULL;
    HIST_CUDA_TRY(cudaMalloc(&d_data, bytes));
    HIST_CUDA_TRY(cudaMalloc(&d_sink, 4096 * sizeof(uint32_t)));
    HIST_CUDA_TRY(cudaMemset(d_data, 0x5A, bytes));
    printf("probe on %s (%d SMs): 512 MiB, medians of %d runs, L2 flushed before each\n", dev->name,
           dev->sm_count, reps);

    const size_t smem = PROBE_BINS * PROBE_SLOTS * sizeof(uint32_t); /* hist_launch() allows it */
    atomics_probe a = {dev, dev->sm_count, 0, 1, smem, d_sink};
    a.per_thread = (uint32_t)(bytes / ((size_t)dev->sm_count * PROBE_THREADS)) & ~3u;
    static const int shares[] = {1, 2, 4, 8, 32};
    for (int k = 0; k < 5; ++k) {
        a.share = shares[k];
        hist_stats st;
        hist_status s = hist_gpu_time_work(dev, launch_atomics, &a, 1, reps, &st);
        if (s != HIST_OK)
            return s;
        printf("  shared atomics only, bins shared by %2d lanes%s: %.1f us for %.3g atomics\n",
               a.share,
               a.share == 1    ? " (uniform)"
               : a.share == 32 ? " (constant)"
                               : "",
               st.median_us, (double)a.per_thread * dev->sm_count * PROBE_THREADS);
    }

    const int full = dev->sm_count * (dev->max_threads_per_sm / 256);
    const read_probe r256 = {dev, d_data, bytes, full, 256, d_sink, reps};
    const read_probe r1024 = {dev, d_data, bytes, dev->sm_count, 1024, d_sink, reps};
    const read_probe waves = {dev, d_data, bytes, 4 * full, 256, d_sink, reps};
    hist_status s = HIST_OK;
    if (s == HIST_OK)
        s = time_read<uint4, 4>(dev, r256, "16 B x4, 256 thr, full occupancy:");
    if (s == HIST_OK)
        s = time_read<uint4, 8>(dev, r256, "16 B x8, 256 thr, full occupancy:");
    if (s == HIST_OK)
        s = time_read<uint4, 2>(dev, r256, "16 B x2, 256 thr, full occupancy:");
    if (s == HIST_OK)
        s = time_read<uint4, 4>(dev, r1024, "16 B x4, 1024 thr, 1 block/SM:");
    if (s == HIST_OK)
        s = time_read<uint4, 8>(dev, r1024, "16 B x8, 1024 thr, 1 block/SM:");
    if (s == HIST_OK)
        s = time_read<uint32_t, 8>(dev, r1024, "4 B x8, 1024 thr, 1 block/SM:");
    if (s == HIST_OK)
        s = time_read<uint32_t, 16>(dev, r1024, "4 B x16, 1024 thr, 1 block/SM:");
    if (s == HIST_OK)
        s = time_read<uint4, 4>(dev, waves, "16 B x4, 256 thr, 4 waves:");
    cudaFree(d_data);
    cudaFree(d_sink);
    return s;
}

/**
 * @brief Run both probes, or say why not.
 * @param argc argument count
 * @param argv `--reps N` (default 21), `--gpu-limits NAME`
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses": 0 done, 2 bad arguments, 3 a
 *         failure, 4 no GPU)
 */
int main(int argc, char **argv) {
    const hist_program prog = {
        .name = "probe",
        .about = "Day 06: the two ceilings, shared atomics alone and reading alone, on 512 MiB.",
        .refused = "preset rows channels lo hi width values dist seed input save-input impl "
                   "warmup threads output csv results require-gpu list",
        .reps = 21,
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    hist_device dev;
    const hist_status s = hist_device_open(&o.emulation, &dev);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    if (probe(&dev, o.reps) != HIST_OK) {
        fprintf(stderr, "probe: %s\n", hist_last_error());
        return 3;
    }
    return 0;
}
