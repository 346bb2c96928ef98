/**
 * @file runner.h
 * @brief The runner: the program every lesson binary and the course runner are. It parses the
 *        command line (options.h), runs, times and checks every registered implementation
 *        (impl.h, gpu.h) and reports the table, the CSV and the output file.
 *
 * Every program is hist_lessons_main() over one lesson (common/course/lesson_main.c) or all of
 * them (common/course/course.c).
 */
#ifndef HIST_RUNNER_H
#define HIST_RUNNER_H

#include "hist.h"
#include "impl.h"
#include "options.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The whole program: parse, load or generate, run, verify, print the table.
 * @return the exit status: 0 all exact, 1 a mismatch, 2 a usage error, 3 a runtime failure.
 * @param argc argument count
 * @param argv the arguments
 * @param impls the registry to run
 * @param lessons the lesson folder of each entry of @p impls (the `lesson` column)
 * @param count how many entries @p impls has
 */
int hist_main(int argc, char **argv, const hist_impl *impls, const char *const *lessons,
              size_t count);

/** @brief A lesson folder and its registry (see docs/LESSON_CONTRACT.md). */
typedef struct hist_lesson {
    const char *folder;       /**< the folder, e.g. "day04_shared": the lesson of every entry */
    const hist_impl *impls;   /**< its registry, `dayNN_impls` */
    const size_t *impl_count; /**< its length, `&dayNN_impl_count` */
} hist_lesson;

/**
 * @brief Check a lesson's registry against the contract: at least one entry; every entry with a
 *        name, a summary, constraints and a run function; names unique within @p lessons.
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
