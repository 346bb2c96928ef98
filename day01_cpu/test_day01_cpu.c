/**
 * @file test_day01_cpu.c
 * @brief Day 01: both CPU implementations against the reference, and the lesson binary's
 *        behaviour on good and bad command lines (exit status, one-line errors, output files).
 */
#define _GNU_SOURCE
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

#include "npy.h"
#include "reference.h"

HIST_DECLARE_REGISTRY(day01);

/* the generic test (tests/test_lesson.c) runs the matrix with 2 threads; here 1 and 3 */
static void test_private_on_matrix_other_threads(void **state) {
    (void)state;
    const hist_impl *impl = test_find_impl(day01_impls, day01_impl_count, "cpu_private");
    for (int threads = 1; threads <= 3; threads += 2) /* 3 threads: uneven row ranges */
        assert_int_equal(test_matrix_exact(impl, NULL, &TEST_MATRIX_DEFAULT, threads),
                         5 * 8 * 4 * 3);
}

static void test_private_more_threads_than_rows(void **state) {
    (void)state;
    const hist_impl *impl = test_find_impl(day01_impls, day01_impl_count, "cpu_private");
    for (uint64_t rows = 0; rows <= 9; ++rows) {
        hist_dataset d =
            test_data(rows, 5, (hist_binning){0, 255, 1}, (hist_dist){HIST_DIST_UNIFORM, 0}, rows);
        assert_true(test_exact(impl, NULL, &d, 8));
    }
}

static void test_private_presets_and_contention(void **state) {
    (void)state;
    const hist_impl *impl = test_find_impl(day01_impls, day01_impl_count, "cpu_private");
    hist_dataset d;
    assert_int_equal(hist_preset("small-binned", &d), HIST_OK);
    assert_true(test_exact(impl, NULL, &d, 2));
    /* the main preset's shape, fewer rows; every distribution, and all samples one value */
    static const hist_dist dists[] = {{HIST_DIST_UNIFORM, 0},
                                      {HIST_DIST_CONTENTION, 90},
                                      {HIST_DIST_CONTENTION, 100},
                                      {HIST_DIST_CONSTANT, 0},
                                      {HIST_DIST_RUNS, 1000}};
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; ++i) {
        hist_dataset m = test_data(20011, 512, (hist_binning){0, 255, 1}, dists[i], 1001 + i);
        assert_true(test_exact(impl, NULL, &m, 2));
    }
    /* values all outside [lo, hi]: nothing counted */
    hist_dataset outside =
        test_data(3000, 3, (hist_binning){200, 255, 8}, (hist_dist){HIST_DIST_UNIFORM, 0}, 3);
    outside.vmax = 199;
    assert_true(test_exact(impl, NULL, &outside, 2));
}

/* ---- the lesson binary ---- */

static char out[1 << 16], err[1 << 12];

static int run_lesson(const char *a1, const char *a2, const char *a3, const char *a4,
                      const char *a5, const char *a6) {
    char *argv[] = {LESSON_BIN, (char *)a1, (char *)a2, (char *)a3,
                    (char *)a4, (char *)a5, (char *)a6, NULL};
    return test_run_program(argv, out, sizeof out, err, sizeof err);
}

static void expect_usage_error(const char *a1, const char *a2, const char *a3, const char *a4,
                               const char *words) {
    int status = run_lesson(a1, a2, a3, a4, NULL, NULL);
    if (status != 2 || test_count_lines(err) != 1 || out[0] != '\0' || !strstr(err, words))
        fail_msg("%s %s %s %s: exit %d, stdout '%s', stderr '%s' (wanted exit 2, one line with "
                 "'%s')",
                 a1, a2 ? a2 : "", a3 ? a3 : "", a4 ? a4 : "", status, out, err, words);
}

static void test_binary_usage_errors(void **state) {
    (void)state;
    expect_usage_error("--bogus", NULL, NULL, NULL, "unknown option '--bogus'");
    expect_usage_error("--channels", "0", NULL, NULL, "--channels");
    expect_usage_error("--rows", "-3", NULL, NULL, "--rows");
    expect_usage_error("--rows", "ten", NULL, NULL, "--rows");
    expect_usage_error("--rows", "4294967296", NULL, NULL, "--rows");
    expect_usage_error("--rows", "18446744073709551616", NULL, NULL, "--rows");
    expect_usage_error("--lo", "9", "--hi", "3", "--lo 9 is above --hi 3");
    expect_usage_error("--width", "0", NULL, NULL, "--width");
    expect_usage_error("--preset", "tiny", NULL, NULL, "--preset");
    expect_usage_error("--dist", "zipf", NULL, NULL, "--dist");
    expect_usage_error("--impl", "gpu_magic", NULL, NULL, "cpu_reference, cpu_private");
    expect_usage_error("--reps", NULL, NULL, NULL, "needs a value");
}

static void test_binary_runtime_errors(void **state) {
    (void)state;
    char missing[128], bad[128], output[128];
    snprintf(missing, sizeof missing, "%s/missing.npy", test_tmp_dir);
    snprintf(bad, sizeof bad, "%s/bad.npy", test_tmp_dir);
    snprintf(output, sizeof output, "%s/never.npy", test_tmp_dir);
    int status = run_lesson("--input", missing, "--output", output, NULL, NULL);
    assert_int_equal(status, 3);
    assert_int_equal(test_count_lines(err), 1);
    assert_non_null(strstr(err, "cannot open"));
    FILE *f = fopen(bad, "wb");
    fputs("\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'", f);
    fclose(f);
    status = run_lesson("--input", bad, "--output", output, NULL, NULL);
    assert_int_equal(status, 3);
    assert_int_equal(test_count_lines(err), 1);
    assert_int_equal(access(output, F_OK), -1); /* no output from a failed run */
}

static void test_binary_allocation_failure(void **state) {
    (void)state;
    /* 4,294,967,295 rows x 262,144 channels: a petabyte of samples, refused before any
       allocation (more than the machine's memory) */
    char output[128];
    snprintf(output, sizeof output, "%s/never.npy", test_tmp_dir);
    int status = run_lesson("--rows", "4294967295", "--channels", "262144", "--output", output);
    /* under SANITIZE=1, AddressSanitizer adds its own "==pid==WARNING" line: not the program's */
    int lines = 0;
    for (const char *line = err; *line != '\0';) {
        const char *end = strchr(line, '\n');
        lines += strncmp(line, "==", 2) != 0;
        if (!end)
            break;
        line = end + 1;
    }
    if (status != 3 || lines != 1 || !strstr(err, "GiB of host memory"))
        fail_msg("exit %d, stderr '%s' (wanted exit 3 and one line on the host memory needed)",
                 status, err);
    assert_int_equal(access(output, F_OK), -1);
}

static void test_binary_output_matches_reference(void **state) {
    (void)state;
    test_require_written(LESSON_IMPLS, LESSON_IMPL_COUNT, "cpu_private");
    char input[128], output[128];
    snprintf(input, sizeof input, "%s/in.npy", test_tmp_dir);
    snprintf(output, sizeof output, "%s/out.npy", test_tmp_dir);
    /* generate and save an input, then histogram it from the file */
    char *gen[] = {LESSON_BIN,     "--rows", "999",    "--channels",  "65",     "--dist", "runs:3",
                   "--save-input", input,    "--impl", "cpu_private", "--reps", "1",      NULL};
    assert_int_equal(test_run_program(gen, out, sizeof out, err, sizeof err), 0);
    assert_int_equal(run_lesson("--input", input, "--output", output, "--reps", "2"), 0);
    assert_non_null(strstr(out, "cpu_reference"));
    assert_non_null(strstr(out, "exact"));

    uint8_t *samples = NULL;
    uint64_t rows = 0, channels = 0;
    assert_int_equal(hist_npy_read_u8(input, &samples, &rows, &channels), HIST_OK);
    hist_problem p = {rows, (uint32_t)channels, {0, 255, 1}, 8};
    uint32_t *expected = malloc(65 * 256 * sizeof(uint32_t));
    hist_reference(&p, samples, expected);

    uint8_t buf[128 + 65 * 256 * 4];
    FILE *f = fopen(output, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    hist_npy_header h;
    assert_int_equal(hist_npy_parse_header(buf, n, &h), HIST_OK);
    assert_string_equal(h.descr, "<u4");
    assert_int_equal(h.shape[0], 65);
    assert_int_equal(h.shape[1], 256);
    assert_int_equal(n - h.data_offset, 65 * 256 * 4);
    assert_memory_equal(buf + h.data_offset, expected, 65 * 256 * 4);
    free(samples);
    free(expected);
}

/* The file at path is either the old one or a complete .npy of channels x 256 counters. */
static void expect_old_or_complete(const char *path, const char *old, uint64_t channels) {
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s vanished", path);
    uint8_t head[256];
    size_t n = fread(head, 1, sizeof head, f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fclose(f);
    if ((size_t)size == strlen(old) && memcmp(head, old, n) == 0)
        return;
    hist_npy_header h;
    assert_int_equal(hist_npy_parse_header(head, n, &h), HIST_OK);
    assert_int_equal(h.shape[0], channels);
    assert_int_equal((uint64_t)size, h.data_offset + channels * 256 * sizeof(uint32_t));
}

/* Start the lesson binary writing a 256 MiB histogram to path; return its pid. */
static pid_t start_big_write(const char *path) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execl(LESSON_BIN, LESSON_BIN, "--rows", "2", "--channels", "262144", "--impl",
              "cpu_reference", "--reps", "1", "--warmup", "0", "--output", path, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Remove path's temporary files (path.tmp.XXXXXX); return how many there were. */
static int remove_temporaries(const char *path) {
    char cmd[320];
    snprintf(cmd, sizeof cmd, "n=$(ls %s.tmp.* 2>/dev/null | wc -l); rm -f %s.tmp.*; exit $n", path,
             path);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void test_output_never_partial_when_killed(void **state) {
    (void)state;
    TEST_SLOW_ONLY("up to 40 runs writing 256 MiB, about 15 s");
    /* 262,144 channels x 256 bins: a 256 MiB output. Time one whole run, then SIGKILL runs at
       many moments, several of them inside the write (a temporary file is left then); the
       destination must always hold the old file or the complete new one. */
    char path[128];
    snprintf(path, sizeof path, "%s/killed.npy", test_tmp_dir);
    static const char old[] = "the previous result";
    double t0 = seconds_now();
    int status = 0;
    waitpid(start_big_write(path), &status, 0);
    const double full = seconds_now() - t0;
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    expect_old_or_complete(path, old, 262144);

    /* kill at moments spread over the last three quarters of a run (the write is at the end),
       until 3 kills have landed inside the write or 40 attempts are made */
    int mid_write = 0, attempts = 0;
    for (; attempts < 40 && (mid_write < 3 || attempts < 12); ++attempts) {
        FILE *f = fopen(path, "wb");
        fputs(old, f);
        fclose(f);
        pid_t pid = start_big_write(path);
        const double wait = full * (0.25 + 0.8 * ((attempts * 7) % 40) / 40.0);
        const struct timespec delay = {(time_t)wait, (long)((wait - (time_t)wait) * 1e9)};
        nanosleep(&delay, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        expect_old_or_complete(path, old, 262144);
        mid_write += remove_temporaries(path) > 0;
    }
    print_message("a run takes %.2f s; %d of %d kills landed inside the write; the output was "
                  "never partial\n",
                  full, mid_write, attempts);
    assert_true(mid_write > 0); /* the test did test what it claims */
}

/* Send sig to a run writing a 256 MiB output once its temporary file exists; return 1 if the
   signal landed while the temporary file existed. The destination must be old or complete, and
   no temporary file may remain. */
static int signal_mid_write(const char *path, const char *old, int sig) {
    FILE *f = fopen(path, "wb");
    fputs(old, f);
    fclose(f);
    char pattern[160];
    snprintf(pattern, sizeof pattern, "%s.tmp.*", path);
    pid_t pid = start_big_write(path);
    int landed = 0, status = 0;
    for (int i = 0; i < 20000 && !landed; ++i) { /* up to 20 s */
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0) {
            kill(pid, sig);
            landed = 1;
        }
        globfree(&g);
        if (!landed && waitpid(pid, &status, WNOHANG) == pid)
            return 0; /* finished before we saw the file */
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    waitpid(pid, &status, 0);
    expect_old_or_complete(path, old, 262144);
    glob_t g;
    const int left = glob(pattern, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    globfree(&g);
    if (left)
        fail_msg("signal %d left %d temporary file(s) beside %s", sig, left, path);
    /* the signal either ended the run, or came after the rename (the run then exited 0) */
    assert_true((WIFSIGNALED(status) && WTERMSIG(status) == sig) ||
                (WIFEXITED(status) && WEXITSTATUS(status) == 0));
    return landed && WIFSIGNALED(status);
}

static void test_temporaries_removed_on_signals(void **state) {
    (void)state;
    TEST_SLOW_ONLY("runs writing 256 MiB, signalled, about 4 s");
    char path[128];
    snprintf(path, sizeof path, "%s/signalled.npy", test_tmp_dir);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t k = 0; k < 3; ++k) {
        int landed = 0, tries = 0;
        for (; tries < 10 && !landed; ++tries)
            landed = signal_mid_write(path, "old", sigs[k]);
        print_message("signal %d: landed during the write after %d run(s)\n", sigs[k], tries);
        assert_true(landed); /* the test did test what it claims */
    }
}

static void test_files_named_twice_or_not_regular_are_refused(void **state) {
    (void)state;
    char a[128], fifo[128], csv[160];
    snprintf(a, sizeof a, "%s/twice.npy", test_tmp_dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", test_tmp_dir);
    assert_int_equal(run_lesson("--rows", "10", "--channels", "3", "--save-input", a), 0);
    struct stat before, after;
    assert_int_equal(stat(a, &before), 0);
    char dot_a[160];
    snprintf(dot_a, sizeof dot_a, "%s/./twice.npy", test_tmp_dir);
    expect_usage_error("--input", a, "--output", a, "name the same file");
    expect_usage_error("--input", a, "--csv", dot_a, "name the same file");
    expect_usage_error("--save-input", a, "--output", dot_a, "name the same file");
    assert_int_equal(stat(a, &after), 0);
    assert_true(before.st_mtime == after.st_mtime && before.st_size == after.st_size);
    /* an existing FIFO or folder is never replaced */
    assert_int_equal(mkfifo(fifo, 0644), 0);
    expect_usage_error("--rows", "5", "--output", fifo, "not a regular file (a FIFO)");
    expect_usage_error("--rows", "5", "--csv", test_tmp_dir, "not a regular file (a folder)");
    assert_int_equal(stat(fifo, &after), 0);
    assert_true(S_ISFIFO(after.st_mode));
    /* a FIFO as input is refused without blocking on it */
    char *argv[] = {"/usr/bin/timeout", "10", LESSON_BIN, "--input", fifo, NULL};
    assert_int_equal(test_run_program(argv, out, sizeof out, err, sizeof err), 3);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(fifo);
    /* a --csv in a folder that does not exist: refused before any work (exit 2, one line naming
       it), and no --output of that run */
    char out_path[128];
    snprintf(out_path, sizeof out_path, "%s/not-written.npy", test_tmp_dir);
    snprintf(csv, sizeof csv, "%s/no-such-folder/x.csv", test_tmp_dir);
    assert_int_equal(run_lesson("--rows", "10", "--output", out_path, "--csv", csv), 2);
    assert_int_equal(test_count_lines(err), 1);
    assert_non_null(strstr(err, csv));
    assert_non_null(strstr(err, "does not exist"));
    assert_int_equal(access(out_path, F_OK), -1);
}

/* --results DIR: the file is named after the problem that ran, so that a smaller run never
   replaces a preset's table (make run's, which make plot draws); DIR is made if it is new. */
static void test_results_named_after_the_problem(void **state) {
    (void)state;
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/results", test_tmp_dir);
    assert_int_equal(run_lesson("--preset", "small-binned", "--reps", "1", "--results", dir), 0);
    snprintf(path, sizeof path, "%s/cpu-only_small-binned_uniform.csv", dir);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(run_lesson("--rows", "10", "--channels", "3", "--results", dir), 0);
    snprintf(path, sizeof path, "%s/cpu-only_main_uniform_10x3.csv", dir);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(run_lesson("--preset", "small-binned", "--rows", "100", "--results", dir), 0);
    snprintf(path, sizeof path, "%s/cpu-only_small-binned_uniform_100x1.csv", dir);
    assert_int_equal(access(path, F_OK), 0);
    char *binned[] = {LESSON_BIN, "--rows", "7",       "--channels", "2",         "--lo", "1",
                      "--hi",     "100",    "--width", "20",         "--results", dir,    NULL};
    assert_int_equal(test_run_program(binned, out, sizeof out, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/cpu-only_main_uniform_7x2_lo1-hi100-w20.csv", dir);
    assert_int_equal(access(path, F_OK), 0);
}

static void test_header_beyond_the_limits_is_refused_before_reading(void **state) {
    (void)state;
    /* a header that promises 2^32 rows, and a (sparse) file that really holds them */
    char path[128];
    snprintf(path, sizeof path, "%s/huge.npy", test_tmp_dir);
    char head[128];
    memset(head, ' ', sizeof head);
    memcpy(head, "\x93NUMPY\x01\x00\x76\x00", 10); /* version 1.0, 118 header bytes */
    static const char dict[] =
        "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 1), }";
    memcpy(head + 10, dict, strlen(dict));
    head[127] = '\n';
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_int_equal(truncate(path, 128 + (off_t)4294967296), 0);
    const double t0 = seconds_now();
    assert_int_equal(run_lesson("--input", path, "--reps", "1", NULL, NULL), 3);
    const double took = seconds_now() - t0;
    unlink(path);
    assert_non_null(strstr(err, "accepted: 1..262144 channels"));
    assert_true(took < 2.0);
}

static void test_stdout_write_errors_fail(void **state) {
    (void)state;
    char cmd[512];
    static const char *redirects[] = {"> /dev/full", ">&-"};
    static const char *args[] = {"--rows 10 --channels 3 --reps 1", "--list", "--help"};
    for (size_t r = 0; r < 2; ++r)
        for (size_t a = 0; a < 3; ++a) {
            snprintf(cmd, sizeof cmd, "'%s' %s %s 2>/dev/null", LESSON_BIN, args[a], redirects[r]);
            const int status = system(cmd);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
                fail_msg("%s: exit %d, wanted 3", cmd, WEXITSTATUS(status));
        }
}

static void test_binary_zero_rows_list_help(void **state) {
    (void)state;
    assert_int_equal(run_lesson("--rows", "0", "--channels", "3", "--reps", "1"), 0);
    assert_non_null(strstr(out, "exact"));
    assert_int_equal(run_lesson("--list", NULL, NULL, NULL, NULL, NULL), 0);
    assert_non_null(strstr(out, "cpu_reference"));
    assert_non_null(strstr(out, "cpu_private"));
    assert_non_null(strstr(out, "constraints"));
    assert_int_equal(run_lesson("--help", NULL, NULL, NULL, NULL, NULL), 0);
    assert_non_null(strstr(out, "--preset"));
    assert_int_equal(run_lesson("--preset", "small-binned", "--reps", "3", "--threads", "2"), 0);
    assert_non_null(strstr(out, "bins=5"));
}

/**
 * @brief Runs this file's CMocka groups.
 * @return the exit status (0: everything passed / exact)
 */
int main(void) {
    const struct CMUnitTest impls[] = {
        cmocka_unit_test(test_private_on_matrix_other_threads),
        cmocka_unit_test(test_private_more_threads_than_rows),
        cmocka_unit_test(test_private_presets_and_contention),
    };
    const struct CMUnitTest binary[] = {
        cmocka_unit_test(test_binary_usage_errors),
        cmocka_unit_test(test_binary_runtime_errors),
        cmocka_unit_test(test_binary_allocation_failure),
        cmocka_unit_test(test_binary_output_matches_reference),
        cmocka_unit_test(test_binary_zero_rows_list_help),
        cmocka_unit_test(test_output_never_partial_when_killed),
        cmocka_unit_test(test_temporaries_removed_on_signals),
        cmocka_unit_test(test_files_named_twice_or_not_regular_are_refused),
        cmocka_unit_test(test_results_named_after_the_problem),
        cmocka_unit_test(test_header_beyond_the_limits_is_refused_before_reading),
        cmocka_unit_test(test_stdout_write_errors_fail),
    };
    int failed = cmocka_run_group_tests_name("day01_cpu: implementations", impls, NULL, NULL);
    failed += cmocka_run_group_tests_name("day01_cpu: the program", binary, test_tmp_dir_setup,
                                          test_tmp_dir_teardown);
    return failed ? 1 : 0;
}
