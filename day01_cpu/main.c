/**
 * @file day01_cpu/main.c
 * @brief Day 01's program: hands the lesson's implementations to the common runner.
 */
#include "day01.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day01_impls, day01_impl_count);
}
