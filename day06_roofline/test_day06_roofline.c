/**
 * @file test_day06_roofline.c
 * @brief day06_roofline: every version exactly against the reference on row counts around its
 *        batch sizes, channel counts around its 128-channel groups, every distribution, the main
 *        preset, and counts past 16 bits in one block's counters; the final kernel on every
 *        channel count near a word or a group boundary, 4,096 channels and more, every binning,
 *        and inputs that start 1 to 33 bytes past a sector; step 9 on one channel of every size
 *        up to its limit. Skipped without a GPU. (The CS149
 *        submission, built by PyTorch, has its own target: make test-submission.)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_limits.h"
#include "reference.h"
#include "test_util.h"

HIST_DECLARE_REGISTRY(day06);

/* Steps 7 and 8 (the final kernel) take every shape and binning; steps 1-6 do not. */
static int any_shape(const char *name) {
    return strcmp(name, "gpu_r6_v7_any_shape") == 0 || strcmp(name, "gpu_roofline") == 0;
}

/* Step 9 takes one channel of a few megabytes, any binning (its own tests, below). */
static int small_only(const char *name) {
    return strcmp(name, "gpu_r6_v9_small") == 0;
}

static const uint64_t rows[] = {0, 1, 7, 31, 32, 33, 1000, 65537, 100003};
static const uint32_t channels[] = {4, 16, 60, 64, 112, 128, 144, 512, 528, 1024};

static void test_shape_matrix(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    /* up to 64 Mi samples: 100,003 rows of 528 channels (five groups), not 65,537 or 100,003 of
       1,024 (the main preset, a million rows of 512, is the generic tests' case) */
    const test_matrix m = {rows, 9, channels, 10, UINT64_C(1) << 26, {0, 0}};
    const int shapes = (int)test_matrix_shapes(&m);
    assert_int_equal(shapes, 9 * 10 - 2);
    int *ran = test_counts(day06_impl_count);
    test_registry_on_matrix(day06_impls, day06_impl_count, &m, ran);
    for (size_t i = 0; i < day06_impl_count; ++i) {
        const char *not_here = test_not_on_gpu(&day06_impls[i], dev);
        print_message("%s: %d cases exact%s%s\n", day06_impls[i].name, ran[i],
                      not_here ? "; not on this GPU: " : "", not_here ? not_here : "");
        /* steps 1-6: byte binning only, 16-byte loads need channels divisible by 16 (8 of the
           10); steps 7 and 8: every binning (3) of every case; none where the GPU is too small
           for steps 1-6 (the final kernel has a plan for every GPU) */
        if ((not_here && !any_shape(day06_impls[i].name)) || small_only(day06_impls[i].name))
            assert_int_equal(ran[i], 0); /* step 9: none of these has one channel */
        else if (any_shape(day06_impls[i].name))
            assert_int_equal(ran[i], shapes * 4 * 3);
        else /* all shapes, or those whose channels divide by 16 (all but 4 and 60) */
            assert_true(ran[i] == shapes * 4 || ran[i] == (shapes - 2 * 9) * 4);
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
    hist_problem binned = {100, 16, {1, 100, 20}, 8};
    hist_problem odd = {100, 6, {0, 255, 1}, 8};
    for (size_t i = 0; i < day06_impl_count; ++i) {
        if (any_shape(day06_impls[i].name)) { /* takes both */
            assert_null(day06_impls[i].unsupported(&binned, NULL));
            assert_null(day06_impls[i].unsupported(&odd, NULL));
            continue;
        }
        if (small_only(day06_impls[i].name)) { /* one channel, any binning, a few megabytes */
            assert_non_null(strstr(day06_impls[i].unsupported(&binned, NULL), "one channel"));
            hist_problem one = {100, 1, {1, 100, 20}, 8},
                         big = {(16u << 20) + 1, 1, {0, 255, 1}, 8};
            assert_null(day06_impls[i].unsupported(&one, NULL));
            assert_non_null(strstr(day06_impls[i].unsupported(&big, NULL), "at most 16 MiB"));
            continue;
        }
        assert_non_null(strstr(day06_impls[i].unsupported(&binned, NULL), "byte histogram only"));
        assert_non_null(strstr(day06_impls[i].unsupported(&odd, NULL), "divisible by"));
    }
}

/* --output without --impl holds the first implementation's result: where that one cannot run
   (step 1 refuses a binned problem; without a GPU, all do), one line says which and why, exit 4,
   and no file. */
static void test_output_of_a_first_that_cannot_run(void **state) {
    (void)state;
    char out[16384], err[1024], path[128];
    snprintf(path, sizeof path, "%s/binned.npy", test_tmp_dir);
    char *argv[] = {LESSON_BIN, "--rows",  "10", "--channels", "4", "--lo",     "1",  "--hi",
                    "100",      "--width", "20", "--reps",     "1", "--output", path, NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 4);
    assert_int_equal(test_count_lines(err), 1);
    assert_non_null(strstr(err, "gpu_r6_v1_conflict_free, the first implementation of the list, "
                                "did not run"));
    assert_int_equal(access(path, F_OK), -1);
}

/* The final kernel's plan on every GPU of the limits table (no GPU needed): the largest block
   the GPU's shared memory holds, and it runs everywhere. */
static void test_final_plan_per_gpu(void **state) {
    (void)state;
    const hist_impl *final = test_find_impl(day06_impls, day06_impl_count, "gpu_roofline");
    static const struct {
        const char *gpu, *plan;
    } want[] = {{"t4", "32 channels per block"},      {"a100", "128 channels per block"},
                {"l4", "64 channels per block"},      {"rtx3090", "64 channels per block"},
                {"rtx4090", "64 channels per block"}, {"rtx5090", "64 channels per block"},
                {"h100", "128 channels per block"},   {"h200", "128 channels per block"},
                {"b200", "128 channels per block"}};
    hist_problem p = {1048576, 512, {0, 255, 1}, 8};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const hist_gpu_limits *l = hist_gpu_limits_find(want[i].gpu);
        assert_non_null(l);
        hist_device dev;
        hist_device_of_limits(l, &dev);
        assert_null(final->unsupported(&p, &dev));
        const char *plan = final->plan(&p, &dev);
        print_message("%-8s %s\n", want[i].gpu, plan);
        assert_non_null(strstr(plan, want[i].plan));
        /* its shared memory fits the GPU's block limit */
        const char *bytes = strstr(plan, "SM, ");
        assert_non_null(bytes);
        assert_true(strtoul(bytes + 4, NULL, 10) <= l->smem_per_block_optin);
    }
    /* the A100's 163 KiB hold 128 channels only with half the flush buffer */
    hist_device a100;
    hist_device_of_limits(hist_gpu_limits_find("a100"), &a100);
    assert_non_null(strstr(final->plan(&p, &a100), "32 bins a round"));
}

/* Steps 1-6 on every GPU of the limits table (no GPU needed): 128 channels per block where the
   GPU's shared memory per block holds 164,352 bytes, else 64 or 32; they run everywhere. */
static void test_step_plan_per_gpu(void **state) {
    (void)state;
    static const struct {
        const char *gpu;
        int channels;
    } want[] = {{"t4", 32},      {"a100", 128}, {"l4", 64},    {"rtx3090", 64}, {"rtx4090", 64},
                {"rtx5090", 64}, {"h100", 128}, {"h200", 128}, {"b200", 128}};
    const hist_problem p = {1048576, 512, {0, 255, 1}, 8};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        hist_device dev;
        hist_device_of_limits(hist_gpu_limits_find(want[i].gpu), &dev);
        for (size_t k = 0; k < day06_impl_count; ++k) {
            if (any_shape(day06_impls[k].name) || strstr(day06_impls[k].name, "prefetch") ||
                small_only(day06_impls[k].name))
                continue; /* the final kernel's plans: above; step 3: Hopper only; step 9: one
                             channel (its own tests) */
            assert_null(day06_impls[k].unsupported(&p, &dev));
            const char *plan = day06_impls[k].plan(&p, &dev);
            if (strtol(plan, NULL, 10) != want[i].channels)
                fail_msg("%s on %s: %s, not %d channels per block", day06_impls[k].name,
                         want[i].gpu, plan, want[i].channels);
        }
    }
}

/* The final kernel: rows around its ends (the first and last rows of an unaligned input are
   counted a byte at a time), channels around words and balanced groups, many groups. */
static const uint64_t final_rows[] = {2, 3, 5, 9, 33, 4099};
static const uint32_t final_channels[] = {2, 5, 6, 7, 127, 129, 255, 257, 383, 510, 4093, 4096};

static void test_final_any_shape(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *final = test_find_impl(day06_impls, day06_impl_count, "gpu_roofline");
    const test_matrix m = {final_rows, 6, final_channels, 12, 0, {0, 0}};
    const int ran = test_matrix_exact(final, dev, &m, 2);
    print_message("gpu_roofline: %d more cases exact\n", ran);
    assert_int_equal(ran, 6 * 12 * 4 * 3); /* nothing skipped */
    /* many channel groups, fewer rows than blocks */
    static const uint64_t wide_rows[] = {1, 3, 100};
    static const uint32_t wide_channels[] = {16384, 16387};
    const test_matrix wide = {wide_rows, 3, wide_channels, 2, 0, {0, 0}};
    assert_int_equal(test_matrix_exact(final, dev, &wide, 2), 3 * 2 * 4 * 3);
}

/* An input that does not start on a word or a 32-byte sector (a caller's pointer into a larger
   buffer). */
static void test_final_unaligned_input(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *final = test_find_impl(day06_impls, day06_impl_count, "gpu_roofline");
    static const uint64_t rows[] = {1, 2, 7, 1000, 65537};
    static const uint32_t channels[] = {1, 3, 4, 64, 65, 512, 513};
    static const hist_binning binnings[] = {{0, 255, 1}, {1, 100, 20}};
    int cases = 0;
    for (size_t r = 0; r < 5; ++r)
        for (size_t c = 0; c < 7; ++c)
            for (size_t b = 0; b < 2; ++b) {
                hist_dataset d = test_data(rows[r], channels[c], binnings[b],
                                           (hist_dist){HIST_DIST_UNIFORM, 0}, 100 + cases);
                uint8_t *samples = test_samples(&d);
                const size_t n = hist_counters(&d.problem);
                uint32_t *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
                assert_non_null(want);
                assert_non_null(got);
                hist_reference_parallel(&d.problem, samples, want);
                static const size_t offsets[] = {1, 2, 3, 4, 17, 31, 32, 33};
                for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
                    const size_t offset = offsets[o];
                    memset(got, 0, n * sizeof *got);
                    if (hist_gpu_run_offset(dev, final, &d.problem, samples, offset, NULL, got) !=
                        HIST_OK)
                        fail_msg("%s", hist_last_error());
                    if (memcmp(want, got, n * sizeof *got) != 0)
                        fail_msg("gpu_roofline differs: %llu x %u, binning %u..%u/%u, input %zu "
                                 "bytes past a word",
                                 (unsigned long long)rows[r], channels[c], binnings[b].lo,
                                 binnings[b].hi, binnings[b].width, offset);
                    ++cases;
                }
                free(want);
                free(got);
                free(samples);
            }
    print_message("gpu_roofline: exact on %d cases with unaligned inputs\n", cases);
}

/* Step 9 and the final kernel on one channel: sizes around a word, a block's share and GPU
   MODE's, up to the plan's limit and one byte past it (where the final kernel takes step 8),
   every distribution and binning, one after another on grids of every size (the gate word must
   come back to its start after each); then inputs that start 1 to 17 bytes past a word. */
static void test_small_inputs(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *small = test_find_impl(day06_impls, day06_impl_count, "gpu_r6_v9_small");
    const hist_impl *final = test_find_impl(day06_impls, day06_impl_count, "gpu_roofline");
    static const uint64_t sizes[] = {
        0,    1,    15,     16,      17,      31,          8191, /* a block: 8 KiB (small.cuh) */
        8192, 8193, 100003, 1310720, 2621440, (16u << 20), (16u << 20) + 1};
    static const uint32_t one[] = {1};
    const test_matrix m = {sizes, 14, one, 1, 0, {0, 0}};
    const int ran = test_matrix_exact(small, dev, &m, 2);
    print_message("gpu_r6_v9_small: %d cases exact\n", ran);
    assert_int_equal(ran, 13 * 4 * 3); /* all but the size past its limit */
    assert_int_equal(test_matrix_exact(final, dev, &m, 2), 14 * 4 * 3);
    static const uint64_t odd[] = {1, 15, 100003, 1310720};
    static const size_t offsets[] = {1, 3, 15, 17};
    for (size_t r = 0; r < 4; ++r) {
        hist_dataset d = test_data(odd[r], 1, (hist_binning){0, 255, 1},
                                   (hist_dist){HIST_DIST_CONTENTION, 90}, 200 + r);
        uint8_t *samples = test_samples(&d);
        uint32_t want[256], got[256];
        hist_reference_parallel(&d.problem, samples, want);
        for (size_t o = 0; o < 4; ++o) {
            memset(got, 0, sizeof got);
            if (hist_gpu_run_offset(dev, small, &d.problem, samples, offsets[o], NULL, got) !=
                HIST_OK)
                fail_msg("%s", hist_last_error());
            if (memcmp(want, got, sizeof got) != 0)
                fail_msg("gpu_r6_v9_small differs: %llu bytes starting %zu past a word",
                         (unsigned long long)odd[r], offsets[o]);
        }
        free(samples);
    }
    /* the final kernel says which plan it took */
    const hist_problem pmpp = {1310720, 1, {0, 255, 1}, 8},
                       main_preset = {1048576, 512, {0, 255, 1}, 8};
    assert_non_null(strstr(final->plan(&pmpp, dev), "step 9"));
    assert_null(strstr(final->plan(&main_preset, dev), "step 9"));
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
        cmocka_unit_test(test_output_of_a_first_that_cannot_run),
        cmocka_unit_test(test_final_plan_per_gpu),
        cmocka_unit_test(test_step_plan_per_gpu),
        cmocka_unit_test(test_final_any_shape),
        cmocka_unit_test(test_final_unaligned_input),
        cmocka_unit_test(test_small_inputs),
    };
    return cmocka_run_group_tests_name("day06_roofline", tests, NULL, NULL);
}
