/**
 * @file day04.h
 * @brief Day 04's implementations: shared-memory privatization with channel tiling.
 */
#ifndef DAY04_H
#define DAY04_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day04_shared. */
extern const hist_impl day04_impls[];
/** @brief How many entries day04_impls has. */
extern const size_t day04_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* DAY04_H */
