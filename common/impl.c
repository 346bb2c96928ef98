/**
 * @file impl.c
 * @brief One registered implementation, called the way the runner calls it (impl.h).
 */
#include "impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t hist_impl_workspace(const hist_impl *impl, const hist_problem *p, const hist_device *dev) {
    return impl->workspace_bytes ? impl->workspace_bytes(p, dev) : 0;
}

const char *hist_not_written(const hist_impl *impl) {
    static HIST_THREAD_LOCAL char message[2048]; /* a per-thread message, as hist_last_error()'s */
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
    if (hist_sample_bits(p) != 8 && !impl->samples16)
        return "8-bit samples only (day 08 counts 16-bit ones)";
    return impl->unsupported ? impl->unsupported(p, dev) : NULL;
}

/** @brief One implementation called on host pointers, for hist_time_calls(). */
typedef struct host_call {
    const hist_impl *impl; /**< the implementation */
    hist_args args;        /**< its arguments */
    size_t hist_bytes;     /**< the output's size */
    int progress;          /**< 1: show the repetitions on stderr */
    int done;              /**< calls so far */
    int total;             /**< calls in all */
} host_call;

/* Before each call: the output poisoned (HIST_POISON: an implementation must zero its own). */
static hist_status poison_output(void *ctx) {
    host_call *c = (host_call *)ctx;
    if (c->progress)
        fprintf(stderr, "\r  %-24s rep %d/%d ", c->impl->name, ++c->done, c->total);
    memset(c->args.hist, 0xFF, c->hist_bytes);
    return HIST_OK;
}

static hist_status call_impl(void *ctx) {
    const host_call *c = (const host_call *)ctx;
    return c->impl->run(&c->args);
}

/* Time calls of an implementation given host pointers on the host clock: a host one, or a
   host-input one (on the GPU @p dev, which it synchronises before returning). */
static hist_status time_on_host(const hist_impl *impl, const hist_device *dev,
                                const hist_problem *p, const uint8_t *samples, uint32_t *hist,
                                int threads, int warmup, int reps, hist_stats *out, int progress,
                                const hist_caps *caps) {
    const size_t ws_bytes = impl->where == HIST_HOST ? hist_impl_workspace(impl, p, NULL) : 0;
    void *workspace = ws_bytes ? malloc(ws_bytes) : NULL;
    if (ws_bytes && !workspace)
        return hist_fail(HIST_ERR_NOMEM, "out of memory for %s's workspace", impl->name);
    host_call c = {impl,
                   {p, samples, hist, workspace, dev, threads, hist_caps_or_none(caps)},
                   (size_t)hist_counters(p) * sizeof(uint32_t),
                   progress,
                   0,
                   warmup + (reps > 0 ? reps : 1)};
    hist_status s = hist_time_calls(call_impl, poison_output, &c, warmup, reps, out, NULL);
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    free(workspace);
    return s;
}

hist_status hist_time_host(const hist_impl *impl, const hist_problem *p, const uint8_t *samples,
                           uint32_t *hist, int threads, int warmup, int reps, hist_stats *out,
                           int progress) {
    return time_on_host(impl, NULL, p, samples, hist, threads, warmup, reps, out, progress, NULL);
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
                                 hist_stats *copy_floor, const hist_caps *caps) {
    /* poisoned once: an implementation that does not zero its output is wrong after any call */
    memset(hist, 0xFF, (size_t)hist_counters(p) * sizeof(uint32_t));
    host_input_call call = {impl, {p, input, hist, NULL, dev, 1, hist_caps_or_none(caps)}};
    return hist_gpu_time_alternately(dev, pinned, hist_input_bytes(p), NULL, call_host_input, &call,
                                     warmup, reps, copy_floor, time);
}

/* The input of a host-input implementation where it wants it: @p samples itself (pageable), or
   a pinned copy (*copy, to free with hist_host_pinned_free()). */
static hist_status host_input_for(const hist_impl *impl, const hist_problem *p,
                                  const uint8_t *samples, void **copy, const uint8_t **input) {
    *copy = NULL;
    *input = samples;
    if (impl->where != HIST_PINNED_INPUT)
        return HIST_OK;
    const uint64_t bytes = hist_input_bytes(p);
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
                          const uint8_t *samples, uint32_t *hist, int threads,
                          const hist_caps *caps) {
    if (impl->where == HIST_HOST)
        return time_on_host(impl, NULL, p, samples, hist, threads, 0, 0, NULL, 0, caps);
    if (!dev)
        return hist_fail(HIST_ERR_NO_DEVICE, "%s needs a CUDA device", impl->name);
    if (hist_takes_host_input(impl->where)) {
        void *copy;
        const uint8_t *input;
        hist_status s = host_input_for(impl, p, samples, &copy, &input);
        if (s == HIST_OK)
            s = time_on_host(impl, dev, p, input, hist, threads, 0, 0, NULL, 0, caps);
        hist_host_pinned_free(copy);
        return s;
    }
    return hist_gpu_run_offset(dev, impl, p, samples, 0, caps, hist);
}
