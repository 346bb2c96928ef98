/**
 * @file race_demo.c
 * @brief `make demo`: the naive kernel without its atomic, counting the updates it loses.
 *
 * Takes the dataset options of every lesson binary (`make demo` passes `--dist constant`). Not a
 * test: the number lost changes from run to run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "impl.h"
#include "options.h"
#include "reference.h"

HIST_DECLARE_REGISTRY(day02);
/** @brief gpu_naive without its atomic (naive.cu; not in the registry: it is wrong on purpose). */
extern const hist_impl day02_racy_impl;

static uint64_t total(const uint32_t *hist, uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; ++i)
        sum += hist[i];
    return sum;
}

/**
 * @brief The race demonstration (see the file comment).
 * @param argc argument count
 * @param argv the arguments (see --help)
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses"; 4 without a GPU)
 */
int main(int argc, char **argv) {
    const hist_impl *impls[] = {&day02_racy_impl, &day02_impls[0]};
    const hist_program prog = {
        .name = "race_demo",
        .about = "The naive kernel without its atomic: how many updates the race loses.",
        .refused = "input save-input output csv results impl reps warmup threads require-gpu list",
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    hist_status s = HIST_OK;
    const char *todo = hist_not_written(&day02_impls[0]);
    if (todo) /* the racy kernel is the student's naive_count() without its atomic */
        return hist_program_failed(prog.name, hist_fail(HIST_ERR_NOT_RUN, "gpu_naive is %s", todo));
    hist_device dev;
    if ((s = hist_device_open(&o.emulation, &dev)) != HIST_OK)
        return hist_program_failed(prog.name, s);
    const hist_problem *p = &o.data.problem;
    const uint64_t n = hist_counters(p);
    uint8_t *samples = malloc(hist_samples(p) ? hist_samples(p) : 1);
    uint32_t *expected = malloc(n * sizeof(uint32_t));
    uint32_t *got = malloc(n * sizeof(uint32_t));
    if (!samples || !expected || !got || hist_generate(&o.data, samples) != HIST_OK) {
        fprintf(stderr, "race_demo: out of memory\n");
        return 3;
    }
    hist_reference(p, samples, expected);
    char dist[32];
    hist_dist_format(o.data.dist, dist, sizeof dist);
    printf("rows=%" PRIu64 " channels=%u dist=%s on %s: %" PRIu64 " samples to count\n", p->rows,
           p->channels, dist, dev.name, total(expected, n));
    for (int k = 0; k < 2; ++k) {
        if ((s = hist_run_once(impls[k], &dev, p, samples, got, 1, NULL)) != HIST_OK) {
            fprintf(stderr, "race_demo: %s\n", hist_last_error());
            return 3;
        }
        const uint64_t counted = total(got, n), wanted = total(expected, n);
        printf("  %-16s counted %12" PRIu64 ", lost %12" PRIu64 " (%.4f%%)\n", impls[k]->name,
               counted, wanted - counted, wanted ? 100.0 * (wanted - counted) / wanted : 0.0);
    }
    free(samples);
    free(expected);
    free(got);
    return 0;
}
