/**
 * @file gpus.cu
 * @brief `make gpus DAY=07`: how the histogram scales over the GPUs of one machine, with N GPUs
 *        for N = 1 .. every visible one, each GPU holding (or being sent) 512 MiB of the main
 *        preset's data: weak scaling, N x 512 MiB in all.
 *
 *  - data on the GPUs: each GPU counts its own 512 MiB with day 06's kernel, then the sum is
 *    left on every GPU (day07_gpus_resident()) in two ways, each its own rows: every GPU reading
 *    the others' histograms over NVLink and adding them in one kernel ("peer add"), and NCCL's
 *    all-reduce; the L2 of every GPU is flushed before each repetition;
 *  - data on the host: N x 512 MiB in pinned host memory, each GPU pipelining its share
 *    (day07_gpus_host(), step 5 of pipeline.cu), the result back on the host; and, for what
 *    limits it, the same shares only copied, every GPU at once (the N-GPU pinned-copy floor),
 *    timed alternately with it.
 *
 * Speed-up is N x t(1) / t(N): N times the work in t(N). Every result is checked exactly (N times
 * the reference histogram of the 512 MiB). Prints a table; `--csv FILE` keeps it for the README.
 * Usage: gpus [--max N] [--reps R] [--csv FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "data.h"
#include "gpu.h"
#include "reference.h"
#include "timing.h"

/** @brief GPUs this program drives at most (pipeline.cu's limit). */
#define GPUS_MAX 16

extern "C" hist_status day07_gpus_resident(int n, const uint8_t *const *d_samples,
                                           const hist_problem *p, uint32_t *h_hist, int peer);
extern "C" hist_status day07_gpus_host(const hist_args *a, int n);

/** @brief Everything the measurements share. */
typedef struct bench {
    int gpus;                     /**< GPUs measured: 1 .. gpus */
    int reps;                     /**< timed repetitions per point */
    hist_problem p;               /**< one GPU's share: the main preset */
    size_t bytes;                 /**< its bytes */
    uint8_t *h_slab;              /**< its data (pageable) */
    uint32_t *expected;           /**< its reference histogram */
    uint32_t *got;                /**< a result */
    uint8_t *d_samples[GPUS_MAX]; /**< each GPU's copy of the slab */
    uint8_t *d_flush[GPUS_MAX];   /**< each GPU's L2-flush buffer */
    size_t flush_bytes[GPUS_MAX]; /**< twice its L2 */
    cudaStream_t copy[GPUS_MAX];  /**< each GPU's stream for the copy floor */
    uint8_t *h_pinned;            /**< gpus x the slab, pinned */
} bench;

/** @brief Whether @p got is @p n times the slab's reference histogram.
 * @param b the measurements
 * @param n GPUs (copies of the slab counted)
 * @return 1 if exact */
static int exact(const bench *b, int n) {
    const uint64_t counters = hist_counters(&b->p);
    for (uint64_t k = 0; k < counters; ++k)
        if (b->got[k] != (uint32_t)n * b->expected[k])
            return 0;
    return 1;
}

/** @brief Median of @p v (sorted in place). @param v values @param n how many
 *  @return the median */
static double median_of(double *v, int n) {
    return hist_stats_of(v, n).median_us;
}

/** @brief Evict every used GPU's L2 (write twice its size), then wait for all of them.
 * @param b the measurements @param n GPUs @return HIST_OK or the CUDA error */
static hist_status flush_l2(const bench *b, int n) {
    for (int i = 0; i < n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaMemsetAsync(b->d_flush[i], i + 1, b->flush_bytes[i]));
    }
    for (int i = 0; i < n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaDeviceSynchronize());
    }
    return HIST_OK;
}

/** @brief Data on the GPUs: median time of N GPUs counting their 512 MiB and summing.
 * @param b the measurements @param n GPUs @param peer 1: the peer add, 0: ncclAllReduce
 * @param us median time @param ok exactness @return HIST_OK or the error */
static hist_status time_resident(bench *b, int n, int peer, double *us, int *ok) {
    double t[64];
    const uint8_t *const *d = (const uint8_t *const *)b->d_samples;
    hist_status s = day07_gpus_resident(n, d, &b->p, b->got, peer); /* warm-up, checked */
    *ok = s == HIST_OK && exact(b, n);
    for (int r = 0; r < b->reps && s == HIST_OK; ++r) {
        if ((s = flush_l2(b, n)) != HIST_OK)
            break;
        const double t0 = hist_now_us();
        s = day07_gpus_resident(n, d, &b->p, NULL, peer);
        t[r] = hist_now_us() - t0;
    }
    *us = median_of(t, b->reps);
    return s;
}

/** @brief The N-GPU pinned-copy floor, one pass: each GPU's 512 MiB share copied from pinned
 *        memory, every GPU at once. @param b the measurements @param n GPUs
 *  @param us the time @return HIST_OK or the CUDA error */
static hist_status copies_once(bench *b, int n, double *us) {
    const double t0 = hist_now_us();
    for (int i = 0; i < n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaMemcpyAsync(b->d_samples[i], b->h_pinned + (size_t)i * b->bytes, b->bytes,
                                      cudaMemcpyHostToDevice, b->copy[i]));
    }
    for (int i = 0; i < n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        HIST_CUDA_TRY(cudaStreamSynchronize(b->copy[i]));
    }
    *us = hist_now_us() - t0;
    return HIST_OK;
}

/** @brief Data on the host: median time of step 5 on N GPUs over N x 512 MiB of pinned memory,
 *        and of the N-GPU copy floor, timed alternately. The copies overwrite the GPUs' resident
 *        data with the same bytes. @param b the measurements @param n GPUs @param us median
 *        time @param copy_us the floor's median @param ok exactness @return HIST_OK or the error */
static hist_status time_host(bench *b, int n, double *us, double *copy_us, int *ok) {
    double t[64], c[64];
    const hist_problem all = {b->p.rows * (uint64_t)n, b->p.channels, b->p.binning};
    hist_device dev; /* day07_gpus_host reads only the problem and the pointers */
    memset(&dev, 0, sizeof dev);
    const hist_args a = {&all, b->h_pinned, b->got, NULL, &dev, 1};
    hist_status s = day07_gpus_host(&a, n); /* warm-up, checked */
    *ok = s == HIST_OK && exact(b, n);
    for (int r = 0; r < b->reps && s == HIST_OK; ++r) {
        if ((s = copies_once(b, n, &c[r])) != HIST_OK)
            break;
        const double t0 = hist_now_us();
        s = day07_gpus_host(&a, n);
        t[r] = hist_now_us() - t0;
    }
    *us = median_of(t, b->reps);
    *copy_us = median_of(c, b->reps);
    return s;
}

/** @brief Allocate, fill and copy everything the measurements need.
 * @param b the measurements (gpus and reps set) @return HIST_OK or the error */
static hist_status setup(bench *b) {
    hist_dataset d;
    hist_status s = hist_preset("main", &d);
    if (s != HIST_OK)
        return s;
    b->p = d.problem;
    b->bytes = (size_t)hist_samples(&b->p);
    const size_t hist_bytes = (size_t)hist_counters(&b->p) * sizeof(uint32_t);
    if ((s = hist_host_memory_check((uint64_t)b->bytes * (b->gpus + 1),
                                    "the slab and its pinned copies")) != HIST_OK)
        return s;
    b->h_slab = (uint8_t *)malloc(b->bytes);
    b->expected = (uint32_t *)malloc(hist_bytes);
    b->got = (uint32_t *)malloc(hist_bytes);
    if (!b->h_slab || !b->expected || !b->got)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory");
    if ((s = hist_generate(&d, b->h_slab)) != HIST_OK)
        return s;
    hist_reference_parallel(&b->p, b->h_slab, b->expected);
    void *pinned = NULL;
    if ((s = hist_host_pinned_alloc(&pinned, b->bytes * (size_t)b->gpus)) != HIST_OK)
        return s;
    b->h_pinned = (uint8_t *)pinned;
    for (int i = 0; i < b->gpus; ++i)
        memcpy(b->h_pinned + (size_t)i * b->bytes, b->h_slab, b->bytes);
    for (int i = 0; i < b->gpus; ++i) {
        cudaDeviceProp prop;
        HIST_CUDA_TRY(cudaGetDeviceProperties(&prop, i));
        HIST_CUDA_TRY(cudaSetDevice(i));
        b->flush_bytes[i] = 2 * (size_t)prop.l2CacheSize;
        HIST_CUDA_TRY(cudaMalloc((void **)&b->d_samples[i], b->bytes));
        HIST_CUDA_TRY(cudaMalloc((void **)&b->d_flush[i], b->flush_bytes[i]));
        HIST_CUDA_TRY(cudaStreamCreateWithFlags(&b->copy[i], cudaStreamNonBlocking));
        HIST_CUDA_TRY(cudaMemcpy(b->d_samples[i], b->h_slab, b->bytes, cudaMemcpyHostToDevice));
    }
    return HIST_OK;
}

/** @brief Free what setup() made. @param b the measurements */
static void teardown(bench *b) {
    for (int i = 0; i < b->gpus; ++i) {
        cudaSetDevice(i);
        cudaFree(b->d_samples[i]);
        cudaFree(b->d_flush[i]);
        if (b->copy[i])
            cudaStreamDestroy(b->copy[i]);
    }
    cudaSetDevice(0);
    hist_host_pinned_free(b->h_pinned);
    free(b->h_slab);
    free(b->expected);
    free(b->got);
}

/** @brief Measure and print every N; the CSV to @p csv if not NULL.
 * @param b the measurements @param csv the CSV file, or NULL @return HIST_OK or the error */
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
        for (int n = 1; n <= b->gpus; ++n) {
            double us = 0, copy_us = 0;
            int ok = 0;
            hist_status s = pass < 2 ? time_resident(b, n, pass == 0, &us, &ok)
                                     : time_host(b, n, &us, &copy_us, &ok);
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
            const char *label = labels[pass];
            printf("%-27s %5d %7.3f ms %9.1f %8.2fx %7.2f %7s ms %9s  %s\n", label, n, us / 1e3,
                   gbs, speedup, speedup / n, copy, copy_gbs, ok ? "exact" : "MISMATCH");
            if (csv)
                fprintf(csv, "%s,%d,%.3f,%.1f,%.2fx,%.2f,%s,%s,%s\n", label, n, us / 1e3, gbs,
                        speedup, speedup / n, copy, copy_gbs, ok ? "exact" : "MISMATCH");
            if (!ok)
                return hist_fail(HIST_ERR_MISMATCH, "%d GPUs, data %s: not exact", n, label);
        }
    return HIST_OK;
}

/**
 * @brief The program: options, setup, the measurements.
 * @param argc argument count
 * @param argv `[--max N] [--reps R] [--csv FILE]`
 * @return 0, 1 on a mismatch, 2 on a usage error, 3 on another failure
 */
int main(int argc, char **argv) {
    bench b;
    memset(&b, 0, sizeof b);
    int max = GPUS_MAX;
    const char *csv_path = NULL;
    b.reps = 11;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            max = atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            b.reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--max N] [--reps R (1..64)] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    if (max < 1 || b.reps < 1 || b.reps > 64) {
        fprintf(stderr, "%s: --max must be at least 1 and --reps 1..64\n", argv[0]);
        return 2;
    }
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
        fprintf(stderr, "%s: " HIST_NO_GPU "\n", argv[0]);
        return 3;
    }
    b.gpus = visible < max ? visible : max;
    if (b.gpus > GPUS_MAX)
        b.gpus = GPUS_MAX;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        fprintf(stderr, "%s: cannot read GPU 0's properties\n", argv[0]);
        return 3;
    }
    printf("# %d x %s; 512 MiB (the main preset) per GPU; median of %d runs after one warm-up\n",
           b.gpus, prop.name, b.reps);
    FILE *csv = NULL;
    hist_status s = setup(&b);
    if (s == HIST_OK && csv_path && !(csv = fopen(csv_path, "w")))
        s = hist_fail(HIST_ERR_IO, "cannot write %s", csv_path);
    if (s == HIST_OK)
        s = measure(&b, csv);
    if (csv && fclose(csv) != 0 && s == HIST_OK)
        s = hist_fail(HIST_ERR_IO, "cannot write %s", csv_path);
    teardown(&b);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], hist_last_error());
        return hist_exit_code(s);
    }
    return 0;
}
