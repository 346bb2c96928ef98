/**
 * @file runner.c
 * @brief The runner: load or generate the data, run every implementation, verify, report.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_limits.h"
#include "npy.h"
#include "outfile.h"
#include "reference.h"
#include "report.h"

/* ---- which implementations ---- */

static int is_selected(const hist_options *o, const hist_impl *impl) {
    if (!o->impl)
        return 1;
    const size_t n = strlen(impl->name);
    for (const char *p = o->impl; (p = strstr(p, impl->name)) != NULL; p += n)
        if ((p == o->impl || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The implementation whose result --output holds: the first name of --impl, or the first of the
   list without --impl. */
static int is_output_impl(const hist_options *o, const hist_impl *impl, const hist_impl *first) {
    if (!o->impl)
        return impl == first;
    const size_t n = strlen(impl->name);
    return strncmp(o->impl, impl->name, n) == 0 && (o->impl[n] == ',' || o->impl[n] == '\0');
}

/* ---- the program ---- */

/** @brief One run of the program: what it allocates (freed together) and what it has learnt. */
typedef struct run_state {
    hist_problem p;            /**< the problem (its shape from the file with --input) */
    uint8_t *samples;          /**< the input */
    uint32_t *expected;        /**< the reference's histogram */
    uint32_t *got;             /**< the latest implementation's histogram */
    uint32_t *output;          /**< the --output implementation's histogram, once it ran */
    hist_result *results;      /**< one per selected implementation */
    size_t n;                  /**< how many results */
    hist_device dev;           /**< the GPU, when `device` is set */
    const hist_device *device; /**< &dev once the GPU is open, NULL without one */
    char no_gpu[200];          /**< why there is no GPU, once one was asked for */
    hist_status open_status;   /**< what opening the GPU returned (HIST_ERR_USAGE: the emulated
                                    GPU cannot be emulated here, a usage error) */
    hist_gpu *gpu;             /**< the GPU session, if any */
    hist_roofs roofs;          /**< the floors and the atomic ceiling (reps 0 if not measured) */
    double reference_us;       /**< cpu_reference's median, once it ran */
    const hist_impl *not_run;  /**< the first implementation named with --impl that was skipped */
    void *pinned;              /**< host-input implementations: the input in pinned memory */
    uint8_t *pageable;         /**< host-input implementations: the input in pageable memory, never
                                    registered with CUDA (the session pins `samples`) */
    hist_outfile files[4];     /**< --save-input, --output, --csv, --results: renamed at the end */
    int n_files;               /**< how many are staged */
} run_state;

/** @brief What the selected GPU implementations need before any of them runs. */
typedef struct gpu_needs {
    size_t workspace; /**< the largest workspace of a device implementation */
    int session;      /**< a device implementation runs: a GPU session and the floors */
    int pinned;       /**< a host-input one runs: the pinned copy and its floor */
    int pageable;     /**< one takes pageable input: a pageable copy too */
} gpu_needs;

static void free_state(run_state *st) {
    for (int i = 0; i < st->n_files; ++i)
        hist_outfile_discard(&st->files[i]); /* a no-op for files already committed */
    hist_gpu_destroy(st->gpu);
    hist_host_pinned_free(st->pinned);
    free(st->pageable);
    free(st->samples);
    free(st->expected);
    free(st->got);
    free(st->output);
    free(st->results);
}

static hist_status load_samples(const hist_options *o, run_state *st) {
    hist_problem *p = &st->p;
    if (o->input) {
        uint64_t rows = 0, channels = 0;
        hist_status s =
            hist_npy_read_samples(o->input, hist_sample_bits(p), &st->samples, &rows, &channels);
        if (s != HIST_OK)
            return s; /* the reader refuses shapes outside the limits before reading data */
        p->rows = rows;
        p->channels = (uint32_t)channels;
        return HIST_OK;
    }
    const uint64_t bytes = hist_input_bytes(p);
    hist_status s = hist_host_memory_check(bytes, "the samples");
    if (s != HIST_OK)
        return s;
    st->samples = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!st->samples)
        return hist_fail(HIST_ERR_NOMEM, "out of memory: the samples need %.2f GiB",
                         bytes / 1073741824.0);
    hist_dataset d = o->data;
    d.problem = *p;
    return hist_generate(&d, st->samples);
}

/* Step 1: the samples (read or generated, staged for --save-input), the histograms, and the
   reference's answer. */
static hist_status prepare_data(const hist_options *o, size_t count, run_state *st) {
    st->p = o->data.problem;
    hist_status s = load_samples(o, st);
    if (s == HIST_OK && o->save_input)
        s = hist_npy_stage_samples(&st->files[st->n_files++], o->save_input, st->samples,
                                   st->p.rows, st->p.channels, hist_sample_bits(&st->p));
    if (s != HIST_OK)
        return s;
    const size_t hist_bytes = (size_t)hist_counters(&st->p) * sizeof(uint32_t);
    st->expected = malloc(hist_bytes);
    st->got = malloc(hist_bytes);
    st->results = calloc(count, sizeof *st->results);
    if (!st->expected || !st->got || !st->results)
        return hist_fail(HIST_ERR_NOMEM, "out of memory for the histograms");
    hist_reference_parallel(&st->p, st->samples, st->expected);
    return HIST_OK;
}

/* Step 2: which selected implementations need the GPU, and what for. The GPU is opened only if
   one of them needs it; st->no_gpu says why there is none. */
static gpu_needs find_gpu_needs(const hist_options *o, const hist_impl *impls, size_t count,
                                run_state *st) {
    gpu_needs need = {0, 0, 0, 0};
    for (size_t i = 0; i < count; ++i) {
        if (impls[i].where == HIST_HOST || !is_selected(o, &impls[i]))
            continue;
        if (!st->device && st->no_gpu[0] == '\0') {
            st->open_status = hist_device_open(&o->emulation, &st->dev);
            if (st->open_status == HIST_OK)
                st->device = &st->dev;
            else
                snprintf(st->no_gpu, sizeof st->no_gpu, "%s", hist_last_error());
            if (st->open_status == HIST_ERR_USAGE) /* a GPU to emulate that it cannot be */
                return need;
        }
        if (!st->device || hist_impl_unsupported(&impls[i], &st->p, st->device))
            continue;
        if (impls[i].where == HIST_DEVICE) {
            size_t w = hist_impl_workspace(&impls[i], &st->p, st->device);
            need.workspace = w > need.workspace ? w : need.workspace;
            need.session = 1;
        } else {
            need.pinned = 1; /* the pinned-copy floor reads pinned memory */
            need.pageable |= impls[i].where == HIST_HOST_INPUT;
        }
    }
    return need;
}

static void print_header(const hist_options *o, const run_state *st) {
    const hist_problem *p = &st->p;
    char dist[32];
    hist_dist_format(o->data.dist, dist, sizeof dist);
    printf("# rows=%llu channels=%u %sbins=%u (lo=%u hi=%u width=%u) ", (unsigned long long)p->rows,
           p->channels, hist_sample_bits(p) == 16 ? "bits=16 " : "", hist_bins(p->binning),
           p->binning.lo, p->binning.hi, p->binning.width);
    if (o->input)
        printf("input=%s\n", o->input);
    else
        printf("values=%u..%u dist=%s seed=%llu preset=%s\n", o->data.vmin, o->data.vmax, dist,
               (unsigned long long)o->data.seed, o->preset);
    printf("# reps=%d warmup=%d threads=%d; GPU: %s%s%s\n", o->reps, o->warmup, o->threads,
           st->device      ? st->dev.name
           : st->no_gpu[0] ? "none: "
                           : "not needed",
           st->device ? "" : st->no_gpu, st->no_gpu[0] ? " (GPU implementations skipped)" : "");
}

/* Step 3: the GPU session and the floors every device implementation is judged by. */
static hist_status measure_floors(const hist_options *o, size_t workspace, run_state *st) {
    const double bytes = (double)hist_input_bytes(&st->p);
    hist_roofs *r = &st->roofs;
    hist_status s = hist_gpu_create(&st->gpu, st->device, &st->p, st->samples, workspace);
    if (s == HIST_OK)
        s = hist_gpu_time_floor(st->gpu, o->warmup, o->reps, &r->floor);
    if (s == HIST_OK)
        s = hist_gpu_time_floor_clean(st->gpu, o->warmup, o->reps, &r->clean);
    if (s == HIST_OK && bytes > 0)
        s = hist_gpu_time_atomic_ceiling(st->gpu, o->warmup, o->reps, &r->ceiling, NULL);
    if (s != HIST_OK)
        return s;
    printf("# read-only floor: median %.1f us, min %.1f us (%.0f GB/s), %d SMs, %.0f MiB L2\n",
           r->floor.median_us, r->floor.min_us, bytes / (r->floor.median_us * 1e3),
           st->dev.sm_count, st->dev.l2_bytes / 1048576.0);
    printf("# the same read on a clean L2 (no dirty line written back while timed): median "
           "%.1f us (%.0f GB/s); %%floor is against the flushed floor above, timed like every "
           "kernel\n",
           r->clean.median_us, bytes / (r->clean.median_us * 1e3));
    printf("# shared-atomic ceiling (one conflict-free shared atomicAdd per sample): median %.1f "
           "us; %%bound is against max(floor, ceiling) = %.1f us\n",
           r->ceiling.median_us, hist_roof_us(r, HIST_ROOF_BOUND));
    return HIST_OK;
}

/* Step 3'': what the selected implementations that choose a plan from the GPU chose, one line
   per distinct plan with the implementations that share it. */
static void print_plans(const hist_options *o, const hist_impl *impls, size_t count,
                        const run_state *st) {
    for (size_t i = 0; i < count && st->device; ++i) {
        if (!impls[i].plan || !is_selected(o, &impls[i]) ||
            hist_impl_unsupported(&impls[i], &st->p, st->device))
            continue;
        char text[256];
        snprintf(text, sizeof text, "%s", impls[i].plan(&st->p, st->device));
        int seen = 0; /* printed with an earlier implementation */
        for (size_t k = 0; k < i && !seen; ++k)
            seen = impls[k].plan && is_selected(o, &impls[k]) &&
                   !hist_impl_unsupported(&impls[k], &st->p, st->device) &&
                   strcmp(impls[k].plan(&st->p, st->device), text) == 0;
        if (seen)
            continue;
        printf("# plan on this GPU: %s (", text);
        for (size_t k = i, first = 1; k < count; ++k)
            if (impls[k].plan && is_selected(o, &impls[k]) &&
                !hist_impl_unsupported(&impls[k], &st->p, st->device) &&
                strcmp(impls[k].plan(&st->p, st->device), text) == 0) {
                printf("%s%s", first ? "" : ", ", impls[k].name);
                first = 0;
            }
        printf(")\n");
    }
}

/* Step 3': host-input implementations' inputs (pinned, and pageable if one wants it). */
static hist_status prepare_host_input(int pageable, run_state *st) {
    const uint64_t bytes = hist_input_bytes(&st->p);
    hist_status s = hist_host_memory_check(bytes * (pageable ? 2 : 1),
                                           "the pinned and pageable copies of the samples");
    if (s == HIST_OK)
        s = hist_host_pinned_alloc(&st->pinned, (size_t)bytes);
    if (s == HIST_OK && pageable && !(st->pageable = malloc(bytes > 0 ? (size_t)bytes : 1)))
        s = hist_fail(HIST_ERR_NOMEM, "out of memory for the pageable copy of the samples");
    if (s != HIST_OK)
        return s;
    if (bytes > 0) {
        memcpy(st->pinned, st->samples, (size_t)bytes);
        if (st->pageable)
            memcpy(st->pageable, st->samples, (size_t)bytes);
    }
    printf("# host-input implementations: end to end, each against its pinned-copy floor (the "
           "input copied once from pinned host memory), timed alternately with it\n");
    return HIST_OK;
}

/* Time one implementation the way its kind is timed; its last result lands in st->got. */
static hist_status time_one(const hist_options *o, const hist_impl *impl, hist_result *r,
                            run_state *st) {
    const int progress = isatty(STDERR_FILENO);
    if (impl->where == HIST_HOST)
        return hist_time_host(impl, &st->p, st->samples, st->got, o->threads, o->warmup, o->reps,
                              &r->time, progress);
    if (!hist_takes_host_input(impl->where))
        return hist_gpu_time_impl(st->gpu, impl, o->warmup, o->reps, &r->time, &r->e2e, st->got,
                                  progress);
    const uint8_t *input =
        impl->where == HIST_PINNED_INPUT ? (const uint8_t *)st->pinned : st->pageable;
    if (progress)
        fprintf(stderr, "\r  %-24s (%d rounds with the copy floor) ", impl->name,
                o->warmup + o->reps);
    hist_status s =
        hist_time_host_input(impl, st->device, &st->p, input, (const uint8_t *)st->pinned, st->got,
                             o->warmup, o->reps, &r->time, &r->copy_floor, NULL);
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    return s;
}

/* Step 4, for one implementation: skip it (with the reason) or time it, keep its result for
   --output, and check it exactly against the reference. */
static hist_status run_one(const hist_options *o, const hist_impl *impl, const char *lesson,
                           const hist_impl *first, run_state *st, int *any_mismatch) {
    hist_result *r = &st->results[st->n++];
    r->impl = impl;
    r->lesson = lesson;
    /* constraints first: they hold or not whatever the machine */
    const char *why = hist_impl_unsupported(impl, &st->p, st->device);
    const int for_want_of_gpu = !why && impl->where != HIST_HOST && !st->device;
    if (for_want_of_gpu)
        why = "no GPU"; /* the header says why, once */
    if (why) {
        snprintf(r->skip_reason, sizeof r->skip_reason, "%s", why);
        if ((o->impl || (o->require_gpu && for_want_of_gpu)) && !st->not_run)
            st->not_run = impl;
        return HIST_OK;
    }
    hist_status s = time_one(o, impl, r, st);
    if (s != HIST_OK)
        return s;
    r->ran = 1;
    if (strcmp(impl->name, "cpu_reference") == 0)
        st->reference_us = r->time.median_us;
    const size_t hist_bytes = (size_t)hist_counters(&st->p) * sizeof(uint32_t);
    if (o->output && is_output_impl(o, impl, first)) {
        st->output = malloc(hist_bytes > 0 ? hist_bytes : 1);
        if (!st->output)
            return hist_fail(HIST_ERR_NOMEM, "out of memory for the histograms");
        memcpy(st->output, st->got, hist_bytes);
    }
    r->mismatches = hist_verify(&st->p, st->expected, st->got, 0, NULL);
    if (r->mismatches) {
        *any_mismatch = 1;
        fprintf(stderr, "%s differs from the reference:\n", impl->name);
        hist_verify(&st->p, st->expected, st->got, 10, stderr);
    }
    return HIST_OK;
}

/* Step 5: the table, then --output staged, or the failure of an implementation that had to run. */
static hist_status report_and_stage_output(const hist_options *o, run_state *st) {
    hist_report_table(stdout, st->results, st->n, &st->p, &st->roofs, st->reference_us);
    if (st->not_run) {
        const hist_result *r = st->results;
        while (r->impl != st->not_run)
            ++r;
        const int no_gpu = strcmp(r->skip_reason, "no GPU") == 0;
        return hist_fail(HIST_ERR_NOT_RUN, "%s could not run: %s%s%s%s%s", st->not_run->name,
                         r->skip_reason, no_gpu ? " (" : "", no_gpu ? st->no_gpu : "",
                         no_gpu ? ")" : "", o->output ? " (no --output written)" : "");
    }
    if (o->output && st->output)
        return hist_npy_stage_u32(&st->files[st->n_files++], o->output, st->output, st->p.channels,
                                  hist_bins(st->p.binning));
    if (o->output) /* without --impl: the first of the list, which did not run */
        return hist_fail(HIST_ERR_NOT_RUN,
                         "%s, the first implementation of the list, did not run: %s (no --output "
                         "written; name the one whose result you want with --impl)",
                         st->n > 0 ? st->results[0].impl->name : "none",
                         st->n > 0 ? st->results[0].skip_reason : "nothing selected");
    return HIST_OK;
}

/* What a results file's name says of the problem that ran beyond its preset: nothing when the
   problem is the preset's own; else its shape (`_4096x512`), its sample width where that is not
   the preset's (`_16bit`) and its binning where that is not the preset's for that width
   (`_lo1-hi100-w20`). With --input, always the shape (the file gave it). */
static void problem_suffix(const hist_options *o, const hist_problem *p, char *out, size_t len) {
    hist_dataset preset;
    out[0] = '\0';
    if (hist_preset(o->preset, &preset) != HIST_OK)
        hist_preset("main", &preset);
    const hist_problem *q = &preset.problem;
    const uint32_t bits = hist_sample_bits(p);
    hist_binning usual = q->binning; /* the preset's binning, or the full range at a new width */
    if (bits != hist_sample_bits(q))
        usual = (hist_binning){0, hist_max_value(p), 1};
    const hist_binning b = p->binning;
    const int other_binning = b.lo != usual.lo || b.hi != usual.hi || b.width != usual.width;
    if (!o->input && p->rows == q->rows && p->channels == q->channels &&
        bits == hist_sample_bits(q) && !other_binning)
        return;
    size_t n = (size_t)snprintf(out, len, "_%llux%u", (unsigned long long)p->rows, p->channels);
    if (n < len && bits != hist_sample_bits(q))
        n += (size_t)snprintf(out + n, len - n, "_%ubit", bits);
    if (n < len && other_binning)
        snprintf(out + n, len - n, "_lo%u-hi%u-w%u", b.lo, b.hi, b.width);
}

/* --results DIR: the file DIR/<gpu>_<preset>_<dist><problem>.csv (with --input,
   DIR/<gpu>_input<problem>.csv), the problem's part empty for a preset as it is
   (results/NVIDIA_H100_80GB_HBM3_main_uniform.csv, which make plot draws) and naming what differs
   otherwise (results/cpu-only_main_uniform_4096x512.csv), so that a smaller run never replaces the
   preset's table; checked like every output. */
static hist_status results_path(const hist_options *o, const run_state *st, char *path,
                                size_t len) {
    char name[400], dist[32], suffix[96];
    hist_dist_format(o->data.dist, dist, sizeof dist);
    problem_suffix(o, &st->p, suffix, sizeof suffix);
    snprintf(name, sizeof name, "%s_%s%s%s%s", st->device ? st->dev.name : "cpu-only",
             o->input ? "input" : o->preset, o->input ? "" : "_", o->input ? "" : dist, suffix);
    for (char *c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_'))
            *c = '_';
    snprintf(path, len, "%s/%s.csv", o->results, name);
    if (mkdir(o->results, 0755) != 0 && errno != EEXIST)
        return hist_fail(HIST_ERR_IO, "cannot create '%s': %s", o->results, strerror(errno));
    const char *others[] = {o->input, o->output, o->save_input, o->csv};
    for (size_t k = 0; k < 4; ++k)
        if (others[k] && hist_same_file(others[k], path))
            return hist_fail(HIST_ERR_USAGE, "--results: '%s' is also named by another option",
                             path);
    return hist_outfile_check("results", path);
}

/* Step 6: the CSV files staged (--csv, --results), then every staged file renamed into place,
   once the table has reached standard output. */
static hist_status write_files(const hist_options *o, run_state *st) {
    char path[1024] = "";
    hist_status s = o->results ? results_path(o, st, path, sizeof path) : HIST_OK;
    const char *csv_paths[2] = {o->csv, path[0] ? path : NULL};
    for (int k = 0; k < 2 && s == HIST_OK; ++k) {
        if (!csv_paths[k])
            continue;
        hist_outfile *f = &st->files[st->n_files++];
        s = hist_outfile_open(f, csv_paths[k]);
        if (s != HIST_OK)
            break;
        hist_report_csv(f->f, st->results, st->n, o, &st->p, st->device ? st->dev.name : "none",
                        &st->roofs, st->reference_us);
        s = hist_outfile_close(f);
    }
    if (s == HIST_OK && (fflush(stdout) != 0 || ferror(stdout)))
        s = hist_fail(HIST_ERR_IO, "cannot write the results to standard output: %s",
                      strerror(errno ? errno : EIO));
    for (int i = 0; i < st->n_files && s == HIST_OK; ++i)
        s = hist_outfile_commit(&st->files[i]);
    return s;
}

/* Run every selected implementation in registry order and report: the steps above in order. */
static hist_status run_all(const hist_options *o, const hist_impl *impls,
                           const char *const *lessons, size_t count, int *any_mismatch) {
    run_state st;
    memset(&st, 0, sizeof st);
    hist_status s = prepare_data(o, count, &st);
    gpu_needs need = {0, 0, 0, 0};
    if (s == HIST_OK) {
        need = find_gpu_needs(o, impls, count, &st);
        if (st.open_status == HIST_ERR_USAGE)
            s = hist_fail(HIST_ERR_USAGE, "%s", st.no_gpu);
        else
            print_header(o, &st);
    }
    if (s == HIST_OK && need.session)
        s = measure_floors(o, need.workspace, &st);
    if (s == HIST_OK)
        print_plans(o, impls, count, &st);
    if (s == HIST_OK && need.pinned)
        s = prepare_host_input(need.pageable, &st);
    const hist_impl *first = NULL;
    for (size_t i = 0; i < count && !first; ++i)
        if (is_selected(o, &impls[i]))
            first = &impls[i];
    for (size_t i = 0; i < count && s == HIST_OK; ++i)
        if (is_selected(o, &impls[i]))
            s = run_one(o, &impls[i], lessons[i], first, &st, any_mismatch);
    if (s == HIST_OK)
        s = report_and_stage_output(o, &st);
    if (s == HIST_OK)
        s = write_files(o, &st);
    free_state(&st);
    return s;
}

/* The program's name for messages: argv[0] without its folder. */
static const char *program_name(char **argv) {
    const char *slash = strrchr(argv[0], '/');
    return slash ? slash + 1 : argv[0];
}

/* Standard output flushed without error, or a one-line message and exit status 3. */
static int stdout_status(const char *program) {
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "%s: error: cannot write to standard output: %s\n", program,
            strerror(errno ? errno : EIO));
    return 3;
}

int hist_main(int argc, char **argv, const hist_impl *impls, const char *const *lessons,
              size_t count) {
    const char *program = program_name(argv);
    if (fcntl(STDOUT_FILENO, F_GETFD) < 0) { /* closed: a file opened next would take its place */
        fprintf(stderr, "%s: error: standard output is closed\n", program);
        return 3;
    }
    hist_options o;
    hist_status s = hist_parse_args(argc, argv, impls, count, &o);
    if (s != HIST_OK) {
        fprintf(stderr, "%s: %s\n", program, hist_last_error());
        return hist_exit_code(s);
    }
    if (o.help) {
        hist_print_usage(stdout, program);
        return stdout_status(program);
    }
    if (o.list) {
        hist_report_registry(stdout, impls, lessons, count);
        return stdout_status(program);
    }
    if (o.list_gpus) {
        hist_gpu_limits_print(stdout);
        return stdout_status(program);
    }
    int any_mismatch = 0;
    s = run_all(&o, impls, lessons, count, &any_mismatch);
    if (s != HIST_OK) {
        fflush(stdout);
        fprintf(stderr, "%s: error: %s\n", program, hist_last_error());
        return hist_exit_code(s);
    }
    return any_mismatch ? hist_exit_code(HIST_ERR_MISMATCH) : 0;
}

hist_status hist_check_lessons(const hist_lesson *lessons, size_t n) {
    for (size_t l = 0; l < n; ++l) {
        const hist_lesson *lesson = &lessons[l];
        if (*lesson->impl_count == 0)
            return hist_fail(HIST_ERR_USAGE, "%s: its registry is empty", lesson->folder);
        for (size_t i = 0; i < *lesson->impl_count; ++i) {
            const hist_impl *impl = &lesson->impls[i];
            if (!impl->name || !impl->summary || !impl->constraints || !impl->run)
                return hist_fail(HIST_ERR_USAGE,
                                 "%s: registry entry %zu needs a name, summary, constraints and "
                                 "run function (docs/LESSON_CONTRACT.md)",
                                 lesson->folder, i);
            if (hist_takes_host_input(impl->where) && impl->workspace_bytes)
                return hist_fail(HIST_ERR_USAGE,
                                 "%s: entry '%s' takes host input; it allocates its own device "
                                 "memory and cannot ask for a workspace (docs/LESSON_CONTRACT.md)",
                                 lesson->folder, impl->name);
            for (size_t k = 0; k <= l; ++k)
                for (size_t j = 0; j < (k == l ? i : *lessons[k].impl_count); ++j)
                    if (strcmp(lessons[k].impls[j].name, impl->name) == 0)
                        return hist_fail(HIST_ERR_USAGE,
                                         "%s: implementation name '%s' is already used by %s",
                                         lesson->folder, impl->name, lessons[k].folder);
        }
    }
    return HIST_OK;
}

int hist_lessons_main(int argc, char **argv, const hist_lesson *lessons, size_t n) {
    const char *program = program_name(argv);
    if (hist_check_lessons(lessons, n) != HIST_OK) {
        fprintf(stderr, "%s: broken lesson registry: %s\n", program, hist_last_error());
        return 3;
    }
    size_t total = 0;
    for (size_t l = 0; l < n; ++l)
        total += *lessons[l].impl_count;
    hist_impl *all = malloc(total * sizeof *all);
    const char **folders = malloc(total * sizeof *folders); /* each entry's lesson */
    if (!all || !folders) {
        free(all);
        free(folders);
        fprintf(stderr, "%s: out of memory\n", program);
        return 3;
    }
    size_t k = 0;
    for (size_t l = 0; l < n; ++l)
        for (size_t i = 0; i < *lessons[l].impl_count; ++i, ++k) {
            all[k] = lessons[l].impls[i];
            folders[k] = lessons[l].folder;
        }
    const int status = hist_main(argc, argv, all, folders, total);
    free(all);
    free(folders);
    return status;
}
