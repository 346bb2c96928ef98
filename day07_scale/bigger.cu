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
#include "impl.h"
#include "reference.h"
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

/** @brief The command line of this program. */
typedef struct bigger_options {
    double gib;           /**< the input's size in GiB */
    double chunk_mib;     /**< the pipelines' chunk size in MiB */
    int reps;             /**< timed rounds per pipeline */
    const char *csv_path; /**< `--csv FILE`, or NULL */
    const char *impls;    /**< the pipelines to time, comma-separated */
} bigger_options;

/** @brief Parse the command line. @param argc count @param argv arguments @param o the options
 *  @return 0, or 2 after printing the usage or the range that was not met */
static int parse_options(int argc, char **argv, bigger_options *o) {
    *o = (bigger_options){96, (double)(day07_chunk_bytes >> 20), 3, NULL,
                          "pipe_streams,pipe_copy_stream"};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--gib") == 0 && i + 1 < argc)
            o->gib = atof(argv[++i]);
        else if (strcmp(argv[i], "--impls") == 0 && i + 1 < argc)
            o->impls = argv[++i];
        else if (strcmp(argv[i], "--chunk-mib") == 0 && i + 1 < argc)
            o->chunk_mib = atof(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            o->reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            o->csv_path = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [--gib G] [--reps R (1..16)] [--impls NAME,...] [--chunk-mib M] "
                    "[--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!(o->gib > 0 && o->gib <= 4096) || o->reps < 1 || o->reps > 16 ||
        !(o->chunk_mib >= 1 && o->chunk_mib <= 4096)) {
        fprintf(stderr, "%s: --gib must be in (0, 4096], --reps in 1..16, --chunk-mib in 1..4096\n",
                argv[0]);
        return 2;
    }
    return 0;
}

/** @brief The input in host memory and its expected histogram. */
typedef struct bigger_input {
    hist_problem p;     /**< the whole input's problem */
    uint8_t *input;     /**< the input, pinned */
    uint32_t *expected; /**< its histogram */
    double pin_us;      /**< the time cudaMallocHost took */
    double fill_us;     /**< the time filling it took */
} bigger_input;

/** @brief Repeat @p slab over the input with every core (at most 64 threads).
 *  @param in the input to fill @param slab the bytes repeated @param slab_bytes their size */
static void fill_input(bigger_input *in, const uint8_t *slab, size_t slab_bytes) {
    const size_t bytes = (size_t)hist_samples(&in->p);
    const size_t copies = (bytes + slab_bytes - 1) / slab_bytes;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const size_t threads = cores > 1 ? (size_t)(cores < 64 ? cores : 64) : 1;
    pthread_t tid[64];
    fill_part parts[64];
    int started[64];
    for (size_t t = 0; t < threads; ++t) {
        parts[t] = (fill_part){
            in->input, slab, slab_bytes, bytes, copies * t / threads, copies * (t + 1) / threads};
        started[t] = pthread_create(&tid[t], NULL, fill, &parts[t]) == 0;
        if (!started[t])
            fill(&parts[t]); /* no thread: this one does it */
    }
    for (size_t t = 0; t < threads; ++t)
        if (started[t])
            pthread_join(tid[t], NULL);
}

/** @brief Pin the input, fill it with the main preset's 512 MiB repeated, and count its expected
 *  histogram from the slab (whole slabs, then the rest).
 *  @param d the main preset's dataset (the slab) @param in the input, its problem set
 *  @return HIST_OK, or the failure */
static hist_status make_input(const hist_dataset *d, bigger_input *in) {
    const hist_problem *slab_p = &d->problem;
    const size_t slab_bytes = (size_t)hist_samples(slab_p);
    const size_t counters = (size_t)hist_counters(&in->p);
    uint8_t *slab = (uint8_t *)malloc(slab_bytes);
    uint32_t *part = (uint32_t *)calloc(counters, sizeof(uint32_t));
    in->expected = (uint32_t *)calloc(counters, sizeof(uint32_t));
    hist_status s = HIST_OK;
    if (!slab || !part || !in->expected)
        s = hist_fail(HIST_ERR_NOMEM, "out of host memory");
    if (s == HIST_OK)
        s = hist_generate(d, slab);
    if (s == HIST_OK) {
        const double t0 = hist_now_us();
        void *pinned = NULL;
        s = hist_host_pinned_alloc(&pinned, (size_t)hist_samples(&in->p));
        in->input = (uint8_t *)pinned;
        in->pin_us = hist_now_us() - t0;
    }
    if (s == HIST_OK) {
        const double t0 = hist_now_us();
        fill_input(in, slab, slab_bytes);
        in->fill_us = hist_now_us() - t0;
        const uint64_t whole = hist_samples(&in->p) / slab_bytes;
        hist_reference(slab_p, slab, part);
        for (size_t k = 0; k < counters; ++k)
            in->expected[k] = (uint32_t)whole * part[k];
        const hist_problem rest = {in->p.rows - whole * slab_p->rows, in->p.channels,
                                   in->p.binning};
        hist_reference(&rest, slab, part);
        for (size_t k = 0; k < counters; ++k)
            in->expected[k] += part[k];
    }
    free(slab);
    free(part);
    return s;
}

/** @brief Time one pipeline against the pinned-copy floor of the same bytes, alternately (as the
 *  runner times host-input entries: host clock, one warm-up round), check it, print its line and
 *  its CSV row. @param impl the pipeline @param dev the GPU @param in the input @param reps
 *  timed rounds @param got its histogram @param csv the CSV, or NULL @param wrong counters that
 *  differ, added to @return HIST_OK, or the failure */
static hist_status time_pipeline(const hist_impl *impl, const hist_device *dev,
                                 const bigger_input *in, int reps, uint32_t *got, FILE *csv,
                                 uint64_t *wrong) {
    const double bytes = (double)hist_samples(&in->p);
    hist_stats t, floor;
    hist_status s =
        hist_time_host_input(impl, dev, &in->p, in->input, in->input, got, 1, reps, &t, &floor);
    if (s != HIST_OK)
        return s;
    const uint64_t bad = hist_verify(&in->p, in->expected, got, 5, stderr);
    *wrong += bad;
    char label[96];
    snprintf(label, sizeof label, "%s (%zu MiB chunks)", impl->name, day07_chunk_bytes >> 20);
    const double share = 100.0 * floor.median_us / t.median_us;
    printf("%-44s %8.3f s %8.1f %10.3f s %8.1f %8.1f%%  %s\n", label, t.median_us / 1e6,
           bytes / 1e3 / t.median_us, floor.median_us / 1e6, bytes / 1e3 / floor.median_us, share,
           bad ? "MISMATCH" : "exact");
    if (csv)
        fprintf(csv, "%s,%.3f,%.1f,%.3f,%.1f,%.1f%%,%s\n", label, t.median_us / 1e6,
                bytes / 1e3 / t.median_us, floor.median_us / 1e6, bytes / 1e3 / floor.median_us,
                share, bad ? "MISMATCH" : "exact");
    return HIST_OK;
}

/** @brief Every pipeline named in @p names, in turn. @param names comma-separated @param dev the
 *  GPU @param in the input @param o the options @param csv the CSV, or NULL @param wrong counters
 *  that differ @return HIST_OK, or the first failure (a name that cannot run included) */
static hist_status time_pipelines(const char *names, const hist_device *dev, const bigger_input *in,
                                  const bigger_options *o, FILE *csv, uint64_t *wrong) {
    uint32_t *got = (uint32_t *)calloc((size_t)hist_counters(&in->p), sizeof(uint32_t));
    hist_status s = got ? HIST_OK : hist_fail(HIST_ERR_NOMEM, "out of host memory");
    for (const char *name = names; s == HIST_OK && *name;) {
        const size_t len = strcspn(name, ",");
        const hist_impl *impl = NULL;
        for (size_t i = 0; i < day07_impl_count; ++i)
            if (strlen(day07_impls[i].name) == len && strncmp(day07_impls[i].name, name, len) == 0)
                impl = &day07_impls[i];
        const char *why =
            impl ? hist_impl_unsupported(impl, &in->p, dev) : "no such implementation";
        s = why ? hist_fail(HIST_ERR_NOT_RUN, "%.*s cannot run: %s", (int)len, name, why)
                : time_pipeline(impl, dev, in, o->reps, got, csv, wrong);
        name += len + (name[len] == ',');
    }
    free(got);
    return s;
}

/**
 * @brief The program.
 * @param argc argument count
 * @param argv `[--gib G] [--reps R] [--csv FILE]`
 * @return 0, 1 on a mismatch, 2 on a usage error, 3 on another failure (memory refused included)
 */
int main(int argc, char **argv) {
    bigger_options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    day07_chunk_bytes = (size_t)(o.chunk_mib * 1048576.0);
    hist_dataset d;
    hist_status s = hist_preset("main", &d);
    const hist_problem slab_p = d.problem;
    const uint64_t rows = (uint64_t)(o.gib * 1073741824.0) / slab_p.channels;
    bigger_input in = {{rows, slab_p.channels, slab_p.binning}, NULL, NULL, 0, 0};
    const size_t bytes = (size_t)hist_samples(&in.p);
    /* refuse before allocating (or starting the GPU): the input and the slab it repeats */
    if (s == HIST_OK)
        s = hist_host_memory_check(bytes + hist_samples(&slab_p),
                                   "the input and the 512 MiB it repeats");
    if (s == HIST_OK && rows > HIST_MAX_ROWS)
        s = hist_fail(HIST_ERR_USAGE, "--gib %g: more rows than 32-bit counters hold", o.gib);
    hist_device dev;
    if (s == HIST_OK)
        s = hist_device_open(&dev);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], hist_last_error());
        return hist_exit_code(s);
    }
    printf("# %s: %.2f GiB of device memory; input [%llu, %u] = %.2f GiB in pinned host memory "
           "(%.2fx the GPU's memory)\n",
           dev.name, dev.global_bytes / 1073741824.0, (unsigned long long)rows, in.p.channels,
           bytes / 1073741824.0, (double)bytes / dev.global_bytes);
    fflush(stdout);
    s = make_input(&d, &in);
    printf("# pinned %.2f GiB in %.1f s; filled in %.1f s; chunks of %.0f MiB\n",
           bytes / 1073741824.0, in.pin_us / 1e6, in.fill_us / 1e6, o.chunk_mib);
    fflush(stdout);
    FILE *csv = NULL;
    if (s == HIST_OK && o.csv_path && !(csv = fopen(o.csv_path, "w")))
        s = hist_fail(HIST_ERR_IO, "cannot write %s", o.csv_path);
    if (csv) {
        fprintf(csv, "what,median (s),GB/s,pinned-copy floor (s),floor GB/s,of the floor,check\n");
        fprintf(csv, "pinning %.1f GiB (cudaMallocHost),%.1f,%.1f,,,,\n", bytes / 1073741824.0,
                in.pin_us / 1e6, bytes / 1e3 / in.pin_us);
    }
    uint64_t wrong = 0;
    if (s == HIST_OK) {
        printf("%-44s %10s %8s %12s %8s %9s\n", "", "median", "GB/s", "copy floor", "GB/s",
               "of floor");
        s = time_pipelines(o.impls, &dev, &in, &o, csv, &wrong);
    }
    if (csv && fclose(csv) != 0 && s == HIST_OK)
        s = hist_fail(HIST_ERR_IO, "cannot write %s", o.csv_path);
    hist_host_pinned_free(in.input);
    free(in.expected);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], hist_last_error());
        return hist_exit_code(s);
    }
    return wrong ? 1 : 0;
}
