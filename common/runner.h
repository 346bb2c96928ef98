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
    char command[512];      /**< the command line, for the results' provenance (CSV `command`) */
} hist_options;

/**
 * @brief Parse a command line (getopt_long) against a registry.
 *
 * The preset is applied first, wherever `--preset` stands, then the other options override it.
 * @return HIST_OK, or HIST_ERR_USAGE with a one-line message (the option and what it accepts).
 * @param argc argument count, as main() receives it
 * @param argv the arguments
 * @param impls the registry whose names `--impl` may use
 * @param count how many entries @p impls has
 * @param out the options (written only on HIST_OK)
 */
hist_status hist_parse_args(int argc, char **argv, const hist_impl *impls, size_t count,
                            hist_options *out);

/**
 * @brief Print the usage text to @p f.
 * @param f the stream to print to
 * @param program the program's name, for the usage line
 */
void hist_print_usage(FILE *f, const char *program);

/** @brief One implementation's measured result. */
typedef struct hist_result {
    const hist_impl *impl; /**< which implementation */
    int ran;               /**< 1 if it ran, 0 if skipped */
    char skip_reason[200]; /**< why it was skipped */
    hist_stats time;       /**< kernel (or host) time */
    hist_stats e2e;        /**< device implementations: with the input copy (reps 0 if none) */
    hist_stats copy_floor; /**< host-input implementations: the pinned-copy floor, timed
                                alternately with them (reps 0 if none) */
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
 * @param argc argument count
 * @param argv the arguments
 * @param impls the registry to run
 * @param count how many entries @p impls has
 */
int hist_main(int argc, char **argv, const hist_impl *impls, size_t count);

/**
 * @brief Time a host implementation the way the runner does: the output poisoned before each
 *        call (an implementation must zero its own), @p warmup untimed calls, then @p reps timed
 *        ones on the host clock (reps 0: one untimed call); median and minimum in @p out (may be
 *        NULL). @p progress: show the repetitions on stderr.
 * @param impl a host implementation
 * @param p the problem
 * @param samples the input, `rows * channels` bytes
 * @param hist the output, `channels * bins` counters
 * @param threads worker threads
 * @param warmup untimed calls first
 * @param reps timed calls
 * @param out their median and minimum, or NULL
 * @param progress 1: show "rep i/n" on stderr while it runs
 * @return HIST_OK, or the first failure
 */
hist_status hist_time_host(const hist_impl *impl, const hist_problem *p, const uint8_t *samples,
                           uint32_t *hist, int threads, int warmup, int reps, hist_stats *out,
                           int progress);

/**
 * @brief Time a host-input implementation (HIST_HOST_INPUT or HIST_PINNED_INPUT) against the
 *        pinned-copy floor, alternately (hist_gpu_time_alternately()): each round copies the
 *        input once from pinned memory, then calls the implementation, both on the host clock, so
 *        that both see the same state of the link and of host memory (on a shared machine it
 *        drifts by more than the difference between pipelines). @p warmup rounds first, then
 *        @p reps; medians and minima in @p time and @p copy_floor. The output is poisoned
 *        (0xFF bytes) once, before the first call.
 * @param impl the implementation
 * @param dev the GPU
 * @param p the problem
 * @param input the input as the implementation wants it (pageable or pinned)
 * @param pinned the same bytes in pinned memory, for the floor
 * @param hist the output (host memory)
 * @param warmup untimed rounds first
 * @param reps timed rounds (at least 1)
 * @param time the implementation's times
 * @param copy_floor the floor's times
 * @return HIST_OK, or the first failure
 */
hist_status hist_time_host_input(const hist_impl *impl, const hist_device *dev,
                                 const hist_problem *p, const uint8_t *input, const uint8_t *pinned,
                                 uint32_t *hist, int warmup, int reps, hist_stats *time,
                                 hist_stats *copy_floor);

/** @brief A block of code a student has still to write (common/student.sh): the build lists
 *         every `// TODO(student) name [impl ...]:` line of the sources in hist_todos[]. */
typedef struct hist_todo {
    const char *function; /**< what to write, e.g. "shared_kernel" */
    const char *file;     /**< where, from the repository root, e.g. "day04_shared/shared.cu" */
    int line;             /**< the line of the TODO block */
    const char *impls;    /**< the registry entries that need it, space-separated, e.g. " a b " */
} hist_todo;

/** @brief The unwritten blocks of this build (generated by common/todos.sh; empty in the
 *         instructor edition). */
extern const hist_todo hist_todos[];
/** @brief How many entries hist_todos holds. */
extern const size_t hist_todo_count;

/**
 * @brief Whether @p impl waits for student code: "not written yet: FUNCTION in FILE:LINE" for
 *        every unwritten block it needs, comma-separated (a static buffer), or NULL when it can
 *        run.
 * @param impl the registry entry
 * @return "not written yet: ...", or NULL when every part is written
 */
const char *hist_not_written(const hist_impl *impl);

/**
 * @brief Why @p impl cannot run @p p here (hist_not_written(), then its constraints), or NULL.
 *        @p dev may be NULL when no GPU is present.
 * @param impl the registry entry
 * @param p the problem
 * @param dev the GPU, or NULL when there is none
 * @return the reason as a sentence, or NULL when it can run
 */
const char *hist_impl_unsupported(const hist_impl *impl, const hist_problem *p,
                                  const hist_device *dev);

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
 * @param lessons the lesson folders with their registries
 * @param n how many
 */
hist_status hist_check_lessons(const hist_lesson *lessons, size_t n);

/**
 * @brief The program of one lesson or of the whole course: check the registries, join them in
 *        lesson order, then hist_main().
 * @return the exit status (3 with one line if a registry breaks the contract).
 * @param argc argument count
 * @param argv the arguments
 * @param lessons the lesson folders with their registries
 * @param n how many
 */
int hist_lessons_main(int argc, char **argv, const hist_lesson *lessons, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HIST_RUNNER_H */
