/**
 * @file cli.c
 * @brief The command line shared by every lesson binary (getopt_long), with one-line errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_limits.h"
#include "options.h"
#include "outfile.h"

enum {
    OPT_PRESET = 256,
    OPT_ROWS,
    OPT_CHANNELS,
    OPT_LO,
    OPT_HI,
    OPT_WIDTH,
    OPT_VALUES,
    OPT_BITS,
    OPT_DIST,
    OPT_SEED,
    OPT_REPS,
    OPT_WARMUP,
    OPT_THREADS,
    OPT_IMPL,
    OPT_INPUT,
    OPT_OUTPUT,
    OPT_SAVE_INPUT,
    OPT_CSV,
    OPT_RESULTS,
    OPT_REQUIRE_GPU,
    OPT_GPU_LIMITS,
    OPT_KEEP_SMS,
    OPT_LIST,
    OPT_HELP,
    OPT_END
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"rows", required_argument, NULL, OPT_ROWS},
    {"channels", required_argument, NULL, OPT_CHANNELS},
    {"lo", required_argument, NULL, OPT_LO},
    {"hi", required_argument, NULL, OPT_HI},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"values", required_argument, NULL, OPT_VALUES},
    {"bits", required_argument, NULL, OPT_BITS},
    {"dist", required_argument, NULL, OPT_DIST},
    {"seed", required_argument, NULL, OPT_SEED},
    {"reps", required_argument, NULL, OPT_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"impl", required_argument, NULL, OPT_IMPL},
    {"input", required_argument, NULL, OPT_INPUT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"save-input", required_argument, NULL, OPT_SAVE_INPUT},
    {"csv", required_argument, NULL, OPT_CSV},
    {"results", required_argument, NULL, OPT_RESULTS},
    {"require-gpu", no_argument, NULL, OPT_REQUIRE_GPU},
    {"gpu-limits", required_argument, NULL, OPT_GPU_LIMITS},
    {"keep-sms", no_argument, NULL, OPT_KEEP_SMS},
    {"list", no_argument, NULL, OPT_LIST},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

/** @brief One line of the usage text: the option it documents (NULL for a heading or a
 *  continuation of the line before), and the text. */
typedef struct usage_line {
    const char *option;       /**< the option's name, for refused options to be left out */
    const char *text;         /**< the line (a format of @p limit where that is not 0) */
    unsigned long long limit; /**< the largest value the option takes, printed in the line */
} usage_line;

/* The shared options' usage, a line each so that a program's refused options drop out. */
static const usage_line shared_usage[] = {
    {NULL, "dataset (a preset, then any overrides):", 0},
    {"preset", "  --preset NAME     main (1048576 x 512, bytes, 256 bins; default), small-binned",
     0},
    {"preset", "                    (32768 x 1, values 1..100, 5 bins of 20) or pmpp:K, K = 1..6",
     0},
    {"preset",
     "                    (GPU MODE's histogram_v2 sizes: 1 channel of bytes; pmpp = pmpp:1),", 0},
    {"preset", "                    u16 or u16x8 (256 Mi 16-bit samples in 1 or 8 channels)", 0},
    {"bits", "  --bits B          bits a sample: 8 (uint8) or 16 (uint16); a change of the", 0},
    {"bits", "                    preset's takes its full range and one bin a value", 0},
    {"rows", "  --rows N          rows, 0..%llu (uint32 counts cannot overflow)", HIST_MAX_ROWS},
    {"channels", "  --channels N      channels, 1..%llu", HIST_MAX_CHANNELS},
    {"lo", "  --lo V --hi V     binning range, 0..255 (0..65535 for 16 bits), lo <= hi", 0},
    {"width", "  --width W         values per bin, 1..256 or 65536 (bins = (hi - lo) / width + 1)",
     0},
    {"values", "  --values A:B      generated values range over A..B (0..255 or 65535)", 0},
    {"dist", "  --dist D          uniform, contention:P (P% of samples one hot value), constant,",
     0},
    {"dist", "                    runs:L (runs of L equal samples down each channel)", 0},
    {"seed", "  --seed S          splitmix64 seed (0..2^64-1)", 0},
    {"input", "  --input FILE      read the samples from a uint8 2-D C-order .npy file (uint16", 0},
    {"input", "                    with --bits 16) instead", 0},
    {"save-input", "  --save-input FILE write the generated samples as .npy", 0},
    {NULL, "", 0},
    {NULL, "running:", 0},
    {"impl", "  --impl A,B        run only these implementations (see --list)", 0},
    {"reps", "  --reps N          timed repetitions, 1..100000 (default 10; median and min)", 0},
    {"warmup", "  --warmup N        untimed repetitions first, 0..1000 (default 1)", 0},
    {"threads", "  --threads N       threads for CPU implementations, 1..1024 (default: all cores)",
     0},
    {"output", "  --output FILE     write the result of the first implementation named with --impl",
     0},
    {"output", "                    (without --impl: the first of the list) as uint32 .npy", 0},
    {"output", "                    [channels, bins] (written to a temporary file, then renamed)",
     0},
    {"csv", "  --csv FILE        also write the results table as CSV", 0},
    {"csv", "                    (every file is written to FILE.tmp.XXXXXX and renamed when the",
     0},
    {"csv", "                    run completes; an existing FILE must be a regular file, and", 0},
    {"csv", "                    every file's folder must exist and be writable: checked first)",
     0},
    {"results",
     "  --results DIR     also write it as DIR/<gpu>_<preset>_<dist>.csv (DIR is made if", 0},
    {"results", "                    its parent exists); a problem other than the preset's adds",
     0},
    {"results", "                    what differs (_4096x512, _16bit, _lo1-hi100-w20) to the name",
     0},
    {"require-gpu",
     "  --require-gpu     a GPU implementation that cannot run for want of a GPU is a", 0},
    {"require-gpu", "                    failure (exit status 4), not a skip", 0},
    {"gpu-limits", "  --gpu-limits NAME run as if on GPU NAME: the present GPU's limits (shared",
     0},
    {"gpu-limits",
     "                    memory, threads and SMs, L2) capped to NAME's published ones,", 0},
    {"gpu-limits",
     "                    so each kernel runs the plan it would choose there (list: the", 0},
    {"gpu-limits", "                    table and its sources; none: the real GPU; default: the",
     0},
    {"gpu-limits",
     "                    environment's HIST_GPU_LIMITS, which make's GPU_LIMITS sets)", 0},
    {"keep-sms",
     "  --keep-sms        with --gpu-limits: keep the present GPU's multiprocessors (to", 0},
    {"keep-sms", "                    time a plan at this GPU's bandwidth)", 0},
    {"list", "  --list            list the implementations and their constraints", 0},
    {"help", "  --help            this text", 0},
    {NULL, "", 0},
    {NULL, "exit status: as the table of docs/RELIABILITY.md (\"Exit statuses\") says, the same",
     0},
    {NULL, "for every program of the course.", 0},
};

/* Whether @p prog leaves out the shared option @p name (a whole word of its `refused`). */
static int refused(const hist_program *prog, const char *name) {
    const size_t n = strlen(name);
    for (const char *at = prog->refused; at && (at = strstr(at, name)) != NULL; at += n)
        if ((at == prog->refused || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0'))
            return 1;
    return 0;
}

void hist_print_program_usage(FILE *f, const hist_program *prog) {
    fprintf(f, "usage: %s [options]\n%s\n\n", prog->name, prog->about);
    if (prog->n_extra > 0) {
        fprintf(f, "this program:\n");
        for (size_t i = 0; i < prog->n_extra; ++i) {
            const hist_extra_option *e = &prog->extra[i];
            char head[40];
            snprintf(head, sizeof head, "--%s%s%s", e->name, e->value ? " " : "",
                     e->value ? e->value : "");
            fprintf(f, "  %-17s %s\n", head, e->help);
        }
        fprintf(f, "\n");
    }
    for (size_t i = 0; i < sizeof shared_usage / sizeof shared_usage[0]; ++i)
        if (!shared_usage[i].option || !refused(prog, shared_usage[i].option)) {
            if (shared_usage[i].limit)
                fprintf(f, shared_usage[i].text, shared_usage[i].limit);
            else
                fputs(shared_usage[i].text, f);
            fputc('\n', f);
        }
}

/** @brief The runner's description of itself, the first lines of its usage text. */
#define RUNNER_ABOUT                                                                               \
    "Per-channel histograms of a [rows, channels] uint8 (or uint16) array: runs, times and\n"      \
    "checks every implementation of this program against the CPU reference."

void hist_print_usage(FILE *f, const char *program) {
    const hist_program prog = {program, RUNNER_ABOUT, NULL, 0, NULL, NULL, 0, 0, 0, 1};
    hist_print_program_usage(f, &prog);
}

/* A whole decimal number in [min, max]; rejects signs, blanks, garbage and overflow. */
static hist_status parse_number(const char *option, const char *text, uint64_t min, uint64_t max,
                                uint64_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = 0;
    int ok = text[0] >= '0' && text[0] <= '9';
    if (ok) {
        v = strtoull(text, &end, 10);
        ok = errno == 0 && *end == '\0' && v >= min && v <= max;
    }
    if (!ok)
        return hist_fail(HIST_ERR_USAGE,
                         "--%s: expected a whole number from %llu to %llu, got '%s'", option,
                         (unsigned long long)min, (unsigned long long)max, text);
    *out = v;
    return HIST_OK;
}

static hist_status parse_values(const char *text, uint32_t max, uint32_t *vmin, uint32_t *vmax) {
    const char *colon = strchr(text, ':');
    char first[16];
    uint64_t a = 0, b = 0;
    if (!colon || (size_t)(colon - text) >= sizeof first)
        return hist_fail(HIST_ERR_USAGE, "--values: expected A:B with 0 <= A <= B <= %u, got '%s'",
                         max, text);
    memcpy(first, text, (size_t)(colon - text));
    first[colon - text] = '\0';
    if (parse_number("values", first, 0, max, &a) != HIST_OK ||
        parse_number("values", colon + 1, 0, max, &b) != HIST_OK || a > b)
        return hist_fail(HIST_ERR_USAGE, "--values: expected A:B with 0 <= A <= B <= %u, got '%s'",
                         max, text);
    *vmin = (uint32_t)a;
    *vmax = (uint32_t)b;
    return HIST_OK;
}

static hist_status check_impl_names(const char *list, const hist_impl *impls, size_t count) {
    char buf[512];
    if (strlen(list) == 0 || strlen(list) >= sizeof buf || list[0] == ',' ||
        list[strlen(list) - 1] == ',' || strstr(list, ",,"))
        return hist_fail(HIST_ERR_USAGE,
                         "--impl: expected a comma-separated list of names, got '%s'", list);
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < count && strcmp(impls[i].name, name) != 0)
            ++i;
        if (i == count) {
            char accepted[400] = "";
            for (size_t j = 0; j < count; ++j) {
                strncat(accepted, j ? ", " : "", sizeof accepted - strlen(accepted) - 1);
                strncat(accepted, impls[j].name, sizeof accepted - strlen(accepted) - 1);
            }
            return hist_fail(HIST_ERR_USAGE, "--impl: unknown implementation '%s' (accepted: %s)",
                             name, accepted);
        }
    }
    return HIST_OK;
}

/** @brief What getopt found: each option's value, and whether it was given (the shared options
 *  first, then the program's own from OPT_END). */
typedef struct given {
    const char *value[OPT_END + HIST_MAX_EXTRA]; /**< the option's argument (NULL for none) */
    int seen[OPT_END + HIST_MAX_EXTRA];          /**< 1 where the option was given */
} given;

/* The option's name as typed after "--". */
static const char *name_of(int opt) {
    return long_options[opt - OPT_PRESET].name;
}

/* Step 1: collect the options (getopt_long), the shared ones and @p prog's, refusing unknown
   ones, missing values, stray arguments and the shared options @p prog does not take. */
static hist_status scan(const hist_program *prog, int argc, char **argv, given *g) {
    const size_t n_shared = sizeof long_options / sizeof long_options[0] - 1;
    struct option all[sizeof long_options / sizeof long_options[0] + HIST_MAX_EXTRA];
    memcpy(all, long_options, n_shared * sizeof all[0]);
    for (size_t i = 0; i < prog->n_extra; ++i)
        all[n_shared + i] = (struct option){prog->extra[i].name,
                                            prog->extra[i].value ? required_argument : no_argument,
                                            NULL, OPT_END + (int)i};
    memset(&all[n_shared + prog->n_extra], 0, sizeof all[0]);
    memset(g, 0, sizeof *g);
    opterr = 0;
    optind = 0; /* full re-initialisation, so tests can parse many command lines */
    for (;;) {
        int index = -1;
        int c = getopt_long(argc, argv, ":h", all, &index);
        if (c == -1)
            break;
        if (c == 'h')
            c = OPT_HELP;
        if (c == '?')
            return hist_fail(HIST_ERR_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
        if (c == ':')
            return hist_fail(HIST_ERR_USAGE, "option '%s' needs a value (see --help)",
                             argv[optind - 1]);
        if (c < OPT_END && refused(prog, name_of(c)))
            return hist_fail(HIST_ERR_USAGE, "--%s: %s does not take this option (see --help)",
                             name_of(c), prog->name);
        g->value[c] = optarg;
        g->seen[c] = 1;
    }
    if (optind < argc)
        return hist_fail(HIST_ERR_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
    return HIST_OK;
}

/* The command line as typed, for the results' provenance: commas and quotes would break the
   CSV's columns, so they become ';' and '\''. */
static void record_command(int argc, char **argv, char *command, size_t len) {
    size_t used = 0;
    command[0] = '\0';
    for (int i = 0; i < argc && used + 1 < len; ++i)
        used += (size_t)snprintf(command + used, len - used, "%s%s", i ? " " : "", argv[i]);
    for (char *c = command; *c; ++c)
        if (*c == ',' || *c == '"' || *c == '\n')
            *c = *c == '"' ? '\'' : ';';
}

/* Option @p opt, when given, as a whole number in [min, max] into *out. */
static hist_status number_option(const given *g, int opt, uint64_t min, uint64_t max,
                                 uint64_t *out) {
    return g->seen[opt] ? parse_number(name_of(opt), g->value[opt], min, max, out) : HIST_OK;
}

/* Step 2: the dataset: the preset's problem and data, then the options that override them. */
static hist_status parse_dataset(const given *g, hist_options *o) {
    if (o->input) {
        static const int shape_options[] = {OPT_ROWS, OPT_CHANNELS, OPT_VALUES,
                                            OPT_DIST, OPT_SEED,     OPT_SAVE_INPUT};
        for (size_t i = 0; i < sizeof shape_options / sizeof shape_options[0]; ++i)
            if (g->seen[shape_options[i]])
                return hist_fail(HIST_ERR_USAGE,
                                 "--%s cannot be used with --input (the file gives the data)",
                                 name_of(shape_options[i]));
    }
    hist_problem *p = &o->data.problem;
    uint64_t bits = hist_sample_bits(p);
    if (number_option(g, OPT_BITS, 8, 16, &bits) != HIST_OK)
        return HIST_ERR_USAGE;
    if (bits != 8 && bits != 16)
        return hist_fail(HIST_ERR_USAGE, "--bits: 8 or 16, got %llu", (unsigned long long)bits);
    if (bits != hist_sample_bits(p)) { /* another sample width: its full range, a bin a value */
        p->bits = (uint32_t)bits;
        p->binning = (hist_binning){0, hist_max_value(p), 1};
        o->data.vmin = 0, o->data.vmax = hist_max_value(p);
    }
    const uint32_t max = hist_max_value(p);
    uint64_t rows = p->rows, channels = p->channels, lo = p->binning.lo, hi = p->binning.hi,
             width = p->binning.width, seed = o->data.seed;
    if (number_option(g, OPT_ROWS, 0, HIST_MAX_ROWS, &rows) != HIST_OK ||
        number_option(g, OPT_CHANNELS, 1, HIST_MAX_CHANNELS, &channels) != HIST_OK ||
        number_option(g, OPT_LO, 0, max, &lo) != HIST_OK ||
        number_option(g, OPT_HI, 0, max, &hi) != HIST_OK ||
        number_option(g, OPT_WIDTH, 1, (uint64_t)max + 1, &width) != HIST_OK)
        return HIST_ERR_USAGE;
    p->rows = rows;
    p->channels = (uint32_t)channels;
    p->binning.lo = (uint32_t)lo;
    p->binning.hi = (uint32_t)hi;
    p->binning.width = (uint32_t)width;
    if (g->seen[OPT_VALUES] &&
        parse_values(g->value[OPT_VALUES], max, &o->data.vmin, &o->data.vmax) != HIST_OK)
        return HIST_ERR_USAGE;
    if (g->seen[OPT_DIST] && hist_dist_parse(g->value[OPT_DIST], &o->data.dist) != HIST_OK)
        return HIST_ERR_USAGE;
    if (number_option(g, OPT_SEED, 0, UINT64_MAX, &seed) != HIST_OK)
        return HIST_ERR_USAGE;
    o->data.seed = seed;
    if (p->binning.lo > p->binning.hi)
        return hist_fail(HIST_ERR_USAGE, "--lo %u is above --hi %u (the binning range is empty)",
                         p->binning.lo, p->binning.hi);
    return hist_problem_validate(p) != HIST_OK ? HIST_ERR_USAGE : HIST_OK;
}

/* Step 3: how to run: repetitions, warm-up, threads (defaults: the program's, else 10 and 1;
   every core). */
static hist_status parse_running(const hist_program *prog, const given *g, hist_options *o) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t reps = prog->reps > 0 ? (uint64_t)prog->reps : 10,
             warmup = prog->warmup > 0 ? (uint64_t)prog->warmup : 1,
             threads = cores > 0 ? (uint64_t)cores : 1;
    if (number_option(g, OPT_REPS, 1, 100000, &reps) != HIST_OK ||
        number_option(g, OPT_WARMUP, 0, 1000, &warmup) != HIST_OK ||
        number_option(g, OPT_THREADS, 1, 1024, &threads) != HIST_OK)
        return HIST_ERR_USAGE;
    o->reps = (int)reps;
    o->warmup = (int)warmup;
    o->threads = (int)threads;
    o->threads_given = g->seen[OPT_THREADS];
    return HIST_OK;
}

/* Step 4: the emulated GPU (--gpu-limits, --keep-sms; else the environment's, checked here so
   that a wrong name is a usage error before anything runs). */
static hist_status parse_gpu_limits(const given *g, hist_options *o) {
    const char *name = g->value[OPT_GPU_LIMITS];
    if (g->seen[OPT_KEEP_SMS] && !g->seen[OPT_GPU_LIMITS])
        return hist_fail(HIST_ERR_USAGE, "--keep-sms: only with --gpu-limits NAME");
    if (name && strcmp(name, "list") == 0) {
        o->list_gpus = 1;
        return HIST_OK;
    }
    if (g->seen[OPT_GPU_LIMITS])
        return hist_emulation_named("--gpu-limits", name, g->seen[OPT_KEEP_SMS], &o->emulation);
    return hist_emulation_from_env(&o->emulation);
}

/* Step 5: the files: named, writable where written (a regular file or new, in a folder that
   exists and is writable: checked here, before any work, so that a run never ends on a path it
   cannot write), and none named twice (an output over the input, or two outputs over each other,
   would destroy one). */
static hist_status parse_files(const given *g, hist_options *o) {
    static const int file_options[] = {OPT_INPUT, OPT_OUTPUT, OPT_SAVE_INPUT, OPT_CSV, OPT_RESULTS};
    const size_t n_files = sizeof file_options / sizeof file_options[0];
    for (size_t i = 0; i < n_files; ++i)
        if (g->seen[file_options[i]] && g->value[file_options[i]][0] == '\0')
            return hist_fail(HIST_ERR_USAGE, "--%s: expected a file name",
                             name_of(file_options[i]));
    /* --output, --save-input and --csv are files written; --results a folder written in */
    for (size_t i = 1; i < n_files - 1; ++i)
        if (g->seen[file_options[i]] &&
            hist_outfile_check(name_of(file_options[i]), g->value[file_options[i]]) != HIST_OK)
            return HIST_ERR_USAGE;
    if (g->seen[OPT_RESULTS] && hist_outdir_check("results", g->value[OPT_RESULTS]) != HIST_OK)
        return HIST_ERR_USAGE;
    for (size_t i = 0; i < n_files - 1; ++i)
        for (size_t j = i + 1; j < n_files - 1; ++j)
            if (g->seen[file_options[i]] && g->seen[file_options[j]] &&
                hist_same_file(g->value[file_options[i]], g->value[file_options[j]]))
                return hist_fail(HIST_ERR_USAGE, "--%s and --%s name the same file '%s'",
                                 name_of(file_options[i]), name_of(file_options[j]),
                                 g->value[file_options[j]]);
    o->output = g->value[OPT_OUTPUT];
    o->save_input = g->value[OPT_SAVE_INPUT];
    o->csv = g->value[OPT_CSV];
    o->results = g->value[OPT_RESULTS];
    return HIST_OK;
}

/* Step 6: the program's own options, each checked against its range (stored by store_extra()
   only when the whole line parsed). */
static hist_status parse_extra(const hist_program *prog, const given *g, double *values) {
    for (size_t i = 0; i < prog->n_extra; ++i) {
        const hist_extra_option *e = &prog->extra[i];
        const char *text = g->value[OPT_END + i];
        if (!g->seen[OPT_END + i] || !text)
            continue;
        if (e->whole) {
            uint64_t v = 0;
            if (parse_number(e->name, text, (uint64_t)e->min, (uint64_t)e->max, &v) != HIST_OK)
                return HIST_ERR_USAGE;
            values[i] = (double)v;
        } else if (e->real) {
            char *end = NULL;
            errno = 0;
            const double v = strtod(text, &end);
            if (errno || end == text || *end != '\0' || !(v >= e->min && v <= e->max))
                return hist_fail(HIST_ERR_USAGE, "--%s: expected a number from %g to %g, got '%s'",
                                 e->name, e->min, e->max, text);
            values[i] = v;
        } else if (text[0] == '\0') {
            return hist_fail(HIST_ERR_USAGE, "--%s: expected %s, got nothing", e->name, e->value);
        }
    }
    return HIST_OK;
}

/* The program's own options, parsed, into their targets. */
static void store_extra(const hist_program *prog, const given *g, const double *values) {
    for (size_t i = 0; i < prog->n_extra; ++i) {
        const hist_extra_option *e = &prog->extra[i];
        if (!g->seen[OPT_END + i])
            continue;
        if (e->flag)
            *e->flag = 1;
        if (e->whole)
            *e->whole = (int)values[i];
        if (e->real)
            *e->real = values[i];
        if (e->text)
            *e->text = g->value[OPT_END + i];
    }
}

hist_status hist_parse_program(const hist_program *prog, int argc, char **argv, hist_options *out) {
    if (prog->n_extra > HIST_MAX_EXTRA)
        return hist_fail(HIST_ERR_USAGE, "%s: more than %d options of its own", prog->name,
                         HIST_MAX_EXTRA);
    given g;
    hist_status s = scan(prog, argc, argv, &g);
    if (s != HIST_OK)
        return s;
    hist_options o;
    memset(&o, 0, sizeof o);
    o.preset = g.value[OPT_PRESET] ? g.value[OPT_PRESET] : "main";
    o.input = g.value[OPT_INPUT];
    o.impl = g.value[OPT_IMPL];
    o.require_gpu = g.seen[OPT_REQUIRE_GPU];
    o.list = g.seen[OPT_LIST];
    o.help = g.seen[OPT_HELP];
    record_command(argc, argv, o.command, sizeof o.command);
    double values[HIST_MAX_EXTRA] = {0};
    if (hist_preset(o.preset, &o.data) != HIST_OK || parse_dataset(&g, &o) != HIST_OK ||
        parse_running(prog, &g, &o) != HIST_OK ||
        (o.impl && check_impl_names(o.impl, prog->impls, prog->count) != HIST_OK) ||
        parse_gpu_limits(&g, &o) != HIST_OK || parse_files(&g, &o) != HIST_OK ||
        parse_extra(prog, &g, values) != HIST_OK)
        return HIST_ERR_USAGE;
    if (hist_sample_bits(&o.data.problem) != 8 && !prog->samples16)
        return hist_fail(HIST_ERR_USAGE,
                         "%s counts 8-bit samples only (--bits 16 and the u16 presets are for "
                         "the course runner and day 08)",
                         prog->name);
    store_extra(prog, &g, values);
    *out = o;
    return HIST_OK;
}

int hist_program_options(const hist_program *prog, int argc, char **argv, hist_options *out) {
    if (hist_parse_program(prog, argc, argv, out) != HIST_OK) {
        fprintf(stderr, "%s: %s\n", prog->name, hist_last_error());
        return hist_exit_code(HIST_ERR_USAGE);
    }
    if (out->help)
        hist_print_program_usage(stdout, prog);
    else if (out->list_gpus)
        hist_gpu_limits_print(stdout);
    return out->help || out->list_gpus ? 0 : -1;
}

hist_status hist_parse_args(int argc, char **argv, const hist_impl *impls, size_t count,
                            hist_options *out) {
    const hist_program runner = {argv[0], RUNNER_ABOUT, impls, count, NULL, NULL, 0, 0, 0, 1};
    return hist_parse_program(&runner, argc, argv, out);
}
