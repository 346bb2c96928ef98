/**
 * @file test_util.h
 * @brief What every CMocka test file shares: datasets, exact checks of an implementation against
 *        the reference over a shape matrix, the GPU skip, and running a lesson binary.
 */
#ifndef HIST_TEST_UTIL_H
#define HIST_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "data.h"
#include "hist.h"

/**
 * @brief The device for GPU tests, or NULL (then test_gpu_reason() says why).
 * @return the device, or NULL
 */
const hist_device *test_gpu(void);
/**
 * @brief Why there is no device ("" if there is one).
 * @return the reason
 */
const char *test_gpu_reason(void);

/**
 * @brief Why @p impl cannot run on @p dev at all, whatever the problem (an unsupported() reason
 *        that starts with HIST_NOT_ON_GPU, for the main preset's problem), or NULL.
 * @param impl the implementation
 * @param dev the GPU, or NULL
 * @return the reason without its prefix, or NULL
 */
const char *test_not_on_gpu(const hist_impl *impl, const hist_device *dev);

/** @brief Skip the current test, with the reason, when @p impl cannot run on the GPU @p dev (a
 *  declared refusal, such as day 05 on a T4: a skip even with REQUIRE_GPU=1). */
#define TEST_SKIP_IF_NOT_ON_GPU(impl, dev)                                                         \
    do {                                                                                           \
        const char *why_ = test_not_on_gpu((impl), (dev));                                         \
        if (why_) {                                                                                \
            print_message("skipped: %s on %s: %s\n", (impl)->name, (dev)->name, why_);             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/**
 * @brief 1 when `HIST_REQUIRE_GPU=1` (`make test REQUIRE_GPU=1`): a GPU test must not skip.
 * @return 1 or 0
 */
int test_gpu_required(void);

/**
 * @brief 1 when `HIST_SLOW=1` (`make test SLOW=1`, which CI runs): every check at its full size.
 *        Otherwise (a student's `make test`) the datasets that only CPU implementations run are
 *        cut to TEST_QUICK_SAMPLES samples (their shapes' channels, distributions and binnings
 *        kept: on the CPU, size adds nothing to what such a check shows) but for the large counts,
 *        which keep one counter past 2^24 (a float sum's limit), and the few long checks of the
 *        programs' robustness skip, saying so (TEST_SLOW_ONLY()).
 * @return 1 or 0
 */
int test_slow(void);

/** @brief The most samples of a dataset only CPU implementations run, unless test_slow(). */
#define TEST_QUICK_SAMPLES (UINT64_C(1) << 18)

/** @brief Skip the current test unless test_slow(), saying what it runs and how long it takes
 *  (@p what), and that `make test SLOW=1` runs it. */
#define TEST_SLOW_ONLY(what)                                                                       \
    do {                                                                                           \
        if (!test_slow()) {                                                                        \
            print_message("a long check (%s)\n", (what));                                          \
            print_message("skipped: long: make test SLOW=1 runs it\n");                            \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/**
 * @brief The main preset for a test that times the CPU implementations: the whole preset with a
 *        GPU or under test_slow(); otherwise its 512 channels with 1/16 of its rows (32 MiB, still
 *        well past the caches), so that a CPU-only `make test` stays short.
 * @param d receives the dataset
 */
void test_main_preset_for_timing(hist_dataset *d);

/** @brief Set @p dev to the GPU, or skip the current test with the reason (fail it instead when
 *  test_gpu_required()). */
#define TEST_REQUIRE_GPU(dev)                                                                      \
    do {                                                                                           \
        (dev) = test_gpu();                                                                        \
        if (!(dev)) {                                                                              \
            if (test_gpu_required())                                                               \
                fail_msg("REQUIRE_GPU=1 but no GPU: %s", test_gpu_reason());                       \
            print_message("skipped: %s\n", test_gpu_reason());                                     \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

#ifdef HIST_LESSON
/* built for one lesson (the Makefile passes HIST_LESSON=dayNN and HIST_LESSON_FOLDER) */
HIST_DECLARE_REGISTRY(HIST_LESSON);
/** @brief The registry of the lesson this test is built for. */
#define LESSON_IMPLS HIST_PASTE(HIST_LESSON, _impls)
/** @brief Its length. */
#define LESSON_IMPL_COUNT HIST_PASTE(HIST_LESSON, _impl_count)
#endif

/**
 * @brief A dataset with values over 0..255 (binning decides what is counted).
 * @param rows rows
 * @param channels channels
 * @param binning the binning
 * @param dist the distribution
 * @param seed the seed
 * @return the dataset
 */
hist_dataset test_data(uint64_t rows, uint32_t channels, hist_binning binning, hist_dist dist,
                       uint64_t seed);

/**
 * @brief Generate a dataset's samples (malloc'd; fails the test on error).
 * @param d the dataset
 * @return the samples (free() them)
 */
uint8_t *test_samples(const hist_dataset *d);

/**
 * @brief Run the device implementation @p impl once on @p p, its input @p offset bytes past the
 *        start of a device allocation (hist_gpu_run_offset()), under the caps @p caps, and compare
 *        every counter with the reference: a failure of the run or any counter that differs fails
 *        the test, naming @p what and the shape.
 * @param dev the GPU
 * @param impl the implementation
 * @param p the problem
 * @param samples the host input; the problem's input starts @p offset bytes into it
 * @param offset bytes before the input
 * @param caps the caps on its plan (hist_caps), or NULL
 * @param what the case, for a failure's message
 * @return 1 if it ran (and was exact), 0 if its constraints refuse @p p on @p dev
 */
int test_exact_at(const hist_device *dev, const hist_impl *impl, const hist_problem *p,
                  const uint8_t *samples, size_t offset, const hist_caps *caps, const char *what);

/**
 * @brief The implementation called @p name in a registry (fails the test if absent).
 * @param impls the registry
 * @param count its length
 * @param name the implementation's name
 * @return the entry
 */
const hist_impl *test_find_impl(const hist_impl *impls, size_t count, const char *name);

/**
 * @brief Run @p impl on @p d and compare every counter with the reference.
 * @return 1 if it ran and was exact, 0 if its constraints refused the case; fails the test
 *         (printing the case and the first mismatches) on any difference or error.
 * @param impl the implementation
 * @param dev the GPU, or NULL
 * @param d the dataset
 * @param threads worker threads
 */
int test_exact(const hist_impl *impl, const hist_device *dev, const hist_dataset *d, int threads);

/**
 * @brief Run every implementation of @p impls whose constraints hold (device ones only with a
 *        device) on @p samples and compare each with the reference; fails the test, naming the
 *        case (@p what) and the first mismatches, on any difference or error.
 * @return how many ran; @p ran[i] (if not NULL) counts implementation i's runs.
 * @param impls the implementations
 * @param count how many
 * @param dev the GPU, or NULL
 * @param p the problem
 * @param samples its input
 * @param threads worker threads for host entries
 * @param caps the caps every run's arguments carry (hist.h's hist_caps), or NULL: none
 * @param what a description of the case, for the failure message
 * @param ran per implementation, incremented when it ran (or NULL)
 */
int test_exact_samples(const hist_impl *const *impls, size_t count, const hist_device *dev,
                       const hist_problem *p, const uint8_t *samples, int threads,
                       const hist_caps *caps, const char *what, int *ran);

/** @brief The shape matrix of the lessons: rows and channels to combine. */
typedef struct test_matrix {
    const uint64_t *rows;     /**< row counts */
    size_t n_rows;            /**< how many */
    const uint32_t *channels; /**< channel counts */
    size_t n_channels;        /**< how many */
    uint64_t max_samples;     /**< shapes of more samples (rows x channels) are left out, so that
                                   a case costly for its test (a launch per chunk) stays small;
                                   0: none */
    hist_caps caps;           /**< the caps every run of the matrix gets in its arguments
                                   (test_matrix_exact_all(), test_matrix_exact()): one block for a
                                   whole input, chunks of a few bytes; all zero: the plans' own */
} test_matrix;

/**
 * @brief How many (rows, channels) shapes of @p m are within its size limit.
 * @param m the shape matrix
 * @return the number of shapes its tests run
 */
size_t test_matrix_shapes(const test_matrix *m);

/** @brief Rows 0, 1, 7, 1000, 65537 and channels 1, 3, 4, 63, 64, 65, 512, 513. */
extern const test_matrix TEST_MATRIX_DEFAULT;

/**
 * @brief Check @p impl exactly on every (rows, channels) of @p m, under every distribution
 *        (uniform, contention:90, constant, runs:7) and the binnings byte, 1..100/20 and
 *        10..200/7, each run with @p m's caps. Cases the constraints refuse are counted, not run.
 * @return the number of cases that ran (the caller asserts it is large enough).
 * @param impl the implementation
 * @param dev the GPU, or NULL
 * @param m the shape matrix
 * @param threads worker threads
 */
int test_matrix_exact(const hist_impl *impl, const hist_device *dev, const test_matrix *m,
                      int threads);

/**
 * @brief test_matrix_exact() for several implementations at once: each dataset is generated
 *        and its reference computed once; @p ran[i] counts the cases implementation i ran.
 * @param impls the implementations
 * @param count how many
 * @param dev the GPU, or NULL
 * @param m the shape matrix
 * @param threads worker threads
 * @param ran per implementation, how many cases ran
 */
void test_matrix_exact_all(const hist_impl *const *impls, size_t count, const hist_device *dev,
                           const test_matrix *m, int threads, int *ran);

/**
 * @brief Every implementation of a registry, exactly, on one dataset (generated once); each must
 *        accept it.
 * @param impls the registry
 * @param count its length
 * @param dev the GPU, or NULL
 * @param d the dataset
 */
void test_registry_exact(const hist_impl *impls, size_t count, const hist_device *dev,
                         const hist_dataset *d);

/**
 * @brief Every implementation of a registry, exactly, on the shape matrix @p m within its
 *        constraints (skips without a GPU when the registry has device implementations).
 * @param impls  the registry
 * @param count  its length
 * @param m      the shapes
 * @param ran    receives each implementation's number of cases (@p count entries)
 */
void test_registry_on_matrix(const hist_impl *impls, size_t count, const test_matrix *m, int *ran);

/**
 * @brief Every implementation of a registry, exactly, within its constraints, on the main preset
 *        under uniform, constant, contention:90 and runs:1000 data, and on the small-binned
 *        preset (skips without a GPU when the registry has device implementations).
 * @param impls  the registry
 * @param count  its length
 * @param ran    receives each implementation's number of cases (@p count entries)
 */
void test_registry_on_presets(const hist_impl *impls, size_t count, int *ran);

/**
 * @brief Fail the test, naming what is missing, when implementation @p name of the registry
 *        still waits for student code (hist_not_written()): for tests that run one named
 *        implementation through the program.
 * @param impls the registry
 * @param count its length
 * @param name the implementation's name
 */
void test_require_written(const hist_impl *impls, size_t count, const char *name);

/** @brief What test_check_registry() found for one implementation. */
typedef struct test_verdict {
    int cases;      /**< cases it was exact on */
    int failed;     /**< 1: not written, failed or not exact on some case */
    char why[2048]; /**< the first failure: the case, then its first differing counters */
} test_verdict;

/**
 * @brief Judge every implementation on the shape matrix @p m, both presets (main under
 *        uniform, constant, contention:90 and runs:1000; small-binned) and counts that no small
 *        counter holds (constant data: 1 channel of 2^28 rows, 16 channels of 2^24 + 7: past
 *        2^24 in one counter, past 65,535 in one block's) without failing the test:
 *        the first failure of each is recorded in @p v (which has @p count entries), its first
 *        differences printed, and it is left out of the cases after it. Implementations that
 *        cannot run a case (constraints, no @p dev) are not counted on it.
 * @param impls the implementations
 * @param count how many
 * @param dev the GPU, or NULL
 * @param m the shape matrix
 * @param v one verdict per implementation
 */
void test_check_registry(const hist_impl *const *impls, size_t count, const hist_device *dev,
                         const test_matrix *m, test_verdict *v);

/**
 * @brief Run a program, capturing its output.
 * @param argv  NULL-terminated; argv[0] is the path
 * @param out     receives stdout (NUL-terminated, truncated to outlen - 1), or NULL
 * @param outlen  size of @p out
 * @param err     receives stderr likewise, or NULL
 * @param errlen  size of @p err
 * @return the exit status, or -1 if it did not exit normally.
 */
int test_run_program(char *const argv[], char *out, size_t outlen, char *err, size_t errlen);

/** @brief The temporary folder of the current group (set up by test_tmp_dir_setup()). */
extern char test_tmp_dir[64];

/**
 * @brief CMocka group setup: create a fresh temporary folder in test_tmp_dir.
 * @param state unused
 * @return 0, or -1 when the folder cannot be made
 */
int test_tmp_dir_setup(void **state);

/**
 * @brief CMocka group teardown: remove test_tmp_dir and what is in it.
 * @param state unused
 * @return 0
 */
int test_tmp_dir_teardown(void **state);

/**
 * @brief @p n zeroed counters (calloc'd; the caller frees them).
 * @param n how many
 * @return the counters
 */
int *test_counts(size_t n);

/**
 * @brief Number of '\n' in @p s.
 * @param s the text
 * @return the count
 */
int test_count_lines(const char *s);

#endif /* HIST_TEST_UTIL_H */
