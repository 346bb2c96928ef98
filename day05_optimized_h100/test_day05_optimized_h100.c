/**
 * @file test_day05_optimized_h100.c
 * @brief day05_optimized_h100: the CS149 submission's kernel exactly against the reference on every
 * row count that exercises its unrolled loop and remainder, channel counts divisible by 4 (partial
 *        64-channel groups included), every distribution; and its constraints.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

HIST_DECLARE_REGISTRY(day05);

/* with 512 channels a chunk is rows / 33: 112, 113, 128, 129 and 241 rows per chunk put the
   unrolled loop's first and last full batch on either side of a chunk's end */
static const uint64_t rows[] = {0,   1,        15,       16,       17,       127,      128,
                                129, 33 * 112, 33 * 113, 33 * 128, 33 * 129, 33 * 241, 1000003};
static const uint32_t channels[] = {4, 8, 60, 64, 68, 512, 516, 1024};

static void test_shape_matrix(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    TEST_SKIP_IF_NOT_ON_GPU(&day05_impls[0], dev); /* a T4: the seed's 66 KiB do not fit */
    /* a million rows on up to 68 channels (the main preset, a million rows of 512, is the
       generic tests' case): the matrix stays within a student's minute */
    const test_matrix m = {.rows = rows,
                           .n_rows = sizeof rows / sizeof rows[0],
                           .channels = channels,
                           .n_channels = 8,
                           .max_samples = UINT64_C(1) << 27};
    /* the matrix's other binnings are refused by the constraints: byte binning only */
    int ran = test_matrix_exact(&day05_impls[0], dev, &m, 1);
    print_message("gpu_cs149: %d cases exact\n", ran);
    assert_int_equal(ran, (int)test_matrix_shapes(&m) * 4);
    assert_int_equal(test_matrix_shapes(&m), sizeof rows / sizeof rows[0] * 8 - 3);
}

static void test_constraints_are_clear(void **state) {
    (void)state;
    test_require_written(LESSON_IMPLS, LESSON_IMPL_COUNT, "gpu_cs149");
    const hist_impl *impl = &day05_impls[0];
    hist_problem binned = {100, 8, {1, 100, 20}, 8};
    hist_problem odd = {100, 3, {0, 255, 1}, 8};
    hist_problem wide_bins = {100, 8, {0, 255, 2}, 8};
    hist_problem ok = {100, 516, {0, 255, 1}, 8};
    assert_non_null(strstr(impl->unsupported(&binned, NULL), "byte histogram only"));
    assert_non_null(strstr(impl->unsupported(&wide_bins, NULL), "byte histogram only"));
    assert_non_null(strstr(impl->unsupported(&odd, NULL), "divisible by 4"));
    assert_null(impl->unsupported(&ok, NULL));
    /* the runner lists it as skipped with that reason, and the small-binned preset shows it */
    char out[8192], err[1024];
    char *argv[] = {LESSON_BIN, "--preset", "small-binned", "--reps", "1", NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "skipped: byte histogram only"));
    char *argv3[] = {LESSON_BIN, "--channels", "6", "--rows", "10", "--reps", "1", NULL};
    assert_int_equal(test_run_program(argv3, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "skipped: channels must be divisible by 4"));
}

/* Named with --impl on a problem it cannot take (or on a machine without a GPU): exit 4, one
   line saying why, and no --output file. */
static void test_named_impl_that_cannot_run_fails(void **state) {
    (void)state;
    char out[8192], err[1024], path[128];
    snprintf(path, sizeof path, "%s/out.npy", test_tmp_dir);
    char *argv[] = {LESSON_BIN, "--impl", "gpu_cs149", "--channels", "6",  "--rows",
                    "10",       "--reps", "1",         "--output",   path, NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 4);
    assert_int_equal(test_count_lines(err), 1);
    assert_non_null(strstr(err, "gpu_cs149 could not run"));
    assert_int_equal(access(path, F_OK), -1);
}

/* --require-gpu: on a machine without a GPU, a GPU implementation that would be skipped fails the
   run (exit 4); with a GPU, the run is exact (exit 0). */
static void test_require_gpu(void **state) {
    (void)state;
    test_require_written(LESSON_IMPLS, LESSON_IMPL_COUNT, "gpu_cs149");
    char out[8192], err[1024];
    char *argv[] = {LESSON_BIN, "--require-gpu", "--rows", "10", "--channels",
                    "8",        "--reps",        "1",      NULL};
    const int status = test_run_program(argv, out, sizeof out, err, sizeof err);
    if (test_gpu()) {
        assert_int_equal(status, 0);
    } else {
        assert_int_equal(status, 4);
        assert_non_null(strstr(err, "could not run: no GPU"));
    }
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_matrix),
        cmocka_unit_test(test_constraints_are_clear),
        cmocka_unit_test(test_named_impl_that_cannot_run_fails),
        cmocka_unit_test(test_require_gpu),
    };
    return cmocka_run_group_tests_name("day05_optimized_h100", tests, test_tmp_dir_setup,
                                       test_tmp_dir_teardown);
}
