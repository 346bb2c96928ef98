/**
 * @file reference.h
 * @brief The obviously-correct CPU reference and exact verification.
 */
#ifndef HIST_REFERENCE_H
#define HIST_REFERENCE_H

#include <stdio.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The reference loop: every sample, in order, one counter increment.
 * @param p        the problem
 * @param samples  `[rows, channels]` host input (hist_sample_bytes() bytes a sample)
 * @param hist     `[channels, bins]` host output, overwritten
 */
void hist_reference(const hist_problem *p, const uint8_t *samples, uint32_t *hist);

/**
 * @brief The reference's counts, computed on every core: the rows cut into slabs, each slab
 *        counted by hist_reference() into its own counters, the slabs' counters added. What the
 *        tests and the runner check against (hist_reference() itself stays the one-thread loop
 *        that day 01 measures). A problem too small to cut, or whose counters would take too much
 *        memory once per thread, is counted by hist_reference() alone.
 * @param p        the problem
 * @param samples  `[rows, channels]` host input (hist_sample_bytes() bytes a sample)
 * @param hist     `[channels, bins]` host output, overwritten
 */
void hist_reference_parallel(const hist_problem *p, const uint8_t *samples, uint32_t *hist);

/** @brief What the harness writes over every output counter before an implementation is called
 *  (0xFF bytes): a counter still holding it was never written. */
#define HIST_POISON UINT32_C(0xFFFFFFFF)

/**
 * @brief Compare two histograms exactly.
 *
 * Prints the first @p max_report mismatches to @p report (NULL: print nothing) as
 * `channel, bin, expected, got`, then a line with the total, and a sentence on the poison when
 * one of them still holds HIST_POISON.
 * @return the number of counters that differ (0: identical).
 * @param p the problem
 * @param expected the reference's histogram
 * @param got the histogram to check
 * @param max_report at most this many differences are printed
 * @param report where they are printed, or NULL
 */
uint64_t hist_verify(const hist_problem *p, const uint32_t *expected, const uint32_t *got,
                     unsigned max_report, FILE *report);

#ifdef __cplusplus
}
#endif

#endif /* HIST_REFERENCE_H */
