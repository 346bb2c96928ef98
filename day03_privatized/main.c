/**
 * @file day03_privatized/main.c
 * @brief Day 03's program: hands the lesson's implementations to the common runner.
 */
#include "day03.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day03_impls, day03_impl_count);
}
