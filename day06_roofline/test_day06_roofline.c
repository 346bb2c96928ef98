/**
 * @file test_day06_roofline.c
 * @brief day06_roofline: every version exactly against the reference on row counts around its
 *        batch sizes, channel counts around its 128-channel groups, every distribution, the main
 *        preset, and counts past 16 bits in one block's counters. Skipped without a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

HIST_DECLARE_REGISTRY(day06);

static const uint64_t rows[] = {0, 1, 7, 31, 32, 33, 1000, 65537, 1000003};
static const uint32_t channels[] = {4, 16, 60, 64, 112, 128, 144, 512, 528, 1024};

static void test_shape_matrix(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const test_matrix m = {rows, 9, channels, 10};
    int *ran = test_counts(day06_impl_count);
    test_registry_on_matrix(day06_impls, day06_impl_count, &m, ran);
    for (size_t i = 0; i < day06_impl_count; ++i) {
        print_message("%s: %d cases exact\n", day06_impls[i].name, ran[i]);
        /* byte binning only; 16-byte versions need channels divisible by 16 (8 of the 10) */
        assert_true(ran[i] == 9 * 10 * 4 || ran[i] == 9 * 8 * 4);
    }
    free(ran);
}

static void test_counts_past_16_bits_per_block(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    /* 3M rows of 512 constant channels: about 91,000 rows per block, all in one counter each */
    hist_dataset d =
        test_data(3000000, 512, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_CONSTANT, 0}, 6);
    test_registry_exact(day06_impls, day06_impl_count, dev, &d);
}

static void test_constraints_are_clear(void **state) {
    (void)state;
    hist_problem binned = {100, 16, {1, 100, 20}};
    hist_problem odd = {100, 6, {0, 255, 1}};
    for (size_t i = 0; i < day06_impl_count; ++i) {
        assert_non_null(strstr(day06_impls[i].unsupported(&binned, NULL), "byte histogram only"));
        assert_non_null(strstr(day06_impls[i].unsupported(&odd, NULL), "divisible by"));
    }
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_matrix),
        cmocka_unit_test(test_counts_past_16_bits_per_block),
        cmocka_unit_test(test_constraints_are_clear),
    };
    return cmocka_run_group_tests_name("day06_roofline", tests, NULL, NULL);
}
