/**
 * @file test_day03_privatized.c
 * @brief day03_privatized: every kernel exactly against the reference, on the shape matrix, both
 * presets and adversarial data. Skipped cleanly without a GPU.
 */
#include "test_util.h"

HIST_DECLARE_REGISTRY(day03);

static void test_private_copies_fit_the_budget(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *impl = &day03_impls[0];
    hist_problem main_shape = {1048576, 512, {0, 255, 1}, 8};
    hist_problem wide = {10, 262144, {0, 255, 1}, 8};
    const size_t copy = 512 * 256 * sizeof(uint32_t);
    size_t main_ws = impl->workspace_bytes(&main_shape, dev);
    assert_int_equal(main_ws % copy, 0);
    assert_true(main_ws / copy >= 1 && main_ws <= (size_t)1 << 30);
    assert_true(impl->workspace_bytes(&wide, dev) <= (size_t)1 << 30);
    /* the widest shape still runs exactly with its few copies */
    hist_dataset d =
        test_data(300, 262144, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 3);
    for (size_t i = 0; i < day03_impl_count; ++i)
        assert_true(test_exact(&day03_impls[i], dev, &d, 1));
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_private_copies_fit_the_budget),
    };
    return cmocka_run_group_tests_name("day03_privatized", tests, NULL, NULL);
}
