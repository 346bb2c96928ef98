/**
 * @file lesson_main.c
 * @brief Every lesson's program: built once per lesson folder with `HIST_LESSON` (e.g. `day04`)
 *        and `HIST_LESSON_FOLDER` (e.g. `"day04_shared"`), it hands the lesson's registry to the
 *        common runner. A lesson has no `main.c` of its own (docs/LESSON_CONTRACT.md).
 */
#include "runner.h"

#ifndef HIST_LESSON
#error "build with -DHIST_LESSON=dayNN -DHIST_LESSON_FOLDER='\"dayNN_name\"' (the Makefile does)"
#endif

HIST_DECLARE_REGISTRY(HIST_LESSON);

/**
 * @brief Runs this lesson's implementations through the common runner.
 * @param argc argument count
 * @param argv the arguments (see --help)
 * @return the exit status (0: everything passed / exact)
 */
int main(int argc, char **argv) {
    const hist_lesson lesson = {HIST_LESSON_FOLDER, HIST_PASTE(HIST_LESSON, _impls),
                                &HIST_PASTE(HIST_LESSON, _impl_count)};
    return hist_lessons_main(argc, argv, &lesson, 1);
}
