/**
 * @file npy.h
 * @brief The `.npy` format (NumPy's own, version 1.0 to 3.0): uint8 2-D input, uint32 output.
 *
 * A header is `\x93NUMPY`, a version, a little-endian header length and a Python dict literal
 * such as `{'descr': '|u1', 'fortran_order': False, 'shape': (1048576, 512), }`; the data follows.
 */
#ifndef HIST_NPY_H
#define HIST_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "outfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a parsed `.npy` header says. */
typedef struct hist_npy_header {
    char descr[16];     /**< dtype string, e.g. "|u1" */
    int fortran_order;  /**< 1 if column-major */
    int ndim;           /**< number of dimensions (0..8) */
    uint64_t shape[8];  /**< the dimensions */
    size_t data_offset; /**< where the data starts in the file */
    unsigned bits;      /**< bits a sample, once the samples' checks have read it: 8 or 16 */
} hist_npy_header;

/**
 * @brief Parse the header at the start of @p buf (the first @p len bytes of a file).
 * @return HIST_OK, or HIST_ERR_FORMAT with the reason in hist_last_error().
 * @param buf the first bytes of the file
 * @param len how many
 * @param out the header
 */
hist_status hist_npy_parse_header(const uint8_t *buf, size_t len, hist_npy_header *out);

/**
 * @brief Read a `[rows, channels]` uint8 C-order array.
 *
 * The file must be a regular file (a FIFO or device is refused without being opened), its shape
 * within the harness's limits (1..HIST_MAX_CHANNELS channels, at most HIST_MAX_ROWS rows) and hold
 * exactly `rows * channels` bytes of data after its header; all of this is checked before any
 * data are read.
 * @param path      the file
 * @param samples   set to a malloc'd buffer the caller frees (NULL when the array is empty)
 * @param rows      set to the first dimension
 * @param channels  set to the second dimension
 * @return HIST_OK, HIST_ERR_IO, HIST_ERR_FORMAT or HIST_ERR_NOMEM, with a message.
 */
hist_status hist_npy_read_u8(const char *path, uint8_t **samples, uint64_t *rows,
                             uint64_t *channels);

/**
 * @brief Read a `[rows, channels]` C-order array of @p bits-bit samples (uint8, or little-endian
 *        uint16 `<u2`), checked as hist_npy_read_u8() checks its file; a file of the other sample
 *        width is refused with the option that reads it.
 * @param path      the file
 * @param bits      8 or 16 (the problem's `--bits`)
 * @param samples   set to a malloc'd buffer of `rows * channels * bits / 8` bytes the caller frees
 *                  (NULL when the array is empty)
 * @param rows      set to the first dimension
 * @param channels  set to the second dimension
 * @return HIST_OK, HIST_ERR_USAGE (the other sample width), HIST_ERR_IO, HIST_ERR_FORMAT or
 *         HIST_ERR_NOMEM, with a message.
 */
hist_status hist_npy_read_samples(const char *path, unsigned bits, uint8_t **samples,
                                  uint64_t *rows, uint64_t *channels);

/**
 * @brief Read and check a `.npy` file's header only, as hist_npy_read_u8() checks it: for
 *        programs that read part of the rows (day 07's ranks, each its own share).
 * @param path the file
 * @param h the header (shape[0] rows, shape[1] channels, data_offset)
 * @return HIST_OK, HIST_ERR_IO or HIST_ERR_FORMAT, with a message.
 */
hist_status hist_npy_open_u8(const char *path, hist_npy_header *h);

/**
 * @brief Read rows `first_row .. first_row + rows - 1` of a file hist_npy_open_u8() checked into
 *        @p samples, in pieces read at once on every core (positioned reads: no piece reads
 *        another's bytes, nothing before or after the rows is read).
 * @param path the file
 * @param h its header, from hist_npy_open_u8()
 * @param first_row the first row
 * @param rows how many rows
 * @param samples `rows * channels` bytes
 * @return HIST_OK, HIST_ERR_USAGE (rows outside the file), HIST_ERR_IO (unreadable, or changed
 *         since the header was read) or HIST_ERR_FORMAT (truncated), with a message.
 */
hist_status hist_npy_read_rows_u8(const char *path, const hist_npy_header *h, uint64_t first_row,
                                  uint64_t rows, uint8_t *samples);

/**
 * @brief Write a `[rows, cols]` uint32 array, atomically.
 *
 * The data goes to a temporary file in the same folder that is renamed over @p path only once
 * complete, so @p path never holds a partial file.
 * @return HIST_OK or HIST_ERR_IO with a message.
 * @param path the file
 * @param data `rows * cols` counters
 * @param rows rows
 * @param cols columns
 */
hist_status hist_npy_write_u32(const char *path, const uint32_t *data, uint64_t rows,
                               uint64_t cols);

/**
 * @brief Write a `[rows, cols]` uint8 array, atomically (used to save generated datasets).
 * @return HIST_OK or HIST_ERR_IO with a message.
 * @param path the file
 * @param data `rows * cols` bytes
 * @param rows rows
 * @param cols columns
 */
hist_status hist_npy_write_u8(const char *path, const uint8_t *data, uint64_t rows, uint64_t cols);

/**
 * @brief Write a `[rows, cols]` uint32 array into a temporary file beside @p path, closed but not
 *        yet renamed: hist_outfile_commit() makes it @p path, hist_outfile_discard() drops it.
 * @return HIST_OK or HIST_ERR_IO with the system's cause (nothing is left behind then).
 * @param o the staged file (hist_outfile_commit() puts it in place)
 * @param path the destination
 * @param data `rows * cols` counters
 * @param rows rows
 * @param cols columns
 */
hist_status hist_npy_stage_u32(hist_outfile *o, const char *path, const uint32_t *data,
                               uint64_t rows, uint64_t cols);

/**
 * @brief hist_npy_stage_u32() for a uint8 array (a saved dataset).
 * @param o the staged file
 * @param path the destination
 * @param data `rows * cols` bytes
 * @param rows rows
 * @param cols columns
 * @return HIST_OK, or HIST_ERR_IO
 */
hist_status hist_npy_stage_u8(hist_outfile *o, const char *path, const uint8_t *data, uint64_t rows,
                              uint64_t cols);

/**
 * @brief hist_npy_stage_u32() for a dataset of @p bits-bit samples (`|u1`, or `<u2` for 16).
 * @param o the staged file
 * @param path the destination
 * @param data `rows * cols` samples, `bits / 8` bytes each
 * @param rows rows
 * @param cols columns
 * @param bits 8 or 16
 * @return HIST_OK, or HIST_ERR_IO
 */
hist_status hist_npy_stage_samples(hist_outfile *o, const char *path, const uint8_t *data,
                                   uint64_t rows, uint64_t cols, unsigned bits);

#ifdef __cplusplus
}
#endif

#endif /* HIST_NPY_H */
