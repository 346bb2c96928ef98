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
 * `--impl` names the pipelines to time (default both chunked ones), `--chunk-mib` their chunk
 * size; `--help` lists every option.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "data.h"
#include "gpu.h"
#include "impl.h"
#include "options.h"
#include "outfile.h"
#include "parallel.h"
#include "reference.h"
#include "timing.h"

HIST_DECLARE_REGISTRY(day07);
/** @brief pipeline.cu's chunk size under @p caps (NULL: its own, --chunk-mib's default). */
extern "C" uint64_t day07_chunk_bytes(const hist_caps *caps);

/** @brief The input in host memory and its expected histogram. */
typedef struct bigger_input {
    hist_problem p;     /**< the whole input's problem */
    uint8_t *input;     /**< the input, pinned */
    uint32_t *expected; /**< its histogram */
    double pin_us;      /**< the time cudaMallocHost took */
    double fill_us;     /**< the time filling it took */
} bigger_input;

/** @brief What filling the input repeats. */
typedef struct fill_job {
    uint8_t *dst;        /**< the whole input */
    const uint8_t *slab; /**< the bytes repeated */
    uint64_t slab_bytes; /**< their size */
} fill_job;

/** @brief Fill bytes [@p begin, @p end) of the input (one piece of hist_parallel_ranges()).
 *  @param ctx the fill_job @param begin first byte @param end past the last */
static void fill(void *ctx, uint64_t begin, uint64_t end) {
    const fill_job *f = (const fill_job *)ctx;
    for (uint64_t at = begin; at < end;) {
        const uint64_t off = at % f->slab_bytes;
        const uint64_t n = end - at < f->slab_bytes - off ? end - at : f->slab_bytes - off;
        memcpy(f->dst + at, f->slab + off, (size_t)n);
        at += n;
    }
}

/** @brief Repeat @p slab over the input with every core.
 *  @param in the input to fill @param slab the bytes repeated @param slab_bytes their size */
static void fill_input(bigger_input *in, const uint8_t *slab, size_t slab_bytes) {
    fill_job f = {in->input, slab, slab_bytes};
    hist_parallel_ranges(hist_samples(&in->p), (uint64_t)64 << 20, 4096, 0, fill, &f);
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
 *  its CSV row. @param impl the pipeline @param dev the GPU @param in the input @param caps its
 *  calls' caps (the chunk size) @param reps timed rounds @param got its histogram @param csv the
 *  CSV, or NULL @param wrong counters that differ, added to @return HIST_OK, or the failure */
static hist_status time_pipeline(const hist_impl *impl, const hist_device *dev,
                                 const bigger_input *in, const hist_caps *caps, int reps,
                                 uint32_t *got, FILE *csv, uint64_t *wrong) {
    const double bytes = (double)hist_samples(&in->p);
    hist_stats t, floor;
    hist_status s = hist_time_host_input(impl, dev, &in->p, in->input, in->input, got, 1, reps, &t,
                                         &floor, caps);
    if (s != HIST_OK)
        return s;
    const uint64_t bad = hist_verify(&in->p, in->expected, got, 5, stderr);
    *wrong += bad;
    char label[96];
    snprintf(label, sizeof label, "%s (%llu MiB chunks)", impl->name,
             (unsigned long long)(caps->chunk_bytes >> 20));
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
 *  GPU @param in the input @param caps the calls' caps (the chunk size) @param reps timed rounds
 *  @param csv the CSV, or NULL @param wrong counters that differ @return HIST_OK, or the first
 *  failure (a name that cannot run included) */
static hist_status time_pipelines(const char *names, const hist_device *dev, const bigger_input *in,
                                  const hist_caps *caps, int reps, FILE *csv, uint64_t *wrong) {
    uint32_t *got = (uint32_t *)calloc((size_t)hist_counters(&in->p), sizeof(uint32_t));
    hist_status s = got ? HIST_OK : hist_fail(HIST_ERR_NOMEM, "out of host memory");
    for (const char *name = names; s == HIST_OK && *name;) {
        const size_t len = strcspn(name, ",");
        const hist_impl *impl = NULL;
        for (size_t i = 0; i < day07_impl_count; ++i)
            if (strlen(day07_impls[i].name) == len && strncmp(day07_impls[i].name, name, len) == 0)
                impl = &day07_impls[i];
        const char *why = hist_impl_unsupported(impl, &in->p, dev); /* --impl checked the name */
        s = why ? hist_fail(HIST_ERR_NOT_RUN, "%.*s cannot run: %s", (int)len, name, why)
                : time_pipeline(impl, dev, in, caps, reps, got, csv, wrong);
        name += len + (name[len] == ',');
    }
    free(got);
    return s;
}

/**
 * @brief The program.
 * @param argc argument count
 * @param argv `--gib G`, `--chunk-mib M`, the course's dataset options (the slab repeated),
 *        `--impl`, `--reps`, `--csv FILE`
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses"): 0, 1 on a mismatch, 2 on a usage
 *         error, 3 on another failure (memory refused included), 4 without a GPU
 */
int main(int argc, char **argv) {
    double gib = 96, chunk_mib = (double)(day07_chunk_bytes(NULL) >> 20);
    const hist_extra_option extra[] = {
        {.name = "gib",
         .value = "G",
         .help = "the input's size in GiB, 0.001 to 4096 (default 96)",
         .min = 0.001,
         .max = 4096,
         .real = &gib},
        {.name = "chunk-mib",
         .value = "M",
         .help = "the pipelines' chunk size in MiB, 1..4096",
         .min = 1,
         .max = 4096,
         .real = &chunk_mib},
    };
    const hist_program prog = {
        .name = "bigger",
        .about = "Day 07: a histogram of more data than the GPU holds, the dataset repeated.",
        .impls = day07_impls,
        .count = day07_impl_count,
        .refused = "input save-input output results threads require-gpu list",
        .extra = extra,
        .n_extra = 2,
        .reps = 3,
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    /* --chunk-mib is a program option, not a test's cap, but it is the same knob: the pipelines
       read their chunk size from their arguments' caps (hist.h's hist_caps.chunk_bytes) */
    const hist_caps caps = {0, (uint64_t)(chunk_mib * 1048576.0)};
    const hist_dataset *d = &o.data;
    const hist_problem slab_p = d->problem;
    const uint64_t rows = (uint64_t)(gib * 1073741824.0) / slab_p.channels;
    bigger_input in = {{rows, slab_p.channels, slab_p.binning}, NULL, NULL, 0, 0};
    const size_t bytes = (size_t)hist_samples(&in.p);
    /* refuse before allocating (or starting the GPU): the input and the slab it repeats */
    hist_status s = hist_host_memory_check(bytes + hist_samples(&slab_p),
                                           "the input and the dataset it repeats");
    if (s == HIST_OK && (rows > HIST_MAX_ROWS || slab_p.rows == 0))
        s = hist_fail(HIST_ERR_USAGE, "--gib %g: %s", gib,
                      slab_p.rows == 0 ? "the dataset to repeat has no rows"
                                       : "more rows than 32-bit counters hold");
    hist_device dev;
    if (s == HIST_OK)
        s = hist_device_open(&o.emulation, &dev);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    printf("# %s: %.2f GiB of device memory; input [%llu, %u] = %.2f GiB in pinned host memory "
           "(%.2fx the GPU's memory)\n",
           dev.name, dev.global_bytes / 1073741824.0, (unsigned long long)rows, in.p.channels,
           bytes / 1073741824.0, (double)bytes / dev.global_bytes);
    fflush(stdout);
    s = make_input(d, &in);
    printf("# pinned %.2f GiB in %.1f s; filled in %.1f s; chunks of %.0f MiB\n",
           bytes / 1073741824.0, in.pin_us / 1e6, in.fill_us / 1e6, chunk_mib);
    fflush(stdout);
    hist_outfile csv = {NULL, NULL, NULL};
    if (s == HIST_OK && o.csv && (s = hist_outfile_open(&csv, o.csv)) == HIST_OK) {
        fprintf(csv.f,
                "what,median (s),GB/s,pinned-copy floor (s),floor GB/s,of the floor,check\n");
        fprintf(csv.f, "pinning %.1f GiB (cudaMallocHost),%.1f,%.1f,,,,\n", bytes / 1073741824.0,
                in.pin_us / 1e6, bytes / 1e3 / in.pin_us);
    }
    uint64_t wrong = 0;
    if (s == HIST_OK) {
        printf("%-44s %10s %8s %12s %8s %9s\n", "", "median", "GB/s", "copy floor", "GB/s",
               "of floor");
        s = time_pipelines(o.impl ? o.impl : "pipe_streams,pipe_copy_stream", &dev, &in, &caps,
                           o.reps, csv.f, &wrong);
    }
    if (s == HIST_OK && o.csv)
        s = hist_outfile_commit(&csv);
    hist_outfile_discard(&csv);
    hist_host_pinned_free(in.input);
    free(in.expected);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    return wrong ? 1 : 0;
}
