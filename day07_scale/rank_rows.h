/**
 * @file rank_rows.h
 * @brief Day 07's ranks: which rows a rank holds, and reading them (ranks.cu's first steps). No
 *        MPI here: a rank works out its share from its number and the number of ranks.
 */
#ifndef DAY07_RANK_ROWS_H
#define DAY07_RANK_ROWS_H

#include <glob.h>

#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One rank's rows: where they come from, their shape, and the bytes once read. */
typedef struct rank_rows {
    const char *shards;   /**< `--shards`, or NULL */
    char input_text[48];  /**< "generated", "one file", "N shards" */
    hist_problem whole;   /**< the whole dataset's shape and binning */
    hist_problem mine;    /**< this rank's rows */
    uint64_t first_row;   /**< its first row in the whole (file or generated input) */
    glob_t files;         /**< `--shards`: every shard, in order */
    size_t file_first;    /**< this rank's first shard */
    size_t file_count;    /**< this rank's shards */
    uint8_t *samples;     /**< this rank's rows (host), once read */
    size_t samples_bytes; /**< their allocation (whole huge pages) */
    double alloc_us;      /**< the allocation's time (every page made) */
    double read_us;       /**< the read's (or the generation's) time */
} rank_rows;

/**
 * @brief Which rows rank @p rank of @p size holds: generated data and `--input` are cut into
 *        nearly equal row ranges (hist_share()), `--shards` into file ranges. Shards' shapes are
 *        this rank's only: ranks.cu agrees on the whole's.
 * @param r the rows (`shards` set, the rest zero)
 * @param o the options (the dataset, `--input`)
 * @param rank this rank
 * @param size the ranks
 * @return HIST_OK, or the failure (a file that cannot be read, shards that disagree)
 */
hist_status rank_rows_plan(rank_rows *r, const hist_options *o, int rank, int size);

/**
 * @brief Read (or generate) this rank's rows into host memory made beforehand, in huge pages
 *        where the kernel gives them; the allocation and the read are timed apart.
 * @param r the rows, planned
 * @param o the options
 * @return HIST_OK, or the failure
 */
hist_status rank_rows_load(rank_rows *r, const hist_options *o);

/**
 * @brief Free what the rows hold.
 * @param r the rows
 */
void rank_rows_free(rank_rows *r);

#ifdef __cplusplus
}
#endif

#endif /* DAY07_RANK_ROWS_H */
