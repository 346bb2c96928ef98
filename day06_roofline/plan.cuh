/**
 * @file plan.cuh
 * @brief Day 06: the final kernel's plan, how its grid and shared memory follow from the shape of
 *        the input and from the GPU: virtual rows, balanced channel groups, row chunks for one
 *        block per SM, the tiles of step 8, and the one limit it has (plan.cu).
 */
#ifndef DAY06_PLAN_CUH
#define DAY06_PLAN_CUH

#include "hist.h"
#include "roofline.cuh"

/** @brief The virtual rows of the final kernel (see the section comment). */
typedef struct virtual_rows {
    uint32_t channels; /**< real channels per row */
    uint32_t width;    /**< virtual channels per virtual row: a multiple of 4 and of channels */
    uint32_t shift;    /**< bytes from the input's start to its first word (0..3, at most its
                            size): virtual channel v is real channel (shift + v) % channels */
    uint64_t rows;     /**< whole virtual rows after those bytes */
    uint32_t tail;     /**< bytes after the last whole virtual row (fewer than width) */
} virtual_rows;

/** @brief The final kernel's grid: balanced channel groups, and row chunks for one block per SM.
 */
typedef struct any_grid {
    virtual_rows vr;      /**< the input as virtual rows */
    uint32_t group_width; /**< virtual channels per group, a multiple of 4, at most 128 */
    uint32_t groups;      /**< channel groups (grid x) */
    uint64_t chunk_rows;  /**< virtual rows per block */
    uint32_t chunks;      /**< row chunks (grid y) */
} any_grid;

/** @brief Shared memory of the final kernel: histogram, flush buffer, slot map, and FOLD's
 *  buffer. */
#define R6_ANY_SMEM_BYTES (R6_SMEM_BYTES + 2 * R6_FLUSH_BYTES + R6_CHANNELS * sizeof(uint32_t))

/** @brief Step 8 hands out the last 1 / R6_DYN_SHARE of the rows in tiles (the spread of the
 *  blocks' finishing times must fit in it: about 5% on the main preset, 11% for 510 channels). */
#define R6_DYN_SHARE 8

/** @brief Step 8's dynamic tiles: batches of R6_UNROLL rows per warp in each tile. */
#define R6_TILE_BATCHES 2
/** @brief Virtual rows per dynamic tile: 32 warps x 2 batches x 8 rows = 512. */
#define R6_TILE_ROWS (32 * R6_UNROLL * R6_TILE_BATCHES)

/**
 * @brief Steps 1-6's row chunks: enough blocks for one per SM (4 groups x 33 chunks = 132 on an
 *        H100).
 * @param p the problem
 * @param dev the GPU
 * @param chunk_rows receives the rows per chunk
 * @return the number of chunks
 */
uint32_t chunks_for(const hist_problem *p, const hist_device *dev, uint64_t *chunk_rows);

/**
 * @brief The final kernel's grid for @p p's input at @p samples on @p dev (plan.cu).
 * @param p the problem
 * @param samples the input (its alignment sets the shift)
 * @param dev the GPU
 * @return the grid
 */
any_grid grid_for(const hist_problem *p, const uint8_t *samples, const hist_device *dev);

/** @brief Step 8's workspace: a tile counter per channel group (at most one group per SM).
 * @param p the problem
 * @param dev the GPU (NULL: none needed)
 * @return bytes
 */
size_t any_workspace(const hist_problem *p, const hist_device *dev);

/** @brief The final kernel's one limit: its shared memory.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return why not, or NULL
 */
const char *unsupported_any(const hist_problem *p, const hist_device *dev);

#endif /* DAY06_PLAN_CUH */
