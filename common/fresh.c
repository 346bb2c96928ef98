/**
 * @file fresh.c
 * @brief Fresh inputs for a graded timing, and the host timings on them (fresh.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "fresh.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "data.h"
#include "gpu.h"
#include "impl.h"
#include "parallel.h"
#include "reference.h"

hist_status hist_fresh_init(hist_fresh *f, const hist_problem *p, const uint8_t *base,
                            uint64_t seed) {
    memset(f, 0, sizeof *f);
    f->problem = *p;
    f->base = base;
    f->values = hist_max_value(p) + 1;
    f->seed = seed;
    const size_t counts = (size_t)p->channels * f->values;
    f->value_counts = malloc(counts * sizeof *f->value_counts);
    f->perm = malloc(f->values * sizeof *f->perm);
    f->expected = malloc((size_t)hist_counters(p) * sizeof *f->expected);
    if (!f->value_counts || !f->perm || !f->expected) {
        hist_fresh_free(f);
        return hist_fail(HIST_ERR_NOMEM, "out of host memory for the fresh inputs' counts");
    }
    /* every value its own bin: the count of each value in each channel */
    hist_problem every_value = *p;
    every_value.binning = (hist_binning){0, (uint16_t)(f->values - 1), 1};
    hist_reference_parallel(&every_value, base, f->value_counts);
    return HIST_OK;
}

void hist_fresh_free(hist_fresh *f) {
    free(f->value_counts);
    free(f->perm);
    free(f->expected);
    f->value_counts = NULL;
    f->perm = NULL;
    f->expected = NULL;
}

uint64_t hist_fresh_seed(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint64_t t = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    return hist_splitmix64(t ^ (uint64_t)getpid() << 40, 0);
}

static uint64_t draw(hist_fresh *f) {
    return hist_splitmix64(f->seed, f->draws++);
}

/* A uniform number below @p n (n >= 1): the bias of a 64-bit draw modulo n < 2^17 is nil here. */
static uint64_t draw_below(hist_fresh *f, uint64_t n) {
    return draw(f) % n;
}

void hist_fresh_next(hist_fresh *f) {
    const hist_problem *p = &f->problem;
    for (uint32_t v = 0; v < f->values; ++v)
        f->perm[v] = (uint16_t)v;
    for (uint32_t v = f->values - 1; v > 0; --v) { /* Fisher-Yates */
        const uint32_t k = (uint32_t)draw_below(f, (uint64_t)v + 1);
        const uint16_t t = f->perm[v];
        f->perm[v] = f->perm[k];
        f->perm[k] = t;
    }
    f->rotate_rows = p->rows > 0 ? draw_below(f, p->rows) : 0;
    /* the second call starts where the first did (with other contents): an answer kept by the
       input's address is wrong at once */
    if (f->calls != 1)
        f->slot = (unsigned)draw_below(f, HIST_FRESH_SLOTS);
    f->calls++;
    /* the exact result: each value's count goes to the bin of its new name */
    const hist_binning b = p->binning;
    const uint32_t bins = hist_bins(b);
    memset(f->expected, 0, (size_t)hist_counters(p) * sizeof *f->expected);
    for (uint32_t c = 0; c < p->channels; ++c) {
        const uint32_t *counts = f->value_counts + (size_t)c * f->values;
        uint32_t *out = f->expected + (size_t)c * bins;
        for (uint32_t v = 0; v < f->values; ++v) {
            const uint32_t u = f->perm[v];
            if (u >= b.lo && u <= b.hi)
                out[(u - b.lo) / b.width] += counts[v];
        }
    }
}

size_t hist_fresh_buffer_bytes(const hist_fresh *f) {
    return (size_t)hist_input_bytes(&f->problem) + (HIST_FRESH_SLOTS - 1) * HIST_FRESH_SLOT_BYTES;
}

size_t hist_fresh_offset(const hist_fresh *f) {
    return (size_t)f->slot * HIST_FRESH_SLOT_BYTES;
}

/** @brief One piece of hist_fresh_make(): samples [begin, end) of the call's input. */
typedef struct make_job {
    const hist_fresh *f; /**< the sequence */
    uint8_t *dst;        /**< the call's input */
} make_job;

static void make_range(void *ctx, uint64_t begin, uint64_t end) {
    const make_job *j = ctx;
    const hist_fresh *f = j->f;
    const uint64_t n = hist_samples(&f->problem);
    const uint64_t shift = f->rotate_rows * f->problem.channels;
    uint64_t from = begin + shift < n ? begin + shift : begin + shift - n;
    if (hist_sample_bits(&f->problem) == 8) {
        for (uint64_t i = begin; i < end; ++i, from = from + 1 < n ? from + 1 : 0)
            j->dst[i] = (uint8_t)f->perm[f->base[from]];
        return;
    }
    for (uint64_t i = begin; i < end; ++i, from = from + 1 < n ? from + 1 : 0) {
        const uint16_t v = f->perm[f->base[2 * from] | f->base[2 * from + 1] << 8];
        j->dst[2 * i] = (uint8_t)v; /* little-endian, as every 16-bit input */
        j->dst[2 * i + 1] = (uint8_t)(v >> 8);
    }
}

void hist_fresh_make(const hist_fresh *f, uint8_t *buffer) {
    make_job job = {f, buffer + hist_fresh_offset(f)};
    hist_parallel_ranges(hist_samples(&f->problem), UINT64_C(1) << 20, 1, 0, make_range, &job);
}

hist_status hist_fresh_check(const hist_fresh *f, const char *name, const uint32_t *got) {
    const hist_problem *p = &f->problem;
    const uint64_t counters = hist_counters(p);
    const uint32_t bins = hist_bins(p->binning);
    uint64_t first = counters, differ = 0;
    for (uint64_t k = 0; k < counters; ++k)
        if (got[k] != f->expected[k] && differ++ == 0)
            first = k;
    if (!differ)
        return HIST_OK;
    return hist_fail(HIST_ERR_MISMATCH,
                     "%s: call %d of the graded timing (counted from 1, warm-up calls included) is "
                     "not exact: channel %u, bin %u holds %u where %u is right (%llu counters "
                     "differ). Each call's input is new (its values renamed, its rows rotated, at "
                     "another address): an implementation must count every call's own input, never "
                     "keep an answer from an earlier call or depend on where its input lies",
                     name, f->calls, (unsigned)(first / bins), (unsigned)(first % bins), got[first],
                     f->expected[first], (unsigned long long)differ);
}

/** @brief One implementation on host pointers, timed on fresh inputs. */
typedef struct fresh_call {
    const hist_impl *impl; /**< the implementation */
    hist_fresh *f;         /**< the sequence */
    uint8_t *buffer;       /**< where each call's input is made */
    hist_args args;        /**< its arguments (samples: this call's input) */
    size_t hist_bytes;     /**< the output's size */
} fresh_call;

/* Before each call, untimed: the previous call's output checked, the next input made, the
   output poisoned. */
static hist_status next_input(void *ctx) {
    fresh_call *c = ctx;
    if (c->f->calls > 0) {
        const hist_status s = hist_fresh_check(c->f, c->impl->name, c->args.hist);
        if (s != HIST_OK)
            return s;
    }
    hist_fresh_next(c->f);
    hist_fresh_make(c->f, c->buffer);
    c->args.samples = c->buffer + hist_fresh_offset(c->f);
    memset(c->args.hist, 0xFF, c->hist_bytes);
    return HIST_OK;
}

static hist_status call_fresh(void *ctx) {
    const fresh_call *c = ctx;
    return c->impl->run(&c->args);
}

hist_status hist_time_host_fresh(const hist_impl *impl, hist_fresh *f, uint8_t *buffer,
                                 uint32_t *hist, int threads, int warmup, int reps,
                                 hist_stats *out) {
    const hist_problem *p = &f->problem;
    const size_t ws_bytes = hist_impl_workspace(impl, p, NULL);
    void *workspace = ws_bytes ? malloc(ws_bytes) : NULL;
    if (ws_bytes && !workspace)
        return hist_fail(HIST_ERR_NOMEM, "out of memory for %s's workspace", impl->name);
    fresh_call c = {impl,
                    f,
                    buffer,
                    {p, buffer, hist, workspace, NULL, threads, {0, 0}},
                    (size_t)hist_counters(p) * sizeof(uint32_t)};
    f->calls = 0;
    hist_status s = hist_time_calls(call_fresh, next_input, &c, warmup, reps, out, NULL);
    if (s == HIST_OK) /* the last call's output */
        s = hist_fresh_check(f, impl->name, hist);
    free(workspace);
    return s;
}

hist_status hist_time_host_input_fresh(const hist_impl *impl, const hist_device *dev, hist_fresh *f,
                                       uint8_t *buffer, const uint8_t *pinned, uint32_t *hist,
                                       int warmup, int reps, hist_stats *time,
                                       hist_stats *copy_floor) {
    const hist_problem *p = &f->problem;
    fresh_call c = {impl,
                    f,
                    buffer,
                    {p, buffer, hist, NULL, dev, 1, {0, 0}},
                    (size_t)hist_counters(p) * sizeof(uint32_t)};
    f->calls = 0;
    hist_status s = hist_gpu_time_alternately(dev, pinned, hist_input_bytes(p), next_input,
                                              call_fresh, &c, warmup, reps, copy_floor, time);
    if (s == HIST_OK)
        s = hist_fresh_check(f, impl->name, hist);
    return s;
}
