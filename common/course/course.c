/**
 * @file course.c
 * @brief The course runner: every implementation of every lesson in one process, so that all
 *        of them are timed against the same data and the same read-only floor.
 *
 * The lessons come from `build/CONFIG/registry.c`, which the top-level Makefile writes from the
 * lesson folders it finds, so a new lesson joins the course by existing (docs/LESSON_CONTRACT.md).
 */
#include "runner.h"

/** @brief Every lesson folder and its registry, in lesson order (generated). */
extern const hist_lesson course_lessons[];
/** @brief How many lessons (generated). */
extern const size_t course_lesson_count;

/**
 * @brief The course runner: every lesson's registry handed to the common runner.
 * @param argc argument count
 * @param argv the arguments (see --help)
 * @return the exit status (0: everything passed / exact)
 */
int main(int argc, char **argv) {
    return hist_lessons_main(argc, argv, course_lessons, course_lesson_count);
}
