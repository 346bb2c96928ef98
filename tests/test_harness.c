/**
 * @file test_harness.c
 * @brief The harness on the host: PRNG and distributions, reference and binning, verification,
 *        `.npy` reading and writing, the command line, statistics, the graded timing's fresh
 *        inputs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "gpu_limits.h"

#include "fresh.h"
#include "impl.h"
#include "npy.h"
#include "parallel.h"
#include "reference.h"
#include "runner.h"
#include "timing.h"

/* ---- PRNG and distributions ---- */

static void test_splitmix64_known_values(void **state) {
    (void)state;
    /* the first outputs of splitmix64 seeded with 0, as published with the algorithm */
    assert_true(hist_splitmix64(0, 0) == UINT64_C(0xE220A8397B1DCDAF));
    assert_true(hist_splitmix64(0, 1) == UINT64_C(0x6E789E6AA1B965F4));
    assert_true(hist_splitmix64(0, 2) == UINT64_C(0x06C45D188009454F));
}

static void test_generate_is_deterministic(void **state) {
    (void)state;
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 30},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 5}};
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; ++i) {
        hist_dataset d = test_data(1001, 7, (hist_binning){0, 255, 1}, dists[i], 42);
        uint8_t *a = test_samples(&d), *b = test_samples(&d);
        assert_memory_equal(a, b, 7007);
        d.seed = 43;
        uint8_t *c = test_samples(&d);
        if (dists[i].kind != HIST_DIST_CONSTANT) /* a constant may repeat across seeds */
            assert_true(memcmp(a, c, 7007) != 0);
        free(a);
        free(b);
        free(c);
    }
}

static void test_uniform_covers_range_evenly(void **state) {
    (void)state;
    hist_dataset d = test_data(200000, 1, (hist_binning){0, 255, 1}, (hist_dist){0, 0}, 7);
    d.vmin = 1;
    d.vmax = 100;
    uint8_t *s = test_samples(&d);
    uint32_t count[256] = {0};
    for (int i = 0; i < 200000; ++i)
        count[s[i]]++;
    assert_int_equal(count[0], 0);
    for (int v = 101; v < 256; ++v)
        assert_int_equal(count[v], 0);
    for (int v = 1; v <= 100; ++v) /* 2000 expected each; 5 sigma is about 220 */
        assert_in_range(count[v], 1700, 2300);
    free(s);
}

static void test_contention_share(void **state) {
    (void)state;
    static const uint32_t shares[] = {0, 50, 90, 100};
    for (size_t i = 0; i < 4; ++i) {
        hist_dataset d = test_data(100000, 4, (hist_binning){0, 255, 1},
                                   (hist_dist){HIST_DIST_CONTENTION, shares[i]}, 9);
        uint8_t *s = test_samples(&d);
        const uint8_t hot = hist_hot_value(&d);
        uint32_t n_hot = 0;
        for (int k = 0; k < 400000; ++k)
            n_hot += s[k] == hot;
        /* expected share: P% replaced, plus 1/256 of the rest drawn equal to the hot value */
        double expected = shares[i] / 100.0 + (1.0 - shares[i] / 100.0) / 256.0;
        double got = n_hot / 400000.0;
        assert_true(got > expected - 0.005 && got < expected + 0.005);
        free(s);
    }
}

static void test_constant_and_runs(void **state) {
    (void)state;
    hist_dataset d =
        test_data(500, 3, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_CONSTANT, 0}, 5);
    d.vmin = 40;
    d.vmax = 50;
    uint8_t *s = test_samples(&d);
    const uint8_t hot = hist_hot_value(&d);
    assert_in_range(hot, 40, 50);
    for (int i = 0; i < 1500; ++i)
        assert_int_equal(s[i], hot);
    free(s);

    d = test_data(1000, 5, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_RUNS, 8}, 5);
    s = test_samples(&d);
    int changes = 0;
    for (int r = 1; r < 1000; ++r)
        for (int c = 0; c < 5; ++c) {
            if (r % 8 != 0)
                assert_int_equal(s[r * 5 + c], s[(r - 1) * 5 + c]); /* inside a run */
            else
                changes += s[r * 5 + c] != s[(r - 1) * 5 + c];
        }
    assert_true(changes > 500); /* new runs draw new values (equal by chance 1 in 256) */
    free(s);
}

static void test_dist_parse(void **state) {
    (void)state;
    hist_dist d;
    assert_int_equal(hist_dist_parse("uniform", &d), HIST_OK);
    assert_int_equal(d.kind, HIST_DIST_UNIFORM);
    assert_int_equal(hist_dist_parse("contention:90", &d), HIST_OK);
    assert_int_equal(d.kind, HIST_DIST_CONTENTION);
    assert_int_equal(d.param, 90);
    assert_int_equal(hist_dist_parse("runs:1", &d), HIST_OK);
    assert_int_equal(d.param, 1);
    assert_int_equal(hist_dist_parse("constant", &d), HIST_OK);
    static const char *bad[] = {"",
                                "normal",
                                "contention",
                                "contention:",
                                "contention:101",
                                "contention:-1",
                                "contention:5x",
                                "runs:0",
                                "runs:",
                                "Uniform"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(hist_dist_parse(bad[i], &d), HIST_ERR_USAGE);
        assert_non_null(strstr(hist_last_error(), "--dist"));
    }
    char buf[32];
    hist_dist_format((hist_dist){HIST_DIST_RUNS, 12}, buf, sizeof buf);
    assert_string_equal(buf, "runs:12");
}

static void test_presets(void **state) {
    (void)state;
    hist_dataset d;
    assert_int_equal(hist_preset("main", &d), HIST_OK);
    assert_int_equal(d.problem.rows, 1048576);
    assert_int_equal(d.problem.channels, 512);
    assert_int_equal(hist_bins(d.problem.binning), 256);
    assert_int_equal(d.seed, 1001);
    assert_int_equal(hist_preset("small-binned", &d), HIST_OK);
    assert_int_equal(d.problem.rows, 32768);
    assert_int_equal(d.problem.channels, 1);
    assert_int_equal(hist_bins(d.problem.binning), 5);
    assert_int_equal(d.vmin, 1);
    assert_int_equal(d.vmax, 100);
    assert_int_equal(d.seed, 14);
    assert_int_equal(hist_preset("large", &d), HIST_ERR_USAGE);
    /* GPU MODE's six benchmark shapes: one channel of bytes, its sizes and contention shares */
    const uint64_t samples[] = {1310720, 2621440, 2621440, 2621440, 5242880, 10485760};
    const uint32_t contention[] = {10, 10, 40, 90, 10, 10};
    for (int k = 1; k <= 6; ++k) {
        char name[16];
        snprintf(name, sizeof name, "pmpp:%d", k);
        assert_int_equal(hist_preset(name, &d), HIST_OK);
        assert_int_equal(d.problem.rows, samples[k - 1]);
        assert_int_equal(d.problem.channels, 1);
        assert_int_equal(hist_bins(d.problem.binning), 256);
        assert_int_equal(d.dist.kind, HIST_DIST_CONTENTION);
        assert_int_equal(d.dist.param, contention[k - 1]);
    }
    assert_int_equal(hist_preset("pmpp", &d), HIST_OK);
    assert_int_equal(d.problem.rows, 1310720);
    assert_int_equal(hist_preset("pmpp:0", &d), HIST_ERR_USAGE);
    assert_int_equal(hist_preset("pmpp:7", &d), HIST_ERR_USAGE);
    assert_int_equal(hist_preset("pmpp:12", &d), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "pmpp:1 .. pmpp:6"));
}

static void test_small_binned_reproduces_seed_001(void **state) {
    (void)state;
    /* the 1-D lesson's bins hold about 6,550 each (32,768 / 5 = 6,553.6) */
    hist_dataset d;
    assert_int_equal(hist_preset("small-binned", &d), HIST_OK);
    uint8_t *s = test_samples(&d);
    uint32_t hist[5];
    hist_reference(&d.problem, s, hist);
    uint32_t total = 0;
    for (int b = 0; b < 5; ++b) {
        assert_in_range(hist[b], 6200, 6900);
        total += hist[b];
    }
    assert_int_equal(total, 32768);
    free(s);
}

/* ---- reference, binning, verification ---- */

static void test_reference_hand_computed(void **state) {
    (void)state;
    const uint8_t samples[] = {0, 255, 0, 7, 255, 7}; /* 3 rows x 2 channels */
    hist_problem p = {3, 2, {0, 255, 1}, 8};
    uint32_t hist[512];
    hist_reference(&p, samples, hist);
    uint32_t expected[512] = {0};
    expected[0] = 2;         /* channel 0: 0, 0 */
    expected[255] = 1;       /* channel 0: 255 */
    expected[256 + 255] = 1; /* channel 1: 255 */
    expected[256 + 7] = 2;   /* channel 1: 7, 7 */
    assert_memory_equal(hist, expected, sizeof hist);
}

static void test_binning_edges(void **state) {
    (void)state;
    /* lo=10, hi=20, width=5: bins [10,14], [15,19], [20] */
    const uint8_t samples[] = {9, 10, 14, 15, 19, 20, 21, 0, 255};
    hist_problem p = {9, 1, {10, 20, 5}, 8};
    assert_int_equal(hist_bins(p.binning), 3);
    uint32_t hist[3];
    hist_reference(&p, samples, hist);
    assert_int_equal(hist[0], 2);
    assert_int_equal(hist[1], 2);
    assert_int_equal(hist[2], 1);

    assert_int_equal(hist_bins((hist_binning){0, 255, 1}), 256);
    assert_int_equal(hist_bins((hist_binning){1, 100, 20}), 5);
    assert_int_equal(hist_bins((hist_binning){10, 200, 7}), 28);
    assert_int_equal(hist_bins((hist_binning){0, 255, 256}), 1);
    assert_int_equal(hist_bins((hist_binning){5, 5, 1}), 1);
    assert_true(hist_is_byte_binning((hist_binning){0, 255, 1}));
    assert_false(hist_is_byte_binning((hist_binning){0, 255, 2}));

    /* one bin of width 256 counts everything */
    hist_problem all = {9, 1, {0, 255, 256}, 8};
    uint32_t one;
    hist_reference(&all, samples, &one);
    assert_int_equal(one, 9);
}

static void test_bin_map_is_exact_for_every_binning(void **state) {
    (void)state;
    /* the kernels' multiply-shift against the division, for every (lo, hi, width) and value */
    for (unsigned lo = 0; lo < 256; lo += 3)
        for (unsigned hi = lo; hi < 256; hi += 7)
            for (unsigned width = 1; width <= 256; ++width) {
                hist_bin_map m = hist_bin_map_of((hist_binning){(uint8_t)lo, (uint8_t)hi, width});
                for (unsigned v = 0; v < 256; ++v) {
                    unsigned offset = v - m.lo;
                    int got = offset <= m.span ? (int)((offset * m.magic) >> 16) : -1;
                    int want = (v >= lo && v <= hi) ? (int)((v - lo) / width) : -1;
                    if (got != want)
                        fail_msg("lo=%u hi=%u width=%u v=%u: %d, not %d", lo, hi, width, v, got,
                                 want);
                }
            }
}

/* hist_parallel_ranges(): every item exactly once, cuts on the alignment, whatever the size */
static uint8_t range_seen[100003];
static void mark_range(void *ctx, uint64_t begin, uint64_t end) {
    const uint64_t align = *(const uint64_t *)ctx;
    assert_true(begin % align == 0 || begin == end);
    for (uint64_t i = begin; i < end; ++i)
        range_seen[i]++;
}

static void test_parallel_ranges_cover_once(void **state) {
    (void)state;
    static const uint64_t sizes[] = {0, 1, 3, 4, 1000, 65537, 100003};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        uint64_t align = 4;
        memset(range_seen, 0, sizeof range_seen);
        const unsigned pieces = hist_parallel_ranges(sizes[k], 16, align, 0, mark_range, &align);
        assert_in_range(pieces, 1, 64);
        for (uint64_t i = 0; i < sizes[k]; ++i)
            assert_int_equal(range_seen[i], 1);
    }
}

/* Generated on every core, the bytes are those of one thread (a small dataset with the same seed
   is their prefix, row by row), and the reference on every core counts what the loop counts. */
static void test_parallel_generation_and_reference(void **state) {
    (void)state;
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 37},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 7}};
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k) {
        /* 20,011 rows of 517 channels: 10 MiB, cut over every core; 1,000 rows: one thread */
        hist_dataset big = test_data(20011, 517, (hist_binning){10, 200, 7}, dists[k], 99 + k);
        hist_dataset small = big;
        small.problem.rows = 1000;
        uint8_t *b = test_samples(&big), *s = test_samples(&small);
        assert_memory_equal(b, s, 1000 * 517);
        const size_t counters = (size_t)hist_counters(&big.problem);
        uint32_t *one = malloc(counters * sizeof *one), *all = malloc(counters * sizeof *all);
        assert_non_null(one);
        assert_non_null(all);
        hist_reference(&big.problem, b, one);
        memset(all, 0xAB, counters * sizeof *all);
        hist_reference_parallel(&big.problem, b, all);
        assert_memory_equal(one, all, counters * sizeof *one);
        free(one);
        free(all);
        free(b);
        free(s);
    }
}

/* Any rows of a dataset, made alone (as one rank of day 07's ranks makes its share), are those
   rows of the whole: cut at rows whose first sample is not a multiple of 4, and at the ends. */
static void test_generate_rows_is_a_slice(void **state) {
    (void)state;
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 37},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 7}};
    static const uint64_t cuts[][2] = {{0, 0},    {0, 1},    {1, 1},   {3, 10},
                                       {7, 2990}, {2999, 2}, {0, 3001}};
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k) {
        hist_dataset d = test_data(3001, 517, (hist_binning){0, 255, 1}, dists[k], 7 + k);
        uint8_t *whole = test_samples(&d);
        uint8_t *part = malloc(3002 * 517);
        assert_non_null(part);
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
            memset(part, 0xEE, 3002 * 517);
            assert_int_equal(hist_generate_rows(&d, cuts[c][0], cuts[c][1], part), HIST_OK);
            if (cuts[c][1] > 0)
                assert_memory_equal(part, whole + cuts[c][0] * 517, cuts[c][1] * 517);
            assert_int_equal(part[cuts[c][1] * 517], 0xEE); /* nothing past its rows */
        }
        assert_int_equal(hist_generate_rows(&d, 3000, 2, part), HIST_ERR_USAGE);
        assert_int_equal(hist_generate_rows(&d, 3002, 0, part), HIST_ERR_USAGE);
        free(part);
        free(whole);
    }
}

static void test_reference_zero_rows(void **state) {
    (void)state;
    hist_problem p = {0, 4, {0, 255, 1}, 8};
    uint32_t hist[1024];
    memset(hist, 0xFF, sizeof hist);
    hist_reference(&p, NULL, hist);
    for (int i = 0; i < 1024; ++i)
        assert_int_equal(hist[i], 0);
}

static void test_verify_reports_first_mismatches(void **state) {
    (void)state;
    hist_problem p = {1, 2, {0, 3, 1}, 8}; /* 2 channels x 4 bins */
    uint32_t expected[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t got[8] = {1, 2, 3, 4, 5, 9, 7, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(hist_verify(&p, expected, got, 1, f), 2);
    fclose(f);
    assert_non_null(strstr(text, "channel, bin, expected, got"));
    assert_non_null(strstr(text, "1, 1, 6, 9"));
    assert_null(strstr(text, "1, 3, 8, 0")); /* only the first is reported */
    assert_non_null(strstr(text, "2 of 8 counters differ"));
    free(text);
    assert_int_equal(hist_verify(&p, expected, expected, 10, NULL), 0);
}

static void test_problem_validate(void **state) {
    (void)state;
    hist_problem ok = {HIST_MAX_ROWS, 1, {0, 255, 1}, 8};
    assert_int_equal(hist_problem_validate(&ok), HIST_OK);
    hist_problem too_many = {HIST_MAX_ROWS + 1, 1, {0, 255, 1}, 8};
    assert_int_equal(hist_problem_validate(&too_many), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "overflow"));
    hist_problem bad_range = {1, 1, {9, 8, 1}, 8};
    assert_int_equal(hist_problem_validate(&bad_range), HIST_ERR_USAGE);
    hist_problem bad_width = {1, 1, {0, 255, 0}, 8};
    assert_int_equal(hist_problem_validate(&bad_width), HIST_ERR_USAGE);
    hist_problem no_channels = {1, 0, {0, 255, 1}, 8};
    assert_int_equal(hist_problem_validate(&no_channels), HIST_ERR_USAGE);
}

static void test_exit_codes_and_stats(void **state) {
    (void)state;
    assert_int_equal(hist_exit_code(HIST_OK), 0);
    assert_int_equal(hist_exit_code(HIST_ERR_MISMATCH), 1);
    assert_int_equal(hist_exit_code(HIST_ERR_USAGE), 2);
    assert_int_equal(hist_exit_code(HIST_ERR_IO), 3);
    assert_int_equal(hist_exit_code(HIST_ERR_FORMAT), 3);
    assert_int_equal(hist_exit_code(HIST_ERR_CUDA), 3);
    assert_int_equal(hist_exit_code(HIST_ERR_NOMEM), 3);
    assert_int_equal(hist_exit_code(HIST_ERR_NOT_RUN), 4);
    assert_int_equal(hist_exit_code(HIST_ERR_NO_DEVICE), 4);
    double odd[] = {5, 1, 3};
    hist_stats s = hist_stats_of(odd, 3);
    assert_true(s.median_us == 3 && s.min_us == 1 && s.reps == 3);
    double even[] = {4, 1, 3, 2};
    s = hist_stats_of(even, 4);
    assert_true(s.median_us == 2.5 && s.min_us == 1);
    assert_int_equal(hist_stats_of(NULL, 0).reps, 0);
}

/* ---- .npy ---- */

static const char *tmp_path(const char *name) {
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", test_tmp_dir, name);
    return path;
}

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A version 1.0 file with the given dict text and data bytes, padded like numpy pads. */
static void write_npy_v1(const char *path, const char *dict, const uint8_t *data, size_t len) {
    char header[256];
    int n = snprintf(header, sizeof header, "%s", dict);
    while ((10 + n + 1) % 64 != 0)
        header[n++] = ' ';
    header[n++] = '\n';
    uint8_t buf[512];
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (uint8_t)(n & 0xFF);
    buf[9] = (uint8_t)(n >> 8);
    memcpy(buf + 10, header, (size_t)n);
    if (len > 0)
        memcpy(buf + 10 + n, data, len);
    write_file(path, buf, 10 + (size_t)n + len);
}

static void test_npy_round_trip(void **state) {
    (void)state;
    uint8_t data[6] = {1, 2, 3, 250, 251, 252};
    const char *path = tmp_path("in.npy");
    assert_int_equal(hist_npy_write_u8(path, data, 2, 3), HIST_OK);
    uint8_t *got = NULL;
    uint64_t rows = 0, channels = 0;
    assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), HIST_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(channels, 3);
    assert_memory_equal(got, data, 6);
    free(got);

    /* uint32 output: numpy's header layout, 64-byte aligned data, little-endian words */
    uint32_t hist[6] = {0, 1, 65536, 4294967295u, 7, 8};
    const char *out = tmp_path("out.npy");
    assert_int_equal(hist_npy_write_u32(out, hist, 2, 3), HIST_OK);
    uint8_t buf[256];
    FILE *f = fopen(out, "rb");
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    hist_npy_header h;
    assert_int_equal(hist_npy_parse_header(buf, n, &h), HIST_OK);
    assert_string_equal(h.descr, "<u4");
    assert_int_equal(h.fortran_order, 0);
    assert_int_equal(h.ndim, 2);
    assert_int_equal(h.shape[0], 2);
    assert_int_equal(h.shape[1], 3);
    assert_int_equal(h.data_offset % 64, 0);
    assert_int_equal(n, h.data_offset + sizeof hist);
    assert_memory_equal(buf + h.data_offset, hist, sizeof hist);

    /* no temporary file is left behind */
    DIR *dir = opendir(test_tmp_dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        assert_null(strstr(e->d_name, ".tmp."));
    closedir(dir);
}

/* A row range read alone (one rank's share) is those rows of the whole file, on every core for a
   large range; a range past the end, a truncated or a changed file are refused. */
static void test_npy_read_rows(void **state) {
    (void)state;
    hist_dataset d = test_data(40001, 517, (hist_binning){0, 255, 1}, (hist_dist){0, 0}, 5);
    uint8_t *whole = test_samples(&d); /* 20 MiB: pieces on every core */
    const char *path = tmp_path("rows.npy");
    assert_int_equal(hist_npy_write_u8(path, whole, 40001, 517), HIST_OK);
    hist_npy_header h;
    assert_int_equal(hist_npy_open_u8(path, &h), HIST_OK);
    assert_int_equal(h.shape[0], 40001);
    assert_int_equal(h.shape[1], 517);
    uint8_t *part = malloc(40001 * 517);
    assert_non_null(part);
    static const uint64_t cuts[][2] = {{0, 40001}, {1, 3}, {13333, 13334}, {40000, 1}, {5, 0}};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
        memset(part, 0xEE, 40001 * 517);
        assert_int_equal(hist_npy_read_rows_u8(path, &h, cuts[c][0], cuts[c][1], part), HIST_OK);
        if (cuts[c][1] > 0)
            assert_memory_equal(part, whole + cuts[c][0] * 517, cuts[c][1] * 517);
    }
    assert_int_equal(hist_npy_read_rows_u8(path, &h, 40000, 2, part), HIST_ERR_USAGE);
    assert_int_equal(truncate(path, (off_t)(h.data_offset + 517 * 40000)), 0);
    assert_int_equal(hist_npy_read_rows_u8(path, &h, 0, 1, part), HIST_ERR_IO); /* changed */
    assert_int_equal(hist_npy_open_u8(path, &h), HIST_ERR_FORMAT);
    assert_int_equal(hist_npy_open_u8(tmp_path("absent.npy"), &h), HIST_ERR_IO);
    free(part);
    free(whole);
}

static void test_npy_reads_numpy_variants(void **state) {
    (void)state;
    const uint8_t data[6] = {9, 8, 7, 6, 5, 4};
    const char *path = tmp_path("variant.npy");
    static const char *dicts[] = {
        "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }",
        "{\"descr\": \"<u1\", \"shape\": (2, 3), \"fortran_order\": False}",
        "{'shape':(2,3),'fortran_order':False,'descr':'u1'}",
    };
    for (size_t i = 0; i < 3; ++i) {
        write_npy_v1(path, dicts[i], data, 6);
        uint8_t *got = NULL;
        uint64_t rows = 0, channels = 0;
        assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), HIST_OK);
        assert_int_equal(rows, 2);
        assert_int_equal(channels, 3);
        assert_memory_equal(got, data, 6);
        free(got);
    }
    /* version 2.0: a 4-byte header length */
    uint8_t v2[132];
    const char dict[] = "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 4), }";
    memcpy(v2, "\x93NUMPY\x02\x00", 8);
    size_t hl = 128 - 12;
    v2[8] = (uint8_t)hl;
    v2[9] = v2[10] = v2[11] = 0;
    memset(v2 + 12, ' ', hl);
    memcpy(v2 + 12, dict, strlen(dict));
    v2[12 + hl - 1] = '\n';
    memcpy(v2 + 128, "\x01\x02\x03\x04", 4);
    write_file(path, v2, 132);
    uint8_t *got = NULL;
    uint64_t rows = 0, channels = 0;
    assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), HIST_OK);
    assert_int_equal(channels, 4);
    assert_int_equal(got[3], 4);
    free(got);
    /* an empty array is valid */
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 5), }", NULL, 0);
    assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), HIST_OK);
    assert_int_equal(rows, 0);
    assert_int_equal(channels, 5);
    assert_null(got);
}

static void expect_npy_error(const char *path, hist_status status, const char *words) {
    uint8_t *got = (uint8_t *)1;
    uint64_t rows = 0, channels = 0;
    assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), status);
    assert_null(got);
    if (!strstr(hist_last_error(), words))
        fail_msg("message '%s' lacks '%s'", hist_last_error(), words);
    assert_null(strchr(hist_last_error(), '\n'));
}

static void test_npy_malformed(void **state) {
    (void)state;
    const uint8_t data[64] = {0};
    const char *path = tmp_path("bad.npy");
    expect_npy_error(tmp_path("missing.npy"), HIST_ERR_IO, "cannot open");
    expect_npy_error(test_tmp_dir, HIST_ERR_IO, "not a regular file");

    write_file(path, "", 0);
    expect_npy_error(path, HIST_ERR_FORMAT, "magic");
    write_file(path, "\x93NUMPY\x01\x00", 8);
    expect_npy_error(path, HIST_ERR_FORMAT, "npy");
    write_file(path, "\x93NUMPY\x01\x00\x76\x00{'descr'", 17);
    expect_npy_error(path, HIST_ERR_FORMAT, "truncated");
    write_file(path, "PK\x03\x04 this is a zip file", 22);
    expect_npy_error(path, HIST_ERR_FORMAT, "magic");
    write_file(path, "\x93NUMPY\x04\x00\x10\x00{}              \n", 26);
    expect_npy_error(path, HIST_ERR_FORMAT, "version");

    write_npy_v1(path, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", data, 12);
    expect_npy_error(path, HIST_ERR_USAGE, "holds uint16 samples: run with --bits 16");
    write_npy_v1(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, 24);
    expect_npy_error(path, HIST_ERR_FORMAT, "not uint8");
    write_npy_v1(path, "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "not uint8");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 4), }", data, 24);
    expect_npy_error(path, HIST_ERR_FORMAT, "3 dimensions");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (6,), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "1 dimensions");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "Fortran");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", data, 5);
    expect_npy_error(path, HIST_ERR_FORMAT, "needs 6 bytes");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", data, 7);
    expect_npy_error(path, HIST_ERR_FORMAT, "needs 6 bytes");
    write_npy_v1(path,
                 "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                 data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "accepted: 1..262144 channels");
    write_npy_v1(path, "{'descr': '|u1', 'shape': (2, 3), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "required");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", data,
                 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "unknown key");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': Maybe, 'shape': (2, 3), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "fortran_order");
    write_npy_v1(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, -3), }", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "shape");
    write_npy_v1(path, "['descr', '|u1']", data, 6);
    expect_npy_error(path, HIST_ERR_FORMAT, "no dict");
    /* a header without its final newline */
    uint8_t raw[74];
    memcpy(raw, "\x93NUMPY\x01\x00\x40\x00", 10);
    memset(raw + 10, ' ', 64);
    memcpy(raw + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 1), }", 59);
    write_file(path, raw, sizeof raw);
    expect_npy_error(path, HIST_ERR_FORMAT, "newline");
}

static void test_npy_write_failure_leaves_nothing(void **state) {
    (void)state;
    uint32_t hist[2] = {1, 2};
    assert_int_equal(hist_npy_write_u32("/nonexistent-dir/out.npy", hist, 1, 2), HIST_ERR_IO);
    assert_non_null(strstr(hist_last_error(), "cannot write"));
    assert_int_equal(access("/nonexistent-dir/out.npy", F_OK), -1);
}

/* Every file of a folder through both .npy readers: each returns OK or an error, no crash. */
static int replay_folder(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        hist_npy_header h;
        hist_status s = hist_npy_parse_header(buf, len, &h);
        assert_true(s == HIST_OK || s == HIST_ERR_FORMAT);
        uint8_t *samples = NULL;
        uint64_t rows = 0, channels = 0;
        s = hist_npy_read_u8(path, &samples, &rows, &channels);
        assert_true(s == HIST_OK || s == HIST_ERR_FORMAT || s == HIST_ERR_NOMEM);
        free(samples);
        ++n;
    }
    closedir(d);
    return n;
}

static void test_npy_fuzz_corpus_replays(void **state) {
    (void)state;
    /* the fuzzer's seeds, and every input that ever crashed it (tests/fuzz/regressions) */
    int seeds = replay_folder(FUZZ_DIR "/seeds");
    int regressions = replay_folder(FUZZ_DIR "/regressions");
    print_message("%d seeds, %d regression inputs replayed\n", seeds, regressions);
    assert_true(seeds >= 5);
}

/* ---- the GPU limits (gpu_limits.h): the table, capping a device, the occupancy padding ---- */

static void test_gpu_limits_table(void **state) {
    (void)state;
    size_t rows = 0;
    const hist_gpu_limits *t = hist_gpu_limits_table(&rows);
    static const char *const names[] = {"t4",      "a100", "l4",   "rtx3090", "rtx4090",
                                        "rtx5090", "h100", "h200", "b200"};
    assert_int_equal(rows, sizeof names / sizeof names[0]);
    for (size_t i = 0; i < rows; ++i) {
        assert_ptr_equal(hist_gpu_limits_find(names[i]), &t[i]);
        assert_true(t[i].sm_count > 0 && t[i].max_threads_per_sm >= 1024);
        assert_true(t[i].smem_per_block_optin + t[i].smem_reserved_per_block <= t[i].smem_per_sm);
        assert_true(t[i].l2_bytes > 0 && t[i].global_bytes > 0 && t[i].bandwidth_gb_s > 0);
        assert_true(strlen(t[i].source) > 20);
    }
    assert_null(hist_gpu_limits_find("k80"));
    assert_int_equal(hist_gpu_limits_find("t4")->smem_per_block_optin, 65536);
    assert_int_equal(hist_gpu_limits_find("a100")->smem_per_block_optin, 166912);
    assert_int_equal(hist_gpu_limits_find("rtx4090")->smem_per_block_optin, 101376);
    assert_int_equal(hist_gpu_limits_find("h100")->smem_per_block_optin, 232448);
}

static void test_gpu_limits_only_lower(void **state) {
    (void)state;
    hist_device dev;
    hist_device_of_limits(hist_gpu_limits_find("h100"), &dev); /* as if an H100 were present */
    assert_int_equal(hist_device_limit(&dev, hist_gpu_limits_find("t4"), 0), HIST_OK);
    assert_string_equal(dev.limited_to, "t4");
    assert_non_null(strstr(dev.name, "limited to t4"));
    assert_int_equal(dev.sm_count, 40);
    assert_int_equal(dev.smem_per_block_optin, 65536);
    assert_int_equal(dev.max_threads_per_sm, 1024);
    assert_int_equal(dev.l2_bytes, 4u << 20);
    assert_int_equal(dev.real_sm_count, 132);
    assert_int_equal(dev.real_l2_bytes, 50u << 20); /* what the L2 flush covers */
    hist_device_of_limits(hist_gpu_limits_find("h100"), &dev);
    assert_int_equal(hist_device_limit(&dev, hist_gpu_limits_find("rtx4090"), 1), HIST_OK);
    assert_int_equal(dev.sm_count, 132); /* kept */
    assert_non_null(strstr(dev.name, "(132 SMs kept)"));
    assert_null(strchr(dev.name, ',')); /* one CSV cell */
    hist_device_of_limits(hist_gpu_limits_find("h100"), &dev);
    assert_int_equal(hist_device_limit(&dev, hist_gpu_limits_find("b200"), 0), HIST_OK);
    assert_int_equal(dev.sm_count, 132); /* it has 148: the present GPU's, and the name says so */
    assert_non_null(strstr(dev.name, "it has 148"));
    hist_device_of_limits(hist_gpu_limits_find("a100"), &dev); /* an A100 cannot be an H100 */
    assert_int_equal(hist_device_limit(&dev, hist_gpu_limits_find("h100"), 0), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "can only be lowered"));
}

static void test_gpu_limits_pad_occupancy(void **state) {
    (void)state;
    hist_device h100, t4, rtx;
    hist_device_of_limits(hist_gpu_limits_find("h100"), &h100);
    t4 = rtx = h100;
    assert_int_equal(hist_device_limit(&t4, hist_gpu_limits_find("t4"), 1), HIST_OK);
    assert_int_equal(hist_device_limit(&rtx, hist_gpu_limits_find("rtx4090"), 1), HIST_OK);
    /* a real GPU: as asked */
    assert_int_equal(hist_launch_smem(&h100, 1024, 49536), 49536);
    assert_int_equal(hist_blocks_per_sm(&h100, 1024, 49536), 2);
    /* a T4 holds one block of 1,024 threads; the H100 would hold two unless padded */
    assert_int_equal(hist_blocks_per_sm(&t4, 1024, 49536), 1);
    const size_t padded = hist_launch_smem(&t4, 1024, 49536);
    assert_true(padded > 49536 && padded <= h100.smem_per_block_optin);
    assert_int_equal(h100.smem_per_sm / (padded + h100.smem_reserved_per_block), 1);
    /* an RTX 4090: 1,536 threads per SM, 100 KiB: three 256-thread blocks of 30 KiB, not seven */
    assert_int_equal(hist_blocks_per_sm(&rtx, 256, 30000), 3);
    const size_t p3 = hist_launch_smem(&rtx, 256, 30000);
    assert_int_equal(h100.smem_per_sm / (p3 + h100.smem_reserved_per_block), 3);
    /* a block that fits nowhere is left as it is (the launch then fails, as it would there) */
    assert_int_equal(hist_blocks_per_sm(&t4, 1024, 70000), 0);
    assert_int_equal(hist_launch_smem(&t4, 1024, 70000), 70000);
}

/* ---- the command line ---- */

static hist_status parse(hist_options *o, int argc, const char *const *argv) {
    static const hist_impl impls[] = {
        {
            .name = "alpha",
            .where = HIST_HOST,
            .summary = "",
            .constraints = "",
            .run = NULL,
        },
        {
            .name = "beta",
            .where = HIST_DEVICE,
            .summary = "",
            .constraints = "",
            .run = NULL,
        },
    };
    char *copy[32];
    for (int i = 0; i < argc; ++i)
        copy[i] = (char *)argv[i];
    copy[argc] = NULL;
    return hist_parse_args(argc, copy, impls, 2, o);
}

/** @brief parse() with a literal argument list (argv[0] added). */
#define PARSE(o, ...)                                                                              \
    parse((o), (int)(sizeof((const char *[]){"prog", __VA_ARGS__}) / sizeof(const char *)),        \
          (const char *[]){"prog", __VA_ARGS__})

static void test_cli_gpu_limits(void **state) {
    (void)state;
    hist_options o;
    assert_int_equal(PARSE(&o, "--gpu-limits", "list"), HIST_OK);
    assert_true(o.list_gpus);
    assert_int_equal(PARSE(&o, "--gpu-limits", "t4", "--keep-sms"), HIST_OK);
    assert_ptr_equal(o.emulation.limits, hist_gpu_limits_find("t4"));
    assert_int_equal(o.emulation.keep_sms, 1);
    assert_int_equal(PARSE(&o, "--gpu-limits", "none"), HIST_OK);
    assert_null(o.emulation.limits);
    assert_int_equal(PARSE(&o, "--gpu-limits", "gtx480"), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "accepted: t4, a100"));
    assert_int_equal(PARSE(&o, "--keep-sms"), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "only with --gpu-limits"));
}

/* A program's own options (hist_program): parsed into their targets only when the whole line
   parses, ranges checked, refused shared options refused, the usage text says both. */
static void test_cli_program_options(void **state) {
    (void)state;
    int max = 16, flag = 0;
    double gib = 96;
    const char *path = NULL;
    const hist_extra_option extra[] = {
        {.name = "max", .value = "N", .help = "at most", .min = 1, .max = 16, .whole = &max},
        {.name = "gib", .value = "G", .help = "size", .min = 0.5, .max = 8, .real = &gib},
        {.name = "path", .value = "P", .help = "a path", .text = &path},
        {.name = "cpu", .help = "a flag", .flag = &flag},
    };
    const hist_program prog = {.name = "prog",
                               .about = "a test program",
                               .refused = "input impl",
                               .extra = extra,
                               .n_extra = 4,
                               .reps = 51};
    hist_options o;
    char *ok[] = {"prog", "--max", "4", "--gib", "1.5", "--path", "x", "--cpu", NULL};
    assert_int_equal(hist_parse_program(&prog, 8, ok, &o), HIST_OK);
    assert_int_equal(max, 4);
    assert_true(gib == 1.5);
    assert_string_equal(path, "x");
    assert_int_equal(flag, 1);
    assert_int_equal(o.reps, 51); /* the program's default */
    max = 16;
    char *bad_range[] = {"prog", "--max", "17", NULL};
    assert_int_equal(hist_parse_program(&prog, 3, bad_range, &o), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "--max"));
    char *bad_real[] = {"prog", "--max", "2", "--gib", "3x", NULL};
    assert_int_equal(hist_parse_program(&prog, 5, bad_real, &o), HIST_ERR_USAGE);
    assert_int_equal(max, 16); /* nothing written when the line fails */
    char *refused[] = {"prog", "--input", "a.npy", NULL};
    assert_int_equal(hist_parse_program(&prog, 3, refused, &o), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "prog does not take this option"));
    char *reps_text[] = {"prog", "--reps", "3x", NULL};
    assert_int_equal(hist_parse_program(&prog, 3, reps_text, &o), HIST_ERR_USAGE);
    char usage[8192] = "";
    FILE *f = fmemopen(usage, sizeof usage - 1, "w");
    assert_non_null(f);
    hist_print_program_usage(f, &prog);
    fclose(f);
    assert_non_null(strstr(usage, "--max N"));
    assert_non_null(strstr(usage, "--rows N"));
    assert_null(strstr(usage, "--input FILE"));
}

static void test_cli_defaults_and_overrides(void **state) {
    (void)state;
    hist_options o;
    const char *argv0[] = {"prog"};
    assert_int_equal(parse(&o, 1, argv0), HIST_OK);
    assert_string_equal(o.preset, "main");
    assert_int_equal(o.data.problem.rows, 1048576);
    assert_int_equal(o.reps, 10);
    assert_true(o.threads >= 1);

    /* the preset applies first, wherever it stands */
    assert_int_equal(PARSE(&o, "--rows", "5", "--preset", "small-binned", "--dist", "runs:3"),
                     HIST_OK);
    assert_int_equal(o.data.problem.rows, 5);
    assert_int_equal(o.data.problem.channels, 1);
    assert_int_equal(hist_bins(o.data.problem.binning), 5);
    assert_int_equal(o.data.dist.kind, HIST_DIST_RUNS);
    assert_int_equal(PARSE(&o, "--rows=0", "--channels", "513", "--lo", "3", "--hi", "9", "--width",
                           "2", "--values", "0:9", "--seed", "18446744073709551615", "--reps", "3",
                           "--warmup", "0", "--threads", "3", "--impl", "beta,alpha"),
                     HIST_OK);
    assert_int_equal(o.data.problem.rows, 0);
    assert_int_equal(o.data.problem.channels, 513);
    assert_int_equal(hist_bins(o.data.problem.binning), 4);
    assert_true(o.data.seed == UINT64_MAX);
    assert_int_equal(o.reps, 3);
    assert_int_equal(o.warmup, 0);
    assert_int_equal(o.threads, 3);
    assert_string_equal(o.impl, "beta,alpha");
    assert_int_equal(PARSE(&o, "--list"), HIST_OK);
    assert_true(o.list);
    assert_int_equal(PARSE(&o, "-h"), HIST_OK);
    assert_true(o.help);
}

static void expect_usage(hist_status s, const char *words) {
    assert_int_equal(s, HIST_ERR_USAGE);
    if (!strstr(hist_last_error(), words))
        fail_msg("message '%s' lacks '%s'", hist_last_error(), words);
    assert_null(strchr(hist_last_error(), '\n'));
}

static void test_cli_rejections(void **state) {
    (void)state;
    hist_options o;
    expect_usage(PARSE(&o, "--bogus"), "unknown option '--bogus'");
    expect_usage(PARSE(&o, "-x"), "unknown option");
    expect_usage(PARSE(&o, "--rows"), "needs a value");
    expect_usage(PARSE(&o, "stray"), "unexpected argument 'stray'");
    /* found by the fuzzer (tests/fuzz_cli.c): a newline in an argument kept the message one line */
    expect_usage(PARSE(&o, ")-otu\nt"), "unexpected argument ')-otu?t'");
    expect_usage(PARSE(&o, "--impl", "al\npha"), "unknown implementation 'al?pha'");
    expect_usage(PARSE(&o, "--channels", "0"), "--channels: expected a whole number from 1");
    expect_usage(PARSE(&o, "--channels", "262145"), "--channels");
    expect_usage(PARSE(&o, "--rows", "-5"), "--rows: expected a whole number from 0 to 4294967295");
    expect_usage(PARSE(&o, "--rows", "abc"), "--rows");
    expect_usage(PARSE(&o, "--rows", "12abc"), "--rows");
    expect_usage(PARSE(&o, "--rows", " 12"), "--rows");
    expect_usage(PARSE(&o, "--rows", ""), "--rows");
    expect_usage(PARSE(&o, "--rows", "4294967296"), "--rows");
    expect_usage(PARSE(&o, "--rows", "99999999999999999999999"), "--rows");
    expect_usage(PARSE(&o, "--lo", "256"), "--lo: expected a whole number from 0 to 255");
    expect_usage(PARSE(&o, "--hi", "-1"), "--hi");
    expect_usage(PARSE(&o, "--lo", "200", "--hi", "100"), "--lo 200 is above --hi 100");
    expect_usage(PARSE(&o, "--preset", "small-binned", "--lo", "150"),
                 "--lo 150 is above --hi 100");
    expect_usage(PARSE(&o, "--width", "0"), "--width");
    expect_usage(PARSE(&o, "--width", "257"), "--width");
    expect_usage(PARSE(&o, "--preset", "huge"), "--preset: unknown preset 'huge'");
    expect_usage(PARSE(&o, "--dist", "gaussian"), "--dist: unknown distribution 'gaussian'");
    expect_usage(PARSE(&o, "--dist", "contention:101"), "--dist contention");
    expect_usage(PARSE(&o, "--seed", "-1"), "--seed");
    expect_usage(PARSE(&o, "--reps", "0"), "--reps");
    expect_usage(PARSE(&o, "--warmup", "1001"), "--warmup");
    expect_usage(PARSE(&o, "--threads", "0"), "--threads");
    expect_usage(PARSE(&o, "--values", "9:3"), "--values");
    expect_usage(PARSE(&o, "--values", "300:400"), "--values");
    expect_usage(PARSE(&o, "--values", "5"), "--values");
    expect_usage(PARSE(&o, "--impl", "gamma"), "--impl: unknown implementation 'gamma'");
    expect_usage(PARSE(&o, "--impl", ""), "--impl");
    expect_usage(PARSE(&o, "--impl", ","), "--impl");
    expect_usage(PARSE(&o, "--impl", "alpha,,beta"), "--impl");
    expect_usage(PARSE(&o, "--impl", "alpha,"), "--impl");
    /* usage errors whatever else the command line holds */
    expect_usage(PARSE(&o, "--list", "--rows", "abc"), "--rows");
    expect_usage(PARSE(&o, "--help", "--rows", "abc"), "--rows");
    expect_usage(PARSE(&o, "--input", "x.npy", "--rows", "5"),
                 "--rows cannot be used with --input");
    expect_usage(PARSE(&o, "--input", "x.npy", "--dist", "constant"), "--dist cannot be used");
    expect_usage(PARSE(&o, "--output", ""), "--output: expected a file name");
}

/* ---- every program of the course, as a user runs it ---- */

/** @brief The most programs the build folder may hold (the course, each lesson's, its tools). */
#define MAX_PROGRAMS 64

/** @brief A path no program can write: its folder does not exist. */
#define BAD_FOLDER "/nonexistent_dir_of_the_course"

/* Every program of the build: build/CONFIG/course and each lesson folder's executables (not its
   tests). Returns how many; 0 when the course was not built. */
static int list_programs(char (*paths)[1024], int max) {
    int n = 0;
    snprintf(paths[n], 1024, "%s/course", BUILD_DIR);
    if (access(paths[n], X_OK) != 0)
        return 0;
    ++n;
    DIR *build = opendir(BUILD_DIR);
    assert_non_null(build);
    for (struct dirent *e; (e = readdir(build)) != NULL;) {
        if (strncmp(e->d_name, "day", 3) != 0 || strchr(e->d_name, '_') == NULL)
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", BUILD_DIR, e->d_name);
        DIR *lesson = opendir(dir);
        for (struct dirent *f; lesson && (f = readdir(lesson)) != NULL && n < max;) {
            snprintf(paths[n], 1024, "%s/%s", dir, f->d_name);
            struct stat st;
            if (f->d_name[0] != '.' && !strchr(f->d_name, '.') &&
                strncmp(f->d_name, "test_", 5) != 0 && stat(paths[n], &st) == 0 &&
                S_ISREG(st.st_mode) && access(paths[n], X_OK) == 0)
                ++n;
        }
        if (lesson)
            closedir(lesson);
    }
    closedir(build);
    return n;
}

/* The lines of @p text a program wrote, without the sanitizers' own (`==PID==...`). */
static int own_lines(const char *text) {
    int lines = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        lines += strncmp(line, "==", 2) != 0;
        if (!end)
            break;
        line = end + 1;
    }
    return lines;
}

static char prog_out[1 << 16], prog_err[1 << 12];

/* Run @p argv; return its exit status, its time in seconds in *seconds. */
static int run_timed(char **argv, double *seconds) {
    const double t0 = hist_now_us();
    const int status = test_run_program(argv, prog_out, sizeof prog_out, prog_err, sizeof prog_err);
    *seconds = (hist_now_us() - t0) / 1e6;
    return status;
}

/* @p program given @p option BAD_FOLDER/...: exit status 2 within a second of its own start-up
   (@p startup: how long --help takes it), before any work, in one line naming the path. */
static void expect_bad_path_refused(const char *program, const char *option, double startup) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", BAD_FOLDER,
             strcmp(option, "--results") == 0 ? "results" : "file");
    char *argv[] = {(char *)program, (char *)option, path, NULL};
    double seconds = 0;
    const int status = run_timed(argv, &seconds);
    print_message("%s %s %s: exit %d in %.2f s: %s", strrchr(program, '/') + 1, option, path,
                  status, seconds, prog_err);
    if (status != 2 || seconds > startup + 1.0 || own_lines(prog_err) != 1 ||
        !strstr(prog_err, path))
        fail_msg("%s %s %s: exit %d after %.2f s (start-up %.2f s), stderr '%s' (wanted exit 2 "
                 "within a second, one line naming the path)",
                 program, option, path, status, seconds, startup, prog_err);
}

/* Without a GPU, a program that needs one exits 4 (docs/RELIABILITY.md, "Exit statuses"):
   the course and the GPU lessons' programs asked for a GPU entry with --impl, and the lessons'
   own tools; ranks counts on the CPU there, and day 01 has no GPU entry. */
static void expect_no_gpu_status(const char *program, const char *help) {
    const char *name = strrchr(program, '/') + 1;
    if (strcmp(name, "ranks") == 0)
        return;
    char *argv[12] = {(char *)program};
    int k = 1;
    char impl[64] = "";
    if (strstr(help, "--require-gpu")) { /* the course and the lessons' programs */
        char *list[] = {(char *)program, "--list", NULL};
        double seconds = 0;
        assert_int_equal(run_timed(list, &seconds), 0);
        /* its first GPU entry (`LESSON NAME WHERE ...`, WHERE device or h2d), named with --impl */
        for (const char *line = prog_out; line && !impl[0]; line = strchr(line + 1, '\n')) {
            char lesson[64], name[64], where[16];
            if (sscanf(line, " %63s %63s %15s", lesson, name, where) == 3 &&
                strncmp(lesson, "day", 3) == 0 && strcmp(where, "host") != 0)
                snprintf(impl, sizeof impl, "%s", name);
        }
        if (!impl[0])
            return; /* day 01: nothing of it needs a GPU */
        char *args[] = {"--impl", impl, "--rows", "10", "--channels", "4", "--reps", "1"};
        for (size_t i = 0; i < sizeof args / sizeof args[0]; ++i)
            argv[k++] = args[i];
    } else if (strcmp(name, "bigger") == 0) {
        argv[k++] = "--gib";
        argv[k++] = "0.001";
    }
    argv[k] = NULL;
    double seconds = 0;
    const int status = run_timed(argv, &seconds);
    if (status != 4 || !strstr(prog_err, "could not run"))
        fail_msg("%s without a GPU: exit %d, stderr '%s' (wanted 4, 'could not run')", name, status,
                 prog_err);
}

/* Every program: a path it cannot write (--output, --csv, --save-input, --results, whichever it
   takes) refused before any work; without a GPU, the one exit status of docs/RELIABILITY.md. */
static void test_programs_refuse_bad_paths_first(void **state) {
    (void)state;
    static char paths[MAX_PROGRAMS][1024];
    const int n = list_programs(paths, MAX_PROGRAMS);
    if (n == 0) {
        print_message("skipped: %s/course is not built (make all)\n", BUILD_DIR);
        skip();
    }
    /* ranks under SANITIZE=1: Open MPI's own allocations are not the course's leaks */
    char supp[600];
    snprintf(
        supp, sizeof supp,
        "suppressions=%s/../sanitize/openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0",
        FUZZ_DIR);
    setenv("LSAN_OPTIONS", supp, 1);
    static const char *const file_options[] = {"--output", "--csv", "--save-input", "--results"};
    for (int i = 0; i < n; ++i) {
        char *help[] = {paths[i], "--help", NULL};
        double startup = 0;
        assert_int_equal(run_timed(help, &startup), 0);
        char usage[sizeof prog_out];
        snprintf(usage, sizeof usage, "%s", prog_out);
        int takes = 0;
        for (size_t k = 0; k < sizeof file_options / sizeof file_options[0]; ++k) {
            char head[32];
            snprintf(head, sizeof head, "  %s ", file_options[k]);
            if (strstr(usage, head)) {
                expect_bad_path_refused(paths[i], file_options[k], startup);
                ++takes;
            }
        }
        if (!takes) { /* it writes no file: the options are refused as such */
            char *argv[] = {paths[i], "--output", BAD_FOLDER "/file", NULL};
            double seconds = 0;
            assert_int_equal(run_timed(argv, &seconds), 2);
        }
        /* every option offered is usable: --keep-sms only goes with --gpu-limits */
        if (strstr(usage, "  --keep-sms ") && !strstr(usage, "  --gpu-limits "))
            fail_msg("%s offers --keep-sms without --gpu-limits, which it needs", paths[i]);
        if (!test_gpu())
            expect_no_gpu_status(paths[i], usage);
    }
    print_message("%d programs checked\n", n);
}

/* Every file written is checked before any work: its folder exists and is writable; --results
   may be created where its parent is. */
static void test_cli_output_folders(void **state) {
    (void)state;
    hist_options o;
    expect_usage(PARSE(&o, "--output", BAD_FOLDER "/x.npy"),
                 "--output: cannot write '" BAD_FOLDER "/x.npy': its folder '" BAD_FOLDER
                 "' does not exist");
    expect_usage(PARSE(&o, "--csv", BAD_FOLDER "/x.csv"), "--csv: cannot write");
    expect_usage(PARSE(&o, "--save-input", BAD_FOLDER "/in.npy"), "--save-input: cannot write");
    expect_usage(PARSE(&o, "--results", BAD_FOLDER "/r"),
                 "--results: cannot create '" BAD_FOLDER "/r'");
    char file[] = "/tmp/hist_cli_XXXXXX", inside[64];
    const int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    snprintf(inside, sizeof inside, "%s/x.npy", file);
    expect_usage(PARSE(&o, "--results", file), "exists and is not a folder");
    expect_usage(PARSE(&o, "--output", inside), "is not a folder");
    unlink(file);
    assert_int_equal(PARSE(&o, "--output", "x.npy", "--results", "new-results-folder"), HIST_OK);
    assert_int_equal(access("new-results-folder", F_OK), -1); /* made when written, not before */
}

/* ---- 16-bit samples (day 08) ---- */

/* The u16 presets: 16-bit samples, the full range in one bin a value, 512 MiB of input. */
static void test_u16_presets(void **state) {
    (void)state;
    hist_dataset d;
    assert_int_equal(hist_preset("u16", &d), HIST_OK);
    assert_int_equal(hist_sample_bits(&d.problem), 16);
    assert_int_equal(d.problem.channels, 1);
    assert_int_equal(hist_bins(d.problem.binning), 65536);
    assert_true(hist_input_bytes(&d.problem) == (UINT64_C(512) << 20));
    assert_int_equal(hist_preset("u16x8", &d), HIST_OK);
    assert_int_equal(d.problem.channels, 8);
    assert_true(hist_input_bytes(&d.problem) == (UINT64_C(512) << 20));
    assert_int_equal(d.vmax, 65535);
    /* a byte preset is 8 bits (its initializer leaves bits out) */
    assert_int_equal(hist_preset("main", &d), HIST_OK);
    assert_int_equal(hist_sample_bits(&d.problem), 8);
    assert_int_equal(hist_sample_bytes(&d.problem), 1);
}

/* Generated 16-bit samples: two little-endian bytes each, within the range, deterministic and
   the same cut by rows; every distribution; the values above 255 reached. */
static void test_u16_generate(void **state) {
    (void)state;
    const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                               {HIST_DIST_CONTENTION, 90},
                               {HIST_DIST_CONSTANT, 0},
                               {HIST_DIST_RUNS, 7}};
    for (size_t k = 0; k < 4; ++k) {
        hist_dataset d = {
            .problem = {.rows = 4099, .channels = 3, .binning = {0, 65535, 1}, .bits = 16},
            .vmin = 1000,
            .vmax = 64999,
            .dist = dists[k],
            .seed = 77 + k};
        const size_t bytes = (size_t)hist_input_bytes(&d.problem);
        assert_int_equal(bytes, 4099 * 3 * 2);
        uint8_t *a = malloc(bytes), *b = malloc(bytes);
        assert_int_equal(hist_generate(&d, a), HIST_OK);
        assert_int_equal(hist_generate(&d, b), HIST_OK);
        assert_memory_equal(a, b, bytes);
        assert_int_equal(hist_generate_rows(&d, 1000, 99, b), HIST_OK);
        assert_memory_equal(a + 1000 * 3 * 2, b, 99 * 3 * 2);
        uint32_t largest = 0;
        for (uint64_t i = 0; i < hist_samples(&d.problem); ++i) {
            const uint32_t v = hist_sample_at(&d.problem, a, i);
            assert_in_range(v, 1000, 64999);
            assert_int_equal(v, a[2 * i] | a[2 * i + 1] << 8);
            largest = v > largest ? v : largest;
        }
        if (dists[k].kind != HIST_DIST_CONSTANT)
            assert_true(largest > 60000);
        if (dists[k].kind == HIST_DIST_CONSTANT)
            assert_int_equal(largest, hist_hot_value(&d));
        free(a);
        free(b);
    }
    /* a value range past 16 bits, or past 8 for bytes, is refused */
    hist_dataset bad = {
        .problem = {.rows = 1, .channels = 1, .binning = {0, 255, 1}}, .vmin = 0, .vmax = 256};
    uint8_t one[2];
    assert_int_equal(hist_generate(&bad, one), HIST_ERR_USAGE);
    assert_non_null(strstr(hist_last_error(), "8-bit"));
}

/* The reference on 16-bit samples: hand-computed counts at the range's edges (0, 255, 256,
   65535), a binning that leaves values out, one bin of all 65,536 values; the parallel reference
   the same as the one-thread one. */
static void test_u16_reference(void **state) {
    (void)state;
    const uint16_t values[] = {0, 255, 256, 65535, 65535, 300, 299, 65534};
    uint8_t samples[16];
    for (int i = 0; i < 8; ++i) {
        samples[2 * i] = (uint8_t)(values[i] & 0xFF);
        samples[2 * i + 1] = (uint8_t)(values[i] >> 8);
    }
    /* 4 rows x 2 channels: channel 0 gets 0, 256, 65535, 299; channel 1 gets 255, 65535, 300,
       65534 */
    hist_problem p = {.rows = 4, .channels = 2, .binning = {0, 65535, 1}, .bits = 16};
    uint32_t *hist = malloc(2 * 65536 * sizeof *hist);
    hist_reference(&p, samples, hist);
    assert_int_equal(hist[0], 1);
    assert_int_equal(hist[256], 1);
    assert_int_equal(hist[65535], 1);
    assert_int_equal(hist[299], 1);
    assert_int_equal(hist[65536 + 255], 1);
    assert_int_equal(hist[65536 + 65535], 1);
    assert_int_equal(hist[65536 + 300], 1);
    assert_int_equal(hist[65536 + 65534], 1);
    uint64_t total = 0;
    for (uint32_t i = 0; i < 2 * 65536; ++i)
        total += hist[i];
    assert_int_equal(total, 8);
    p.binning = (hist_binning){256, 65534, 100}; /* 0, 255 and 65535 out; (v - 256) / 100 */
    hist_reference(&p, samples, hist);
    const uint32_t bins = hist_bins(p.binning);
    assert_int_equal(bins, 653);
    assert_int_equal(hist[0], 2);        /* channel 0: 256 and 299, both bin 0 */
    assert_int_equal(hist[bins + 0], 1); /* channel 1: 300 */
    assert_int_equal(hist[bins + (65534 - 256) / 100], 1);
    p.binning = (hist_binning){0, 65535, 65536}; /* one bin of everything */
    hist_reference(&p, samples, hist);
    assert_int_equal(hist[0], 4);
    assert_int_equal(hist[1], 4);
    free(hist);

    /* the parallel reference agrees on a large 16-bit dataset */
    hist_dataset d = {
        .problem = {.rows = 3 << 20, .channels = 2, .binning = {7, 60000, 3}, .bits = 16},
        .vmin = 0,
        .vmax = 65535,
        .dist = {HIST_DIST_CONTENTION, 50},
        .seed = 5};
    uint8_t *big = malloc((size_t)hist_input_bytes(&d.problem));
    const size_t counters = (size_t)hist_counters(&d.problem);
    uint32_t *one = malloc(counters * sizeof *one), *many = malloc(counters * sizeof *many);
    assert_int_equal(hist_generate(&d, big), HIST_OK);
    hist_reference(&d.problem, big, one);
    hist_reference_parallel(&d.problem, big, many);
    assert_memory_equal(one, many, counters * sizeof *one);
    free(big), free(one), free(many);
}

/* 16-bit problems: validated against the sample width; implementations that take bytes only are
   refused with their reason. */
static void test_u16_validate_and_refuse(void **state) {
    (void)state;
    hist_problem p = {.rows = 1, .channels = 1, .binning = {0, 65535, 1}, .bits = 16};
    assert_int_equal(hist_problem_validate(&p), HIST_OK);
    p.binning.width = 65536;
    assert_int_equal(hist_problem_validate(&p), HIST_OK);
    p.binning.width = 65537;
    expect_usage(hist_problem_validate(&p), "--width must be from 1 to 65536");
    p.bits = 8, p.binning = (hist_binning){0, 300, 1};
    expect_usage(hist_problem_validate(&p), "--hi 300 is past the largest 8-bit sample, 255");
    p.bits = 12, p.binning = (hist_binning){0, 255, 1};
    expect_usage(hist_problem_validate(&p), "--bits must be 8 or 16");
    const hist_impl bytes_only = {.name = "bytes_only", .where = HIST_HOST};
    const hist_impl both = {.name = "both", .where = HIST_HOST, .samples16 = 1};
    const hist_problem p8 = {.rows = 1, .channels = 1, .binning = {0, 255, 1}};
    const hist_problem p16 = {.rows = 1, .channels = 1, .binning = {0, 65535, 1}, .bits = 16};
    assert_null(hist_impl_unsupported(&bytes_only, &p8, NULL));
    assert_non_null(hist_impl_unsupported(&bytes_only, &p16, NULL));
    assert_non_null(strstr(hist_impl_unsupported(&bytes_only, &p16, NULL), "8-bit samples only"));
    assert_null(hist_impl_unsupported(&both, &p16, NULL));
}

/* A uint16 .npy (`<u2`) written and read back; read as bytes, or a byte file read as 16 bits,
   it is refused with the option that reads it. */
static void test_u16_npy(void **state) {
    (void)state;
    const uint8_t data[12] = {1, 0, 255, 0, 0, 1, 255, 255, 34, 18, 0, 128}; /* 1 255 256 ... */
    const char *path = tmp_path("u16.npy");
    hist_outfile o;
    assert_int_equal(hist_npy_stage_samples(&o, path, data, 2, 3, 16), HIST_OK);
    assert_int_equal(hist_outfile_commit(&o), HIST_OK);
    uint8_t *got = NULL;
    uint64_t rows = 0, channels = 0;
    assert_int_equal(hist_npy_read_samples(path, 16, &got, &rows, &channels), HIST_OK);
    assert_int_equal(rows, 2);
    assert_int_equal(channels, 3);
    assert_memory_equal(got, data, sizeof data);
    free(got);
    expect_usage(hist_npy_read_samples(path, 8, &got, &rows, &channels), "run with --bits 16");
    assert_int_equal(hist_npy_read_u8(path, &got, &rows, &channels), HIST_ERR_USAGE);
    const char *bytes = tmp_path("u8.npy");
    assert_int_equal(hist_npy_write_u8(bytes, data, 3, 4), HIST_OK);
    expect_usage(hist_npy_read_samples(bytes, 16, &got, &rows, &channels), "run with --bits 8");
}

/* --bits 16 takes the full 16-bit range, its bounds follow the sample width, and --bits with
   --input says which files it reads. */
static void test_cli_bits(void **state) {
    (void)state;
    hist_options o;
    assert_int_equal(PARSE(&o, "--bits", "16", "--rows", "9"), HIST_OK);
    assert_int_equal(hist_sample_bits(&o.data.problem), 16);
    assert_int_equal(hist_bins(o.data.problem.binning), 65536);
    assert_int_equal(o.data.vmax, 65535);
    assert_int_equal(PARSE(&o, "--bits", "16", "--lo", "1000", "--hi", "50000", "--width", "7",
                           "--values", "0:60000"),
                     HIST_OK);
    assert_int_equal(hist_bins(o.data.problem.binning), (50000 - 1000) / 7 + 1);
    assert_int_equal(o.data.vmax, 60000);
    assert_int_equal(PARSE(&o, "--preset", "u16"), HIST_OK);
    assert_int_equal(hist_sample_bits(&o.data.problem), 16);
    assert_int_equal(PARSE(&o, "--preset", "u16", "--bits", "8"), HIST_OK);
    assert_int_equal(hist_bins(o.data.problem.binning), 256);
    assert_int_equal(o.data.vmax, 255);
    expect_usage(PARSE(&o, "--bits", "12"), "--bits: 8 or 16");
    expect_usage(PARSE(&o, "--bits", "32"), "--bits");
    expect_usage(PARSE(&o, "--bits", "16", "--hi", "65536"),
                 "--hi: expected a whole number from 0 to 65535");
    expect_usage(PARSE(&o, "--bits", "16", "--width", "65537"), "--width");
    expect_usage(PARSE(&o, "--lo", "256"), "--lo: expected a whole number from 0 to 255");
    /* a program that counts bytes only (every one but the runner, until day 08) refuses them */
    const hist_program bytes_only = {.name = "bytes_only", .about = "a test program"};
    char *bits16[] = {"bytes_only", "--bits", "16", NULL},
         *u16[] = {"bytes_only", "--preset", "u16", NULL};
    expect_usage(hist_parse_program(&bytes_only, 3, bits16, &o), "counts 8-bit samples only");
    expect_usage(hist_parse_program(&bytes_only, 3, u16, &o), "counts 8-bit samples only");
}

/* ---- the graded timing's fresh inputs (fresh.h) ---- */

/* Each call's input, made on the host, is counted by the reference exactly as the sequence says;
   it differs from the previous call's, starts at an aligned place inside its buffer (the second
   call at the first one's), and the same seed gives the same calls. */
static void expect_fresh_calls_exact(const hist_dataset *d) {
    const hist_problem *p = &d->problem;
    const size_t bytes = (size_t)hist_input_bytes(p), counters = (size_t)hist_counters(p);
    uint8_t *base = malloc(bytes + 1), *previous = malloc(bytes + 1);
    uint32_t *counted = malloc(counters * sizeof *counted);
    assert_int_equal(hist_generate(d, base), HIST_OK);
    hist_fresh f, again;
    assert_int_equal(hist_fresh_init(&f, p, base, 99), HIST_OK);
    assert_int_equal(hist_fresh_init(&again, p, base, 99), HIST_OK);
    uint8_t *buffer = malloc(hist_fresh_buffer_bytes(&f));
    assert_non_null(buffer);
    size_t first_offset = 0;
    for (int call = 0; call < 6; ++call) {
        hist_fresh_next(&f);
        hist_fresh_next(&again);
        const size_t offset = hist_fresh_offset(&f);
        assert_int_equal(offset % HIST_FRESH_SLOT_BYTES, 0);
        assert_true(offset + bytes <= hist_fresh_buffer_bytes(&f));
        assert_true(f.rotate_rows < (p->rows > 0 ? p->rows : 1));
        if (call == 0)
            first_offset = offset;
        if (call == 1)
            assert_int_equal(offset, first_offset);
        hist_fresh_make(&f, buffer);
        hist_reference(p, buffer + offset, counted);
        assert_memory_equal(counted, f.expected, counters * sizeof *counted);
        assert_int_equal(hist_fresh_check(&f, "reference", counted), HIST_OK);
        assert_memory_equal(again.expected, f.expected, counters * sizeof *counted);
        assert_int_equal(again.rotate_rows, f.rotate_rows);
        if (call > 0 && bytes > 64) /* a new input: the same bytes would be a miracle */
            assert_true(memcmp(previous, buffer + offset, bytes) != 0);
        memcpy(previous, buffer + offset, bytes);
        counted[0] += 1; /* one counter off: named, with the call */
        assert_int_equal(hist_fresh_check(&f, "off_by_one", counted), HIST_ERR_MISMATCH);
        assert_non_null(strstr(hist_last_error(), "off_by_one: call "));
        assert_non_null(strstr(hist_last_error(), "channel 0, bin 0"));
    }
    hist_fresh_free(&f);
    hist_fresh_free(&again);
    free(base), free(buffer), free(previous), free(counted);
}

static void test_fresh_inputs_are_exact(void **state) {
    (void)state;
    const hist_dataset cases[] = {
        test_data(1000, 3, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 1),
        test_data(777, 65, (hist_binning){10, 200, 7}, (hist_dist){HIST_DIST_CONTENTION, 90}, 2),
        test_data(1, 1, (hist_binning){1, 100, 20}, (hist_dist){HIST_DIST_RUNS, 7}, 3),
        {.problem = {.rows = 5000, .channels = 2, .binning = {100, 60000, 1000}, .bits = 16},
         .vmin = 0,
         .vmax = 65535,
         .dist = {HIST_DIST_UNIFORM, 0},
         .seed = 4},
        {.problem = {.rows = 3000, .channels = 1, .binning = {0, 65535, 1}, .bits = 16},
         .vmin = 0,
         .vmax = 65535,
         .dist = {HIST_DIST_CONTENTION, 50},
         .seed = 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        expect_fresh_calls_exact(&cases[i]);
}

static hist_status fresh_reference(const hist_args *a) {
    hist_reference(a->problem, a->samples, a->hist);
    return HIST_OK;
}

/* A cheat: counts its first input only, then returns that answer (the test's own state). */
static uint32_t *kept_answer;
static hist_status fresh_cheat(const hist_args *a) {
    const size_t bytes = (size_t)hist_counters(a->problem) * sizeof(uint32_t);
    if (!kept_answer) {
        hist_reference(a->problem, a->samples, a->hist);
        kept_answer = malloc(bytes);
        memcpy(kept_answer, a->hist, bytes);
    }
    memcpy(a->hist, kept_answer, bytes);
    return HIST_OK;
}

/* The host timing on fresh inputs accepts the reference and catches a cheat on its second call. */
static void test_fresh_host_timing(void **state) {
    (void)state;
    const hist_dataset d =
        test_data(2048, 16, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 6);
    uint8_t *base = test_samples(&d);
    uint32_t *out = malloc((size_t)hist_counters(&d.problem) * sizeof *out);
    hist_fresh f;
    assert_int_equal(hist_fresh_init(&f, &d.problem, base, hist_fresh_seed()), HIST_OK);
    uint8_t *buffer = malloc(hist_fresh_buffer_bytes(&f));
    const hist_impl honest = {.name = "honest", .where = HIST_HOST, .run = fresh_reference},
                    cheat = {.name = "cheat", .where = HIST_HOST, .run = fresh_cheat};
    hist_stats t;
    assert_int_equal(hist_time_host_fresh(&honest, &f, buffer, out, 1, 2, 5, &t), HIST_OK);
    assert_int_equal(t.reps, 5);
    assert_int_equal(f.calls, 7);
    assert_int_equal(hist_time_host_fresh(&cheat, &f, buffer, out, 1, 2, 5, &t), HIST_ERR_MISMATCH);
    assert_non_null(strstr(hist_last_error(), "cheat: call 2 of the graded timing"));
    hist_fresh_free(&f);
    free(kept_answer);
    kept_answer = NULL;
    free(base), free(out), free(buffer);
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest prng[] = {
        cmocka_unit_test(test_splitmix64_known_values),
        cmocka_unit_test(test_generate_is_deterministic),
        cmocka_unit_test(test_uniform_covers_range_evenly),
        cmocka_unit_test(test_contention_share),
        cmocka_unit_test(test_constant_and_runs),
        cmocka_unit_test(test_dist_parse),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_small_binned_reproduces_seed_001),
    };
    const struct CMUnitTest reference[] = {
        cmocka_unit_test(test_reference_hand_computed),
        cmocka_unit_test(test_binning_edges),
        cmocka_unit_test(test_bin_map_is_exact_for_every_binning),
        cmocka_unit_test(test_reference_zero_rows),
        cmocka_unit_test(test_parallel_ranges_cover_once),
        cmocka_unit_test(test_parallel_generation_and_reference),
        cmocka_unit_test(test_generate_rows_is_a_slice),
        cmocka_unit_test(test_verify_reports_first_mismatches),
        cmocka_unit_test(test_problem_validate),
        cmocka_unit_test(test_exit_codes_and_stats),
    };
    const struct CMUnitTest npy[] = {
        cmocka_unit_test(test_npy_round_trip),
        cmocka_unit_test(test_npy_read_rows),
        cmocka_unit_test(test_npy_reads_numpy_variants),
        cmocka_unit_test(test_npy_malformed),
        cmocka_unit_test(test_npy_write_failure_leaves_nothing),
        cmocka_unit_test(test_npy_fuzz_corpus_replays),
    };
    const struct CMUnitTest cli[] = {
        cmocka_unit_test(test_gpu_limits_table),
        cmocka_unit_test(test_gpu_limits_only_lower),
        cmocka_unit_test(test_gpu_limits_pad_occupancy),
        cmocka_unit_test(test_cli_gpu_limits),
        cmocka_unit_test(test_cli_program_options),
        cmocka_unit_test(test_cli_defaults_and_overrides),
        cmocka_unit_test(test_cli_rejections),
        cmocka_unit_test(test_cli_output_folders),
        cmocka_unit_test(test_programs_refuse_bad_paths_first),
    };
    int failed = 0;
    failed +=
        cmocka_run_group_tests_name("harness: PRNG, distributions, presets", prng, NULL, NULL);
    failed +=
        cmocka_run_group_tests_name("harness: reference and verification", reference, NULL, NULL);
    failed += cmocka_run_group_tests_name("harness: .npy", npy, test_tmp_dir_setup,
                                          test_tmp_dir_teardown);
    failed += cmocka_run_group_tests_name("harness: command line", cli, NULL, NULL);
    const struct CMUnitTest samples16[] = {
        cmocka_unit_test(test_u16_presets),   cmocka_unit_test(test_u16_generate),
        cmocka_unit_test(test_u16_reference), cmocka_unit_test(test_u16_validate_and_refuse),
        cmocka_unit_test(test_u16_npy),       cmocka_unit_test(test_cli_bits),
    };
    failed += cmocka_run_group_tests_name("harness: 16-bit samples", samples16, test_tmp_dir_setup,
                                          test_tmp_dir_teardown);
    const struct CMUnitTest fresh[] = {
        cmocka_unit_test(test_fresh_inputs_are_exact),
        cmocka_unit_test(test_fresh_host_timing),
    };
    failed +=
        cmocka_run_group_tests_name("harness: the graded timing's fresh inputs", fresh, NULL, NULL);
    return failed ? 1 : 0;
}
