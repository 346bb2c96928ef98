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
    hist_dataset data;      /**< the dataset (preset, then overrides) */
    const char *preset;     /**< preset name */
    const char *input;      /**< `--input` .npy file, or NULL to generate */
    const char *output;     /**< `--output` .npy file, or NULL */
    const char *save_input; /**< `--save-input` .npy file for the generated samples, or NULL */
    const char *csv;        /**< `--csv` file, or NULL */
    const char *results;    /**< `--results` folder: CSV named after GPU, preset and data */
    const char *impl;       /**< `--impl` comma-separated names, or NULL for all */
    int reps;               /**< timed repetitions */
    int warmup;             /**< untimed repetitions before them */
    int threads;            /**< worker threads for host implementations */
    int require_gpu;        /**< `--require-gpu`: a GPU implementation skipped for want of a GPU
                                 is a failure (exit status 4) */
    int list;               /**< `--list`: print the registry and exit */
    int list_gpus;          /**< `--gpu-limits list`: print the limits table and exit (any other
                                 `--gpu-limits NAME` is applied by hist_parse_args() itself, for
                                 every later hist_device_open()) */
    int help;               /**< `--help`: print usage and exit */
    char command[512];      /**< the command line, for the results' provenance (CSV `command`) */
} hist_options;

/**
 * @brief Parse a command line (getopt_long) against a registry.
 *
 * The preset is applied first, wherever `--preset` stands, then the other options override it.
 * @return HIST_OK, or HIST_ERR_USAGE with a one-line message (the option and what it accepts).
 * @param argc argument count, as main() receives it
 * @param argv the arguments
 * @param impls the registry whose names `--impl` may use
 * @param count how many entries @p impls has
 * @param out the options (written only on HIST_OK)
 */
hist_status hist_parse_args(int argc, char **argv, const hist_impl *impls, size_t count,
                            hist_options *out);

/**
 * @brief Print the usage text to @p f.
 * @param f the stream to print to
 * @param program the program's name, for the usage line
 */
void hist_print_usage(FILE *f, const char *program);

#ifdef __cplusplus
}
#endif

#endif /* HIST_OPTIONS_H */
