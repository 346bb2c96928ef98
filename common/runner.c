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
#include "npy.h"
#include "outfile.h"
#include "reference.h"

/* ---- running one implementation ---- */

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

static size_t workspace_of(const hist_impl *impl, const hist_problem *p, const hist_device *dev) {
    return impl->workspace_bytes ? impl->workspace_bytes(p, dev) : 0;
}

const char *hist_not_written(const hist_impl *impl) {
    static char message[2048];
    const size_t n = strlen(impl->name);
    size_t used = 0;
    for (size_t i = 0; i < hist_todo_count; ++i)
        for (const char *at = hist_todos[i].impls; (at = strstr(at, impl->name)) != NULL; at += n)
            if (at[-1] == ' ' && at[n] == ' ') { /* the list is " a b ": whole names only */
                int w = snprintf(message + used, sizeof message - used, "%s%s in %s:%d",
                                 used ? ", " : "not written yet: ", hist_todos[i].function,
                                 hist_todos[i].file, hist_todos[i].line);
                if (w > 0 && (size_t)w < sizeof message - used)
                    used += (size_t)w;
                break;
            }
    return used ? message : NULL;
}

const char *hist_impl_unsupported(const hist_impl *impl, const hist_problem *p,
                                  const hist_device *dev) {
    const char *todo = hist_not_written(impl);
    if (todo)
        return todo;
    return impl->unsupported ? impl->unsupported(p, dev) : NULL;
}

/* Time calls of an implementation given host pointers on the host clock: a host one, or a
   host-input one (on the GPU @p dev, which it synchronises before returning). */
static hist_status time_on_host(const hist_impl *impl, const hist_device *dev,
                                const hist_problem *p, const uint8_t *samples, uint32_t *hist,
                                int threads, int warmup, int reps, hist_stats *out, int progress) {
    const size_t hist_bytes = (size_t)hist_counters(p) * sizeof(uint32_t);
    const size_t ws_bytes = impl->where == HIST_HOST ? workspace_of(impl, p, NULL) : 0;
    void *workspace = ws_bytes ? malloc(ws_bytes) : NULL;
    double *times = calloc(reps > 0 ? (size_t)reps : 1, sizeof *times);
    if ((ws_bytes && !workspace) || !times) {
        free(workspace);
        free(times);
        return hist_fail(HIST_ERR_NOMEM, "out of memory for %s's workspace", impl->name);
    }
    const hist_args args = {p, samples, hist, workspace, dev, threads};
    hist_status s = HIST_OK;
    const int total = warmup + (reps > 0 ? reps : 1);
    for (int i = 0; i < total && s == HIST_OK; ++i) {
        if (progress)
            fprintf(stderr, "\r  %-24s rep %d/%d ", impl->name, i + 1, total);
        memset(hist, 0xFF, hist_bytes); /* an implementation must zero its own output */
        const double t0 = hist_now_us();
        s = impl->run(&args);
        const double t1 = hist_now_us();
        if (i >= warmup && reps > 0)
            times[i - warmup] = t1 - t0;
    }
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    if (s == HIST_OK && out)
        *out = hist_stats_of(times, reps);
    free(times);
    free(workspace);
    return s;
}

hist_status hist_time_host(const hist_impl *impl, const hist_problem *p, const uint8_t *samples,
                           uint32_t *hist, int threads, int warmup, int reps, hist_stats *out,
                           int progress) {
    return time_on_host(impl, NULL, p, samples, hist, threads, warmup, reps, out, progress);
}

/** @brief One call of a host-input implementation, for hist_gpu_time_alternately(). */
typedef struct host_input_call {
    const hist_impl *impl; /**< the implementation */
    hist_args args;        /**< its arguments */
} host_input_call;

/* Call the implementation once (it returns when its result is in host memory). */
static hist_status call_host_input(void *ctx) {
    const host_input_call *c = (const host_input_call *)ctx;
    return c->impl->run(&c->args);
}

hist_status hist_time_host_input(const hist_impl *impl, const hist_device *dev,
                                 const hist_problem *p, const uint8_t *input, const uint8_t *pinned,
                                 uint32_t *hist, int warmup, int reps, hist_stats *time,
                                 hist_stats *copy_floor) {
    /* poisoned once: an implementation that does not zero its output is wrong after any call */
    memset(hist, 0xFF, (size_t)hist_counters(p) * sizeof(uint32_t));
    host_input_call call = {impl, {p, input, hist, NULL, dev, 1}};
    return hist_gpu_time_alternately(dev, pinned, hist_samples(p), call_host_input, &call, warmup,
                                     reps, copy_floor, time);
}

/* The input of a host-input implementation where it wants it: @p samples itself (pageable), or
   a pinned copy (*copy, to free with hist_host_pinned_free()). */
static hist_status host_input_for(const hist_impl *impl, const hist_problem *p,
                                  const uint8_t *samples, void **copy, const uint8_t **input) {
    *copy = NULL;
    *input = samples;
    if (impl->where != HIST_PINNED_INPUT)
        return HIST_OK;
    const uint64_t bytes = hist_samples(p);
    hist_status s = hist_host_memory_check(bytes, "the pinned copy of the samples");
    if (s == HIST_OK)
        s = hist_host_pinned_alloc(copy, (size_t)bytes);
    if (s != HIST_OK)
        return s;
    if (bytes > 0)
        memcpy(*copy, samples, (size_t)bytes);
    *input = (const uint8_t *)*copy;
    return HIST_OK;
}

hist_status hist_run_once(const hist_impl *impl, const hist_device *dev, const hist_problem *p,
                          const uint8_t *samples, uint32_t *hist, int threads) {
    if (impl->where == HIST_HOST)
        return hist_time_host(impl, p, samples, hist, threads, 0, 0, NULL, 0);
    if (!dev)
        return hist_fail(HIST_ERR_NO_DEVICE, "%s needs a CUDA device", impl->name);
    if (hist_takes_host_input(impl->where)) {
        void *copy;
        const uint8_t *input;
        hist_status s = host_input_for(impl, p, samples, &copy, &input);
        if (s == HIST_OK)
            s = time_on_host(impl, dev, p, input, hist, threads, 0, 0, NULL, 0);
        hist_host_pinned_free(copy);
        return s;
    }
    hist_gpu *g = NULL;
    hist_status s = hist_gpu_create(&g, dev, p, samples, workspace_of(impl, p, dev));
    if (s == HIST_OK)
        s = hist_gpu_time_impl(g, impl, 0, 0, NULL, NULL, hist, 0);
    hist_gpu_destroy(g);
    return s;
}

/* ---- reporting ---- */

static void format_time(double us, char *buf, size_t len) {
    if (us >= 1e6)
        snprintf(buf, len, "%.3f s", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, len, "%.2f ms", us / 1e3);
    else
        snprintf(buf, len, "%.1f us", us);
}

/* A result's end-to-end time (copy included): a host-input implementation's time is end to end;
   a device one's when measured (0 if not). */
static double end_to_end_us(const hist_result *r) {
    if (hist_takes_host_input(r->impl->where))
        return r->time.median_us;
    return r->impl->where == HIST_DEVICE && r->e2e.reps > 0 ? r->e2e.median_us : 0.0;
}

/* The fastest median of the lesson before result i's lesson (in registry order), or 0; library
   baselines are not a lesson's own and are left out. A host-input result is compared end to end
   (the previous lesson's best time with its copy). */
static double previous_lesson_best(const hist_result *results, size_t n, size_t i) {
    const int e2e = hist_takes_host_input(results[i].impl->where);
    const char *lesson = results[i].impl->lesson;
    const char *previous = NULL;
    for (size_t k = 0; k < n && strcmp(results[k].impl->lesson, lesson) != 0; ++k)
        previous = results[k].impl->lesson;
    double best = 0.0;
    for (size_t k = 0; previous && k < n; ++k) {
        const double t = e2e ? end_to_end_us(&results[k]) : results[k].time.median_us;
        if (results[k].ran && !results[k].impl->library &&
            strcmp(results[k].impl->lesson, previous) == 0 && t > 0 && (best == 0.0 || t < best))
            best = t;
    }
    return best;
}

/* A result's share of its floor: the read-only floor for a device implementation, the
   pinned-copy floor timed alternately with it for a host-input one; 0 for a host one or when none
   was measured. */
static double share_of_floor(const hist_result *r, const hist_stats *floor) {
    const hist_stats *f = r->impl->where == HIST_DEVICE           ? floor
                          : hist_takes_host_input(r->impl->where) ? &r->copy_floor
                                                                  : NULL;
    return f && f->reps > 0 && r->time.median_us > 0 ? f->median_us / r->time.median_us : 0.0;
}

static void print_table(FILE *f, const hist_result *results, size_t n, const hist_problem *p,
                        const hist_stats *floor, double reference_us) {
    const double bytes = (double)hist_samples(p);
    fprintf(f, "%-22s %-24s %-6s %11s %11s %11s %8s %7s %8s %8s  %s\n", "lesson", "implementation",
            "where", "median", "min", "e2e median", "GB/s", "%floor", "vs ref", "vs prev", "check");
    for (size_t i = 0; i < n; ++i) {
        const hist_result *r = &results[i];
        if (!r->ran) {
            const int todo = strncmp(r->skip_reason, "not written yet", 15) == 0;
            fprintf(f, "%-22s %-24s %-6s %s%s\n", r->impl->lesson, r->impl->name,
                    hist_where_name(r->impl->where), todo ? "" : "skipped: ", r->skip_reason);
            continue;
        }
        char median[24], min[24], e2e[24] = "-", gbps[24] = "-", pct[16] = "-", speedup[16] = "-",
                                  vs_prev[16] = "-";
        const double prev = previous_lesson_best(results, n, i);
        format_time(r->time.median_us, median, sizeof median);
        format_time(r->time.min_us, min, sizeof min);
        if (end_to_end_us(r) > 0)
            format_time(end_to_end_us(r), e2e, sizeof e2e);
        if (r->time.median_us > 0) {
            snprintf(gbps, sizeof gbps, "%.1f", bytes / (r->time.median_us * 1e3));
            if (share_of_floor(r, floor) > 0)
                snprintf(pct, sizeof pct, "%.0f%%", 100.0 * share_of_floor(r, floor));
            if (reference_us > 0)
                snprintf(speedup, sizeof speedup, "%.2fx", reference_us / r->time.median_us);
            if (prev > 0)
                snprintf(vs_prev, sizeof vs_prev, "%.2fx", prev / r->time.median_us);
        }
        fprintf(f, "%-22s %-24s %-6s %11s %11s %11s %8s %7s %8s %8s  %s\n", r->impl->lesson,
                r->impl->name, hist_where_name(r->impl->where), median, min, e2e, gbps, pct,
                speedup, vs_prev, r->mismatches == 0 ? "exact" : "MISMATCH");
    }
}

static void write_csv(FILE *f, const hist_result *results, size_t n, const hist_options *o,
                      const hist_problem *p, const char *gpu, const hist_stats *floor,
                      const hist_stats *clean, double reference_us) {
    char dist[32];
    hist_dist_format(o->data.dist, dist, sizeof dist);
    fprintf(f, "lesson,implementation,where,status,median_us,min_us,e2e_median_us,e2e_min_us,"
               "gb_per_s,pct_of_floor,speedup_vs_reference,speedup_vs_previous_lesson,check,"
               "floor_median_us,gpu,rows,channels,bins,dist,seed,reps,threads,"
               "clean_floor_median_us,date_utc,command,copy_floor_median_us\n");
    char date[32] = "";
    const time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    for (size_t i = 0; i < n; ++i) {
        const hist_result *r = &results[i];
        const double t = r->time.median_us;
        fprintf(f, "%s,%s,%s,%s,", r->impl->lesson, r->impl->name, hist_where_name(r->impl->where),
                r->ran ? "ran" : "skipped");
        const double prev = previous_lesson_best(results, n, i);
        if (r->ran)
            fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.3f,%.3f,%s,", t, r->time.min_us,
                    end_to_end_us(r),
                    hist_takes_host_input(r->impl->where) ? r->time.min_us : r->e2e.min_us,
                    t > 0 ? hist_samples(p) / (t * 1e3) : 0.0, 100.0 * share_of_floor(r, floor),
                    reference_us > 0 && t > 0 ? reference_us / t : 0.0,
                    prev > 0 && t > 0 ? prev / t : 0.0, r->mismatches == 0 ? "exact" : "mismatch");
        else {
            char reason[sizeof r->skip_reason];
            snprintf(reason, sizeof reason, "%s", r->skip_reason);
            for (char *c = reason; *c; ++c)
                if (*c == ',' || *c == '"')
                    *c = ';'; /* keep the CSV's columns */
            fprintf(f, ",,,,,,,,skipped: %s,", reason);
        }
        fprintf(f, "%.3f,%s,%llu,%u,%u,%s,%llu,%d,%d,%.3f,%s,%s,%.3f\n", floor->median_us, gpu,
                (unsigned long long)p->rows, p->channels, hist_bins(p->binning), dist,
                (unsigned long long)o->data.seed, o->reps, o->threads, clean->median_us, date,
                o->command, r->copy_floor.median_us);
    }
}

static void print_registry(FILE *f, const hist_impl *impls, size_t count) {
    fprintf(f, "%-22s %-24s %-6s %s\n", "lesson", "implementation", "where", "what / constraints");
    for (size_t i = 0; i < count; ++i)
        fprintf(f, "%-22s %-24s %-6s %s\n%55s constraints: %s\n", impls[i].lesson, impls[i].name,
                hist_where_name(impls[i].where), impls[i].summary, "", impls[i].constraints);
}

/* ---- the program ---- */

/** @brief Everything one run allocates, freed together. */
typedef struct run_state {
    uint8_t *samples;      /**< the input */
    uint32_t *expected;    /**< the reference's histogram */
    uint32_t *got;         /**< the latest implementation's histogram */
    uint32_t *output;      /**< the --output implementation's histogram, once it ran */
    hist_result *results;  /**< one per selected implementation */
    hist_gpu *gpu;         /**< the GPU session, if any */
    void *pinned;          /**< host-input implementations: the input in pinned memory */
    uint8_t *pageable;     /**< host-input implementations: the input in pageable memory, never
                                registered with CUDA (the session pins `samples`) */
    hist_outfile files[4]; /**< --save-input, --output, --csv, --results: renamed at the end */
    int n_files;           /**< how many are staged */
} run_state;

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

static hist_status load_samples(const hist_options *o, hist_problem *p, run_state *st) {
    if (o->input) {
        uint64_t rows = 0, channels = 0;
        hist_status s = hist_npy_read_u8(o->input, &st->samples, &rows, &channels);
        if (s != HIST_OK)
            return s; /* the reader refuses shapes outside the limits before reading data */
        p->rows = rows;
        p->channels = (uint32_t)channels;
        return HIST_OK;
    }
    const uint64_t bytes = hist_samples(p);
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

static hist_status run_all(const hist_options *o, const hist_impl *impls, size_t count,
                           int *any_mismatch) {
    run_state st;
    memset(&st, 0, sizeof st);
    hist_problem p = o->data.problem;
    const int progress = isatty(STDERR_FILENO);
    hist_status s = load_samples(o, &p, &st);
    if (s == HIST_OK && o->save_input)
        s = hist_npy_stage_u8(&st.files[st.n_files++], o->save_input, st.samples, p.rows,
                              p.channels);
    const size_t hist_bytes = (size_t)hist_counters(&p) * sizeof(uint32_t);
    if (s == HIST_OK) {
        st.expected = malloc(hist_bytes);
        st.got = malloc(hist_bytes);
        st.results = calloc(count, sizeof *st.results);
        if (!st.expected || !st.got || !st.results)
            s = hist_fail(HIST_ERR_NOMEM, "out of memory for the histograms");
    }
    if (s != HIST_OK) {
        free_state(&st);
        return s;
    }
    hist_reference(&p, st.samples, st.expected);

    /* which implementations run; the GPU is opened only if one of them needs it */
    hist_device dev;
    const hist_device *device = NULL;
    char no_gpu[200] = "";
    size_t workspace = 0;
    int session = 0, pinned = 0, pageable = 0; /* what the selected GPU implementations need */
    for (size_t i = 0; i < count; ++i) {
        if (impls[i].where == HIST_HOST || !is_selected(o, &impls[i]))
            continue;
        if (!device && no_gpu[0] == '\0') {
            if (hist_device_open(&dev) == HIST_OK)
                device = &dev;
            else
                snprintf(no_gpu, sizeof no_gpu, "%s", hist_last_error());
        }
        if (!device || hist_impl_unsupported(&impls[i], &p, device))
            continue;
        if (impls[i].where == HIST_DEVICE) {
            size_t w = workspace_of(&impls[i], &p, device);
            workspace = w > workspace ? w : workspace;
            session = 1;
        } else {
            pinned = 1; /* the pinned-copy floor reads pinned memory */
            pageable |= impls[i].where == HIST_HOST_INPUT;
        }
    }

    char dist[32];
    hist_dist_format(o->data.dist, dist, sizeof dist);
    printf("# rows=%llu channels=%u bins=%u (lo=%u hi=%u width=%u) ", (unsigned long long)p.rows,
           p.channels, hist_bins(p.binning), p.binning.lo, p.binning.hi, p.binning.width);
    if (o->input)
        printf("input=%s\n", o->input);
    else
        printf("values=%u..%u dist=%s seed=%llu preset=%s\n", o->data.vmin, o->data.vmax, dist,
               (unsigned long long)o->data.seed, o->preset);
    printf("# reps=%d warmup=%d threads=%d; GPU: %s\n", o->reps, o->warmup, o->threads,
           device ? dev.name : (no_gpu[0] ? no_gpu : "not needed"));

    hist_stats floor = {0, 0, 0}, clean = {0, 0, 0};
    if (session) {
        s = hist_gpu_create(&st.gpu, device, &p, st.samples, workspace);
        if (s == HIST_OK)
            s = hist_gpu_time_floor(st.gpu, o->warmup, o->reps, &floor);
        if (s == HIST_OK)
            s = hist_gpu_time_floor_clean(st.gpu, o->warmup, o->reps, &clean);
        if (s != HIST_OK) {
            free_state(&st);
            return s;
        }
        printf("# read-only floor: median %.1f us, min %.1f us (%.0f GB/s), %d SMs, %.0f MiB L2\n",
               floor.median_us, floor.min_us, hist_samples(&p) / (floor.median_us * 1e3),
               dev.sm_count, dev.l2_bytes / 1048576.0);
        printf("# the same read on a clean L2 (no dirty line written back while timed): median "
               "%.1f us (%.0f GB/s); %%floor is against the flushed floor above, timed like every "
               "kernel\n",
               clean.median_us, hist_samples(&p) / (clean.median_us * 1e3));
    }
    if (pinned) { /* host-input implementations: their input, and the floor they are judged by */
        const uint64_t bytes = hist_samples(&p);
        s = hist_host_memory_check(bytes * (pageable ? 2 : 1),
                                   "the pinned and pageable copies of the samples");
        if (s == HIST_OK)
            s = hist_host_pinned_alloc(&st.pinned, (size_t)bytes);
        if (s == HIST_OK && pageable && !(st.pageable = malloc(bytes > 0 ? (size_t)bytes : 1)))
            s = hist_fail(HIST_ERR_NOMEM, "out of memory for the pageable copy of the samples");
        if (s == HIST_OK && bytes > 0) {
            memcpy(st.pinned, st.samples, (size_t)bytes);
            if (st.pageable)
                memcpy(st.pageable, st.samples, (size_t)bytes);
        }
        if (s != HIST_OK) {
            free_state(&st);
            return s;
        }
        printf("# host-input implementations: end to end, each against its pinned-copy floor (the "
               "input copied once from pinned host memory), timed alternately with it\n");
    }

    size_t n = 0;
    double reference_us = 0.0;
    const hist_impl *not_run =
        NULL; /* the first implementation named with --impl that was skipped */
    const hist_impl *first = NULL;
    for (size_t i = 0; i < count && !first; ++i)
        if (is_selected(o, &impls[i]))
            first = &impls[i];
    for (size_t i = 0; i < count && s == HIST_OK; ++i) {
        const hist_impl *impl = &impls[i];
        if (!is_selected(o, impl))
            continue;
        hist_result *r = &st.results[n++];
        r->impl = impl;
        /* constraints first: they hold or not whatever the machine */
        const char *why = hist_impl_unsupported(impl, &p, device);
        const int for_want_of_gpu = !why && impl->where != HIST_HOST && !device;
        if (for_want_of_gpu)
            why = no_gpu;
        if (why) {
            snprintf(r->skip_reason, sizeof r->skip_reason, "%s", why);
            if ((o->impl || (o->require_gpu && for_want_of_gpu)) && !not_run)
                not_run = impl;
            continue;
        }
        if (impl->where == HIST_HOST) {
            s = hist_time_host(impl, &p, st.samples, st.got, o->threads, o->warmup, o->reps,
                               &r->time, progress);
        } else if (hist_takes_host_input(impl->where)) {
            const uint8_t *input =
                impl->where == HIST_PINNED_INPUT ? (const uint8_t *)st.pinned : st.pageable;
            if (progress)
                fprintf(stderr, "\r  %-24s (%d rounds with the copy floor) ", impl->name,
                        o->warmup + o->reps);
            s = hist_time_host_input(impl, device, &p, input, (const uint8_t *)st.pinned, st.got,
                                     o->warmup, o->reps, &r->time, &r->copy_floor);
            if (progress)
                fprintf(stderr, "\r%60s\r", "");
        } else {
            s = hist_gpu_time_impl(st.gpu, impl, o->warmup, o->reps, &r->time, &r->e2e, st.got,
                                   progress);
        }
        if (s != HIST_OK)
            break;
        r->ran = 1;
        if (strcmp(impl->name, "cpu_reference") == 0)
            reference_us = r->time.median_us;
        if (o->output && is_output_impl(o, impl, first)) {
            st.output = malloc(hist_bytes > 0 ? hist_bytes : 1);
            if (!st.output) {
                s = hist_fail(HIST_ERR_NOMEM, "out of memory for the histograms");
                break;
            }
            memcpy(st.output, st.got, hist_bytes);
        }
        r->mismatches = hist_verify(&p, st.expected, st.got, 0, NULL);
        if (r->mismatches) {
            *any_mismatch = 1;
            fprintf(stderr, "%s differs from the reference:\n", impl->name);
            hist_verify(&p, st.expected, st.got, 10, stderr);
        }
    }
    if (s == HIST_OK) {
        print_table(stdout, st.results, n, &p, &floor, reference_us);
        if (not_run) {
            const hist_result *r = st.results;
            while (r->impl != not_run)
                ++r;
            s = hist_fail(HIST_ERR_NOT_RUN, "%s could not run: %s%s", not_run->name, r->skip_reason,
                          o->output ? " (no --output written)" : "");
        } else if (o->output && st.output) {
            s = hist_npy_stage_u32(&st.files[st.n_files++], o->output, st.output, p.channels,
                                   hist_bins(p.binning));
        } else if (o->output) {
            s = hist_fail(HIST_ERR_NOT_RUN, "no implementation ran (no --output written)");
        }
    }
    char results_path[512] = "";
    if (s == HIST_OK && o->results) {
        /* e.g. results/NVIDIA_H100_80GB_HBM3_main_uniform.csv */
        char name[300];
        snprintf(name, sizeof name, "%s_%s_%s", device ? dev.name : "cpu-only",
                 o->input ? "input" : o->preset, dist);
        for (char *c = name; *c; ++c)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
                *c = '_';
        snprintf(results_path, sizeof results_path, "%s/%s.csv", o->results, name);
        if (mkdir(o->results, 0755) != 0 && errno != EEXIST)
            s = hist_fail(HIST_ERR_IO, "cannot create '%s': %s", o->results, strerror(errno));
        const char *others[] = {o->input, o->output, o->save_input, o->csv};
        for (size_t k = 0; k < 4 && s == HIST_OK; ++k)
            if (others[k] && hist_same_file(others[k], results_path))
                s = hist_fail(HIST_ERR_USAGE, "--results: '%s' is also named by another option",
                              results_path);
        if (s == HIST_OK)
            s = hist_outfile_check("results", results_path);
    }
    const char *csv_paths[2] = {o->csv, results_path[0] ? results_path : NULL};
    for (int k = 0; k < 2 && s == HIST_OK; ++k) {
        if (!csv_paths[k])
            continue;
        hist_outfile *f = &st.files[st.n_files++];
        s = hist_outfile_open(f, csv_paths[k]);
        if (s != HIST_OK)
            break;
        write_csv(f->f, st.results, n, o, &p, device ? dev.name : "none", &floor, &clean,
                  reference_us);
        s = hist_outfile_close(f);
    }
    /* the table reached standard output before any file is renamed into place */
    if (s == HIST_OK && (fflush(stdout) != 0 || ferror(stdout)))
        s = hist_fail(HIST_ERR_IO, "cannot write the results to standard output: %s",
                      strerror(errno ? errno : EIO));
    for (int i = 0; i < st.n_files && s == HIST_OK; ++i)
        s = hist_outfile_commit(&st.files[i]);
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

int hist_main(int argc, char **argv, const hist_impl *impls, size_t count) {
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
        print_registry(stdout, impls, count);
        return stdout_status(program);
    }
    int any_mismatch = 0;
    s = run_all(&o, impls, count, &any_mismatch);
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
            if (!impl->name || !impl->summary || !impl->constraints || !impl->run || !impl->lesson)
                return hist_fail(HIST_ERR_USAGE,
                                 "%s: registry entry %zu needs a name, lesson, summary, "
                                 "constraints and run function (common/LESSONS.md)",
                                 lesson->folder, i);
            if (hist_takes_host_input(impl->where) && impl->workspace_bytes)
                return hist_fail(HIST_ERR_USAGE,
                                 "%s: entry '%s' takes host input; it allocates its own device "
                                 "memory and cannot ask for a workspace (common/LESSONS.md)",
                                 lesson->folder, impl->name);
            if (strcmp(impl->lesson, lesson->folder) != 0)
                return hist_fail(HIST_ERR_USAGE,
                                 "%s: entry '%s' says its lesson is '%s'; it must be the folder "
                                 "name (common/LESSONS.md)",
                                 lesson->folder, impl->name, impl->lesson);
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
    if (!all) {
        fprintf(stderr, "%s: out of memory\n", program);
        return 3;
    }
    size_t k = 0;
    for (size_t l = 0; l < n; ++l)
        for (size_t i = 0; i < *lessons[l].impl_count; ++i)
            all[k++] = lessons[l].impls[i];
    const int status = hist_main(argc, argv, all, total);
    free(all);
    return status;
}
