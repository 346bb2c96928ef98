/**
 * @file day05_optimized_h100/main.c
 * @brief Day 05's program: hands the lesson's implementations to the common runner.
 */
#include "day05.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day05_impls, day05_impl_count);
}
