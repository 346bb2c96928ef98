/**
 * @file breakdown.cu
 * @brief Day 06: where the time between the final kernel and the floor goes (`make breakdown
 *        DAY=06`).
 *
 * On the main preset (uniform and constant data), or its bytes as other channels, each
 * timed like the harness times everything (CUDA events, L2 flushed before each run, median of
 * many): the two floors, an empty kernel (what the timer itself costs), the output's memset
 * alone, the final kernel without it, step 7 (`gpu_r6_v7_any_shape`: memset, then the kernel)
 * and step 8 (`gpu_roofline`: the kernel zeroes the output itself). Then one run of step 8 with
 * every block stamping its phases with the GPU's nanosecond clock (%globaltimer): when blocks
 * start, how long zeroing the histogram takes, when counting ends (first, median and last
 * block), how long the flush takes.
 *
 * On one channel of a few megabytes (GPU MODE's sizes, `--preset pmpp:K`), where step 9 takes
 * over: the same lines, where step 8 is the grid planned for 512 MiB, then an empty cooperative
 * launch of step 9's grid, step 9 itself, and one run of step 9 stamped the same way (when its
 * blocks start, finish counting, have summed their lanes, and are through the gate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "data.h"
#include "device.cuh"
#include "final.cuh"
#include "gpu.h"
#include "options.h"
#include "plan.cuh"
#include "small.cuh"

/** @brief The phases each block stamps (final.cuh's stamp_at). */
#define BREAKDOWN_STAMPS STAMPS

/** @brief What each timed launch gets. */
typedef struct breakdown_ctx {
    hist_args args;     /**< the final kernel's arguments */
    int small;          /**< 1: step 9 (small.cuh) instead of steps 7 and 8 */
    int zero;           /**< 1: the kernel zeroes the output (step 8); 0: it adds to it */
    int memset;         /**< memset the output first */
    int kernel;         /**< launch the kernel */
    uint64_t *d_stamps; /**< stamps, or NULL */
    uint32_t blocks;    /**< blocks of the last launch */
    int warmup;         /**< untimed runs before each median */
    int reps;           /**< runs behind each median */
} breakdown_ctx;

/** @brief On a CUDA error, set the message and jump to `done` (s holds the status). */
#define BREAKDOWN_TRY(call)                                                                        \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            s = hist_fail(HIST_ERR_CUDA, "%s: %s", #call, cudaGetErrorString(e_));                 \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/** @brief A kernel that does nothing: the timer's own cost. */
__global__ void empty_kernel() {}

/** @brief Threads of the empty kernel's one block (a warp). */
#define EMPTY_THREADS 32

/** @brief Queue an empty kernel.
 * @param ctx the breakdown_ctx (its device)
 * @return its launch status
 */
static hist_status launch_empty(void *ctx) {
    const hist_args *a = &((breakdown_ctx *)ctx)->args;
    return hist_launch(a->device, empty_kernel, dim3(1), EMPTY_THREADS, 0, 0, "empty_kernel");
}

/** @brief Queue an empty kernel on step 9's grid, launched as step 9 is (cooperatively).
 * @param ctx the breakdown_ctx (its problem sizes the grid)
 * @return its launch status
 */
static hist_status launch_empty_small(void *ctx) {
    const hist_args *a = &((breakdown_ctx *)ctx)->args;
    return hist_launch_args(a->device, (const void *)empty_kernel,
                            dim3(small_grid(hist_samples(a->problem), a->device->sm_count)),
                            R6_SMALL_BLOCK, 0, 0, 1, NULL, "empty_kernel");
}

/** @brief Queue the memset, the kernel, or both.
 * @param ctx a breakdown_ctx
 * @return the launch status
 */
static hist_status launch_final(void *ctx) {
    breakdown_ctx *b = (breakdown_ctx *)ctx;
    if (b->memset)
        HIST_CUDA_TRY(
            cudaMemsetAsync(b->args.hist, 0, hist_counters(b->args.problem) * sizeof(uint32_t)));
    if (!b->kernel)
        return HIST_OK;
    if (b->small)
        return small_launch_stamped(&b->args, 0, b->d_stamps);
    /* step 8 (zero) or step 7 adding; stamped where d_stamps is set, else the registry's kernels */
    return final_launch_stamped(&b->args, b->zero, 0, b->d_stamps, &b->blocks);
}

/** @brief Print one timed line.
 * @param label what was timed
 * @param st its statistics
 */
static void line(const char *label, const hist_stats *st) {
    printf("  %-52s %8.1f us (min %.1f)\n", label, st->median_us, st->min_us);
}

/** @brief Compare two doubles for qsort.
 * @param a one
 * @param b the other
 * @return -1, 0 or 1
 */
static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** @brief Sort @p v and return its median.
 * @param v the values
 * @param n how many
 * @return the median
 */
static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/** @brief Time one configuration of launch_final() and print its line.
 * @param dev the GPU @param b what to launch @param label the line's label
 * @param st its statistics @return HIST_OK or the error */
static hist_status timed(const hist_device *dev, breakdown_ctx *b, const char *label,
                         hist_stats *st) {
    hist_status s = hist_gpu_time_work(dev, launch_final, b, b->warmup, b->reps, st);
    if (s == HIST_OK)
        line(label, st);
    return s;
}

/** @brief The floors, the timer's cost, then the memset, the kernel and both, each alone.
 * @param dev the GPU @param g the session (the floors) @param b the final kernel's launch
 * @return HIST_OK or the error */
static hist_status time_phases(const hist_device *dev, hist_gpu *g, breakdown_ctx *b) {
    hist_stats st;
    hist_status s = hist_gpu_time_floor(g, b->warmup, b->reps, &st);
    if (s != HIST_OK)
        return s;
    line("floor: read once, L2 flushed (dirty lines written back)", &st);
    if ((s = hist_gpu_time_floor_clean(g, b->warmup, b->reps, &st)) != HIST_OK)
        return s;
    line("floor: read once, clean L2", &st);
    if ((s = hist_gpu_time_work(dev, launch_empty, b, b->warmup, b->reps, &st)) != HIST_OK)
        return s;
    line("empty kernel (the timer's own cost)", &st);
    b->zero = 0, b->memset = 1, b->kernel = 0;
    if ((s = timed(dev, b, "memset of the output alone", &st)) != HIST_OK)
        return s;
    b->memset = 0, b->kernel = 1;
    if ((s = timed(dev, b, "final kernel alone (output not zeroed)", &st)) != HIST_OK)
        return s;
    b->memset = 1;
    if ((s = timed(dev, b, "step 7: memset + kernel", &st)) != HIST_OK)
        return s;
    b->memset = 0, b->zero = 1;
    return timed(dev, b, "gpu_roofline (step 8): the kernel zeroes the output", &st);
}

/** @brief Print the phases of one run from its blocks' stamps: when the last block starts, the
 *  zeroing, when counting is done (first, median, last block), the flush, the span.
 * @param h_stamps `[n][BREAKDOWN_STAMPS]` nanosecond stamps @param n blocks
 * @param run_us the run's time between events @return HIST_OK, or out of memory */
static hist_status print_stamps(const uint64_t *h_stamps, size_t n, double run_us) {
    double *zero = (double *)malloc(n * sizeof(double));
    double *counted = (double *)malloc(n * sizeof(double));
    double *flush = (double *)malloc(n * sizeof(double));
    if (!zero || !counted || !flush) {
        free(zero), free(counted), free(flush);
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    }
    uint64_t t0 = UINT64_MAX, last_start = 0, last_end = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t *t = h_stamps + i * BREAKDOWN_STAMPS;
        t0 = t[0] < t0 ? t[0] : t0;
        last_start = t[0] > last_start ? t[0] : last_start;
        last_end = t[3] > last_end ? t[3] : last_end;
    }
    for (size_t i = 0; i < n; ++i) {
        const uint64_t *t = h_stamps + i * BREAKDOWN_STAMPS;
        zero[i] = (t[1] - t[0]) * 1e-3;
        counted[i] = (t[2] - t0) * 1e-3;
        flush[i] = (t[3] - t[2]) * 1e-3;
    }
    /* median() sorts: afterwards [0] is the smallest and [n - 1] the largest */
    const double zero_med = median(zero, n), flush_med = median(flush, n);
    const double counted_med = median(counted, n);
    printf(" inside one run of the kernel (%%globaltimer stamps of its %zu blocks, us after "
           "the first block starts; this run %.1f us between events):\n",
           n, run_us);
    printf("  %-52s %8.1f\n", "last block starts", (last_start - t0) * 1e-3);
    printf("  %-52s %8.1f\n", "zeroing the shared histogram (median block)", zero_med);
    printf("  %-52s %8.1f\n", "counting done: first block", counted[0]);
    printf("  %-52s %8.1f\n", "counting done: median block", counted_med);
    printf("  %-52s %8.1f\n", "counting done: last block", counted[n - 1]);
    printf("  %-52s %8.1f\n", "flush (median block)", flush_med);
    printf("  %-52s %8.1f\n", "flush (longest)", flush[n - 1]);
    printf("  %-52s %8.1f\n", "last flush done (the kernel's span)", (last_end - t0) * 1e-3);
    free(zero), free(counted), free(flush);
    return HIST_OK;
}

/** @brief One stamped run of step 8 (after a warm-up, the L2 flushed before it like every run),
 *  its stamps read back and printed. @param dev the GPU @param b the launch, its d_stamps set
 *  @return HIST_OK or the error */
static hist_status stamped_run(const hist_device *dev, breakdown_ctx *b) {
    hist_stats st;
    hist_status s = hist_gpu_time_work(dev, launch_final, b, 1, 1, &st);
    if (s != HIST_OK)
        return s;
    const size_t n = b->blocks;
    uint64_t *h_stamps = (uint64_t *)malloc(n * BREAKDOWN_STAMPS * sizeof(uint64_t));
    if (!h_stamps)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    s = HIST_OK;
    BREAKDOWN_TRY(cudaMemcpy(h_stamps, b->d_stamps, n * BREAKDOWN_STAMPS * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost));
    s = print_stamps(h_stamps, n, st.median_us);
done:
    free(h_stamps);
    return s;
}

/** @brief Step 9's lines: an empty cooperative launch of its grid, then step 9 itself.
 * @param dev the GPU @param b the launch @return HIST_OK or the error */
static hist_status time_small(const hist_device *dev, breakdown_ctx *b) {
    hist_stats st;
    hist_status s = hist_gpu_time_work(dev, launch_empty_small, b, b->warmup, b->reps, &st);
    if (s != HIST_OK)
        return s;
    line("empty cooperative launch of step 9's grid", &st);
    b->small = 1, b->memset = 0, b->kernel = 1;
    return timed(dev, b, "step 9 (gpu_r6_v9_small)", &st);
}

/** @brief Print one run of step 9 from its counting blocks' stamps (the zeroing block stamps only
 *  its start): when the last starts, when counting is done (first, median, last block), the
 *  lanes summed and the gate passed (median, last).
 * @param t `[n][SMALL_STAMPS]` nanosecond stamps @param n counting blocks
 * @param run_us the run's time between events @return HIST_OK, or out of memory */
static hist_status print_small_stamps(const uint64_t *t, size_t n, double run_us) {
    double *at[SMALL_STAMPS];
    for (int k = 0; k < SMALL_STAMPS; ++k)
        at[k] = (double *)malloc(n * sizeof(double));
    hist_status s = HIST_OK;
    for (int k = 0; k < SMALL_STAMPS; ++k)
        if (!at[k])
            s = hist_fail(HIST_ERR_NOMEM, "out of host memory");
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; s == HIST_OK && i < n; ++i)
        t0 = t[i * SMALL_STAMPS] < t0 ? t[i * SMALL_STAMPS] : t0;
    for (size_t i = 0; s == HIST_OK && i < n; ++i)
        for (int k = 0; k < SMALL_STAMPS; ++k)
            at[k][i] = (t[i * SMALL_STAMPS + k] - t0) * 1e-3;
    if (s == HIST_OK) {
        double med[SMALL_STAMPS];
        for (int k = 0; k < SMALL_STAMPS; ++k) /* sorted: [0] the first, [n - 1] the last */
            med[k] = median(at[k], n);
        printf(" inside one run of step 9 (%%globaltimer stamps of its %zu counting blocks, us "
               "after the first starts; this run %.1f us between events):\n",
               n, run_us);
        printf("  %-52s %8.2f\n", "last block starts", at[0][n - 1]);
        printf("  %-52s %8.2f\n", "counting done: first block", at[1][0]);
        printf("  %-52s %8.2f\n", "counting done: median block", med[1]);
        printf("  %-52s %8.2f\n", "counting done: last block", at[1][n - 1]);
        printf("  %-52s %8.2f\n", "lanes summed: median block", med[2]);
        printf("  %-52s %8.2f\n", "through the gate (output zeroed): median block", med[3]);
        printf("  %-52s %8.2f\n", "through the gate: last block", at[3][n - 1]);
    }
    for (int k = 0; k < SMALL_STAMPS; ++k)
        free(at[k]);
    return s;
}

/** @brief One stamped run of step 9 (after a warm-up, the L2 flushed before it), its stamps read
 *  back and printed. @param dev the GPU @param b the launch, its d_stamps set
 *  @return HIST_OK or the error */
static hist_status stamped_small_run(const hist_device *dev, breakdown_ctx *b) {
    hist_stats st;
    const size_t n = small_grid(hist_samples(b->args.problem), dev->sm_count) - 1;
    uint64_t *h_stamps = (uint64_t *)malloc(n * SMALL_STAMPS * sizeof(uint64_t));
    if (!h_stamps)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    hist_status s = hist_gpu_time_work(dev, launch_final, b, 1, 1, &st);
    if (s != HIST_OK)
        goto done;
    BREAKDOWN_TRY(cudaMemcpy(h_stamps, b->d_stamps, n * SMALL_STAMPS * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost));
    s = print_small_stamps(h_stamps, n, st.median_us);
done:
    free(h_stamps);
    return s;
}

/** @brief Time everything on the options' dataset and print it.
 * @param dev the GPU
 * @param o the options (the dataset, the repetitions)
 * @return HIST_OK or the error
 */
static hist_status breakdown(const hist_device *dev, const hist_options *o) {
    const hist_dataset d = o->data;
    hist_status s = HIST_OK;
    const hist_problem *p = &d.problem;
    const size_t bytes = hist_samples(p);
    uint8_t *h = (uint8_t *)malloc(bytes);
    if (!h)
        return hist_fail(HIST_ERR_NOMEM, "cannot allocate %zu bytes", bytes);
    if ((s = hist_generate(&d, h)) != HIST_OK) {
        free(h);
        return s;
    }
    hist_gpu *g = NULL;
    breakdown_ctx b = {{p, NULL, NULL, NULL, dev, 1}, 0, 0, 0, 0, NULL, 0, o->warmup, o->reps};
    uint8_t *d_samples = NULL;
    uint32_t *d_hist = NULL;
    void *d_ws = NULL;
    char name[64];
    hist_dist_format(d.dist, name, sizeof name);
    if ((s = hist_gpu_create(&g, dev, p, h, 0)) != HIST_OK)
        goto done;
    BREAKDOWN_TRY(cudaMalloc(&d_samples, bytes));
    BREAKDOWN_TRY(cudaMemcpy(d_samples, h, bytes, cudaMemcpyHostToDevice));
    BREAKDOWN_TRY(cudaMalloc(&d_hist, hist_counters(p) * sizeof(uint32_t)));
    BREAKDOWN_TRY(cudaMalloc(&d_ws, any_workspace(p, dev)));
    BREAKDOWN_TRY(
        cudaMalloc(&b.d_stamps, ((size_t)dev->sm_count + p->channels / 32 + 2) * BREAKDOWN_STAMPS *
                                    sizeof(uint64_t))); /* max(SMs, groups) */
    b.args.samples = d_samples;
    b.args.hist = d_hist;
    b.args.workspace = d_ws;
    printf("breakdown on %s (%d SMs): preset %s (%llu x %u, %s), medians of %d runs, L2 "
           "flushed before each\n",
           dev->name, dev->sm_count, o->preset, (unsigned long long)p->rows, p->channels, name,
           o->reps);
    {
        uint64_t *d_stamps = b.d_stamps;
        b.d_stamps = NULL; /* the timed runs stamp nothing */
        s = time_phases(dev, g, &b);
        if (s == HIST_OK && unsupported_small(p, dev) == NULL) /* step 9's plan applies */
            s = time_small(dev, &b);
        b.d_stamps = d_stamps;
    }
    if (s == HIST_OK)
        s = b.small ? stamped_small_run(dev, &b) : stamped_run(dev, &b);
done:
    cudaFree(d_samples);
    cudaFree(d_hist);
    cudaFree(b.d_stamps);
    cudaFree(d_ws);
    hist_gpu_destroy(g);
    free(h);
    return s;
}

/**
 * @brief Run the breakdown on the dataset the options give (`make measure` runs the main preset's
 *        uniform and constant data, and its bytes as 510 and 513 channels), or say why not.
 * @param argc argument count
 * @param argv the course's dataset options, `--reps`, `--warmup`, `--gpu-limits`
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses": 0 done, 2 bad arguments, 3 a
 *         failure, 4 no GPU)
 */
int main(int argc, char **argv) {
    const hist_program prog = {
        .name = "breakdown",
        .about = "Day 06: where the time between the final kernel and the floor goes.",
        .refused = "input save-input output csv results impl threads require-gpu list",
        .reps = 51,
        .warmup = 2,
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    hist_device dev;
    const hist_status s = hist_device_open(&o.emulation, &dev);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    if (breakdown(&dev, &o) != HIST_OK) {
        fprintf(stderr, "breakdown: %s\n", hist_last_error());
        return 3;
    }
    return 0;
}
