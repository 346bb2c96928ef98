/**
 * @file data.c
 * @brief splitmix64, the distributions and the presets (see data.h for the contract).
 */
#define _GNU_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include "data.h"

#include "parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64 (Steele, Lea, Flood 2014): state_i = seed + (i + 1) * gamma, output = mix(state_i).
 * Written as a function of the index so that any sample can be drawn without the ones before. */
uint64_t hist_splitmix64(uint64_t seed, uint64_t index) {
    uint64_t z = seed + (index + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/** @brief Seed offset of the contention coin stream. */
#define STREAM_CONTENTION UINT64_C(0x636F6E74656E7469) /* "contenti" */
/** @brief Seed offset of the hot value's stream. */
#define STREAM_HOT_VALUE UINT64_C(0x686F7476616C7565) /* "hotvalue" */

/* 16-bit lane `i % 4` of output `i / 4`, mapped onto [vmin, vmin + range) by multiply-shift
   (range at most 65536: the product fits 32 bits, and a range of 65536 takes the lane as it is). */
static inline uint32_t lane_value(uint64_t word, unsigned lane, uint32_t vmin, uint32_t range) {
    uint32_t bits = (uint32_t)(word >> (16 * lane)) & 0xFFFFu;
    return vmin + ((bits * range) >> 16);
}

static uint32_t uniform_at(const hist_dataset *d, uint64_t i) {
    uint32_t range = d->vmax - d->vmin + 1;
    return lane_value(hist_splitmix64(d->seed, i / 4), (unsigned)(i % 4), d->vmin, range);
}

uint32_t hist_hot_value(const hist_dataset *d) {
    uint32_t range = d->vmax - d->vmin + 1;
    return lane_value(hist_splitmix64(d->seed ^ STREAM_HOT_VALUE, 0), 0, d->vmin, range);
}

/* Sample k of @p out: one byte, or two (little-endian) for 16-bit samples. */
static inline void put_sample(uint8_t *out, uint64_t k, uint32_t v, uint32_t size) {
    if (size == 1) {
        out[k] = (uint8_t)v;
    } else {
        out[2 * k] = (uint8_t)(v & 0xFFu);
        out[2 * k + 1] = (uint8_t)(v >> 8);
    }
}

static hist_status parse_param(const char *text, const char *name, uint32_t min, uint32_t max,
                               uint32_t *out) {
    char *end = NULL;
    errno = 0;
    if (text[0] < '0' || text[0] > '9')
        return hist_fail(HIST_ERR_USAGE, "--dist %s:N needs a whole number from %u to %u", name,
                         min, max);
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return hist_fail(HIST_ERR_USAGE, "--dist %s:N needs a whole number from %u to %u", name,
                         min, max);
    *out = (uint32_t)v;
    return HIST_OK;
}

hist_status hist_dist_parse(const char *text, hist_dist *out) {
    static const char accepted[] = "uniform, contention:P (P 0..100), constant, runs:L (L >= 1)";
    hist_dist d = {HIST_DIST_UNIFORM, 0};
    if (strcmp(text, "uniform") == 0) {
        d.kind = HIST_DIST_UNIFORM;
    } else if (strcmp(text, "constant") == 0) {
        d.kind = HIST_DIST_CONSTANT;
    } else if (strncmp(text, "contention:", 11) == 0) {
        d.kind = HIST_DIST_CONTENTION;
        if (parse_param(text + 11, "contention", 0, 100, &d.param) != HIST_OK)
            return HIST_ERR_USAGE;
    } else if (strncmp(text, "runs:", 5) == 0) {
        d.kind = HIST_DIST_RUNS;
        if (parse_param(text + 5, "runs", 1, UINT32_MAX, &d.param) != HIST_OK)
            return HIST_ERR_USAGE;
    } else {
        return hist_fail(HIST_ERR_USAGE, "--dist: unknown distribution '%s' (accepted: %s)", text,
                         accepted);
    }
    *out = d;
    return HIST_OK;
}

void hist_dist_format(hist_dist d, char *buf, size_t len) {
    switch (d.kind) {
    case HIST_DIST_CONTENTION:
        snprintf(buf, len, "contention:%u", d.param);
        break;
    case HIST_DIST_CONSTANT:
        snprintf(buf, len, "constant");
        break;
    case HIST_DIST_RUNS:
        snprintf(buf, len, "runs:%u", d.param);
        break;
    default:
        snprintf(buf, len, "uniform");
        break;
    }
}

hist_status hist_preset(const char *name, hist_dataset *out) {
    if (strcmp(name, "main") == 0) {
        /* seeds 000, 003, 004: 512 MiB of bytes, the byte histogram */
        *out = (hist_dataset){.problem = {.rows = 1048576, .channels = 512, .binning = {0, 255, 1}},
                              .vmin = 0,
                              .vmax = 255,
                              .dist = {HIST_DIST_UNIFORM, 0},
                              .seed = 1001};
        return HIST_OK;
    }
    if (strcmp(name, "small-binned") == 0) {
        /* the 1-D lesson: 32,768 values in 1..100, five bins of 20 (about 6,550 each) */
        *out = (hist_dataset){.problem = {.rows = 32768, .channels = 1, .binning = {1, 100, 20}},
                              .vmin = 1,
                              .vmax = 100,
                              .dist = {HIST_DIST_UNIFORM, 0},
                              .seed = 14};
        return HIST_OK;
    }
    /* GPU MODE's histogram_v2 (PMPP chapter 9 as a leaderboard): one channel of bytes, the
       benchmark's six sizes and contention shares; "pmpp" is the first */
    static const struct {
        uint64_t samples;
        uint32_t contention;
    } pmpp[] = {{1310720, 10}, {2621440, 10}, {2621440, 40},
                {2621440, 90}, {5242880, 10}, {10485760, 10}};
    const int k =
        strcmp(name, "pmpp") == 0 ? 1
        : strncmp(name, "pmpp:", 5) == 0 && name[5] >= '1' && name[5] <= '6' && name[6] == '\0'
            ? name[5] - '0'
            : 0;
    if (k > 0) {
        *out = (hist_dataset){
            .problem = {.rows = pmpp[k - 1].samples, .channels = 1, .binning = {0, 255, 1}},
            .vmin = 0,
            .vmax = 255,
            .dist = {HIST_DIST_CONTENTION, pmpp[k - 1].contention},
            .seed = 1001};
        return HIST_OK;
    }
    /* day 08: 16-bit samples, the full range, 65,536 bins; the main preset's 512 MiB as one
       channel, and as 8 */
    if (strcmp(name, "u16") == 0 || strcmp(name, "u16x8") == 0) {
        const uint32_t channels = name[3] == 'x' ? 8 : 1;
        *out = (hist_dataset){.problem = {.rows = (UINT64_C(256) << 20) / channels,
                                          .channels = channels,
                                          .binning = {0, 65535, 1},
                                          .bits = 16},
                              .vmin = 0,
                              .vmax = 65535,
                              .dist = {HIST_DIST_UNIFORM, 0},
                              .seed = 1016};
        return HIST_OK;
    }
    return hist_fail(HIST_ERR_USAGE,
                     "--preset: unknown preset '%s' (accepted: main, small-binned, pmpp, "
                     "pmpp:1 .. pmpp:6, u16, u16x8)",
                     name);
}

/** @brief What one thread of hist_generate_rows() needs. */
typedef struct gen_job {
    const hist_dataset *d; /**< the dataset */
    uint8_t *samples;      /**< where its bytes go: samples[0] is the first row's first sample */
    uint64_t first;        /**< the global index of samples[0]: a sample's, a row's for runs */
    uint32_t hot;          /**< the hot value (contention, constant) */
    uint32_t size;         /**< bytes per sample: 1, or 2 for 16-bit samples */
    uint32_t threshold;    /**< contention: a coin below it picks the hot value */
} gen_job;

/* Samples first + [begin, end) of a uniform or contention dataset, or rows first + [begin, end)
   of a runs one: each a pure function of its global index, so any cut, and any first row, gives
   the same bytes as the whole dataset has there. */
static void generate_range(void *ctx, uint64_t begin, uint64_t end) {
    const gen_job *j = ctx;
    const hist_dataset *d = j->d;
    const uint32_t range = d->vmax - d->vmin + 1, size = j->size;
    uint8_t *out = j->samples;
    const uint64_t g_end = j->first + end;
    switch (d->dist.kind) {
    case HIST_DIST_UNIFORM:
        for (uint64_t g = j->first + begin; g < g_end;) {
            const uint64_t word = hist_splitmix64(d->seed, g / 4);
            for (unsigned lane = (unsigned)(g % 4); lane < 4 && g < g_end; ++lane, ++g)
                put_sample(out, g - j->first, lane_value(word, lane, d->vmin, range), size);
        }
        break;
    case HIST_DIST_CONSTANT:
        if (size == 1)
            memset(out + begin, (int)j->hot, end - begin);
        else
            for (uint64_t k = begin; k < end; ++k)
                put_sample(out, k, j->hot, size);
        break;
    case HIST_DIST_CONTENTION:
        /* a sample is replaced when its 16-bit coin is below P% of 65536 */
        for (uint64_t g = j->first + begin; g < g_end;) {
            const uint64_t word = hist_splitmix64(d->seed, g / 4);
            const uint64_t coin = hist_splitmix64(d->seed ^ STREAM_CONTENTION, g / 4);
            for (unsigned lane = (unsigned)(g % 4); lane < 4 && g < g_end; ++lane, ++g) {
                const uint32_t c = (uint32_t)(coin >> (16 * lane)) & 0xFFFFu;
                put_sample(out, g - j->first,
                           c < j->threshold ? j->hot : lane_value(word, lane, d->vmin, range),
                           size);
            }
        }
        break;
    case HIST_DIST_RUNS: {
        const uint64_t channels = d->problem.channels;
        for (uint64_t r = j->first + begin; r < g_end; ++r) {
            /* every row of run k repeats the uniform values of row k */
            const uint64_t source_row = r / d->dist.param;
            for (uint64_t c = 0; c < channels; ++c)
                put_sample(out, (r - j->first) * channels + c,
                           uniform_at(d, source_row * channels + c), size);
        }
        break;
    }
    }
}

hist_status hist_generate(const hist_dataset *d, uint8_t *samples) {
    return hist_generate_rows(d, 0, d->problem.rows, samples);
}

hist_status hist_generate_rows(const hist_dataset *d, uint64_t first_row, uint64_t rows,
                               uint8_t *samples) {
    if (d->vmin > d->vmax)
        return hist_fail(HIST_ERR_USAGE, "value range %u..%u is empty", d->vmin, d->vmax);
    if (d->vmax > hist_max_value(&d->problem))
        return hist_fail(HIST_ERR_USAGE, "value range %u..%u goes past %u-bit samples (at most %u)",
                         d->vmin, d->vmax, hist_sample_bits(&d->problem),
                         hist_max_value(&d->problem));
    if (d->dist.kind > HIST_DIST_RUNS)
        return hist_fail(HIST_ERR_USAGE, "unknown distribution");
    if (d->dist.kind == HIST_DIST_CONTENTION && d->dist.param > 100)
        return hist_fail(HIST_ERR_USAGE, "contention share %u%% is above 100%%", d->dist.param);
    if (d->dist.kind == HIST_DIST_RUNS && d->dist.param == 0)
        return hist_fail(HIST_ERR_USAGE, "runs:L needs L >= 1");
    if (first_row > d->problem.rows || rows > d->problem.rows - first_row)
        return hist_fail(HIST_ERR_USAGE, "rows %llu..%llu are outside the dataset's %llu rows",
                         (unsigned long long)first_row, (unsigned long long)(first_row + rows),
                         (unsigned long long)d->problem.rows);
    const uint64_t channels = d->problem.channels;
    gen_job job = {d,
                   samples,
                   first_row * channels,
                   hist_hot_value(d),
                   hist_sample_bytes(&d->problem),
                   (d->dist.param * 65536u + 50u) / 100u};
    /* every core on a large dataset (1 MiB or more a thread): the same bytes however it is cut */
    const uint64_t grain = UINT64_C(1) << 20;
    if (d->dist.kind == HIST_DIST_RUNS) {
        job.first = first_row;
        hist_parallel_ranges(rows, grain / (channels ? channels : 1) + 1, 1, 0, generate_range,
                             &job);
    } else {
        hist_parallel_ranges(rows * channels, grain, 4, 0, generate_range, &job);
    }
    return HIST_OK;
}

/* Bytes of host memory available now: MemAvailable, else the physical memory. */
static uint64_t host_memory_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    if (kib > 0)
        return (uint64_t)kib * 1024u;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
}

hist_status hist_host_memory_check(uint64_t bytes, const char *what) {
    const uint64_t available = host_memory_available();
    if (bytes <= available)
        return HIST_OK;
    return hist_fail(HIST_ERR_NOMEM,
                     "%s need %.2f GiB of host memory; this machine has %.2f GiB available "
                     "(nothing was allocated)",
                     what, bytes / 1073741824.0, available / 1073741824.0);
}
