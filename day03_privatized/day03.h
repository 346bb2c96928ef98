/**
 * @file day03.h
 * @brief Day 03's implementations: block-private histograms in global memory, then a merge.
 */
#ifndef DAY03_H
#define DAY03_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day03_privatized. */
extern const hist_impl day03_impls[];
/** @brief How many entries day03_impls has. */
extern const size_t day03_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* DAY03_H */
