/**
 * @file day06.h
 * @brief Day 06's implementations: the profile-guided kernel at the memory roofline.
 */
#ifndef DAY06_H
#define DAY06_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day06_roofline. */
extern const hist_impl day06_impls[];
/** @brief How many entries day06_impls has. */
extern const size_t day06_impl_count;

#ifdef __cplusplus
}
#endif

#endif /* DAY06_H */
