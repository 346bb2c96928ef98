/**
 * @file timing.c
 * @brief The host clock and median/min statistics.
 */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
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
