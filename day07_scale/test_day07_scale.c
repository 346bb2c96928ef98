/**
 * @file test_day07_scale.c
 * @brief day07_scale: every pipeline exactly against the reference with chunks so small that
 *        row counts never divide into them (1 byte to 64 KiB: one row a chunk, rows that straddle
 *        no chunk, a short last chunk), on 0, 1 and odd row counts and channel counts 1 to 4,096
 *        under three binnings; the multi-GPU step on every GPU count 1 .. visible (shares that
 *        differ by a row); `make gpus` exact on every GPU count, weak and strong scaling, on
 *        rows that no GPU count divides; and, on any machine, the split of the rows over 1 to 16
 *        GPUs (the shares' reference histograms add up to the whole's) and the refusal of data
 *        larger than host memory before anything is allocated (the runner and `bigger`).
 *        GPU tests skip without a GPU (fail with REQUIRE_GPU=1). Then the ranks program under
 *        `mpirun` (Open MPI, more ranks than cores allowed): 1 to 4 ranks exact on generated data
 *        (the same histogram for every N), one file and shards, rows that do not divide, fewer
 *        rows than ranks and none; a failing rank ends the job (status, one line, no output)
 *        within 10 s; on a GPU, one rank through NCCL and two sharing the GPU through MPI.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_limits.h"
#include "impl.h"
#include "npy.h"
#include "reference.h"
#include "resident.h"
#include "test_util.h"
#include "timing.h"

HIST_DECLARE_REGISTRY(day07);

/** @brief pipeline.cu's step 4 on GPUs 0 .. n-1. */
extern hist_status day07_gpus_host(const hist_args *a, int n);

/** @brief The folder of the lesson's programs (bigger, gpus), next to its own binary. */
static void program_path(char *out, size_t len, const char *name) {
    snprintf(out, len, "%s", LESSON_BIN);
    char *slash = strrchr(out, '/');
    snprintf(slash + 1, len - (size_t)(slash + 1 - out), "%s", name);
}

static const uint64_t rows[] = {0, 1, 2, 7, 1000, 65537};
static const uint32_t channels[] = {1, 3, 63, 65, 513, 4096};

/** @brief The pipelines that cut the rows into chunks (the others copy the input whole, so the
 *  chunk size means nothing to them: the generic tests cover them). */
static const char *const chunked[] = {"pipe_streams", "pipe_copy_stream", "gpus_nccl"};

/* Every chunked pipeline on the shapes above (the first @p n_rows row counts) of at most
   @p max_chunks chunks (a launch each), every binning and distribution of the matrix, with a chunk
   size of @p chunk bytes (the matrix's caps: every call's arguments carry it). */
static void pipelines_exact_with_chunks(size_t chunk, size_t n_rows, uint64_t max_chunks) {
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const size_t n = sizeof chunked / sizeof chunked[0];
    const hist_impl *list[sizeof chunked / sizeof chunked[0]];
    for (size_t i = 0; i < n; ++i)
        list[i] = test_find_impl(day07_impls, day07_impl_count, chunked[i]);
    const test_matrix m = {.rows = rows,
                           .n_rows = n_rows,
                           .channels = channels,
                           .n_channels = 6,
                           .max_samples = chunk * max_chunks,
                           .caps = {.chunk_bytes = chunk}};
    int *ran = test_counts(n);
    test_matrix_exact_all(list, n, dev, &m, 2, ran);
    for (size_t i = 0; i < n; ++i)
        print_message("%-16s %d cases exact with %zu-byte chunks\n", chunked[i], ran[i], chunk);
    assert_true(ran[0] > 0); /* pipe_streams accepts every case */
    free(ran);
}

static void test_one_row_per_chunk(void **state) {
    (void)state;
    pipelines_exact_with_chunks(1, 5, 0); /* up to 1,000 rows: a launch per row */
}

static void test_chunks_rows_never_divide(void **state) {
    (void)state;
    /* rows per chunk 4099, 1366, 65, 63, 7, 1; up to 2,048 chunks (65,537 rows of 65 channels,
       1,000 of 4,096) */
    pipelines_exact_with_chunks(4099, 6, 2048);
}

static void test_chunks_of_64_kib(void **state) {
    (void)state;
    pipelines_exact_with_chunks(65536, 6, 1024); /* 65,537 rows of 513 channels, not 4,096 */
}

/* Step 4 on each GPU count: shares of rows * i / n rows differ by one where n does not divide. */
static void test_every_gpu_count(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    const hist_impl *impl = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    hist_dataset d =
        test_data(100003, 65, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_CONTENTION, 90}, 7);
    const char *why = hist_impl_unsupported(impl, &d.problem, dev);
    if (why) {
        if (test_gpu_required())
            fail_msg("REQUIRE_GPU=1 but gpus_nccl cannot run: %s", why);
        print_message("skipped: %s\n", why);
        skip();
    }
    const int visible = hist_gpu_count();
    uint8_t *samples = test_samples(&d);
    const size_t bytes = (size_t)hist_samples(&d.problem);
    const size_t counters = (size_t)hist_counters(&d.problem);
    void *pinned;
    assert_int_equal(hist_host_pinned_alloc(&pinned, bytes), HIST_OK);
    memcpy(pinned, samples, bytes);
    uint32_t *expected = malloc(counters * sizeof *expected), *got = malloc(counters * sizeof *got);
    assert_non_null(expected);
    assert_non_null(got);
    hist_reference_parallel(&d.problem, samples, expected);
    for (int n = 1; n <= visible && n <= 16; ++n) {
        memset(got, 0xAB, counters * sizeof *got);
        const hist_args a = {.problem = &d.problem,
                             .samples = pinned,
                             .hist = got,
                             .device = dev,
                             .threads = 1,
                             .caps = {.chunk_bytes = 100000}}; /* several chunks per GPU */
        const hist_status s = day07_gpus_host(&a, n);
        if (s != HIST_OK)
            fail_msg("gpus_nccl on %d GPUs: %s", n, hist_last_error());
        if (hist_verify(&d.problem, expected, got, 5, stderr) != 0)
            fail_msg("gpus_nccl on %d GPUs is not exact", n);
        print_message("gpus_nccl exact on %d of %d GPUs\n", n, visible);
    }
    hist_host_pinned_free(pinned);
    free(samples);
    free(expected);
    free(got);
}

/* make gpus' strong scaling and step 5 cut the rows with day07_split_rows(): for row counts that
   no GPU count divides, fewer rows than GPUs and none, on 1 to 16 GPUs, the shares follow one
   another from row 0 to the last, differ by at most a row, keep the channels and the binning,
   and their reference histograms add up exactly to the whole's. No GPU needed: the GPUs count
   the same shares (make gpus checks its sums against the one reference, test_gpus_program). */
static void test_split_rows_exact(void **state) {
    (void)state;
    static const uint64_t counts[] = {0, 1, 2, 7, 1000, 65537};
    const hist_binning binning = {3, 250, 7}; /* bins that are not bytes: the shares keep it */
    hist_dataset d = test_data(65537, 3, binning, (hist_dist){HIST_DIST_UNIFORM, 0}, 11);
    uint8_t *samples = test_samples(&d);
    const size_t counters = (size_t)hist_counters(&d.problem);
    uint32_t *whole = malloc(counters * sizeof *whole), *part = malloc(counters * sizeof *part);
    uint32_t *sum = malloc(counters * sizeof *sum);
    assert_non_null(whole);
    assert_non_null(part);
    assert_non_null(sum);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        hist_problem p = d.problem;
        p.rows = counts[i];
        hist_reference(&p, samples, whole);
        for (int n = 1; n <= DAY07_GPUS_MAX; ++n) {
            hist_problem shares[DAY07_GPUS_MAX];
            uint64_t first[DAY07_GPUS_MAX];
            day07_split_rows(&p, n, shares, first);
            memset(sum, 0, counters * sizeof *sum);
            uint64_t next = 0, least = UINT64_MAX, most = 0;
            for (int g = 0; g < n; ++g) {
                assert_int_equal(first[g], next);
                assert_int_equal(shares[g].channels, p.channels);
                assert_memory_equal(&shares[g].binning, &p.binning, sizeof p.binning);
                next += shares[g].rows;
                least = shares[g].rows < least ? shares[g].rows : least;
                most = shares[g].rows > most ? shares[g].rows : most;
                hist_reference(&shares[g], samples + first[g] * p.channels, part);
                for (size_t k = 0; k < counters; ++k)
                    sum[k] += part[k];
            }
            assert_int_equal(next, p.rows);
            assert_true(most - least <= 1);
            if (hist_verify(&p, whole, sum, 3, stderr) != 0)
                fail_msg("%llu rows on %d GPUs: the shares' histograms do not add up",
                         (unsigned long long)p.rows, n);
        }
    }
    free(samples);
    free(whole);
    free(part);
    free(sum);
}

/* make gpus: every GPU count, data on the GPUs and on the host, exact (it checks itself). */
static void test_gpus_program(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    (void)dev;
    hist_problem p = {1, 1, {0, 255, 1}, 8};
    const hist_impl *gpus = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    const char *why = gpus->unsupported(&p, dev);
    if (why) {
        if (test_gpu_required())
            fail_msg("REQUIRE_GPU=1 but gpus_nccl cannot run: %s", why);
        print_message("skipped: %s\n", why);
        skip();
    }
    char path[1024], out[16384], err[2048];
    program_path(path, sizeof path, "gpus");
    /* 32 MiB per GPU: the program's logic, quickly (make gpus measures 512 MiB); 65,537 rows,
       which no GPU count from 2 on divides: the strong scaling's shares differ by a row */
    char *argv[] = {path, "--rows", "65537", "--reps", "2", NULL};
    const int rc = test_run_program(argv, out, sizeof out, err, sizeof err);
    print_message("%s", out);
    if (rc != 0)
        fail_msg("gpus exited with %d: %s", rc, err);
    assert_null(strstr(out, "MISMATCH"));
    assert_non_null(strstr(out, "split over the GPUs (peer add)"));
    assert_non_null(strstr(out, "split over the GPUs (ncclAllReduce)"));
}

/* More data than this machine's memory: refused with a clear message before any allocation,
   by the runner and by `make bigger`. Runs everywhere (no GPU needed). */
static void test_larger_than_host_memory_refused(void **state) {
    (void)state;
    char out[4096], err[2048];
    char *runner[] = {LESSON_BIN, "--rows", "4294967295", "--channels", "4096", NULL};
    assert_int_equal(test_run_program(runner, out, sizeof out, err, sizeof err), 3);
    assert_non_null(strstr(err, "of host memory"));
    assert_non_null(strstr(err, "nothing was allocated"));
    char path[1024];
    program_path(path, sizeof path, "bigger");
    char *bigger[] = {path, "--gib", "4000", NULL};
    assert_int_equal(test_run_program(bigger, out, sizeof out, err, sizeof err), 3);
    assert_non_null(strstr(err, "GiB of host memory"));
    char *bad[] = {path, "--gib", "0", NULL};
    assert_int_equal(test_run_program(bad, out, sizeof out, err, sizeof err), 2);
}

/* Without NCCL at build time, step 4 says so, with the command that installs it. */
static void test_missing_nccl_is_explained(void **state) {
    (void)state;
    hist_problem p = {1, 1, {0, 255, 1}, 8};
    const hist_impl *gpus = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    const char *why = gpus->unsupported(&p, NULL);
    if (why) {
        assert_non_null(strstr(why, HIST_NOT_BUILT));
        assert_non_null(strstr(why, "pip install nvidia-nccl-cu13"));
    }
    /* the steps that hold the whole input refuse what is larger than half the GPU; step 3 not */
    hist_device small; /* an H100 of the limits table with 1 GiB of memory */
    hist_device_of_limits(hist_gpu_limits_find("h100"), &small);
    small.global_bytes = (size_t)1 << 30;
    hist_problem big = {(uint64_t)1 << 20, 1024, {0, 255, 1}, 8}; /* 1 GiB */
    const char *whole[] = {"pipe_pageable", "pipe_pinned"};
    const char *chunked[] = {"pipe_streams", "pipe_copy_stream"};
    for (int i = 0; i < 2; ++i) {
        assert_non_null(
            test_find_impl(day07_impls, day07_impl_count, whole[i])->unsupported(&big, &small));
        assert_null(
            test_find_impl(day07_impls, day07_impl_count, chunked[i])->unsupported(&big, &small));
    }
}

/* ---- the ranks program (ranks.cu), under mpirun ---- */

/** @brief Whether ranks was built (Open MPI found); skips the test with the reason if not. */
#define REQUIRE_RANKS(path)                                                                        \
    do {                                                                                           \
        program_path(path, sizeof path, "ranks");                                                  \
        if (access(path, X_OK) != 0) {                                                             \
            print_message("skipped: ranks not built: Open MPI was not found (apt-get install "     \
                          "openmpi-bin libopenmpi-dev; make nccl-info DAY=07 says what was)\n");   \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/** @brief `mpirun -q --oversubscribe -np N ranks ARGS...` (ARGS NULL-terminated, at most 24):
 *  its exit status; its output in @p out and @p err. */
static int run_ranks(int np, char *const *args, char *out, size_t outlen, char *err,
                     size_t errlen) {
    char ranks[1024], n[16];
    REQUIRE_RANKS(ranks);
    snprintf(n, sizeof n, "%d", np);
    /* under SANITIZE=1, Open MPI's own never-freed allocations are not the course's leaks: its
       libraries are named in tests/sanitize/openmpi.supp (full stacks, so that they match) */
    char supp[1200];
    snprintf(supp, sizeof supp, "%s", ranks);
    char *build = strstr(supp, "/build/");
    if (build) {
        snprintf(build, sizeof supp - (size_t)(build - supp),
                 "/tests/sanitize/openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0");
        char lsan[1300];
        snprintf(lsan, sizeof lsan, "suppressions=%s", supp);
        setenv("LSAN_OPTIONS", lsan, 1);
    }
    char *argv[40] = {"/usr/bin/env", "mpirun", "-q", "--oversubscribe", "-np", n};
    int k = 6;
    if (geteuid() == 0)
        argv[k++] = "--allow-run-as-root";
    argv[k++] = ranks;
    for (int i = 0; args[i] && k < 39; ++i)
        argv[k++] = args[i];
    argv[k] = NULL;
    return test_run_program(argv, out, outlen, err, errlen);
}

/** @brief Run ranks on @p np ranks with @p args plus `--output` and `--reps 2`, and check it
 *  exits 0 with the histogram @p expected_npy holds (a file of the reference's counts) and, if
 *  @p reduce is not NULL, that its report names that way of summing. */
static void ranks_exact_by(int np, char *const *args, const char *expected_npy,
                           const char *reduce) {
    char *all[32];
    int k = 0;
    for (; args[k]; ++k)
        all[k] = args[k];
    char out_path[128], out[8192], err[4096];
    snprintf(out_path, sizeof out_path, "%s/ranks-out.npy", test_tmp_dir);
    unlink(out_path);
    all[k++] = "--output";
    all[k++] = out_path;
    all[k++] = "--reps";
    all[k++] = "2";
    all[k] = NULL;
    const int rc = run_ranks(np, all, out, sizeof out, err, sizeof err);
    if (rc != 0)
        fail_msg("%d ranks (%s ...) exited with %d: %s", np, args[0], rc, err);
    assert_non_null(strstr(out, "check: exact"));
    if (reduce) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        print_message("%d ranks%s%s: %.*s", np, visible ? ", CUDA_VISIBLE_DEVICES=" : "",
                      visible ? visible : "", (int)strcspn(out, "\n") + 1, out);
        if (!strstr(out, reduce))
            fail_msg("%d ranks: the reduce is not %s: %s", np, reduce, out);
    }
    char cmp[512];
    snprintf(cmp, sizeof cmp, "cmp -s %s %s", out_path, expected_npy);
    if (system(cmp) != 0)
        fail_msg("%d ranks (%s ...): the output differs from the reference", np, args[0]);
}

/** @brief ranks_exact_by() on the CPU (`--cpu`), whatever way the ranks sum: the tests of who
 *  reads which rows, quick on any machine (test_ranks_on_the_gpu() runs the GPU's paths). */
static void ranks_exact(int np, char *const *args, const char *expected_npy) {
    char *all[32];
    int k = 0;
    for (; args[k] && k < 30; ++k)
        all[k] = args[k];
    all[k++] = "--cpu";
    all[k] = NULL;
    ranks_exact_by(np, all, expected_npy, NULL);
}

/** @brief The reference's counts of @p d's whole dataset, written to @p path. */
static void reference_npy(const hist_dataset *d, const char *path) {
    uint8_t *x = test_samples(d);
    const size_t counters = (size_t)hist_counters(&d->problem);
    uint32_t *h = malloc(counters * sizeof *h + 1);
    assert_non_null(h);
    hist_reference(&d->problem, x, h);
    assert_int_equal(
        hist_npy_write_u32(path, h, d->problem.channels, hist_bins(d->problem.binning)), HIST_OK);
    free(h);
    free(x);
}

/* Generated data: each rank makes only its rows, and 1, 2, 3 and 4 ranks give the reference's
   histogram (the same file): rows that do not divide, fewer rows than ranks, no rows (3 ranks,
   which show all three, unless SLOW=1). */
static void test_ranks_generated_any_n(void **state) {
    (void)state;
    char ranks[1024], expected[128];
    REQUIRE_RANKS(ranks);
    snprintf(expected, sizeof expected, "%s/expected.npy", test_tmp_dir);
    static const struct {
        const char *rows, *channels;
    } shapes[] = {{"1001", "7"}, {"2", "5"}, {"0", "3"}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        hist_dataset d =
            test_data(strtoull(shapes[i].rows, NULL, 10), (uint32_t)atoi(shapes[i].channels),
                      (hist_binning){3, 200, 7}, (hist_dist){HIST_DIST_CONTENTION, 50}, 77);
        reference_npy(&d, expected);
        char *args[] = {"--rows",     (char *)shapes[i].rows,
                        "--channels", (char *)shapes[i].channels,
                        "--lo",       "3",
                        "--hi",       "200",
                        "--width",    "7",
                        "--dist",     "contention:50",
                        "--seed",     "77",
                        NULL};
        for (int np = test_slow() ? 1 : 3; np <= (test_slow() ? 4 : 3); ++np)
            ranks_exact(np, args, expected);
        if (i == 1 && test_gpu()) /* 2 rows on 4 ranks on the GPU: two ranks count nothing */
            ranks_exact_by(4, args, expected, NULL);
    }
}

/* One .npy file: each rank reads only its row range (999 rows: 2 and 4 ranks do not divide them;
   1 to 4 ranks with SLOW=1, else 2). */
static void test_ranks_one_file(void **state) {
    (void)state;
    char ranks[1024], expected[128], input[128];
    REQUIRE_RANKS(ranks);
    snprintf(expected, sizeof expected, "%s/expected.npy", test_tmp_dir);
    snprintf(input, sizeof input, "%s/input.npy", test_tmp_dir);
    hist_dataset d =
        test_data(999, 13, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_RUNS, 9}, 5);
    uint8_t *x = test_samples(&d);
    assert_int_equal(hist_npy_write_u8(input, x, 999, 13), HIST_OK);
    free(x);
    reference_npy(&d, expected);
    char *args[] = {"--input", input, NULL};
    for (int np = test_slow() ? 1 : 2; np <= (test_slow() ? 4 : 2); ++np)
        ranks_exact(np, args, expected);
}

/* Shards of different sizes (one empty), as a pattern and as a list: 4 ranks (4 > 3 shards: a rank
   with none), and with SLOW=1 1 and 2 ranks too. */
static void test_ranks_shards(void **state) {
    (void)state;
    char ranks[1024], expected[128], pattern[128], list[512], names[3][128];
    REQUIRE_RANKS(ranks);
    snprintf(expected, sizeof expected, "%s/expected.npy", test_tmp_dir);
    hist_dataset d = test_data(700, 33, (hist_binning){0, 255, 1}, (hist_dist){0, 0}, 3);
    uint8_t *x = test_samples(&d);
    const uint64_t cut[4] = {0, 401, 401, 700}; /* 401 rows, none, 299 */
    for (int i = 0; i < 3; ++i) {
        snprintf(names[i], sizeof names[i], "%s/part-%d.npy", test_tmp_dir, i);
        assert_int_equal(hist_npy_write_u8(names[i], x + cut[i] * 33, cut[i + 1] - cut[i], 33),
                         HIST_OK);
    }
    free(x);
    reference_npy(&d, expected);
    snprintf(pattern, sizeof pattern, "%s/part-*.npy", test_tmp_dir);
    snprintf(list, sizeof list, "%s,%s,%s", names[2], names[0], names[1]);
    char *by_pattern[] = {"--shards", pattern, NULL}, *by_list[] = {"--shards", list, NULL};
    static const int nps[] = {4, 1, 2}; /* 4 first: a rank with no shard */
    for (int i = 0; i < (test_slow() ? 3 : 1); ++i) {
        ranks_exact(nps[i], by_pattern, expected);
        ranks_exact(nps[i], by_list, expected);
    }
}

/** @brief Run ranks expecting exit status @p want within 10 s, one line from the program (the
 *  rank named), and no --output file. */
static void ranks_fail(int np, char *const *args, int want, const char *says) {
    char out_path[128], out[8192], err[4096];
    snprintf(out_path, sizeof out_path, "%s/failed.npy", test_tmp_dir);
    char *all[32];
    int k = 0;
    for (; args[k]; ++k)
        all[k] = args[k];
    all[k++] = "--output";
    all[k++] = out_path;
    all[k] = NULL;
    const double t0 = hist_now_us();
    const int rc = run_ranks(np, all, out, sizeof out, err, sizeof err);
    const double seconds = (hist_now_us() - t0) / 1e6;
    print_message("%d ranks, exit %d in %.1f s: %s", np, rc, seconds, err);
    assert_int_equal(rc, want);
    assert_true(seconds < 10);
    assert_int_equal(test_count_lines(err), 1);
    assert_non_null(strstr(err, "ranks: rank "));
    assert_non_null(strstr(err, says));
    assert_int_equal(access(out_path, F_OK), -1);
}

/* A failing rank ends the whole job: an unreadable shard, and with SLOW=1 a shard of other
   channels, options that differ between ranks (an MPMD launch), a path that cannot be had. */
static void test_ranks_failures(void **state) {
    (void)state;
    char ranks[1024], good[128], other[128], list[512];
    REQUIRE_RANKS(ranks);
    uint8_t x[40] = {0};
    snprintf(good, sizeof good, "%s/good.npy", test_tmp_dir);
    snprintf(other, sizeof other, "%s/other.npy", test_tmp_dir);
    assert_int_equal(hist_npy_write_u8(good, x, 10, 4), HIST_OK);
    assert_int_equal(hist_npy_write_u8(other, x, 8, 5), HIST_OK);
    snprintf(list, sizeof list, "%s,%s/absent.npy,%s", good, test_tmp_dir, good);
    char *unreadable[] = {"--shards", list, NULL};
    ranks_fail(3, unreadable, 3, "rank 1 of 3: cannot open");
    TEST_SLOW_ONLY("three more failing jobs, about 7 s");
    snprintf(list, sizeof list, "%s,%s", good, other);
    char *channels[] = {"--shards", list, NULL};
    ranks_fail(2, channels, 3, "has 4 channels, another rank's shards 5");
    char *nccl[] = {"--rows", "10", "--path", "nccl", "--cpu", NULL};
    ranks_fail(2, nccl, 2, "--path nccl: no rank has a GPU");

    /* an MPMD launch: rank 1 is given other options */
    char out[4096], err[4096], *mpmd[] = {"--rows", "10", "--output", good, ":", "-np", "1", ranks,
                                          "--rows", "11", "--output", good, NULL};
    assert_int_equal(remove(good), 0);
    assert_int_equal(run_ranks(1, mpmd, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "rank 1 of 2: its options differ from rank 0's"));
    assert_int_equal(access(good, F_OK), -1);
}

/* On a GPU, whatever the machine's GPU count G (1, 2, 4, 8): every path on purpose. MPI with two
   ranks (`--path mpi`); the peer path and NCCL's with one rank per GPU for 1 .. G ranks (the
   peer path is auto's choice there); G + 1 ranks share a GPU and auto takes MPI; and two ranks
   under CUDA_VISIBLE_DEVICES=0 (one GPU seen on a bigger machine) take MPI too. All exact. */
static void test_ranks_on_the_gpu(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    char ranks[1024], expected[128], err[4096];
    REQUIRE_RANKS(ranks);
    snprintf(expected, sizeof expected, "%s/expected.npy", test_tmp_dir);
    hist_dataset d = test_data(100003, 129, (hist_binning){0, 255, 1}, (hist_dist){0, 0}, 11);
    reference_npy(&d, expected);
    char *args[] = {"--rows", "100003", "--channels", "129", "--seed", "11", NULL, NULL, NULL};
    const int gpus = hist_gpu_count() < 8 ? hist_gpu_count() : 8;
    args[6] = "--path";
    args[7] = "mpi";
    ranks_exact_by(2, args, expected, "MPI_Reduce");
    const hist_impl *gpus_nccl = test_find_impl(day07_impls, day07_impl_count, "gpus_nccl");
    hist_problem p = {1, 1, {0, 255, 1}, 8};
    const int nccl = gpus_nccl->unsupported(&p, dev) == NULL; /* built with NCCL */
    for (int np = 1; np <= gpus; ++np) {
        args[6] = NULL;
        ranks_exact_by(np, args, expected, "peer: rank 0's GPU adds");
        args[6] = "--path";
        args[7] = "peer";
        ranks_exact_by(np, args, expected, "peer: rank 0's GPU adds");
        if (!nccl)
            continue;
        args[7] = "nccl";
        ranks_exact_by(np, args, expected, "ncclReduce");
        if (np == 2) {
            args[7] = "nccl-allreduce";
            ranks_exact_by(np, args, expected, "ncclAllReduce");
        }
    }
    args[6] = NULL;
    if (gpus > 1) /* on one GPU, the first run above (2 ranks on it, MPI) was this one */
        ranks_exact_by(gpus + 1, args, expected, "MPI_Reduce");
    /* a path that cannot be had is refused, on every rank, in one line */
    char out[8192], *peer_shared[] = {"--rows", "10", "--path", "peer", NULL};
    assert_int_equal(run_ranks(gpus + 1, peer_shared, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--path peer: "));
    /* one GPU seen: two ranks share it (on a machine of one GPU, the first run above) */
    if (gpus == 1)
        return;
    const char *saved = getenv("CUDA_VISIBLE_DEVICES");
    char keep[256] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    ranks_exact_by(2, args, expected, "2 ranks share 1 GPU");
    if (saved)
        setenv("CUDA_VISIBLE_DEVICES", keep, 1);
    else
        unsetenv("CUDA_VISIBLE_DEVICES");
}

/**
 * @brief Runs the day 07 tests.
 * @return the number of failed tests
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row_per_chunk),
        cmocka_unit_test(test_chunks_rows_never_divide),
        cmocka_unit_test(test_chunks_of_64_kib),
        cmocka_unit_test(test_every_gpu_count),
        cmocka_unit_test(test_split_rows_exact),
        cmocka_unit_test(test_gpus_program),
        cmocka_unit_test(test_larger_than_host_memory_refused),
        cmocka_unit_test(test_missing_nccl_is_explained),
    };
    const struct CMUnitTest ranks[] = {
        cmocka_unit_test(test_ranks_generated_any_n), cmocka_unit_test(test_ranks_one_file),
        cmocka_unit_test(test_ranks_shards),          cmocka_unit_test(test_ranks_failures),
        cmocka_unit_test(test_ranks_on_the_gpu),
    };
    int failed =
        cmocka_run_group_tests_name("day07_scale: pipelines, GPUs, memory", tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("day07_scale: ranks (mpirun)", ranks, test_tmp_dir_setup,
                                          test_tmp_dir_teardown);
    return failed;
}
