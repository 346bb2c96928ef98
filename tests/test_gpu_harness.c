/**
 * @file test_gpu_harness.c
 * @brief The harness's GPU parts: device detection, the read-only floor kernel, the
 *        shared-atomic ceiling, the event timer, emulated limits, and the refusal of problems too
 *        large for the device. Skipped cleanly without a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "gpu.h"
#include "gpu_limits.h"

static void test_device_detection_never_crashes(void **state) {
    (void)state;
    hist_device dev;
    hist_status s = hist_device_open(NULL, &dev);
    if (s == HIST_OK) {
        assert_true(dev.sm_count > 0);
        assert_true(dev.l2_bytes > 0);
        assert_true(dev.smem_per_block_optin >= 48 * 1024);
        assert_true(strlen(dev.name) > 0);
        print_message("device: %s, %d SMs, %zu MiB L2\n", dev.name, dev.sm_count,
                      dev.l2_bytes >> 20);
    } else {
        assert_int_equal(s, HIST_ERR_NO_DEVICE);
        assert_non_null(strstr(hist_last_error(), HIST_NO_GPU));
        print_message("no device: %s\n", hist_last_error());
    }
}

/* XOR of the bytes as little-endian 32-bit words, zero-padded: what the floor kernel computes. */
static uint32_t host_checksum(const uint8_t *data, uint64_t n) {
    uint32_t x = 0;
    for (uint64_t i = 0; i < n; ++i)
        x ^= (uint32_t)data[i] << (8 * (i % 4));
    return x;
}

static void test_floor_reads_every_byte(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    static const struct {
        uint64_t rows;
        uint32_t channels;
    } shapes[] = {{0, 1}, {1, 1}, {1, 15}, {1, 16}, {1, 17}, {1000, 3}, {1 << 20, 7}, {4099, 513}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        hist_dataset d = test_data(shapes[i].rows, shapes[i].channels, (hist_binning){0, 255, 1},
                                   (hist_dist){HIST_DIST_UNIFORM, 0}, 77 + i);
        uint8_t *samples = test_samples(&d);
        hist_gpu *g = NULL;
        assert_int_equal(hist_gpu_create(&g, dev, &d.problem, samples, 0), HIST_OK);
        uint32_t got = 0;
        assert_int_equal(hist_gpu_floor_checksum(g, &got), HIST_OK);
        assert_int_equal(got, host_checksum(samples, hist_samples(&d.problem)));
        hist_gpu_destroy(g);
        free(samples);
    }
}

static void test_floor_timing(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    hist_dataset d =
        test_data(1 << 16, 512, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, 5);
    uint8_t *samples = test_samples(&d);
    hist_gpu *g = NULL;
    assert_int_equal(hist_gpu_create(&g, dev, &d.problem, samples, 0), HIST_OK);
    hist_stats s;
    assert_int_equal(hist_gpu_time_floor(g, 1, 5, &s), HIST_OK);
    assert_int_equal(s.reps, 5);
    assert_true(s.min_us > 0.0 && s.min_us <= s.median_us);
    assert_true(s.median_us < 100000.0);
    /* the same read on a clean L2 is no slower than after a dirtying flush (10% for noise) */
    hist_stats clean;
    assert_int_equal(hist_gpu_time_floor_clean(g, 1, 5, &clean), HIST_OK);
    assert_int_equal(clean.reps, 5);
    assert_true(clean.min_us > 0.0 && clean.median_us <= s.median_us * 1.10);
    print_message("floor %.1f us flushed by a write, %.1f us on a clean L2 (%llu bytes)\n",
                  s.median_us, clean.median_us, (unsigned long long)hist_samples(&d.problem));
    hist_gpu_destroy(g);
    free(samples);
}

static void test_event_timer_measures_device_time(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    double elapsed = 0.0;
    assert_int_equal(hist_gpu_time_spin(dev, 2000.0, &elapsed), HIST_OK);
    assert_true(elapsed >= 1900.0 && elapsed < 50000.0);
    assert_int_equal(hist_gpu_time_spin(dev, 200.0, &elapsed), HIST_OK);
    assert_true(elapsed >= 190.0 && elapsed < 1900.0);
}

static void test_too_large_problem_is_refused(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    /* 2 TiB of samples: refused before any allocation, saying how much is needed */
    hist_problem p = {HIST_MAX_ROWS, 512, {0, 255, 1}, 8};
    uint8_t dummy[16] = {0};
    hist_gpu *g = (hist_gpu *)dummy;
    assert_int_equal(hist_gpu_create(&g, dev, &p, dummy, 0), HIST_ERR_NOMEM);
    assert_null(g);
    assert_non_null(strstr(hist_last_error(), "GiB of device memory"));
}

/* The second roof counts every add it is timed for: one per sample, whatever the shape. */
static void test_atomic_ceiling_counts_every_add(void **state) {
    (void)state;
    const hist_device *dev;
    TEST_REQUIRE_GPU(dev);
    static const struct {
        uint64_t rows;
        uint32_t channels;
    } shapes[] = {{1, 1}, {1000, 3}, {1 << 16, 512}, {1048577, 13}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        hist_dataset d = test_data(shapes[i].rows, shapes[i].channels, (hist_binning){0, 255, 1},
                                   (hist_dist){HIST_DIST_UNIFORM, 0}, 5 + i);
        uint8_t *samples = test_samples(&d);
        hist_gpu *g = NULL;
        assert_int_equal(hist_gpu_create(&g, dev, &d.problem, samples, 0), HIST_OK);
        hist_stats t;
        uint64_t counted = 0;
        assert_int_equal(hist_gpu_time_atomic_ceiling(g, 1, 3, &t, &counted), HIST_OK);
        assert_int_equal(counted, hist_samples(&d.problem));
        assert_true(t.median_us > 0);
        hist_gpu_destroy(g);
        free(samples);
    }
}

/* --gpu-limits: the device the harness reports is capped, and says so in its name. */
static void test_emulated_device(void **state) {
    (void)state;
    const hist_device *real;
    TEST_REQUIRE_GPU(real);
    hist_emulation t4;
    assert_int_equal(hist_emulation_named("test", "t4", 0, &t4), HIST_OK);
    hist_device dev;
    const hist_status s = hist_device_open(&t4, &dev);
    if (real->real_smem_per_sm < 65536) { /* a GPU smaller than a T4 cannot be one */
        assert_int_equal(s, HIST_ERR_USAGE);
        return;
    }
    assert_int_equal(s, HIST_OK);
    assert_string_equal(dev.limited_to, "t4");
    assert_non_null(strstr(dev.name, "limited to t4"));
    assert_true(dev.sm_count <= 40);
    assert_int_equal(dev.smem_per_block_optin, 65536);
    assert_int_equal(dev.cc_major, 7);
    assert_int_equal(dev.real_l2_bytes, real->real_l2_bytes);
    assert_ptr_equal(dev.emulation.limits, t4.limits); /* the device carries its limits */
    print_message("emulated: %s, %d SMs\n", dev.name, dev.sm_count);
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_detection_never_crashes),
        cmocka_unit_test(test_floor_reads_every_byte),
        cmocka_unit_test(test_floor_timing),
        cmocka_unit_test(test_event_timer_measures_device_time),
        cmocka_unit_test(test_too_large_problem_is_refused),
        cmocka_unit_test(test_atomic_ceiling_counts_every_add),
        cmocka_unit_test(test_emulated_device),
    };
    return cmocka_run_group_tests_name("harness: GPU parts", tests, NULL, NULL);
}
