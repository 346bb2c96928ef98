/**
 * @file day02_naive/main.c
 * @brief Day 02's program: hands the lesson's implementations to the common runner.
 */
#include "day02.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day02_impls, day02_impl_count);
}
