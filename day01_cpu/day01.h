/**
 * @file day01.h
 * @brief Day 01's implementations: the CPU reference loop and the privatized CPU version.
 */
#ifndef DAY01_H
#define DAY01_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day01_cpu. */
extern const hist_impl day01_impls[];
/** @brief How many entries day01_impls has. */
extern const size_t day01_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* DAY01_H */
