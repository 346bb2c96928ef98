/**
 * @file test_util.c
 * @brief Shared test helpers (see test_util.h).
 */
#define _GNU_SOURCE
#include "test_util.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_limits.h"
#include "reference.h"
#include "runner.h"

static int gpu_probed;
static hist_device gpu;
static char gpu_reason[256];

const hist_device *test_gpu(void) {
    if (!gpu_probed) {
        gpu_probed = 1;
        hist_emulation emulation; /* make's GPU_LIMITS, as the lesson programs get it */
        if (hist_emulation_from_env(&emulation) != HIST_OK ||
            hist_device_open(&emulation, &gpu) != HIST_OK)
            snprintf(gpu_reason, sizeof gpu_reason, "%s", hist_last_error());
    }
    return gpu_reason[0] ? NULL : &gpu;
}

const char *test_not_on_gpu(const hist_impl *impl, const hist_device *dev) {
    hist_dataset main_preset;
    if (!dev || !impl->unsupported || hist_preset("main", &main_preset) != HIST_OK)
        return NULL;
    const char *why = impl->unsupported(&main_preset.problem, dev);
    const size_t n = strlen(HIST_NOT_ON_GPU);
    return why && strncmp(why, HIST_NOT_ON_GPU, n) == 0 ? why + n : NULL;
}

int test_gpu_required(void) {
    const char *v = getenv("HIST_REQUIRE_GPU");
    return v && strcmp(v, "1") == 0;
}

int test_slow(void) {
    const char *v = getenv("HIST_SLOW");
    return v && strcmp(v, "1") == 0;
}

void test_main_preset_for_timing(hist_dataset *d) {
    assert_int_equal(hist_preset("main", d), HIST_OK);
    if (!test_slow() && !test_gpu())
        d->problem.rows /= 16;
}

const char *test_gpu_reason(void) {
    test_gpu();
    return gpu_reason;
}

hist_dataset test_data(uint64_t rows, uint32_t channels, hist_binning binning, hist_dist dist,
                       uint64_t seed) {
    hist_dataset d = {{rows, channels, binning, 8}, 0, 255, dist, seed};
    return d;
}

uint8_t *test_samples(const hist_dataset *d) {
    const uint64_t n = hist_input_bytes(&d->problem);
    uint8_t *samples = malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(samples);
    assert_int_equal(hist_generate(d, samples), HIST_OK);
    return samples;
}

const hist_impl *test_find_impl(const hist_impl *impls, size_t count, const char *name) {
    for (size_t i = 0; i < count; ++i)
        if (strcmp(impls[i].name, name) == 0)
            return &impls[i];
    fail_msg("no implementation called %s", name);
    return NULL;
}

void test_require_written(const hist_impl *impls, size_t count, const char *name) {
    const char *todo = hist_not_written(test_find_impl(impls, count, name));
    if (todo)
        fail_msg("%s: %s", name, todo);
}

/* test_check_registry()'s verdicts while it runs: a failure is recorded there, and the
   implementation is left out of the cases that follow, instead of failing the test at once. */
static test_verdict *verdicts;

/* A failure: recorded in verdicts[i] under test_check_registry(), else the test fails. */
static void failed(size_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void failed(size_t i, const char *fmt, ...) {
    char why[sizeof verdicts->why];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!verdicts)
        fail_msg("%s", why);
    verdicts[i].failed = 1;
    snprintf(verdicts[i].why, sizeof verdicts[i].why, "%s", why);
}

/* Whether @p impl refuses @p p by its constraints: 16-bit samples where it counts bytes (as
   hist_impl_unsupported() says), or its own unsupported(). */
static int refuses(const hist_impl *impl, const hist_problem *p, const hist_device *dev) {
    if (hist_sample_bits(p) != 8 && !impl->samples16)
        return 1;
    return impl->unsupported && impl->unsupported(p, dev) != NULL;
}

int test_exact_samples(const hist_impl *const *impls, size_t count, const hist_device *dev,
                       const hist_problem *p, const uint8_t *samples, int threads,
                       const hist_caps *caps, const char *what, int *ran) {
    const size_t counters = (size_t)hist_counters(p);
    uint32_t *expected = malloc(counters * sizeof(uint32_t));
    uint32_t *got = malloc(counters * sizeof(uint32_t));
    assert_non_null(expected);
    assert_non_null(got);
    hist_reference_parallel(p, samples, expected);
    int total = 0;
    for (size_t i = 0; i < count; ++i) {
        const hist_impl *impl = impls[i];
        if (verdicts && verdicts[i].failed)
            continue; /* judged already: its first failure is the one reported */
        const char *todo = hist_not_written(impl);
        if (todo) {
            failed(i, "%s: %s", impl->name, todo);
            continue;
        }
        if (refuses(impl, p, dev))
            continue;
        if (impl->where != HIST_HOST && !dev)
            continue;
        memset(got, 0xAB, counters * sizeof(uint32_t)); /* never compare against zeros */
        hist_status s = hist_run_once(impl, dev, p, samples, got, threads, caps);
        if (s != HIST_OK) {
            failed(i, "%s failed on rows=%llu channels=%u lo=%u hi=%u width=%u (%s): %s",
                   impl->name, (unsigned long long)p->rows, p->channels, p->binning.lo,
                   p->binning.hi, p->binning.width, what, hist_last_error());
            continue;
        }
        if (hist_verify(p, expected, got, 0, NULL)) {
            /* the first differences go into the verdict, so that they are printed under this
               implementation's own test, not while the shared cases run */
            char *dump = NULL;
            size_t dump_len = 0;
            FILE *f = open_memstream(&dump, &dump_len);
            if (f) {
                hist_verify(p, expected, got, 8, f);
                fclose(f);
            }
            char threads_text[32] = "";
            if (impl->where == HIST_HOST)
                snprintf(threads_text, sizeof threads_text, ", %d threads", threads);
            failed(i, "%s is not exact on rows=%llu channels=%u lo=%u hi=%u width=%u (%s%s):\n%s",
                   impl->name, (unsigned long long)p->rows, p->channels, p->binning.lo,
                   p->binning.hi, p->binning.width, what, threads_text, dump ? dump : "");
            free(dump);
            continue;
        }
        if (ran)
            ran[i]++;
        if (verdicts)
            verdicts[i].cases++;
        ++total;
    }
    free(expected);
    free(got);
    return total;
}

/* Whether a host implementation of @p impls runs dataset @p d. */
static int host_runs(const hist_impl *const *impls, size_t count, const hist_dataset *d) {
    for (size_t i = 0; i < count; ++i)
        if (impls[i]->where == HIST_HOST && !(verdicts && verdicts[i].failed) &&
            !hist_not_written(impls[i]) && !refuses(impls[i], &d->problem, NULL))
            return 1;
    return 0;
}

/* Whether dataset @p d may be made smaller: CPU implementations of @p impls run it, and without a
   GPU only (with one, its entries get every dataset at its size, taken or refused), and not
   test_slow(). */
static int quick_for(const hist_impl *const *impls, size_t count, const hist_device *dev,
                     const hist_dataset *d) {
    int device_entries = 0; /* with a GPU, a list with GPU entries keeps its sizes: what they
                               run or refuse is asked at the size the test names */
    for (size_t i = 0; i < count && dev; ++i)
        device_entries |= impls[i]->where != HIST_HOST;
    return !test_slow() && !device_entries && host_runs(impls, count, d);
}

/* Run every implementation whose constraints hold on dataset @p d, as it is, its arguments
   carrying @p caps (NULL: none); fail on any difference. */
static int exact_as_is(const hist_impl *const *impls, size_t count, const hist_device *dev,
                       const hist_dataset *d, int threads, const hist_caps *caps, int *ran) {
    int any = 0;
    for (size_t i = 0; i < count; ++i)
        any |= !(verdicts && verdicts[i].failed) &&
               (hist_not_written(impls[i]) || !refuses(impls[i], &d->problem, dev));
    if (!any)
        return 0;
    uint8_t *samples = test_samples(d);
    char what[64], dist[32];
    hist_dist_format(d->dist, dist, sizeof dist);
    snprintf(what, sizeof what, "dist=%s seed=%llu", dist, (unsigned long long)d->seed);
    int total =
        test_exact_samples(impls, count, dev, &d->problem, samples, threads, caps, what, ran);
    free(samples);
    return total;
}

/* exact_as_is(), a dataset only CPU implementations run cut to TEST_QUICK_SAMPLES samples unless
   test_slow() (its channels, distribution and binning kept). */
static int exact_all(const hist_impl *const *impls, size_t count, const hist_device *dev,
                     const hist_dataset *whole, int threads, const hist_caps *caps, int *ran) {
    hist_dataset d = *whole;
    if (hist_samples(&d.problem) > TEST_QUICK_SAMPLES && quick_for(impls, count, dev, &d))
        d.problem.rows = TEST_QUICK_SAMPLES / d.problem.channels + 1;
    return exact_as_is(impls, count, dev, &d, threads, caps, ran);
}

int test_exact(const hist_impl *impl, const hist_device *dev, const hist_dataset *d, int threads) {
    return exact_all(&impl, 1, dev, d, threads, NULL, NULL);
}

static const uint64_t default_rows[] = {0, 1, 7, 1000, 65537};
static const uint32_t default_channels[] = {1, 3, 4, 63, 64, 65, 512, 513};
const test_matrix TEST_MATRIX_DEFAULT = {default_rows, 5, default_channels, 8, 0, {0, 0}};

/* Whether the shape (rows, channels) is within the matrix's size limit. */
static int shape_in(const test_matrix *m, uint64_t rows, uint32_t channels) {
    return m->max_samples == 0 || rows * channels <= m->max_samples;
}

size_t test_matrix_shapes(const test_matrix *m) {
    size_t n = 0;
    for (size_t r = 0; r < m->n_rows; ++r)
        for (size_t c = 0; c < m->n_channels; ++c)
            n += shape_in(m, m->rows[r], m->channels[c]);
    return n;
}

void test_matrix_exact_all(const hist_impl *const *impls, size_t count, const hist_device *dev,
                           const test_matrix *m, int threads, int *ran) {
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 7}};
    static const hist_binning binnings[] = {{0, 255, 1}, {1, 100, 20}, {10, 200, 7}};
    uint64_t seed = 1;
    for (size_t i = 0; i < count; ++i)
        ran[i] = 0;
    for (size_t r = 0; r < m->n_rows; ++r)
        for (size_t c = 0; c < m->n_channels; ++c) {
            if (!shape_in(m, m->rows[r], m->channels[c]))
                continue;
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d)
                for (size_t b = 0; b < sizeof binnings / sizeof binnings[0]; ++b) {
                    hist_dataset data =
                        test_data(m->rows[r], m->channels[c], binnings[b], dists[d], seed++);
                    exact_all(impls, count, dev, &data, threads, &m->caps, ran);
                }
        }
}

int test_matrix_exact(const hist_impl *impl, const hist_device *dev, const test_matrix *m,
                      int threads) {
    int ran = 0;
    test_matrix_exact_all(&impl, 1, dev, m, threads, &ran);
    return ran;
}

static const hist_device *device_for(const hist_impl *impls, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (impls[i].where != HIST_HOST) {
            const hist_device *dev;
            TEST_REQUIRE_GPU(dev);
            return dev;
        }
    return NULL;
}

/* The registry as a list of pointers (freed by the caller). */
static const hist_impl **pointers_to(const hist_impl *impls, size_t count) {
    const hist_impl **list = calloc(count > 0 ? count : 1, sizeof *list);
    assert_non_null(list);
    for (size_t i = 0; i < count; ++i)
        list[i] = &impls[i];
    return list;
}

void test_registry_on_matrix(const hist_impl *impls, size_t count, const test_matrix *m, int *ran) {
    const hist_device *dev = device_for(impls, count);
    const hist_impl **list = pointers_to(impls, count);
    test_matrix_exact_all(list, count, dev, m, 2, ran);
    free(list);
}

void test_registry_exact(const hist_impl *impls, size_t count, const hist_device *dev,
                         const hist_dataset *d) {
    const hist_impl **list = pointers_to(impls, count);
    int here = 0; /* those that run on this GPU at all and take this problem */
    for (size_t i = 0; i < count; ++i)
        here += !test_not_on_gpu(&impls[i], dev) && !refuses(&impls[i], &d->problem, dev);
    assert_int_equal(exact_all(list, count, dev, d, 2, NULL, NULL), here);
    free(list);
}

/* Both presets: main under four distributions, small-binned uniform. */
static void presets_exact_all(const hist_impl *const *list, size_t count, const hist_device *dev,
                              int *ran) {
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_RUNS, 1000}};
    if (ran)
        for (size_t i = 0; i < count; ++i)
            ran[i] = 0;
    hist_dataset d;
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k) {
        assert_int_equal(hist_preset("main", &d), HIST_OK);
        d.dist = dists[k];
        exact_all(list, count, dev, &d, 2, NULL, ran);
    }
    assert_int_equal(hist_preset("small-binned", &d), HIST_OK);
    exact_all(list, count, dev, &d, 2, NULL, ran);
}

/* Counts no small counter holds, on constant data (every sample in one bin):
   - 1 channel of 2^28 rows: 2^28 in one counter, where a float stops at 2^24; and more than 65,535
     in one block's counter for any plan of at most 4,096 blocks a channel (days 02-04, day 07's
     pipelines; the wrong kernels' 1,056 blocks);
   - 16 channels of 2^24 + 7 rows: past 2^24 in 16 counters, for the kernels that need channels
     divisible by 4 or 16 (day 05, day 06's steps: at most 256 blocks a channel group on every
     plan, so a block counts more than 65,536 rows of each channel).
   Day 06's own test adds the final kernel's wide plans (512 channels, 3 million rows).
   Where only CPU code runs them and not test_slow(), one counter past 2^24 is what they show
   there (a float sum stops at 2^24; a thread's 16-bit counter passes 65,535): 1 channel of 2^24 + 7
   rows instead, 16 MiB. */
static void large_counts_exact_all(const hist_impl *const *list, size_t count,
                                   const hist_device *dev, int *ran) {
    static const struct {
        uint64_t rows;
        uint32_t channels;
    } shapes[] = {{UINT64_C(1) << 28, 1}, {(UINT64_C(1) << 24) + 7, 16}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        hist_dataset d = test_data(shapes[k].rows, shapes[k].channels, (hist_binning){0, 255, 1},
                                   (hist_dist){HIST_DIST_CONSTANT, 0}, 24 + k);
        if (quick_for(list, count, dev, &d)) {
            if (k > 0)
                continue; /* the 16 channels' case is the GPU's channel groups' */
            d.problem.rows = (UINT64_C(1) << 24) + 7;
        }
        exact_as_is(list, count, dev, &d, 2, NULL, ran);
    }
}

/* 16-bit samples (day 08), for the implementations that take them (the others refuse every
   case, and no dataset is made): a matrix of shapes, binnings of 65,536, 13,301 and 256 bins under
   the four distributions; the u16 preset (one channel of 2^28 samples) under the same four, where
   constant data passes 65,535 in every block's counter many times over; and u16x8 (8 channels). */
static void wide_exact_all(const hist_impl *const *list, size_t count, const hist_device *dev,
                           int *ran) {
    static const uint64_t rows[] = {0, 1, 7, 1000, 65537};
    static const uint32_t channels[] = {1, 3, 8};
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 7}};
    static const hist_binning binnings[] = {{0, 65535, 1}, {100, 40000, 3}, {1000, 1255, 1}};
    uint64_t seed = 1600;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
        for (size_t c = 0; c < sizeof channels / sizeof channels[0]; ++c)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d)
                for (size_t b = 0; b < sizeof binnings / sizeof binnings[0]; ++b) {
                    hist_dataset data =
                        test_data(rows[r], channels[c], binnings[b], dists[d], seed++);
                    data.problem.bits = 16;
                    data.vmax = 65535;
                    exact_all(list, count, dev, &data, 2, NULL, ran);
                }
    hist_dataset d;
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k) {
        assert_int_equal(hist_preset("u16", &d), HIST_OK);
        d.dist = dists[k];
        if (d.dist.kind == HIST_DIST_RUNS)
            d.dist.param = 1000;
        exact_all(list, count, dev, &d, 2, NULL, ran);
    }
    assert_int_equal(hist_preset("u16x8", &d), HIST_OK);
    exact_all(list, count, dev, &d, 2, NULL, ran);
}

void test_registry_on_presets(const hist_impl *impls, size_t count, int *ran) {
    const hist_device *dev = device_for(impls, count);
    const hist_impl **list = pointers_to(impls, count);
    presets_exact_all(list, count, dev, ran);
    free(list);
}

void test_check_registry(const hist_impl *const *impls, size_t count, const hist_device *dev,
                         const test_matrix *m, test_verdict *v) {
    memset(v, 0, count * sizeof *v);
    verdicts = v;
    int *ran = test_counts(count);
    test_matrix_exact_all(impls, count, dev, m, 2, ran);
    presets_exact_all(impls, count, dev, ran);
    large_counts_exact_all(impls, count, dev, ran);
    wide_exact_all(impls, count, dev, ran);
    free(ran);
    verdicts = NULL;
}

/* Read what is left on two pipes into two buffers. */
static void drain(int fds[2], char *bufs[2], size_t lens[2]) {
    size_t used[2] = {0, 0};
    int open_fds = 2;
    while (open_fds > 0) {
        struct pollfd pfd[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
        if (poll(pfd, 2, -1) < 0)
            break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i] < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
                continue;
            char tmp[4096];
            ssize_t n = read(fds[i], tmp, sizeof tmp);
            if (n <= 0) {
                close(fds[i]);
                fds[i] = -1;
                --open_fds;
                continue;
            }
            if (bufs[i] && lens[i] > 0) {
                size_t room = lens[i] - 1 - used[i];
                size_t take = (size_t)n < room ? (size_t)n : room;
                memcpy(bufs[i] + used[i], tmp, take);
                used[i] += take;
            }
        }
    }
    for (int i = 0; i < 2; ++i)
        if (bufs[i] && lens[i] > 0)
            bufs[i][used[i]] = '\0';
}

int test_run_program(char *const argv[], char *out, size_t outlen, char *err, size_t errlen) {
    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null_in = open("/dev/null", O_RDONLY);
        dup2(null_in, STDIN_FILENO);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(err_pipe[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    int fds[2] = {out_pipe[0], err_pipe[0]};
    char *bufs[2] = {out, err};
    size_t lens[2] = {outlen, errlen};
    drain(fds, bufs, lens);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char test_tmp_dir[64];

int test_tmp_dir_setup(void **state) {
    (void)state;
    snprintf(test_tmp_dir, sizeof test_tmp_dir, "/tmp/hist_test_XXXXXX");
    return mkdtemp(test_tmp_dir) ? 0 : -1;
}

int test_tmp_dir_teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_tmp_dir);
    return system(cmd);
}

int *test_counts(size_t n) {
    int *counts = calloc(n > 0 ? n : 1, sizeof *counts);
    assert_non_null(counts);
    return counts;
}

int test_count_lines(const char *s) {
    int n = 0;
    for (; *s; ++s)
        n += *s == '\n';
    return n;
}

int test_exact_at(const hist_device *dev, const hist_impl *impl, const hist_problem *p,
                  const uint8_t *samples, size_t offset, const hist_caps *caps, const char *what) {
    if (hist_impl_unsupported(impl, p, dev))
        return 0;
    const size_t counters = (size_t)hist_counters(p);
    uint32_t *expected = malloc(counters * sizeof(uint32_t));
    uint32_t *got = malloc(counters * sizeof(uint32_t));
    assert_non_null(expected);
    assert_non_null(got);
    hist_reference(p, samples + offset, expected);
    memset(got, 0xAB, counters * sizeof(uint32_t)); /* never compare against zeros */
    if (hist_gpu_run_offset(dev, impl, p, samples + offset, offset, caps, got) != HIST_OK)
        fail_msg("%s on %s: %s", impl->name, what, hist_last_error());
    const uint64_t wrong = hist_verify(p, expected, got, 5, stderr);
    free(expected);
    free(got);
    if (wrong)
        fail_msg("%s: %llu counters differ on %s (rows=%llu channels=%u bins=%u)", impl->name,
                 (unsigned long long)wrong, what, (unsigned long long)p->rows, p->channels,
                 hist_bins(p->binning));
    return 1;
}
