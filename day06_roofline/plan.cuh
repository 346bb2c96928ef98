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

/**
 * @brief The final kernel's plan for a GPU: how many channels a block counts and how its flush
 *        buffer is cut, the largest that the GPU's shared memory holds (plan_for()). Every plan
 *        runs R6_THREADS threads, one block per SM.
 */
typedef struct any_plan {
    uint32_t channels;   /**< channels per block, CH: 128, 64 or 32 (0: no plan fits) */
    uint32_t flush_bins; /**< bins per flush round, FB: 64 or 32 */
    size_t smem;         /**< shared memory a block needs, FOLD's buffer included */
    size_t smem_no_fold; /**< the same without FOLD's buffer */
} any_plan;

/** @brief FOLD's second `[CH][FB + 1]` flush buffer, bytes. */
#define R6_FOLD_BYTES(CH, FB) ((size_t)(CH) * ((FB) + 1) * 4)
/** @brief Shared memory of the final kernel with CH channels per block and FB bins per flush
 *  round: the `[256][CH]` histogram, the `[CH][FB + 1]` flush buffer and FOLD's second one, the
 *  slot map. */
#define R6_PLAN_SMEM(CH, FB) ((size_t)R6_BINS * (CH)*4 + 2 * R6_FOLD_BYTES(CH, FB) + (size_t)(CH)*4)
/** @brief One plan of R6_PLANS. */
#define R6_PLAN(CH, FB)                                                                            \
    { CH, FB, R6_PLAN_SMEM(CH, FB), R6_PLAN_SMEM(CH, FB) - R6_FOLD_BYTES(CH, FB) }

/** @brief The plans, best first: 128 channels (the H100's: 198,144 bytes), 128 with half the
 *  flush buffer (165,376: an A100), 64 (99,072: RTX 30/40/50, L4), 32 (49,536: a T4). */
static const any_plan R6_PLANS[] = {R6_PLAN(128, 64), R6_PLAN(128, 32), R6_PLAN(64, 64),
                                    R6_PLAN(32, 64)};

/**
 * @brief The final kernel's plan on @p dev: the first of R6_PLANS whose block (FOLD's buffer
 *        included, so that one plan serves every shape) fits the GPU's shared memory per block
 *        and per SM with its R6_THREADS threads.
 * @param dev the GPU (its limits may be emulated: gpu_limits.h)
 * @return the plan (channels 0: none fits)
 */
any_plan plan_for(const hist_device *dev);

/** @brief The final kernel's grid: balanced channel groups, and row chunks for one block per SM.
 */
typedef struct any_grid {
    virtual_rows vr;      /**< the input as virtual rows */
    uint32_t group_width; /**< virtual channels per group, a multiple of 4, at most the plan's */
    uint32_t groups;      /**< channel groups (grid x) */
    uint64_t chunk_rows;  /**< virtual rows per block */
    uint32_t chunks;      /**< row chunks (grid y) */
} any_grid;

/** @brief Step 8 hands out the last 1 / R6_DYN_SHARE of the rows in tiles (the spread of the
 *  blocks' finishing times must fit in it: about 5% on the main preset, 11% for 510 channels). */
#define R6_DYN_SHARE 8

/** @brief Step 8's dynamic tiles: batches of R6_UNROLL rows per warp in each tile. */
#define R6_TILE_BATCHES 2
/** @brief Virtual rows per dynamic tile with 128 channels per block: 32 warps x 2 batches x 8
 *  rows = 512; a plan of fewer channels reads 128 / CH rows per warp load, and its tiles are
 *  that many times longer. */
#define R6_TILE_ROWS (32 * R6_UNROLL * R6_TILE_BATCHES)

/**
 * @brief Steps 1-6's row chunks: enough blocks for one per SM (4 groups x 33 chunks = 132 on an
 *        H100).
 * @param p the problem
 * @param dev the GPU
 * @param group channels per block (128, 64 or 32)
 * @param chunk_rows receives the rows per chunk
 * @return the number of chunks
 */
uint32_t chunks_for(const hist_problem *p, const hist_device *dev, uint32_t group,
                    uint64_t *chunk_rows);

/**
 * @brief The final kernel's grid for @p p's input at @p samples on @p dev (plan.cu).
 * @param p the problem
 * @param samples the input (its alignment sets the shift)
 * @param dev the GPU
 * @param channels channels per block (the plan's)
 * @return the grid
 */
any_grid grid_for(const hist_problem *p, const uint8_t *samples, const hist_device *dev,
                  uint32_t channels);

/** @brief Step 8's workspace: a tile counter per channel group (at most one group per SM).
 * @param p the problem
 * @param dev the GPU (NULL: none needed)
 * @return bytes
 */
size_t any_workspace(const hist_problem *p, const hist_device *dev);

/** @brief The final kernel's plan on @p dev in one line (the registry's `plan`).
 * @param p the problem (the plan does not depend on it)
 * @param dev the GPU
 * @return the text (a static buffer)
 */
const char *describe_any_plan(const hist_problem *p, const hist_device *dev);

/** @brief The final kernel's one limit: its shared memory.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return why not, or NULL
 */
const char *unsupported_any(const hist_problem *p, const hist_device *dev);

/** @brief Step 9's plan in one line (the registry's `plan`).
 * @param p the problem
 * @param dev the GPU
 * @return the text (a static buffer)
 */
const char *describe_small_plan(const hist_problem *p, const hist_device *dev);

/** @brief Step 9's limits: one channel, at most R6_SMALL_MAX_BYTES (small.cuh).
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return why not, or NULL
 */
const char *unsupported_small(const hist_problem *p, const hist_device *dev);

#endif /* DAY06_PLAN_CUH */
