/**
 * @file wrong_device.cu
 * @brief The device flaws (wrong.h): day 02's grid-stride kernel with one mistake each, the racy
 *        increment, and two that game a timing which repeats its input.
 */
#include "cuda_check.h"
#include "device.cuh"
#include "wrong.h"

/** @brief Threads per block. */
#define WRONG_THREADS 256
/** @brief Rows per chunk, channels per group: what the flawed versions get wrong at the end. */
#define WRONG_CHUNK_ROWS 64
#define WRONG_GROUP_CHANNELS 32

enum flaw {
    NO_ZERO,
    DROP_LAST_ROWS,
    DROP_LAST_GROUP,
    OUTSIDE_RANGE,
    COUNTERS_16_BIT,
    RACY,
    BLOCK_16_BIT,
    FLOAT_COUNTS,
    FLAWLESS
};

/** @brief One sample per grid-stride step; FLAW decides what goes wrong. */
template <int FLAW>
__global__ void wrong_kernel(const uint8_t *__restrict__ d_samples, uint64_t rows,
                             uint32_t channels, uint32_t bins, hist_binning b, uint32_t *d_hist) {
    uint64_t counted_rows = rows;
    uint32_t counted_channels = channels;
    if (FLAW == DROP_LAST_ROWS)
        counted_rows = rows / WRONG_CHUNK_ROWS * WRONG_CHUNK_ROWS;
    if (FLAW == DROP_LAST_GROUP && channels > WRONG_GROUP_CHANNELS)
        counted_channels = channels / WRONG_GROUP_CHANNELS * WRONG_GROUP_CHANNELS;
    const uint64_t n = rows * channels;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t r = i / channels;
        const uint32_t c = (uint32_t)(i % channels);
        if (r >= counted_rows || c >= counted_channels)
            continue;
        const unsigned v = d_samples[i];
        uint32_t bin;
        if (v < b.lo || v > b.hi) {
            if (FLAW != OUTSIDE_RANGE)
                continue;
            bin = v < b.lo ? 0 : bins - 1;
        } else {
            bin = (v - b.lo) / b.width;
        }
        uint32_t *counter = &d_hist[(size_t)c * bins + bin];
        if (FLAW == RACY)
            *counter += 1; /* read, add, write: increments get lost */
        else
            atomicAdd(counter, 1u);
    }
}

/** @brief What 16-bit counters would hold: every count modulo 65,536. */
__global__ void wrap_16_bit_kernel(uint32_t *d_hist, uint64_t counters) {
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < counters)
        d_hist[k] &= 0xFFFFu;
}

template <int FLAW> static hist_status run_wrong(const hist_args *a) {
    const hist_problem *p = a->problem;
    if (FLAW != NO_ZERO)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
    const uint64_t n = hist_samples(p);
    if (n == 0)
        return HIST_OK;
    const uint64_t wave = (uint64_t)a->device->sm_count * 8;
    const uint64_t blocks = HIST_CEIL_DIV(n, WRONG_THREADS);
    wrong_kernel<FLAW><<<(unsigned)(blocks < wave ? blocks : wave), WRONG_THREADS>>>(
        a->samples, p->rows, p->channels, hist_bins(p->binning), p->binning, a->hist);
    HIST_CUDA_TRY_LAUNCH("wrong_kernel");
    if (FLAW == COUNTERS_16_BIT) {
        wrap_16_bit_kernel<<<(unsigned)HIST_CEIL_DIV(hist_counters(p), WRONG_THREADS),
                             WRONG_THREADS>>>(a->hist, hist_counters(p));
        HIST_CUDA_TRY_LAUNCH("wrap_16_bit_kernel");
    }
    return HIST_OK;
}

/* ---- two flaws that only large counts show ---- */

/** @brief Counts the grid-stride way into this block's own `[channels, bins]` counters. */
__global__ void per_block_kernel(const uint8_t *__restrict__ d_samples, uint64_t n,
                                 uint32_t channels, uint32_t bins, hist_binning b,
                                 uint32_t *d_blocks) {
    uint32_t *mine = d_blocks + (size_t)blockIdx.x * channels * bins;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const unsigned v = d_samples[i];
        if (v >= b.lo && v <= b.hi)
            atomicAdd(&mine[(size_t)(i % channels) * bins + (v - b.lo) / b.width], 1u);
    }
}

/** @brief The blocks' counters added, each as a 16-bit counter would have held it (mod 65,536):
 *  right while no block counts 65,536 of one bin. */
__global__ void add_16_bit_blocks_kernel(const uint32_t *d_blocks, unsigned blocks,
                                         uint64_t counters, uint32_t *d_hist) {
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= counters)
        return;
    uint32_t sum = 0;
    for (unsigned blk = 0; blk < blocks; ++blk)
        sum += d_blocks[(size_t)blk * counters + k] & 0xFFFFu;
    d_hist[k] = sum;
}

/** @brief Counts in float: adding 1 to 2^24 gives 2^24, so a count stops there. */
__global__ void float_kernel(const uint8_t *__restrict__ d_samples, uint64_t n, uint32_t channels,
                             uint32_t bins, hist_binning b, float *d_counts) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const unsigned v = d_samples[i];
        if (v >= b.lo && v <= b.hi)
            atomicAdd(&d_counts[(size_t)(i % channels) * bins + (v - b.lo) / b.width], 1.0f);
    }
}

__global__ void float_to_counts_kernel(const float *d_counts, uint64_t counters, uint32_t *d_hist) {
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < counters)
        d_hist[k] = (uint32_t)d_counts[k];
}

/** @brief BLOCK_16_BIT and FLOAT_COUNTS: one of the two kernels above, then its merge. */
template <int FLAW> static hist_status run_large_count_flaw(const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint64_t n = hist_samples(p), counters = hist_counters(p);
    const uint32_t bins = hist_bins(p->binning);
    const uint64_t wave = (uint64_t)a->device->sm_count * 8, need = HIST_CEIL_DIV(n, WRONG_THREADS);
    const unsigned blocks = (unsigned)(need == 0 ? 1 : need < wave ? need : wave);
    const unsigned merge_blocks = (unsigned)HIST_CEIL_DIV(counters, WRONG_THREADS);
    void *work = NULL;
    const size_t bytes = counters * sizeof(uint32_t) * (FLAW == BLOCK_16_BIT ? blocks : 1);
    HIST_CUDA_TRY(cudaMalloc(&work, bytes));
    hist_status s = HIST_OK;
    if (cudaMemset(work, 0, bytes) != cudaSuccess) {
        s = hist_fail(HIST_ERR_CUDA, "cudaMemset of the wrong kernel's counters failed");
    } else if (FLAW == BLOCK_16_BIT) {
        per_block_kernel<<<blocks, WRONG_THREADS>>>(a->samples, n, p->channels, bins, p->binning,
                                                    (uint32_t *)work);
        add_16_bit_blocks_kernel<<<merge_blocks, WRONG_THREADS>>>((const uint32_t *)work, blocks,
                                                                  counters, a->hist);
    } else {
        float_kernel<<<blocks, WRONG_THREADS>>>(a->samples, n, p->channels, bins, p->binning,
                                                (float *)work);
        float_to_counts_kernel<<<merge_blocks, WRONG_THREADS>>>((const float *)work, counters,
                                                                a->hist);
    }
    if (s == HIST_OK && cudaDeviceSynchronize() != cudaSuccess)
        s = hist_fail(HIST_ERR_CUDA, "a wrong kernel failed: %s",
                      cudaGetErrorString(cudaGetLastError()));
    cudaFree(work);
    return s;
}

/* ---- two cheats: right on any input they count, but they do not always count ---- */

/** @brief Counters a cheat keeps: enough for the main preset's 512 channels x 256 bins. */
#define KEPT_COUNTERS (512u * 256u)
/** @brief The first answer to a problem, kept on the device between calls. */
__device__ uint32_t kept_first_answer[KEPT_COUNTERS];
/** @brief The last answer, kept on the device with its input's address. */
__device__ uint32_t kept_answer_by_address[KEPT_COUNTERS];

/** @brief What a cheat knows of the answer it keeps (state on purpose: keeping it is the cheat). */
typedef struct kept_key {
    int valid;              /**< 1 once an answer is kept */
    hist_problem problem;   /**< the problem it answered */
    const uint8_t *samples; /**< where that input was */
} kept_key;

static kept_key first_key, address_key;

static bool same_problem(const hist_problem *a, const hist_problem *b) {
    return a->rows == b->rows && a->channels == b->channels && a->binning.lo == b->binning.lo &&
           a->binning.hi == b->binning.hi && a->binning.width == b->binning.width &&
           hist_sample_bits(a) == hist_sample_bits(b);
}

/** @brief BY_ADDRESS 0: the first answer to a problem for every later call of it; 1: the last
 *  answer when the input is at the same address. Otherwise a count, whose answer it keeps. */
template <int BY_ADDRESS> static hist_status run_cheat(const hist_args *a) {
    kept_key *key = BY_ADDRESS ? &address_key : &first_key;
    uint32_t *kept = NULL;
    if (BY_ADDRESS)
        HIST_CUDA_TRY(cudaGetSymbolAddress((void **)&kept, kept_answer_by_address));
    else
        HIST_CUDA_TRY(cudaGetSymbolAddress((void **)&kept, kept_first_answer));
    const uint64_t counters = hist_counters(a->problem);
    const size_t bytes = (size_t)counters * sizeof(uint32_t);
    if (key->valid && same_problem(&key->problem, a->problem) &&
        (!BY_ADDRESS || key->samples == a->samples)) {
        HIST_CUDA_TRY(cudaMemcpyAsync(a->hist, kept, bytes, cudaMemcpyDeviceToDevice));
        return HIST_OK;
    }
    const hist_status s = run_wrong<FLAWLESS>(a);
    if (s != HIST_OK || counters > KEPT_COUNTERS)
        return s;
    HIST_CUDA_TRY(cudaMemcpyAsync(kept, a->hist, bytes, cudaMemcpyDeviceToDevice));
    *key = kept_key{1, *a->problem, a->samples};
    return HIST_OK;
}

/** @brief One registry entry of a flawed kernel. */
#define WRONG_IMPL(name, summary, flaw)                                                            \
    { name, HIST_DEVICE, summary, "any", NULL, NULL, run_wrong<flaw> }

/** @brief The device flaws, one entry each. */
const hist_impl wrong_device_impls[] = {
    WRONG_IMPL("gpu_forgets_to_zero", "never zeroes its output", NO_ZERO),
    WRONG_IMPL("gpu_drops_last_rows", "drops the last partial chunk of 64 rows", DROP_LAST_ROWS),
    WRONG_IMPL("gpu_drops_last_group", "drops the last partial group of 32 channels",
               DROP_LAST_GROUP),
    WRONG_IMPL("gpu_counts_outside", "counts values outside [lo, hi] in the edge bins",
               OUTSIDE_RANGE),
    WRONG_IMPL("gpu_16_bit_counters", "16-bit counters: right on uniform data only",
               COUNTERS_16_BIT),
    WRONG_IMPL("gpu_racy_increment", "++ instead of atomicAdd", RACY),
    {
        .name = "gpu_16_bit_per_block",
        .where = HIST_DEVICE,
        .summary = "16-bit counters per block: right while no block counts 65,536 of one bin",
        .constraints = "any",
        .run = run_large_count_flaw<BLOCK_16_BIT>,
    },
    {
        .name = "gpu_float_counts",
        .where = HIST_DEVICE,
        .summary = "float counters: a count stops at 2^24",
        .constraints = "any",
        .run = run_large_count_flaw<FLOAT_COUNTS>,
    },
};
/** @brief How many entries wrong_device_impls holds. */
const size_t wrong_device_impl_count = sizeof wrong_device_impls / sizeof wrong_device_impls[0];

/** @brief The device cheats, one entry each. */
const hist_impl wrong_device_cheats[] = {
    {
        .name = "gpu_keeps_first_answer",
        .where = HIST_DEVICE,
        .summary = "returns its first answer to a problem (kept in device memory) for every later "
                   "call of it",
        .constraints = "any",
        .run = run_cheat<0>,
    },
    {
        .name = "gpu_keys_on_address",
        .where = HIST_DEVICE,
        .summary = "returns its last answer (kept in device memory) when the input is at the same "
                   "address",
        .constraints = "any",
        .run = run_cheat<1>,
    },
};
/** @brief How many entries wrong_device_cheats holds. */
const size_t wrong_device_cheat_count = sizeof wrong_device_cheats / sizeof wrong_device_cheats[0];

/** @brief The flaws' grid-stride kernel without a flaw: the control. */
const hist_impl wrong_device_flawless = WRONG_IMPL(
    "gpu_flawless", "the grid-stride kernel every flaw above starts from, without one", FLAWLESS);
