/**
 * @file fuzz_cli.c
 * @brief libFuzzer target for the command line: `make fuzz` (FUZZ_SECONDS each for this and the
 *        `.npy` reader).
 *
 * Each input is cut at its NUL bytes into an argument vector (at most 24 arguments, the first
 * ones often options the fuzzer learns from the seeds in tests/fuzz/cli-seeds/), which goes
 * through hist_parse_args() against a registry of two names. The parser must accept it or refuse
 * it with HIST_ERR_USAGE (exit status 2) and one line that says why: never crash, leak, read out
 * of bounds (AddressSanitizer and UndefinedBehaviorSanitizer are on), or fail any other way. An
 * accepted command line must hold only values within the documented ranges. The parser only
 * looks at the files it is given (stat), it never opens or writes one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/** @brief What --impl may name. */
static const hist_impl fuzz_impls[] = {
    {
        .name = "cpu_a",
        .where = HIST_HOST,
        .summary = "a",
        .constraints = "any",
        .run = NULL,
    },
    {
        .name = "gpu_b",
        .where = HIST_DEVICE,
        .summary = "b",
        .constraints = "any",
        .run = NULL,
    },
};

/** @brief Stop the fuzzer with a message: a property of the parser does not hold. */
static void broken(const char *what, const char *detail) {
    fprintf(stderr, "fuzz_cli: %s: %s\n", what, detail);
    abort();
}

/** @brief An accepted command line holds only values in their ranges. @param o the options */
static void check_accepted(const hist_options *o) {
    const hist_problem *p = &o->data.problem;
    if (p->channels < 1 || p->channels > HIST_MAX_CHANNELS || p->rows > HIST_MAX_ROWS)
        broken("accepted a shape beyond the limits", o->command);
    if (p->binning.lo > p->binning.hi || p->binning.width < 1 || p->binning.width > 256)
        broken("accepted an empty or impossible binning", o->command);
    if (o->reps < 1 || o->reps > 100000 || o->warmup < 0 || o->warmup > 1000 || o->threads < 1 ||
        o->threads > 1024)
        broken("accepted a count out of range", o->command);
    if (o->data.vmin > o->data.vmax)
        broken("accepted an empty value range", o->command);
}

/**
 * @brief One fuzz input.
 * @param data the input
 * @param size its length
 * @return 0 (libFuzzer's convention)
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[26] = {"fuzz_cli"};
    int argc = 1;
    for (char *at = text; at < text + size && argc < 25; at += strlen(at) + 1)
        argv[argc++] = at;
    argv[argc] = NULL;
    hist_options o;
    const hist_status s =
        hist_parse_args(argc, argv, fuzz_impls, sizeof fuzz_impls / sizeof fuzz_impls[0], &o);
    if (s == HIST_OK) {
        check_accepted(&o);
    } else {
        const char *why = hist_last_error();
        if (s != HIST_ERR_USAGE)
            broken("a refusal that is not a usage error (exit status 2)", why);
        if (why[0] == '\0' || strchr(why, '\n'))
            broken("a refusal that is not one line", why);
    }
    free(text);
    return 0;
}
