/**
 * @file bigger.cu
 * @brief `make bigger DAY=07 ARGS="--gib 96"`: a histogram of more data than the GPU holds
 *        (96 GiB against an H100's 80 GB), counted by step 3's pipeline (`pipe_streams`), which
 *        keeps only three 32 MiB chunks on the GPU.
 *
 * The input, `[rows, 1024]` bytes in pinned host memory, is the main preset's 512 MiB repeated
 * (the last copy cut short), so the expected histogram is a multiple of the 512 MiB reference
 * plus the reference of the rest: exact checking without a CPU pass over 96 GiB. The program
 * refuses, before allocating, what this machine's memory cannot hold. It reports the time to pin
 * and fill the memory, the pinned-copy floor of the same bytes, and the pipeline: bandwidth
 * reached and its share of the floor (what limits it: the link, when the share is near 100%).
 * `--impls` names the pipelines to time (default both chunked ones), `--chunk-mib` their chunk
 * size. Usage: bigger [--gib G] [--reps R] [--impls NAME,...] [--chunk-mib M] [--csv FILE]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_check.h"
#include "data.h"
#include "gpu.h"
#include "reference.h"
#include "runner.h"
#include "timing.h"

HIST_DECLARE_REGISTRY(day07);
/** @brief pipeline.cu's chunk size in bytes (--chunk-mib sets it). */
extern "C" size_t day07_chunk_bytes;

/** @brief One filling thread's part: copies @p first .. @p last - 1 of the slab. */
typedef struct fill_part {
    uint8_t *dst;        /**< the whole input */
    const uint8_t *slab; /**< the 512 MiB repeated */
    size_t slab_bytes;   /**< its size */
    size_t total;        /**< the input's size */
    size_t first;        /**< first copy of this thread */
    size_t last;         /**< one past its last copy */
} fill_part;

/** @brief Copy a thread's share of the slabs. @param arg its fill_part @return NULL */
static void *fill(void *arg) {
    const fill_part *f = (const fill_part *)arg;
    for (size_t k = f->first; k < f->last; ++k) {
        const size_t at = k * f->slab_bytes;
        const size_t n = f->total - at < f->slab_bytes ? f->total - at : f->slab_bytes;
        memcpy(f->dst + at, f->slab, n);
    }
    return NULL;
}

/**
 * @brief The program.
 * @param argc argument count
 * @param argv `[--gib G] [--reps R] [--csv FILE]`
 * @return 0, 1 on a mismatch, 2 on a usage error, 3 on another failure (memory refused included)
 */
int main(int argc, char **argv) {
    double gib = 96, chunk_mib = (double)(day07_chunk_bytes >> 20);
    int reps = 3;
    const char *csv_path = NULL, *impls = "pipe_streams,pipe_copy_stream";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--gib") == 0 && i + 1 < argc)
            gib = atof(argv[++i]);
        else if (strcmp(argv[i], "--impls") == 0 && i + 1 < argc)
            impls = argv[++i];
        else if (strcmp(argv[i], "--chunk-mib") == 0 && i + 1 < argc)
            chunk_mib = atof(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [--gib G] [--reps R (1..16)] [--impls NAME,...] [--chunk-mib M] "
                    "[--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!(gib > 0 && gib <= 4096) || reps < 1 || reps > 16 ||
        !(chunk_mib >= 1 && chunk_mib <= 4096)) {
        fprintf(stderr, "%s: --gib must be in (0, 4096], --reps in 1..16, --chunk-mib in 1..4096\n",
                argv[0]);
        return 2;
    }
    day07_chunk_bytes = (size_t)(chunk_mib * 1048576.0);
    hist_dataset d;
    hist_status s = hist_preset("main", &d);
    const hist_problem slab_p = d.problem;
    const size_t slab_bytes = (size_t)hist_samples(&slab_p);
    const uint64_t rows = (uint64_t)(gib * 1073741824.0) / slab_p.channels;
    const hist_problem p = {rows, slab_p.channels, slab_p.binning};
    const size_t bytes = (size_t)hist_samples(&p);
    const size_t counters = (size_t)hist_counters(&p);
    /* refuse before allocating (or starting the GPU): the input and the slab it repeats */
    if (s == HIST_OK)
        s = hist_host_memory_check(bytes + slab_bytes, "the input and the 512 MiB it repeats");
    if (s == HIST_OK && rows > HIST_MAX_ROWS)
        s = hist_fail(HIST_ERR_USAGE, "--gib %g: more rows than 32-bit counters hold", gib);
    hist_device dev;
    if (s == HIST_OK)
        s = hist_device_open(&dev);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], hist_last_error());
        return hist_exit_code(s);
    }
    printf("# %s: %.2f GiB of device memory; input [%llu, %u] = %.2f GiB in pinned host memory "
           "(%.2fx the GPU's memory)\n",
           dev.name, dev.global_bytes / 1073741824.0, (unsigned long long)rows, p.channels,
           bytes / 1073741824.0, (double)bytes / dev.global_bytes);
    fflush(stdout);

    uint8_t *slab = NULL, *input = NULL;
    uint32_t *expected = (uint32_t *)calloc(counters, sizeof(uint32_t));
    uint32_t *part = (uint32_t *)calloc(counters, sizeof(uint32_t));
    uint32_t *got = (uint32_t *)calloc(counters, sizeof(uint32_t));
    if (s == HIST_OK && (!expected || !part || !got || !(slab = (uint8_t *)malloc(slab_bytes))))
        s = hist_fail(HIST_ERR_NOMEM, "out of host memory");
    if (s == HIST_OK)
        s = hist_generate(&d, slab);
    double pin_us = 0, fill_us = 0;
    if (s == HIST_OK) {
        const double t0 = hist_now_us();
        void *pinned = NULL;
        s = hist_host_pinned_alloc(&pinned, bytes);
        input = (uint8_t *)pinned;
        pin_us = hist_now_us() - t0;
    }
    if (s == HIST_OK) { /* the slab repeated, by every core */
        const double t0 = hist_now_us();
        const size_t copies = (bytes + slab_bytes - 1) / slab_bytes;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const size_t threads = cores > 1 ? (size_t)(cores < 64 ? cores : 64) : 1;
        pthread_t tid[64];
        fill_part parts[64];
        int started[64];
        for (size_t t = 0; t < threads; ++t) {
            parts[t] = (fill_part){
                input, slab, slab_bytes, bytes, copies * t / threads, copies * (t + 1) / threads};
            started[t] = pthread_create(&tid[t], NULL, fill, &parts[t]) == 0;
            if (!started[t])
                fill(&parts[t]); /* no thread: this one does it */
        }
        for (size_t t = 0; t < threads; ++t)
            if (started[t])
                pthread_join(tid[t], NULL);
        fill_us = hist_now_us() - t0;
        /* expected: the whole slabs, then the rest */
        const uint64_t whole = bytes / slab_bytes;
        hist_reference(&slab_p, slab, part);
        for (size_t k = 0; k < counters; ++k)
            expected[k] = (uint32_t)whole * part[k];
        const hist_problem rest = {p.rows - whole * slab_p.rows, p.channels, p.binning};
        hist_reference(&rest, slab, part);
        for (size_t k = 0; k < counters; ++k)
            expected[k] += part[k];
    }
    printf("# pinned %.2f GiB in %.1f s; filled in %.1f s; chunks of %.0f MiB\n",
           bytes / 1073741824.0, pin_us / 1e6, fill_us / 1e6, chunk_mib);
    fflush(stdout);

    /* each pipeline against the pinned-copy floor of the same bytes, timed alternately with it
       (as the runner times host-input entries: host clock, one warm-up round), and checked */
    FILE *csv = NULL;
    if (s == HIST_OK && csv_path && !(csv = fopen(csv_path, "w")))
        s = hist_fail(HIST_ERR_IO, "cannot write %s", csv_path);
    if (csv) {
        fprintf(csv, "what,median (s),GB/s,pinned-copy floor (s),floor GB/s,of the floor,check\n");
        fprintf(csv, "pinning %.1f GiB (cudaMallocHost),%.1f,%.1f,,,,\n", bytes / 1073741824.0,
                pin_us / 1e6, bytes / 1e3 / pin_us);
    }
    if (s == HIST_OK)
        printf("%-44s %10s %8s %12s %8s %9s\n", "", "median", "GB/s", "copy floor", "GB/s",
               "of floor");
    uint64_t wrong = 0;
    for (const char *name = impls; s == HIST_OK && *name;) {
        const size_t len = strcspn(name, ",");
        const hist_impl *impl = NULL;
        for (size_t i = 0; i < day07_impl_count; ++i)
            if (strlen(day07_impls[i].name) == len && strncmp(day07_impls[i].name, name, len) == 0)
                impl = &day07_impls[i];
        const char *why = impl ? hist_impl_unsupported(impl, &p, &dev) : "no such implementation";
        if (why) {
            s = hist_fail(HIST_ERR_NOT_RUN, "%.*s cannot run: %s", (int)len, name, why);
            break;
        }
        hist_stats t, floor;
        s = hist_time_host_input(impl, &dev, &p, input, input, got, 1, reps, &t, &floor);
        if (s != HIST_OK)
            break;
        const uint64_t bad = hist_verify(&p, expected, got, 5, stderr);
        wrong += bad;
        char label[96];
        snprintf(label, sizeof label, "%s (%zu MiB chunks)", impl->name, day07_chunk_bytes >> 20);
        const double share = 100.0 * floor.median_us / t.median_us;
        printf("%-44s %8.3f s %8.1f %10.3f s %8.1f %8.1f%%  %s\n", label, t.median_us / 1e6,
               bytes / 1e3 / t.median_us, floor.median_us / 1e6, bytes / 1e3 / floor.median_us,
               share, bad ? "MISMATCH" : "exact");
        if (csv)
            fprintf(csv, "%s,%.3f,%.1f,%.3f,%.1f,%.1f%%,%s\n", label, t.median_us / 1e6,
                    bytes / 1e3 / t.median_us, floor.median_us / 1e6, bytes / 1e3 / floor.median_us,
                    share, bad ? "MISMATCH" : "exact");
        name += len + (name[len] == ',');
    }
    if (csv && fclose(csv) != 0 && s == HIST_OK)
        s = hist_fail(HIST_ERR_IO, "cannot write %s", csv_path);
    hist_host_pinned_free(input);
    free(slab);
    free(expected);
    free(part);
    free(got);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], hist_last_error());
        return hist_exit_code(s);
    }
    return wrong ? 1 : 0;
}
