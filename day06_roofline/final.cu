/**
 * @file final.cu
 * @brief Day 06, steps 7 and 8: a kernel each, for every shape and binning (the README's table
 *        has each one's prediction and measurement; run one from the repository root as shown).
 *
 *   step 7  gpu_r6_v7_any_shape  step7_kernel: step 6 for any channel count, alignment and binning
 *           (virtual rows, bins folded in the flush), after a memset
 *           ./build/day06_roofline --impl gpu_r6_v7_any_shape --channels 513
 *   step 8  gpu_roofline         step8_kernel: step 7 zeroing the output itself (a cooperative
 *           launch), the last rows handed out in tiles
 *           ./build/day06_roofline --impl gpu_roofline --channels 513
 *
 * The device functions both kernels are built from are in final.cuh; plan.cu computes the grid.
 * gpu_roofline, the lesson's answer, is step 8, or step 9 (small.cuh) for one channel of a few
 * megabytes. day06_final_launch() serves the other programs: the CS149 file (submission.sh) and
 * day 07's pipelines, which add chunk after chunk into one output with step 7's kernel. The
 * breakdown (breakdown.cu) times the same kernels, and stamps their phases through
 * final_launch_stamped() (STAMPED, compiled out of the registry's kernels).
 */
#include <cooperative_groups.h>
#include <utility>

#include "cuda_check.h"
#include "device.cuh"
#include "final.cuh"
#include "gpu_limits.h"
#include "plan.cuh"
#include "roofline.cuh"
#include "small.cuh"

/* ---- step 7: every shape and binning ----
 *
 * Steps 1-6 count the byte histogram of rows whose 128-channel groups start on 4-byte words.
 * Step 7 keeps step 6's loop exactly and changes only what it is given and how it flushes:
 *
 *  - Any channel count, by virtual rows. A row of 510 or 513 channels does not start on a word,
 *    but 2 rows of 510 (1,020 bytes) or 4 of 513 (2,052) end on one: the input read from its
 *    first word is an aligned `[rows / k][k * channels]` array (virtual_width()). Virtual channel
 *    v of it is real channel (shift + v) % channels, where shift is how many bytes the input's
 *    start lies before that word. The loop counts virtual channels in groups of up to 128 with
 *    32-bit loads, exactly as before; the flush adds each virtual channel's counts into its real
 *    channel. The first `shift` bytes and the last bytes that do not fill a virtual row are
 *    counted a byte at a time. Small channel counts are widened to fill a group (1 channel: 128
 *    rows per virtual row), so every lane has work.
 *  - Balanced groups: 1,020 virtual channels are 8 groups of 128 (the last 124), 2,052 are 17
 *    of 124 (the last 68), not 16 x 128 + 4, whose last group's blocks would take as long as the
 *    others for 4 channels.
 *  - Any binning, at no cost in the loop: it still counts the byte histogram, 256 values per
 *    channel, and the flush folds values into bins (bin b of a channel is the sum of the counts of
 *    its values lo + b * width .. min(hi, lo + (b + 1) * width - 1); values outside [lo, hi] are
 *    never read). Binning per byte would add about five instructions to each of the loop's four
 *    atomics; the fold costs one addition per value and channel, once per block.
 *
 * Where a group is wider than the real channels (fewer than 128), several of its virtual channels
 * are one real channel: the flush first sums them in shared memory (FOLD), so that the output
 * sees one atomic per real counter and block, not up to 128 on the same address.
 */

/**
 * @brief Step 7: step 6's loop and flush over virtual rows, for any channel count, input
 *        alignment and binning (see the section comment), in the plan's shape (CH channels per
 *        block, FB bins per flush round: plan.cuh), adding into the output.
 * @tparam FOLD a group is wider than the real channels: fold its virtual channels in shared
 *         memory before adding to the output
 * @tparam CH channels per block: 128, 64 or 32
 * @tparam FB bins per flush round: 64 or 32
 * @tparam STAMPED the breakdown's kernel: the phases stamped
 * @param d_samples the input as given, row-major `[rows][channels]`, any alignment
 * @param vr its virtual rows
 * @param group_width virtual channels per block (a multiple of 4, at most CH; the last group
 *        may have fewer)
 * @param chunk_rows virtual rows per block
 * @param binning the binning (applied by the flush)
 * @param bins its bins (hist_bins())
 * @param d_out the output `[channels][bins]`: zeroed before (the registry's step 7), or holding
 *        the counts to add to (day 07's pipelines)
 * @param d_stamps per-block phase stamps (`[blocks][STAMPS]`), or NULL (used only if STAMPED)
 * @par Launch
 * `__launch_bounds__(R6_THREADS, 1)`. `launch_step7()`: a grid of (virtual channel groups, row
 * chunks: SMs / groups), R6_THREADS (1024) threads, R6_PLAN_SMEM(CH, FB) bytes of dynamic shared
 * memory (without FOLD less its second flush buffer; 198,144 bytes in the H100's plan).
 */
template <bool FOLD, int CH, int FB, bool STAMPED>
__global__ __launch_bounds__(R6_THREADS, 1) void step7_kernel(const uint8_t *__restrict__ d_samples,
                                                              virtual_rows vr, uint32_t group_width,
                                                              uint64_t chunk_rows,
                                                              hist_binning binning, uint32_t bins,
                                                              uint32_t *__restrict__ d_out,
                                                              uint64_t *d_stamps) {
    constexpr uint32_t W = CH / 4;           /* words of a group's row: lanes per row */
    constexpr uint32_t R = R6_CHANNELS / CH; /* rows per warp load (roofline.cuh's layout) */
    extern __shared__ uint32_t s_hist[];     /* [256 values][CH slots], then the flush buffers */
    uint32_t *s_flush = s_hist + R6_BINS * CH;
    uint32_t *s_real = s_flush + CH * (FB + 1);
    uint32_t *s_fold = s_real + CH;
    stamp<STAMPED>(d_stamps, STAMP_START);
    const uint32_t c0 = blockIdx.x * group_width;
    const uint32_t group_channels = min(group_width, vr.width - c0);
    const uint32_t words = (group_channels + 3) / 4; /* lanes of a row that count */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = R == 1 ? 0 : lane / W; /* word w of the warp's row q */
    const uint64_t step = (R6_THREADS / 32) * R;            /* a lane's rows are this far apart */
    const uint64_t r0 = blockIdx.y * chunk_rows;
    const uint64_t r1 = min(r0 + chunk_rows, vr.rows);
    const uint8_t *aligned = d_samples + vr.shift; /* a word boundary */
    const uint64_t first = r0 + warp * R + q;      /* this lane's first row */
    const uint64_t n = r1 > first ? (r1 - first + step - 1) / step : 0;
    const uint32_t *p = reinterpret_cast<const uint32_t *>(aligned + first * vr.width + c0) + w;

    start_block<CH>(s_hist, s_real, vr, c0, group_channels);
    __syncthreads(); /* all counters zeroed before any thread counts */
    stamp<STAMPED>(d_stamps, STAMP_ZEROED);

    if (w < words)
        count_rows<CH>(p, step * vr.width / 4, n, s_hist + w, q);
    if (blockIdx.y == 0 && warp == 0) /* the bytes outside whole virtual rows */
        count_edges<CH>(d_samples, vr, c0, group_channels, s_hist, lane);
    __syncthreads(); /* every count in before the histogram is read */
    stamp<STAMPED>(d_stamps, STAMP_COUNTED);
    flush_binned<FOLD, CH, FB>(s_hist, s_flush, s_real, s_fold, binning, bins, vr, d_out);
    stamp<STAMPED>(d_stamps, STAMP_FLUSHED);
}

/* ---- step 8: no memset, no straggler ----
 *
 * Where step 7's time went (breakdown.cu measures it, the notebook keeps the figures): a memset
 * launch before the kernel, and blocks that finish counting microseconds apart (more for 510
 * channels), the kernel ending with the last one. Step 8 is launched cooperatively
 * (cudaLaunchCooperativeKernel: all blocks resident at once, one per SM), which allows a grid
 * barrier:
 *
 *  - every block zeroes its share of the output and arrives at the barrier at its start, and
 *    waits at it only when done with its fixed rows, a whole chunk later: nobody waits;
 *  - the last eighth of the rows is cut into tiles of 512 rows that each block takes, one after
 *    another, from its channel group's counter (an atomicAdd), until none is left; block 0 zeroed
 *    the counters before arriving, so no tile is taken before they are zero. Blocks now finish
 *    counting within about one tile of each other.
 *  - while the histogram is zeroed, each warp's first rows are prefetched into L2.
 *
 * Where the blocks cannot all be resident (more channel groups than SMs) the launch is step 7's
 * after a memset; without a workspace for the counters (day 07's pipelines) there are no dynamic
 * tiles. */

/**
 * @brief Step 8: step 7 zeroing the output itself (every block its share, then a grid barrier
 *        that it waits at only before its flush) and counting the last rows in tiles handed out
 *        as blocks ask (see the section comment).
 * @tparam FOLD a group is wider than the real channels: fold its virtual channels in shared
 *         memory before adding to the output
 * @tparam CH channels per block: 128, 64 or 32
 * @tparam FB bins per flush round: 64 or 32
 * @tparam STAMPED the breakdown's kernel: the phases stamped
 * @param d_samples the input as given, row-major `[rows][channels]`, any alignment
 * @param vr its virtual rows
 * @param group_width virtual channels per block (a multiple of 4, at most CH; the last group
 *        may have fewer)
 * @param chunk_rows virtual rows per block in its fixed chunk
 * @param dyn_first the first virtual row handed out in tiles (vr.rows: none)
 * @param dyn_tiles tiles of R6_TILE_ROWS x 128 / CH rows from dyn_first on (0: none)
 * @param d_next a tile counter per channel group (zeroed by block 0), or NULL without tiles
 * @param binning the binning (applied by the flush)
 * @param bins its bins (hist_bins())
 * @param d_out the output `[channels][bins]`, zeroed by the kernel
 * @param d_stamps per-block phase stamps (`[blocks][STAMPS]`), or NULL (used only if STAMPED)
 * @par Launch
 * As step 7, cooperatively (all blocks resident at once: no more blocks than SMs):
 * `launch_step8()`.
 */
template <bool FOLD, int CH, int FB, bool STAMPED>
__global__ __launch_bounds__(R6_THREADS, 1) void step8_kernel(
    const uint8_t *__restrict__ d_samples, virtual_rows vr, uint32_t group_width,
    uint64_t chunk_rows, uint64_t dyn_first, uint32_t dyn_tiles, uint32_t *d_next,
    hist_binning binning, uint32_t bins, uint32_t *__restrict__ d_out, uint64_t *d_stamps) {
    constexpr uint32_t W = CH / 4;           /* words of a group's row: lanes per row */
    constexpr uint32_t R = R6_CHANNELS / CH; /* rows per warp load (roofline.cuh's layout) */
    __shared__ uint32_t s_tile[3];           /* the block's next dynamic tiles */
    extern __shared__ uint32_t s_hist[];     /* [256 values][CH slots], then the flush buffers */
    uint32_t *s_flush = s_hist + R6_BINS * CH;
    uint32_t *s_real = s_flush + CH * (FB + 1);
    uint32_t *s_fold = s_real + CH;
    stamp<STAMPED>(d_stamps, STAMP_START);
    const uint32_t c0 = blockIdx.x * group_width;
    const uint32_t group_channels = min(group_width, vr.width - c0);
    const uint32_t words = (group_channels + 3) / 4; /* lanes of a row that count */
    const uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t w = lane % W, q = R == 1 ? 0 : lane / W; /* word w of the warp's row q */
    const uint64_t step = (R6_THREADS / 32) * R;            /* a lane's rows are this far apart */
    const uint64_t r0 = blockIdx.y * chunk_rows;
    /* the rows from dyn_first on are handed out in tiles */
    const uint64_t r1 = min(r0 + chunk_rows, dyn_first);
    const uint8_t *aligned = d_samples + vr.shift; /* a word boundary */
    const uint64_t first = r0 + warp * R + q;      /* this lane's first row */
    const uint64_t n = r1 > first ? (r1 - first + step - 1) / step : 0;
    const uint32_t *p = reinterpret_cast<const uint32_t *>(aligned + first * vr.width + c0) + w;
    if (w < words) /* the first rows on their way during the zeroing */
        prefetch_first_rows(p, step * vr.width / 4, n);

    start_block<CH>(s_hist, s_real, vr, c0, group_channels);
    zero_output_share(d_out, (size_t)vr.channels * bins, d_next, dyn_tiles);
    /* arrive (a block barrier too); wait only before the tiles, by when all blocks have zeroed */
    cooperative_groups::grid_group::arrival_token token =
        cooperative_groups::this_grid().barrier_arrive();
    stamp<STAMPED>(d_stamps, STAMP_ZEROED);

    if (w < words)
        count_rows<CH>(p, step * vr.width / 4, n, s_hist + w, q);
    if (blockIdx.y == 0 && warp == 0) /* the bytes outside whole virtual rows */
        count_edges<CH>(d_samples, vr, c0, group_channels, s_hist, lane);
    cooperative_groups::this_grid().barrier_wait(std::move(token));
    if (dyn_tiles > 0) { /* the last rows, a tile at a time to whichever block asks first */
        if (threadIdx.x == 0) {
            s_tile[0] = atomicAdd(&d_next[blockIdx.x], 1u);
            s_tile[1] = atomicAdd(&d_next[blockIdx.x], 1u);
        }
        __syncthreads();
        const size_t wpr = vr.width / 4;
        count_tiles<CH>(reinterpret_cast<const uint32_t *>(aligned + c0) +
                            (dyn_first + warp * R + q) * wpr + w,
                        wpr, dyn_tiles, w < words, s_hist + w, s_tile, &d_next[blockIdx.x], q);
    }
    __syncthreads(); /* every count in before the histogram is read */
    stamp<STAMPED>(d_stamps, STAMP_COUNTED);
    flush_binned<FOLD, CH, FB>(s_hist, s_flush, s_real, s_fold, binning, bins, vr, d_out);
    stamp<STAMPED>(d_stamps, STAMP_FLUSHED);
}

/* ---- host side ---- */

/** @brief The row of R6_PLANS that @p plan is, whose order the kernel tables below follow.
 *  @param plan a plan of R6_PLANS (plan_for()) @return its index */
static size_t plan_index(const any_plan &plan) {
    size_t i = 0;
    while (R6_PLANS[i].channels != plan.channels || R6_PLANS[i].flush_bins != plan.flush_bins)
        ++i;
    return i;
}

/** @brief A kernel of steps 7 and 8 at one plan (CH, FB), without and with FOLD. */
#define R6_FOLDS(KERNEL, CH, FB, ST)                                                               \
    { (const void *)KERNEL<false, CH, FB, ST>, (const void *)KERNEL<true, CH, FB, ST> }

/** @brief step7_kernel() for a plan: one of the 8 its template parameters make.
 *  @tparam STAMPED the breakdown's @param plan the plan @param fold FOLD @return the kernel */
template <bool STAMPED> static const void *step7_for(const any_plan &plan, bool fold) {
    static const void *const kernels[][2] = {
        R6_FOLDS(step7_kernel, 128, 64, STAMPED), R6_FOLDS(step7_kernel, 128, 32, STAMPED),
        R6_FOLDS(step7_kernel, 64, 64, STAMPED), R6_FOLDS(step7_kernel, 32, 64, STAMPED)};
    return kernels[plan_index(plan)][fold];
}

/** @brief step8_kernel() for a plan: one of the 8 its template parameters make.
 *  @tparam STAMPED the breakdown's @param plan the plan @param fold FOLD @return the kernel */
template <bool STAMPED> static const void *step8_for(const any_plan &plan, bool fold) {
    static const void *const kernels[][2] = {
        R6_FOLDS(step8_kernel, 128, 64, STAMPED), R6_FOLDS(step8_kernel, 128, 32, STAMPED),
        R6_FOLDS(step8_kernel, 64, 64, STAMPED), R6_FOLDS(step8_kernel, 32, 64, STAMPED)};
    return kernels[plan_index(plan)][fold];
}

/**
 * @brief The plan and the grid of steps 7 and 8 for the call (plan.cu).
 * @param a the call's arguments
 * @param plan receives the plan
 * @param g receives the grid
 * @return HIST_OK, or the failure where no plan fits the GPU
 */
static hist_status final_grid(const hist_args *a, any_plan *plan, any_grid *g) {
    *plan = plan_for(a->device);
    if (plan->channels == 0)
        return hist_fail(HIST_ERR_UNSUPPORTED, "day06's final kernel: %s",
                         unsupported_any(a->problem, a->device));
    *g = grid_for(a->problem, a->samples, a->device, plan->channels);
    return HIST_OK;
}

/**
 * @brief Launch step7_kernel() on the problem's virtual rows.
 * @tparam STAMPED the breakdown's kernel
 * @param a the call's arguments
 * @param zero zero the output first (a memset); otherwise the counts are added to what it holds,
 *        so that chunk after chunk of a larger input sums into one histogram (day 07's pipelines)
 * @param stream the stream to queue the work on (0: the default stream)
 * @param d_stamps per-block stamps, or NULL
 * @param blocks receives the number of blocks launched (0: none)
 * @return HIST_OK or the CUDA error
 */
template <bool STAMPED>
static hist_status launch_step7(const hist_args *a, bool zero, cudaStream_t stream,
                                uint64_t *d_stamps, uint32_t *blocks) {
    const hist_problem *p = a->problem;
    *blocks = 0;
    any_plan plan;
    any_grid g;
    hist_status s = final_grid(a, &plan, &g);
    if (s != HIST_OK)
        return s;
    if (zero)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t), stream));
    if (hist_samples(p) == 0)
        return HIST_OK;
    const bool fold = g.group_width > p->channels;
    const uint32_t bins = hist_bins(p->binning);
    void *args[] = {(void *)&a->samples,   (void *)&g.vr,       (void *)&g.group_width,
                    (void *)&g.chunk_rows, (void *)&p->binning, (void *)&bins,
                    (void *)&a->hist,      (void *)&d_stamps};
    *blocks = g.groups * g.chunks;
    return hist_launch_args(a->device, step7_for<STAMPED>(plan, fold), dim3(g.groups, g.chunks),
                            R6_THREADS, fold ? plan.smem : plan.smem_no_fold, stream, 0, args,
                            "step7_kernel");
}

/**
 * @brief Launch step8_kernel() on the problem's virtual rows, cooperatively; where its blocks
 *        cannot all be resident at once (more channel groups than SMs), or there is nothing to
 *        count, step 7 after a memset. With a workspace of any_workspace() bytes the last eighth
 *        of the rows goes in tiles handed out as blocks ask.
 * @tparam STAMPED the breakdown's kernel
 * @param a the call's arguments
 * @param stream the stream to queue the work on (0: the default stream)
 * @param d_stamps per-block stamps, or NULL
 * @param blocks receives the number of blocks launched (0: none)
 * @return HIST_OK or the CUDA error
 */
template <bool STAMPED>
static hist_status launch_step8(const hist_args *a, cudaStream_t stream, uint64_t *d_stamps,
                                uint32_t *blocks) {
    const hist_problem *p = a->problem;
    *blocks = 0;
    any_plan plan;
    any_grid g;
    hist_status s = final_grid(a, &plan, &g);
    if (s != HIST_OK)
        return s;
    /* a cooperative launch needs every block resident: one per SM, so no more blocks than SMs */
    if (hist_samples(p) == 0 || g.groups * g.chunks > (uint32_t)a->device->sm_count)
        return launch_step7<STAMPED>(a, true, stream, d_stamps, blocks);
    const bool fold = g.group_width > p->channels;
    /* given a workspace for the counters: the last eighth of the rows in tiles handed out as
       blocks ask, the rest in fixed chunks as before */
    uint64_t chunk_rows = g.chunk_rows, dyn_first = g.vr.rows;
    uint32_t dyn_tiles = 0;
    uint32_t *d_next = (uint32_t *)a->workspace;
    if (d_next != NULL) {
        const uint64_t tile_rows = (uint64_t)R6_TILE_ROWS * (R6_CHANNELS / plan.channels);
        dyn_tiles = (uint32_t)(g.vr.rows / R6_DYN_SHARE / tile_rows);
        dyn_first = g.vr.rows - (uint64_t)dyn_tiles * tile_rows;
        chunk_rows = hist_split_rows(dyn_first, g.chunks).chunk_rows;
    }
    const uint32_t bins = hist_bins(p->binning);
    void *args[] = {(void *)&a->samples, (void *)&g.vr,       (void *)&g.group_width,
                    (void *)&chunk_rows, (void *)&dyn_first,  (void *)&dyn_tiles,
                    (void *)&d_next,     (void *)&p->binning, (void *)&bins,
                    (void *)&a->hist,    (void *)&d_stamps};
    *blocks = g.groups * g.chunks;
    return hist_launch_args(a->device, step8_for<STAMPED>(plan, fold), dim3(g.groups, g.chunks),
                            R6_THREADS, fold ? plan.smem : plan.smem_no_fold, stream, 1, args,
                            "step8_kernel");
}

/* ---- step 9: one channel of a few megabytes (small.cuh) ---- */

/** @brief Whether step 9's plan takes @p p: one channel of at most R6_SMALL_MAX_BYTES.
 *  @param p the problem @return true if it does */
static bool small_applies(const hist_problem *p) {
    return p->channels == 1 && hist_samples(p) <= R6_SMALL_MAX_BYTES;
}

/**
 * @brief Launch small_kernel() (cooperatively: every block resident, its last block zeroing the
 *        output) on small_grid()'s grid: sized to the data, at most one block per SM.
 * @param a the call's arguments (one channel)
 * @param stream the stream
 * @param d_stamps per-block phase stamps (the breakdown's), or NULL
 * @return HIST_OK or the CUDA error
 */
static hist_status launch_step9(const hist_args *a, cudaStream_t stream, uint64_t *d_stamps) {
    const hist_problem *p = a->problem;
    uint64_t n = hist_samples(p);
    uint32_t bins = hist_bins(p->binning), lo = p->binning.lo, hi = p->binning.hi,
             width = p->binning.width;
    void *args[] = {(void *)&a->samples, (void *)&n,    (void *)&lo,      (void *)&hi,
                    (void *)&width,      (void *)&bins, (void *)&a->hist, (void *)&d_stamps};
    return hist_launch_args(a->device, (const void *)small_kernel<uint32_t>,
                            dim3(small_grid(n, a->device->sm_count)), R6_SMALL_BLOCK, 0, stream, 1,
                            args, "small_kernel");
}

/* ---- the registry's entries, and the other programs' ---- */

/** @brief Step 7's registry entry: the output zeroed by a memset, then step7_kernel().
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_step7(const hist_args *a) {
    uint32_t blocks;
    return launch_step7<false>(a, true, 0, NULL, &blocks);
}

/** @brief The registry's entry point of the final kernel (`gpu_roofline`): step 9's plan where
 *  it applies (one channel of a few megabytes), else step 8.
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_final(const hist_args *a) {
    if (small_applies(a->problem))
        return launch_step9(a, 0, NULL);
    uint32_t blocks;
    return launch_step8<false>(a, 0, NULL, &blocks);
}

/** @brief Step 9's registry entry: the small-input plan alone (unsupported_small() says where).
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
hist_status run_step9(const hist_args *a) {
    return launch_step9(a, 0, NULL);
}

/**
 * @brief The final kernel for other programs: the CS149 file and day 07's pipelines (on their
 *        streams, adding each chunk's counts to the output).
 * @param a the call's arguments
 * @param zero 1: zero the output, as the registry entry does (step 8: inside the kernel; with
 *        `a->workspace` of any_workspace() bytes, day06_final_workspace(), also the dynamic
 *        tiles); 0: add to it (step 7's kernel, no memset)
 * @param stream the stream to queue the work on (0: the default stream)
 * @param blocks receives the number of blocks launched (grid x times grid y; 0: none)
 * @return HIST_OK or the CUDA error
 */
extern "C" hist_status day06_final_launch(const hist_args *a, int zero, cudaStream_t stream,
                                          uint32_t *blocks) {
    return zero ? launch_step8<false>(a, stream, NULL, blocks)
                : launch_step7<false>(a, false, stream, NULL, blocks);
}

/**
 * @brief The workspace day06_final_launch() can use (`a->workspace`) for step 8's dynamic tiles.
 * @param p the problem
 * @param dev the GPU
 * @return bytes
 */
extern "C" size_t day06_final_workspace(const hist_problem *p, const hist_device *dev) {
    return any_workspace(p, dev);
}

/**
 * @brief For day 07's pipelines: the final kernel's plan on @p dev, in one line.
 * @param p the problem
 * @param dev the GPU
 * @return the text
 */
extern "C" const char *day06_final_plan(const hist_problem *p, const hist_device *dev) {
    return describe_any_plan(p, dev);
}

/**
 * @brief For day 07's pipelines: why the final kernel cannot run @p p on @p dev, or NULL.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return the reason, or NULL
 */
extern "C" const char *day06_final_unsupported(const hist_problem *p, const hist_device *dev) {
    return unsupported_any(p, dev);
}

hist_status final_launch_stamped(const hist_args *a, int zero, cudaStream_t stream,
                                 uint64_t *d_stamps, uint32_t *blocks) {
    if (d_stamps == NULL)
        return day06_final_launch(a, zero, stream, blocks);
    return zero ? launch_step8<true>(a, stream, d_stamps, blocks)
                : launch_step7<true>(a, false, stream, d_stamps, blocks);
}

hist_status small_launch_stamped(const hist_args *a, cudaStream_t stream, uint64_t *d_stamps) {
    return launch_step9(a, stream, d_stamps);
}
