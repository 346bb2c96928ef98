/**
 * @file report.h
 * @brief What the runner reports of a run: the table on standard output, the same results as
 *        CSV (`--csv`, `--results`), and the registry (`--list`).
 */
#ifndef HIST_REPORT_H
#define HIST_REPORT_H

#include <stdio.h>

#include "hist.h"
#include "options.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The roofs of a run, measured in the same process on the same data (reps 0: not
 *  measured). */
typedef struct hist_roofs {
    hist_stats floor;   /**< the flushed read-only floor, timed like every kernel */
    hist_stats clean;   /**< the same read on a clean L2 (the hardware's limit) */
    hist_stats ceiling; /**< the shared-atomic ceiling: one conflict-free shared atomicAdd per
                             sample */
} hist_roofs;

/**
 * @brief The time of one roof of a run, in microseconds (0 if not measured).
 * @param r the run's roofs
 * @param roof which: the bound max(floor, ceiling), or the ceiling alone
 * @return its median
 */
double hist_roof_us(const hist_roofs *r, hist_roof roof);

/** @brief One implementation's measured result. */
typedef struct hist_result {
    const hist_impl *impl;  /**< which implementation */
    const char *lesson;     /**< its lesson: the folder whose registry holds it */
    int ran;                /**< 1 if it ran, 0 if skipped */
    char skip_reason[1024]; /**< why it was skipped (every unwritten block it needs, in full) */
    hist_stats time;        /**< kernel (or host) time */
    hist_stats e2e;         /**< device implementations: with the input copy (reps 0 if none) */
    hist_stats copy_floor;  /**< host-input implementations: the pinned-copy floor, timed
                                 alternately with them (reps 0 if none) */
    uint64_t mismatches;    /**< counters that differ from the reference */
} hist_result;

/**
 * @brief Print the results table: per implementation its median, minimum, end-to-end time,
 *        GB/s, share of its floor and of the bound max(floor, atomic ceiling), speed-ups over the
 * reference and the previous lesson, check.
 * @param f the stream
 * @param results the results, in registry order
 * @param n how many
 * @param p the problem
 * @param roofs the run's roofs (reps 0 where none was measured)
 * @param reference_us the CPU reference's median (0 if it did not run)
 */
void hist_report_table(FILE *f, const hist_result *results, size_t n, const hist_problem *p,
                       const hist_roofs *roofs, double reference_us);

/** @brief The commit this build was made from (`git describe`, or COURSE_COMMIT; the Makefile
 *  generates it): every CSV row names it, so that a kept table knows what code it measured. */
extern const char hist_course_commit[];

/**
 * @brief Write the results as CSV, one row per implementation, with the run's provenance (GPU,
 *        shape, data, date, command, commit) on every row.
 * @param f the stream
 * @param results the results, in registry order
 * @param n how many
 * @param o the options of the run
 * @param p the problem
 * @param gpu the GPU's name ("none" without one)
 * @param roofs the run's roofs
 * @param reference_us the CPU reference's median (0 if it did not run)
 */
void hist_report_csv(FILE *f, const hist_result *results, size_t n, const hist_options *o,
                     const hist_problem *p, const char *gpu, const hist_roofs *roofs,
                     double reference_us);

/**
 * @brief List the registry: lesson, name, where it runs, what it does and its constraints.
 * @param f the stream
 * @param impls the registry
 * @param lessons the lesson folder of each entry of @p impls
 * @param count how many entries
 */
void hist_report_registry(FILE *f, const hist_impl *impls, const char *const *lessons,
                          size_t count);

#ifdef __cplusplus
}
#endif

#endif /* HIST_REPORT_H */
