/**
 * @file reference.c
 * @brief The reference loop and exact verification.
 */
#include "reference.h"

#include <inttypes.h>
#include <string.h>

void hist_reference(const hist_problem *p, const uint8_t *samples, uint32_t *hist) {
    const hist_binning b = p->binning;
    const uint32_t bins = hist_bins(b);
    /* the definition, tabulated once per value: bin (v - lo) / width, or -1 outside [lo, hi] */
    int bin_of[256];
    for (unsigned v = 0; v < 256; ++v)
        bin_of[v] = (v >= b.lo && v <= b.hi) ? (int)((v - b.lo) / b.width) : -1;
    memset(hist, 0, hist_counters(p) * sizeof(uint32_t));
    for (uint64_t r = 0; r < p->rows; ++r) {
        for (uint32_t c = 0; c < p->channels; ++c) {
            const int bin = bin_of[samples[r * p->channels + c]];
            if (bin >= 0)
                hist[(uint64_t)c * bins + (uint32_t)bin] += 1;
        }
    }
}

uint64_t hist_verify(const hist_problem *p, const uint32_t *expected, const uint32_t *got,
                     unsigned max_report, FILE *report) {
    const uint32_t bins = hist_bins(p->binning);
    const uint64_t n = hist_counters(p);
    uint64_t mismatches = 0;
    int poisoned = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (expected[i] == got[i])
            continue;
        if (report && mismatches < max_report) {
            if (mismatches == 0)
                fprintf(report, "  channel, bin, expected, got\n");
            fprintf(report, "  %" PRIu64 ", %" PRIu64 ", %" PRIu32 ", %" PRIu32 "\n", i / bins,
                    i % bins, expected[i], got[i]);
            poisoned |= got[i] == HIST_POISON;
        }
        ++mismatches;
    }
    if (report && mismatches > 0)
        fprintf(report, "  %" PRIu64 " of %" PRIu64 " counter%s differ%s\n", mismatches, n,
                n == 1 ? "" : "s", mismatches == 1 ? "s" : "");
    if (report && poisoned)
        fprintf(report,
                "  (%" PRIu32 " = 0xFFFFFFFF is the poison the harness writes over the "
                "output before every call: such a counter was never written; an "
                "implementation must zero its own output)\n",
                (uint32_t)HIST_POISON);
    return mismatches;
}
