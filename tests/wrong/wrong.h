/**
 * @file wrong.h
 * @brief Deliberately wrong implementations, built only for tests/test_wrong.c (instructor
 *        edition only; never in a registry a student sees). Each has one classic flaw, and the
 *        lesson tests must catch every one of them.
 */
#ifndef HIST_WRONG_H
#define HIST_WRONG_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The host ones: forgets to zero, drops the last partial chunk of rows, drops the last
 *         partial channel group, counts values outside [lo, hi], 16-bit counters. */
extern const hist_impl wrong_host_impls[];
/** @brief How many entries wrong_host_impls holds. */
extern const size_t wrong_host_impl_count;
/** @brief The device ones: the same five flaws, a racy non-atomic increment, 16-bit counters per
 *         block and float counters. */
extern const hist_impl wrong_device_impls[];
/** @brief How many entries wrong_device_impls holds. */
extern const size_t wrong_device_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* HIST_WRONG_H */
