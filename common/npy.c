/**
 * @file npy.c
 * @brief A strict `.npy` reader (uint8 or little-endian uint16, 2-D, C order) and an atomic
 *        writer.
 */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"

#include "data.h"
#include "parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy writer assumes a little-endian host"
#endif

/** @brief The 6 bytes every .npy file starts with. */
#define NPY_MAGIC "\x93NUMPY"
/** @brief Length of NPY_MAGIC. */
#define NPY_MAGIC_LEN 6
/** @brief The longest version 2/3 header accepted. */
#define NPY_MAX_HEADER (1u << 20) /* a sane bound for version 2/3 headers */

/* ---- header parsing: a tiny reader for the one dict literal numpy writes ---- */

/** @brief A read position in the header text, and its end. */
typedef struct cursor {
    const char *p;   /**< next character */
    const char *end; /**< one past the last */
} cursor;            /**< @brief see struct cursor */

static void skip_space(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        ++c->p;
}

static int accept(cursor *c, char ch) {
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        ++c->p;
        return 1;
    }
    return 0;
}

/* A quoted Python string ('...' or "..."), copied into out (at most cap - 1 chars). */
static int parse_string(cursor *c, char *out, size_t cap) {
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    const char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (n + 1 >= cap)
            return 0;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return 0;
    ++c->p;
    out[n] = '\0';
    return 1;
}

static int parse_uint(cursor *c, uint64_t *out) {
    skip_space(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return 0;
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned digit = (unsigned)(*c->p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return 0;
        v = v * 10 + digit;
        ++c->p;
    }
    *out = v;
    return 1;
}

static int parse_word(cursor *c, const char *word) {
    skip_space(c);
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

/* (a, b, ...) with an optional trailing comma; () is a 0-d shape. */
static int parse_shape(cursor *c, hist_npy_header *h) {
    if (!accept(c, '('))
        return 0;
    h->ndim = 0;
    if (accept(c, ')'))
        return 1;
    for (;;) {
        if (h->ndim == 8 || !parse_uint(c, &h->shape[h->ndim]))
            return 0;
        h->ndim++;
        if (accept(c, ')'))
            return 1;
        if (!accept(c, ','))
            return 0;
        if (accept(c, ')'))
            return 1;
    }
}

hist_status hist_npy_parse_header(const uint8_t *buf, size_t len, hist_npy_header *out) {
    if (len < NPY_MAGIC_LEN + 4 || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return hist_fail(HIST_ERR_FORMAT, "not a .npy file (no \\x93NUMPY magic)");
    const unsigned major = buf[6];
    size_t header_len, prefix;
    if (major == 1) {
        header_len = (size_t)buf[8] | (size_t)buf[9] << 8;
        prefix = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return hist_fail(HIST_ERR_FORMAT, "truncated .npy header");
        header_len =
            (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        prefix = 12;
        if (header_len > NPY_MAX_HEADER)
            return hist_fail(HIST_ERR_FORMAT, ".npy header of %zu bytes is too long", header_len);
    } else {
        return hist_fail(HIST_ERR_FORMAT, "unsupported .npy version %u.%u", major, buf[7]);
    }
    if (len - prefix < header_len)
        return hist_fail(HIST_ERR_FORMAT, "truncated .npy header");

    hist_npy_header h;
    memset(&h, 0, sizeof h);
    h.ndim = -1;
    h.fortran_order = -1;
    h.data_offset = prefix + header_len;
    cursor c = {(const char *)buf + prefix, (const char *)buf + prefix + header_len};
    if (header_len == 0 || c.end[-1] != '\n')
        return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (no final newline)");
    c.end--;
    if (!accept(&c, '{'))
        return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (no dict)");
    while (!accept(&c, '}')) {
        char key[32];
        if (!parse_string(&c, key, sizeof key) || !accept(&c, ':'))
            return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (bad key)");
        int ok;
        if (strcmp(key, "descr") == 0) {
            ok = parse_string(&c, h.descr, sizeof h.descr);
        } else if (strcmp(key, "fortran_order") == 0) {
            ok = 1;
            if (parse_word(&c, "True"))
                h.fortran_order = 1;
            else if (parse_word(&c, "False"))
                h.fortran_order = 0;
            else
                ok = 0;
        } else if (strcmp(key, "shape") == 0) {
            ok = parse_shape(&c, &h);
        } else {
            return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (unknown key '%s')", key);
        }
        if (!ok)
            return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (bad value for '%s')", key);
        if (!accept(&c, ',')) {
            if (!accept(&c, '}'))
                return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (expected , or })");
            break;
        }
    }
    skip_space(&c);
    if (c.p != c.end)
        return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (text after the dict)");
    if (h.descr[0] == '\0' || h.fortran_order < 0 || h.ndim < 0)
        return hist_fail(HIST_ERR_FORMAT, "malformed .npy header (descr, fortran_order and shape "
                                          "are all required)");
    *out = h;
    return HIST_OK;
}

/* ---- reading ---- */

static int is_uint8_descr(const char *d) {
    return strcmp(d, "|u1") == 0 || strcmp(d, "<u1") == 0 || strcmp(d, ">u1") == 0 ||
           strcmp(d, "=u1") == 0 || strcmp(d, "u1") == 0 || strcmp(d, "B") == 0;
}

static hist_status read_exact(FILE *f, void *dst, size_t n, const char *path) {
    if (n > 0 && fread(dst, 1, n, f) != n)
        return ferror(f) ? hist_fail(HIST_ERR_IO, "cannot read '%s': %s", path, strerror(errno))
                         : hist_fail(HIST_ERR_FORMAT, "'%s' is truncated", path);
    return HIST_OK;
}

/* Put the file's name in front of the message the header parser left. */
static hist_status prefix_error(hist_status s, const char *path) {
    char reason[512];
    snprintf(reason, sizeof reason, "%s", hist_last_error());
    return hist_fail(s, "'%s': %s", path, reason);
}

/* Open @p path for reading, refusing anything but a regular file (a FIFO would block the
   open); its size in *bytes. */
static hist_status open_regular(const char *path, FILE **out, uint64_t *bytes) {
    struct stat before;
    if (stat(path, &before) == 0 && !S_ISREG(before.st_mode))
        return hist_fail(HIST_ERR_IO, "'%s' is not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return hist_fail(HIST_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return hist_fail(HIST_ERR_IO, "'%s' is not a regular file", path);
    }
    *out = f;
    *bytes = (uint64_t)st.st_size;
    return HIST_OK;
}

/* Read and parse the header of the open file @p f: the fixed prefix says how long the header
   is, then prefix and header are read into one buffer and parsed. */
static hist_status read_header(FILE *f, const char *path, uint64_t file_bytes, hist_npy_header *h) {
    uint8_t prefix[12] = {0};
    size_t got = fread(prefix, 1, sizeof prefix, f);
    size_t header_total = 0;
    if (got >= 10 && memcmp(prefix, NPY_MAGIC, NPY_MAGIC_LEN) == 0) {
        if (prefix[6] == 1)
            header_total = 10 + ((size_t)prefix[8] | (size_t)prefix[9] << 8);
        else if (got == 12)
            header_total = 12 + ((size_t)prefix[8] | (size_t)prefix[9] << 8 |
                                 (size_t)prefix[10] << 16 | (size_t)prefix[11] << 24);
    }
    if (header_total == 0 || header_total > NPY_MAX_HEADER + 12 || header_total > file_bytes) {
        hist_status s = hist_npy_parse_header(prefix, got, h); /* names the precise problem */
        return s != HIST_OK ? prefix_error(s, path)
                            : hist_fail(HIST_ERR_FORMAT, "'%s': truncated .npy header", path);
    }
    uint8_t *header = malloc(header_total);
    if (!header)
        return hist_fail(HIST_ERR_NOMEM, "out of memory reading '%s'", path);
    hist_status s = HIST_OK;
    if (fseek(f, 0, SEEK_SET) != 0)
        s = hist_fail(HIST_ERR_IO, "cannot read '%s'", path);
    if (s == HIST_OK)
        s = read_exact(f, header, header_total, path);
    if (s == HIST_OK && (s = hist_npy_parse_header(header, header_total, h)) != HIST_OK)
        s = prefix_error(s, path);
    free(header);
    return s;
}

/* The header describes what the course reads: uint8 (or, where @p allow16, little-endian
   uint16), C order, 2-D within the limits, and exactly as many data bytes as the file holds;
   h->bits set to 8 or 16. */
static hist_status check_samples_header(hist_npy_header *h, const char *path, uint64_t file_bytes,
                                        int allow16) {
    h->bits = is_uint8_descr(h->descr) ? 8 : strcmp(h->descr, "<u2") == 0 ? 16 : 0;
    if (h->bits == 0 || (h->bits == 16 && !allow16))
        return hist_fail(HIST_ERR_FORMAT, "'%s': dtype '%s' is not uint8 (|u1)%s", path, h->descr,
                         allow16 ? " or little-endian uint16 (<u2)" : "");
    if (h->fortran_order)
        return hist_fail(HIST_ERR_FORMAT,
                         "'%s' is in Fortran order; save it C-ordered "
                         "(numpy.ascontiguousarray)",
                         path);
    if (h->ndim != 2)
        return hist_fail(HIST_ERR_FORMAT, "'%s' has %d dimensions; expected 2 [rows, channels]",
                         path, h->ndim);
    const unsigned long long rows = h->shape[0], channels = h->shape[1];
    if (channels < 1 || channels > HIST_MAX_CHANNELS || rows > HIST_MAX_ROWS)
        return hist_fail(HIST_ERR_FORMAT,
                         "'%s' has shape (%llu, %llu); accepted: 1..%u channels and at most %llu "
                         "rows (uint32 counts)",
                         path, rows, channels, HIST_MAX_CHANNELS,
                         (unsigned long long)HIST_MAX_ROWS);
    if (rows * channels * (h->bits / 8) != file_bytes - h->data_offset)
        return hist_fail(HIST_ERR_FORMAT,
                         "'%s': shape (%llu, %llu) needs %llu bytes of data, the file holds %llu",
                         path, rows, channels, rows * channels * (h->bits / 8),
                         (unsigned long long)(file_bytes - h->data_offset));
    return HIST_OK;
}

/* The @p bytes of data that follow the header, in a new buffer (NULL for none). */
static hist_status read_data(FILE *f, const char *path, uint64_t bytes, uint8_t **out) {
    *out = NULL;
    if (bytes == 0)
        return HIST_OK;
    hist_status s = hist_host_memory_check(bytes, "the file's samples");
    if (s != HIST_OK)
        return s;
    uint8_t *data = bytes <= SIZE_MAX ? malloc((size_t)bytes) : NULL;
    if (!data)
        return hist_fail(HIST_ERR_NOMEM, "out of memory: '%s' needs %llu bytes", path,
                         (unsigned long long)bytes);
    if ((s = read_exact(f, data, (size_t)bytes, path)) != HIST_OK) {
        free(data);
        return s;
    }
    *out = data;
    return HIST_OK;
}

hist_status hist_npy_open_u8(const char *path, hist_npy_header *h) {
    FILE *f = NULL;
    uint64_t file_bytes = 0;
    hist_status s = open_regular(path, &f, &file_bytes);
    if (s != HIST_OK)
        return s;
    s = read_header(f, path, file_bytes, h);
    if (s == HIST_OK)
        s = check_samples_header(h, path, file_bytes, 0);
    fclose(f);
    return s;
}

/** @brief What one thread of hist_npy_read_rows_u8() reads: bytes [begin, end) of the range. */
typedef struct range_read {
    int fd;          /**< the open file */
    uint64_t offset; /**< the range's first byte in the file */
    uint8_t *dst;    /**< where the range goes */
    int error;       /**< the first errno seen (0: none; -1: the file ended early) */
} range_read;

static void read_piece(void *ctx, uint64_t begin, uint64_t end) {
    range_read *r = ctx;
    while (begin < end) {
        const size_t want = end - begin < (UINT64_C(1) << 30) ? (size_t)(end - begin) : 1u << 30;
        const ssize_t got = pread(r->fd, r->dst + begin, want, (off_t)(r->offset + begin));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            __atomic_store_n(&r->error, got < 0 ? errno : -1, __ATOMIC_RELAXED);
            return;
        }
        begin += (uint64_t)got;
    }
}

hist_status hist_npy_read_rows_u8(const char *path, const hist_npy_header *h, uint64_t first_row,
                                  uint64_t rows, uint8_t *samples) {
    const uint64_t channels = h->shape[1];
    if (first_row > h->shape[0] || rows > h->shape[0] - first_row)
        return hist_fail(HIST_ERR_USAGE, "'%s': rows %llu..%llu are outside its %llu rows", path,
                         (unsigned long long)first_row, (unsigned long long)(first_row + rows),
                         (unsigned long long)h->shape[0]);
    if (rows == 0)
        return HIST_OK;
    range_read r = {open(path, O_RDONLY | O_CLOEXEC), h->data_offset + first_row * channels,
                    samples, 0};
    if (r.fd < 0)
        return hist_fail(HIST_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(r.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size != h->data_offset + h->shape[0] * channels) {
        close(r.fd);
        return hist_fail(HIST_ERR_IO, "'%s' changed since its header was read", path);
    }
    /* pieces of 8 MiB or more on every core: page-cache copies and page faults in parallel */
    hist_parallel_ranges(rows * channels, UINT64_C(8) << 20, 4096, 0, read_piece, &r);
    close(r.fd);
    if (r.error > 0)
        return hist_fail(HIST_ERR_IO, "cannot read '%s': %s", path, strerror(r.error));
    if (r.error < 0)
        return hist_fail(HIST_ERR_FORMAT, "'%s' is truncated", path);
    return HIST_OK;
}

hist_status hist_npy_read_u8(const char *path, uint8_t **samples, uint64_t *rows,
                             uint64_t *channels) {
    return hist_npy_read_samples(path, 8, samples, rows, channels);
}

hist_status hist_npy_read_samples(const char *path, unsigned bits, uint8_t **samples,
                                  uint64_t *rows, uint64_t *channels) {
    *samples = NULL;
    FILE *f = NULL;
    uint64_t file_bytes = 0;
    hist_status s = open_regular(path, &f, &file_bytes);
    if (s != HIST_OK)
        return s;
    hist_npy_header h;
    s = read_header(f, path, file_bytes, &h);
    if (s == HIST_OK)
        s = check_samples_header(&h, path, file_bytes, 1);
    if (s == HIST_OK && h.bits != bits)
        s = hist_fail(HIST_ERR_USAGE, "'%s' holds %s samples: run with %s", path,
                      h.bits == 16 ? "uint16" : "uint8", h.bits == 16 ? "--bits 16" : "--bits 8");
    uint8_t *data = NULL;
    if (s == HIST_OK)
        s = read_data(f, path, h.shape[0] * h.shape[1] * (bits / 8), &data);
    fclose(f);
    if (s != HIST_OK)
        return s;
    *samples = data;
    *rows = h.shape[0];
    *channels = h.shape[1];
    return HIST_OK;
}

/* ---- writing ---- */

/* Open o beside path and write the whole array into it (closed, not yet renamed). */
static hist_status stage_npy(hist_outfile *o, const char *path, const char *descr, const void *data,
                             size_t elem_bytes, uint64_t rows, uint64_t cols) {
    /* header padded with spaces so that the data starts on a 64-byte boundary, as numpy does */
    char header[256];
    int n = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %llu), }", descr,
                     (unsigned long long)rows, (unsigned long long)cols);
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    memset(header + n, ' ', padded - total);
    header[padded - 10 - 1] = '\n';
    const size_t header_len = padded - 10;
    const uint8_t prefix[10] = {0x93,
                                'N',
                                'U',
                                'M',
                                'P',
                                'Y',
                                1,
                                0,
                                (uint8_t)(header_len & 0xFF),
                                (uint8_t)(header_len >> 8)};

    hist_status s = hist_outfile_open(o, path);
    if (s != HIST_OK)
        return s;
    const uint64_t data_bytes = rows * cols * elem_bytes;
    int ok = fwrite(prefix, 1, sizeof prefix, o->f) == sizeof prefix;
    ok = ok && fwrite(header, 1, header_len, o->f) == header_len;
    ok = ok && (data_bytes == 0 || fwrite(data, 1, data_bytes, o->f) == data_bytes);
    if (!ok) {
        const int err = errno;
        hist_outfile_discard(o);
        return hist_fail(HIST_ERR_IO, "cannot write '%s': %s", path, strerror(err ? err : EIO));
    }
    return hist_outfile_close(o);
}

static hist_status write_npy(const char *path, const char *descr, const void *data,
                             size_t elem_bytes, uint64_t rows, uint64_t cols) {
    hist_outfile o;
    hist_status s = stage_npy(&o, path, descr, data, elem_bytes, rows, cols);
    return s == HIST_OK ? hist_outfile_commit(&o) : s;
}

hist_status hist_npy_stage_u32(hist_outfile *o, const char *path, const uint32_t *data,
                               uint64_t rows, uint64_t cols) {
    return stage_npy(o, path, "<u4", data, sizeof(uint32_t), rows, cols);
}

hist_status hist_npy_stage_u8(hist_outfile *o, const char *path, const uint8_t *data, uint64_t rows,
                              uint64_t cols) {
    return stage_npy(o, path, "|u1", data, 1, rows, cols);
}

hist_status hist_npy_stage_samples(hist_outfile *o, const char *path, const uint8_t *data,
                                   uint64_t rows, uint64_t cols, unsigned bits) {
    return bits == 16 ? stage_npy(o, path, "<u2", data, 2, rows, cols)
                      : stage_npy(o, path, "|u1", data, 1, rows, cols);
}

hist_status hist_npy_write_u32(const char *path, const uint32_t *data, uint64_t rows,
                               uint64_t cols) {
    return write_npy(path, "<u4", data, sizeof(uint32_t), rows, cols);
}

hist_status hist_npy_write_u8(const char *path, const uint8_t *data, uint64_t rows, uint64_t cols) {
    return write_npy(path, "|u1", data, 1, rows, cols);
}
