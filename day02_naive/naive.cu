/**
 * @file naive.cu
 * @brief Day 02: one global atomic per sample (the Triton report's design, in CUDA C).
 *
 * The `[rows, channels]` array is read as one flat stream of samples. Sample `i` belongs to
 * channel `i % channels`; its bin comes from its value; one `atomicAdd` into the global
 * `[channels, bins]` histogram counts it.
 *
 *  1. `gpu_naive`: one thread per sample, as many blocks as it takes.
 *  2. `gpu_naive_coarse`: a grid-stride loop over a grid sized to fill the GPU once; each thread
 *     takes samples `i, i + stride, i + 2 * stride, ...` (interleaved coarsening: neighbouring
 *     threads still read neighbouring bytes, so every load stays coalesced).
 *  3. `gpu_naive_racy` (only in `make demo`): kernel 1 with `++` instead of the atomic.
 *  4. `gpu_cub`: no kernel of ours: CUB's `DeviceHistogram` (it ships with the CUDA toolkit), the
 *     library call a user would reach for first, as a yardstick for every lesson.
 */
#include "cuda_check.h"
#include "device.cuh"

/** @brief Threads per block for every kernel of this lesson. */
#define NAIVE_THREADS 256

/* ---- 1. one thread per sample ---- */

/**
 * @brief Thread i of the grid counts sample i: its channel is `i % channels`, and one global
 *        atomic adds it (ATOMIC), or a plain read-add-write that loses updates (the race demo's
 *        naive_racy_kernel()).
 * @param d_samples the input, `n_samples` bytes, row-major `[rows][channels]`
 * @param n_samples `rows * channels`
 * @param channels channels per row
 * @param bins bins per channel
 * @param map the binning, as a bin map
 * @param d_hist the output `[channels][bins]`
 */
template <bool ATOMIC>
__device__ __forceinline__ void naive_count(const uint8_t *__restrict__ d_samples,
                                            uint64_t n_samples, uint32_t channels, uint32_t bins,
                                            hist_bin_map map, uint32_t *d_hist) {
    // SOLUTION naive_count [gpu_naive]: thread i (of the whole grid) counts sample i, if there
    //   is one: its channel is i % channels, its bin hist_bin_of(value, map) (negative: not
    //   counted); then with ATOMIC one atomicAdd adds 1 to d_hist[channel * bins + bin], without
    //   it a plain ++ of the same counter (the race demo: `make demo DAY=02`).
    // stub: (void)d_samples, (void)n_samples, (void)channels, (void)bins, (void)map, (void)d_hist;
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_samples)
        return;
    const uint32_t channel = (uint32_t)(i % channels);
    const int bin = hist_bin_of(d_samples[i], map);
    if (bin < 0)
        return;
    if (ATOMIC)
        atomicAdd(&d_hist[(size_t)channel * bins + bin], 1u);
    else
        d_hist[(size_t)channel * bins + bin]++; /* read, add, write: updates get lost */
    // END SOLUTION
}

/**
 * @brief One thread per sample, one global atomic each (naive_count()).
 * @copydetails naive_count
 * @par Launch
 * `ceil(n_samples / NAIVE_THREADS)` blocks of NAIVE_THREADS (256) threads, no shared memory
 * (`run_naive`); the output zeroed before.
 */
__global__ void naive_kernel(const uint8_t *__restrict__ d_samples, uint64_t n_samples,
                             uint32_t channels, uint32_t bins, hist_bin_map map,
                             uint32_t *__restrict__ d_hist) {
    naive_count<true>(d_samples, n_samples, channels, bins, map, d_hist);
}

/* ---- 2. interleaved coarsening: a grid-stride loop ---- */

/**
 * @brief Grid-stride (interleaved) loop over the samples, one global atomic each.
 * @copydetails naive_count
 * @par Launch
 * one wave, `sm_count * (max_threads_per_sm / NAIVE_THREADS)` blocks (fewer if there are fewer
 * samples) of NAIVE_THREADS threads, no shared memory (`run_naive_coarse`).
 */
__global__ void naive_coarse_kernel(const uint8_t *__restrict__ d_samples, uint64_t n_samples,
                                    uint32_t channels, uint32_t bins, hist_bin_map map,
                                    uint32_t *__restrict__ d_hist) {
    // SOLUTION naive_coarse_kernel [gpu_naive_coarse]: a grid-stride loop: thread i counts
    //   samples i, i + stride, i + 2 * stride, ... (stride = all threads of the grid) like
    //   naive_kernel; keep the channel in a register and advance it by stride % channels per
    //   step instead of dividing for every sample.
    // stub: (void)d_samples, (void)n_samples, (void)channels, (void)bins, (void)map, (void)d_hist;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* the channel advances by stride % channels each step: one division per thread, not per
       sample */
    const uint32_t channel_step = (uint32_t)(stride % channels);
    uint32_t channel = (uint32_t)(i % channels);
    for (; i < n_samples; i += stride) {
        const int bin = hist_bin_of(d_samples[i], map);
        if (bin >= 0)
            atomicAdd(&d_hist[(size_t)channel * bins + bin], 1u);
        channel += channel_step;
        if (channel >= channels)
            channel -= channels;
    }
    // END SOLUTION
}

/* ---- 3. the race: the same as kernel 1 without the atomic ---- */

/**
 * @brief naive_kernel() with `++` instead of the atomic: loses updates (demonstration only).
 * @copydetails naive_count
 * @par Launch
 * as naive_kernel() (race_demo.c).
 */
__global__ void naive_racy_kernel(const uint8_t *__restrict__ d_samples, uint64_t n_samples,
                                  uint32_t channels, uint32_t bins, hist_bin_map map,
                                  uint32_t *d_hist) {
    naive_count<false>(d_samples, n_samples, channels, bins, map, d_hist);
}

/* ---- host wrappers: zero the output, launch, check ---- */

/** @brief The signature the three kernels share. */
typedef void (*naive_kernel_fn)(const uint8_t *, uint64_t, uint32_t, uint32_t, hist_bin_map,
                                uint32_t *);

static hist_status launch(naive_kernel_fn kernel, const char *kernel_name, uint64_t blocks,
                          const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint32_t bins = hist_bins(p->binning);
    HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    if (blocks == 0)
        return HIST_OK;
    return hist_launch(a->device, kernel, dim3((unsigned)blocks), NAIVE_THREADS, 0, 0, kernel_name,
                       a->samples, hist_samples(p), p->channels, bins, hist_bin_map_of(p->binning),
                       a->hist);
}

static hist_status run_naive(const hist_args *a) {
    return launch(naive_kernel, "naive_kernel",
                  HIST_CEIL_DIV(hist_samples(a->problem), NAIVE_THREADS), a);
}

static hist_status run_naive_coarse(const hist_args *a) {
    /* one full wave: as many blocks as the SMs can hold at once */
    const uint64_t wave =
        (uint64_t)a->device->sm_count * (a->device->max_threads_per_sm / NAIVE_THREADS);
    const uint64_t needed = HIST_CEIL_DIV(hist_samples(a->problem), NAIVE_THREADS);
    return launch(naive_coarse_kernel, "naive_coarse_kernel", needed < wave ? needed : wave, a);
}

static hist_status run_naive_racy(const hist_args *a) {
    return launch(naive_racy_kernel, "naive_racy_kernel",
                  HIST_CEIL_DIV(hist_samples(a->problem), NAIVE_THREADS), a);
}

/* one thread per sample: the grid's x dimension holds at most 2^31 - 1 blocks */
static const char *too_many_samples(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return HIST_CEIL_DIV(hist_samples(p), NAIVE_THREADS) > 2147483647u
               ? "more than 2^31 - 1 blocks of 256 samples (use gpu_naive_coarse)"
               : NULL;
}

/* ---- 4. the library baseline: CUB's DeviceHistogram (library.cu) ---- */

/**
 * @brief CUB's DeviceHistogram over every channel (library.cu).
 * @param a the call's arguments (device buffers, problem, workspace)
 * @return HIST_OK, or the CUDA error
 */
hist_status day02_cub_run(const hist_args *a);
/**
 * @brief The temporary storage and bin edges day02_cub_run() needs (library.cu).
 * @param p the problem
 * @param dev the device
 * @return bytes of workspace
 */
size_t day02_cub_workspace(const hist_problem *p, const hist_device *dev);

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day02);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day02_impls[] = {
    {
        .name = "gpu_naive",
        .where = HIST_DEVICE,
        .summary = "one thread per sample, one global atomicAdd each (the Triton report's design)",
        .constraints = "any binning; at most 2^31 - 1 blocks of 256 samples",
        .unsupported = too_many_samples,
        .run = run_naive,
        .target = 0.013,
        .roof = HIST_ROOF_ATOMICS,
    },
    {
        .name = "gpu_naive_coarse",
        .where = HIST_DEVICE,
        .summary = "grid-stride loop over one wave of blocks, one global atomicAdd per sample",
        .constraints = "any shape and binning",
        .run = run_naive_coarse,
        .target = 0.013,
        .roof = HIST_ROOF_ATOMICS,
    },
    {
        .name = "gpu_cub",
        .where = HIST_DEVICE,
        .summary =
            "the library call: CUB's DeviceHistogram, one call per 4 channels (no kernel of ours)",
        .constraints = "any shape and binning",
        .workspace_bytes = day02_cub_workspace,
        .run = day02_cub_run,
        .library = 1,
        .roof = HIST_ROOF_ATOMICS,
    },
};

/** @brief How many entries day02_impls holds. */
const size_t day02_impl_count = sizeof day02_impls / sizeof day02_impls[0];

/** @brief The racy kernel of the demonstration (not in the registry: it is wrong on purpose). */
HIST_EXTERN_C const hist_impl day02_racy_impl;
const hist_impl day02_racy_impl = {
    .name = "gpu_naive_racy",
    .where = HIST_DEVICE,
    .summary = "gpu_naive with ++ instead of atomicAdd (wrong)",
    .constraints = "demonstration only",
    .unsupported = too_many_samples,
    .run = run_naive_racy,
    .roof = HIST_ROOF_ATOMICS,
};
