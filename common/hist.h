/**
 * @file hist.h
 * @brief The problem every lesson solves, and the one signature every implementation has.
 *
 * Input: `uint8` samples of shape `[rows, channels]`, row-major, or `uint16` ones (day 08: the
 * problem's `bits`, two little-endian bytes a sample). Output: `uint32` counts of shape
 * `[channels, bins]`, where `hist[c][b]` counts the rows whose sample in channel `c` falls in bin
 * `b`. A sample `v` in `[lo, hi]` goes to bin `(v - lo) / width`; other samples are not counted.
 *
 * Everything here is plain C11 so that host code, tests and CUDA code share it.
 */
#ifndef HIST_H
#define HIST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Largest row count whose counts always fit a `uint32` counter. */
#define HIST_MAX_ROWS UINT64_C(4294967295)
/** @brief Largest channel count the harness accepts (the histogram alone is then 256 MiB). */
#define HIST_MAX_CHANNELS 262144u

/** @brief Status codes returned by library code; only `main` turns them into exit codes. */
typedef enum hist_status {
    HIST_OK = 0,          /**< success */
    HIST_ERR_USAGE,       /**< an invalid option or value (exit status 2) */
    HIST_ERR_IO,          /**< a file could not be read or written (exit status 3) */
    HIST_ERR_FORMAT,      /**< a malformed `.npy` file (exit status 3) */
    HIST_ERR_NOMEM,       /**< an allocation failed or the shape is too large (exit status 3) */
    HIST_ERR_CUDA,        /**< a CUDA call failed (exit status 3) */
    HIST_ERR_NO_DEVICE,   /**< no usable CUDA device or driver (exit status 4) */
    HIST_ERR_UNSUPPORTED, /**< an implementation cannot handle this problem */
    HIST_ERR_MISMATCH,    /**< a result differs from the reference (exit status 1) */
    HIST_ERR_NOT_RUN      /**< an implementation named with --impl could not run (exit status 4) */
} hist_status;

/** @brief Value-range binning: samples in `[lo, hi]` go to bin `(v - lo) / width`. */
typedef struct hist_binning {
    uint16_t lo; /**< lowest counted value */
    uint16_t hi; /**< highest counted value, `lo <= hi <= ` the largest sample (255 or 65535) */
    uint32_t
        width; /**< values per bin, 1 .. hi - lo + 1 (at most 256 for bytes, 65536 for 16 bits) */
} hist_binning;

/** @brief The shape of one histogram problem. */
typedef struct hist_problem {
    uint64_t rows;        /**< number of rows, `0 <= rows <= HIST_MAX_ROWS` */
    uint32_t channels;    /**< number of channels, `1..HIST_MAX_CHANNELS` */
    hist_binning binning; /**< how values map to bins */
    /** Bits per sample: 8 (`uint8`; 0, what an initializer that leaves it out gives, means 8) or
     *  16 (`uint16`, day 08). hist_sample_bits() reads it. */
    uint32_t bits;
} hist_problem;

/** @brief Bits per sample of @p p: 8 or 16. */
static inline uint32_t hist_sample_bits(const hist_problem *p) {
    return p->bits == 16 ? 16u : 8u;
}

/** @brief Bytes per sample of @p p: 1 or 2. */
static inline uint32_t hist_sample_bytes(const hist_problem *p) {
    return hist_sample_bits(p) / 8u;
}

/** @brief The largest sample value of @p p: 255 or 65535. */
static inline uint32_t hist_max_value(const hist_problem *p) {
    return (1u << hist_sample_bits(p)) - 1u;
}

/** @brief Number of bins of a binning: `(hi - lo) / width + 1` (the last bin may be narrower). */
static inline uint32_t hist_bins(hist_binning b) {
    return (uint32_t)(b.hi - b.lo) / b.width + 1u;
}

/** @brief True for the byte histogram (`lo = 0`, `hi = 255`, `width = 1`: 256 bins). */
static inline int hist_is_byte_binning(hist_binning b) {
    return b.lo == 0 && b.hi == 255 && b.width == 1;
}

/**
 * @brief Binning in the form kernels use: bin = `((v - lo) * magic) >> 16` when
 *        `v - lo <= hi - lo` (unsigned), with `magic = ceil(65536 / width)`.
 *
 * Exact for every byte value and every width 1..256: the rounding error of `magic` adds less
 * than `255 / 65536 < 1 / width` to `(v - lo) / width`, never enough to reach the next integer.
 * Bytes only: the kernels of days 02-07 that use it take 8-bit samples.
 */
typedef struct hist_bin_map {
    uint32_t lo;    /**< lowest counted value */
    uint32_t span;  /**< `hi - lo` */
    uint32_t magic; /**< `ceil(65536 / width)` */
} hist_bin_map;

/** @brief The kernel form of a binning. */
static inline hist_bin_map hist_bin_map_of(hist_binning b) {
    hist_bin_map m = {b.lo, (uint32_t)(b.hi - b.lo), (65536u + b.width - 1) / b.width};
    return m;
}

/** @brief Number of samples, `rows * channels`. */
static inline uint64_t hist_samples(const hist_problem *p) {
    return p->rows * (uint64_t)p->channels;
}

/** @brief Bytes of the input, `rows * channels * ` hist_sample_bytes(). */
static inline uint64_t hist_input_bytes(const hist_problem *p) {
    return hist_samples(p) * hist_sample_bytes(p);
}

/** @brief Sample @p i (row-major index) of @p samples, an input of @p p's sample size.
 *  @param p the problem @param samples its input @param i the index @return the value */
static inline uint32_t hist_sample_at(const hist_problem *p, const uint8_t *samples, uint64_t i) {
    if (hist_sample_bits(p) == 8)
        return samples[i];
    return (uint32_t)samples[2 * i] | (uint32_t)samples[2 * i + 1] << 8; /* little-endian */
}

/** @brief Number of counters in the output, `channels * bins`. */
static inline uint64_t hist_counters(const hist_problem *p) {
    return (uint64_t)p->channels * hist_bins(p->binning);
}

/** @brief Rows cut into chunks of equal length, the last one shorter (hist_split_rows()). */
typedef struct hist_row_split {
    uint64_t chunk_rows; /**< rows per chunk (at least 1) */
    uint64_t chunks;     /**< chunks: `ceil(rows / chunk_rows)`, at least 1 */
} hist_row_split;

/**
 * @brief Cut @p rows into at most @p target chunks of equal length (a grid's chunks of rows,
 *        days 04-07): fewer when rows are few, one (of one row) when there are none.
 * @param rows the rows
 * @param target the chunks wanted (0 is taken as 1)
 * @return the chunk length and the number of chunks
 */
static inline hist_row_split hist_split_rows(uint64_t rows, uint64_t target) {
    const uint64_t t = target > 0 ? target : 1;
    const uint64_t chunk_rows = rows > 0 ? (rows + t - 1) / t : 1;
    const hist_row_split split = {chunk_rows, rows > 0 ? (rows + chunk_rows - 1) / chunk_rows : 1};
    return split;
}

/**
 * @brief Part @p r of @p n items cut into @p parts nearly equal parts, the first `n % parts` one
 *        larger (rows over GPUs or ranks, shards over ranks: day 07).
 * @param n the items
 * @param parts how many parts (at least 1)
 * @param r which part, 0 .. parts - 1
 * @param first receives the part's first item
 * @return the part's number of items
 */
static inline uint64_t hist_share(uint64_t n, uint64_t parts, uint64_t r, uint64_t *first) {
    const uint64_t base = n / parts, extra = n % parts;
    *first = base * r + (r < extra ? r : extra);
    return base + (r < extra ? 1 : 0);
}

/**
 * @brief Check a problem: 8 or 16 bits a sample, binning valid for them, shape within the limits,
 *        counts cannot overflow.
 * @return HIST_OK, or HIST_ERR_USAGE with the reason in hist_last_error().
 * @param p the problem
 */
hist_status hist_problem_validate(const hist_problem *p);

/** @brief Where an implementation runs, and so where its buffers live. */
typedef enum hist_where {
    HIST_HOST = 0,    /**< CPU code: host pointers */
    HIST_DEVICE,      /**< GPU code: device pointers, work queued on the default stream */
    HIST_HOST_INPUT,  /**< GPU code given host pointers (input and output in host memory,
                           the input pageable): it moves the data itself, and its time is end to
                           end (day 07) */
    HIST_PINNED_INPUT /**< the same, the input in pinned (page-locked) host memory, which the
                           harness provides, pinned outside the timed region */
} hist_where;

/** @brief Whether an implementation takes host-resident input (HIST_HOST_INPUT or
 *         HIST_PINNED_INPUT).
 *  @param w where it runs
 *  @return 1 or 0 */
static inline int hist_takes_host_input(hist_where w) {
    return w == HIST_HOST_INPUT || w == HIST_PINNED_INPUT;
}

/** @brief The `where` column of tables and CSV files: "host", "device" or "h2d" (host input).
 *  @param w where an implementation runs
 *  @return its name */
static inline const char *hist_where_name(hist_where w) {
    return w == HIST_HOST ? "host" : w == HIST_DEVICE ? "device" : "h2d";
}

struct hist_gpu_limits; /* gpu_limits.h */

/** @brief The GPU a program runs as if on (`--gpu-limits NAME`, gpu_limits.h): a value the options
 *  carry and the device keeps, never a setting of the process. */
typedef struct hist_emulation {
    const struct hist_gpu_limits *limits; /**< the row of the limits table, or NULL: the real GPU */
    int keep_sms;                         /**< 1: keep the present GPU's multiprocessors */
} hist_emulation;

/** @brief What the harness knows of the GPU (filled by hist_device_open()). */
typedef struct hist_device {
    int ordinal;                    /**< CUDA device number */
    char name[256];                 /**< e.g. "NVIDIA H100 80GB HBM3" */
    int sm_count;                   /**< multiprocessors (132 on an H100 SXM) */
    int cc_major;                   /**< compute capability, major */
    int cc_minor;                   /**< compute capability, minor */
    size_t l2_bytes;                /**< L2 cache size (50 MiB on an H100) */
    size_t smem_per_block_optin;    /**< shared memory a block may opt in to (227 KiB on Hopper) */
    size_t smem_per_sm;             /**< shared memory per multiprocessor */
    int max_threads_per_sm;         /**< resident threads per multiprocessor */
    size_t global_bytes;            /**< device memory */
    size_t smem_reserved_per_block; /**< shared memory the driver keeps per resident block */
    /** The table name of the GPU whose limits this one is capped to (`--gpu-limits`, gpu_limits.h),
     *  "" on the real GPU; then `name` ends in "limited to NAME" and the fields above are that
     *  GPU's, while the real_ ones below stay the present GPU's. */
    char limited_to[16];
    int real_sm_count;           /**< the present GPU's multiprocessors */
    size_t real_smem_per_sm;     /**< the present GPU's shared memory per SM */
    int real_max_threads_per_sm; /**< the present GPU's resident threads per SM */
    size_t real_l2_bytes;        /**< the present GPU's L2 (what an L2 flush must cover) */
    hist_emulation emulation;    /**< what it was opened with: a program that opens more GPUs
                                      (day 07) opens them the same way */
} hist_device;

/** @brief Caps the tests put on a plan (hist_args' `caps`): a plan is a pure function of the
 *  problem, the device (its limits) and these caps; every field 0 (the one value outside tests)
 *  leaves the plan its own. */
typedef struct hist_caps {
    /** At most this many blocks (or clusters) in one pass of a kernel whose plan would launch
     *  more; 0: the plan's own. The tests' way to make one block count a whole input (so that its
     *  16-bit counters pass 65,535: day 08). */
    uint32_t blocks;
    /** At most this many bytes of input a chunk, for an implementation that cuts its input into
     *  chunks (day 07's pipelines); 0: the plan's own. The tests' way to make a small input take
     *  many chunks. */
    uint64_t chunk_bytes;
} hist_caps;

/** @brief *@p caps, or no caps (every field 0) for NULL.
 *  @param caps the caps, or NULL @return them by value */
static inline hist_caps hist_caps_or_none(const hist_caps *caps) {
    const hist_caps none = {0, 0};
    return caps ? *caps : none;
}

/** @brief Everything one call of an implementation gets. */
typedef struct hist_args {
    const hist_problem *problem; /**< the shape and binning */
    const uint8_t *samples;      /**< `[rows, channels]` input (device pointer for GPU code) */
    uint32_t *hist;              /**< `[channels, bins]` output, overwritten (zeroing is the
                                      implementation's job and is timed) */
    void *workspace;             /**< `workspace_bytes` bytes of scratch, or NULL */
    const hist_device *device;   /**< the GPU (the first one) for device and host-input
                                      implementations; NULL on the host */
    int threads;                 /**< worker threads a host implementation may use */
    hist_caps caps;              /**< the caps the tests put on the plan; all zero outside tests */
} hist_args;

/** @brief Storage for each thread: `thread_local` in C++ (CUDA) sources, C11's `_Thread_local`
 *  in C, so that a C file of the harness (common/status.c) compiles as either unchanged (day
 *  06's hand-in files bundle it into a CUDA source). */
#ifdef __cplusplus
#define HIST_THREAD_LOCAL thread_local
#else
#define HIST_THREAD_LOCAL _Thread_local
#endif

/** @brief `extern "C"` in C++ (CUDA) sources, `extern` in C: registries have C linkage. */
#ifdef __cplusplus
#define HIST_EXTERN_C extern "C"
#else
#define HIST_EXTERN_C extern
#endif

/**
 * @brief Declare lesson @p id's registry (e.g. `HIST_DECLARE_REGISTRY(day04);`): the array
 *        `id_impls` and its length `id_impl_count`, with C linkage. A lesson's kernel file writes
 *        this line, then defines both (docs/LESSON_CONTRACT.md).
 */
#define HIST_DECLARE_REGISTRY(id)                                                                  \
    HIST_EXTERN_C const hist_impl HIST_PASTE(id, _impls)[];                                        \
    HIST_EXTERN_C const size_t HIST_PASTE(id, _impl_count)

/** @brief Paste two tokens after expanding them (`HIST_PASTE(day04, _impls)`). */
#define HIST_PASTE(a, b) HIST_PASTE_(a, b)
/** @brief Paste two tokens as they are. */
#define HIST_PASTE_(a, b) a##b

/** @brief How an unsupported() reason starts when the implementation was left out of this build
 *  (a dependency missing, e.g. NCCL): the tests treat it like a missing GPU, a skip that
 *  `REQUIRE_GPU=1` turns into a failure. */
#define HIST_NOT_BUILT "not built: "

/** @brief How an unsupported() reason starts when the implementation cannot run on this GPU at
 *  all, whatever the problem (its shared memory or instructions are not there; the GPU may be
 *  emulated, gpu_limits.h): a declared refusal, which the tests report as a skip with the reason
 *  even under `REQUIRE_GPU=1`. */
#define HIST_NOT_ON_GPU "not on this GPU: "

/** @brief The roof a device implementation's target is a share of, both measured in the same
 *  run on the GPU in use (so that a target holds at the same share on any GPU). */
typedef enum hist_roof {
    HIST_ROOF_BOUND = 0, /**< max(read floor, shared-atomic ceiling): the time no kernel that
                              reads the input and counts every sample in shared memory can beat */
    HIST_ROOF_ATOMICS    /**< the shared-atomic ceiling alone: for kernels whose time their
                              atomics set, far from the read floor (days 02-05), whose share of it
                              would fall on a GPU with more bandwidth and the same SMs */
} hist_roof;

/** @brief The one signature every implementation has. */
typedef hist_status (*hist_fn)(const hist_args *args);

/** @brief One registry entry: an implementation and what it needs. */
typedef struct hist_impl {
    const char *name;        /**< unique, used by `--impl`, e.g. "cpu_private"; its lesson is
                                  the folder whose registry holds it (runner.h's hist_lesson) */
    hist_where where;        /**< host or device */
    const char *summary;     /**< one line: what this version does */
    const char *constraints; /**< one line for `--list`, e.g. "byte histogram only" */
    /** Why this problem cannot run here (a sentence), or NULL if it can; @p dev may be NULL
     *  when no GPU is present. NULL pointer: any problem. The text may live in a static buffer:
     *  the caller reads or copies it before it asks any entry again (from one thread). */
    const char *(*unsupported)(const hist_problem *p, const hist_device *dev);
    /** Scratch bytes needed (allocated outside the timed region). NULL pointer: none. */
    size_t (*workspace_bytes)(const hist_problem *p, const hist_device *dev);
    hist_fn run; /**< the implementation */
    /** The performance target `make test` grades against on the main preset: for a device entry
     *  the share of its roof (`roof`) measured in the same run (0.40: 40% of the roof's speed),
     *  for a host-input entry the share of the pinned-copy floor (one copy of the input
     *  from pinned host memory to the GPU, same run), for a host entry the speed-up over
     * cpu_reference per worker thread; 0: given code (the reference, a library baseline), timed but
     * not graded. Set from the course's own solutions on an H100; a fraction of a measured floor
     * follows the GPU's memory bandwidth, so kernels not yet memory-bound reach less of it on a GPU
     * with more bandwidth per SM. */
    double target;
    /** 1: a library call shown for comparison (day 02's CUB baseline), not a lesson's own
     *  kernel: left out of the next lesson's "vs prev" column. 0 (left out of the initializer):
     *  the lesson's own. */
    int library;
    /** Which roof a device entry's target is a share of (left out: HIST_ROOF_BOUND). */
    hist_roof roof;
    /** The configuration this entry chooses for @p p on @p dev, in one line ("32 channels per
     *  block, ..."): what the runner prints and the which-GPU page lists; NULL pointer: the same
     *  on every GPU (or only its grid size changes). The text may live in a static buffer, as
     *  unsupported()'s may (read or copied before the next call). */
    const char *(*plan)(const hist_problem *p, const hist_device *dev);
    /** 1: takes 16-bit samples (day 08; its own unsupported() says whether it takes bytes too).
     *  0 (left out of the initializer): bytes only; hist_impl_unsupported() refuses a 16-bit
     *  problem for it. */
    int samples16;
} hist_impl;

/**
 * @brief The last error message set by library code in this thread ("" if none).
 * @return the message, never NULL
 */
const char *hist_last_error(void);

/**
 * @brief Set the message that hist_last_error() returns, printf-style. It is always one line:
 *        control characters (a newline in a quoted argument or file name) become '?'.
 * @return @p status, so that `return hist_fail(HIST_ERR_IO, "...")` reads well.
 * @param status the status to return
 * @param fmt printf format of the message
 */
hist_status hist_fail(hist_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** @brief The exit status for a status code, as docs/RELIABILITY.md ("Exit statuses") lists them
 *         for every program: 0, 1 (mismatch), 2 (usage), 3 (runtime) or 4 (could not run: an
 *         implementation named with --impl, or a program that needs a GPU without one).
 * @param status the status
 * @return the exit status
 */
int hist_exit_code(hist_status status);

/**
 * @brief How a program of the course ends on a failure: one line on standard error, `PROGRAM:
 *        could not run: WHY` where it could not run (no GPU, outside its constraints: exit status
 *        4) or `PROGRAM: WHY` otherwise (hist_last_error()), and the exit status to return.
 * @param program the program's name
 * @param status the failure
 * @return hist_exit_code(@p status)
 */
int hist_program_failed(const char *program, hist_status status);

#ifdef __cplusplus
}
#endif

#endif /* HIST_H */
