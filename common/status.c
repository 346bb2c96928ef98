/**
 * @file status.c
 * @brief Error messages, exit codes (docs/RELIABILITY.md, "Exit statuses") and problem
 *        validation.
 */
#include <stdarg.h>
#include <stdio.h>

#include "hist.h"

static HIST_THREAD_LOCAL char last_error[512];

const char *hist_last_error(void) {
    return last_error;
}

hist_status hist_fail(hist_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    /* one line, whatever a quoted argument or file name held: control characters become '?' */
    for (char *c = last_error; *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return status;
}

int hist_exit_code(hist_status status) {
    switch (status) {
    case HIST_OK:
        return 0;
    case HIST_ERR_MISMATCH:
        return 1;
    case HIST_ERR_USAGE:
        return 2;
    case HIST_ERR_NOT_RUN:
    case HIST_ERR_NO_DEVICE: /* every program that needs a GPU, without one */
        return 4;
    default:
        return 3;
    }
}

int hist_program_failed(const char *program, hist_status status) {
    const int code = hist_exit_code(status);
    fprintf(stderr, "%s: %s%s\n", program, code == 4 ? "could not run: " : "", hist_last_error());
    return code;
}

hist_status hist_problem_validate(const hist_problem *p) {
    const hist_binning b = p->binning;
    if (p->bits != 0 && p->bits != 8 && p->bits != 16)
        return hist_fail(HIST_ERR_USAGE, "--bits must be 8 or 16 (got %u)", p->bits);
    const uint32_t max = hist_max_value(p);
    if (b.lo > b.hi)
        return hist_fail(HIST_ERR_USAGE, "--lo %u is above --hi %u", b.lo, b.hi);
    if (b.hi > max)
        return hist_fail(HIST_ERR_USAGE, "--hi %u is past the largest %u-bit sample, %u", b.hi,
                         hist_sample_bits(p), max);
    if (b.width < 1 || b.width > max + 1)
        return hist_fail(HIST_ERR_USAGE, "--width must be from 1 to %u (got %u)", max + 1, b.width);
    if (p->channels < 1 || p->channels > HIST_MAX_CHANNELS)
        return hist_fail(HIST_ERR_USAGE, "--channels must be from 1 to %u (got %u)",
                         HIST_MAX_CHANNELS, p->channels);
    if (p->rows > HIST_MAX_ROWS)
        return hist_fail(HIST_ERR_USAGE,
                         "rows must be at most %llu so that uint32 counts cannot overflow "
                         "(got %llu)",
                         (unsigned long long)HIST_MAX_ROWS, (unsigned long long)p->rows);
    return HIST_OK;
}
