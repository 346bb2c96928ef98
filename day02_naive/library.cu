/**
 * @file library.cu
 * @brief Day 02's library baseline, `gpu_cub`: CUB's `DeviceHistogram` (it ships with the CUDA
 *        toolkit), the call a user would reach for before writing a kernel.
 *
 * Built without the course's spill check: CUB's own kernels are not ours to tune.
 */
#include <cub/device/device_histogram.cuh>

#include "cuda_check.h"
#include "hist.h"

/* CUB counts at most 4 channels per call (a "pixel" of up to 4 interleaved samples), over a 2-D
 * region of rows `row_stride_bytes` apart. So: one MultiHistogramRange call per group of 4
 * channels (the region: 1 pixel of 4 bytes per row, `channels` bytes apart), and one single-channel
 * call per channel left over. The bin edges are explicit levels `lo, lo + width, ..., hi + 1`, so
 * the last bin may be narrower, exactly like the course's binning. */

/** @brief The level array (bins + 1 ints) after the temporary storage, 256-byte aligned. */
static size_t cub_levels_offset(size_t temp_bytes) {
    return (temp_bytes + 255) / 256 * 256;
}

/** @brief CUB's temporary storage for one problem: the larger of the 4- and 1-channel calls. */
static size_t cub_temp_bytes(const hist_problem *p) {
    const int levels = (int)hist_bins(p->binning) + 1;
    const int64_t rows = (int64_t)p->rows, stride = p->channels;
    size_t four = 0, one = 0;
    cuda::std::array<uint32_t *, 4> h4 = {NULL, NULL, NULL, NULL};
    cuda::std::array<int, 4> n4 = {levels, levels, levels, levels};
    cuda::std::array<const int *, 4> l4 = {NULL, NULL, NULL, NULL};
    cub::DeviceHistogram::MultiHistogramRange<4, 4>(NULL, four, (const uint8_t *)NULL, h4, n4, l4,
                                                    (int64_t)1, rows, (size_t)stride);
    cuda::std::array<uint32_t *, 1> h1 = {NULL};
    cuda::std::array<int, 1> n1 = {levels};
    cuda::std::array<const int *, 1> l1 = {NULL};
    cub::DeviceHistogram::MultiHistogramRange<1, 1>(NULL, one, (const uint8_t *)NULL, h1, n1, l1,
                                                    (int64_t)1, rows, (size_t)stride);
    return four > one ? four : one;
}

size_t day02_cub_workspace(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return cub_levels_offset(cub_temp_bytes(p)) + (hist_bins(p->binning) + 1) * sizeof(int);
}

hist_status day02_cub_run(const hist_args *a) {
    const hist_problem *p = a->problem;
    const uint32_t bins = hist_bins(p->binning);
    if (p->rows == 0) { /* CUB does nothing for an empty region: the counts are zero */
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
        return HIST_OK;
    }
    size_t temp_bytes = cub_temp_bytes(p);
    int *d_levels = (int *)((char *)a->workspace + cub_levels_offset(temp_bytes));
    int levels[257];
    for (uint32_t b = 0; b < bins; ++b)
        levels[b] = p->binning.lo + (int)(b * p->binning.width);
    levels[bins] = p->binning.hi + 1;
    HIST_CUDA_TRY(
        cudaMemcpyAsync(d_levels, levels, (bins + 1) * sizeof(int), cudaMemcpyHostToDevice));
    const int n = (int)bins + 1;
    const int64_t rows = (int64_t)p->rows;
    const size_t stride = p->channels;
    uint32_t c = 0;
    for (; c + 4 <= p->channels; c += 4) {
        cuda::std::array<uint32_t *, 4> h = {
            a->hist + (size_t)c * bins, a->hist + (size_t)(c + 1) * bins,
            a->hist + (size_t)(c + 2) * bins, a->hist + (size_t)(c + 3) * bins};
        cuda::std::array<int, 4> nl = {n, n, n, n};
        cuda::std::array<const int *, 4> l = {d_levels, d_levels, d_levels, d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY((cub::DeviceHistogram::MultiHistogramRange<4, 4>(
            a->workspace, bytes, a->samples + c, h, nl, l, (int64_t)1, rows, stride)));
    }
    for (; c < p->channels; ++c) {
        cuda::std::array<uint32_t *, 1> h = {a->hist + (size_t)c * bins};
        cuda::std::array<int, 1> nl = {n};
        cuda::std::array<const int *, 1> l = {d_levels};
        size_t bytes = temp_bytes;
        HIST_CUDA_TRY((cub::DeviceHistogram::MultiHistogramRange<1, 1>(
            a->workspace, bytes, a->samples + c, h, nl, l, (int64_t)1, rows, stride)));
    }
    HIST_CUDA_TRY_LAUNCH("cub::DeviceHistogram::MultiHistogramRange");
    return HIST_OK;
}

