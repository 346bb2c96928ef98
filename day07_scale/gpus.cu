/**
 * @file gpus.cu
 * @brief `make gpus DAY=07`: how the histogram scales over the GPUs of one machine, with N GPUs
 *        for N = 1 .. every visible one (or `--max`), each GPU holding (or being sent) one
 *        dataset (the main preset's 512 MiB unless the options say otherwise): weak scaling.
 *
 *  - data on the GPUs: each GPU counts its own copy with day 06's kernel, then the sum is left on
 *    every GPU (day07_gpus_resident()) in two ways, each its own rows: every GPU reading the
 *    others' histograms over NVLink and adding them in one kernel ("peer add"), and NCCL's
 *    all-reduce; every GPU's L2 is flushed before each repetition;
 *  - data on the host: N copies in pinned host memory, each GPU pipelining its share
 *    (day07_gpus_host(), step 5 of pipeline.cu), the result back on the host; and, for what
 *    limits it, the same shares only copied, every GPU at once (the N-GPU pinned-copy floor),
 *    before each repetition of it.
 *
 * Speed-up is N x t(1) / t(N): N times the work in t(N). Every result is checked exactly (N times
 * the reference histogram). Times on the host clock (hist_time_calls()); prints a table;
 * `--csv FILE` keeps it for the README.
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
#include "timing.h"

/** @brief GPUs this program drives at most (pipeline.cu's limit). */
#define GPUS_MAX 16

extern "C" hist_status day07_gpus_resident(const hist_device *first, int n,
                                           const uint8_t *const *d_samples, const hist_problem *p,
                                           uint32_t *h_hist, int peer);
extern "C" hist_status day07_gpus_host(const hist_args *a, int n);

/** @brief Everything the measurements share. */
typedef struct bench {
    hist_options o;                 /**< the options (the dataset is one GPU's share) */
    hist_device dev;                /**< GPU 0, opened with the options' emulation */
    int gpus;                       /**< GPUs measured: 1 .. gpus */
    int n;                          /**< GPUs of the point being timed */
    int peer;                       /**< data on the GPUs: 1 the peer add, 0 ncclAllReduce */
    hist_problem p;                 /**< one GPU's share */
    size_t bytes;                   /**< its bytes */
    uint8_t *h_slab;                /**< its data (pageable) */
    uint32_t *expected;             /**< its reference histogram */
    uint32_t *expected_n;           /**< n times it */
    uint32_t *got;                  /**< a result */
    uint8_t *d_samples[GPUS_MAX];   /**< each GPU's copy of the slab */
    hist_l2_flush *flush[GPUS_MAX]; /**< each GPU's L2 flush */
    cudaStream_t copy[GPUS_MAX];    /**< each GPU's stream for the copy floor */
    uint8_t *h_pinned;              /**< gpus x the slab, pinned */
    double *copy_us;                /**< the copy floor's time before each host repetition */
    int copies;                     /**< how many of them so far */
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

/** @brief One repetition on resident data: N GPUs count their copies and sum.
 *  @param ctx the bench @return HIST_OK or the error */
static hist_status resident_once(void *ctx) {
    const bench *b = (const bench *)ctx;
    return day07_gpus_resident(&b->dev, b->n, (const uint8_t *const *)b->d_samples, &b->p, NULL,
                               b->peer);
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
    const hist_problem all = {b->p.rows * (uint64_t)b->n, b->p.channels, b->p.binning};
    const hist_args a = {
        .problem = &all, .samples = b->h_pinned, .hist = b->got, .device = &b->dev, .threads = 1};
    return day07_gpus_host(&a, b->n);
}

/** @brief Time one point (pass 0, 1: resident with the peer add or NCCL; 2: from the host) after
 *        one checked call. @param b the bench @param pass which @param us its median
 *  @param copy_us the copy floor's median (pass 2) @return HIST_OK, HIST_ERR_MISMATCH or the
 *  error */
static hist_status time_point(bench *b, int pass, double *us, double *copy_us) {
    hist_stats t, c;
    b->peer = pass == 0;
    hist_status s = pass < 2
                        ? day07_gpus_resident(&b->dev, b->n, (const uint8_t *const *)b->d_samples,
                                              &b->p, b->got, b->peer)
                        : host_once(b);
    const uint64_t counters = hist_counters(&b->p);
    for (uint64_t k = 0; k < counters; ++k)
        b->expected_n[k] = (uint32_t)b->n * b->expected[k];
    if (s == HIST_OK && hist_verify(&b->p, b->expected_n, b->got, 3, stderr) != 0)
        return hist_fail(HIST_ERR_MISMATCH, "%d GPUs, pass %d: not exact", b->n, pass);
    b->copies = -b->o.warmup; /* the warm-up's copies are not kept */
    if (s == HIST_OK && pass < 2)
        s = hist_time_calls(resident_once, flush_all, b, b->o.warmup, b->o.reps, &t, NULL);
    else if (s == HIST_OK)
        s = hist_time_calls(host_once, copies_once, b, b->o.warmup, b->o.reps, &t, NULL);
    if (s != HIST_OK)
        return s;
    *us = t.median_us;
    if (pass == 2) {
        c = hist_stats_of(b->copy_us, b->o.reps);
        *copy_us = c.median_us;
    }
    return HIST_OK;
}

/** @brief Allocate, fill and copy everything the measurements need.
 * @param b the measurements (options, device and gpus set) @return HIST_OK or the error */
static hist_status setup(bench *b) {
    b->p = b->o.data.problem;
    b->bytes = (size_t)hist_samples(&b->p);
    const size_t hist_bytes = (size_t)hist_counters(&b->p) * sizeof(uint32_t);
    hist_status s =
        hist_host_memory_check((uint64_t)b->bytes * (b->gpus + 1), "the slab and its copies");
    if (s != HIST_OK)
        return s;
    b->h_slab = (uint8_t *)malloc(b->bytes ? b->bytes : 1);
    b->expected = (uint32_t *)malloc(hist_bytes);
    b->expected_n = (uint32_t *)malloc(hist_bytes);
    b->got = (uint32_t *)malloc(hist_bytes);
    b->copy_us = (double *)calloc((size_t)b->o.reps, sizeof(double));
    if (!b->h_slab || !b->expected || !b->expected_n || !b->got || !b->copy_us)
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
}

/** @brief Measure and print every N; the CSV rows to @p csv if not NULL.
 * @param b the measurements @param csv the CSV, or NULL @return HIST_OK or the error */
static hist_status measure(bench *b, FILE *csv) {
    static const char *const labels[] = {"on the GPUs (peer add)", "on the GPUs (ncclAllReduce)",
                                         "on the host"};
    double first[3] = {0, 0, 0};
    printf("%-27s %5s %10s %9s %9s %7s %10s %9s  %s\n", "data", "GPUs", "median", "GB/s",
           "speed-up", "/ N", "copy only", "GB/s", "check");
    if (csv)
        fprintf(csv, "data,GPUs,median (ms),GB/s,speed-up,speed-up / N,copy only (ms),"
                     "copy GB/s,check\n");
    for (int pass = 0; pass < 3; ++pass)
        for (b->n = 1; b->n <= b->gpus; ++b->n) {
            const int n = b->n;
            double us = 0, copy_us = 0;
            hist_status s = time_point(b, pass, &us, &copy_us);
            if (s != HIST_OK)
                return s;
            if (n == 1)
                first[pass] = us;
            const double gbs = (double)b->bytes * n / (us * 1e3);
            const double speedup = n * first[pass] / us;
            char copy[32] = "-", copy_gbs[32] = "-";
            if (pass == 2) {
                snprintf(copy, sizeof copy, "%.3f", copy_us / 1e3);
                snprintf(copy_gbs, sizeof copy_gbs, "%.1f", (double)b->bytes * n / (copy_us * 1e3));
            }
            printf("%-27s %5d %7.3f ms %9.1f %8.2fx %7.2f %7s ms %9s  %s\n", labels[pass], n,
                   us / 1e3, gbs, speedup, speedup / n, copy, copy_gbs, "exact");
            if (csv)
                fprintf(csv, "%s,%d,%.3f,%.1f,%.2fx,%.2f,%s,%s,%s\n", labels[pass], n, us / 1e3,
                        gbs, speedup, speedup / n, copy, copy_gbs, "exact");
        }
    return HIST_OK;
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
        .about = "Day 07: the histogram on 1 .. N GPUs of this machine, one dataset per GPU.",
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
        printf("# %d x %s; %.0f MiB per GPU; median of %d runs after %d warm-up\n", b.gpus,
               b.dev.name, hist_samples(&b.o.data.problem) / 1048576.0, b.o.reps, b.o.warmup);
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
    teardown(&b);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    return 0;
}
