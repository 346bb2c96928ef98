/**
 * @file test_day09_clusters.c
 * @brief day09_clusters: step 2's exchange over many tiles, in one cluster (caps.blocks 1: a
 * block's packed counters pass 65,535), and off 16 bytes, beside day 08's final kernel on the same
 *        shapes; every step on inputs that start 2 to 14 bytes past 16 and at an odd byte; the
 *        constraints' words. The GPU's tests skip without a GPU. (The generic tests add the
 *        16-bit shape matrix and presets.)
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

HIST_DECLARE_REGISTRY(day09);
/* day 08's registry (LESSON_USES day08_wide: linked with this lesson): its final kernel beside the
   exchange */
HIST_DECLARE_REGISTRY(day08);

/* 16-bit samples from a pattern: sample i is values[i % count] (little-endian). */
static uint8_t *pattern(uint64_t n, const uint32_t *values, size_t count) {
    uint8_t *s = malloc(n > 0 ? 2 * n : 2);
    assert_non_null(s);
    for (uint64_t i = 0; i < n; ++i) {
        s[2 * i] = (uint8_t)(values[i % count] & 0xFF);
        s[2 * i + 1] = (uint8_t)(values[i % count] >> 8);
    }
    return s;
}

/* The entry @p name of day 09's registry, or else of day 08's. */
static const hist_impl *find(const char *name) {
    for (size_t i = 0; i < day09_impl_count; ++i)
        if (strcmp(day09_impls[i].name, name) == 0)
            return &day09_impls[i];
    return test_find_impl(day08_impls, day08_impl_count, name);
}

/* Run @p name on @p p (its input at byte @p offset of @p samples; at most @p cap blocks or
   clusters a pass, 0: its plan's) and compare with the reference (test_exact_at()); returns 1 if
   it ran, 0 if its constraints refuse @p p here. */
static int exact_on(const hist_device *dev, const char *name, const hist_problem *p,
                    const uint8_t *samples, size_t offset, uint32_t cap, const char *what) {
    const hist_caps caps = {.blocks = cap};
    return test_exact_at(dev, find(name), p, samples, offset, &caps, what);
}

/* Step 2's exchange, beside day 08's final kernel on the same shapes (which took the exchange for
   8 channels until day 09 had it): many tiles over every cluster and a partial last one,
   binnings other than the whole range, the four distributions; then one cluster alone
   (caps.blocks 1), so that a block's counters pass 65,535 (constant data, the two halves of a
   word); and inputs off 16 bytes (day 08's packed plan instead). */
static void test_exchange(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    static const char *const names[] = {"gpu_exchange16", "gpu_wide"};
    test_require_written(day09_impls, day09_impl_count, names[0]);
    test_require_written(day08_impls, day08_impl_count, names[1]);
    const hist_impl *x = test_find_impl(day09_impls, day09_impl_count, "gpu_exchange16");
    static const struct {
        uint64_t rows;
        hist_binning binning;
    } shapes[] = {{2 * 15 * 16384 + 777, {0, 65535, 1}}, /* tiles of 16,384 rows */
                  {200003, {0, 65535, 2}},
                  {100003, {100, 355, 1}},
                  {16383, {0, 65535, 1}}}; /* less than a tile */
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_RUNS, 1000}};
    int ran = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        hist_dataset d = test_data(shapes[k].rows, 8, shapes[k].binning, dists[0], 900 + k);
        d.problem.bits = 16;
        d.vmax = 65535;
        if (k == 0)
            print_message("gpu_exchange16: %s\n", x->plan(&d.problem, dev));
        for (size_t j = 0; j < sizeof dists / sizeof dists[0]; ++j) {
            d.dist = dists[j];
            uint8_t *s = test_samples(&d);
            for (size_t n = 0; n < 2; ++n)
                ran += exact_on(dev, names[n], &d.problem, s, 0, 0, "8 channels");
            free(s);
        }
    }
    /* a cap of 1 below: one cluster, each block counting its channel's every sample */
    static const uint32_t one[] = {12345, 1, 2, 65535, 0, 40000, 40001, 7},
                          halves[] = {4000, 4001, 4001, 4000, 4000, 4001, 65534, 65535,
                                      4001, 4000, 4000, 4001, 4001, 4000, 65535, 65534};
    const hist_problem big = {300001, 8, {0, 65535, 1}, 16};
    uint8_t *s = pattern(hist_samples(&big), one, 8);
    for (size_t n = 0; n < 2; ++n)
        ran += exact_on(dev, names[n], &big, s, 0, 1, "one cluster, a value a channel");
    free(s);
    s = pattern(hist_samples(&big), halves, 16);
    for (size_t n = 0; n < 2; ++n)
        ran += exact_on(dev, names[n], &big, s, 0, 1, "one cluster, a word's halves alternating");
    free(s);
    hist_dataset d =
        test_data(50001, 8, (hist_binning){0, 65535, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 78);
    d.problem.bits = 16;
    d.vmax = 65535;
    s = malloc((size_t)hist_input_bytes(&d.problem) + 16);
    assert_non_null(s);
    static const size_t offsets[] = {1, 2, 8};
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
        assert_int_equal(hist_generate(&d, s + offsets[o]), HIST_OK);
        for (size_t n = 0; n < 2; ++n)
            ran += exact_on(dev, names[n], &d.problem, s, offsets[o], 0, "8 channels, unaligned");
    }
    free(s);
    if (x->unsupported(&big, dev) == NULL)
        assert_int_equal(ran, 2 * (4 * 4 + 2 + 3));
    else /* no clusters here (or emulated): the final kernel alone, on its other plan */
        assert_int_equal(ran, 4 * 4 + 2 + 3);
}

/* Inputs that do not start on 16 bytes: 2 .. 14 bytes past, and an odd byte (no aligned load). */
static void test_unaligned_input(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    hist_dataset d =
        test_data(100003, 3, (hist_binning){0, 65535, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 77);
    d.problem.bits = 16;
    d.vmax = 65535;
    const size_t bytes = (size_t)hist_input_bytes(&d.problem);
    uint8_t *s = malloc(bytes + 16);
    assert_non_null(s);
    for (size_t i = 0; i < day09_impl_count; ++i)
        test_require_written(day09_impls, day09_impl_count, day09_impls[i].name);
    static const size_t offsets[] = {1, 2, 6, 8, 14};
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
        assert_int_equal(hist_generate(&d, s + offsets[o]), HIST_OK);
        for (size_t i = 0; i < day09_impl_count; ++i)
            exact_on(dev, day09_impls[i].name, &d.problem, s, offsets[o], 0, "an unaligned input");
    }
    free(s);
}

/* Bytes are refused with words that say what to do; clusters say which GPUs have them. */
static void test_constraints_are_clear(void **state) {
    (void)state;
    hist_dataset d;
    assert_int_equal(hist_preset("main", &d), HIST_OK);
    for (size_t i = 0; i < day09_impl_count; ++i) {
        const char *why = day09_impls[i].unsupported(&d.problem, NULL);
        assert_non_null(why);
        assert_non_null(strstr(why, "16-bit samples only"));
    }
    hist_device t4;
    hist_device_of_limits(hist_gpu_limits_find("t4"), &t4);
    assert_int_equal(hist_preset("u16", &d), HIST_OK);
    const hist_impl *c2 = test_find_impl(day09_impls, day09_impl_count, "gpu_cluster2_16");
    const char *why = c2->unsupported(&d.problem, &t4);
    assert_non_null(why);
    assert_non_null(strstr(why, "compute capability 9.0"));
    const hist_impl *x = test_find_impl(day09_impls, day09_impl_count, "gpu_exchange16");
    why = x->unsupported(&d.problem, NULL);
    assert_non_null(why);
    assert_non_null(strstr(why, "8 channels only"));
    assert_int_equal(hist_preset("u16x8", &d), HIST_OK);
    assert_null(x->unsupported(&d.problem, NULL));
    why = x->unsupported(&d.problem, &t4);
    assert_non_null(why);
    assert_non_null(strstr(why, "compute capability 9.0"));
}

/**
 * @brief Runs day 09's own tests.
 * @return the number of failed tests
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exchange),
        cmocka_unit_test(test_unaligned_input),
        cmocka_unit_test(test_constraints_are_clear),
    };
    return cmocka_run_group_tests_name("day09_clusters", tests, NULL, NULL);
}
