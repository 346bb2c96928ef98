/**
 * @file cub16.cu
 * @brief Day 08's library baseline, `gpu_cub16`: CUB's `DeviceHistogram::HistogramEven` on the
 *        16-bit samples (it ships with the CUDA toolkit), the call a user would reach for first.
 *
 *  - `gpu_cub16`, CUB's own kernels (no step: the library beside the steps of wide.cu):
 *    `./build/day08_wide --preset u16 --impl gpu_cub16`
 *
 * One channel: `HistogramEven` takes one sequence of samples and equal bins, levels `lo, lo +
 * width, ..., lo + bins * width` (65,537 levels for the full range). A binning whose last bin is
 * narrower than the others is not even, so it is refused. wide.cu's registry holds the entry.
 */
#include <cub/device/device_histogram.cuh>

#include "cuda_check.h"
#include "hist.h"
#include "wide.h"

/** @brief Why CUB's even histogram cannot take @p p, or NULL.
 *  @param p the problem @param dev the GPU (unused) @return the reason, or NULL */
extern "C" const char *day08_cub16_unsupported(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    if (hist_sample_bits(p) != 16)
        return "16-bit samples only (run with --bits 16)";
    if (p->channels != 1)
        return "one channel only (HistogramEven counts one sequence of samples)";
    if ((p->binning.hi - p->binning.lo + 1) % p->binning.width != 0)
        return "equal bins only (HistogramEven has no narrower last bin)";
    return NULL;
}

/** @brief CUB's temporary storage for @p p.
 *  @param p the problem @param dev the GPU (unused) @return bytes */
extern "C" size_t day08_cub16_workspace(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    size_t bytes = 0;
    const hist_binning b = p->binning;
    cub::DeviceHistogram::HistogramEven((void *)NULL, bytes, (const uint16_t *)NULL,
                                        (uint32_t *)NULL, (int)hist_bins(b) + 1, (int)b.lo,
                                        (int)(b.lo + hist_bins(b) * b.width), (int64_t)p->rows);
    return bytes;
}

/** @brief CUB's `HistogramEven` on the 16-bit samples (it zeroes the output itself).
 *  @param a the call's arguments @return HIST_OK or the CUDA error */
extern "C" hist_status day08_cub16_run(const hist_args *a) {
    const hist_problem *p = a->problem;
    const hist_binning b = p->binning;
    if (p->rows == 0) /* CUB zeroes the output only when there are samples */
        return cudaMemsetAsync(a->hist, 0, hist_bins(b) * sizeof(uint32_t)) == cudaSuccess
                   ? HIST_OK
                   : hist_fail(HIST_ERR_CUDA, "cudaMemsetAsync failed");
    size_t bytes = day08_cub16_workspace(p, a->device);
    HIST_CUDA_TRY(cub::DeviceHistogram::HistogramEven(
        a->workspace, bytes, (const uint16_t *)a->samples, a->hist, (int)hist_bins(b) + 1,
        (int)b.lo, (int)(b.lo + hist_bins(b) * b.width), (int64_t)p->rows));
    HIST_CUDA_TRY_LAUNCH("cub::DeviceHistogram::HistogramEven");
    return HIST_OK;
}
