/**
 * @file test_lesson.c
 * @brief The generic tests of one lesson, built once per lesson folder (`HIST_LESSON=dayNN`), and
 *        the grade `make grade` adds up. The same tests judge the solution (instructor edition)
 *        and the student's code (student edition).
 *
 *  - its registry keeps the contract;
 *  - one test per implementation: written (no `TODO(student)` block left that it needs) and exact,
 *    within its declared constraints, on the shape matrix (rows 0, 1, 7, 1000, 65537; channels 1,
 *    3, 4, 63, 64, 65, 512, 513; uniform, contention:90, constant and runs:7 data; three
 *    binnings) and on both presets (main under uniform, constant, contention:90, runs:1000;
 *    small-binned) and on counts no small counter holds (constant data, 1 channel x 2^28 rows
 *    and 16 x (2^24 + 7): past 2^24 in one counter, past 65,535 in one block's). A failure names
 *    the first case that differs and prints its first differences;
 *  - performance on the main preset (16-bit implementations: on u16, its 512 MiB as one channel
 *    of 16-bit samples): each exact implementation's median time against its roof
 *    measured in the same run (hist_impl::roof: the bound max(read-only floor, shared-atomic
 *    ceiling), or the ceiling alone; a host one: its speed-up over cpu_reference per thread), and
 *    its target (hist_impl::target), so that a target holds at the same share on any GPU. Reported,
 *    not failed on: timings are noisy; `make grade` turns them into points. Every call, warm-up
 *    and timed, gets a fresh input the implementation cannot predict (common/fresh.h: the preset's
 *    values renamed, its rows rotated, at another address; made outside the timed interval) and
 *    its output is checked exactly; an implementation whose output on one of them is wrong (one
 *    that keeps an answer across calls, skips work, or depends on its input's address) fails the
 *    test and is graded wrong ("timed-wrong": no points).
 *
 * GPU implementations skip without a GPU (fail with REQUIRE_GPU=1). With HIST_GRADES set (make
 * test sets it), the verdicts go to `$HIST_GRADES/LESSON.tsv` for tools/student/grade.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fresh.h"
#include "gpu.h"
#include "reference.h"
#include "report.h"
#include "runner.h"
#include "test_util.h"

static const hist_lesson lesson = {HIST_LESSON_FOLDER, LESSON_IMPLS, &LESSON_IMPL_COUNT};

/** @brief What the grade file records of one implementation. */
typedef struct grade {
    const char *status; /**< "exact", "wrong", "timed-wrong" (exact on the tests' cases, wrong on
                             a call of the graded timing), "not-written", "no-gpu", "not-built" (a
                             dependency missing at build time), "not-on-gpu" (it refuses this GPU,
                             e.g. an emulated T4) or "-" (not tested) */
    int cases;          /**< cases it was exact on */
    double measured;    /**< share of its roof (device) or speed-up per thread (host); 0: none */
} grade;

static grade *grades;
static test_verdict *verdicts;
static int checked;
static size_t *indices;
static int timed_wrong; /* implementations whose output on a call of the graded timing was wrong */

static int has_device_impls(void) {
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        if (LESSON_IMPLS[i].where != HIST_HOST)
            return 1;
    return 0;
}

/* One pass over the shape matrix and the presets for every implementation of the lesson. */
static void check_once(void) {
    if (checked)
        return;
    checked = 1;
    const hist_impl **list = calloc(LESSON_IMPL_COUNT, sizeof *list);
    assert_non_null(list);
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        list[i] = &LESSON_IMPLS[i];
    test_check_registry(list, LESSON_IMPL_COUNT, has_device_impls() ? test_gpu() : NULL,
                        &TEST_MATRIX_DEFAULT, verdicts);
    free(list);
}

static void test_registry_keeps_the_contract(void **state) {
    (void)state;
    if (hist_check_lessons(&lesson, 1) != HIST_OK)
        fail_msg("%s", hist_last_error());
    /* the lesson's program lists every entry */
    char out[16384], err[1024];
    char *argv[] = {LESSON_BIN, "--list", NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 0);
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        assert_non_null(strstr(out, LESSON_IMPLS[i].name));
}

/* One implementation: written, then exact on every case it accepts, and at least one case. */
static void test_written_and_exact(void **state) {
    const size_t i = *(const size_t *)*state;
    const hist_impl *impl = &LESSON_IMPLS[i];
    const char *todo = hist_not_written(impl);
    if (todo) {
        grades[i].status = "not-written";
        fail_msg("%s: %s (delete the TODO(student) lines once your code is in)", impl->name, todo);
    }
    if (impl->where != HIST_HOST && !test_gpu()) {
        grades[i].status = "no-gpu";
        const hist_device *dev;
        TEST_REQUIRE_GPU(dev);
        (void)dev;
    }
    hist_dataset main_preset;
    assert_int_equal(hist_preset("main", &main_preset), HIST_OK);
    const char *why =
        impl->unsupported ? impl->unsupported(&main_preset.problem, test_gpu()) : NULL;
    if (why && strncmp(why, HIST_NOT_BUILT, strlen(HIST_NOT_BUILT)) == 0) {
        grades[i].status = "not-built";
        if (test_gpu_required())
            fail_msg("REQUIRE_GPU=1 but %s was %s", impl->name, why);
        print_message("skipped: %s: %s\n", impl->name, why);
        skip();
    }
    const char *not_here = test_not_on_gpu(impl, test_gpu());
    if (not_here) { /* a declared refusal of this GPU: the reason, then a skip */
        grades[i].status = "not-on-gpu";
        print_message("skipped: %s on %s: %s\n", impl->name, test_gpu()->name, not_here);
        skip();
    }
    check_once();
    grades[i].cases = verdicts[i].cases;
    grades[i].status = verdicts[i].failed ? "wrong" : "exact";
    if (verdicts[i].failed)
        fail_msg("%s", verdicts[i].why);
    if (verdicts[i].cases == 0) {
        grades[i].status = "wrong";
        fail_msg("%s ran no case of the shape matrix or the presets: its constraints refuse them "
                 "all",
                 impl->name);
    }
    print_message("%-24s exact on %d case%s (shape matrix, adversarial data, both presets)\n",
                  impl->name, verdicts[i].cases, verdicts[i].cases == 1 ? "" : "s");
}

static void report_time(const hist_impl *impl, double median_us, double measured,
                        const char *of_what) {
    char target[96] = "not graded";
    if (impl->target > 0)
        snprintf(target, sizeof target, "target %.3g%s: %s", impl->target * 100.0,
                 impl->where == HIST_HOST ? "% per thread" : "%",
                 measured >= impl->target ? "met" : "NOT met");
    print_message("%-24s %10.1f us  %6.1f%% %s  %s\n", impl->name, median_us, 100.0 * measured,
                  of_what, target);
}

/* Whether a graded timing (on fresh inputs) found implementation @p i's output wrong on a call:
   then it is reported and graded wrong, and the performance test fails once all are timed. */
static int wrong_when_timed(size_t i, hist_status s) {
    if (s != HIST_ERR_MISMATCH) {
        if (s != HIST_OK)
            fail_msg("%s", hist_last_error());
        return 0;
    }
    grades[i].status = "timed-wrong";
    grades[i].measured = 0.0;
    timed_wrong++;
    print_message("%-24s NOT EXACT on a call of the graded timing: graded wrong, no points\n  %s\n",
                  LESSON_IMPLS[i].name, hist_last_error());
    return 1;
}

/* Host-input implementations (end to end, from host memory), each against the pinned-copy floor
   timed alternately with it, on fresh inputs (hist_time_host_input_fresh()). */
static void time_host_input(const hist_device *dev, hist_fresh *fresh, uint32_t *out, int warmup,
                            int reps) {
    const hist_problem *p = &fresh->problem;
    const size_t bytes = hist_fresh_buffer_bytes(fresh);
    void *pinned = NULL;      /* the pinned implementations' inputs, and what the floor copies */
    uint8_t *pageable = NULL; /* the pageable implementations' input */
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
        const hist_impl *impl = &LESSON_IMPLS[i];
        if (!hist_takes_host_input(impl->where) || verdicts[i].failed || verdicts[i].cases == 0 ||
            hist_impl_unsupported(impl, p, dev))
            continue;
        if (!pinned)
            assert_int_equal(hist_host_pinned_alloc(&pinned, bytes), HIST_OK);
        if (impl->where == HIST_HOST_INPUT && !pageable) {
            pageable = malloc(bytes);
            assert_non_null(pageable);
        }
        hist_stats t, floor;
        uint8_t *buffer = impl->where == HIST_PINNED_INPUT ? pinned : pageable;
        if (wrong_when_timed(i, hist_time_host_input_fresh(impl, dev, fresh, buffer, pinned, out,
                                                           warmup, reps, &t, &floor)))
            continue;
        grades[i].measured = floor.median_us / t.median_us;
        char of_what[96];
        snprintf(of_what, sizeof of_what, "of the speed of a pinned copy (%.1f us, alternately)",
                 floor.median_us);
        report_time(impl, t.median_us, grades[i].measured, of_what);
    }
    free(pageable);
    hist_host_pinned_free(pinned);
}

/* Whether a device implementation that was exact takes problem @p p here. */
static int timed_on(size_t i, const hist_device *dev, const hist_problem *p) {
    const hist_impl *impl = &LESSON_IMPLS[i];
    return impl->where == HIST_DEVICE && !verdicts[i].failed && verdicts[i].cases > 0 &&
           !hist_impl_unsupported(impl, p, dev);
}

static int times_any(const hist_device *dev, const hist_problem *p) {
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        if (timed_on(i, dev, p))
            return 1;
    return 0;
}

/* The device implementations that take the problem of @p fresh: the roofs (on its base input),
   then each against its own, on fresh inputs. */
static void time_device(const hist_device *dev, hist_fresh *fresh, uint32_t *out, int warmup,
                        int reps) {
    const hist_problem *p = &fresh->problem;
    if (!times_any(dev, p))
        return;
    size_t workspace = 0;
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
        const hist_impl *impl = &LESSON_IMPLS[i];
        if (timed_on(i, dev, p) && impl->workspace_bytes &&
            impl->workspace_bytes(p, dev) > workspace)
            workspace = impl->workspace_bytes(p, dev);
    }
    hist_gpu *g = NULL;
    assert_int_equal(hist_gpu_create(&g, dev, p, fresh->base, workspace), HIST_OK);
    hist_roofs roofs;
    memset(&roofs, 0, sizeof roofs);
    assert_int_equal(hist_gpu_time_floor(g, warmup, reps, &roofs.floor), HIST_OK);
    assert_int_equal(hist_gpu_time_atomic_ceiling(g, warmup, reps, &roofs.ceiling, NULL), HIST_OK);
    print_message("%-24s %10.1f us  (read-only floor of %s on %s, median of %d)\n", "floor",
                  roofs.floor.median_us, hist_sample_bits(p) == 16 ? "u16" : "main", dev->name,
                  reps);
    print_message("%-24s %10.1f us  (shared-atomic ceiling: a conflict-free add per sample)\n",
                  "atomic ceiling", roofs.ceiling.median_us);
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
        const hist_impl *impl = &LESSON_IMPLS[i];
        if (!timed_on(i, dev, p))
            continue;
        hist_stats t;
        if (wrong_when_timed(i, hist_gpu_time_impl_fresh(g, impl, fresh, warmup, reps, &t, out)))
            continue;
        grades[i].measured = hist_roof_us(&roofs, impl->roof) / t.median_us;
        report_time(impl, t.median_us, grades[i].measured,
                    impl->roof == HIST_ROOF_ATOMICS ? "of the atomic ceiling's speed"
                                                    : "of the bound's speed");
    }
    hist_gpu_destroy(g);
}

/* Host implementations: speed-up over cpu_reference per thread, both timed here (the reference
   on the base input, the others on fresh inputs). */
static void time_host(hist_fresh *fresh, uint32_t *out) {
    const hist_problem *p = &fresh->problem;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int threads = cores > 0 ? (int)cores : 1;
    double reference_us = 0.0;
    uint8_t *buffer = NULL; /* where each call's input is made */
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
        const hist_impl *impl = &LESSON_IMPLS[i];
        if (impl->where != HIST_HOST || verdicts[i].failed || verdicts[i].cases == 0)
            continue;
        if (reference_us == 0.0) {
            double t[3];
            for (int k = 0; k < 3; ++k) {
                const double t0 = hist_now_us();
                hist_reference(p, fresh->base, out);
                t[k] = hist_now_us() - t0;
            }
            reference_us = hist_stats_of(t, 3).median_us;
            print_message("%-24s %10.1f us  (the reference loop, 1 thread)\n", "cpu_reference",
                          reference_us);
        }
        if (strcmp(impl->name, "cpu_reference") == 0)
            continue; /* just timed: the yardstick of the others */
        if (!buffer) {
            buffer = malloc(hist_fresh_buffer_bytes(fresh));
            assert_non_null(buffer);
        }
        hist_stats t;
        if (wrong_when_timed(i, hist_time_host_fresh(impl, fresh, buffer, out, threads, 1, 3, &t)))
            continue;
        grades[i].measured = reference_us / t.median_us / threads;
        char of_what[64];
        snprintf(of_what, sizeof of_what, "of cpu_reference's speed per thread (%d threads)",
                 threads);
        report_time(impl, t.median_us, grades[i].measured, of_what);
    }
    free(buffer);
}

/* The GPU's implementations: device ones and host-input ones on the main preset (@p fresh),
   16-bit ones on u16 (the main preset's bytes as 16-bit samples). */
static void time_on_gpu(const hist_device *dev, hist_fresh *fresh, uint32_t *out) {
    const int warmup = 2, reps = 10;
    time_device(dev, fresh, out, warmup, reps);
    time_host_input(dev, fresh, out, warmup, reps);
    hist_dataset d16;
    assert_int_equal(hist_preset("u16", &d16), HIST_OK);
    if (!times_any(dev, &d16.problem))
        return;
    uint8_t *samples16 = test_samples(&d16);
    uint32_t *out16 = malloc((size_t)hist_counters(&d16.problem) * sizeof(uint32_t));
    assert_non_null(out16);
    hist_fresh fresh16;
    assert_int_equal(hist_fresh_init(&fresh16, &d16.problem, samples16, hist_fresh_seed()),
                     HIST_OK);
    time_device(dev, &fresh16, out16, warmup, reps);
    hist_fresh_free(&fresh16);
    free(samples16);
    free(out16);
}

/* Performance on the main preset, uniform data: every exact implementation in one run, each call
   on a fresh input and checked (common/fresh.h). */
static void test_performance(void **state) {
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
    print_message("skipped: timings under the sanitizers mean nothing\n");
    skip();
#endif
    int host_impls = 0;
    for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i)
        host_impls += LESSON_IMPLS[i].where == HIST_HOST;
    if (!host_impls) { /* nothing to time without a GPU: skip before generating 512 MiB */
        const hist_device *dev;
        TEST_REQUIRE_GPU(dev);
        (void)dev;
    }
    check_once();
    hist_dataset d;
    test_main_preset_for_timing(&d);
    uint8_t *samples = test_samples(&d);
    uint32_t *out = malloc((size_t)hist_counters(&d.problem) * sizeof(uint32_t));
    assert_non_null(out);
    hist_fresh fresh; /* the main preset is every fresh input's base */
    assert_int_equal(hist_fresh_init(&fresh, &d.problem, samples, hist_fresh_seed()), HIST_OK);
    time_host(&fresh, out);
    const hist_device *dev = has_device_impls() ? test_gpu() : NULL;
    if (dev)
        time_on_gpu(dev, &fresh, out);
    hist_fresh_free(&fresh);
    free(samples);
    free(out);
    if (has_device_impls() && !dev)
        TEST_REQUIRE_GPU(dev);
    if (timed_wrong)
        fail_msg("%d implementation%s gave a wrong output on a call of the graded timing (above): "
                 "graded wrong, no points",
                 timed_wrong, timed_wrong == 1 ? "" : "s");
}

/* The verdicts, for tools/student/grade.sh (make grade). */
static int write_grades(void **state) {
    (void)state;
    const char *dir = getenv("HIST_GRADES");
    if (dir && *dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.tsv", dir, HIST_LESSON_FOLDER);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "cannot write %s\n", path);
            return 1;
        }
        for (size_t i = 0; i < LESSON_IMPL_COUNT; ++i) {
            const hist_impl *impl = &LESSON_IMPLS[i];
            fprintf(f, "%s\t%s\t%s\t%s\t%d\t%.4f\t%.4f\n", HIST_LESSON_FOLDER, impl->name,
                    hist_where_name(impl->where), grades[i].status, grades[i].cases,
                    grades[i].measured, impl->target);
        }
        fclose(f);
    }
    return 0;
}

/**
 * @brief Runs the generic tests of the lesson this file was built for.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const size_t n = LESSON_IMPL_COUNT;
    grades = calloc(n + 1, sizeof *grades);
    verdicts = calloc(n + 1, sizeof *verdicts);
    indices = calloc(n + 1, sizeof *indices);
    struct CMUnitTest *tests = calloc(n + 2, sizeof *tests);
    char(*names)[96] = calloc(n + 1, sizeof *names);
    if (!grades || !verdicts || !indices || !tests || !names) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    tests[0] = (struct CMUnitTest)cmocka_unit_test(test_registry_keeps_the_contract);
    for (size_t i = 0; i < n; ++i) {
        grades[i].status = "-";
        indices[i] = i;
        snprintf(names[i], sizeof names[i], "%s: written and exact", LESSON_IMPLS[i].name);
        tests[1 + i] =
            (struct CMUnitTest){names[i], test_written_and_exact, NULL, NULL, &indices[i]};
    }
    tests[1 + n] = (struct CMUnitTest){"performance on the main preset, against each target",
                                       test_performance, NULL, NULL, NULL};
    const int failures = _cmocka_run_group_tests(HIST_LESSON_FOLDER ": every implementation", tests,
                                                 n + 2, NULL, write_grades);
    free(names);
    free(tests);
    free(indices);
    free(verdicts);
    free(grades);
    return failures;
}
