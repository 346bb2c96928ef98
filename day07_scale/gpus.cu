/**
 * @file gpus.cu
 * @brief `make gpus DAY=07`: how the histogram scales over the GPUs of one machine, with N GPUs
 *        for N = 1 .. every visible one (or `--max`), both ways, each against one GPU in the
 *        same run:
 *
 *  - weak scaling, each GPU its own dataset (the main preset's 512 MiB unless the options say
 *    otherwise), N times the work in t(N): speed-up N x t(1) / t(N);
 *    - data on the GPUs: each GPU counts its own copy with day 06's final kernel, then the sum is
 *      left on every GPU (day07_gpus_resident()) in two ways, each its own rows: every GPU
 *      reading the others' histograms over NVLink and adding them in one kernel ("peer add"),
 *      and NCCL's all-reduce; every GPU's L2 is flushed before each repetition;
 *    - data on the host: N copies in pinned host memory, each GPU pipelining its share
 *      (day07_gpus_host(), step 5 of pipeline.cu), the result back on the host; and, for what
 *      limits it, the same shares only copied, every GPU at once (the N-GPU pinned-copy floor),
 *      before each repetition of it;
 *  - strong scaling, the one dataset split by rows over the N GPUs (day07_split_rows(): shares
 *    that differ by a row where N does not divide the rows), each GPU counting only its share,
 *    then the same two sums: the same work in t(N), speed-up t(1) / t(N).
 *
 * "speed-up / N" is 1.00 for perfect scaling. Every result is checked exactly: N times the
 * reference histogram (weak), the one reference histogram (strong). Times on the host clock
 * (hist_time_calls()), from the first launch to the last GPU done; then, for the data on the
 * GPUs, where one call's time goes on 1 and on N GPUs (each GPU's count and sum by events, when
 * its host thread queued its count and saw it done). Prints a table; `--csv FILE` keeps it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "data.h"
#include "gpu.h"
#include "options.h"
#include "outfile.h"
#include "reference.h"
#include "resident.h"
#include "timing.h"

/** @brief GPUs this program drives at most (pipeline.cu's limit). */
#define GPUS_MAX DAY07_GPUS_MAX

extern "C" hist_status day07_gpus_host(const hist_args *a, int n);

/** @brief One kind of measurement: a row per GPU count. */
typedef struct pass {
    const char *label; /**< the table's "data" column */
    int strong;        /**< 1: the one dataset split over the GPUs; 0: a dataset per GPU */
    int peer;          /**< data on the GPUs: 1 the peer add, 0 ncclAllReduce */
    int host;          /**< 1: the data on the host (weak only) */
} pass;

/** @brief The measurements, in the table's order. */
static const pass passes[] = {
    {"on the GPUs (peer add)", 0, 1, 0},
    {"on the GPUs (ncclAllReduce)", 0, 0, 0},
    {"on the host", 0, 0, 1},
    {"split over the GPUs (peer add)", 1, 1, 0},
    {"split over the GPUs (ncclAllReduce)", 1, 0, 0},
};
/** @brief How many passes. */
#define PASSES (int)(sizeof passes / sizeof passes[0])

/** @brief Everything the measurements share. */
typedef struct bench {
    hist_options o;                 /**< the options (the dataset: one GPU's in weak scaling) */
    hist_device dev;                /**< GPU 0, opened with the options' emulation */
    int gpus;                       /**< GPUs measured: 1 .. gpus */
    int n;                          /**< GPUs of the point being timed */
    const pass *now;                /**< the pass being timed */
    hist_problem p;                 /**< the dataset */
    size_t bytes;                   /**< its bytes */
    uint8_t *h_slab;                /**< its data (pageable) */
    uint32_t *expected;             /**< its reference histogram */
    uint32_t *expected_n;           /**< what a point must sum to */
    uint32_t *got;                  /**< a result */
    uint8_t *d_samples[GPUS_MAX];   /**< each GPU's copy of the dataset */
    uint8_t *d_share[GPUS_MAX];     /**< each GPU's share of it (strong scaling) */
    hist_problem shares[GPUS_MAX];  /**< the shapes of the point being timed */
    day07_resident call;            /**< a call on resident data */
    hist_l2_flush *flush[GPUS_MAX]; /**< each GPU's L2 flush */
    cudaStream_t copy[GPUS_MAX];    /**< each GPU's stream for the copy floor */
    uint8_t *h_pinned;              /**< gpus x the dataset, pinned */
    double *copy_us;                /**< the copy floor's time before each host repetition */
    int copies;                     /**< how many of them so far */
    day07_phases *phases;           /**< where each call's time went (the phases' pass) */
    int phase_calls;                /**< how many of them so far */
} bench;

/** @brief Before each repetition on resident data: every used GPU's L2 flushed.
 *  @param ctx the bench @return HIST_OK or the CUDA error */
static hist_status flush_all(void *ctx) {
    const bench *b = (const bench *)ctx;
    hist_status s = HIST_OK;
    for (int i = 0; i < b->n && s == HIST_OK; ++i)
        s = hist_l2_flush_run(b->flush[i]);
    return s;
}

/** @brief One repetition on resident data: N GPUs count their rows and sum.
 *  @param ctx the bench @return HIST_OK or the error */
static hist_status resident_once(void *ctx) {
    const bench *b = (const bench *)ctx;
    return day07_gpus_resident(&b->dev, &b->call);
}

/** @brief One repetition on resident data, its phases kept (negative during the warm-up: not
 *  kept). @param ctx the bench @return HIST_OK or the error */
static hist_status phases_once(void *ctx) {
    bench *b = (bench *)ctx;
    const int k = b->phase_calls++;
    day07_phases scratch;
    b->call.phases = k >= 0 ? &b->phases[k] : &scratch;
    const hist_status s = day07_gpus_resident(&b->dev, &b->call);
    b->call.phases = NULL;
    return s;
}

/** @brief Before each repetition from the host: the N-GPU pinned-copy floor, once, timed here
 *        (each GPU's share copied from pinned memory, every GPU at once; the copies overwrite the
 *        GPUs' resident data with the same bytes). @param ctx the bench @return HIST_OK or the
 *        CUDA error */
static hist_status copies_once(void *ctx) {
    bench *b = (bench *)ctx;
    const double t0 = hist_now_us();
    for (int i = 0; i < b->n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaMemcpyAsync(b->d_samples[i], b->h_pinned + (size_t)i * b->bytes, b->bytes,
                                      cudaMemcpyHostToDevice, b->copy[i]));
    }
    for (int i = 0; i < b->n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaStreamSynchronize(b->copy[i]));
    }
    const int k = b->copies++; /* negative during the warm-up: not kept */
    if (k >= 0)
        b->copy_us[k] = hist_now_us() - t0;
    return HIST_OK;
}

/** @brief One repetition from the host: step 5 on N GPUs over N copies in pinned memory.
 *  @param ctx the bench @return HIST_OK or the error */
static hist_status host_once(void *ctx) {
    const bench *b = (const bench *)ctx;
    const hist_problem all = {b->p.rows * (uint64_t)b->n, b->p.channels, b->p.binning, b->p.bits};
    const hist_args a = {
        .problem = &all, .samples = b->h_pinned, .hist = b->got, .device = &b->dev, .threads = 1};
    return day07_gpus_host(&a, b->n);
}

/** @brief The call on resident data for the point (b->n GPUs, b->now): weak, each GPU its whole
 *  copy; strong, GPU i's share of the rows copied to the start of its share buffer (where a
 *  whole input starts), untimed. @param b the bench @return HIST_OK or the CUDA error */
static hist_status point_call(bench *b) {
    uint64_t first[GPUS_MAX];
    day07_split_rows(&b->p, b->n, b->shares, first);
    for (int i = 0; i < b->n; ++i) {
        if (!b->now->strong) {
            b->shares[i] = b->p;
            continue;
        }
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaMemcpy(b->d_share[i], b->d_samples[i] + first[i] * b->p.channels,
                                 (size_t)hist_samples(&b->shares[i]), cudaMemcpyDeviceToDevice));
        /* a copy within one GPU returns before it is done, and the count runs on a stream that
           does not wait for the default one: the copy is waited for here */
        HIST_CUDA_TRY(cudaDeviceSynchronize());
    }
    HIST_CUDA_TRY(cudaSetDevice(0));
    b->call = (day07_resident){
        .n = b->n,
        .d_samples = (const uint8_t *const *)(b->now->strong ? b->d_share : b->d_samples),
        .shares = b->shares,
        .peer = b->now->peer,
        .h_hist = NULL,
        .phases = NULL};
    return HIST_OK;
}

/** @brief One call of the point, its sum checked exactly: N times the reference (weak) or the
 *  reference (strong). @param b the bench @return HIST_OK, HIST_ERR_MISMATCH or the error */
static hist_status checked_call(bench *b) {
    const uint64_t counters = hist_counters(&b->p);
    const uint32_t times = b->now->strong ? 1 : (uint32_t)b->n;
    for (uint64_t k = 0; k < counters; ++k)
        b->expected_n[k] = times * b->expected[k];
    memset(b->got, 0xAB, (size_t)counters * sizeof *b->got); /* poisoned: a sum must be written */
    b->call.h_hist = b->got;
    hist_status s = b->now->host ? host_once(b) : day07_gpus_resident(&b->dev, &b->call);
    b->call.h_hist = NULL;
    if (s == HIST_OK && hist_verify(&b->p, b->expected_n, b->got, 3, stderr) != 0)
        s = hist_fail(HIST_ERR_MISMATCH, "%d GPUs, %s: not exact", b->n, b->now->label);
    return s;
}

/** @brief Time the point (b->n GPUs, b->now) after one checked call. @param b the bench
 *  @param us its median @param copy_us the copy floor's median (data on the host)
 *  @return HIST_OK, HIST_ERR_MISMATCH or the error */
static hist_status time_point(bench *b, double *us, double *copy_us) {
    hist_stats t;
    *us = *copy_us = 0;
    hist_status s = b->now->host ? HIST_OK : point_call(b);
    if (s == HIST_OK)
        s = checked_call(b);
    b->copies = -b->o.warmup; /* the warm-up's copies are not kept */
    if (s == HIST_OK && !b->now->host)
        s = hist_time_calls(resident_once, flush_all, b, b->o.warmup, b->o.reps, &t, NULL);
    else if (s == HIST_OK)
        s = hist_time_calls(host_once, copies_once, b, b->o.warmup, b->o.reps, &t, NULL);
    if (s != HIST_OK)
        return s;
    *us = t.median_us;
    if (b->now->host)
        *copy_us = hist_stats_of(b->copy_us, b->o.reps).median_us;
    return HIST_OK;
}

/** @brief Allocate, fill and copy everything the measurements need.
 * @param b the measurements (options, device and gpus set) @return HIST_OK or the error */
static hist_status setup(bench *b) {
    b->p = b->o.data.problem;
    b->bytes = (size_t)hist_samples(&b->p);
    const size_t hist_bytes = (size_t)hist_counters(&b->p) * sizeof(uint32_t);
    hist_status s =
        hist_host_memory_check((uint64_t)b->bytes * (b->gpus + 1), "the dataset and its copies");
    if (s != HIST_OK)
        return s;
    b->h_slab = (uint8_t *)malloc(b->bytes ? b->bytes : 1);
    b->expected = (uint32_t *)malloc(hist_bytes);
    b->expected_n = (uint32_t *)malloc(hist_bytes);
    b->got = (uint32_t *)malloc(hist_bytes);
    b->copy_us = (double *)calloc((size_t)b->o.reps, sizeof(double));
    b->phases = (day07_phases *)calloc((size_t)b->o.reps, sizeof(day07_phases));
    if (!b->h_slab || !b->expected || !b->expected_n || !b->got || !b->copy_us || !b->phases)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    if ((s = hist_generate(&b->o.data, b->h_slab)) != HIST_OK)
        return s;
    hist_reference_parallel(&b->p, b->h_slab, b->expected);
    void *pinned = NULL;
    if ((s = hist_host_pinned_alloc(&pinned, b->bytes * (size_t)b->gpus)) != HIST_OK)
        return s;
    b->h_pinned = (uint8_t *)pinned;
    for (int i = 0; i < b->gpus; ++i)
        memcpy(b->h_pinned + (size_t)i * b->bytes, b->h_slab, b->bytes);
    for (int i = 0; i < b->gpus && s == HIST_OK; ++i) {
        hist_device dev;
        if ((s = hist_device_read(i, &b->o.emulation, &dev)) == HIST_OK)
            s = hist_l2_flush_create(&b->flush[i], &dev);
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaMalloc((void **)&b->d_samples[i], b->bytes ? b->bytes : 1));
        HIST_CUDA_TRY(cudaMalloc((void **)&b->d_share[i], b->bytes ? b->bytes : 1));
        HIST_CUDA_TRY(cudaStreamCreateWithFlags(&b->copy[i], cudaStreamNonBlocking));
        HIST_CUDA_TRY(cudaMemcpy(b->d_samples[i], b->h_slab, b->bytes, cudaMemcpyHostToDevice));
    }
    return s;
}

/** @brief Free what setup() made. @param b the measurements */
static void teardown(bench *b) {
    for (int i = 0; i < b->gpus; ++i) {
        cudaSetDevice(i);
        cudaFree(b->d_samples[i]);
        cudaFree(b->d_share[i]);
        hist_l2_flush_destroy(b->flush[i]);
        if (b->copy[i])
            cudaStreamDestroy(b->copy[i]);
    }
    cudaSetDevice(0);
    hist_host_pinned_free(b->h_pinned);
    free(b->h_slab);
    free(b->expected);
    free(b->expected_n);
    free(b->got);
    free(b->copy_us);
    free(b->phases);
}

/** @brief Print one row and add it to the CSV. @param b the bench @param us the point's median
 *  @param first the same pass's median on one GPU @param copy_us the copy floor's median
 *  @param csv the CSV, or NULL */
static void print_row(const bench *b, double us, double first, double copy_us, FILE *csv) {
    const int n = b->n;
    const double work = b->now->strong ? 1.0 : (double)n; /* datasets counted in t(N) */
    const double gbs = (double)b->bytes * work / (us * 1e3);
    const double speedup = work * first / us;
    const char *scaling = b->now->strong ? "strong" : "weak";
    char copy[32] = "-", copy_gbs[32] = "-";
    if (b->now->host) {
        snprintf(copy, sizeof copy, "%.3f", copy_us / 1e3);
        snprintf(copy_gbs, sizeof copy_gbs, "%.1f", (double)b->bytes * n / (copy_us * 1e3));
    }
    printf("%-6s %-35s %4d %7.3f ms %9.1f %8.2fx %7.2f %7s ms %9s  %s\n", scaling, b->now->label, n,
           us / 1e3, gbs, speedup, speedup / n, copy, copy_gbs, "exact");
    if (csv)
        fprintf(csv, "%s,%d,%.3f,%.1f,%.2fx,%.2f,%s,%s,%s,%s\n", b->now->label, n, us / 1e3, gbs,
                speedup, speedup / n, copy, copy_gbs, "exact", scaling);
}

/** @brief Measure every pass and N, N by N (the passes of one N side by side: NCCL's
 *  communicator is made once per N, and a drift of the machine over the run falls on every pass
 *  alike), then print them pass by pass; the CSV rows to @p csv if not NULL.
 * @param b the measurements @param csv the CSV, or NULL @return HIST_OK or the error */
static hist_status measure(bench *b, FILE *csv) {
    double us[PASSES][GPUS_MAX], copy_us[PASSES][GPUS_MAX];
    for (b->n = 1; b->n <= b->gpus; ++b->n)
        for (int k = 0; k < PASSES; ++k) {
            b->now = &passes[k];
            const hist_status s = time_point(b, &us[k][b->n - 1], &copy_us[k][b->n - 1]);
            if (s != HIST_OK)
                return s;
        }
    printf("%-6s %-35s %4s %10s %9s %9s %7s %10s %9s  %s\n", "", "data", "GPUs", "median", "GB/s",
           "speed-up", "/ N", "copy only", "GB/s", "check");
    if (csv)
        fprintf(csv, "data,GPUs,median (ms),GB/s,speed-up,speed-up / N,copy only (ms),"
                     "copy GB/s,check,scaling\n");
    for (int k = 0; k < PASSES; ++k) {
        b->now = &passes[k];
        for (b->n = 1; b->n <= b->gpus; ++b->n)
            print_row(b, us[k][b->n - 1], us[k][0], copy_us[k][b->n - 1], csv);
    }
    return HIST_OK;
}

/** @brief The median over the repetitions of one phase of GPU @p g (0: its count queued, 1: its
 *  count, 2: its sum, 3: seen done). @param b the bench @param g the GPU @param phase which
 *  @param tmp room for the repetitions @return the median (us) */
static double median_phase(const bench *b, int g, int phase, double *tmp) {
    for (int k = 0; k < b->o.reps; ++k) {
        const day07_phases *ph = &b->phases[k];
        const double v[4] = {ph->queued_us[g], ph->count_us[g], ph->sum_us[g], ph->done_us[g]};
        tmp[k] = v[phase];
    }
    return hist_stats_of(tmp, b->o.reps).median_us;
}

/** @brief Where one call's time goes on b->n GPUs (the pass b->now): each GPU's medians.
 *  @param b the bench @return HIST_OK or the error */
static hist_status print_phases(bench *b) {
    hist_status s = point_call(b);
    b->phase_calls = -b->o.warmup;
    hist_stats t;
    if (s == HIST_OK)
        s = hist_time_calls(phases_once, flush_all, b, b->o.warmup, b->o.reps, &t, NULL);
    if (s != HIST_OK)
        return s;
    printf("# %s, %d GPU%s: the call %.1f us (median of %d, events recorded); each GPU's medians"
           " (us): its count queued at, the count, the sum after it (waits included), its end"
           " seen at\n",
           b->now->label, b->n, b->n == 1 ? "" : "s", t.median_us, b->o.reps);
    for (int g = 0; g < b->n; ++g)
        printf("#   GPU %d: %8.1f %8.1f %8.1f %8.1f\n", g, median_phase(b, g, 0, b->copy_us),
               median_phase(b, g, 1, b->copy_us), median_phase(b, g, 2, b->copy_us),
               median_phase(b, g, 3, b->copy_us));
    return HIST_OK;
}

/** @brief The phases of the peer add on 1 and on every GPU, both scalings.
 *  @param b the bench @return HIST_OK or the error */
static hist_status phases(bench *b) {
    hist_status s = HIST_OK;
    for (int k = 0; k < PASSES && s == HIST_OK; ++k) {
        if (!passes[k].peer)
            continue;
        b->now = &passes[k];
        const int counts[2] = {1, b->gpus}; /* one GPU, then every GPU */
        for (int c = 0; c < (b->gpus > 1 ? 2 : 1) && s == HIST_OK; ++c) {
            b->n = counts[c];
            s = print_phases(b);
        }
    }
    return s;
}

/**
 * @brief The program: options, setup, the measurements.
 * @param argc argument count
 * @param argv the course's dataset options, `--max N`, `--reps`, `--warmup`, `--csv FILE`
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses"): 0, 1 on a mismatch, 2 on a usage
 *         error, 3 on another failure, 4 without a GPU
 */
int main(int argc, char **argv) {
    bench b = {}; /* zeroed: every field starts empty */
    int max = GPUS_MAX;
    const hist_extra_option extra[] = {
        {.name = "max",
         .value = "N",
         .help = "GPUs at most (default: every visible one)",
         .min = 1,
         .max = GPUS_MAX,
         .whole = &max},
    };
    const hist_program prog = {
        .name = "gpus",
        .about = "Day 07: the histogram on 1 .. N GPUs of this machine, weak and strong scaling.",
        .refused = "input save-input output results impl threads require-gpu list",
        .extra = extra,
        .n_extra = 1,
        .reps = 11,
    };
    const int done = hist_program_options(&prog, argc, argv, &b.o);
    if (done >= 0)
        return done;
    hist_status s = hist_device_open(&b.o.emulation, &b.dev);
    const int visible = s == HIST_OK ? hist_gpu_count() : 0;
    b.gpus = visible < max ? visible : max;
    if (s == HIST_OK)
        printf("# %d x %s; weak scaling: %.0f MiB per GPU; strong scaling: the same %.0f MiB split"
               " by rows; median of %d runs after %d warm-up\n",
               b.gpus, b.dev.name, hist_samples(&b.o.data.problem) / 1048576.0,
               hist_samples(&b.o.data.problem) / 1048576.0, b.o.reps, b.o.warmup);
    hist_outfile csv = {NULL, NULL, NULL};
    if (s == HIST_OK)
        s = setup(&b);
    if (s == HIST_OK && b.o.csv)
        s = hist_outfile_open(&csv, b.o.csv);
    if (s == HIST_OK)
        s = measure(&b, csv.f);
    if (s == HIST_OK && b.o.csv)
        s = hist_outfile_commit(&csv);
    hist_outfile_discard(&csv);
    if (s == HIST_OK)
        s = phases(&b);
    teardown(&b);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    return 0;
}
