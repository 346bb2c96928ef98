/**
 * @file timing.c
 * @brief The host clock and median/min statistics.
 */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double hist_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

hist_stats hist_stats_of(double *times_us, int n) {
    hist_stats s = {0.0, 0.0, n};
    if (n <= 0)
        return s;
    qsort(times_us, (size_t)n, sizeof *times_us, compare_double);
    s.min_us = times_us[0];
    s.median_us = n % 2 ? times_us[n / 2] : 0.5 * (times_us[n / 2 - 1] + times_us[n / 2]);
    return s;
}

hist_status hist_time_calls(hist_call_fn call, hist_call_fn before, void *ctx, int warmup, int reps,
                            hist_stats *out, double *times) {
    const int timed = reps > 0 ? reps : 1;
    double *t = calloc((size_t)timed, sizeof *t);
    if (!t)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory for the times");
    hist_status s = HIST_OK;
    for (int i = 0; i < warmup + timed && s == HIST_OK; ++i) {
        if (before && (s = before(ctx)) != HIST_OK)
            break;
        const double t0 = hist_now_us();
        s = call(ctx);
        if (i >= warmup)
            t[i - warmup] = hist_now_us() - t0;
    }
    if (s == HIST_OK && times && reps > 0)
        memcpy(times, t, (size_t)reps * sizeof *t);
    if (s == HIST_OK && out)
        *out = hist_stats_of(t, reps);
    free(t);
    return s;
}
