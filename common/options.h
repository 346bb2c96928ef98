/**
 * @file options.h
 * @brief The command line every program of the course shares: the options, their parser and the
 *        usage text.
 *
 * The runner (runner.h) and a lesson's own programs (day 02's race demo) parse with it; it knows
 * the registry only as a list of names that `--impl` may use.
 */
#ifndef HIST_OPTIONS_H
#define HIST_OPTIONS_H

#include <stdio.h>

#include "data.h"
#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Everything the command line can say. */
typedef struct hist_options {
    hist_dataset data;        /**< the dataset (preset, then overrides) */
    const char *preset;       /**< preset name */
    const char *input;        /**< `--input` .npy file, or NULL to generate */
    const char *output;       /**< `--output` .npy file, or NULL */
    const char *save_input;   /**< `--save-input` .npy file for the generated samples, or NULL */
    const char *csv;          /**< `--csv` file, or NULL */
    const char *results;      /**< `--results` folder: CSV named after GPU, preset and data */
    const char *impl;         /**< `--impl` comma-separated names, or NULL for all */
    int reps;                 /**< timed repetitions */
    int warmup;               /**< untimed repetitions before them */
    int threads;              /**< worker threads for host implementations */
    int threads_given;        /**< 1 when `--threads` was given (else every core) */
    int require_gpu;          /**< `--require-gpu`: a GPU implementation skipped for want of a GPU
                                   is a failure (exit status 4) */
    int list;                 /**< `--list`: print the registry and exit */
    int list_gpus;            /**< `--gpu-limits list`: print the limits table and exit */
    hist_emulation emulation; /**< `--gpu-limits NAME [--keep-sms]`, else make's `GPU_LIMITS`:
                                   what hist_device_open() is given */
    int help;                 /**< `--help`: print usage and exit */
    char command[512];        /**< the command line, for the results' provenance (CSV `command`) */
} hist_options;

/** @brief An option one program adds to the shared ones (its `hist_program.extra` table). Exactly
 *  one of the targets is set: a flag, a whole number, a real number or a text. */
typedef struct hist_extra_option {
    const char *name;  /**< as typed after "--", e.g. "ranks" */
    const char *value; /**< the value's name in the usage text ("N", "FILE"); NULL for a flag */
    const char *help;  /**< what it does, one line of the usage text */
    double min;        /**< a number's smallest value */
    double max;        /**< a number's largest value */
    int *flag;         /**< receives 1 when given */
    int *whole;        /**< receives a whole number in [min, max] */
    double *real;      /**< receives a number in [min, max] */
    const char **text; /**< receives the text (not empty) */
} hist_extra_option;

/** @brief A program of the course, as the parser sees it: its registry, what it is, the shared
 *  options it does not take and the options it adds. The runner is the program with no extras. */
typedef struct hist_program {
    const char *name;               /**< for the usage line and messages */
    const char *about;              /**< what it does, the usage text's first line */
    const hist_impl *impls;         /**< the registry whose names `--impl` may use (or NULL) */
    size_t count;                   /**< how many entries @p impls has */
    const char *refused;            /**< shared options it does not take, space-separated
                                         (e.g. "input output"), or NULL */
    const hist_extra_option *extra; /**< its own options, or NULL */
    size_t n_extra;                 /**< how many (at most HIST_MAX_EXTRA) */
    int reps;                       /**< `--reps` when not given (0: the runner's 10) */
    int warmup;                     /**< `--warmup` when not given (0: the runner's 1) */
    int samples16;                  /**< 1: it takes 16-bit samples (`--bits 16`, the u16
                                         presets); 0 (left out): bytes only, those refused */
} hist_program;

/** @brief The most options a program may add. */
#define HIST_MAX_EXTRA 8

/**
 * @brief Parse a command line (getopt_long): the shared options and @p prog's own.
 *
 * The preset is applied first, wherever `--preset` stands, then the other options override it. A
 * program's own options are written to their targets only when the whole line parses.
 * @return HIST_OK, or HIST_ERR_USAGE with a one-line message (the option and what it accepts).
 * @param prog the program
 * @param argc argument count, as main() receives it
 * @param argv the arguments
 * @param out the options (written only on HIST_OK)
 */
hist_status hist_parse_program(const hist_program *prog, int argc, char **argv, hist_options *out);

/**
 * @brief A program's main() parses with this: hist_parse_program(), then what a line may ask
 *        before anything runs: a usage error (one line on stderr), `--help` (the usage text) or
 *        `--gpu-limits list` (the limits table).
 * @param prog the program
 * @param argc argument count
 * @param argv the arguments
 * @param out the options
 * @return -1: run; otherwise the exit status main() returns (0 after --help, 2 on a usage error)
 */
int hist_program_options(const hist_program *prog, int argc, char **argv, hist_options *out);

/**
 * @brief hist_parse_program() for the runner: every shared option, none of its own.
 * @param argc argument count
 * @param argv the arguments
 * @param impls the registry whose names `--impl` may use
 * @param count how many entries @p impls has
 * @param out the options (written only on HIST_OK)
 * @return as hist_parse_program()
 */
hist_status hist_parse_args(int argc, char **argv, const hist_impl *impls, size_t count,
                            hist_options *out);

/**
 * @brief Print the usage text to @p f: @p prog's own options, then the shared ones it takes.
 * @param f the stream to print to
 * @param prog the program
 */
void hist_print_program_usage(FILE *f, const hist_program *prog);

/**
 * @brief The runner's usage text (hist_print_program_usage() with no extras).
 * @param f the stream to print to
 * @param program the program's name, for the usage line
 */
void hist_print_usage(FILE *f, const char *program);

#ifdef __cplusplus
}
#endif

#endif /* HIST_OPTIONS_H */
