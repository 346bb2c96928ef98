/**
 * @file rank_rows.c
 * @brief Which rows a rank holds, and reading them (rank_rows.h).
 */
#define _GNU_SOURCE
#include "rank_rows.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "data.h"
#include "npy.h"
#include "parallel.h"
#include "timing.h"

/* `--shards`: the files (a list, or a pattern), this rank's, and their shape. */
static hist_status plan_shards(rank_rows *r, int rank, int size) {
    char *list = strdup(r->shards);
    if (!list)
        return hist_fail(HIST_ERR_NOMEM, "out of memory");
    /* a name without * ? [ stays in the list even if it does not exist: reading it says why */
    int append = 0;
    for (char *save = NULL, *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        glob(f, (strpbrk(f, "*?[") ? 0 : GLOB_NOCHECK) | append, NULL, &r->files);
        append = GLOB_APPEND;
    }
    free(list);
    if (r->files.gl_pathc == 0)
        return hist_fail(HIST_ERR_IO, "--shards '%s' matches no file", r->shards);
    uint64_t first = 0;
    r->file_count = hist_share(r->files.gl_pathc, (uint64_t)size, (uint64_t)rank, &first);
    r->file_first = first;
    uint64_t rows = 0, channels = 0;
    for (size_t i = r->file_first; i < r->file_first + r->file_count; ++i) {
        hist_npy_header h;
        hist_status s = hist_npy_open_u8(r->files.gl_pathv[i], &h);
        if (s != HIST_OK)
            return s;
        if (channels != 0 && h.shape[1] != channels)
            return hist_fail(HIST_ERR_FORMAT, "shard '%s' has %llu channels, '%s' %llu",
                             r->files.gl_pathv[i], (unsigned long long)h.shape[1],
                             r->files.gl_pathv[r->file_first], (unsigned long long)channels);
        channels = h.shape[1];
        rows += h.shape[0];
    }
    r->mine.rows = rows;
    r->mine.channels = (uint32_t)channels;
    snprintf(r->input_text, sizeof r->input_text, "%zu shards", r->files.gl_pathc);
    return HIST_OK;
}

hist_status rank_rows_plan(rank_rows *r, const hist_options *o, int rank, int size) {
    r->whole = o->data.problem;
    r->mine.binning = r->whole.binning;
    if (r->shards)
        return plan_shards(r, rank, size);
    snprintf(r->input_text, sizeof r->input_text, "%s", o->input ? "one file" : "generated");
    if (o->input) {
        hist_npy_header h;
        hist_status s = hist_npy_open_u8(o->input, &h);
        if (s != HIST_OK)
            return s;
        r->whole.rows = h.shape[0];
        r->whole.channels = (uint32_t)h.shape[1];
    }
    r->mine.channels = r->whole.channels;
    r->mine.rows = hist_share(r->whole.rows, (uint64_t)size, (uint64_t)rank, &r->first_row);
    return HIST_OK;
}

/* Touch one piece of the rows' memory (its pages made before the read is timed). */
static void touch(void *ctx, uint64_t begin, uint64_t end) {
    memset((uint8_t *)ctx + begin, 0, end - begin);
}

/* Memory for the rows, every page made before the read: a program that reads many shards reuses
   its buffers, as `cat` does; a fresh page's first touch (the kernel zeroes it) is the
   allocation's cost, timed apart. */
static hist_status alloc_rows(rank_rows *r, uint64_t bytes) {
    const size_t huge = (size_t)2 << 20;
    r->samples_bytes = bytes > 0 ? ((size_t)bytes + huge - 1) / huge * huge : huge;
    const double t0 = hist_now_us();
    void *p =
        mmap(NULL, r->samples_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory for %llu rows",
                         (unsigned long long)r->mine.rows);
    madvise(p, r->samples_bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    hist_parallel_ranges(r->samples_bytes, huge, huge, 0, touch, p);
    r->samples = (uint8_t *)p;
    r->alloc_us = hist_now_us() - t0;
    return HIST_OK;
}

/* Read @p rows rows of @p path from row @p first into @p at. */
static hist_status read_file_rows(const char *path, uint64_t first, uint64_t *rows, uint8_t *at) {
    hist_npy_header h;
    hist_status s = hist_npy_open_u8(path, &h);
    if (s == HIST_OK && *rows == UINT64_MAX)
        *rows = h.shape[0];
    return s == HIST_OK ? hist_npy_read_rows_u8(path, &h, first, *rows, at) : s;
}

hist_status rank_rows_load(rank_rows *r, const hist_options *o) {
    const uint64_t bytes = hist_samples(&r->mine);
    hist_status s = hist_host_memory_check(bytes, "this rank's rows");
    if (s == HIST_OK)
        s = alloc_rows(r, bytes);
    if (s != HIST_OK)
        return s;
    const double t0 = hist_now_us();
    if (r->shards) {
        uint8_t *at = r->samples;
        for (size_t i = r->file_first; i < r->file_first + r->file_count && s == HIST_OK; ++i) {
            uint64_t rows = UINT64_MAX; /* the whole file */
            s = read_file_rows(r->files.gl_pathv[i], 0, &rows, at);
            at += rows * r->mine.channels;
        }
    } else if (o->input) {
        uint64_t rows = r->mine.rows;
        s = read_file_rows(o->input, r->first_row, &rows, r->samples);
    } else {
        s = hist_generate_rows(&o->data, r->first_row, r->mine.rows, r->samples);
    }
    r->read_us = hist_now_us() - t0;
    return s;
}

void rank_rows_free(rank_rows *r) {
    if (r->shards)
        globfree(&r->files);
    if (r->samples)
        munmap(r->samples, r->samples_bytes);
}
