/**
 * @file gpu_limits.c
 * @brief The published limits of the GPUs the course serves, and capping the present GPU to one
 *        of them (gpu_limits.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu_limits.h"

#include <stdlib.h>
#include <string.h>

/** @brief Bytes in a KiB. */
#define KIB ((size_t)1024)
/** @brief Bytes in a MiB. */
#define MIB (KIB * KIB)
/** @brief Bytes in a GiB. */
#define GIB (MIB * KIB)

/* One row per GPU the course names (COURSE.md). Shared memory and threads per SM follow the
   compute capability (HIST_LIMITS_CC_SOURCE); multiprocessors, L2, memory and bandwidth are the
   product's, from the source each row names. */
static const hist_gpu_limits table[] = {
    {"t4", "NVIDIA T4", 7, 5, 40, 64 * KIB, 64 * KIB, 0, 1024, 4 * MIB, 16 * GIB, 320,
     "NVIDIA T4 datasheet (320 GB/s, 16 GB); Turing architecture whitepaper (TU104: 40 SMs as "
     "T4, 4 MB L2)"},
    {"a100", "NVIDIA A100-SXM4-40GB", 8, 0, 108, 164 * KIB, 163 * KIB, KIB, 2048, 40 * MIB,
     40 * GIB, 1555,
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper (108 SMs, 40 MB L2); A100 datasheet "
     "(40 GB, 1,555 GB/s)"},
    {"l4", "NVIDIA L4", 8, 9, 58, 100 * KIB, 99 * KIB, KIB, 1536, 48 * MIB, 24 * GIB, 300,
     "NVIDIA L4 datasheet (24 GB, 300 GB/s); Ada Lovelace architecture whitepaper (AD104 as L4: "
     "58 SMs, 48 MB L2)"},
    {"rtx3090", "NVIDIA GeForce RTX 3090", 8, 6, 82, 100 * KIB, 99 * KIB, KIB, 1536, 6 * MIB,
     24 * GIB, 936, "NVIDIA Ampere GA102 GPU architecture whitepaper (82 SMs, 6 MB L2, 936 GB/s)"},
    {"rtx4090", "NVIDIA GeForce RTX 4090", 8, 9, 128, 100 * KIB, 99 * KIB, KIB, 1536, 72 * MIB,
     24 * GIB, 1008,
     "NVIDIA Ada Lovelace GPU architecture whitepaper (AD102 as RTX 4090: 128 SMs, 72 MB L2, "
     "1,008 GB/s)"},
    {"rtx5090", "NVIDIA GeForce RTX 5090", 12, 0, 170, 128 * KIB, 99 * KIB, KIB, 1536, 96 * MIB,
     32 * GIB, 1792,
     "NVIDIA RTX Blackwell GPU architecture whitepaper (GB202 as RTX 5090: 170 SMs, 96 MB L2, "
     "32 GB, 1,792 GB/s)"},
    {"h100", "NVIDIA H100 SXM5 80GB", 9, 0, 132, 228 * KIB, 227 * KIB, KIB, 2048, 50 * MIB,
     80 * GIB, 3350,
     "NVIDIA H100 Tensor Core GPU datasheet (80 GB, 3.35 TB/s); Hopper architecture whitepaper "
     "(132 SMs on SXM5, 50 MB L2)"},
    {"h200", "NVIDIA H200 SXM 141GB", 9, 0, 132, 228 * KIB, 227 * KIB, KIB, 2048, 50 * MIB,
     141 * GIB, 4800,
     "NVIDIA H200 Tensor Core GPU datasheet (141 GB, 4.8 TB/s; the H100's GH100 with 132 SMs and "
     "50 MB L2)"},
    {"b200", "NVIDIA B200", 10, 0, 148, 228 * KIB, 227 * KIB, KIB, 2048, 126 * MIB, 180 * GIB, 8000,
     "NVIDIA DGX B200 datasheet (180 GB, 8 TB/s per GPU); SMs and L2 as the CUDA runtime "
     "reports them on a B200 (148 SMs, 126 MB)"},
};

const hist_gpu_limits *hist_gpu_limits_table(size_t *count) {
    *count = sizeof table / sizeof table[0];
    return table;
}

const hist_gpu_limits *hist_gpu_limits_find(const char *name) {
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; ++i)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* "t4, a100, ..." into @p buf. */
static const char *names(char *buf, size_t len) {
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, table[i].name, len - strlen(buf) - 1);
    }
    return buf;
}

void hist_gpu_limits_print(FILE *f) {
    fprintf(f, "%-8s %-24s %5s %4s %12s %14s %12s %7s %7s %9s\n", "name", "GPU", "cc", "SMs",
            "smem/SM", "smem/block", "threads/SM", "L2 MiB", "mem GiB", "GB/s");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const hist_gpu_limits *l = &table[i];
        fprintf(f, "%-8s %-24s %3d.%d %4d %12zu %14zu %12d %7zu %7zu %9.0f\n", l->name, l->gpu,
                l->cc_major, l->cc_minor, l->sm_count, l->smem_per_sm, l->smem_per_block_optin,
                l->max_threads_per_sm, l->l2_bytes / MIB, l->global_bytes / GIB, l->bandwidth_gb_s);
    }
    fprintf(f, "sources: %s; per GPU:\n", HIST_LIMITS_CC_SOURCE);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        fprintf(f, "  %-8s %s\n", table[i].name, table[i].source);
}

/* A name as the option or the environment gives it: NULL for the real GPU. */
static hist_status lookup(const char *what, const char *name, const hist_gpu_limits **out) {
    *out = NULL;
    if (!name || !*name || strcmp(name, "none") == 0)
        return HIST_OK;
    *out = hist_gpu_limits_find(name);
    if (*out)
        return HIST_OK;
    char buf[160];
    return hist_fail(HIST_ERR_USAGE,
                     "%s: no GPU called '%s' in the limits table (accepted: %s, "
                     "list, none)",
                     what, name, names(buf, sizeof buf));
}

hist_status hist_emulation_named(const char *what, const char *name, int keep_sms,
                                 hist_emulation *out) {
    const hist_gpu_limits *l;
    hist_status s = lookup(what, name, &l);
    if (s == HIST_OK)
        *out = (hist_emulation){l, l && keep_sms};
    return s;
}

hist_status hist_emulation_from_env(hist_emulation *out) {
    const char *keep = getenv("HIST_GPU_KEEP_SMS");
    return hist_emulation_named("GPU_LIMITS (HIST_GPU_LIMITS)", getenv("HIST_GPU_LIMITS"),
                                keep && strcmp(keep, "1") == 0, out);
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

hist_status hist_device_limit(hist_device *dev, const hist_gpu_limits *l, int keep_sms) {
    if (l->smem_per_block_optin > dev->smem_per_block_optin ||
        l->smem_per_sm > dev->real_smem_per_sm ||
        l->max_threads_per_sm > dev->real_max_threads_per_sm)
        return hist_fail(HIST_ERR_USAGE,
                         "--gpu-limits %s: the %s allows more shared memory or threads per SM "
                         "(%zu / %zu bytes, %d threads) than this %s (%zu / %zu, %d): a limit "
                         "can only be lowered",
                         l->name, l->gpu, l->smem_per_sm, l->smem_per_block_optin,
                         l->max_threads_per_sm, dev->name, dev->real_smem_per_sm,
                         dev->smem_per_block_optin, dev->real_max_threads_per_sm);
    char note[64] = ""; /* no comma: the name is a CSV cell */
    if (keep_sms)
        snprintf(note, sizeof note, " (%d SMs kept)", dev->real_sm_count);
    else if (l->sm_count > dev->real_sm_count)
        snprintf(note, sizeof note, " (%d SMs: it has %d)", dev->real_sm_count, l->sm_count);
    char name[sizeof dev->name];
    snprintf(name, sizeof name, "%.180s limited to %s%s", dev->name, l->name, note);
    memcpy(dev->name, name, sizeof name);
    snprintf(dev->limited_to, sizeof dev->limited_to, "%s", l->name);
    dev->emulation = (hist_emulation){l, keep_sms};
    dev->cc_major = l->cc_major;
    dev->cc_minor = l->cc_minor;
    if (!keep_sms && l->sm_count < dev->sm_count)
        dev->sm_count = l->sm_count;
    dev->smem_per_block_optin = l->smem_per_block_optin;
    dev->smem_per_sm = l->smem_per_sm;
    dev->smem_reserved_per_block = l->smem_reserved_per_block;
    dev->max_threads_per_sm = l->max_threads_per_sm;
    dev->l2_bytes = min_size(dev->l2_bytes, l->l2_bytes);
    dev->global_bytes = min_size(dev->global_bytes, l->global_bytes);
    return HIST_OK;
}

void hist_device_of_limits(const hist_gpu_limits *l, hist_device *dev) {
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "%s", l->gpu);
    dev->sm_count = dev->real_sm_count = l->sm_count;
    dev->cc_major = l->cc_major;
    dev->cc_minor = l->cc_minor;
    dev->l2_bytes = dev->real_l2_bytes = l->l2_bytes;
    dev->smem_per_block_optin = l->smem_per_block_optin;
    dev->smem_per_sm = dev->real_smem_per_sm = l->smem_per_sm;
    dev->smem_reserved_per_block = l->smem_reserved_per_block;
    dev->max_threads_per_sm = dev->real_max_threads_per_sm = l->max_threads_per_sm;
    dev->global_bytes = l->global_bytes;
}
