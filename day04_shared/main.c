/**
 * @file day04_shared/main.c
 * @brief Day 04's program: hands the lesson's implementations to the common runner.
 */
#include "day04.h"
#include "runner.h"

/** @brief Runs this lesson's implementations through the common runner. */
int main(int argc, char **argv) {
    return hist_main(argc, argv, day04_impls, day04_impl_count);
}
