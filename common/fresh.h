/**
 * @file fresh.h
 * @brief Fresh inputs for a graded timing (`make test`, `make grade`): every call gets an input
 *        it cannot predict, and every call's output is checked exactly.
 *
 * Call k's input is the base input (a preset's samples) with its values renamed by a random
 * permutation of all 2^bits values, its rows rotated by a random count, placed at one of
 * HIST_FRESH_SLOTS places of its buffer, a page apart. Its exact result follows from the base's
 * count of each value in each channel (counted once, by the CPU reference) without another pass
 * over the input, and renaming values and rotating rows leave the data's distribution as it was
 * (uniform stays uniform), so a correct implementation takes the same time as on the base.
 * The second call starts where the first did, with other contents. An implementation that keeps
 * an answer from an earlier call (for its problem, or for its input's address) or skips work after
 * the first call returns a wrong result on some call, and the timing says which.
 */
#ifndef HIST_FRESH_H
#define HIST_FRESH_H

#include "hist.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How many places a call's input may start at in its buffer. */
#define HIST_FRESH_SLOTS 4
/** @brief How far apart those places are: a page, so that a kernel, or a copy from pinned memory,
 *  meets its input as aligned as at the start of an allocation. */
#define HIST_FRESH_SLOT_BYTES 4096

/** @brief The inputs of one graded timing, one call after another (hist_fresh_next()). */
typedef struct hist_fresh {
    hist_problem problem;   /**< the problem every call solves */
    const uint8_t *base;    /**< the base input (host memory, the caller's) */
    uint32_t values;        /**< 2^bits: 256 or 65,536 */
    uint32_t *value_counts; /**< `[channels, values]`: each value's count in each channel of base */
    uint16_t *perm;         /**< `[values]`: value v of the base is perm[v] in this call's input */
    uint64_t rotate_rows;   /**< this call's row r is the base's row (r + rotate_rows) % rows */
    unsigned slot;          /**< this call's input starts slot * HIST_FRESH_SLOT_BYTES into its
                                 buffer */
    uint32_t *expected;     /**< `[channels, bins]`: this call's exact result */
    uint64_t seed;          /**< the seed of the whole sequence */
    uint64_t draws;         /**< random numbers drawn so far */
    int calls;              /**< calls drawn so far (this call is number calls - 1) */
} hist_fresh;

/**
 * @brief Start a sequence of fresh inputs: count each value of @p base in each channel (on every
 *        core). The first call is drawn by hist_fresh_next().
 * @param f filled in (free with hist_fresh_free())
 * @param p the problem
 * @param base its input, `[rows, channels]`, kept by pointer while @p f is used
 * @param seed the sequence's seed (hist_fresh_seed(): one nobody can know beforehand)
 * @return HIST_OK or HIST_ERR_NOMEM
 */
hist_status hist_fresh_init(hist_fresh *f, const hist_problem *p, const uint8_t *base,
                            uint64_t seed);

/**
 * @brief Free what hist_fresh_init() allocated (a zeroed @p f is fine).
 * @param f the sequence
 */
void hist_fresh_free(hist_fresh *f);

/**
 * @brief A seed nobody can know before the run: the clock's nanoseconds and the process id.
 * @return the seed
 */
uint64_t hist_fresh_seed(void);

/**
 * @brief Draw the next call: its renaming of values, its rotation of rows, its place, and its
 *        exact result (hist_fresh's `expected`).
 * @param f the sequence
 */
void hist_fresh_next(hist_fresh *f);

/**
 * @brief Bytes of a buffer that holds a call's input at any of its places.
 * @param f the sequence
 * @return the input's bytes plus the places' span
 */
size_t hist_fresh_buffer_bytes(const hist_fresh *f);

/**
 * @brief Where this call's input starts in its buffer.
 * @param f the sequence
 * @return bytes from the buffer's start, a multiple of HIST_FRESH_SLOT_BYTES
 */
size_t hist_fresh_offset(const hist_fresh *f);

/**
 * @brief Write this call's input into @p buffer (host memory of hist_fresh_buffer_bytes()), at
 *        hist_fresh_offset(), on every core.
 * @param f the sequence
 * @param buffer the buffer
 */
void hist_fresh_make(const hist_fresh *f, uint8_t *buffer);

/**
 * @brief Compare a call's output with its exact result.
 * @param f the sequence (its current call)
 * @param name the implementation, for the message
 * @param got the output, `[channels, bins]`
 * @return HIST_OK, or HIST_ERR_MISMATCH with the call, the first counter that differs and why
 *         that matters in hist_last_error()
 */
hist_status hist_fresh_check(const hist_fresh *f, const char *name, const uint32_t *got);

/**
 * @brief Time a host implementation on fresh inputs: before each call, untimed, the previous
 *        call's output is checked, the next input is made in @p buffer and the output poisoned;
 *        @p warmup untimed calls, then @p reps timed ones on the host clock, every one checked.
 * @param impl a host implementation whose constraints hold
 * @param f the sequence (hist_fresh_init() with the base input)
 * @param buffer host memory of hist_fresh_buffer_bytes()
 * @param hist the output, `channels * bins` counters
 * @param threads worker threads
 * @param warmup untimed calls first
 * @param reps timed calls (at least 1)
 * @param out their median and minimum
 * @return HIST_OK, HIST_ERR_MISMATCH (a call's output not exact: hist_fresh_check()), or the
 *         implementation's failure
 */
hist_status hist_time_host_fresh(const hist_impl *impl, hist_fresh *f, uint8_t *buffer,
                                 uint32_t *hist, int threads, int warmup, int reps,
                                 hist_stats *out);

/**
 * @brief Time a host-input implementation on fresh inputs, alternately with the pinned-copy floor
 *        (as hist_time_host_input()): each round, untimed, the previous call's output is checked,
 *        the next input is made in @p buffer and the output poisoned; then the floor copies
 *        hist_input_bytes() from @p pinned, then the implementation runs; every call checked.
 * @param impl a host-input implementation whose constraints hold
 * @param dev the GPU
 * @param f the sequence
 * @param buffer host memory of hist_fresh_buffer_bytes(), pinned for a HIST_PINNED_INPUT one
 * @param pinned pinned host memory of at least hist_input_bytes(), for the floor
 * @param hist the output (host memory)
 * @param warmup untimed rounds first
 * @param reps timed rounds (at least 1)
 * @param time the implementation's times
 * @param copy_floor the floor's times
 * @return HIST_OK, HIST_ERR_MISMATCH, or the first failure
 */
hist_status hist_time_host_input_fresh(const hist_impl *impl, const hist_device *dev, hist_fresh *f,
                                       uint8_t *buffer, const uint8_t *pinned, uint32_t *hist,
                                       int warmup, int reps, hist_stats *time,
                                       hist_stats *copy_floor);

#ifdef __cplusplus
}
#endif

#endif /* HIST_FRESH_H */
