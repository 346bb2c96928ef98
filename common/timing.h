/**
 * @file timing.h
 * @brief Timing statistics and the host clock.
 */
#ifndef HIST_TIMING_H
#define HIST_TIMING_H

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

#ifdef __cplusplus
}
#endif

#endif /* HIST_TIMING_H */
