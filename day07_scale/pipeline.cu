/**
 * @file pipeline.cu
 * @brief Day 07: scale. The input starts in host memory, as a user's data does: copy it, hide the
 *        copy, count data larger than the GPU, and count on several GPUs with NCCL.
 *
 * Every implementation here is a host-input one (`HIST_HOST_INPUT` or, with the input pinned,
 * `HIST_PINNED_INPUT`; docs/LESSON_CONTRACT.md): it gets
 * the `[rows, channels]` input and the `[channels, bins]` output in host memory, moves the data
 * itself, and is timed end to end against the pinned-copy floor (the same bytes copied once from
 * pinned memory, nothing else). The counting is day 06's final kernel, called through
 * day06_final_launch() on a stream of our choosing; this file is only about moving data:
 *
 *  1. `pipe_pageable`: one cudaMemcpy of the whole input from ordinary (pageable) memory, then the
 *     kernel, then the result back. The driver copies pageable memory through a pinned bounce
 *     buffer of its own, in pieces, so the link is busy only part of the time.
 *  2. `pipe_pinned`: the same code, with the input in pinned (page-locked) memory: the copy
 *     engine reads it directly, at the link's speed. The kernel still waits for the whole copy.
 *  3. `pipe_streams`: the input in chunks, each chunk's copy and count queued on one of
 *     PIPE_STREAMS streams, so that chunk k is counted while chunk k + 1 is copied; the
 *     histogram on the GPU accumulates every chunk. Only chunk buffers live on the GPU, so the
 *     input may be larger than its memory.
 *  4. `pipe_copy_stream`: the same chunks, every copy on one stream and every count on another,
 *     tied by events, so that the copies run back to back like the pinned-copy floor's.
 *  5. `gpus_nccl`: the rows split across every visible GPU, each running step 4 on its share into
 *     its own histogram; NCCL's all-reduce sums the histograms (one communicator for all the GPUs
 *     of the process), and GPU 0's copy comes back.
 *
 * Device memory, streams and the NCCL communicator are made on the first call and kept for the
 * process, like a library's handle (cuBLAS, NCCL): making a communicator takes far longer than a
 * histogram. The warm-up call pays for them; `make test` checks every step on awkward shapes.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <cuda.h> /* the driver's types, for its stream write (day07_signal()) */
#include <cuda/atomic>
#include <cuda/ptx>

#include "add.h"
#include "cuda_check.h"
#include "device.cuh"
#include "gpu.h"
#include "ptx.cuh"
#include "resident.h"
#include "timing.h"
#ifdef HIST_HAVE_NCCL
#include <nccl.h>
#endif

/** @brief Streams (and chunk buffers) per GPU in the pipeline: chunk k uses stream k % 3, so a
 *  chunk's copy, the previous chunk's count and the buffer of the one before can all be busy. */
#define PIPE_STREAMS 3
/** @brief GPUs the multi-GPU step drives at most. */
#define PIPE_MAX_GPUS DAY07_GPUS_MAX

/** @brief Day 06's final kernel: zero the output (or add to it), then count, on @p stream. */
extern "C" hist_status day06_final_launch(const hist_args *a, int zero, cudaStream_t stream,
                                          uint32_t *blocks);
/** @brief Why day 06's final kernel cannot run a problem on a GPU (its shared memory), or NULL. */
extern "C" const char *day06_final_unsupported(const hist_problem *p, const hist_device *dev);
/** @brief Day 06's final kernel's plan on @p dev (day06_roofline/final.cu). */
extern "C" const char *day06_final_plan(const hist_problem *p, const hist_device *dev);
/** @brief The workspace day 06's final kernel hands its last rows out with (its dynamic tiles). */
extern "C" size_t day06_final_workspace(const hist_problem *p, const hist_device *dev);

/** @brief Bytes per chunk of the pipelines (whole rows; at least one row) when the call's
 *  `caps.chunk_bytes` is 0. 32 MiB: its copy over PCIe takes some thirty times its count, so the
 *  count hides behind the next copy and only the last chunk's count shows (the notebook's
 *  chunk-size table). The tests cap it small through the call's caps. */
#define PIPE_CHUNK_BYTES ((uint64_t)32 << 20)

/**
 * @brief The chunk size of the pipelines under @p caps: `caps->chunk_bytes`, or
 *        PIPE_CHUNK_BYTES when that is 0 (or @p caps NULL). For `bigger` too (its default).
 * @param caps a call's caps, or NULL
 * @return bytes per chunk
 */
extern "C" uint64_t day07_chunk_bytes(const hist_caps *caps) {
    return caps && caps->chunk_bytes > 0 ? caps->chunk_bytes : PIPE_CHUNK_BYTES;
}

/* ---- what a GPU keeps between calls ---- */

/** @brief One GPU's streams and buffers, made on first use and grown when a call needs more. */
typedef struct gpu_state {
    hist_device dev;                          /**< the GPU */
    cudaStream_t streams[PIPE_STREAMS];       /**< the pipeline's streams */
    cudaEvent_t events[2 * PIPE_STREAMS + 1]; /**< per stream or buffer, twice, and "zeroed" */
    cudaEvent_t timed[3]; /**< timing events: before the count, after it, after the sum */
    uint8_t *d_in;        /**< the whole input (steps 1-2) or the chunk buffers */
    size_t in_bytes;      /**< its size */
    uint32_t *d_hist;     /**< this GPU's histogram */
    size_t hist_bytes;    /**< its size */
    uint32_t *d_sum;      /**< the sum of every GPU's histogram (the peer all-reduce's result) */
    size_t sum_bytes;     /**< its size */
    uint32_t *d_flags;    /**< the peer add's: a word per GPU ("counted sum k"), then "late" */
    void *d_work;         /**< the count's workspace (day 06's dynamic tiles), data on the GPU */
    size_t work_bytes;    /**< its size */
} gpu_state;

/** @brief How long a crew thread spins for the next round before it sleeps: longer than the
 *  untimed work between two repetitions of a timed loop (flushing every GPU's L2). */
#define CREW_SPIN_US 50000.0
/** @brief The longest message a crew thread passes on. */
#define CREW_MSG 512

/** @brief Work for GPU g: queue it on that GPU and wait for it (a job of the crew). */
typedef hist_status (*gpu_job)(void *ctx, int g);

/** @brief One host thread per GPU 1, 2, ... (GPU 0's is the caller's), each set to its GPU once,
 *  waiting for a round of work: `round` changes, each thread runs the round's job for its GPU
 *  and counts itself `done`. A thread spins while rounds come often (a timed loop) and sleeps
 *  on `wake` after CREW_SPIN_US without one. */
typedef struct pipe_crew {
    pthread_t threads[PIPE_MAX_GPUS]; /**< thread g drives GPU g (1 .. started) */
    int started;                      /**< threads 1 .. started run */
    std::atomic<uint32_t> round;      /**< the round of work (its change wakes the threads) */
    std::atomic<int> done;            /**< threads done with the round */
    std::atomic<int> sleeping;        /**< threads waiting on `wake` */
    pthread_mutex_t lock;             /**< for `wake` */
    pthread_cond_t wake;              /**< signalled when a round starts and a thread sleeps */
    gpu_job job;                      /**< the round's job */
    void *ctx;                        /**< its context */
    int n;                            /**< GPUs of the round (threads of GPU n.. only count done) */
    uint32_t born;                    /**< the round when the newest threads were started */
    int quit;                         /**< 1: the threads end (the program does) */
    hist_status status[PIPE_MAX_GPUS]; /**< each GPU's status in the round */
    char why[PIPE_MAX_GPUS][CREW_MSG]; /**< each failing GPU's message */
} pipe_crew;

/** @brief The driver's cuStreamWriteValue32(), as the runtime hands it out. */
typedef CUresult (*stream_write_fn)(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                    unsigned int flags);

/** @brief What the process keeps between calls: each GPU's streams, events and buffers, the peer
 *  access between the GPUs, the NCCL communicator and the host threads that drive the GPUs
 *  (docs/LESSON_CONTRACT.md, "State a lesson keeps", says why they outlive a call). */
typedef struct pipe_kept {
    gpu_state gpus[PIPE_MAX_GPUS]; /**< GPUs 0 .. gpus_made-1 */
    int gpus_made;                 /**< how many of gpus[] hold streams and events */
    int peers_enabled;             /**< GPUs 0 .. peers_enabled-1 read each other's memory */
    uint32_t peer_sums;            /**< the peer adds so far (each one's flags say its number) */
    pipe_crew crew;                /**< the host threads of GPUs 1, 2, ... */
    stream_write_fn write_value;   /**< the driver's stream write, or NULL (day07_signal()) */
    int write_looked;              /**< 1: write_value was looked for */
#ifdef HIST_HAVE_NCCL
    ncclComm_t comms[PIPE_MAX_GPUS]; /**< the communicator: one per GPU */
    int comm_count;                  /**< GPUs of the communicator (0: none yet) */
#endif
} pipe_kept;

/** @brief The one state of this lesson that outlives a call. */
static pipe_kept kept;

static void crew_stop(void);

/* Everything kept, released when the program ends. */
static void release_all(void) {
    crew_stop();
#ifdef HIST_HAVE_NCCL
    for (int i = 0; i < kept.comm_count; ++i)
        ncclCommDestroy(kept.comms[i]);
    kept.comm_count = 0;
#endif
    for (int i = 0; i < kept.gpus_made; ++i) {
        cudaSetDevice(kept.gpus[i].dev.ordinal);
        for (int s = 0; s < PIPE_STREAMS; ++s)
            cudaStreamDestroy(kept.gpus[i].streams[s]);
        for (int e = 0; e < 2 * PIPE_STREAMS + 1; ++e)
            cudaEventDestroy(kept.gpus[i].events[e]);
        for (int e = 0; e < 3; ++e)
            cudaEventDestroy(kept.gpus[i].timed[e]);
        cudaFree(kept.gpus[i].d_work);
        cudaFree(kept.gpus[i].d_flags);
        cudaFree(kept.gpus[i].d_in);
        cudaFree(kept.gpus[i].d_hist);
        cudaFree(kept.gpus[i].d_sum);
    }
    kept.gpus_made = 0;
}

/* Make GPUs 0 .. n-1 usable (streams, events, their properties, each emulated as the caller's
   GPU is); the current device is kept. */
static hist_status make_gpus(int n, const hist_emulation *emulation) {
    if (kept.gpus_made >= n)
        return HIST_OK;
    if (kept.gpus_made == 0)
        atexit(release_all);
    int caller;
    HIST_CUDA_TRY(cudaGetDevice(&caller));
    for (; kept.gpus_made < n; ++kept.gpus_made) {
        gpu_state *g = &kept.gpus[kept.gpus_made];
        memset(g, 0, sizeof *g);
        hist_status s = hist_device_read(kept.gpus_made, emulation, &g->dev);
        if (s != HIST_OK)
            return s;
        HIST_CUDA_TRY(cudaSetDevice(kept.gpus_made));
        for (int s = 0; s < PIPE_STREAMS; ++s)
            HIST_CUDA_TRY(cudaStreamCreateWithFlags(&g->streams[s], cudaStreamNonBlocking));
        for (int e = 0; e < 2 * PIPE_STREAMS + 1; ++e)
            HIST_CUDA_TRY(cudaEventCreateWithFlags(&g->events[e], cudaEventDisableTiming));
        for (int e = 0; e < 3; ++e)
            HIST_CUDA_TRY(cudaEventCreate(&g->timed[e]));
        HIST_CUDA_TRY(cudaMalloc((void **)&g->d_flags, (DAY07_ADD_MAX + 1) * sizeof(uint32_t)));
        HIST_CUDA_TRY(cudaMemset(g->d_flags, 0, (DAY07_ADD_MAX + 1) * sizeof(uint32_t)));
    }
    HIST_CUDA_TRY(cudaSetDevice(caller));
    return HIST_OK;
}

/* Make the device buffer at *@p buf hold at least @p want bytes (*@p have: its size); one that is
   big enough is kept. */
static hist_status grow(void **buf, size_t *have, size_t want) {
    if (want <= *have)
        return HIST_OK;
    cudaFree(*buf);
    *buf = NULL;
    *have = 0;
    HIST_CUDA_TRY(cudaMalloc(buf, want));
    *have = want;
    return HIST_OK;
}

/* Give GPU @p g (the current device) at least @p in_bytes of input buffer and @p hist_bytes of
   histogram. */
static hist_status ensure_buffers(gpu_state *g, size_t in_bytes, size_t hist_bytes) {
    hist_status s = grow((void **)&g->d_in, &g->in_bytes, in_bytes);
    return s == HIST_OK ? grow((void **)&g->d_hist, &g->hist_bytes, hist_bytes) : s;
}

static size_t at_least_16(uint64_t bytes) {
    return bytes < 16 ? 16 : (size_t)bytes;
}

/* ---- steps 1 and 2: copy everything, then count ---- */

/** @brief A way to queue the work on one GPU: enqueue_whole(), enqueue_chunks() or
 *  enqueue_copy_stream(), under the call's caps (the chunk size). On return, the GPU's stream 0
 *  holds everything. */
typedef hist_status (*enqueue_fn)(gpu_state *g, const hist_problem *p, const uint8_t *h_samples,
                                  const hist_caps *caps);

/**
 * @brief Steps 1 to 4 on one GPU: queue the work, then the result back, and wait.
 * @param a the call's arguments (host pointers; `a->device` is the GPU)
 * @param enqueue how the work is queued
 * @return HIST_OK or the CUDA error
 */
static hist_status run_pipeline(const hist_args *a, enqueue_fn enqueue) {
    const size_t hist_bytes = (size_t)hist_counters(a->problem) * sizeof(uint32_t);
    int caller;
    HIST_CUDA_TRY(cudaGetDevice(&caller));
    HIST_CUDA_TRY(cudaSetDevice(a->device->ordinal));
    hist_status s = make_gpus(a->device->ordinal + 1, &a->device->emulation);
    gpu_state *g = &kept.gpus[a->device->ordinal];
    if (s == HIST_OK)
        s = enqueue(g, a->problem, a->samples, &a->caps);
    if (s == HIST_OK && (cudaMemcpyAsync(a->hist, g->d_hist, hist_bytes, cudaMemcpyDeviceToHost,
                                         g->streams[0]) != cudaSuccess ||
                         cudaStreamSynchronize(g->streams[0]) != cudaSuccess))
        s = hist_fail(HIST_ERR_CUDA, "the pipeline: %s", cudaGetErrorString(cudaGetLastError()));
    cudaSetDevice(caller);
    return s;
}

/**
 * @brief Steps 1 and 2's work on GPU @p g (the current device): the whole input to the GPU, then
 *        day 06's kernel (zeroing the histogram first), on stream 0.
 * @param g the GPU
 * @param p the problem
 * @param h_samples its bytes in host memory (pageable or pinned)
 * @param caps the call's caps (no chunks here: unused)
 * @return HIST_OK or the CUDA error
 */
static hist_status enqueue_whole(gpu_state *g, const hist_problem *p, const uint8_t *h_samples,
                                 const hist_caps *caps) {
    (void)caps;
    const uint64_t bytes = hist_samples(p);
    hist_status s =
        ensure_buffers(g, at_least_16(bytes), at_least_16(hist_counters(p) * sizeof(uint32_t)));
    if (s != HIST_OK)
        return s;
    if (bytes > 0)
        HIST_CUDA_TRY(cudaMemcpyAsync(g->d_in, h_samples, (size_t)bytes, cudaMemcpyHostToDevice,
                                      g->streams[0]));
    const hist_args on_gpu = {
        .problem = p, .samples = g->d_in, .hist = g->d_hist, .device = &g->dev, .threads = 1};
    uint32_t blocks;
    return day06_final_launch(&on_gpu, 1, g->streams[0], &blocks);
}

/**
 * @brief Steps 1 and 2's registry entry (the same code; the harness hands step 1 pageable memory
 *        and step 2 pinned memory).
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
static hist_status run_copy_then_count(const hist_args *a) {
    return run_pipeline(a, enqueue_whole);
}

/* ---- step 3: chunks on streams ---- */

/** @brief How the rows of a pipeline are cut: whole rows per chunk, and each chunk buffer's size
 *  (a multiple of 256 bytes, so that every buffer starts where a whole input would). */
typedef struct chunking {
    uint64_t rows;  /**< rows per chunk (the last chunk may have fewer), at least 1 */
    uint64_t count; /**< how many chunks */
    size_t bytes;   /**< bytes between one chunk buffer and the next */
    size_t hist;    /**< bytes of the histogram */
} chunking;

/**
 * @brief Cut @p p's rows into chunks of about day07_chunk_bytes(@p caps) bytes, and give GPU
 *        @p g (the current device) PIPE_STREAMS chunk buffers and a histogram.
 * @param g the GPU
 * @param p the rows to count
 * @param caps the call's caps (`chunk_bytes`: the tests' small chunks)
 * @param c receives the cut
 * @return HIST_OK or the CUDA error
 */
static hist_status cut_into_chunks(gpu_state *g, const hist_problem *p, const hist_caps *caps,
                                   chunking *c) {
    const uint64_t chunk_bytes = day07_chunk_bytes(caps);
    c->rows = chunk_bytes / p->channels > 0 ? chunk_bytes / p->channels : 1;
    c->count = HIST_CEIL_DIV(p->rows, c->rows);
    c->bytes = (size_t)(c->rows * p->channels + 255) / 256 * 256;
    c->hist = (size_t)hist_counters(p) * sizeof(uint32_t);
    return ensure_buffers(g, PIPE_STREAMS * c->bytes, at_least_16(c->hist));
}

/** @brief Chunk k of the rows: how many, which stream and buffer, where its bytes are. */
typedef struct pipe_chunk {
    uint64_t rows;          /**< its rows (the last chunk may have fewer) */
    int b;                  /**< its stream and buffer: k % PIPE_STREAMS */
    uint8_t *d_chunk;       /**< its buffer on the GPU */
    const uint8_t *h_chunk; /**< its bytes in pinned host memory */
} pipe_chunk;

/**
 * @brief Chunk @p k of the cut @p c of @p p's rows at @p h_samples, on GPU @p g.
 * @param g the GPU (its buffers)
 * @param p the rows
 * @param c the cut
 * @param h_samples the rows' bytes in pinned host memory
 * @param k which chunk, 0 .. c->count - 1
 * @return the chunk
 */
static pipe_chunk chunk_of(const gpu_state *g, const hist_problem *p, const chunking *c,
                           const uint8_t *h_samples, uint64_t k) {
    const uint64_t row = k * c->rows;
    pipe_chunk ch;
    ch.rows = p->rows - row < c->rows ? p->rows - row : c->rows;
    ch.b = (int)(k % PIPE_STREAMS);
    ch.d_chunk = g->d_in + (size_t)ch.b * c->bytes;
    ch.h_chunk = h_samples + row * p->channels;
    return ch;
}

/**
 * @brief Queue on @p stream the copy of chunk @p ch from host memory into its buffer.
 * @param ch the chunk
 * @param channels channels per row
 * @param stream the stream
 * @return HIST_OK or the CUDA error
 */
static hist_status copy_chunk(const pipe_chunk *ch, uint32_t channels, cudaStream_t stream) {
    HIST_CUDA_TRY(cudaMemcpyAsync(ch->d_chunk, ch->h_chunk, (size_t)(ch->rows * channels),
                                  cudaMemcpyHostToDevice, stream));
    return HIST_OK;
}

/**
 * @brief Queue on @p stream day 06's final kernel over chunk @p ch, adding its counts to
 *        `g->d_hist` (day06_final_launch() with zero = 0).
 * @param g the GPU
 * @param p the rows (channels and binning)
 * @param ch the chunk, in its buffer
 * @param stream the stream
 * @return HIST_OK or the CUDA error
 */
static hist_status count_chunk(gpu_state *g, const hist_problem *p, const pipe_chunk *ch,
                               cudaStream_t stream) {
    const hist_problem chunk = {ch->rows, p->channels, p->binning};
    const hist_args on_gpu = {.problem = &chunk,
                              .samples = ch->d_chunk,
                              .hist = g->d_hist,
                              .device = &g->dev,
                              .threads = 1};
    uint32_t blocks;
    return day06_final_launch(&on_gpu, 0, stream, &blocks);
}

/**
 * @brief Queue the pipeline on GPU @p g (the current device) for the rows of @p p at host
 *        @p h_samples (pinned): zero the histogram, then every chunk's copy and count on the
 *        streams in turn. On return, `g->streams[0]` holds everything (it waits for the others):
 *        queue the next step (all-reduce, copy back) there.
 * @param g the GPU
 * @param p the rows to count (a whole problem, or one GPU's share)
 * @param h_samples their bytes in pinned host memory
 * @param caps the call's caps (the chunk size)
 * @return HIST_OK or the CUDA error
 */
static hist_status enqueue_chunks(gpu_state *g, const hist_problem *p, const uint8_t *h_samples,
                                  const hist_caps *caps) {
    chunking c;
    hist_status s = cut_into_chunks(g, p, caps, &c);
    if (s != HIST_OK)
        return s;
    /* the histogram is zeroed once; every stream waits for that before its first count */
    HIST_CUDA_TRY(cudaMemsetAsync(g->d_hist, 0, c.hist, g->streams[0]));
    HIST_CUDA_TRY(cudaEventRecord(g->events[2 * PIPE_STREAMS], g->streams[0]));
    for (int k = 1; k < PIPE_STREAMS; ++k)
        HIST_CUDA_TRY(cudaStreamWaitEvent(g->streams[k], g->events[2 * PIPE_STREAMS], 0));

    // SOLUTION enqueue_chunks [pipe_streams]: for chunk k = 0 .. c.count - 1 (chunk_of() gives
    //   its rows, its stream and buffer number ch.b = k % PIPE_STREAMS, and where its bytes are):
    //   queue on its stream g->streams[ch.b] first its copy (copy_chunk()), then its count
    //   (count_chunk(), which adds to g->d_hist); return the first failure. Work on one stream
    //   runs in order, so a buffer is reused only after its last count; work on different
    //   streams overlaps.
    // stub: (void)h_samples;
    for (uint64_t k = 0; k < c.count && s == HIST_OK; ++k) {
        const pipe_chunk ch = chunk_of(g, p, &c, h_samples, k);
        s = copy_chunk(&ch, p->channels, g->streams[ch.b]);
        if (s == HIST_OK)
            s = count_chunk(g, p, &ch, g->streams[ch.b]);
    }
    if (s != HIST_OK)
        return s;
    // END SOLUTION

    /* stream 0 waits for the others' last counts */
    for (int k = 1; k < PIPE_STREAMS; ++k) {
        HIST_CUDA_TRY(cudaEventRecord(g->events[k], g->streams[k]));
        HIST_CUDA_TRY(cudaStreamWaitEvent(g->streams[0], g->events[k], 0));
    }
    return HIST_OK;
}

/**
 * @brief Step 3's registry entry.
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
static hist_status run_streams(const hist_args *a) {
    return run_pipeline(a, enqueue_chunks);
}

/* ---- step 4: one stream for the copies, one for the counts ---- */

/**
 * @brief Step 4's pipeline on GPU @p g (the current device): the same chunks and buffers as
 *        enqueue_chunks(), but every copy on one stream (`streams[1]`) and every count on another
 *        (`streams[0]`), tied by events: count k waits for "chunk k copied", copy k waits for
 *        "buffer k % PIPE_STREAMS counted" (the count of chunk k - PIPE_STREAMS). The copy
 *        engine then sees one queue of copies back to back, as in the pinned-copy floor, instead
 *        of copies spread over three streams. On return, `streams[0]` holds everything.
 * @param g the GPU
 * @param p the rows to count
 * @param h_samples their bytes in pinned host memory
 * @param caps the call's caps (the chunk size)
 * @return HIST_OK or the CUDA error
 */
static hist_status enqueue_copy_stream(gpu_state *g, const hist_problem *p,
                                       const uint8_t *h_samples, const hist_caps *caps) {
    chunking c;
    hist_status s = cut_into_chunks(g, p, caps, &c);
    if (s != HIST_OK)
        return s;
    cudaStream_t count = g->streams[0], copy = g->streams[1];
    cudaEvent_t *copied = g->events, *counted = g->events + PIPE_STREAMS;
    HIST_CUDA_TRY(cudaMemsetAsync(g->d_hist, 0, c.hist, count));
    for (uint64_t k = 0; k < c.count; ++k) {
        const pipe_chunk ch = chunk_of(g, p, &c, h_samples, k);
        if (k >= PIPE_STREAMS) /* the buffer's previous chunk must be counted */
            HIST_CUDA_TRY(cudaStreamWaitEvent(copy, counted[ch.b], 0));
        if ((s = copy_chunk(&ch, p->channels, copy)) != HIST_OK)
            return s;
        HIST_CUDA_TRY(cudaEventRecord(copied[ch.b], copy));
        HIST_CUDA_TRY(cudaStreamWaitEvent(count, copied[ch.b], 0));
        if ((s = count_chunk(g, p, &ch, count)) != HIST_OK)
            return s;
        HIST_CUDA_TRY(cudaEventRecord(counted[ch.b], count));
    }
    return HIST_OK;
}

/**
 * @brief Step 4's registry entry.
 * @param a the call's arguments
 * @return HIST_OK or the CUDA error
 */
static hist_status run_copy_stream(const hist_args *a) {
    return run_pipeline(a, enqueue_copy_stream);
}

/* ---- step 5: several GPUs, one NCCL all-reduce ---- */

/** @brief The reason step 5 cannot run in a build without NCCL (common/hist.h's prefix). */
#define PIPE_NO_NCCL                                                                               \
    HIST_NOT_BUILT "NCCL was not found when this was built (pip install nvidia-nccl-cu13, or set " \
                   "NCCL_ROOT to an NCCL install; day07_scale/README.md)"

#ifdef HIST_HAVE_NCCL
/* One communicator for GPUs 0 .. n-1 of this process (made again if n changed). */
static hist_status make_comms(int n) {
    if (kept.comm_count == n)
        return HIST_OK;
    for (int i = 0; i < kept.comm_count; ++i)
        ncclCommDestroy(kept.comms[i]);
    kept.comm_count = 0;
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no NVLink multicast (common/README: GPU machines) */
    const ncclResult_t r = ncclCommInitAll(kept.comms, n, NULL);
    if (r != ncclSuccess)
        return hist_fail(HIST_ERR_CUDA, "ncclCommInitAll over %d GPUs: %s", n,
                         ncclGetErrorString(r));
    kept.comm_count = n;
    return HIST_OK;
}

/* Sum the histograms of GPUs 0 .. n-1 in place, each on its stream 0 (one group: one thread
   drives every GPU). */
static hist_status all_reduce(int n, uint64_t counters) {
    ncclResult_t r = ncclGroupStart();
    for (int i = 0; i < n && r == ncclSuccess; ++i)
        r = ncclAllReduce(kept.gpus[i].d_hist, kept.gpus[i].d_hist, (size_t)counters, ncclUint32,
                          ncclSum, kept.comms[i], kept.gpus[i].streams[0]);
    const ncclResult_t end = ncclGroupEnd();
    if (r == ncclSuccess)
        r = end;
    if (r != ncclSuccess)
        return hist_fail(HIST_ERR_CUDA, "ncclAllReduce: %s", ncclGetErrorString(r));
    return HIST_OK;
}

#endif

/* After every GPU's work is queued (status @p s so far): the @p counters at GPU 0's @p d_result
   to @p h_hist (if not NULL), then wait for every GPU, on failure too, so that nothing queued
   outlives the call. Leaves the current device changed. */
static hist_status copy_back_and_wait(int n, const uint32_t *d_result, uint64_t counters,
                                      uint32_t *h_hist, hist_status s) {
    if (s == HIST_OK && h_hist &&
        (cudaSetDevice(0) != cudaSuccess ||
         cudaMemcpyAsync(h_hist, d_result, counters * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                         kept.gpus[0].streams[0]) != cudaSuccess))
        s = hist_fail(HIST_ERR_CUDA, "copying the histogram back: %s",
                      cudaGetErrorString(cudaGetLastError()));
    for (int i = 0; i < n; ++i)
        if (cudaSetDevice(i) != cudaSuccess || cudaStreamSynchronize(kept.gpus[i].streams[0]))
            if (s == HIST_OK)
                s = hist_fail(HIST_ERR_CUDA, "GPU %d: %s", i,
                              cudaGetErrorString(cudaGetLastError()));
    return s;
}

/* GPUs this process sees (at most PIPE_MAX_GPUS). */
static int visible_gpus(void) {
    const int n = hist_gpu_count();
    return n < PIPE_MAX_GPUS ? n : PIPE_MAX_GPUS;
}

extern "C" void day07_split_rows(const hist_problem *whole, int n, hist_problem *shares,
                                 uint64_t *first) {
    for (int g = 0; g < n; ++g) {
        shares[g] = *whole;
        shares[g].rows = hist_share(whole->rows, (uint64_t)n, (uint64_t)g, &first[g]);
    }
}

/**
 * @brief Step 5 on GPUs 0 .. @p n-1: the rows split into @p n nearly equal shares
 *        (day07_split_rows()), each GPU running step 4's pipeline on its
 *        share, then one all-reduce and GPU 0's histogram back. For `make gpus` (gpus.cu) too.
 * @param a the call's arguments (host pointers, the input pinned)
 * @param n how many GPUs, 1 .. visible
 * @return HIST_OK, the CUDA or NCCL error, or HIST_ERR_UNSUPPORTED without NCCL
 */
extern "C" hist_status day07_gpus_host(const hist_args *a, int n) {
#ifndef HIST_HAVE_NCCL
    (void)a, (void)n;
    return hist_fail(HIST_ERR_UNSUPPORTED, "%s", PIPE_NO_NCCL);
#else
    if (n < 1 || n > visible_gpus())
        return hist_fail(HIST_ERR_USAGE, "%d GPUs asked, %d visible", n, visible_gpus());
    const hist_problem *p = a->problem;
    const uint64_t counters = hist_counters(p);
    int caller;
    HIST_CUDA_TRY(cudaGetDevice(&caller));
    hist_status s = make_gpus(n, &a->device->emulation);
    if (s == HIST_OK)
        s = make_comms(n);
    hist_problem shares[PIPE_MAX_GPUS];
    uint64_t first[PIPE_MAX_GPUS];
    day07_split_rows(p, n, shares, first);
    for (int i = 0; i < n && s == HIST_OK; ++i) { /* queue every GPU's share, waiting for none */
        if (cudaSetDevice(i) != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "cudaSetDevice(%d) failed", i);
        else
            s = enqueue_copy_stream(&kept.gpus[i], &shares[i], a->samples + first[i] * p->channels,
                                    &a->caps);
    }
    if (s == HIST_OK)
        s = all_reduce(n, counters);
    s = copy_back_and_wait(n, kept.gpus[0].d_hist, counters, a->hist, s);
    cudaSetDevice(caller);
    return s;
#endif
}

/* ---- the sum without NCCL: each GPU reads the others' histograms over NVLink (add.h) ---- */

/** @brief Histograms to add: device pointers that the GPU running the kernel can read (its own,
 *  its peers' through peer access or CUDA IPC). Passed by value: no copy before the launch. */
typedef struct day07_histograms {
    const uint32_t *hist[DAY07_ADD_MAX]; /**< the histograms */
    int n;                               /**< how many */
} day07_histograms;

/** @brief A word that other GPUs read or write (a flag), as an atomic at system scope.
 *  @tparam T uint32_t, or const uint32_t for a word only read here
 *  @param p the word @return its atomic reference */
template <typename T>
__device__ __forceinline__ cuda::atomic_ref<T, cuda::thread_scope_system> system_word(T *p) {
    return cuda::atomic_ref<T, cuda::thread_scope_system>(*p);
}

/** @brief Thread 0 of each block: say at every `w.tell` word that this GPU's count is done (one
 *  release fence at system scope, then the words: the count's writes are seen by whoever
 *  acquires a word; every block says it, so that no block waits on one that has not started),
 *  then wait until every input g but `w.self` has said so (flag >= seq) or 10 s pass. The flags
 *  are polled with relaxed loads, then one fence makes the last of them an acquire.
 *  @param w the words to tell, the flags, the sum's number and where to say which input was late
 *  @param n inputs @return 1 if every flag came */
__device__ bool wait_for_inputs(const day07_wait w, int n) {
    __shared__ int ok;
    if (threadIdx.x == 0) {
        /* one release fence for every word (a fence at system scope costs about a microsecond),
           then the words stored relaxed */
        if (w.n_tell > 0)
            cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
        for (int t = 0; t < w.n_tell; ++t)
            system_word(w.tell[t]).store(w.seq, cuda::memory_order_relaxed);
        ok = 1;
        const uint64_t start = cuda::ptx::get_sreg_globaltimer();
        for (int g = 0; g < n && ok; ++g)
            while (g != w.self) {
                /* the flag's GPU writes it: polled with relaxed loads */
                const uint32_t v = system_word(w.flags + g).load(cuda::memory_order_relaxed);
                if ((int32_t)(v - w.seq) >= 0)
                    break;
                /* 10 s: a peer that never says makes no hang */
                if (cuda::ptx::get_sreg_globaltimer() - start > 10000000000ull) {
                    atomicExch(w.late, (uint32_t)g);
                    ok = 0;
                    break;
                }
            }
        cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_system);
    }
    __syncthreads();
    return ok;
}

/** @brief out[k] = the sum over g of in.hist[g][k], four counters a thread (16-byte loads, which
 *  NVLink carries whole), then the tail; first, if `w.flags`, wait for the inputs to say they
 *  are done. @p out may be one of the inputs (each counter is read and written by one thread).
 *  Every input's load is issued before the first addition (the loop over the inputs unrolled to
 *  DAY07_ADD_MAX, each load under `g < n`, no addition between two loads): the peers' round
 *  trips over NVLink overlap instead of following one another, as a loop of n - 1 iterations
 *  compiles (a remainder loop of one load, one addition and one branch per input).
 *  @param out the sum @param in the histograms @param counters counters per histogram
 *  @param w what to wait for (`flags` NULL: nothing) */
__global__ void add_histograms(uint32_t *out, day07_histograms in, uint64_t counters,
                               day07_wait w) {
    if (w.flags && !wait_for_inputs(w, in.n))
        return;
    const uint64_t quads = counters / 4, stride = (uint64_t)gridDim.x * blockDim.x;
    const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (uint64_t q = first; q < quads; q += stride) {
        uint4 v[DAY07_ADD_MAX];
#pragma unroll
        for (int g = 0; g < DAY07_ADD_MAX; ++g)
            if (g < in.n)
                v[g] = reinterpret_cast<const uint4 *>(in.hist[g])[q];
        uint4 acc = v[0];
#pragma unroll
        for (int g = 1; g < DAY07_ADD_MAX; ++g)
            if (g < in.n)
                acc.x += v[g].x, acc.y += v[g].y, acc.z += v[g].z, acc.w += v[g].w;
        reinterpret_cast<uint4 *>(out)[q] = acc;
    }
    for (uint64_t k = quads * 4 + first; k < counters; k += stride) {
        uint32_t acc = 0;
        for (int g = 0; g < in.n; ++g)
            acc += in.hist[g][k];
        out[k] = acc;
    }
}

/** @brief `*flag = seq` with release semantics at system scope: every write this GPU's stream
 *  made before (the count's histogram) is seen by whoever reads the flag with acquire.
 *  @param flag the word (on the summing GPU) @param seq the sum's number */
__global__ void signal_kernel(uint32_t *flag, uint32_t seq) {
    system_word(flag).store(seq, cuda::memory_order_release);
}

/**
 * @brief Queue `out = hists[0] + ... + hists[n-1]` on @p stream of the current GPU: one kernel
 *        that reads every histogram where it lies (peers' over NVLink); with @p wait, the kernel
 *        first says at `wait->tell` that this GPU's count is done, then waits for every input
 *        but `wait->self` to have said so (day07_signal(), or its own sum). Every pointer must
 *        be readable from the current GPU and 16-byte aligned (cudaMalloc's are).
 * @param dev the current GPU (the launch goes through hist_launch())
 * @param out the sum (may be hists[k])
 * @param hists the histograms, @p n of them (1 .. DAY07_ADD_MAX)
 * @param n how many
 * @param counters counters per histogram
 * @param wait what to wait for first, or NULL
 * @param stream the stream
 * @return HIST_OK, HIST_ERR_USAGE for a bad @p n, or the launch's error
 */
extern "C" hist_status day07_add_histograms(const hist_device *dev, uint32_t *out,
                                            const uint32_t *const *hists, int n, uint64_t counters,
                                            const day07_wait *wait, cudaStream_t stream) {
    if (n < 1 || n > DAY07_ADD_MAX)
        return hist_fail(HIST_ERR_USAGE, "%d histograms to add: 1 to %d", n, DAY07_ADD_MAX);
    day07_histograms in;
    memset(&in, 0, sizeof in);
    for (int g = 0; g < n; ++g)
        in.hist[g] = hists[g];
    in.n = n;
    day07_wait w;
    memset(&w, 0, sizeof w);
    if (wait)
        w = *wait;
    /* one 16-byte load per thread and histogram: 512 KiB (the main preset) is 128 blocks */
    const uint64_t threads = 256, quads = counters / 4 + counters % 4;
    const uint64_t blocks = quads == 0 ? 1 : (quads + threads - 1) / threads;
    return hist_launch(dev, add_histograms, dim3((unsigned)(blocks < 4096 ? blocks : 4096)),
                       (int)threads, 0, stream, "add_histograms", out, in, counters, w);
}

/* The driver's stream write (cuStreamWriteValue32), found once through the runtime (no link to
   the driver library); NULL where the driver does not give it. */
static stream_write_fn driver_stream_write(void) {
    if (!kept.write_looked) {
        kept.write_looked = 1;
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &fn, 12000,
                                                               cudaEnableDefault, &found);
#else
        const cudaError_t e =
            cudaGetDriverEntryPoint("cuStreamWriteValue32", &fn, cudaEnableDefault, &found);
#endif
        if (e == cudaSuccess && found == cudaDriverEntryPointSuccess)
            kept.write_value = (stream_write_fn)fn;
        else
            (void)cudaGetLastError();
    }
    return kept.write_value;
}

/**
 * @brief Queue on @p stream: `*flag = seq`, once the stream's earlier work (a count) is done,
 *        its writes visible to another GPU that waits for the flag (day07_add_histograms()).
 *        The write is the driver's stream write (cuStreamWriteValue32, by default behind a
 *        system-scope fence on the stream's earlier writes): the GPU's front end makes it as the
 *        count ends, with no kernel to launch; where the driver refuses it, a one-thread kernel
 *        (signal_kernel()) makes the same release.
 * @param dev the current GPU (the kernel's launch goes through hist_launch())
 * @param flag a word the summing GPU waits on (on that GPU, mapped here through CUDA IPC)
 * @param seq the sum's number
 * @param stream the stream the count ran on (or one ordered after it)
 * @return HIST_OK or the launch's error
 */
extern "C" hist_status day07_signal(const hist_device *dev, uint32_t *flag, uint32_t seq,
                                    cudaStream_t stream) {
    const stream_write_fn write = driver_stream_write();
    if (write && write((CUstream)stream, (CUdeviceptr)flag, seq, CU_STREAM_WRITE_VALUE_DEFAULT) ==
                     CUDA_SUCCESS)
        return HIST_OK;
    return hist_launch(dev, signal_kernel, dim3(1), 1, 0, stream, "signal_kernel", flag, seq);
}

/* Let GPUs 0 .. n-1 read each other's memory (once per process). NCCL, where it ran first, may
   have enabled some pairs already: cudaErrorPeerAccessAlreadyEnabled is then no error. */
static hist_status enable_peers(int n) {
    for (int i = 0; i < n && kept.peers_enabled < n; ++i) {
        HIST_CUDA_TRY(cudaSetDevice(i));
        for (int j = 0; j < n; ++j) {
            if (j == i || (i < kept.peers_enabled && j < kept.peers_enabled))
                continue;
            int can = 0;
            HIST_CUDA_TRY(cudaDeviceCanAccessPeer(&can, i, j));
            if (!can)
                return hist_fail(HIST_ERR_UNSUPPORTED,
                                 "GPU %d cannot read GPU %d's memory (no peer access between them):"
                                 " sum through NCCL instead",
                                 i, j);
            const cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                HIST_CUDA_TRY(e);
        }
    }
    if (n > kept.peers_enabled)
        kept.peers_enabled = n;
    return HIST_OK;
}

/* ---- one host thread per GPU: every GPU's work queued at once ---- */

/* What a spinning thread does between two looks at a word (the @p spins-th): x86's pause (the
   core's other thread runs), and every 1,024th look the core offered to another thread, so that
   on a host with fewer free cores than spinning threads the thread the round waits for runs. */
static inline void crew_pause(unsigned spins) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (spins % 1024 == 0)
        sched_yield();
}

/* Thread g: its GPU set once; then, round after round, run the round's job for GPU g (if the
   round has it) and count itself done. Between rounds it spins, and sleeps on `wake` once
   CREW_SPIN_US pass without one; `quit` ends it. */
static void *crew_thread(void *arg) {
    const int g = (int)(intptr_t)arg;
    pipe_crew *c = &kept.crew;
    cudaSetDevice(g);
    uint32_t seen = c->born, r;
    for (;;) {
        const double idle_since = hist_now_us();
        for (unsigned spins = 1; (r = c->round.load()) == seen; ++spins) {
            if (spins % 1024 != 0 || hist_now_us() - idle_since < CREW_SPIN_US) {
                crew_pause(spins);
                continue;
            }
            pthread_mutex_lock(&c->lock);
            c->sleeping.fetch_add(1);
            while (c->round.load() == seen)
                pthread_cond_wait(&c->wake, &c->lock);
            c->sleeping.fetch_sub(1);
            pthread_mutex_unlock(&c->lock);
        }
        seen = r;
        if (c->quit)
            return NULL;
        if (g < c->n) {
            c->status[g] = c->job(c->ctx, g);
            if (c->status[g] != HIST_OK)
                snprintf(c->why[g], CREW_MSG, "%s", hist_last_error());
        }
        c->done.fetch_add(1);
    }
}

/* Threads for GPUs 1 .. n-1 (those not yet running), each waiting for the next round. */
static hist_status crew_grow(int n) {
    pipe_crew *c = &kept.crew;
    if (c->started == 0 && n > 1 &&
        (pthread_mutex_init(&c->lock, NULL) != 0 || pthread_cond_init(&c->wake, NULL) != 0))
        return hist_fail(HIST_ERR_NOMEM, "cannot make the host threads' lock");
    c->born = c->round.load(); /* the round the new threads wait past */
    for (; c->started < n - 1; ++c->started) {
        const int g = c->started + 1;
        if (pthread_create(&c->threads[g], NULL, crew_thread, (void *)(intptr_t)g) != 0)
            return hist_fail(HIST_ERR_NOMEM, "cannot start the host thread of GPU %d", g);
    }
    return HIST_OK;
}

/* One round: @p job for GPUs 0 .. n-1 at once, GPU 0's on the caller's thread, the others' on
   theirs; returns when every thread is done, with the first failure (GPU order). */
static hist_status crew_run(gpu_job job, void *ctx, int n) {
    pipe_crew *c = &kept.crew;
    hist_status s = crew_grow(n);
    if (s != HIST_OK)
        return s;
    c->job = job, c->ctx = ctx, c->n = n;
    c->done.store(0);
    c->round.fetch_add(1); /* the threads start here */
    if (c->sleeping.load() > 0) {
        pthread_mutex_lock(&c->lock);
        pthread_cond_broadcast(&c->wake);
        pthread_mutex_unlock(&c->lock);
    }
    s = job(ctx, 0);
    for (unsigned spins = 1; c->done.load() < c->started; ++spins)
        crew_pause(spins);
    for (int g = 1; g < n && s == HIST_OK; ++g)
        if (c->status[g] != HIST_OK)
            s = hist_fail(c->status[g], "%s", c->why[g]);
    return s;
}

/* The threads ended (at exit, before the GPUs' state is released). */
static void crew_stop(void) {
    pipe_crew *c = &kept.crew;
    if (c->started == 0)
        return;
    pthread_mutex_lock(&c->lock);
    c->quit = 1;
    c->round.fetch_add(1);
    pthread_cond_broadcast(&c->wake);
    pthread_mutex_unlock(&c->lock);
    for (int g = 1; g <= c->started; ++g)
        pthread_join(c->threads[g], NULL);
    c->started = 0;
}

/* GPU g's part of the peer add, after its count on its stream 0: its add kernel says at every
   other GPU that its count is done, waits until every other GPU has said so, and adds all n
   histograms into its d_sum (every GPU holds the sum, as after an all-reduce). No host and no
   event between the GPUs: the flags are words in GPU memory, written over NVLink. */
static hist_status peer_sum_on(int g, int n, uint32_t seq, uint64_t counters) {
    const uint32_t *hists[PIPE_MAX_GPUS];
    for (int k = 0; k < n; ++k)
        hists[k] = kept.gpus[k].d_hist;
    day07_wait w;
    memset(&w, 0, sizeof w);
    w.flags = kept.gpus[g].d_flags;
    w.self = g;
    w.seq = seq;
    w.late = kept.gpus[g].d_flags + DAY07_ADD_MAX;
    for (int other = 0; other < n; ++other)
        if (other != g)
            w.tell[w.n_tell++] = kept.gpus[other].d_flags + g;
    return day07_add_histograms(&kept.gpus[g].dev, kept.gpus[g].d_sum, hists, n, counters, &w,
                                kept.gpus[g].streams[0]);
}

/* GPU g's part of NCCL's all-reduce, in place, after its count on its stream 0 (one thread per
   GPU, each with its communicator: no group needed). */
static hist_status nccl_sum_on(int g, uint64_t counters) {
#ifdef HIST_HAVE_NCCL
    const ncclResult_t e =
        ncclAllReduce(kept.gpus[g].d_hist, kept.gpus[g].d_hist, (size_t)counters, ncclUint32,
                      ncclSum, kept.comms[g], kept.gpus[g].streams[0]);
    if (e != ncclSuccess)
        return hist_fail(HIST_ERR_CUDA, "ncclAllReduce on GPU %d: %s", g, ncclGetErrorString(e));
    return HIST_OK;
#else
    (void)g, (void)counters;
    return hist_fail(HIST_ERR_UNSUPPORTED, "%s", PIPE_NO_NCCL);
#endif
}

/** @brief A call of day07_gpus_resident(), as each GPU's host thread reads it. */
typedef struct resident_call {
    const day07_resident *r; /**< the call */
    uint64_t counters;       /**< counters per histogram */
    uint32_t seq;            /**< the peer add's number */
    double t0_us;            /**< the call's start on the host clock (the phases) */
} resident_call;

/* A CUDA call's error as the call's status (the stream is still waited for after it). */
static hist_status cuda_status(cudaError_t e, int g, const char *what) {
    return e == cudaSuccess
               ? HIST_OK
               : hist_fail(HIST_ERR_CUDA, "GPU %d, %s: %s", g, what, cudaGetErrorString(e));
}

/* GPU g's work in a call of day07_gpus_resident(), on its host thread: count its rows, its part
   of the sum, GPU 0's sum back if asked, then wait for its stream (on failure too, so that
   nothing queued outlives the call). The phases, if asked, from events around each step. */
static hist_status resident_on_gpu(void *ctx, int g) {
    const resident_call *c = (const resident_call *)ctx;
    const day07_resident *r = c->r;
    gpu_state *gs = &kept.gpus[g];
    cudaStream_t stream = gs->streams[0];
    day07_phases *ph = r->phases;
    hist_status s = cuda_status(cudaSetDevice(g), g, "cudaSetDevice");
    const hist_args on_gpu = {.problem = &r->shares[g],
                              .samples = r->d_samples[g],
                              .hist = gs->d_hist,
                              .workspace = gs->d_work,
                              .device = &gs->dev,
                              .threads = 1};
    uint32_t blocks;
    if (s == HIST_OK && ph)
        s = cuda_status(cudaEventRecord(gs->timed[0], stream), g, "an event");
    if (s == HIST_OK)
        s = day06_final_launch(&on_gpu, 1, stream, &blocks);
    if (s == HIST_OK && ph) {
        ph->queued_us[g] = hist_now_us() - c->t0_us;
        s = cuda_status(cudaEventRecord(gs->timed[1], stream), g, "an event");
    }
    if (s == HIST_OK)
        s = r->peer ? peer_sum_on(g, r->n, c->seq, c->counters) : nccl_sum_on(g, c->counters);
    if (s == HIST_OK && ph)
        s = cuda_status(cudaEventRecord(gs->timed[2], stream), g, "an event");
    if (s == HIST_OK && g == 0 && r->h_hist)
        s = cuda_status(cudaMemcpyAsync(r->h_hist, r->peer ? gs->d_sum : gs->d_hist,
                                        c->counters * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                        stream),
                        g, "copying the sum back");
    const hist_status waited = cuda_status(cudaStreamSynchronize(stream), g, "its work");
    s = s == HIST_OK ? waited : s;
    if (s == HIST_OK && ph) {
        ph->done_us[g] = hist_now_us() - c->t0_us;
        s = cuda_status(cudaEventElapsedTime(&ph->count_us[g], gs->timed[0], gs->timed[1]), g,
                        "an event's time");
        if (s == HIST_OK)
            s = cuda_status(cudaEventElapsedTime(&ph->sum_us[g], gs->timed[1], gs->timed[2]), g,
                            "an event's time");
        ph->count_us[g] *= 1000.0f, ph->sum_us[g] *= 1000.0f; /* ms to us */
    }
    return s;
}

/* Before a call: GPUs 0 .. n-1 usable, with the histogram, the sum and the count's workspace
   each needs (made or grown here, on the caller's thread, so that every pointer a GPU's add
   kernel reads exists before any GPU starts), peer access or the communicator. */
static hist_status prepare_resident(const hist_device *first, const day07_resident *r,
                                    uint64_t counters) {
    hist_status s = make_gpus(r->n, &first->emulation);
#ifdef HIST_HAVE_NCCL
    if (s == HIST_OK && !r->peer)
        s = make_comms(r->n);
#endif
    if (s == HIST_OK && r->peer)
        s = enable_peers(r->n);
    const size_t hist_bytes = at_least_16(counters * sizeof(uint32_t));
    for (int g = 0; g < r->n && s == HIST_OK; ++g) {
        gpu_state *gs = &kept.gpus[g];
        const size_t work = at_least_16(day06_final_workspace(&r->shares[g], &gs->dev));
        if (gs->hist_bytes >= hist_bytes && gs->work_bytes >= work &&
            (!r->peer || gs->sum_bytes >= hist_bytes))
            continue; /* nothing to make: no CUDA call in a timed loop */
        if (cudaSetDevice(g) != cudaSuccess)
            return hist_fail(HIST_ERR_CUDA, "cudaSetDevice(%d) failed", g);
        s = ensure_buffers(gs, 16, hist_bytes);
        if (s == HIST_OK)
            s = grow(&gs->d_work, &gs->work_bytes, work);
        if (s == HIST_OK && r->peer)
            s = grow((void **)&gs->d_sum, &gs->sum_bytes, hist_bytes);
    }
    return s;
}

extern "C" hist_status day07_gpus_resident(const hist_device *first, const day07_resident *r) {
#ifndef HIST_HAVE_NCCL
    if (!r->peer)
        return hist_fail(HIST_ERR_UNSUPPORTED, "%s", PIPE_NO_NCCL);
#endif
    if (r->n < 1 || r->n > visible_gpus())
        return hist_fail(HIST_ERR_USAGE, "%d GPUs asked, %d visible", r->n, visible_gpus());
    const uint64_t counters = hist_counters(&r->shares[0]);
    for (int g = 1; g < r->n; ++g)
        if (hist_counters(&r->shares[g]) != counters)
            return hist_fail(HIST_ERR_USAGE, "GPU %d's share has other channels or bins", g);
    int caller;
    HIST_CUDA_TRY(cudaGetDevice(&caller));
    hist_status s = prepare_resident(first, r, counters);
    resident_call c = {r, counters, 0, hist_now_us()};
    if (s == HIST_OK && r->peer)
        c.seq = ++kept.peer_sums;
    if (s == HIST_OK)
        s = crew_run(resident_on_gpu, &c, r->n);
    cudaSetDevice(caller);
    return s;
}

/**
 * @brief Step 5's registry entry: every visible GPU.
 * @param a the call's arguments
 * @return HIST_OK or the error
 */
static hist_status run_gpus(const hist_args *a) {
    return day07_gpus_host(a, visible_gpus());
}

/* ---- what each step accepts ---- */

/** @brief Steps 1-2 hold the whole input on the GPU.
 * @param p the problem
 * @param dev the GPU, or NULL
 * @return why not, or NULL */
static const char *whole_unsupported(const hist_problem *p, const hist_device *dev) {
    if (dev && hist_samples(p) > dev->global_bytes / 2)
        return "the input is more than half the GPU's memory: copy it in chunks (pipe_streams)";
    return day06_final_unsupported(p, dev);
}

/** @brief Steps 3 and 4 hold three chunks. @param p the problem @param dev the GPU, or NULL
 *  @return why not, or NULL */
static const char *streams_unsupported(const hist_problem *p, const hist_device *dev) {
    return day06_final_unsupported(p, dev);
}

/** @brief Step 5 needs NCCL at build time. @param p the problem @param dev the GPU, or NULL
 *  @return why not, or NULL */
static const char *gpus_unsupported(const hist_problem *p, const hist_device *dev) {
#ifndef HIST_HAVE_NCCL
    (void)p, (void)dev;
    return PIPE_NO_NCCL;
#else
    return day06_final_unsupported(p, dev);
#endif
}

/* The registry (docs/LESSON_CONTRACT.md): C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day07);

/** @brief The lesson's registry: one entry per step, in the lesson's order. */
const hist_impl day07_impls[] = {
    {
        .name = "pipe_pageable",
        .where = HIST_HOST_INPUT,
        .summary = "pageable input: one copy of everything, then day 06's kernel",
        .constraints = "any problem whose input fits in half the GPU's memory",
        .unsupported = whole_unsupported,
        .run = run_copy_then_count,
        .plan = day06_final_plan,
    },
    {
        .name = "pipe_pinned",
        .where = HIST_PINNED_INPUT,
        .summary = "pinned input: the same code, the copy at the link's speed",
        .constraints = "any problem whose input fits in half the GPU's memory",
        .unsupported = whole_unsupported,
        .run = run_copy_then_count,
        .target = 0.90,
        .plan = day06_final_plan,
    },
    {
        .name = "pipe_streams",
        .where = HIST_PINNED_INPUT,
        .summary =
            "pinned input in 32 MiB chunks on 3 streams: each count hidden behind the next copy",
        .constraints = "any problem (only three chunks live on the GPU)",
        .unsupported = streams_unsupported,
        .run = run_streams,
        .target = 1 / 1.05, /* within 5% of the pinned-copy floor: every count hidden */
        .plan = day06_final_plan,
    },
    {
        .name = "pipe_copy_stream",
        .where = HIST_PINNED_INPUT,
        .summary =
            "the same chunks: all copies on one stream, all counts on another, events between",
        .constraints = "any problem (only three chunks live on the GPU)",
        .unsupported = streams_unsupported,
        .run = run_copy_stream,
        .target = 1 / 1.05, /* within 5% of the pinned-copy floor: every count hidden */
        .plan = day06_final_plan,
    },
    {
        .name = "gpus_nccl",
        .where = HIST_PINNED_INPUT,
        .summary = "every visible GPU pipelines its share of the rows; NCCL all-reduce",
        .constraints = "any problem; built only with NCCL",
        .unsupported = gpus_unsupported,
        .run = run_gpus,
        .target = 0.90,
        .plan = day06_final_plan,
    },
};
/** @brief How many entries day07_impls holds. */
const size_t day07_impl_count = sizeof day07_impls / sizeof day07_impls[0];
