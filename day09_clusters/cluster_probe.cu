/**
 * @file cluster_probe.cu
 * @brief `make -C day09_clusters cluster-probe`: distributed shared memory measured apart from any
 * histogram (sm_90 and newer; elsewhere it says so and stops).
 *
 *  1. Atomics: as many conflict-free `atomicAdd(p, 1)` as the `u16` preset has samples (2^28),
 *     one block of 1,024 threads per SM, each with 128 KiB of 32-bit counters, in clusters of 1
 *     (no cluster), 2, 4 and 8 blocks. Each atomic goes to this block's counters (local), to the
 *     next block's of the cluster (remote), or to the block a hash of the counter picks (spread:
 *     step 1's mix, `1 - 1 / size` of them remote); with the result unused (`red`, what step 1
 *     counts with) or used (`atom`, what day 08's exact packed counters need).
 *  2. Bulk: 512 MiB (the input's size) stored or loaded 16, 8 or 4 bytes a thread, to this block's
 *     shared memory or to the other block's of a cluster of 2: what a kernel that hands samples
 *     to other blocks in bulk (step 2, the exchange) can move, beside the read floor.
 */
#include <cooperative_groups.h>
#include <stdio.h>

#include "cuda_check.h"
#include "device.cuh"
#include "gpu.h"
#include "options.h"

namespace cg = cooperative_groups;

/** @brief Threads per block (one block per SM). */
#define PROBE_THREADS 1024
/** @brief 32-bit counters per block: 128 KiB, so that one block holds an SM (as day 08's step 4 and
 * step 1 in a cluster of 2). */
#define PROBE_COUNTERS 32768
/** @brief Atomics in all: the `u16` preset's samples. */
#define PROBE_ATOMICS (UINT64_C(1) << 28)

/** @brief Where a probe atomic goes. */
enum probe_target {
    PROBE_LOCAL,  /**< this block's counters */
    PROBE_REMOTE, /**< the next block's of the cluster */
    PROBE_SPREAD  /**< the block a hash of the counter picks (step 1's mix) */
};

/**
 * @brief The atomics probe: @p per_thread atomics a thread, counter `bin * 32 + lane` (no two
 *        lanes of a warp on one bank), bins from an LCG.
 * @tparam USED the atomic's result is used (`atom`), else not (`red`)
 * @param per_thread atomics per thread
 * @param target where they go
 * @param d_sink one word per block, so that nothing is optimised away
 * @par Launch
 * clusters of 1, 2, 4 or 8 blocks (hist_launch_cluster_args()), PROBE_THREADS threads,
 * PROBE_COUNTERS * 4 bytes of dynamic shared memory.
 */
template <bool USED>
__global__ void __launch_bounds__(PROBE_THREADS, 1)
    cluster_atomics_kernel(uint32_t per_thread, probe_target target, uint32_t *d_sink) {
#if __CUDA_ARCH__ >= 900
    extern __shared__ uint32_t s_hist[];
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t size = cluster.num_blocks(), rank = cluster.block_rank();
    for (uint32_t k = threadIdx.x; k < PROBE_COUNTERS; k += blockDim.x)
        s_hist[k] = 0;
    cluster.sync(); /* every block's counters zero before any block adds */
    uint32_t *next = cluster.map_shared_rank(s_hist, (rank + 1) % size);
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x + 1, sum = 0;
    const uint32_t lane = threadIdx.x % 32;
    for (uint32_t i = 0; i < per_thread; ++i) {
        x = x * 1664525u + 1013904223u;
        const uint32_t k = (x >> 22) * 32 + lane; /* 1,024 bins of 32 lanes */
        uint32_t *p = target == PROBE_LOCAL    ? s_hist + k
                      : target == PROBE_REMOTE ? next + k
                                               : cluster.map_shared_rank(s_hist, x % size) + k;
        if (USED)
            sum += atomicAdd(p, 1u);
        else
            atomicAdd(p, 1u);
    }
    cluster.sync(); /* every add landed before a block reads its counters or leaves */
    if (threadIdx.x == 0)
        d_sink[blockIdx.x] = s_hist[42] + sum;
#else
    (void)per_thread, (void)target, (void)d_sink;
#endif
}

/** @brief A 16-byte value to store, from three words.
 *  @param v receives it @param i a word @param k a word @param s a word */
__device__ __forceinline__ void bulk_fill(uint4 &v, uint32_t i, uint32_t k, uint32_t s) {
    v = make_uint4(i, k, s, 1);
}
/** @brief An 8-byte value to store, from three words.
 *  @param v receives it @param i a word @param k a word @param s a word */
__device__ __forceinline__ void bulk_fill(uint2 &v, uint32_t i, uint32_t k, uint32_t s) {
    v = make_uint2(i ^ s, k);
}
/** @brief A 4-byte value to store, from three words.
 *  @param v receives it @param i a word @param k a word @param s a word */
__device__ __forceinline__ void bulk_fill(uint32_t &v, uint32_t i, uint32_t k, uint32_t s) {
    v = i ^ s ^ k;
}
/** @brief The first word of @p v. @param v a value @return its first word */
__device__ __forceinline__ uint32_t first_word(uint4 v) {
    return v.x ^ v.y ^ v.z ^ v.w;
}
/** @brief The first word of @p v. @param v a value @return its first word */
__device__ __forceinline__ uint32_t first_word(uint2 v) {
    return v.x ^ v.y;
}
/** @brief The first word of @p v. @param v a value @return its first word */
__device__ __forceinline__ uint32_t first_word(uint32_t v) {
    return v;
}

/**
 * @brief The bulk probe: @p per_thread stores (or loads) of a @p T a thread to this block's
 *        shared memory, to the other block's of a cluster of 2, or to the other blocks of its
 *        cluster in turn (step 2's pattern), over a 128 KiB buffer.
 * @tparam LOAD loads (summed into the sink) instead of stores
 * @tparam T uint4, uint2 or uint32_t (16, 8 or 4 bytes)
 * @param per_thread accesses per thread
 * @param remote 1: to the other block of a cluster of 2; 2: to the others of the cluster in
 * turn; 0: to this block's
 * @param d_sink one word per block
 */
template <bool LOAD, typename T>
__global__ void __launch_bounds__(PROBE_THREADS, 1)
    cluster_bulk_kernel(uint32_t per_thread, int remote, uint32_t *d_sink) {
#if __CUDA_ARCH__ >= 900
    extern __shared__ uint4 s_raw[];
    T *s_buf = reinterpret_cast<T *>(s_raw);
    cg::cluster_group cluster = cg::this_cluster();
    const uint32_t slots = PROBE_COUNTERS * 4 / sizeof(T); /* slots in 128 KiB */
    for (uint32_t k = threadIdx.x; k < slots; k += blockDim.x)
        bulk_fill(s_buf[k], k, 0, 0);
    cluster.sync();
    T *dst = remote ? cluster.map_shared_rank(s_buf, cluster.block_rank() ^ 1u) : s_buf;
    const uint32_t last = cluster.num_blocks() - 1, rank = cluster.block_rank();
    uint32_t sum = 0, other = 0; /* remote 2: the next block to write to is rank + other + 1 */
    for (uint32_t i = 0; i < per_thread; ++i) {
        const uint32_t k = (threadIdx.x + i * blockDim.x) % slots;
        if (remote == 2) { /* no division in the loop: a size of 2, 4 or 8 */
            dst = cluster.map_shared_rank(s_buf, (rank + other + 1) & last);
            other = other + 1 == last ? 0 : other + 1;
        }
        if (LOAD)
            sum += first_word(dst[k]);
        else {
            T v;
            bulk_fill(v, i, k, sum);
            dst[k] = v;
        }
    }
    cluster.sync();
    if (threadIdx.x == 0)
        d_sink[blockIdx.x] = first_word(s_buf[7]) + sum;
#else
    (void)per_thread, (void)remote, (void)d_sink;
#endif
}

/** @brief One probe launch: a kernel, its cluster size and arguments. */
typedef struct probe_launch {
    const hist_device *dev; /**< the GPU */
    const void *kernel;     /**< the kernel */
    uint32_t size;          /**< blocks a cluster */
    uint32_t blocks;        /**< blocks (a multiple of size) */
    uint32_t per_thread;    /**< accesses per thread */
    int mode;               /**< probe_target, or remote (bulk) */
    uint32_t *d_sink;       /**< the sink */
} probe_launch;

/** @brief The launch of @p l: clusters of l->size blocks, l->blocks of them in all.
 *  @param ctx the probe_launch @return HIST_OK or the launch error */
static hist_status launch_probe(void *ctx) {
    probe_launch *l = (probe_launch *)ctx;
    void *args[] = {&l->per_thread, &l->mode, &l->d_sink};
    return hist_launch_cluster_args(l->dev, l->kernel, dim3(l->blocks), PROBE_THREADS,
                                    PROBE_COUNTERS * sizeof(uint32_t), 0, l->size, args,
                                    "probe kernel");
}

/* Time a launch in clusters of @p size (as many blocks as can be resident, at most one a SM),
   median of @p reps; l->blocks receives the blocks launched. */
static hist_status time_probe(probe_launch *l, uint32_t size, uint64_t total, int reps,
                              hist_stats *st) {
    l->size = size;
    l->blocks = (uint32_t)l->dev->sm_count / size * size;
    int active = 0;
    const hist_status s = hist_cluster_occupancy(l->dev, l->kernel, PROBE_THREADS,
                                                 PROBE_COUNTERS * sizeof(uint32_t), size, &active);
    if (s != HIST_OK)
        return s;
    if ((uint32_t)active * size < l->blocks)
        l->blocks = (uint32_t)active * size;
    l->per_thread = (uint32_t)(total / ((uint64_t)l->blocks * PROBE_THREADS));
    return hist_gpu_time_work(l->dev, launch_probe, l, 1, reps, st);
}

static hist_status probe_atomics(const hist_device *dev, uint32_t *d_sink, int reps) {
    static const char *const names[] = {"local", "remote", "spread"};
    printf("  atomics (2^28, 1,024 bins x 32 lanes a block): us, Gatomic/s, blocks\n");
    for (int used = 0; used < 2; ++used)
        for (uint32_t size = 1; size <= 8; size *= 2)
            for (int t = 0; t < 3; ++t) {
                if (size == 1 && t > 0)
                    continue; /* no other block */
                probe_launch l = {dev,
                                  used ? (const void *)cluster_atomics_kernel<true>
                                       : (const void *)cluster_atomics_kernel<false>,
                                  0,
                                  0,
                                  0,
                                  t,
                                  d_sink};
                hist_stats st;
                const hist_status s = time_probe(&l, size, PROBE_ATOMICS, reps, &st);
                if (s != HIST_OK)
                    return s;
                const double n = (double)l.per_thread * l.blocks * PROBE_THREADS;
                printf("  %s, cluster of %u, %-6s %9.1f us %7.1f %4u\n", used ? "atom" : "red",
                       size, names[t], st.median_us, n / (st.median_us * 1e3), l.blocks);
            }
    return HIST_OK;
}

/* One line of the bulk probe: @p kind's 512 MiB in clusters of @p size, to @p remote (see
   cluster_bulk_kernel()), its time, GB/s and GB/s an SM after @p label. */
static hist_status bulk_line(const hist_device *dev, uint32_t *d_sink, int reps, const void *kernel,
                             uint32_t bytes, uint32_t size, int remote, const char *label) {
    probe_launch l = {dev, kernel, 0, 0, 0, remote, d_sink};
    hist_stats st;
    const hist_status s = time_probe(&l, size, ((uint64_t)512 << 20) / bytes, reps, &st);
    if (s != HIST_OK)
        return s;
    const double moved = (double)bytes * l.per_thread * l.blocks * PROBE_THREADS;
    printf("  %s %9.1f us %7.0f %6.1f %4u\n", label, st.median_us, moved / (st.median_us * 1e3),
           moved / (st.median_us * 1e3) / l.blocks, l.blocks);
    return HIST_OK;
}

static hist_status probe_bulk(const hist_device *dev, uint32_t *d_sink, int reps) {
    printf("  bulk (512 MiB, cluster of 2): us, GB/s, GB/s an SM, blocks\n");
    static const struct {
        const void *kernel;
        const char *what;
        uint32_t bytes;
    } kinds[] = {{(const void *)cluster_bulk_kernel<false, uint4>, "store 16 B", 16},
                 {(const void *)cluster_bulk_kernel<true, uint4>, "load 16 B ", 16},
                 {(const void *)cluster_bulk_kernel<false, uint2>, "store 8 B ", 8},
                 {(const void *)cluster_bulk_kernel<true, uint2>, "load 8 B  ", 8},
                 {(const void *)cluster_bulk_kernel<false, uint32_t>, "store 4 B ", 4},
                 {(const void *)cluster_bulk_kernel<true, uint32_t>, "load 4 B  ", 4}};
    char label[64];
    hist_status s = HIST_OK;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && s == HIST_OK; ++k)
        for (int remote = 0; remote < 2 && s == HIST_OK; ++remote) {
            snprintf(label, sizeof label, "%s, %-6s", kinds[k].what, remote ? "remote" : "local");
            s = bulk_line(dev, d_sink, reps, kinds[k].kernel, kinds[k].bytes, 2, remote, label);
        }
    /* the stores again, each thread's spread over the other blocks of clusters of 2, 4 and 8 */
    for (uint32_t size = 2; size <= 8 && s == HIST_OK; size *= 2)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && s == HIST_OK; k += 2) {
            snprintf(label, sizeof label, "%s, spread over a cluster of %u", kinds[k].what, size);
            s = bulk_line(dev, d_sink, reps, kinds[k].kernel, kinds[k].bytes, size, 2, label);
        }
    return s;
}

/**
 * @brief Run both probes, or say why not.
 * @param argc argument count
 * @param argv `--reps N` (default 21)
 * @return the exit status (docs/RELIABILITY.md, "Exit statuses": 0 done, 2 bad arguments, 3 a
 *         failure, 4 no GPU or one older than compute capability 9.0)
 */
int main(int argc, char **argv) {
    const hist_program prog = {
        .name = "cluster_probe",
        .about = "Day 09: distributed shared memory alone: local and remote atomics, bulk moves.",
        .refused = "preset rows channels lo hi width values dist seed input save-input impl "
                   "warmup threads output csv results require-gpu list gpu-limits keep-sms",
        .reps = 21,
    };
    hist_options o;
    const int done = hist_program_options(&prog, argc, argv, &o);
    if (done >= 0)
        return done;
    hist_device dev;
    hist_status s = hist_device_open(&o.emulation, &dev);
    if (s != HIST_OK)
        return hist_program_failed(prog.name, s);
    if (dev.cc_major < 9)
        return hist_program_failed(
            prog.name, hist_fail(HIST_ERR_NOT_RUN,
                                 "thread-block clusters need compute capability 9.0 or newer (%s: "
                                 "%d.%d)",
                                 dev.name, dev.cc_major, dev.cc_minor));
    uint32_t *d_sink = NULL;
    if (cudaMalloc(&d_sink, 4096 * sizeof(uint32_t)) != cudaSuccess) {
        fprintf(stderr, "cluster_probe: no memory for the sink\n");
        return 3;
    }
    printf("cluster_probe on %s (%d SMs): medians of %d runs, L2 flushed before each\n", dev.name,
           dev.sm_count, o.reps);
    s = probe_atomics(&dev, d_sink, o.reps);
    if (s == HIST_OK)
        s = probe_bulk(&dev, d_sink, o.reps);
    cudaFree(d_sink);
    if (s != HIST_OK) {
        fprintf(stderr, "cluster_probe: %s\n", hist_last_error());
        return 3;
    }
    return 0;
}
