/**
 * @file gpu.h
 * @brief The GPU side of the harness, behind a plain C API: device detection, device buffers,
 *        CUDA-event timing with the L2 flushed before every repetition, and the read-only floor.
 *
 * Built with nvcc; everything else in the harness is C and never includes a CUDA header.
 */
#ifndef HIST_GPU_H
#define HIST_GPU_H

#include "fresh.h"
#include "hist.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Why GPU work is skipped on a machine without an NVIDIA GPU or driver: the words every
 *  program and test uses for it (any other failure of the runtime is reported as it is). */
#define HIST_NO_GPU "no NVIDIA driver/GPU found"

/**
 * @brief Find the CUDA device to use (device 0) and read its properties, capped to the emulated
 *        GPU's limits when @p emulation names one (gpu_limits.h: `--gpu-limits`, `GPU_LIMITS`).
 * @return HIST_OK, or HIST_ERR_NO_DEVICE with the reason in hist_last_error(): HIST_NO_GPU when
 *         there is no driver or no device, otherwise the runtime's own error; the runner then
 *         skips GPU work instead of failing. HIST_ERR_USAGE when the emulated GPU is unknown or
 *         has more shared memory or threads per SM than this one.
 * @param emulation the GPU to run as if on (hist_options.emulation), or NULL for the real one
 * @param dev filled with the device's properties
 */
hist_status hist_device_open(const hist_emulation *emulation, hist_device *dev);

/**
 * @brief Read GPU @p ordinal's properties, capped like hist_device_open()'s (the current device
 *        is left as it is): for programs that drive several GPUs.
 * @param ordinal the CUDA device number
 * @param emulation as hist_device_open()'s (another device's `emulation`, to open it alike)
 * @param dev filled with its properties
 * @return HIST_OK, HIST_ERR_CUDA, or HIST_ERR_USAGE as hist_device_open()
 */
hist_status hist_device_read(int ordinal, const hist_emulation *emulation, hist_device *dev);

/**
 * @brief How many CUDA GPUs this process sees (0 without a driver or a GPU).
 * @return the count
 */
int hist_gpu_count(void);

/** @brief A GPU session: the input on the device, the output, the L2-flush buffer, events. */
typedef struct hist_gpu hist_gpu;

/**
 * @brief Copy a problem's input to the device and allocate everything timing needs.
 *
 * Refuses, before allocating, a problem whose buffers do not fit in the device's free memory.
 * @param out        set to the new session
 * @param dev        from hist_device_open()
 * @param p          the problem
 * @param h_samples  `[rows, channels]` host input; registered as pinned memory while the session
 *                   lives so that end-to-end times use the fastest host-to-device copy
 * @param workspace_bytes  the largest workspace any implementation will ask for
 * @return HIST_OK, HIST_ERR_NOMEM or HIST_ERR_CUDA with a message.
 */
hist_status hist_gpu_create(hist_gpu **out, const hist_device *dev, const hist_problem *p,
                            const uint8_t *h_samples, size_t workspace_bytes);

/**
 * @brief Free a session (NULL is fine).
 * @param g the session
 */
void hist_gpu_destroy(hist_gpu *g);

/**
 * @brief Time the read-only floor: a streaming kernel that reads every input byte once with
 *        16-byte loads and writes one word per block.
 * @param g       the session
 * @param warmup  untimed runs first
 * @param reps    timed runs, the L2 flushed before each
 * @param out     median and min
 * @return HIST_OK or HIST_ERR_CUDA.
 */
hist_status hist_gpu_time_floor(hist_gpu *g, int warmup, int reps, hist_stats *out);

/**
 * @brief The same read-only pass on a *clean* L2: before each run the L2 is emptied by reading
 *        twice its size (and the device synchronised), not by writing it, so no dirty line is
 *        written back inside the timed region. hist_gpu_time_floor() times the floor exactly like
 *        every kernel (and like CS149's harness: after a write that leaves the L2 dirty); this is
 *        the hardware's limit for reading the input once.
 * @return HIST_OK or HIST_ERR_CUDA.
 * @param g the session (its input is read)
 * @param warmup untimed runs first
 * @param reps timed runs
 * @param out their median and minimum
 */
hist_status hist_gpu_time_floor_clean(hist_gpu *g, int warmup, int reps, hist_stats *out);

/**
 * @brief Time the second roof, the shared-atomic ceiling: as many conflict-free shared-memory
 *        `atomicAdd`s as the problem has samples (one per sample, as the final kernel issues),
 *        spread over one block of 1,024 threads per SM, timed like every kernel. A kernel that
 *        counts in shared memory takes at least max(floor, ceiling); on an H100 the floor is the
 *        larger, on an H200 (more bandwidth, the same SMs) the two are close.
 * @param g the session (its problem sets the number of adds)
 * @param warmup untimed runs first
 * @param reps timed runs
 * @param out median and min
 * @param counted receives the adds the blocks' histograms hold after the last run (may be NULL)
 * @return HIST_OK, HIST_ERR_UNSUPPORTED (more than 2^32 adds per thread) or HIST_ERR_CUDA
 */
hist_status hist_gpu_time_atomic_ceiling(hist_gpu *g, int warmup, int reps, hist_stats *out,
                                         uint64_t *counted);

/**
 * @brief The floor kernel's checksum: the XOR of the input read as little-endian 32-bit words
 *        (zero-padded to 16 bytes), so a test can prove it read every byte.
 * @param g the session
 * @param checksum the XOR
 * @return HIST_OK, or the CUDA error
 */
hist_status hist_gpu_floor_checksum(hist_gpu *g, uint32_t *checksum);

/**
 * @brief Run and time one device implementation.
 *
 * Each repetition: poison the output (0xFF bytes), flush the L2, then time with events the call
 * (which zeros the output itself); end-to-end repetitions also time the host-to-device copy of
 * the input and the copy of the result back.
 * @param g        the session
 * @param impl     a HIST_DEVICE implementation whose constraints hold
 * @param warmup   untimed calls first
 * @param reps     timed calls (0: run once, untimed)
 * @param kernel   kernel-only statistics (may be NULL)
 * @param e2e      end-to-end statistics (may be NULL: not measured)
 * @param h_hist   receives the `[channels, bins]` result of the last call
 * @param progress 1: show "name rep i/n" on stderr (the caller checks it is a terminal)
 * @return HIST_OK, the implementation's error, or HIST_ERR_CUDA.
 */
hist_status hist_gpu_time_impl(hist_gpu *g, const hist_impl *impl, int warmup, int reps,
                               hist_stats *kernel, hist_stats *e2e, uint32_t *h_hist, int progress);

/**
 * @brief Time one device implementation the way `make test` grades it: on fresh inputs
 *        (fresh.h). Before each call, untimed, its input is made on the device from the session's
 *        (the base): values renamed, rows rotated, at another place of a buffer of its own; then,
 *        as hist_gpu_time_impl(), the output is poisoned, the L2 flushed and the call timed with
 *        events; after the stop event, untimed, its output is copied back and checked exactly.
 * @param g the session; its input is @p f's base, its problem @p f's
 * @param impl a HIST_DEVICE implementation whose constraints hold
 * @param f the sequence (hist_fresh_init() with the session's host input)
 * @param warmup untimed calls first (checked too)
 * @param reps timed calls
 * @param kernel their median and minimum
 * @param h_hist receives each call's output, `[channels, bins]`
 * @return HIST_OK, HIST_ERR_MISMATCH (a call's output not exact: hist_fresh_check()), the
 *         implementation's error, or HIST_ERR_CUDA
 */
hist_status hist_gpu_time_impl_fresh(hist_gpu *g, const hist_impl *impl, hist_fresh *f, int warmup,
                                     int reps, hist_stats *kernel, uint32_t *h_hist);

/** @brief Queues some GPU work on the default stream; returns its launch status. */
typedef hist_status (*hist_gpu_work_fn)(void *ctx);

/**
 * @brief Time any GPU work the way the harness times implementations: @p warmup untimed calls,
 *        then @p reps calls, each after an L2 flush, between CUDA events; median and min.
 * @param dev     the device (its L2 size sets the flush)
 * @param launch  queues the work
 * @param ctx     passed to @p launch
 * @param warmup  untimed calls first
 * @param reps    timed calls
 * @param out     median and min
 * @return HIST_OK, the work's error, or HIST_ERR_CUDA / HIST_ERR_NOMEM.
 */
hist_status hist_gpu_time_work(const hist_device *dev, hist_gpu_work_fn launch, void *ctx,
                               int warmup, int reps, hist_stats *out);

/** @brief What empties one GPU's L2 between timed calls (hist_l2_flush_create()). */
typedef struct hist_l2_flush hist_l2_flush;

/**
 * @brief A buffer of twice GPU @p dev's real L2 on that GPU, written to evict everything else:
 *        the flush every event-timed call of the harness gets, for programs that time work on
 *        several GPUs on the host clock (hist_time_calls()).
 * @param out receives the flush
 * @param dev the GPU (its ordinal and real L2 size)
 * @return HIST_OK or HIST_ERR_CUDA
 */
hist_status hist_l2_flush_create(hist_l2_flush **out, const hist_device *dev);

/**
 * @brief Evict @p f's GPU's L2 and wait until it is done (the current device is kept).
 * @param f the flush
 * @return HIST_OK or HIST_ERR_CUDA
 */
hist_status hist_l2_flush_run(const hist_l2_flush *f);

/**
 * @brief Free a flush (NULL is fine).
 * @param f the flush
 */
void hist_l2_flush_destroy(hist_l2_flush *f);

/**
 * @brief Run a device implementation once with its input placed @p offset bytes past the start of
 *        a device allocation that ends with the input (cudaMalloc's are 256-byte aligned; a
 * caller's pointer, such as a PyTorch slice, need not be): a read past either end is out of bounds.
 * @param dev the device
 * @param impl a HIST_DEVICE implementation whose constraints hold
 * @param p the problem
 * @param h_samples the `[rows, channels]` host input
 * @param offset bytes between the allocation's start and the input
 * @param caps the call's `hist_args.caps` (hist.h), or NULL: none
 * @param h_hist receives the `[channels, bins]` result
 * @return HIST_OK, the implementation's error, or HIST_ERR_CUDA
 */
hist_status hist_gpu_run_offset(const hist_device *dev, const hist_impl *impl,
                                const hist_problem *p, const uint8_t *h_samples, size_t offset,
                                const hist_caps *caps, uint32_t *h_hist);

/**
 * @brief Allocate @p bytes of pinned (page-locked) host memory: the memory a copy to the GPU can
 *        read directly, at the link's full speed (cudaMallocHost).
 * @param out set to the memory (NULL on failure)
 * @param bytes how many bytes (0 allocates 1)
 * @return HIST_OK, HIST_ERR_NO_DEVICE or HIST_ERR_NOMEM with a message
 */
hist_status hist_host_pinned_alloc(void **out, size_t bytes);

/**
 * @brief Free memory from hist_host_pinned_alloc() (NULL is fine).
 * @param p the memory
 */
void hist_host_pinned_free(void *p);

/**
 * @brief Time the pinned-copy floor of host-input implementations: the @p bytes at @p h_pinned
 *        copied once to the GPU, in back-to-back pieces of at most 256 MiB into one device
 *        buffer (so input larger than the GPU can be timed too), on the host clock from the first
 *        copy queued to the last one finished; @p warmup untimed passes first, median and min of
 *        @p reps.
 * @param dev the GPU
 * @param h_pinned the input, in pinned host memory
 * @param bytes how many bytes
 * @param warmup untimed passes first
 * @param reps timed passes
 * @param out their median and minimum
 * @return HIST_OK, HIST_ERR_NOMEM or HIST_ERR_CUDA
 */
hist_status hist_gpu_time_copy_floor(const hist_device *dev, const uint8_t *h_pinned,
                                     uint64_t bytes, int warmup, int reps, hist_stats *out);

/**
 * @brief The pinned-copy floor and some host-timed work, alternately: each round one floor pass
 *        (as hist_gpu_time_copy_floor()), then @p work, which must finish before it returns
 *        (a host-input implementation synchronises), each on the host clock. Alternating lets
 *        both see the same state of the link and of host memory, which on a shared machine
 *        drifts by more than the difference between pipelines.
 * @param dev the GPU
 * @param h_pinned the input, in pinned host memory
 * @param bytes how many bytes
 * @param before run before each round, untimed (NULL: nothing): a fresh input (fresh.h)
 * @param work the work to time after each floor pass
 * @param ctx passed to @p before and @p work
 * @param warmup untimed rounds first
 * @param reps timed rounds
 * @param floor the floor's median and minimum
 * @param work_time the work's median and minimum
 * @return HIST_OK, the work's error, HIST_ERR_NOMEM or HIST_ERR_CUDA
 */
hist_status hist_gpu_time_alternately(const hist_device *dev, const uint8_t *h_pinned,
                                      uint64_t bytes, hist_gpu_work_fn before,
                                      hist_gpu_work_fn work, void *ctx, int warmup, int reps,
                                      hist_stats *floor, hist_stats *work_time);

/**
 * @brief Time a no-op region with events (for tests of the timer): @p sleep_us of GPU spin.
 * @return HIST_OK or HIST_ERR_CUDA; @p elapsed_us gets the event-measured time.
 * @param dev the device
 * @param sleep_us how long the kernel spins
 * @param elapsed_us what the events measured
 */
hist_status hist_gpu_time_spin(const hist_device *dev, double sleep_us, double *elapsed_us);

#ifdef __cplusplus
}
#endif

#endif /* HIST_GPU_H */
