/**
 * @file day02.h
 * @brief Day 02's implementations: one global atomic per sample.
 */
#ifndef DAY02_H
#define DAY02_H

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The registry entries of day02_naive. */
extern const hist_impl day02_impls[];
/** @brief How many entries day02_impls has. */
extern const size_t day02_impl_count;
/** @brief The racy kernel of the demonstration (not in the registry: it is wrong on purpose). */
extern const hist_impl day02_racy_impl;

#ifdef __cplusplus
}
#endif

#endif /* DAY02_H */
