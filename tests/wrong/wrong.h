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

/** @brief Host implementations that game a timing which calls them again and again on one input:
 *         one keeps its first answer to a problem and returns it for every later call of that
 *         problem, one returns its last answer when the input is at the same address. Each is
 *         right on the first input it counts and on every repetition of it; the graded timing
 *         (common/fresh.h: a fresh input for every call, every output checked) must catch both. */
extern const hist_impl wrong_host_cheats[];
/** @brief How many entries wrong_host_cheats holds. */
extern const size_t wrong_host_cheat_count;
/** @brief The device cheats: the same two, their answers kept in device memory (a `__device__`
 *         array). */
extern const hist_impl wrong_device_cheats[];
/** @brief How many entries wrong_device_cheats holds. */
extern const size_t wrong_device_cheat_count;
/** @brief The host flaws' loop without a flaw: the control, which the graded timing accepts. */
extern const hist_impl wrong_host_flawless;
/** @brief The device flaws' kernel without a flaw: the control. */
extern const hist_impl wrong_device_flawless;

#ifdef __cplusplus
}
#endif

#endif /* HIST_WRONG_H */
