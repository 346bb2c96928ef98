/**
 * @file day06_roofline/main.c
 * @brief Day 06's program: hands the lesson's implementations to the common runner.
 */
#include "day06.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day06_impls, day06_impl_count);
}
