/**
 * @file test_day04_shared.c
 * @brief day04_shared: every kernel exactly against the reference, on the shape matrix, both
 * presets and adversarial data. Skipped cleanly without a GPU.
 */
#include "test_util.h"

HIST_DECLARE_REGISTRY(day04);

static void test_aggregation_on_long_runs_and_wide_bins(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    /* runs longer than a chunk, runs of 1, samples outside [lo, hi] inside runs, one bin */
    static const hist_dist dists[] = {
        {HIST_DIST_RUNS, 100000}, {HIST_DIST_RUNS, 1}, {HIST_DIST_RUNS, 33}};
    static const hist_binning binnings[] = {{0, 255, 1}, {100, 140, 3}, {0, 255, 256}};
    for (size_t k = 0; k < 3; ++k)
        for (size_t b = 0; b < 3; ++b) {
            hist_dataset d = test_data(300007, 67, binnings[b], dists[k], 11 + k);
            for (size_t i = 0; i < day04_impl_count; ++i)
                assert_true(test_exact(&day04_impls[i], dev, &d, 1));
        }
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregation_on_long_runs_and_wide_bins),
    };
    return cmocka_run_group_tests_name("day04_shared", tests, NULL, NULL);
}
