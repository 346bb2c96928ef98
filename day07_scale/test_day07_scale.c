/**
 * @file test_day07_scale.c
 * @brief day07_scale: every pipeline exactly against the reference with chunks so small that
 *        row counts never divide into them (1 byte to 64 KiB: one row a chunk, rows that straddle
 *        no chunk, a short last chunk), on 0, 1 and odd row counts and channel counts 1 to 4,096
 *        under three binnings; the multi-GPU step on every GPU count 1 .. visible (shares that
 *        differ by a row); `make gpus` exact on every GPU count; and, on any machine, the refusal
 *        of data larger than host memory before anything is allocated (the runner and `bigger`).
 *        GPU tests skip without a GPU (fail with REQUIRE_GPU=1).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "gpu_limits.h"
#include "impl.h"
#include "reference.h"
#include "test_util.h"

HIST_DECLARE_REGISTRY(day07);

/** @brief pipeline.cu's chunk size (bytes), which these tests make small. */
extern size_t day07_chunk_bytes;
/** @brief pipeline.cu's step 4 on GPUs 0 .. n-1. */
extern hist_status day07_gpus_host(const hist_args *a, int n);

/** @brief The folder of the lesson's programs (bigger, gpus), next to its own binary. */
static void program_path(char *out, size_t len, const char *name) {
    snprintf(out, len, "%s", LESSON_BIN);
    char *slash = strrchr(out, '/');
    snprintf(slash + 1, len - (size_t)(slash + 1 - out), "%s", name);
}

static const uint64_t rows[] = {0, 1, 2, 7, 1000, 65537};
static const uint32_t channels[] = {1, 3, 63, 65, 513, 4096};

/** @brief The pipelines that cut the rows into chunks (the others copy the input whole, so the
 *  chunk size means nothing to them: the generic tests cover them). */
static const char *const chunked[] = {"pipe_streams", "pipe_copy_stream", "gpus_nccl"};

/* Every chunked pipeline on the shapes above (the first @p n_rows row counts) of at most
   @p max_chunks chunks (a launch each), every binning and distribution of the matrix, with a chunk
   size of @p chunk bytes. */
static void pipelines_exact_with_chunks(size_t chunk, size_t n_rows, uint64_t max_chunks) {
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const size_t n = sizeof chunked / sizeof chunked[0];
    const hist_impl *list[sizeof chunked / sizeof chunked[0]];
    for (size_t i = 0; i < n; ++i)
        list[i] = test_find_impl(day07_impls, day07_impl_count, chunked[i]);
    const size_t saved = day07_chunk_bytes;
    day07_chunk_bytes = chunk;
    const test_matrix m = {rows, n_rows, channels, 6, chunk * max_chunks};
    int *ran = test_counts(n);
    test_matrix_exact_all(list, n, dev, &m, 2, ran);
    day07_chunk_bytes = saved;
    for (size_t i = 0; i < n; ++i)
        print_message("%-16s %d cases exact with %zu-byte chunks\n", chunked[i], ran[i], chunk);
    assert_true(ran[0] > 0); /* pipe_streams accepts every case */
    free(ran);
}

static void test_one_row_per_chunk(void **state) {
    (void)state;
    pipelines_exact_with_chunks(1, 5, 0); /* up to 1,000 rows: a launch per row */
}

static void test_chunks_rows_never_divide(void **state) {
    (void)state;
    /* rows per chunk 4099, 1366, 65, 63, 7, 1; up to 2,048 chunks (65,537 rows of 65 channels,
       1,000 of 4,096) */
    pipelines_exact_with_chunks(4099, 6, 2048);
}

static void test_chunks_of_64_kib(void **state) {
    (void)state;
    pipelines_exact_with_chunks(65536, 6, 1024); /* 65,537 rows of 513 channels, not 4,096 */
}

/* Step 4 on each GPU count: shares of rows * i / n rows differ by one where n does not divide. */
static void test_every_gpu_count(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *impl = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    hist_dataset d =
        test_data(100003, 65, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_CONTENTION, 90}, 7);
    const char *why = hist_impl_unsupported(impl, &d.problem, dev);
    if (why) {
        if (test_gpu_required())
            fail_msg("REQUIRE_GPU=1 but gpus_nccl cannot run: %s", why);
        print_message("skipped: %s\n", why);
        skip();
    }
    const int visible = hist_gpu_count();
    uint8_t *samples = test_samples(&d);
    const size_t bytes = (size_t)hist_samples(&d.problem);
    const size_t counters = (size_t)hist_counters(&d.problem);
    void *pinned;
    assert_int_equal(hist_host_pinned_alloc(&pinned, bytes), HIST_OK);
    memcpy(pinned, samples, bytes);
    uint32_t *expected = malloc(counters * sizeof *expected), *got = malloc(counters * sizeof *got);
    assert_non_null(expected);
    assert_non_null(got);
    hist_reference_parallel(&d.problem, samples, expected);
    for (int n = 1; n <= visible && n <= 16; ++n) {
        const size_t saved = day07_chunk_bytes;
        day07_chunk_bytes = 100000; /* several chunks per GPU */
        memset(got, 0xAB, counters * sizeof *got);
        const hist_args a = {&d.problem, pinned, got, NULL, dev, 1};
        const hist_status s = day07_gpus_host(&a, n);
        day07_chunk_bytes = saved;
        if (s != HIST_OK)
            fail_msg("gpus_nccl on %d GPUs: %s", n, hist_last_error());
        if (hist_verify(&d.problem, expected, got, 5, stderr) != 0)
            fail_msg("gpus_nccl on %d GPUs is not exact", n);
        print_message("gpus_nccl exact on %d of %d GPUs\n", n, visible);
    }
    hist_host_pinned_free(pinned);
    free(samples);
    free(expected);
    free(got);
}

/* make gpus: every GPU count, data on the GPUs and on the host, exact (it checks itself). */
static void test_gpus_program(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    (void)dev;
    hist_problem p = {1, 1, {0, 255, 1}};
    const hist_impl *gpus = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    const char *why = gpus->unsupported(&p, dev);
    if (why) {
        if (test_gpu_required())
            fail_msg("REQUIRE_GPU=1 but gpus_nccl cannot run: %s", why);
        print_message("skipped: %s\n", why);
        skip();
    }
    char path[1024], out[8192], err[2048];
    program_path(path, sizeof path, "gpus");
    char *argv[] = {path, "--reps", "2", NULL};
    const int rc = test_run_program(argv, out, sizeof out, err, sizeof err);
    print_message("%s", out);
    if (rc != 0)
        fail_msg("gpus exited with %d: %s", rc, err);
    assert_null(strstr(out, "MISMATCH"));
}

/* More data than this machine's memory: refused with a clear message before any allocation,
   by the runner and by `make bigger`. Runs everywhere (no GPU needed). */
static void test_larger_than_host_memory_refused(void **state) {
    (void)state;
    char out[4096], err[2048];
    char *runner[] = {LESSON_BIN, "--rows", "4294967295", "--channels", "4096", NULL};
    assert_int_equal(test_run_program(runner, out, sizeof out, err, sizeof err), 3);
    assert_non_null(strstr(err, "of host memory"));
    assert_non_null(strstr(err, "nothing was allocated"));
    char path[1024];
    program_path(path, sizeof path, "bigger");
    char *bigger[] = {path, "--gib", "4000", NULL};
    assert_int_equal(test_run_program(bigger, out, sizeof out, err, sizeof err), 3);
    assert_non_null(strstr(err, "GiB of host memory"));
    char *bad[] = {path, "--gib", "0", NULL};
    assert_int_equal(test_run_program(bad, out, sizeof out, err, sizeof err), 2);
}

/* Without NCCL at build time, step 4 says so, with the command that installs it. */
static void test_missing_nccl_is_explained(void **state) {
    (void)state;
    hist_problem p = {1, 1, {0, 255, 1}};
    const hist_impl *gpus = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    const char *why = gpus->unsupported(&p, NULL);
    if (why) {
        assert_non_null(strstr(why, HIST_NOT_BUILT));
        assert_non_null(strstr(why, "pip install nvidia-nccl-cu13"));
    }
    /* the steps that hold the whole input refuse what is larger than half the GPU; step 3 not */
    hist_device small; /* an H100 of the limits table with 1 GiB of memory */
    hist_device_of_limits(hist_gpu_limits_find("h100"), &small);
    small.global_bytes = (size_t)1 << 30;
    hist_problem big = {(uint64_t)1 << 20, 1024, {0, 255, 1}}; /* 1 GiB */
    const char *whole[] = {"pipe_pageable", "pipe_pinned"};
    const char *chunked[] = {"pipe_streams", "pipe_copy_stream"};
    for (int i = 0; i < 2; ++i) {
        assert_non_null(
            test_find_impl(day07_impls, day07_impl_count, whole[i])->unsupported(&big, &small));
        assert_null(
            test_find_impl(day07_impls, day07_impl_count, chunked[i])->unsupported(&big, &small));
    }
}

/**
 * @brief Runs the day 07 tests.
 * @return the number of failed tests
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row_per_chunk),
        cmocka_unit_test(test_chunks_rows_never_divide),
        cmocka_unit_test(test_chunks_of_64_kib),
        cmocka_unit_test(test_every_gpu_count),
        cmocka_unit_test(test_gpus_program),
        cmocka_unit_test(test_larger_than_host_memory_refused),
        cmocka_unit_test(test_missing_nccl_is_explained),
    };
    return cmocka_run_group_tests_name("day07_scale: pipelines, GPUs, memory", tests, NULL, NULL);
}
