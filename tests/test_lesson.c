/**
 * @file test_lesson.c
 * @brief The generic tests of one lesson, built once per lesson folder (`HIST_LESSON=dayNN`):
 *        its registry keeps the contract, and every implementation is exact, within its declared
 *        constraints, on the shape matrix (rows 0, 1, 7, 1000, 65537; channels 1, 3, 4, 63, 64,
 *        65, 512, 513; four distributions; three binnings) and on both presets under every
 *        distribution. GPU implementations skip without a GPU (fail with REQUIRE_GPU=1); every
 *        implementation that can run must run at least one case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "test_util.h"

static const hist_lesson lesson = {HIST_LESSON_FOLDER, LESSON_IMPLS, &LESSON_IMPL_COUNT};

static void test_registry_keeps_the_contract(void **state) {
    (void)state;
    if (hist_check_lessons(&lesson, 1) != HIST_OK)
        fail_msg("%s", hist_last_error());
    /* the lesson's program lists every entry */
    char out[16384], err[1024];
    char *argv[] = {LESSON_BIN, "--list", NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 0);
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        assert_non_null(strstr(out, LESSON_IMPLS[i].name));
}

/* Each implementation ran some cases, and says how many. */
static void report(const char *what, const int *ran) {
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
        print_message("%-24s %4d cases exact (%s)\n", LESSON_IMPLS[i].name, ran[i], what);
        if (ran[i] == 0)
            fail_msg("%s ran no case of the %s: its constraints refuse them all",
                     LESSON_IMPLS[i].name, what);
    }
}

/* Skip (or fail with REQUIRE_GPU=1) before allocating when the lesson needs a GPU and has none. */
static void require_gpu_if_needed(void) {
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        if (LESSON_IMPLS[i].where == HIST_DEVICE) {
            const hist_device *dev;
            TEST_REQUIRE_GPU(dev);
            return;
        }
}

static void test_shape_matrix(void **state) {
    (void)state;
    require_gpu_if_needed();
    int *ran = test_counts(LESSON_IMPL_COUNT);
    test_registry_on_matrix(LESSON_IMPLS, LESSON_IMPL_COUNT, &TEST_MATRIX_DEFAULT, ran);
    report("shape matrix", ran);
    free(ran);
}

static void test_presets_every_distribution(void **state) {
    (void)state;
    require_gpu_if_needed();
    int *ran = test_counts(LESSON_IMPL_COUNT);
    test_registry_on_presets(LESSON_IMPLS, LESSON_IMPL_COUNT, ran);
    report("presets", ran);
    free(ran);
}

/** @brief Runs the generic tests of the lesson this file was built for. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_keeps_the_contract),
        cmocka_unit_test(test_shape_matrix),
        cmocka_unit_test(test_presets_every_distribution),
    };
    return cmocka_run_group_tests_name(HIST_LESSON_FOLDER ": every implementation", tests, NULL,
                                       NULL);
}
