/**
 * @file cuda_check.h
 * @brief Checking every CUDA call, with file and line, as a status code (library code never
 *        exits).
 */
#ifndef HIST_CUDA_CHECK_H
#define HIST_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "hist.h"

/**
 * @brief Run a CUDA call; on failure return HIST_ERR_CUDA from the enclosing function, with
 *        `SOURCE:LINE: call: message` in hist_last_error().
 */
#define HIST_CUDA_TRY(call)                                                                        \
    do {                                                                                           \
        cudaError_t hist_err_ = (call);                                                            \
        if (hist_err_ != cudaSuccess)                                                              \
            return hist_fail(HIST_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                             cudaGetErrorString(hist_err_));                                       \
    } while (0)

/**
 * @brief Check the launch of @p kernel_name that just happened (bad configuration, too much shared
 *        memory): on failure return HIST_ERR_CUDA with `launching NAME (SOURCE:LINE): message`.
 */
#define HIST_CUDA_TRY_LAUNCH(kernel_name)                                                          \
    do {                                                                                           \
        cudaError_t hist_err_ = cudaGetLastError();                                                \
        if (hist_err_ != cudaSuccess)                                                              \
            return hist_fail(HIST_ERR_CUDA, "launching %s (%s:%d): %s", kernel_name, __FILE__,     \
                             __LINE__, cudaGetErrorString(hist_err_));                             \
    } while (0)

/** @brief `ceil(a / b)` for positive integers. */
#define HIST_CEIL_DIV(a, b) (((a) + (b)-1) / (b))

#endif /* HIST_CUDA_CHECK_H */
