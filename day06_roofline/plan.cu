/**
 * @file plan.cu
 * @brief Day 06: the final kernel's plan (plan.cuh): the grid from the shape and the GPU's
 *        multiprocessors, the workspace of step 8's tiles, and the shared-memory limit.
 *
 * Steps 1-6 give each block 128 channels of the rows and the GPU's SMs / groups chunks of rows
 * (chunks_for()). The final kernel does the same for any shape by reading the input as virtual
 * rows (final.cu's step 7 section): virtual_width() says how wide a virtual row is, grid_for()
 * how the virtual channels are cut into groups and the rows into chunks.
 */
#include <stdio.h>

#include "cuda_check.h"
#include "gpu_limits.h"
#include "plan.cuh"
#include "small.cuh"

uint32_t chunks_for(const hist_problem *p, const hist_device *dev, uint32_t group,
                    uint64_t *chunk_rows) {
    const uint32_t groups = group > 0 ? (p->channels + group - 1) / group : 1;
    const hist_row_split split = hist_split_rows(p->rows, (uint64_t)dev->sm_count / groups);
    *chunk_rows = split.chunk_rows;
    return (uint32_t)split.chunks;
}

/**
 * @brief Virtual channels per virtual row for @p channels real ones: the least multiple of
 *        @p channels that is a multiple of 4 (a whole number of words), then as many of those as
 *        fit in one group of @p group when that is more than one (so that small channel counts
 *        fill the warp). (A multiple of 32, whole sectors, measured no faster: README.md.)
 * @param channels real channels per row
 * @param group channels per block (the plan's: 128, 64 or 32)
 * @return virtual channels per virtual row
 */
static uint32_t virtual_width(uint32_t channels, uint32_t group) {
    // SOLUTION virtual_width [gpu_r6_v7_any_shape gpu_roofline pipe_pageable pipe_pinned pipe_streams pipe_copy_stream gpus_nccl]: rows per word-aligned run k = 4 / gcd(channels, 4)
    //   (1, 2 or 4); width = k * channels; if width < group, the largest multiple of width that
    //   is at most group.
    // stub: (void)group;
    // stub: return channels;
    const uint32_t k = channels % 4 == 0 ? 1 : channels % 2 == 0 ? 2 : 4;
    const uint32_t width = k * channels;
    return width < group ? group / width * width : width;
    // END SOLUTION
}

any_plan plan_for(const hist_device *dev) {
    for (size_t i = 0; i < sizeof R6_PLANS / sizeof R6_PLANS[0]; ++i)
        if (R6_PLANS[i].smem <= dev->smem_per_block_optin &&
            hist_blocks_per_sm(dev, R6_THREADS, R6_PLANS[i].smem) >= 1)
            return R6_PLANS[i];
    const any_plan none = {0, 0, R6_PLANS[sizeof R6_PLANS / sizeof R6_PLANS[0] - 1].smem, 0};
    return none;
}

any_grid grid_for(const hist_problem *p, const uint8_t *samples, const hist_device *dev,
                  uint32_t channels) {
    any_grid g;
    const uint64_t bytes = hist_samples(p);
    g.vr.channels = p->channels;
    g.vr.width = virtual_width(p->channels, channels);
    g.vr.shift = (uint32_t)((4 - (uintptr_t)samples % 4) % 4); /* to a word */
    if (g.vr.shift > bytes)
        g.vr.shift = (uint32_t)bytes;
    g.vr.rows = (bytes - g.vr.shift) / g.vr.width;
    g.vr.tail = (uint32_t)(bytes - g.vr.shift - g.vr.rows * g.vr.width);
    const uint32_t groups = (g.vr.width + channels - 1) / channels;
    g.group_width = (((g.vr.width + groups - 1) / groups) + 3) / 4 * 4; /* whole words */
    g.groups = (g.vr.width + g.group_width - 1) / g.group_width;
    const hist_row_split split = hist_split_rows(g.vr.rows, (uint64_t)dev->sm_count / g.groups);
    g.chunk_rows = split.chunk_rows;
    g.chunks = (uint32_t)split.chunks;
    return g;
}

size_t any_workspace(const hist_problem *p, const hist_device *dev) {
    (void)p;
    return dev ? (size_t)dev->sm_count * sizeof(uint32_t) : 0;
}

const char *describe_any_plan(const hist_problem *p, const hist_device *dev) {
    if (p && unsupported_small(p, dev) == NULL)
        return describe_small_plan(p, dev);
    static char text[200];
    const any_plan plan = plan_for(dev);
    if (plan.channels == 0)
        return "none fits";
    snprintf(text, sizeof text,
             "%u channels per block, %d threads, one block per SM, %zu bytes of shared memory, "
             "flushed %u bins a round",
             plan.channels, R6_THREADS, plan.smem, plan.flush_bins);
    return text;
}

const char *unsupported_any(const hist_problem *p, const hist_device *dev) {
    (void)p;
    if (!dev || plan_for(dev).channels > 0)
        return NULL;
    static char why[200];
    const any_plan smallest = R6_PLANS[sizeof R6_PLANS / sizeof R6_PLANS[0] - 1];
    snprintf(why, sizeof why,
             HIST_NOT_ON_GPU "even its smallest plan (%u channels per block: %zu bytes of shared "
                             "memory, %d threads) does not fit this GPU",
             smallest.channels, smallest.smem, R6_THREADS);
    return why;
}

const char *describe_small_plan(const hist_problem *p, const hist_device *dev) {
    static char text[200];
    const uint32_t grid = small_grid(hist_samples(p), dev ? dev->sm_count : INT32_MAX);
    snprintf(text, sizeof text,
             "step 9 (one channel, at most %u MiB): %u counting blocks of %d threads and a "
             "gatekeeper warp, 256 counters a lane, one block zeroing the output",
             R6_SMALL_MAX_BYTES >> 20, grid - 1, R6_SMALL_THREADS);
    return text;
}

const char *unsupported_small(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    static char why[120];
    if (p->channels != 1)
        return "one channel only (the small-input plan)";
    if (hist_samples(p) > R6_SMALL_MAX_BYTES) {
        snprintf(why, sizeof why, "at most %u MiB (the small-input plan)",
                 R6_SMALL_MAX_BYTES >> 20);
        return why;
    }
    return NULL;
}
