/**
 * @file report.c
 * @brief The runner's reports: the results table, its CSV, and the registry listing (report.h).
 */
#define _GNU_SOURCE
#include "report.h"

#include <string.h>
#include <time.h>

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
    const char *lesson = results[i].lesson;
    const char *previous = NULL;
    for (size_t k = 0; k < n && strcmp(results[k].lesson, lesson) != 0; ++k)
        previous = results[k].lesson;
    double best = 0.0;
    for (size_t k = 0; previous && k < n; ++k) {
        const double t = e2e ? end_to_end_us(&results[k]) : results[k].time.median_us;
        if (results[k].ran && !results[k].impl->library &&
            strcmp(results[k].lesson, previous) == 0 && t > 0 && (best == 0.0 || t < best))
            best = t;
    }
    return best;
}

double hist_roof_us(const hist_roofs *r, hist_roof roof) {
    const double ceiling = r->ceiling.reps > 0 ? r->ceiling.median_us : 0.0;
    if (roof == HIST_ROOF_ATOMICS)
        return ceiling;
    const double floor = r->floor.reps > 0 ? r->floor.median_us : 0.0;
    return floor > ceiling ? floor : ceiling;
}

/* A device result's share of the bound max(floor, ceiling); 0 for other kinds or when none was
   measured. */
static double share_of_bound(const hist_result *r, const hist_roofs *roofs) {
    const double bound = hist_roof_us(roofs, HIST_ROOF_BOUND);
    return r->impl->where == HIST_DEVICE && bound > 0 && r->time.median_us > 0
               ? bound / r->time.median_us
               : 0.0;
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

void hist_report_table(FILE *f, const hist_result *results, size_t n, const hist_problem *p,
                       const hist_roofs *roofs, double reference_us) {
    const double bytes = (double)hist_input_bytes(p);
    const hist_stats *floor = &roofs->floor;
    fprintf(f, "%-22s %-24s %-6s %11s %11s %11s %8s %7s %7s %8s %8s  %s\n", "lesson",
            "implementation", "where", "median", "min", "e2e median", "GB/s", "%floor", "%bound",
            "vs ref", "vs prev", "check");
    for (size_t i = 0; i < n; ++i) {
        const hist_result *r = &results[i];
        if (!r->ran) {
            const int todo = strncmp(r->skip_reason, "not written yet", 15) == 0;
            fprintf(f, "%-22s %-24s %-6s %s%s\n", r->lesson, r->impl->name,
                    hist_where_name(r->impl->where), todo ? "" : "skipped: ", r->skip_reason);
            continue;
        }
        char median[24], min[24], e2e[24] = "-", gbps[24] = "-", pct[16] = "-", bound[16] = "-",
                                  speedup[16] = "-", vs_prev[16] = "-";
        const double prev = previous_lesson_best(results, n, i);
        format_time(r->time.median_us, median, sizeof median);
        format_time(r->time.min_us, min, sizeof min);
        if (end_to_end_us(r) > 0)
            format_time(end_to_end_us(r), e2e, sizeof e2e);
        if (r->time.median_us > 0) {
            snprintf(gbps, sizeof gbps, "%.1f", bytes / (r->time.median_us * 1e3));
            if (share_of_floor(r, floor) > 0)
                snprintf(pct, sizeof pct, "%.0f%%", 100.0 * share_of_floor(r, floor));
            if (share_of_bound(r, roofs) > 0)
                snprintf(bound, sizeof bound, "%.0f%%", 100.0 * share_of_bound(r, roofs));
            if (reference_us > 0)
                snprintf(speedup, sizeof speedup, "%.2fx", reference_us / r->time.median_us);
            if (prev > 0)
                snprintf(vs_prev, sizeof vs_prev, "%.2fx", prev / r->time.median_us);
        }
        fprintf(f, "%-22s %-24s %-6s %11s %11s %11s %8s %7s %7s %8s %8s  %s\n", r->lesson,
                r->impl->name, hist_where_name(r->impl->where), median, min, e2e, gbps, pct, bound,
                speedup, vs_prev, r->mismatches == 0 ? "exact" : "MISMATCH");
    }
}

void hist_report_csv(FILE *f, const hist_result *results, size_t n, const hist_options *o,
                     const hist_problem *p, const char *gpu, const hist_roofs *roofs,
                     double reference_us) {
    const hist_stats *floor = &roofs->floor;
    char dist[32];
    hist_dist_format(o->data.dist, dist, sizeof dist);
    fprintf(f,
            "lesson,implementation,where,status,median_us,min_us,e2e_median_us,e2e_min_us,"
            "gb_per_s,pct_of_floor,speedup_vs_reference,speedup_vs_previous_lesson,check,"
            "floor_median_us,gpu,rows,channels,bins,dist,seed,reps,threads,"
            "clean_floor_median_us,date_utc,command,copy_floor_median_us,atomic_ceiling_median_us,"
            "pct_of_bound,commit,bits\n");
    char gpu_cell[256]; /* a GPU's name as one CSV cell */
    snprintf(gpu_cell, sizeof gpu_cell, "%s", gpu);
    for (char *c = gpu_cell; *c; ++c)
        if (*c == ',' || *c == '"')
            *c = ';';
    char date[32] = "";
    const time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    for (size_t i = 0; i < n; ++i) {
        const hist_result *r = &results[i];
        const double t = r->time.median_us;
        fprintf(f, "%s,%s,%s,%s,", r->lesson, r->impl->name, hist_where_name(r->impl->where),
                r->ran ? "ran" : "skipped");
        const double prev = previous_lesson_best(results, n, i);
        if (r->ran)
            fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.3f,%.3f,%s,", t, r->time.min_us,
                    end_to_end_us(r),
                    hist_takes_host_input(r->impl->where) ? r->time.min_us : r->e2e.min_us,
                    t > 0 ? hist_input_bytes(p) / (t * 1e3) : 0.0, 100.0 * share_of_floor(r, floor),
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
        fprintf(f, "%.3f,%s,%llu,%u,%u,%s,%llu,%d,%d,%.3f,%s,%s,%.3f,%.3f,%.2f,%s,%u\n",
                floor->median_us, gpu_cell, (unsigned long long)p->rows, p->channels,
                hist_bins(p->binning), dist, (unsigned long long)o->data.seed, o->reps, o->threads,
                roofs->clean.median_us, date, o->command, r->copy_floor.median_us,
                roofs->ceiling.median_us, r->ran ? 100.0 * share_of_bound(r, roofs) : 0.0,
                hist_course_commit, hist_sample_bits(p));
    }
}

void hist_report_registry(FILE *f, const hist_impl *impls, const char *const *lessons,
                          size_t count) {
    fprintf(f, "%-22s %-24s %-6s %s\n", "lesson", "implementation", "where", "what / constraints");
    for (size_t i = 0; i < count; ++i)
        fprintf(f, "%-22s %-24s %-6s %s\n%55s constraints: %s\n", lessons[i], impls[i].name,
                hist_where_name(impls[i].where), impls[i].summary, "", impls[i].constraints);
}
