/**
 * @file day05.h
 * @brief Day 05's implementation: seed 000's two-phase kernel.
 */
#ifndef DAY05_H
#define DAY05_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day05_optimized_h100. */
extern const hist_impl day05_impls[];
/** @brief How many entries day05_impls has. */
extern const size_t day05_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* DAY05_H */
