/**
 * @file fuzz_npy.c
 * @brief libFuzzer target for the `.npy` reader: `make fuzz` (FUZZ_SECONDS=600 for ten minutes).
 *
 * Every input goes through the header parser and, as a file, through the whole reader; both must
 * return HIST_OK or a format/IO error, never crash, leak or read out of bounds (AddressSanitizer
 * and UndefinedBehaviorSanitizer are on). Crashing inputs land in tests/fuzz/regressions/, which
 * test_harness replays on every `make test`.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npy.h"

/**
 * @brief One fuzz input.
 * @param data the input
 * @param size its length
 * @return 0 (libFuzzer's convention)
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hist_npy_header h;
    (void)hist_npy_parse_header(data, size, &h);

    int fd = memfd_create("npy", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        uint8_t *samples = NULL;
        uint64_t rows = 0, channels = 0;
        if (hist_npy_read_u8(path, &samples, &rows, &channels) == HIST_OK && rows * channels > 0)
            (void)samples[rows * channels - 1]; /* the whole array is readable */
        free(samples);
    }
    close(fd);
    return 0;
}
