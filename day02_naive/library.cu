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

/**
 * @brief One `MultiHistogramRange` call over @p CH interleaved channels: the one place where
 *        CUB's two APIs differ. CUB 3 (CCCL 3.0, CUDA 13.0) takes the per-channel arguments as
 *        `cuda::std::array`, CUB 2 (CCCL 2.x, CUDA 12) as C arrays; the call and its kernels are
 *        the same.
 * @tparam CH the channels of one call (4 or 1) @tparam SampleIt the samples' iterator
 * @param temp CUB's temporary storage, or NULL to ask its size @param bytes its size
 * @param samples the samples @param hist each channel's counters @param levels each channel's
 *        number of levels @param d_levels each channel's levels (device) @param rows pixels
 * @return CUB's status
 */
template <int CH, typename SampleIt>
static cudaError_t cub_histogram(void *temp, size_t &bytes, SampleIt samples, uint32_t *(&hist)[CH],
                                 int (&levels)[CH], const int *(&d_levels)[CH], int64_t rows) {
#if CUB_VERSION >= 300000
    cuda::std::array<uint32_t *, CH> h;
    cuda::std::array<int, CH> n;
    cuda::std::array<const int *, CH> l;
    for (int i = 0; i < CH; ++i)
        h[i] = hist[i], n[i] = levels[i], l[i] = d_levels[i];
    return cub::DeviceHistogram::MultiHistogramRange<CH, CH>(temp, bytes, samples, h, n, l, rows);
#else
    return cub::DeviceHistogram::MultiHistogramRange<CH, CH>(temp, bytes, samples, hist, levels,
                                                             d_levels, rows);
#endif
}

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
    uint32_t *h4[4] = {NULL, NULL, NULL, NULL};
    int n4[4] = {levels, levels, levels, levels};
    const int *l4[4] = {NULL, NULL, NULL, NULL};
    cub_histogram<4>(NULL, four, group_iter(k, group_sample{NULL, p->channels}), h4, n4, l4, rows);
    uint32_t *h1[1] = {NULL};
    int n1[1] = {levels};
    const int *l1[1] = {NULL};
    cub_histogram<1>(NULL, one, channel_iter(k, channel_sample{NULL, p->channels}), h1, n1, l1,
                     rows);
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
        uint32_t *h[4] = {a->hist + (size_t)c * bins, a->hist + (size_t)(c + 1) * bins,
                          a->hist + (size_t)(c + 2) * bins, a->hist + (size_t)(c + 3) * bins};
        int nl[4] = {n, n, n, n};
        const int *l[4] = {d_levels, d_levels, d_levels, d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY(cub_histogram<4>(a->workspace, bytes,
                                       group_iter(k, group_sample{a->samples + c, p->channels}), h,
                                       nl, l, rows));
    }
    for (; c < p->channels; ++c) {
        uint32_t *h[1] = {a->hist + (size_t)c * bins};
        int nl[1] = {n};
        const int *l[1] = {d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY(cub_histogram<1>(a->workspace, bytes,
                                       channel_iter(k, channel_sample{a->samples + c, p->channels}),
                                       h, nl, l, rows));
    }
    HIST_CUDA_TRY_LAUNCH("cub::DeviceHistogram::MultiHistogramRange");
    return HIST_OK;
}
