/**
 * @file test_day08_wide.c
 * @brief day08_wide: the exact 16-bit counters at their boundaries (one block's counter at
 *        65,534, 65,535, 65,536 and 65,537 and past, constant data that wraps every 65,536
 *        samples, two counters of one word wrapping together, the last word's padding half), in
 *        one block; every plan of the final kernel under every emulated GPU; inputs that start 2
 *        to 14 bytes past 16 and at an odd byte; the constraints' words. The GPU's tests skip
 *        without a GPU; the CPU's (cpu_wide16 off every alignment, with more threads than rows)
 *        run everywhere. (The generic tests add the 16-bit shape matrix and presets.)
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

/* Run @p name on @p p (its input at byte @p offset of @p samples; at most @p cap blocks or
   clusters a pass, 0: its plan's) and compare with the reference (test_exact_at()); returns 1 if
   it ran, 0 if its constraints refuse @p p here. */
static int exact_on(const hist_device *dev, const char *name, const hist_problem *p,
                    const uint8_t *samples, size_t offset, uint32_t cap, const char *what) {
    const hist_caps caps = {.blocks = cap};
    return test_exact_at(dev, test_find_impl(day08_impls, day08_impl_count, name), p, samples,
                         offset, &caps, what);
}

/* The kernels whose counters are 16 bits (steps 4 and 6), with one block a pass (or one cluster):
   a block's counter passes 65,535 exactly where the rows say. */
static const char *const packed[] = {"gpu_packed16", "gpu_wide"};

static void test_one_block_boundaries(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
        test_require_written(day08_impls, day08_impl_count, packed[k]);
    static const uint64_t rows[] = {65534, 65535, 65536, 65537, 131071, 131072, 131073, 300001};
    /* one value; two values of one word (bins 2j, 2j + 1) alternating, then in pairs; the last
       two bins; a value and its neighbour word's */
    static const uint32_t one[] = {12345}, pair[] = {4000, 4001},
                          pairs[] = {4000, 4000, 4001, 4001}, last[] = {65534, 65535},
                          spread[] = {7, 8, 9, 7};
    /* a word of 8 equal samples, then that value mixed with its word's other half: the final
       kernel's register counter takes the first, shared memory the second, past 65,535 */
    static const uint32_t hot_low[] = {4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000,
                                       4000, 4001, 4000, 4001, 4000, 4001, 4000, 4001},
                          hot_high[] = {4001, 4001, 4001, 4001, 4001, 4001, 4001, 4001,
                                        4001, 4000, 4001, 4000, 4001, 4000, 4001, 4000};
    static const struct {
        const uint32_t *values;
        size_t count;
        const char *what;
    } data[] = {{one, 1, "constant data"},
                {pair, 2, "the two halves of one word, alternating"},
                {pairs, 4, "the two halves of one word, in pairs"},
                {last, 2, "the last two bins"},
                {spread, 4, "two words, one half of each busier"},
                {hot_low, 16, "a hot value, the high half of its word cold"},
                {hot_high, 16, "a hot value, the low half of its word cold"}};
    int ran = 0;
    for (size_t d = 0; d < sizeof data / sizeof data[0]; ++d)
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
            const hist_problem p = {rows[r], 1, {0, 65535, 1}, 16};
            uint8_t *s = pattern(rows[r], data[d].values, data[d].count);
            for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
                ran += exact_on(dev, packed[k], &p, s, 0, 1, data[d].what);
            free(s);
        }
    /* 65,535 bins: the last word's high half is padding, and the last counter's carries go there */
    const hist_problem odd = {3 * 65536 + 5, 1, {0, 65534, 1}, 16};
    const uint32_t top[] = {65534};
    uint8_t *s = pattern(odd.rows, top, 1);
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
        ran += exact_on(dev, packed[k], &odd, s, 0, 1, "the last counter, beside padding");
    free(s);
    /* 8 channels of one value each: 5 passes of one block */
    const hist_problem eight = {140001, 8, {0, 65535, 1}, 16};
    const uint32_t eight_values[] = {1, 2, 3, 3, 65535, 65534, 40000, 40001};
    s = pattern(hist_samples(&eight), eight_values, 8);
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
        ran += exact_on(dev, packed[k], &eight, s, 0, 1, "8 channels, one value each");
    free(s);
    /* long enough that the lanes' spare words, where the final kernel's hot samples go, pass
       65,535 too */
    const hist_problem hot = {(uint64_t)1 << 22, 1, {0, 65535, 1}, 16};
    s = pattern(hot.rows, hot_high, 16);
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
        ran += exact_on(dev, packed[k], &hot, s, 0, 1, "a hot value, 4 Mi rows");
    free(s);
    /* a hot value with one other sample in every word but one in 64: the final kernel counts
       the hot samples of a mixed word in a word of the thread's own, which passes 65,535 when a
       thread meets some 70,000 of them (80 Mi rows, one block of 1,024 threads) */
    uint32_t own[512];
    for (int j = 0; j < 64; ++j)
        for (int k = 0; k < 8; ++k)
            own[8 * j + k] = j > 0 && k == 1 + j % 7 ? 4000 : 4001;
    const hist_problem many = {(uint64_t)80 << 20, 1, {0, 65535, 1}, 16};
    s = pattern(many.rows, own, 512);
    for (size_t k = 0; k < sizeof packed / sizeof packed[0]; ++k)
        ran +=
            exact_on(dev, packed[k], &many, s, 0, 1, "a hot value, one other a word, 80 Mi rows");
    free(s);
    assert_int_equal(ran, 2 * (7 * 8 + 4));
}

/* Every plan of the final kernel, on the shapes that choose it, under every emulated GPU: the
   current one's (GPU_LIMITS) here; its plan printed. */
static void test_final_plans(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    test_require_written(day08_impls, day08_impl_count, "gpu_wide");
    const hist_impl *wide = test_find_impl(day08_impls, day08_impl_count, "gpu_wide");
    static const struct {
        uint64_t rows;
        uint32_t channels;
        hist_binning binning;
    } shapes[] = {{200003, 1, {0, 65535, 1}}, {100003, 2, {0, 65535, 1}},
                  {70001, 4, {0, 65535, 1}},  {40009, 8, {0, 65535, 1}},
                  {30011, 16, {0, 65535, 1}}, {100003, 5, {0, 65535, 2}},
                  {90001, 3, {17, 60000, 5}}};
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_RUNS, 1000}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        hist_dataset d =
            test_data(shapes[k].rows, shapes[k].channels, shapes[k].binning, dists[0], 800 + k);
        d.problem.bits = 16;
        d.vmax = 65535;
        print_message("%u channels, %u bins: %s\n", d.problem.channels,
                      hist_bins(d.problem.binning), wide->plan(&d.problem, dev));
        for (size_t j = 0; j < sizeof dists / sizeof dists[0]; ++j) {
            d.dist = dists[j];
            uint8_t *s = test_samples(&d);
            assert_int_equal(exact_on(dev, "gpu_wide", &d.problem, s, 0, 0, "a plan's shape"), 1);
            free(s);
        }
    }
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
    for (size_t i = 0; i < day08_impl_count; ++i)
        test_require_written(day08_impls, day08_impl_count, day08_impls[i].name);
    static const size_t offsets[] = {1, 2, 6, 8, 14};
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
        assert_int_equal(hist_generate(&d, s + offsets[o]), HIST_OK);
        for (size_t i = 0; i < day08_impl_count; ++i)
            if (!day08_impls[i].library && day08_impls[i].where == HIST_DEVICE)
                exact_on(dev, day08_impls[i].name, &d.problem, s, offsets[o], 0,
                         "an unaligned input");
    }
    free(s);
}

/* The CPU's version off every alignment (it reads bytes: any address will do), and with more
   threads than rows; no GPU needed. */
static void test_cpu_any_start(void **state) {
    (void)state;
    const hist_impl *cpu = test_find_impl(day08_impls, day08_impl_count, "cpu_wide16");
    test_require_written(day08_impls, day08_impl_count, "cpu_wide16");
    hist_dataset d =
        test_data(20011, 3, (hist_binning){17, 60000, 5}, (hist_dist){HIST_DIST_RUNS, 7}, 79);
    d.problem.bits = 16;
    d.vmax = 65535;
    const size_t bytes = (size_t)hist_input_bytes(&d.problem),
                 counters = (size_t)hist_counters(&d.problem);
    uint8_t *s = malloc(bytes + 16);
    uint32_t *expected = malloc(counters * sizeof(uint32_t)), *got = malloc(counters * 4);
    assert_non_null(s);
    assert_non_null(expected);
    assert_non_null(got);
    for (size_t offset = 0; offset < 16; ++offset) {
        assert_int_equal(hist_generate(&d, s + offset), HIST_OK);
        hist_reference(&d.problem, s + offset, expected);
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(got, 0xAB, counters * sizeof(uint32_t));
            const hist_args a = {&d.problem, s + offset, got, NULL, NULL, threads, {0, 0}};
            assert_int_equal(cpu->run(&a), HIST_OK);
            assert_int_equal(hist_verify(&d.problem, expected, got, 5, stderr), 0);
        }
    }
    /* 5 rows, 8 threads asked for: one thread a row */
    const hist_problem few = {5, 2, {0, 65535, 1}, 16};
    const uint32_t values[] = {65535, 0, 7, 7, 40000};
    uint8_t *f = pattern(hist_samples(&few), values, 5);
    uint32_t *e = malloc(hist_counters(&few) * 4), *g = malloc(hist_counters(&few) * 4);
    assert_non_null(e);
    assert_non_null(g);
    hist_reference(&few, f, e);
    const hist_args a = {&few, f, g, NULL, NULL, 8, {0, 0}};
    assert_int_equal(cpu->run(&a), HIST_OK);
    assert_int_equal(hist_verify(&few, e, g, 5, stderr), 0);
    free(e);
    free(g);
    free(f);
    free(s);
    free(expected);
    free(got);
}

/* Bytes are refused by the GPU steps with words that say what to do; the final kernel has a plan
   on every GPU. */
static void test_constraints_are_clear(void **state) {
    (void)state;
    hist_dataset d;
    assert_int_equal(hist_preset("main", &d), HIST_OK);
    for (size_t i = 0; i < day08_impl_count; ++i) {
        if (day08_impls[i].where == HIST_HOST)
            continue; /* cpu_wide16 counts bytes too */
        const char *why = day08_impls[i].unsupported(&d.problem, NULL);
        assert_non_null(why);
        assert_non_null(strstr(why, "16-bit samples only"));
    }
    hist_device t4;
    hist_device_of_limits(hist_gpu_limits_find("t4"), &t4);
    assert_int_equal(hist_preset("u16x8", &d), HIST_OK);
    const hist_impl *wide = test_find_impl(day08_impls, day08_impl_count, "gpu_wide");
    assert_null(wide->unsupported(&d.problem, &t4)); /* the final kernel has a plan everywhere */
}

/**
 * @brief Runs day 08's own tests.
 * @return the number of failed tests
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_block_boundaries),  cmocka_unit_test(test_final_plans),
        cmocka_unit_test(test_unaligned_input),       cmocka_unit_test(test_cpu_any_start),
        cmocka_unit_test(test_constraints_are_clear),
    };
    return cmocka_run_group_tests_name("day08_wide", tests, NULL, NULL);
}
