/**
 * @file ranks.cu
 * @brief `make ranks NP=4`: the histogram over N processes ("ranks"), on one machine or many,
 *        launched by `mpirun -np N` (Open MPI) or Slurm's `srun`: what a user whose data outgrow
 *        one machine runs.
 *
 * Every rank holds only its own rows (rank_rows.c: generated, its range of one `--input` file,
 * or its `--shards`), counts them (day 06's final kernel on its GPU, day 01's `cpu_private`
 * without one), and the counts are summed on rank 0 (rank_reduce.cu: the peer add, NCCL or MPI).
 * Rank 0 checks the sum against the reference (each rank's reference of its rows, summed) and
 * writes `--output`, whole or not at all. Any rank's failure before a collective is agreed on by
 * all (one line naming the rank and the cause, the same exit status everywhere); a failure inside
 * one ends the whole job with MPI_Abort: no rank is left waiting.
 *
 * Times (median of `--reps` after `--warmup`, the slowest rank's): the count, as the runner takes
 * it (on a GPU with events, its L2 flushed); then on the host clock (hist_time_calls()), all ranks
 * started together by a barrier, until the last one is done: the reduce alone, then the count
 * alone and the job (count then reduce) in turns; the reduce's cost in the job is the median of
 * each job less the count timed just before it. Then, on a GPU, the job once more per
 * repetition with events around the count and the reduce on each rank's GPU: how long rank 0's
 * sum ends after its count (on the peer and NCCL paths, with no host in the time; on the MPI
 * path the host's copy and MPI_Reduce lie between the events). `--csv FILE` adds a row.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "impl.h"
#include "npy.h"
#include "options.h"
#include "outfile.h"
#include "rank_reduce.h"
#include "rank_rows.h"
#include "reference.h"
#include "timing.h"

/** @brief The commit this build was made from (the CSV row records it, as the runner's do). */
extern "C" const char hist_course_commit[];

HIST_DECLARE_REGISTRY(day01);
HIST_DECLARE_REGISTRY(day06);

#define RANK_MSG 400 /**< the longest message a rank sends rank 0 about its failure */

/** @brief What timed_once() times, in the order measure() times them: the job last, so that its
 *  last repetition leaves the sum on rank 0 (check()). */
enum timed_what { TIME_REDUCE, TIME_COUNT_AS_JOB, TIME_JOB };

/** @brief What this rank is, has and measured. */
typedef struct job {
    /** this rank (`rank`), and how many (`size`) */
    int rank, size;                 /**< how many ranks (`size`) */
    hist_options o;                 /**< the options */
    const char *path_opt;           /**< `--path`: auto, peer, nccl, nccl-allreduce or mpi */
    rank_place at;                  /**< where it runs: machine, GPU, and so the path */
    rank_rows rows;                 /**< this rank's rows */
    uint32_t *expected;             /**< rank 0: the sum of every rank's reference */
    hist_device dev;                /**< the GPU, if any */
    const hist_impl *impl;          /**< what counts: day 06's final kernel or day 01's */
    hist_args args;                 /**< its arguments (device pointers on the GPU) */
    uint8_t *d_samples;             /**< the rows on the GPU */
    void *d_workspace;              /**< the kernel's workspace */
    hist_l2_flush *flush;           /**< the GPU's L2 flush */
    cudaEvent_t done;               /**< recorded behind a repetition's work, waited for */
    rank_reduce red;                /**< the sum */
    enum timed_what what;           /**< what timed_once() times now */
    hist_stats count;               /**< the count: the slowest rank's median */
    hist_stats timed[TIME_JOB + 1]; /**< the reduce alone, the count as the job, the job */
    double in_job;                  /**< the reduce's cost in the job: the pairs' median */
    cudaEvent_t marks[3]; /**< the job on the GPU: before the count, after, after the sum */
    double gpu_after;     /**< rank 0's GPU: its count's end to the sum's end (median) */
    double gpu_count;     /**< the slowest rank's count on its GPU, by events (median) */
} job;

/* ---- agreeing on failures ---- */

hist_status rank_agree(int rank, int size, hist_status s) {
    int mine = (int)s, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == HIST_OK)
        return HIST_OK;
    char msg[RANK_MSG] = "";
    if (s != HIST_OK)
        snprintf(msg, sizeof msg, "%s", hist_last_error());
    char *all = rank == 0 ? (char *)calloc((size_t)size, RANK_MSG) : NULL;
    MPI_Gather(msg, RANK_MSG, MPI_CHAR, all, RANK_MSG, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int first = -1, failed = 0;
        for (int r = 0; r < size; ++r)
            if (all[(size_t)r * RANK_MSG] != '\0') {
                failed++;
                first = first < 0 ? r : first;
            }
        fprintf(stderr, "ranks: rank %d of %d: %s", first, size, all + (size_t)first * RANK_MSG);
        if (failed > 1)
            fprintf(stderr, " (and %d other rank%s)", failed - 1, failed > 2 ? "s" : "");
        fputc('\n', stderr);
        free(all);
    }
    return (hist_status)worst;
}

void rank_die(int rank, int size, hist_status s) {
    fprintf(stderr, "ranks: rank %d of %d: %s\n", rank, size, hist_last_error());
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, hist_exit_code(s));
}

/** @brief rank_agree() for the job. @param j the job @param s this rank's @return the worst */
static hist_status agree(const job *j, hist_status s) {
    return rank_agree(j->rank, j->size, s);
}

/* ---- the command line, the same on every rank ---- */

/** @brief Parse: the course's options and ranks' own; then every rank has rank 0's command line
 *  (an MPMD launch or a script that varies it is found before any work). @param j the job
 *  @param argc count @param argv arguments @return HIST_OK, or HIST_ERR_USAGE */
static hist_status parse(job *j, int argc, char **argv) {
    const hist_extra_option extra[] = {
        {.name = "shards",
         .value = "LIST",
         .help = ".npy files with the same channels: a,b,c or "
                 "'part-*.npy' (rank r reads its share)",
         .text = &j->rows.shards},
        {.name = "path",
         .value = "P",
         .help = "how the counts are summed: auto (default), peer, "
                 "nccl, nccl-allreduce or mpi",
         .text = &j->path_opt},
        {.name = "cpu",
         .help = "count with day 01's cpu_private even where there is a GPU",
         .flag = &j->at.cpu},
    };
    const hist_program prog = {
        .name = "ranks",
        .about = "Day 07: the histogram over N ranks (mpirun -np N ranks [options]).",
        .refused = "save-input results impl require-gpu list",
        .extra = extra,
        .n_extra = 3,
    };
    j->path_opt = "auto";
    hist_status s = hist_parse_program(&prog, argc, argv, &j->o);
    if (s == HIST_OK && j->o.help && j->rank == 0)
        hist_print_program_usage(stdout, &prog);
    int known = strcmp(j->path_opt, "auto") == 0;
    for (int p = 0; p < 4; ++p)
        known |= strcmp(j->path_opt, rank_path_names[p]) == 0;
    if (s == HIST_OK && !known)
        s = hist_fail(HIST_ERR_USAGE, "--path: '%s' is not auto, peer, nccl, nccl-allreduce or mpi",
                      j->path_opt);
    if (s == HIST_OK && j->rows.shards && j->o.input)
        s = hist_fail(HIST_ERR_USAGE, "--input and --shards: one or the other");
    char line[sizeof j->o.command];
    memcpy(line, j->o.command, sizeof line);
    MPI_Bcast(line, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (s == HIST_OK && strcmp(line, j->o.command) != 0)
        s = hist_fail(HIST_ERR_USAGE, "its options differ from rank 0's (every rank must be "
                                      "given the same command line)");
    return s;
}

/** @brief Shards: every rank's channels agree (a rank with no shard takes the others'), and the
 *        whole's rows are the sum of the ranks'. @param j the job @return HIST_OK or the error */
static hist_status agree_shape(job *j) {
    rank_rows *r = &j->rows;
    uint32_t most = 0, least = UINT32_MAX, mine = r->mine.channels ? r->mine.channels : least;
    MPI_Allreduce(&r->mine.channels, &most, 1, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &least, 1, MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&r->mine.rows, &r->whole.rows, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    r->whole.channels = most;
    if (r->mine.channels == 0)
        r->mine.channels = most;
    if (most != least && r->mine.channels != most)
        return hist_fail(HIST_ERR_FORMAT, "shard '%s' has %u channels, another rank's shards %u",
                         r->files.gl_pathv[r->file_first], r->mine.channels, most);
    return HIST_OK;
}

/** @brief The host buffers of the counts and the sums. @param j the job @return HIST_OK or
 *  HIST_ERR_NOMEM */
static hist_status alloc_counts(job *j) {
    const size_t bytes = (size_t)hist_counters(&j->rows.mine) * sizeof(uint32_t);
    j->red.counters = hist_counters(&j->rows.mine);
    j->red.hist = (uint32_t *)malloc(bytes);
    j->red.sum = (uint32_t *)malloc(bytes);
    j->expected = (uint32_t *)malloc(bytes);
    return j->red.hist && j->red.sum && j->expected
               ? HIST_OK
               : hist_fail(HIST_ERR_NOMEM, "out of host memory for the counts");
}

/** @brief What counts on this rank, with its arguments: day 06's final kernel on the rank's
 *        GPU (the rows copied there, untimed), or day 01's cpu_private on its share of the cores.
 *  @param j the job @return HIST_OK or the error */
static hist_status setup_count(job *j) {
    const int on_gpu = j->at.gpu >= 0;
    const char *name = on_gpu ? "gpu_roofline" : "cpu_private";
    for (size_t i = 0; i < (on_gpu ? day06_impl_count : day01_impl_count); ++i)
        if (strcmp((on_gpu ? day06_impls : day01_impls)[i].name, name) == 0)
            j->impl = &(on_gpu ? day06_impls : day01_impls)[i];
    const char *no = j->impl ? hist_not_written(j->impl) : "not in its lesson's registry";
    if (no) /* the student edition, before it is written */
        return hist_fail(HIST_ERR_NOT_RUN, "%s: %s", name, no);
    const hist_problem *p = &j->rows.mine;
    j->args =
        (hist_args){.problem = p, .samples = j->rows.samples, .hist = j->red.hist, .threads = 1};
    if (!on_gpu) { /* --threads as given, else this machine's cores over its ranks */
        const int share_of_cores = j->o.threads / j->at.local_size;
        j->args.threads = j->o.threads_given   ? j->o.threads
                          : share_of_cores > 0 ? share_of_cores
                                               : 1;
        return HIST_OK;
    }
    HIST_CUDA_TRY(cudaSetDevice(j->at.gpu));
    hist_status s = hist_device_read(j->at.gpu, &j->o.emulation, &j->dev);
    if (s == HIST_OK && (no = hist_impl_unsupported(j->impl, p, &j->dev)) != NULL)
        s = hist_fail(HIST_ERR_UNSUPPORTED, "%s: %s", name, no);
    if (s == HIST_OK)
        s = hist_l2_flush_create(&j->flush, &j->dev);
    if (s != HIST_OK)
        return s;
    const size_t bytes = (size_t)hist_samples(p), ws = hist_impl_workspace(j->impl, p, &j->dev);
    HIST_CUDA_TRY(cudaMalloc((void **)&j->d_samples, bytes ? bytes : 1));
    HIST_CUDA_TRY(cudaMalloc((void **)&j->red.d_hist, j->red.counters * sizeof(uint32_t)));
    HIST_CUDA_TRY(cudaMalloc(&j->d_workspace, ws ? ws : 1));
    j->red.stream = 0; /* the count's stream (the default one): the reduce queued right behind */
    HIST_CUDA_TRY(cudaEventCreateWithFlags(&j->done, cudaEventDisableTiming));
    for (int e = 0; e < 3; ++e)
        HIST_CUDA_TRY(cudaEventCreate(&j->marks[e]));
    HIST_CUDA_TRY(cudaMemcpy(j->d_samples, j->rows.samples, bytes, cudaMemcpyHostToDevice));
    j->red.on_gpu = 1;
    j->red.dev = &j->dev;
    j->args = (hist_args){.problem = p,
                          .samples = j->d_samples,
                          .hist = j->red.d_hist,
                          .workspace = ws ? j->d_workspace : NULL,
                          .device = &j->dev,
                          .threads = 1};
    return HIST_OK;
}

/* ---- the phases, timed ---- */

/** @brief This rank's count: queued on the GPU's default stream, or done on the CPU.
 *  @param ctx the job @return the implementation's status */
static hist_status count_once(void *ctx) {
    const job *j = (const job *)ctx;
    return j->impl->run(&j->args);
}

/** @brief Before each timed repetition: the GPU's L2 flushed where a count is timed, then every
 *  rank started together. @param ctx the job @return HIST_OK (a failure ends the job) */
static hist_status start_together(void *ctx) {
    const job *j = (const job *)ctx;
    if (j->what != TIME_REDUCE && j->flush && hist_l2_flush_run(j->flush) != HIST_OK)
        rank_die(j->rank, j->size, HIST_ERR_CUDA);
    MPI_Barrier(MPI_COMM_WORLD);
    return HIST_OK;
}

/** @brief One repetition of j->what, ended by the host waiting for an event queued behind all of
 *  its work (the same one wait for each). @param ctx the job @return HIST_OK (a failure inside a
 *  collective ends the job) */
static hist_status timed_once(void *ctx) {
    job *j = (job *)ctx;
    hist_status s = j->what != TIME_REDUCE ? count_once(j) : HIST_OK;
    if (s == HIST_OK && j->what != TIME_COUNT_AS_JOB)
        s = rank_reduce_once(&j->red);
    if (s == HIST_OK && j->at.gpu >= 0 &&
        (cudaEventRecord(j->done, j->red.stream) != cudaSuccess ||
         cudaEventSynchronize(j->done) != cudaSuccess))
        s = hist_fail(HIST_ERR_CUDA, "the count or the reduce: %s",
                      cudaGetErrorString(cudaGetLastError()));
    if (s != HIST_OK)
        rank_die(j->rank, j->size, s);
    return HIST_OK;
}

/** @brief One repetition of @p what, every rank started together; its time the slowest rank's.
 *  @param j the job @param what what to time @return the time (us) */
static double time_one(job *j, enum timed_what what) {
    double us = 0;
    j->what = what;
    hist_status s = hist_time_calls(timed_once, start_together, j, 0, 1, NULL, &us);
    if (s != HIST_OK)
        rank_die(j->rank, j->size, s);
    MPI_Allreduce(MPI_IN_PLACE, &us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return us;
}

/** @brief One job on the GPU with events around its count and its reduce (after the timed
 *  loops: the events stay out of them). @param j the job @param count receives the count's time
 *  @param after receives the time from the count's end to the reduce's end (us) */
static void marked_once(job *j, double *count, double *after) {
    cudaStream_t s = j->red.stream;
    float c = 0, a = 0;
    hist_status st = HIST_OK;
    if (cudaEventRecord(j->marks[0], s) != cudaSuccess)
        st = HIST_ERR_CUDA;
    if (st == HIST_OK)
        st = count_once(j);
    if (st == HIST_OK && cudaEventRecord(j->marks[1], s) != cudaSuccess)
        st = HIST_ERR_CUDA;
    if (st == HIST_OK)
        st = rank_reduce_once(&j->red);
    if (st == HIST_OK && (cudaEventRecord(j->marks[2], s) != cudaSuccess ||
                          cudaEventSynchronize(j->marks[2]) != cudaSuccess ||
                          cudaEventElapsedTime(&c, j->marks[0], j->marks[1]) != cudaSuccess ||
                          cudaEventElapsedTime(&a, j->marks[1], j->marks[2]) != cudaSuccess))
        st = hist_fail(HIST_ERR_CUDA, "the marked job: %s", cudaGetErrorString(cudaGetLastError()));
    if (st != HIST_OK)
        rank_die(j->rank, j->size, st);
    *count = 1000.0 * c, *after = 1000.0 * a;
}

/** @brief Where the reduce's time goes on the GPUs (no host in it but on the MPI path): the job
 *  once more per repetition, every rank started together, events around the count and the reduce
 *  on each rank's GPU; rank 0's median from its count's end to the sum's end, and the slowest
 *  rank's count. Ranks without a GPU take part in the barriers only. @param j the job */
static void measure_on_gpu(job *j) {
    const int reps = j->o.reps, on_gpu = j->at.gpu >= 0;
    double *t = (double *)calloc(2 * (size_t)reps, sizeof *t);
    if (!t)
        rank_die(j->rank, j->size, hist_fail(HIST_ERR_NOMEM, "out of host memory"));
    double *count = t, *after = t + reps, c = 0, a = 0;
    j->what = TIME_JOB;
    for (int i = -j->o.warmup; i < reps; ++i) {
        start_together(j);
        if (on_gpu)
            marked_once(j, &c, &a);
        else
            timed_once(j);
        if (i >= 0)
            count[i] = c, after[i] = a;
    }
    j->gpu_count = hist_stats_of(count, reps).median_us;
    j->gpu_after = hist_stats_of(after, reps).median_us;
    MPI_Allreduce(MPI_IN_PLACE, &j->gpu_count, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(t);
}

/** @brief Time the count (as the runner does), then the reduce alone, then the count as the job
 *  and the job in turns (repetition i of each side by side, so that a drift of the clocks over
 *  the run falls on both alike); the reduce's cost in the job is the median of the pairs'
 *  differences. @param j the job */
static void measure(job *j) {
    const int reps = j->o.reps, warmup = j->o.warmup;
    hist_status s = j->at.gpu >= 0
                        ? hist_gpu_time_work(&j->dev, count_once, j, warmup, reps, &j->count)
                        : hist_time_calls(count_once, NULL, j, warmup, reps, &j->count, NULL);
    if (s != HIST_OK)
        rank_die(j->rank, j->size, s);
    MPI_Allreduce(MPI_IN_PLACE, &j->count.median_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double *t = (double *)calloc(3 * (size_t)reps, sizeof *t);
    if (!t)
        rank_die(j->rank, j->size, hist_fail(HIST_ERR_NOMEM, "out of host memory"));
    double *alone = t, *count = t + reps, *both = t + 2 * reps;
    for (int i = -warmup; i < reps; ++i) {
        const double us = time_one(j, TIME_REDUCE);
        if (i >= 0)
            alone[i] = us;
    }
    for (int i = -warmup; i < reps; ++i) { /* the job last: its last repetition leaves the sum */
        const double c = time_one(j, TIME_COUNT_AS_JOB), b = time_one(j, TIME_JOB);
        if (i >= 0)
            count[i] = c, both[i] = b;
    }
    j->timed[TIME_REDUCE] = hist_stats_of(alone, reps);
    j->timed[TIME_COUNT_AS_JOB] = hist_stats_of(count, reps);
    j->timed[TIME_JOB] = hist_stats_of(both, reps);
    for (int i = 0; i < reps; ++i)
        alone[i] = both[i] - count[i];
    j->in_job = hist_stats_of(alone, reps).median_us;
    free(t);
    measure_on_gpu(j); /* its last repetition leaves the sum too */
}

/* ---- the result ---- */

/** @brief Rank 0: the sum (the last job repetition's) against the sum of every rank's reference
 *        of its own rows. @param j the job @return HIST_OK or HIST_ERR_MISMATCH */
static hist_status check(job *j) {
    hist_reference_parallel(&j->rows.mine, j->rows.samples, j->red.hist);
    MPI_Reduce(j->red.hist, j->expected, (int)j->red.counters, MPI_UINT32_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    if (j->rank != 0)
        return HIST_OK;
    hist_status s = rank_reduce_result(&j->red);
    if (s == HIST_OK && hist_verify(&j->rows.whole, j->expected, j->red.sum, 3, stderr) != 0)
        s = hist_fail(HIST_ERR_MISMATCH, "the sum differs from the reference");
    return s;
}

/** @brief GB/s of the whole dataset in @p us. @param j the job @param us time @return GB/s */
static double whole_gbps(const job *j, double us) {
    return (double)hist_samples(&j->rows.whole) / (us * 1e3);
}

/** @brief The path's name, with NCCL's protocol where NCCL_PROTO chose one and NCCL sums.
 *  @param j the job @param out the text @param len its size @return @p out */
static const char *path_text(const job *j, char *out, size_t len) {
    const char *proto = getenv("NCCL_PROTO");
    const int nccl = j->red.path == PATH_NCCL || j->red.path == PATH_NCCL_ALL;
    snprintf(out, len, "%s%s%s", rank_path_names[j->red.path], nccl && proto && *proto ? "/" : "",
             nccl && proto ? proto : "");
    return out;
}

/** @brief Rank 0: what ran, and the phases' times. @param j the job */
static void print_report(const job *j) {
    const double reduce_in_job = j->in_job;
    char cpu[48], path[48];
    snprintf(cpu, sizeof cpu, "the CPU (%d thread%s a rank)", j->args.threads,
             j->args.threads == 1 ? "" : "s");
    printf("ranks: %d on %d machine%s; count: %s on %s; reduce: %s (%s; path %s)\n", j->size,
           j->at.machines, j->at.machines == 1 ? "" : "s", j->impl->name,
           j->at.gpu >= 0 ? j->dev.name : cpu, rank_path_how[j->red.path], j->at.why,
           path_text(j, path, sizeof path));
    const double mib = (double)hist_samples(&j->rows.whole) / (1 << 20);
    printf("data: %s, %llu x %u (%.1f MiB), about %.1f MiB per rank; memory for it made in "
           "%.1f ms (the slowest rank)\n",
           j->rows.input_text, (unsigned long long)j->rows.whole.rows, j->rows.whole.channels, mib,
           mib / j->size, j->rows.alloc_us / 1e3);
    printf("%-8s %12s %12s %10s   (the slowest rank's; median of %d)\n", "phase", "median (us)",
           "min (us)", "GB/s", j->o.reps);
    printf("%-8s %12.1f %12s %10.2f   (once)\n", "read", j->rows.read_us, "-",
           whole_gbps(j, j->rows.read_us));
    printf("%-8s %12.1f %12.1f %10.1f\n", "count", j->count.median_us, j->count.min_us,
           whole_gbps(j, j->count.median_us));
    printf("%-8s %12.1f %12.1f %10s\n", "reduce", j->timed[TIME_REDUCE].median_us,
           j->timed[TIME_REDUCE].min_us, "-");
    printf("%-8s %12.1f %12.1f %10.1f\n", "job", j->timed[TIME_JOB].median_us,
           j->timed[TIME_JOB].min_us, whole_gbps(j, j->timed[TIME_JOB].median_us));
    printf("the reduce adds %.1f us to the job (the median of the job less the count timed as "
           "the job is, %.1f us, timed in turns): %.1f%% of it; check: exact, %d rank%s summed "
           "on rank 0\n",
           reduce_in_job, j->timed[TIME_COUNT_AS_JOB].median_us,
           100.0 * reduce_in_job / j->timed[TIME_JOB].median_us, j->size, j->size == 1 ? "" : "s");
    if (j->at.gpu >= 0)
        printf("on the GPUs (events; medians): rank 0's sum ends %.1f us after its "
               "count; the slowest rank's count takes %.1f us\n",
               j->gpu_after, j->gpu_count);
}

/** @brief Rank 0: the report, a row added to `--csv` (the file replaced whole) and the output.
 *  @param j the job @return HIST_OK or HIST_ERR_IO */
static hist_status report(const job *j) {
    print_report(j);
    hist_outfile csv = {NULL, NULL, NULL};
    hist_status s = HIST_OK;
    if (j->o.csv && (s = hist_outfile_append(&csv, j->o.csv,
                                             "ranks,machines,path,count on,input,rows,"
                                             "channels,alloc (ms),read (ms),read GB/s,count "
                                             "(us),reduce (us),job (us),reduce in job (us),"
                                             "reduce share,reduce after count on GPU (us),"
                                             "check,commit\n")) == HIST_OK) {
        const double job_us = j->timed[TIME_JOB].median_us;
        const double in_job = j->in_job;
        char path[48], gpu_after[32] = "-";
        if (j->at.gpu >= 0)
            snprintf(gpu_after, sizeof gpu_after, "%.1f", j->gpu_after);
        fprintf(csv.f,
                "%d,%d,%s,%s,%s,%llu,%u,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f%%,%s,exact,%s\n",
                j->size, j->at.machines, path_text(j, path, sizeof path),
                j->at.gpu >= 0 ? "GPU" : "CPU", j->rows.input_text,
                (unsigned long long)j->rows.whole.rows, j->rows.whole.channels,
                j->rows.alloc_us / 1e3, j->rows.read_us / 1e3, whole_gbps(j, j->rows.read_us),
                j->count.median_us, j->timed[TIME_REDUCE].median_us, job_us, in_job,
                100.0 * in_job / job_us, gpu_after, hist_course_commit);
        s = hist_outfile_commit(&csv);
    }
    if (s == HIST_OK && j->o.output)
        s = hist_npy_write_u32(j->o.output, j->red.sum, j->rows.whole.channels,
                               hist_bins(j->rows.whole.binning));
    return s;
}

/** @brief Free what the job holds. @param j the job */
static void release(job *j) {
    rank_reduce_release(&j->red);
    if (j->at.gpu >= 0) {
        cudaFree(j->d_samples);
        cudaFree(j->red.d_hist);
        cudaFree(j->d_workspace);
        hist_l2_flush_destroy(j->flush);
        if (j->done)
            cudaEventDestroy(j->done);
        for (int e = 0; e < 3; ++e)
            if (j->marks[e])
                cudaEventDestroy(j->marks[e]);
    }
    rank_rows_free(&j->rows);
    free(j->red.hist);
    free(j->red.sum);
    free(j->expected);
}

/** @brief The steps, each agreed on by every rank before the next. @param j the job
 *  @param argc count @param argv arguments @return the final status */
static hist_status run(job *j, int argc, char **argv) {
    hist_status s = agree(j, parse(j, argc, argv));
    if (s != HIST_OK || j->o.help)
        return s;
    if ((s = agree(j, rank_rows_plan(&j->rows, &j->o, j->rank, j->size))) == HIST_OK &&
        j->rows.shards)
        s = agree(j, agree_shape(j));
    if (s == HIST_OK)
        s = agree(j, rank_rows_load(&j->rows, &j->o));
    if (s == HIST_OK)
        s = agree(j, alloc_counts(j));
    if (s != HIST_OK)
        return s;
    MPI_Allreduce(MPI_IN_PLACE, &j->rows.read_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &j->rows.alloc_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    rank_find_machines(&j->at, j->rank);
    if ((s = agree(j, rank_choose_path(&j->red, &j->at, j->path_opt))) == HIST_OK)
        s = agree(j, setup_count(j));
    if (s == HIST_OK)
        s = rank_reduce_setup(&j->red); /* agreed on inside */
    if (s != HIST_OK)
        return s;
    measure(j);
    s = agree(j, check(j));
    if (s == HIST_OK && j->rank == 0)
        s = report(j);
    return s;
}

/**
 * @brief The program: one rank of the job.
 * @param argc argument count
 * @param argv the course's options and ranks' own (`--help`)
 * @return 0; 1 on a mismatch; 2 on a usage error; 3 on another failure (every rank the same)
 */
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    job j = {}; /* zeroed: every field starts empty */
    j.at.gpu = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    j.red.rank = j.rank;
    j.red.size = j.size;
    hist_status s = run(&j, argc, argv);
    release(&j);
    MPI_Finalize();
    return hist_exit_code(s);
}
