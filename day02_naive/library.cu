/**
 * @file library.cu
 * @brief Day 02's library baseline, `gpu_cub`: CUB's `DeviceHistogram` (it ships with the CUDA
 *        toolkit), the call a user would reach for before writing a kernel.
 *
 * Built without the course's spill check: CUB's own kernels are not ours to tune.
 */
#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda_check.h"
#include "hist.h"

/* CUB counts at most 4 channels per call: a "pixel" is up to 4 interleaved samples of one
 * sequence. Our channels are 4 consecutive bytes of each row, `channels` bytes apart, so each
 * call gets a sequence built by an iterator: sample k of group c0 is byte `k % 4` of row `k / 4`,
 * i.e. `d_samples[(k / 4) * channels + c0 + k % 4]`; one MultiHistogramRange call per group of 4
 * channels, and a single-channel call (sample k = row k) per channel left over. (Describing the
 * group as a 2-D region of one-pixel rows instead, CUB's other entry point, was hundreds of times
 * slower: its tiles follow rows.) The bin edges are explicit levels `lo, lo + width, ..., hi + 1`,
 * so the last bin may be narrower, exactly like the course's binning. */

/** @brief Sample k of the 4-channel group starting at `base`: byte k % 4 of row k / 4. */
struct group_sample {
    const uint8_t *base; /**< the group's first channel in row 0 */
    uint64_t channels;   /**< bytes from one row to the next */
    /**
     * @brief The sample.
     * @param k the sample's index in the group's stream: row `k / 4`, channel `k % 4` of the group
     * @return the byte
     */
    __host__ __device__ uint8_t operator()(int64_t k) const {
        return base[(uint64_t)(k >> 2) * channels + (uint64_t)(k & 3)];
    }
};

/** @brief Sample k of one channel: row k. */
struct channel_sample {
    const uint8_t *base; /**< the channel in row 0 */
    uint64_t channels;   /**< bytes from one row to the next */
    /**
     * @brief The sample.
     * @param k the row
     * @return the byte
     */
    __host__ __device__ uint8_t operator()(int64_t k) const {
        return base[(uint64_t)k * channels];
    }
};

/** @brief The iterator over the samples of a 4-channel group. */
typedef thrust::transform_iterator<group_sample, thrust::counting_iterator<int64_t>> group_iter;
/** @brief The iterator over the samples of one channel. */
typedef thrust::transform_iterator<channel_sample, thrust::counting_iterator<int64_t>> channel_iter;

/** @brief The level array (bins + 1 ints) after the temporary storage, 256-byte aligned. */
static size_t cub_levels_offset(size_t temp_bytes) {
    return (temp_bytes + 255) / 256 * 256;
}

/** @brief CUB's temporary storage for one problem: the larger of the 4- and 1-channel calls. */
static size_t cub_temp_bytes(const hist_problem *p) {
    const int levels = (int)hist_bins(p->binning) + 1;
    const int64_t rows = (int64_t)p->rows;
    const thrust::counting_iterator<int64_t> k(0);
    size_t four = 0, one = 0;
    cuda::std::array<uint32_t *, 4> h4 = {NULL, NULL, NULL, NULL};
    cuda::std::array<int, 4> n4 = {levels, levels, levels, levels};
    cuda::std::array<const int *, 4> l4 = {NULL, NULL, NULL, NULL};
    cub::DeviceHistogram::MultiHistogramRange<4, 4>(
        NULL, four, group_iter(k, group_sample{NULL, p->channels}), h4, n4, l4, rows);
    cuda::std::array<uint32_t *, 1> h1 = {NULL};
    cuda::std::array<int, 1> n1 = {levels};
    cuda::std::array<const int *, 1> l1 = {NULL};
    cub::DeviceHistogram::MultiHistogramRange<1, 1>(
        NULL, one, channel_iter(k, channel_sample{NULL, p->channels}), h1, n1, l1, rows);
    return four > one ? four : one;
}

size_t day02_cub_workspace(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return cub_levels_offset(cub_temp_bytes(p)) + (hist_bins(p->binning) + 1) * sizeof(int);
}

hist_status day02_cub_run(const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint32_t bins = hist_bins(p->binning);
    if (p->rows == 0) { /* no sample: CUB has nothing to do, the counts are zero */
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
        return HIST_OK;
    }
    const size_t temp_bytes = cub_temp_bytes(p);
    int *d_levels = (int *)((char *)a->workspace + cub_levels_offset(temp_bytes));
    int levels[257];
    for (uint32_t b = 0; b < bins; ++b)
        levels[b] = p->binning.lo + (int)(b * p->binning.width);
    levels[bins] = p->binning.hi + 1;
    HIST_CUDA_TRY(
        cudaMemcpyAsync(d_levels, levels, (bins + 1) * sizeof(int), cudaMemcpyHostToDevice));
    const int n = (int)bins + 1;
    const int64_t rows = (int64_t)p->rows;
    const thrust::counting_iterator<int64_t> k(0);
    uint32_t c = 0;
    for (; c + 4 <= p->channels; c += 4) {
        cuda::std::array<uint32_t *, 4> h = {
            a->hist + (size_t)c * bins, a->hist + (size_t)(c + 1) * bins,
            a->hist + (size_t)(c + 2) * bins, a->hist + (size_t)(c + 3) * bins};
        cuda::std::array<int, 4> nl = {n, n, n, n};
        cuda::std::array<const int *, 4> l = {d_levels, d_levels, d_levels, d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY((cub::DeviceHistogram::MultiHistogramRange<4, 4>(
            a->workspace, bytes, group_iter(k, group_sample{a->samples + c, p->channels}), h, nl, l,
            rows)));
    }
    for (; c < p->channels; ++c) {
        cuda::std::array<uint32_t *, 1> h = {a->hist + (size_t)c * bins};
        cuda::std::array<int, 1> nl = {n};
        cuda::std::array<const int *, 1> l = {d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY((cub::DeviceHistogram::MultiHistogramRange<1, 1>(
            a->workspace, bytes, channel_iter(k, channel_sample{a->samples + c, p->channels}), h,
            nl, l, rows)));
    }
    HIST_CUDA_TRY_LAUNCH("cub::DeviceHistogram::MultiHistogramRange");
    return HIST_OK;
}
