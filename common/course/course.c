/**
 * @file course.c
 * @brief The course runner: every implementation of every lesson in one process, so that all
 *        of them are timed against the same data and the same read-only floor.
 *
 * The lesson registries come from `build/registry.c`, which the top-level Makefile writes from
 * the lesson folders it finds (`dayNN_name/` provides `dayNN_impls`), so a new lesson joins the
 * course by existing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/** @brief Every lesson's registry, in lesson order (generated). */
extern const hist_impl *const course_registries[];
/** @brief How many implementations each registry holds (generated). */
extern const size_t *const course_registry_counts[];
/** @brief How many lessons (generated). */
extern const size_t course_lessons;

/** @brief The course runner: every lesson's registry handed to hist_main(). */
int main(int argc, char **argv) {
    size_t total = 0;
    for (size_t l = 0; l < course_lessons; ++l)
        total += *course_registry_counts[l];
    hist_impl *all = malloc((total > 0 ? total : 1) * sizeof *all);
    if (!all) {
        fprintf(stderr, "course: out of memory\n");
        return 3;
    }
    size_t n = 0;
    for (size_t l = 0; l < course_lessons; ++l) {
        memcpy(all + n, course_registries[l], *course_registry_counts[l] * sizeof *all);
        n += *course_registry_counts[l];
    }
    const int status = hist_main(argc, argv, all, n);
    free(all);
    return status;
}
