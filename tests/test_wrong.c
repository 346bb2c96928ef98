/**
 * @file test_wrong.c
 * @brief The lesson tests catch wrong kernels: each deliberately wrong implementation of
 *        tests/wrong/ goes through exactly the checks that judge every lesson
 *        (test_check_registry(): the shape matrix, the adversarial data, both presets) and must
 *        fail them; each cheat (one that keeps an answer across calls) is exact when one input
 *        repeats, as a timing that repeats its input would see it, and must fail the graded timing
 *        (common/fresh.h), which the flawless control passes. The host ones run everywhere (CI);
 *        the device ones need a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fresh.h"
#include "gpu.h"
#include "impl.h"
#include "reference.h"
#include "test_util.h"
#include "wrong/wrong.h"

static void expect_all_caught(const hist_impl *impls, size_t count, const hist_device *dev) {
    const hist_impl **list = calloc(count, sizeof *list);
    test_verdict *v = calloc(count, sizeof *v);
    assert_non_null(list);
    assert_non_null(v);
    for (size_t i = 0; i < count; ++i)
        list[i] = &impls[i];
    test_check_registry(list, count, dev, &TEST_MATRIX_DEFAULT, v);
    int missed = 0;
    for (size_t i = 0; i < count; ++i) {
        if (v[i].failed) { /* the expected outcome: the first line of what the checks said */
            const int first_line = (int)strcspn(v[i].why, "\n");
            print_message("caught, as it must be: %-22s (%s) after %d exact cases: %.*s\n",
                          impls[i].name, impls[i].summary, v[i].cases, first_line, v[i].why);
        } else {
            print_message("MISSED %-22s (%s): exact on all %d cases\n", impls[i].name,
                          impls[i].summary, v[i].cases);
            missed++;
        }
    }
    free(v);
    free(list);
    if (missed)
        fail_msg("%d wrong implementation(s) passed the lesson tests", missed);
}

static void test_host_flaws_are_caught(void **state) {
    (void)state;
    expect_all_caught(wrong_host_impls, wrong_host_impl_count, NULL);
}

static void test_device_flaws_are_caught(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    expect_all_caught(wrong_device_impls, wrong_device_impl_count, dev);
}

/* The cheats' input: small, so that the host ones run in CI in a moment. */
static hist_dataset cheat_data(void) {
    return test_data(4096, 64, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 55);
}

/* One timing of @p impl the way the tests timed before fresh inputs: the same input every call
   (1 warm-up, 3 timed); 1 if the last call's output is exact. */
static int exact_on_repeats(const hist_impl *impl, const hist_device *dev, const hist_problem *p,
                            const uint8_t *samples, const uint32_t *expected, uint32_t *got) {
    if (impl->where == HIST_HOST) {
        assert_int_equal(hist_time_host(impl, p, samples, got, 1, 1, 3, NULL, 0), HIST_OK);
    } else {
        hist_gpu *g = NULL;
        assert_int_equal(hist_gpu_create(&g, dev, p, samples, 0), HIST_OK);
        const hist_status s = hist_gpu_time_impl(g, impl, 1, 3, NULL, NULL, got, 0);
        hist_gpu_destroy(g);
        assert_int_equal(s, HIST_OK);
    }
    return hist_verify(p, expected, got, 0, NULL) == 0;
}

/* The graded timing of @p impl (fresh inputs, 1 warm-up, 3 timed): its status. */
static hist_status graded_timing(const hist_impl *impl, const hist_device *dev, hist_fresh *f,
                                 uint32_t *got) {
    hist_stats t;
    if (impl->where == HIST_HOST) {
        uint8_t *buffer = malloc(hist_fresh_buffer_bytes(f));
        assert_non_null(buffer);
        const hist_status s = hist_time_host_fresh(impl, f, buffer, got, 1, 1, 3, &t);
        free(buffer);
        return s;
    }
    hist_gpu *g = NULL;
    assert_int_equal(hist_gpu_create(&g, dev, &f->problem, f->base, 0), HIST_OK);
    const hist_status s = hist_gpu_time_impl_fresh(g, impl, f, 1, 3, &t, got);
    hist_gpu_destroy(g);
    return s;
}

/* The control passes the graded timing; every cheat is exact on a repeated input and fails it. */
static void expect_cheats_caught(const hist_impl *cheats, size_t count, const hist_impl *control,
                                 const hist_device *dev) {
    const hist_dataset d = cheat_data();
    uint8_t *samples = test_samples(&d);
    const size_t counters = (size_t)hist_counters(&d.problem);
    uint32_t *expected = malloc(counters * sizeof *expected), *got = malloc(counters * sizeof *got);
    assert_non_null(expected);
    assert_non_null(got);
    hist_reference(&d.problem, samples, expected);
    hist_fresh f;
    assert_int_equal(hist_fresh_init(&f, &d.problem, samples, hist_fresh_seed()), HIST_OK);
    if (graded_timing(control, dev, &f, got) != HIST_OK)
        fail_msg("the graded timing refused the control %s: %s", control->name, hist_last_error());
    print_message("passed, as it must: %-24s (%s)\n", control->name, control->summary);
    int missed = 0;
    for (size_t i = 0; i < count; ++i) {
        const int repeats = exact_on_repeats(&cheats[i], dev, &d.problem, samples, expected, got);
        const hist_status s = graded_timing(&cheats[i], dev, &f, got);
        if (s == HIST_ERR_MISMATCH && repeats) {
            print_message("caught, as it must be: %-24s (%s): exact on one repeated input, then "
                          "%s\n",
                          cheats[i].name, cheats[i].summary, hist_last_error());
        } else {
            print_message("MISSED %-24s (%s): %s on one repeated input, graded timing: %s\n",
                          cheats[i].name, cheats[i].summary, repeats ? "exact" : "NOT exact",
                          s == HIST_OK ? "exact" : hist_last_error());
            missed++;
        }
    }
    hist_fresh_free(&f);
    free(samples);
    free(expected);
    free(got);
    if (missed)
        fail_msg("%d cheat(s) were not caught by the graded timing, or were no cheats", missed);
}

static void test_host_cheats_are_caught(void **state) {
    (void)state;
    expect_cheats_caught(wrong_host_cheats, wrong_host_cheat_count, &wrong_host_flawless, NULL);
}

static void test_device_cheats_are_caught(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    expect_cheats_caught(wrong_device_cheats, wrong_device_cheat_count, &wrong_device_flawless,
                         dev);
}

/**
 * @brief Runs the wrong-kernel tests.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_flaws_are_caught),
        cmocka_unit_test(test_device_flaws_are_caught),
        cmocka_unit_test(test_host_cheats_are_caught),
        cmocka_unit_test(test_device_cheats_are_caught),
    };
    return cmocka_run_group_tests_name("the lesson tests catch wrong kernels", tests, NULL, NULL);
}
