/**
 * @file runner.h
 * @brief The command line every lesson binary shares, and the runner that times and checks
 *        every registered implementation.
 *
 * Every program is hist_lessons_main() over one lesson (common/lesson_main.c) or all of them
 * (common/course/course.c).
 */
#ifndef HIST_RUNNER_H
#define HIST_RUNNER_H

#include <stdio.h>

#include "data.h"
#include "hist.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Everything the command line can say. */
typedef struct hist_options {
    hist_dataset data;      /**< the dataset (preset, then overrides) */
    const char *preset;     /**< preset name */
    const char *input;      /**< `--input` .npy file, or NULL to generate */
    const char *output;     /**< `--output` .npy file, or NULL */
    const char *save_input; /**< `--save-input` .npy file for the generated samples, or NULL */
    const char *csv;        /**< `--csv` file, or NULL */
    const char *results;    /**< `--results` folder: CSV named after GPU, preset and data */
    const char *impl;       /**< `--impl` comma-separated names, or NULL for all */
    int reps;               /**< timed repetitions */
    int warmup;             /**< untimed repetitions before them */
    int threads;            /**< worker threads for host implementations */
    int require_gpu;        /**< `--require-gpu`: a GPU implementation skipped for want of a GPU
                                 is a failure (exit status 4) */
    int list;               /**< `--list`: print the registry and exit */
    int help;               /**< `--help`: print usage and exit */
} hist_options;

/**
 * @brief Parse a command line (getopt_long) against a registry.
 *
 * The preset is applied first, wherever `--preset` stands, then the other options override it.
 * @return HIST_OK, or HIST_ERR_USAGE with a one-line message (the option and what it accepts).
 */
hist_status hist_parse_args(int argc, char **argv, const hist_impl *impls, size_t count,
                            hist_options *out);

/** @brief Print the usage text to @p f. */
void hist_print_usage(FILE *f, const char *program);

/** @brief One implementation's measured result. */
typedef struct hist_result {
    const hist_impl *impl; /**< which implementation */
    int ran;               /**< 1 if it ran, 0 if skipped */
    char skip_reason[200]; /**< why it was skipped */
    hist_stats time;       /**< kernel (or host) time */
    hist_stats e2e;        /**< device implementations: with the input copy (reps 0 if none) */
    uint64_t mismatches;   /**< counters that differ from the reference */
} hist_result;

/**
 * @brief Run one implementation once on host data, whatever its kind (used by the tests).
 *
 * Device implementations get a fresh GPU session: the input copied, the output read back.
 * @param impl      the implementation (its constraints must hold)
 * @param dev       the device for HIST_DEVICE implementations (NULL for host ones)
 * @param p         the problem
 * @param samples   `[rows, channels]` host input
 * @param hist      `[channels, bins]` host output
 * @param threads   worker threads for host implementations
 * @return HIST_OK or the failure, with a message.
 */
hist_status hist_run_once(const hist_impl *impl, const hist_device *dev, const hist_problem *p,
                          const uint8_t *samples, uint32_t *hist, int threads);

/**
 * @brief The whole program: parse, load or generate, run, verify, print the table.
 * @return the exit status: 0 all exact, 1 a mismatch, 2 a usage error, 3 a runtime failure.
 */
int hist_main(int argc, char **argv, const hist_impl *impls, size_t count);

/** @brief A lesson folder and its registry (see common/LESSONS.md). */
typedef struct hist_lesson {
    const char *folder;       /**< the folder, e.g. "day04_shared"; every entry's `lesson` */
    const hist_impl *impls;   /**< its registry, `dayNN_impls` */
    const size_t *impl_count; /**< its length, `&dayNN_impl_count` */
} hist_lesson;

/**
 * @brief Check a lesson's registry against the contract: at least one entry; every entry with a
 *        name, a summary, constraints and a run function; `lesson` equal to the folder; names
 *        unique within @p lessons.
 * @return HIST_OK, or HIST_ERR_USAGE with one line naming the folder and the entry.
 */
hist_status hist_check_lessons(const hist_lesson *lessons, size_t n);

/**
 * @brief The program of one lesson or of the whole course: check the registries, join them in
 *        lesson order, then hist_main().
 * @return the exit status (3 with one line if a registry breaks the contract).
 */
int hist_lessons_main(int argc, char **argv, const hist_lesson *lessons, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HIST_RUNNER_H */
