/**
 * @file test_wrong.c
 * @brief The lesson tests catch wrong kernels: each deliberately wrong implementation of
 *        tests/wrong/ goes through exactly the checks that judge every lesson
 *        (test_check_registry(): the shape matrix, the adversarial data, both presets) and must
 *        fail them. The host ones run everywhere (CI); the device ones need a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/**
 * @brief Runs the wrong-kernel tests.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_flaws_are_caught),
        cmocka_unit_test(test_device_flaws_are_caught),
    };
    return cmocka_run_group_tests_name("the lesson tests catch wrong kernels", tests, NULL, NULL);
}
