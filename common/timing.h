/**
 * @file timing.h
 * @brief Timing statistics and the host clock.
 */
#ifndef HIST_TIMING_H
#define HIST_TIMING_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Median and minimum of a set of timed repetitions. */
typedef struct hist_stats {
    double median_us; /**< median time, microseconds */
    double min_us;    /**< fastest repetition, microseconds */
    int reps;         /**< number of timed repetitions (0: not measured) */
} hist_stats;

/**
 * @brief A monotonic host clock, in microseconds.
 * @return microseconds since an arbitrary start
 */
double hist_now_us(void);

/**
 * @brief Median and minimum of @p n times (the array is sorted in place).
 * @return the statistics; `reps = 0` when @p n is 0.
 * @param times_us the times, sorted in place
 * @param n how many
 */
hist_stats hist_stats_of(double *times_us, int n);

/** @brief One call of timed work, or what precedes each (an L2 flush, a poisoned output). */
typedef hist_status (*hist_call_fn)(void *ctx);

/**
 * @brief The harness's host-clock timing loop: @p warmup untimed calls, then @p reps timed ones
 *        (reps 0: one untimed call), @p before each call outside the clock; median and minimum.
 *        Every host-clock time of the course comes from here: host implementations (impl.c),
 *        several GPUs at once (day 07's `gpus`), ranks (day 07's `ranks`). One GPU's kernels
 *        are timed with events instead (gpu.h).
 * @param call the work; it returns when the work is done
 * @param before run before every call, untimed (NULL: nothing)
 * @param ctx passed to both
 * @param warmup untimed calls first
 * @param reps timed calls
 * @param out their median and minimum, or NULL
 * @param times receives each timed call's time, in order, or NULL (@p reps entries)
 * @return HIST_OK, or the first failure
 */
hist_status hist_time_calls(hist_call_fn call, hist_call_fn before, void *ctx, int warmup, int reps,
                            hist_stats *out, double *times);

#ifdef __cplusplus
}
#endif

#endif /* HIST_TIMING_H */
