/**
 * @file test_properties.c
 * @brief Property-style test of every implementation of the course: random shapes, binnings and
 *        data drawn from a seed, plus the extremes, each compared exactly with the reference.
 *
 * Every case is drawn from `HIST_PROPERTY_SEED` (default below) and its index, so a failure names
 * its seed and case and `HIST_PROPERTY_SEED=S HIST_PROPERTY_CASE=K build/test_properties` replays
 * exactly that case. `HIST_PROPERTY_CASES` sets how many cases run; a quarter as many 16-bit
 * cases follow (day 08: `HIST_PROPERTY_CASE16=K` replays one). Host implementations always
 * run; GPU implementations run when there is a device (the test says so when there is none).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "test_util.h"

/** @brief Every lesson folder and its registry (build/CONFIG/registry.c, generated). */
extern const hist_lesson course_lessons[];
/** @brief How many lessons. */
extern const size_t course_lesson_count;

/** @brief The seed when HIST_PROPERTY_SEED is not set. */
#define DEFAULT_SEED UINT64_C(20261122)
/** @brief Cases when HIST_PROPERTY_CASES is not set. */
#define DEFAULT_CASES 48
/** @brief The most samples one case may have (keeps the test to seconds per case); without a GPU,
 *  TEST_QUICK_SAMPLES unless SLOW=1. */
#define MAX_SAMPLES (UINT64_C(48) << 20)

/** @brief The kinds of data a case can have beyond the distributions of data.h. */
typedef enum extreme {
    DATA_DISTRIBUTION, /**< one of uniform, contention:P, constant, runs:L */
    DATA_ALL_ZERO,     /**< every sample 0 */
    DATA_ALL_255,      /**< every sample 255 */
    DATA_ALTERNATING,  /**< 0, 255, 0, 255, ... in row-major order */
    DATA_ONE_HOT,      /**< channel c always has the same value, a hash of c */
    DATA_OUTSIDE,      /**< every value outside [lo, hi] (nothing counted) */
    DATA_KINDS
} extreme;

static const char *const kind_names[] = {
    "distribution",        "all 0", "all 255", "alternating 0/255", "one hot bin per channel",
    "all outside [lo, hi]"};

static uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : fallback;
}

/* A number in [0, n) from the case's stream. */
static uint64_t draw(uint64_t seed, uint64_t *counter, uint64_t n) {
    return n ? hist_splitmix64(seed, (*counter)++) % n : 0;
}

/* Log-uniform in [lo, hi]: small values as likely as large ones. */
static uint64_t draw_log(uint64_t seed, uint64_t *counter, uint64_t lo, uint64_t hi) {
    const uint64_t u = hist_splitmix64(seed, (*counter)++);
    double f = (double)(u >> 11) / 9007199254740992.0; /* [0, 1) */
    double x = (double)lo * pow((double)hi / (double)lo, f);
    uint64_t v = (uint64_t)x;
    return v < lo ? lo : v > hi ? hi : v;
}

/* A distribution from the case's stream: uniform, contention:P, constant or runs:L. */
static hist_dist draw_dist(uint64_t seed, uint64_t *counter) {
    static const hist_dist_kind dists[] = {HIST_DIST_UNIFORM, HIST_DIST_CONTENTION,
                                           HIST_DIST_CONSTANT, HIST_DIST_RUNS};
    hist_dist d = {dists[draw(seed, counter, 4)], 0};
    if (d.kind == HIST_DIST_CONTENTION)
        d.param = (uint32_t)draw(seed, counter, 101);
    else if (d.kind == HIST_DIST_RUNS)
        d.param = (uint32_t)draw_log(seed, counter, 1, 100000);
    return d;
}

static void run_case(uint64_t seed, uint64_t index, uint64_t max_samples,
                     const hist_impl *const *impls, size_t count, const hist_device *dev,
                     int *ran) {
    const uint64_t case_seed = hist_splitmix64(seed, index);
    uint64_t k = 0;
    hist_problem p;
    /* channels 1..4096, often rounded so that 4- and 16-channel kernels take part */
    uint32_t channels = (uint32_t)draw_log(case_seed, &k, 1, 4096);
    switch (draw(case_seed, &k, 3)) {
    case 0:
        channels = (channels + 15) / 16 * 16;
        break;
    case 1:
        channels = (channels + 3) / 4 * 4;
        break;
    default:
        break;
    }
    p.channels = channels;
    /* rows 0..3,000,000, with 0 and 1 now and then, capped by max_samples */
    uint64_t rows =
        draw(case_seed, &k, 10) == 0 ? draw(case_seed, &k, 2) : draw_log(case_seed, &k, 1, 3000000);
    if (rows * channels > max_samples)
        rows = max_samples / channels;
    p.rows = rows;
    /* half the cases the byte histogram, the others a random binning */
    if (draw(case_seed, &k, 2) == 0) {
        p.binning = (hist_binning){0, 255, 1};
    } else {
        uint8_t a = (uint8_t)draw(case_seed, &k, 256), b = (uint8_t)draw(case_seed, &k, 256);
        p.binning =
            (hist_binning){a < b ? a : b, a < b ? b : a, (uint32_t)draw_log(case_seed, &k, 1, 256)};
    }
    const extreme kind = (extreme)draw(case_seed, &k, DATA_KINDS);

    hist_dataset d =
        test_data(rows, channels, p.binning, (hist_dist){HIST_DIST_UNIFORM, 0}, case_seed);
    char what[160];
    if (kind == DATA_DISTRIBUTION)
        d.dist = draw_dist(case_seed, &k);
    uint8_t *samples = test_samples(&d);
    const uint64_t n = hist_samples(&p);
    switch (kind) {
    case DATA_ALL_ZERO:
        memset(samples, 0, n);
        break;
    case DATA_ALL_255:
        memset(samples, 255, n);
        break;
    case DATA_ALTERNATING:
        for (uint64_t i = 0; i < n; ++i)
            samples[i] = (i & 1) ? 255 : 0;
        break;
    case DATA_ONE_HOT:
        for (uint64_t i = 0; i < n; ++i)
            samples[i] = (uint8_t)hist_splitmix64(case_seed, i % channels);
        break;
    case DATA_OUTSIDE:
        if (p.binning.lo == 0 && p.binning.hi == 255)
            p.binning.lo = 1; /* make room below */
        for (uint64_t i = 0; i < n; ++i)
            samples[i] = p.binning.lo > 0 ? (uint8_t)(i % p.binning.lo)
                                          : (uint8_t)(p.binning.hi + 1 + i % (255 - p.binning.hi));
        break;
    default:
        break;
    }
    char dist[32];
    hist_dist_format(d.dist, dist, sizeof dist);
    snprintf(what, sizeof what, "%s%s%s; replay: HIST_PROPERTY_SEED=%llu HIST_PROPERTY_CASE=%llu",
             kind_names[kind], kind == DATA_DISTRIBUTION ? " " : "",
             kind == DATA_DISTRIBUTION ? dist : "", (unsigned long long)seed,
             (unsigned long long)index);
    test_exact_samples(impls, count, dev, &p, samples, 2, NULL, what, ran);
    free(samples);
}

/* Sample i of a 16-bit input set to @p v (little-endian). */
static void put16(uint8_t *samples, uint64_t i, uint32_t v) {
    samples[2 * i] = (uint8_t)(v & 0xFF);
    samples[2 * i + 1] = (uint8_t)(v >> 8);
}

/* One 16-bit case (day 08): fewer channels (up to 64, each up to 65,536 bins), the binning the
   whole range half the time, the same kinds of data with 65,535 for 255. Drawn from its own
   stream, so that the byte cases stay as they were. Case 0 is one channel and case 1 eight, both
   of the whole range, so that every 16-bit entry meets a case it takes. */
static void run_case16(uint64_t seed, uint64_t index, uint64_t max_samples,
                       const hist_impl *const *impls, size_t count, const hist_device *dev,
                       int *ran) {
    const uint64_t case_seed = hist_splitmix64(seed ^ UINT64_C(0x16), index);
    uint64_t k = 0;
    const uint32_t drawn = (uint32_t)draw_log(case_seed, &k, 1, 64);
    const uint32_t channels = index == 1 ? 8 : drawn; /* the second: u16x8's shape (step 5b's) */
    uint64_t rows =
        draw(case_seed, &k, 10) == 0 ? draw(case_seed, &k, 2) : draw_log(case_seed, &k, 1, 3000000);
    if (rows * channels > max_samples / 4)
        rows = max_samples / 4 / channels;
    hist_binning b = {0, 65535, 1};
    if (draw(case_seed, &k, 2) != 0) {
        const uint32_t x = (uint32_t)draw(case_seed, &k, 65536),
                       y = (uint32_t)draw(case_seed, &k, 65536);
        b.lo = x < y ? x : y;
        b.hi = x < y ? y : x;
        b.width = (uint32_t)draw_log(case_seed, &k, 1, b.hi - b.lo + 1);
    }
    const extreme kind = (extreme)draw(case_seed, &k, DATA_KINDS);
    if (index <= 1) /* the first: one channel of the whole range, which every 16-bit entry takes;
                       the second: 8 channels of it, which step 5b's exchange takes */
        b = (hist_binning){0, 65535, 1};
    hist_dataset d =
        test_data(rows, index == 0 ? 1 : channels, b, (hist_dist){HIST_DIST_UNIFORM, 0}, case_seed);
    d.problem.bits = 16;
    d.vmax = 65535;
    if (kind == DATA_DISTRIBUTION)
        d.dist = draw_dist(case_seed, &k);
    hist_problem p = d.problem;
    uint8_t *samples = test_samples(&d);
    const uint64_t n = hist_samples(&p);
    for (uint64_t i = 0; i < n && kind != DATA_DISTRIBUTION; ++i) {
        uint32_t v = 0;
        const uint32_t channels = p.channels;
        if (kind == DATA_ALL_255)
            v = 65535;
        else if (kind == DATA_ALTERNATING)
            v = (i & 1) ? 65535 : 0;
        else if (kind == DATA_ONE_HOT)
            v = (uint32_t)(hist_splitmix64(case_seed, i % channels) & 0xFFFF);
        else if (kind == DATA_OUTSIDE) {
            if (p.binning.lo == 0 && p.binning.hi == 65535)
                p.binning.lo = 1; /* make room below */
            v = p.binning.lo > 0 ? (uint32_t)(i % p.binning.lo)
                                 : p.binning.hi + 1 + (uint32_t)(i % (65535 - p.binning.hi));
        }
        put16(samples, i, v);
    }
    char what[160], dist[32];
    hist_dist_format(d.dist, dist, sizeof dist);
    snprintf(what, sizeof what,
             "16-bit %s%s%s; replay: HIST_PROPERTY_SEED=%llu HIST_PROPERTY_CASE16=%llu",
             kind_names[kind], kind == DATA_DISTRIBUTION ? " " : "",
             kind == DATA_DISTRIBUTION ? dist : "", (unsigned long long)seed,
             (unsigned long long)index);
    test_exact_samples(impls, count, dev, &p, samples, 2, NULL, what, ran);
    free(samples);
}

static void test_random_cases_and_extremes(void **state) {
    (void)state;
    const uint64_t seed = env_u64("HIST_PROPERTY_SEED", DEFAULT_SEED);
    const uint64_t cases = env_u64("HIST_PROPERTY_CASES", DEFAULT_CASES);
    const char *only = getenv("HIST_PROPERTY_CASE");
    const char *only16 = getenv("HIST_PROPERTY_CASE16");
    const hist_device *dev = test_gpu();
    /* without a GPU, only the CPU implementations run the cases: smaller ones unless SLOW=1 */
    const uint64_t max_samples = dev || test_slow() ? MAX_SAMPLES : TEST_QUICK_SAMPLES;
    size_t count = 0;
    for (size_t l = 0; l < course_lesson_count; ++l)
        count += *course_lessons[l].impl_count;
    const hist_impl **impls = calloc(count, sizeof *impls);
    int *ran = test_counts(count);
    assert_non_null(impls);
    count = 0;
    for (size_t l = 0; l < course_lesson_count; ++l)
        for (size_t i = 0; i < *course_lessons[l].impl_count; ++i) {
            const hist_impl *impl = &course_lessons[l].impls[i];
            const char *todo = hist_not_written(impl);
            if (todo) /* the student edition: its lesson's tests fail on it by name */
                print_message("  %-24s left out: %s\n", impl->name, todo);
            else
                impls[count++] = impl;
        }
    if (!dev && test_gpu_required())
        fail_msg("REQUIRE_GPU=1 but no GPU: %s", test_gpu_reason());
    print_message("seed %llu, %llu cases of at most %llu samples, %zu implementations%s\n",
                  (unsigned long long)seed, (unsigned long long)(only ? 1 : cases),
                  (unsigned long long)max_samples, count,
                  dev ? "" : " (GPU ones skipped: no device)");
    if (only || only16) {
        if (only)
            run_case(seed, strtoull(only, NULL, 10), max_samples, impls, count, dev, ran);
        if (only16)
            run_case16(seed, strtoull(only16, NULL, 10), max_samples, impls, count, dev, ran);
    } else {
        for (uint64_t c = 0; c < cases; ++c)
            run_case(seed, c, max_samples, impls, count, dev, ran);
        /* and a quarter as many 16-bit ones, at least the first two (one and eight channels) */
        const uint64_t cases16 = cases == 0 ? 0 : (cases + 3) / 4 < 2 ? 2 : (cases + 3) / 4;
        for (uint64_t c = 0; c < cases16; ++c)
            run_case16(seed, c, max_samples, impls, count, dev, ran);
        /* every runnable implementation met at least some cases */
        for (size_t i = 0; i < count; ++i) {
            const char *not_here = test_not_on_gpu(impls[i], dev);
            if (impls[i]->where != HIST_HOST && !dev)
                print_message("  %-24s skipped: no GPU\n", impls[i]->name);
            else if (not_here) /* a declared refusal of this GPU (an emulated T4, say) */
                print_message("  %-24s skipped: not on this GPU: %s\n", impls[i]->name, not_here);
            else
                print_message("  %-24s exact on %d case%s\n", impls[i]->name, ran[i],
                              ran[i] == 1 ? "" : "s");
            if ((impls[i]->where == HIST_HOST || dev) && !not_here && ran[i] == 0)
                fail_msg("%s: 0 cases checked", impls[i]->name);
        }
    }
    free(ran);
    free(impls);
}

/**
 * @brief Runs the property test.
 * @return 0 when every test passed
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_cases_and_extremes),
    };
    return cmocka_run_group_tests_name("course: random shapes, binnings and extremes", tests, NULL,
                                       NULL);
}
