/**
 * @file ranks.cu
 * @brief `make ranks NP=4`: the histogram over N processes ("ranks"), on one machine or many,
 *        launched by `mpirun -np N` (Open MPI) or Slurm's `srun`: what a user whose data outgrow
 *        one machine runs.
 *
 * Every rank holds only its own rows, never the whole input:
 *  - generated data (the course's dataset options): rank r makes rows [first, first + count) of
 *    the dataset (hist_generate_rows()), the same bytes whatever N is;
 *  - `--input FILE`: one `.npy`; every rank reads the header, then only its own row range;
 *  - `--shards LIST|PATTERN`: `.npy` files with the same channels (a comma-separated list, or a
 *    pattern such as `'data/part-*.npy'`); rank r reads files [r S / N, (r + 1) S / N).
 *
 * Each rank counts its rows, then the `[channels, bins]` counts are summed on rank 0:
 *  - path `peer` (one machine, every rank a GPU of its own, the GPUs able to read each other's
 *    memory, as over NVLink): once, through CUDA IPC, each rank maps rank 0's flag words and
 *    rank 0 maps every rank's histogram. Each sum is then queued on the GPUs alone, with no host
 *    between them: behind its count, each rank's GPU sets its flag on rank 0's GPU
 *    (day07_signal()); behind its own count, rank 0's GPU waits for every flag and adds the
 *    histograms, read where they lie, in one kernel (day07_add_histograms()).
 *  - path `nccl` (the ranks span machines, or `--path nccl`): every rank has a GPU of its own
 *    (no more ranks on a machine than it has GPUs); day 06's final kernel counts on it, and
 *    `ncclReduce` sums the histograms GPU to GPU (`--path nccl-allreduce`: `ncclAllReduce`, for
 *    the comparison). The communicator is bootstrapped the way NCCL's examples do: rank 0 makes a
 *    unique id, MPI broadcasts it, every rank calls `ncclCommInitRank`.
 *  - path `mpi`: ranks share a GPU (day 06's kernel on it, the counts copied back), or there is
 *    none (day 01's `cpu_private` counts, on this rank's share of the cores); `MPI_Reduce` sums
 *    host buffers.
 * Rank 0 checks the sum against the reference (each rank's reference of its rows, summed) and
 * writes `--output`, whole or not at all. Any rank's failure before a collective is agreed on by
 * all (one line naming the rank and the cause, the same exit status everywhere, no output); a
 * failure inside one (a CUDA or NCCL error mid-run) ends the whole job with MPI_Abort: no rank is
 * left waiting.
 *
 * Times, as every program of the course takes them (median of `--reps` after `--warmup`): the
 * count (the largest of the ranks' medians; on a GPU with events, its L2 flushed: the method
 * day 06's runner uses), the reduce alone, and the job (count then reduce, all ranks started
 * together by a barrier, until the last one is done), plus the read. `--csv FILE` appends a row.
 */
#include <glob.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "add.h"
#include "cuda_check.h"
#include "data.h"
#include "gpu.h"
#include "impl.h"
#include "npy.h"
#include "options.h"
#include "parallel.h"
#include "reference.h"
#include "timing.h"
#ifdef HIST_HAVE_NCCL
#include <nccl.h>
#endif

/** @brief The commit this build was made from (the Makefile's generated commit.c, in the harness
 *  library): the CSV row records it, as the runner's do. */
extern "C" const char hist_course_commit[];

HIST_DECLARE_REGISTRY(day01);
HIST_DECLARE_REGISTRY(day06);

/** @brief The longest message a rank sends rank 0 about its failure. */
#define RANK_MSG 400
/** @brief Timed repetitions at most (the medians' buffers). */
#define RANKS_MAX_REPS 1000
/** @brief Ranks the peer path sums at most (day07_add_histograms()' limit). */
#define PEERS_MAX DAY07_ADD_MAX

/** @brief How the counts are summed on rank 0 (`--path`). */
typedef enum reduce_path {
    PATH_MPI,      /**< MPI_Reduce of host buffers */
    PATH_NCCL,     /**< ncclReduce, GPU to GPU */
    PATH_NCCL_ALL, /**< ncclAllReduce, GPU to GPU (the sum on every rank) */
    PATH_PEER,     /**< rank 0's GPU adds every rank's histogram, read through CUDA IPC */
} reduce_path;

/** @brief `--path` values, in reduce_path's order after "auto". */
static const char *const path_names[] = {"mpi", "nccl", "nccl-allreduce", "peer"};

/** @brief What this rank is, has and measured. */
typedef struct job {
    int rank;              /**< this rank */
    int size;              /**< how many ranks */
    int local_rank;        /**< this rank among this machine's */
    int local_size;        /**< how many ranks this machine runs */
    int machines;          /**< machines the ranks run on */
    hist_options o;        /**< the course's options (dataset, files, reps) */
    const char *shards;    /**< `--shards`, or NULL */
    const char *path_opt;  /**< `--path`: auto, peer, nccl, nccl-allreduce or mpi */
    int cpu;               /**< `--cpu`: count with day 01's code even with a GPU */
    int threads_given;     /**< `--threads` was given (else this machine's cores over its ranks) */
    char input_text[48];   /**< "generated", "one file", "N shards" */
    hist_problem whole;    /**< the whole dataset's shape and binning */
    hist_problem mine;     /**< this rank's rows */
    uint64_t first_row;    /**< its first row in the whole (file or generated input) */
    glob_t files;          /**< `--shards`: every shard, in order */
    size_t file_first;     /**< this rank's first shard */
    size_t file_count;     /**< this rank's shards */
    uint8_t *samples;      /**< this rank's rows (host) */
    uint32_t *hist;        /**< its counts (host) */
    uint32_t *sum;         /**< rank 0: the sum of every rank's counts */
    uint32_t *expected;    /**< rank 0: the sum of every rank's reference */
    uint64_t counters;     /**< channels x bins */
    int gpu;               /**< the GPU this rank counts on (-1: the CPU) */
    reduce_path path;      /**< how the counts are summed */
    char why[200];         /**< why this path */
    hist_device dev;       /**< the GPU, if any */
    const hist_impl *impl; /**< what counts: day 06's final kernel or day 01's */
    hist_args args;        /**< its arguments (device pointers on the GPU) */
    uint8_t *d_samples;    /**< the rows on the GPU */
    uint32_t *d_hist;      /**< the counts on the GPU; rank 0's: the sum, after NCCL */
    void *d_workspace;     /**< the kernel's workspace */
    uint8_t *d_flush;      /**< the L2-flush buffer (job repetitions) */
    cudaStream_t stream;   /**< the reduce's stream */
#ifdef HIST_HAVE_NCCL
    ncclComm_t comm; /**< the communicator of every rank */
#endif
    uint32_t *d_flags; /**< peer path: rank 0's flag words (one per rank, then "late"),
                            mapped by the others */
    uint32_t seq;      /**< peer path: the sums so far (each sum's flags say its number) */
    const uint32_t *peer_hist[PEERS_MAX]; /**< peer path, rank 0: every rank's histogram */
    int peers_open;                       /**< peer path, rank 0: ranks 1 .. this opened */
    size_t samples_bytes;                 /**< the rows' allocation (whole huge pages) */
    double alloc_us;                      /**< the slowest rank's allocation of its rows */
    double read_us;                       /**< the slowest rank's read (or generation) */
    hist_stats count;                     /**< the count: the slowest rank's median */
    hist_stats reduce;    /**< the reduce alone: the slowest rank's, per repetition */
    hist_stats whole_job; /**< count then reduce: the slowest rank's, per repetition */
    hist_stats count_job; /**< the count alone, timed as the job is (its launch and wait too) */
    cudaEvent_t done;     /**< recorded after a repetition's work, waited for by the host */
} job;

/* ---- agreeing on failures ---- */

/** @brief Every rank says whether it failed; rank 0 prints the first failing rank's message in
 *        one line. @param j the job @param s this rank's status
 *  @return the worst status of all ranks (HIST_OK if none failed), on every rank */
static hist_status agree(const job *j, hist_status s) {
    int mine = (int)s, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == HIST_OK)
        return HIST_OK;
    char msg[RANK_MSG] = "";
    if (s != HIST_OK)
        snprintf(msg, sizeof msg, "%s", hist_last_error());
    char *all = j->rank == 0 ? (char *)calloc((size_t)j->size, RANK_MSG) : NULL;
    MPI_Gather(msg, RANK_MSG, MPI_CHAR, all, RANK_MSG, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (j->rank == 0) {
        int first = -1, failed = 0;
        for (int r = 0; r < j->size; ++r)
            if (all[(size_t)r * RANK_MSG] != '\0') {
                failed++;
                first = first < 0 ? r : first;
            }
        fprintf(stderr, "ranks: rank %d of %d: %s", first, j->size, all + (size_t)first * RANK_MSG);
        if (failed > 1)
            fprintf(stderr, " (and %d other rank%s)", failed - 1, failed > 2 ? "s" : "");
        fputc('\n', stderr);
        free(all);
    }
    return (hist_status)worst;
}

/** @brief A failure inside a collective: say it in one line and end every rank (no rank may be
 *        left waiting for this one). @param j the job @param s the status */
static void die(const job *j, hist_status s) {
    fprintf(stderr, "ranks: rank %d of %d: %s\n", j->rank, j->size, hist_last_error());
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, hist_exit_code(s));
}

/* ---- the command line ---- */

/** @brief The options ranks adds to the course's; the others are the course's own. */
static void usage(FILE *f) {
    fprintf(f,
            "usage: mpirun -np N ranks [--input FILE | --shards LIST|PATTERN | dataset options]\n"
            "                          [--path auto|peer|nccl|nccl-allreduce|mpi] [--cpu]\n"
            "                          [--output FILE] [--csv FILE]\n"
            "                          [--reps R] [--warmup W] [--threads T] [--gpu-limits NAME]\n"
            "  --shards   .npy files with the same channels: a,b,c or 'part-*.npy' (rank r reads\n"
            "             files r*S/N .. (r+1)*S/N - 1 of the S)\n"
            "  --path     how the counts are summed: peer (rank 0's GPU reads every rank's over\n"
            "             NVLink: one machine, a GPU per rank), nccl (ncclReduce; nccl-allreduce:\n"
            "             ncclAllReduce; a GPU per rank, any machines), mpi (host buffers);\n"
            "             auto (default): peer where it can, else nccl, else mpi\n"
            "  --cpu      count with day 01's cpu_private even where there is a GPU\n"
            "dataset options (--preset, --rows, --channels, --dist, --seed, --lo, --hi, --width,\n"
            "--values) as every program of the course: `build/course --help` lists them.\n");
}

/** @brief Take ranks' own options out of @p argv (the rest, in @p rest, goes to the course's
 *        parser). @param j the job @param argc count @param argv arguments @param rest the rest
 *  @param n_rest set to their count @return HIST_OK or HIST_ERR_USAGE */
static hist_status own_options(job *j, int argc, char **argv, char **rest, int *n_rest) {
    j->path_opt = "auto";
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--shards") == 0 || strcmp(a, "--path") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return hist_fail(HIST_ERR_USAGE, "%s needs a value", a);
            *(a[2] == 's' ? &j->shards : &j->path_opt) = argv[++i];
        } else if (strcmp(a, "--cpu") == 0) {
            j->cpu = 1;
        } else {
            j->threads_given |= strncmp(a, "--threads", 9) == 0; /* --threads N, --threads=N */
            rest[(*n_rest)++] = argv[i];
        }
    }
    int known = strcmp(j->path_opt, "auto") == 0;
    for (int p = 0; p < 4; ++p)
        known |= strcmp(j->path_opt, path_names[p]) == 0;
    if (!known)
        return hist_fail(HIST_ERR_USAGE,
                         "--path: '%s' is not auto, peer, nccl, nccl-allreduce or mpi",
                         j->path_opt);
    return HIST_OK;
}

/** @brief Parse the command line. @param j the job @param argc count @param argv arguments
 *  @return HIST_OK, or HIST_ERR_USAGE with the message */
static hist_status parse(job *j, int argc, char **argv) {
    char **rest = (char **)calloc((size_t)argc + 1, sizeof *rest);
    int n_rest = 0;
    hist_status s = rest ? own_options(j, argc, argv, rest, &n_rest)
                         : hist_fail(HIST_ERR_NOMEM, "out of memory");
    if (s == HIST_OK)
        s = hist_parse_args(n_rest, rest, NULL, 0, &j->o);
    free(rest);
    if (s != HIST_OK)
        return s;
    const hist_options *o = &j->o;
    if (o->save_input || o->results || o->list || o->impl || o->require_gpu)
        return hist_fail(HIST_ERR_USAGE, "--save-input, --results, --list, --impl and "
                                         "--require-gpu are the course runner's, not ranks'");
    if (j->shards && o->input)
        return hist_fail(HIST_ERR_USAGE, "--input and --shards: one or the other");
    if (o->reps > RANKS_MAX_REPS)
        return hist_fail(HIST_ERR_USAGE, "--reps: at most %d here", RANKS_MAX_REPS);
    return HIST_OK;
}

/** @brief FNV-1a of the arguments: ranks launched with different options (an MPMD launch, a
 *        script that varies them) are found before any work. @param argc count @param argv
 *  arguments @return the hash */
static uint64_t options_hash(int argc, char **argv) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (int i = 1; i < argc; ++i)
        for (const char *c = argv[i];; ++c) {
            h = (h ^ (uint8_t)*c) * UINT64_C(1099511628211);
            if (*c == '\0')
                break;
        }
    return h;
}

/** @brief Whether every rank has rank 0's options. @param argc count @param argv arguments
 *  @return HIST_OK or HIST_ERR_USAGE (on the ranks that differ) */
static hist_status same_options(int argc, char **argv) {
    uint64_t mine = options_hash(argc, argv), zero = mine;
    MPI_Bcast(&zero, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (mine != zero)
        return hist_fail(HIST_ERR_USAGE, "its options differ from rank 0's (every rank must be "
                                         "given the same command line)");
    return HIST_OK;
}

/* ---- who has which rows ---- */

/** @brief Rank @p r's share of @p n items cut into @p size nearly equal parts (the first n % size
 *        parts one larger). @param n items @param size parts @param r which
 *  @param first its first item @return its count */
static uint64_t share(uint64_t n, int size, int r, uint64_t *first) {
    const uint64_t base = n / (uint64_t)size, extra = n % (uint64_t)size;
    *first = base * (uint64_t)r + ((uint64_t)r < extra ? (uint64_t)r : extra);
    return base + ((uint64_t)r < extra ? 1 : 0);
}

/** @brief `--shards`: the files (a list, or a pattern), this rank's, and their shape: every
 *        shard's channels the same. @param j the job @return HIST_OK or the error */
static hist_status plan_shards(job *j) {
    char *list = strdup(j->shards);
    if (!list)
        return hist_fail(HIST_ERR_NOMEM, "out of memory");
    /* a name without * ? [ stays in the list even if it does not exist: reading it says why */
    int append = 0;
    for (char *save = NULL, *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        glob(f, (strpbrk(f, "*?[") ? 0 : GLOB_NOCHECK) | append, NULL, &j->files);
        append = GLOB_APPEND;
    }
    free(list);
    if (j->files.gl_pathc == 0)
        return hist_fail(HIST_ERR_IO, "--shards '%s' matches no file", j->shards);
    uint64_t first = 0;
    j->file_count = share(j->files.gl_pathc, j->size, j->rank, &first);
    j->file_first = first;
    uint64_t rows = 0, channels = 0;
    for (size_t i = j->file_first; i < j->file_first + j->file_count; ++i) {
        hist_npy_header h;
        hist_status s = hist_npy_open_u8(j->files.gl_pathv[i], &h);
        if (s != HIST_OK)
            return s;
        if (channels != 0 && h.shape[1] != channels)
            return hist_fail(HIST_ERR_FORMAT, "shard '%s' has %llu channels, '%s' %llu",
                             j->files.gl_pathv[i], (unsigned long long)h.shape[1],
                             j->files.gl_pathv[j->file_first], (unsigned long long)channels);
        channels = h.shape[1];
        rows += h.shape[0];
    }
    j->mine.rows = rows;
    j->mine.channels = (uint32_t)channels;
    snprintf(j->input_text, sizeof j->input_text, "%zu shards", j->files.gl_pathc);
    return HIST_OK;
}

/** @brief The whole dataset's shape, and this rank's rows. @param j the job
 *  @return HIST_OK or the error */
static hist_status plan_rows(job *j) {
    j->whole = j->o.data.problem;
    j->mine.binning = j->whole.binning;
    if (j->shards)
        return plan_shards(j);
    if (j->o.input) {
        hist_npy_header h;
        hist_status s = hist_npy_open_u8(j->o.input, &h);
        if (s != HIST_OK)
            return s;
        j->whole.rows = h.shape[0];
        j->whole.channels = (uint32_t)h.shape[1];
        snprintf(j->input_text, sizeof j->input_text, "one file");
    } else {
        snprintf(j->input_text, sizeof j->input_text, "generated");
    }
    j->mine.channels = j->whole.channels;
    j->mine.rows = share(j->whole.rows, j->size, j->rank, &j->first_row);
    return HIST_OK;
}

/** @brief Shards: every rank's channels agree (a rank with no shard takes the others'), and the
 *        whole's rows are the sum of the ranks'. @param j the job @return HIST_OK or the error */
static hist_status agree_shape(job *j) {
    uint32_t most = 0, least = UINT32_MAX, mine = j->mine.channels;
    if (mine == 0)
        mine = least;
    MPI_Allreduce(&j->mine.channels, &most, 1, MPI_UINT32_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &least, 1, MPI_UINT32_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&j->mine.rows, &j->whole.rows, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    j->whole.channels = most;
    if (j->mine.channels == 0)
        j->mine.channels = most;
    if (most != least && j->mine.channels != most)
        return hist_fail(HIST_ERR_FORMAT, "shard '%s' has %u channels, another rank's shards %u",
                         j->files.gl_pathv[j->file_first], j->mine.channels, most);
    return HIST_OK;
}

/** @brief Touch one piece of the rows' memory (its pages made before the read is timed).
 *  @param ctx the memory @param begin first byte @param end past the last */
static void touch(void *ctx, uint64_t begin, uint64_t end) {
    memset((uint8_t *)ctx + begin, 0, end - begin);
}

/** @brief Memory for this rank's rows, in huge pages where the kernel gives them, every page made
 *        before the read: a program that reads many shards reuses its buffers, as `cat` does; a
 *        fresh page's first touch (the kernel zeroes it, one fault per 4 KiB page) is the
 *        allocation's cost, timed apart. @param j the job @param bytes how many
 *  @return HIST_OK or HIST_ERR_NOMEM */
static hist_status alloc_rows(job *j, uint64_t bytes) {
    const size_t huge = (size_t)2 << 20;
    j->samples_bytes = ((size_t)bytes + huge - 1) / huge * huge;
    if (j->samples_bytes == 0)
        j->samples_bytes = huge;
    const double t0 = hist_now_us();
    void *p =
        mmap(NULL, j->samples_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory for %llu rows",
                         (unsigned long long)j->mine.rows);
    madvise(p, j->samples_bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    hist_parallel_ranges(j->samples_bytes, huge, huge, 0, touch, p);
    j->samples = (uint8_t *)p;
    j->alloc_us = hist_now_us() - t0;
    return HIST_OK;
}

/** @brief This rank's rows into host memory: read (its range, its shards) or generated.
 *        @param j the job @return HIST_OK or the error */
static hist_status load_rows(job *j) {
    const uint64_t bytes = hist_samples(&j->mine);
    hist_status s = hist_host_memory_check(bytes, "this rank's rows");
    if (s == HIST_OK)
        s = alloc_rows(j, bytes);
    if (s != HIST_OK)
        return s;
    j->counters = hist_counters(&j->mine);
    j->hist = (uint32_t *)malloc(j->counters * sizeof(uint32_t));
    j->expected = (uint32_t *)malloc(j->counters * sizeof(uint32_t));
    j->sum = (uint32_t *)malloc(j->counters * sizeof(uint32_t));
    if (!j->hist || !j->expected || !j->sum)
        return hist_fail(HIST_ERR_NOMEM, "out of host memory for the counts");
    const double t0 = hist_now_us();
    if (j->shards) {
        uint8_t *at = j->samples;
        for (size_t i = j->file_first; i < j->file_first + j->file_count && s == HIST_OK; ++i) {
            hist_npy_header h;
            s = hist_npy_open_u8(j->files.gl_pathv[i], &h);
            if (s == HIST_OK)
                s = hist_npy_read_rows_u8(j->files.gl_pathv[i], &h, 0, h.shape[0], at);
            at += h.shape[0] * h.shape[1];
        }
    } else if (j->o.input) {
        hist_npy_header h;
        s = hist_npy_open_u8(j->o.input, &h);
        if (s == HIST_OK)
            s = hist_npy_read_rows_u8(j->o.input, &h, j->first_row, j->mine.rows, j->samples);
    } else {
        s = hist_generate_rows(&j->o.data, j->first_row, j->mine.rows, j->samples);
    }
    j->read_us = hist_now_us() - t0;
    return s;
}

/* ---- which path: a GPU per rank (NCCL), shared GPUs or none (MPI) ---- */

/** @brief This machine's ranks, and how many machines. @param j the job */
static void find_machines(job *j) {
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &j->local_rank);
    MPI_Comm_size(local, &j->local_size);
    MPI_Comm_free(&local);
    int leader = j->local_rank == 0;
    MPI_Allreduce(&leader, &j->machines, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/** @brief Whether rank 0's GPU can read the memory of every other rank's GPU (one machine, rank r
 *        on GPU r), said on every rank. @param j the job @param gpus this machine's GPUs
 *  @return 1 if so */
static int peers_reachable(const job *j, int gpus) {
    int ok = j->machines == 1 && j->size <= PEERS_MAX && j->size <= gpus;
    if (ok && j->rank == 0)
        for (int r = 1; r < j->size && ok; ++r) {
            int can = 0;
            ok = cudaDeviceCanAccessPeer(&can, 0, r) == cudaSuccess && can;
        }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/** @brief Pick this rank's GPU (or none) and the path every rank takes (the same on all).
 *  @param j the job @return HIST_OK, or HIST_ERR_USAGE where the `--path` asked cannot be had */
static hist_status choose_path(job *j) {
    const int gpus = j->cpu ? 0 : hist_gpu_count();
    j->gpu = gpus > 0 ? j->local_rank % gpus : -1;
    int own = gpus >= j->local_size, all_own = 0, any_gpu = 0, have = j->gpu >= 0;
    MPI_Allreduce(&own, &all_own, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&have, &any_gpu, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#ifdef HIST_HAVE_NCCL
    const int built = 1;
#else
    const int built = 0;
#endif
    const int gpu_each = any_gpu && all_own, peer = gpu_each && peers_reachable(j, gpus);
    const int nccl = gpu_each && built;
    if (!any_gpu)
        snprintf(j->why, sizeof j->why, "no rank has a GPU%s: day 01's cpu_private counts",
                 j->cpu ? " (--cpu)" : "");
    else if (!all_own)
        snprintf(j->why, sizeof j->why,
                 "%d ranks share %d GPU%s on a machine: a GPU per rank "
                 "is needed to sum on the GPUs",
                 j->local_size, gpus, gpus == 1 ? "" : "s");
    else if (peer)
        snprintf(j->why, sizeof j->why,
                 "one machine, a GPU per rank, rank 0's GPU reads the "
                 "others'");
    else if (!built)
        snprintf(j->why, sizeof j->why, "%s, and built without NCCL (make nccl-info DAY=07)",
                 j->machines > 1 ? "several machines" : "no peer access between the GPUs");
    else
        snprintf(j->why, sizeof j->why, "%s: NCCL between them",
                 j->machines > 1 ? "several machines" : "no peer access between the GPUs");
    const char *asked = j->path_opt;
    if (strcmp(asked, "auto") == 0)
        j->path = peer ? PATH_PEER : nccl ? PATH_NCCL : PATH_MPI;
    else if (strcmp(asked, "peer") == 0 && peer)
        j->path = PATH_PEER;
    else if (strcmp(asked, "nccl") == 0 && nccl)
        j->path = PATH_NCCL;
    else if (strcmp(asked, "nccl-allreduce") == 0 && nccl)
        j->path = PATH_NCCL_ALL;
    else if (strcmp(asked, "mpi") == 0)
        j->path = PATH_MPI;
    else
        return hist_fail(HIST_ERR_USAGE, "--path %s: %s", asked, j->why);
    if (strcmp(asked, "auto") != 0)
        snprintf(j->why, sizeof j->why, "--path %s", asked);
    return HIST_OK;
}

/** @brief What counts on this rank, with its arguments: day 06's final kernel on the rank's
 *        GPU (the rows copied there, untimed), or day 01's cpu_private on its share of the cores.
 *  @param j the job @return HIST_OK or the error */
static hist_status setup_count(job *j) {
    const hist_impl *impls = j->gpu >= 0 ? day06_impls : day01_impls;
    const size_t n = j->gpu >= 0 ? day06_impl_count : day01_impl_count;
    const char *name = j->gpu >= 0 ? "gpu_roofline" : "cpu_private";
    for (size_t i = 0; i < n; ++i)
        if (strcmp(impls[i].name, name) == 0)
            j->impl = &impls[i];
    if (!j->impl)
        return hist_fail(HIST_ERR_UNSUPPORTED, "%s is not in its lesson's registry", name);
    const char *todo = hist_not_written(j->impl); /* the student edition, before it is written */
    if (todo)
        return hist_fail(HIST_ERR_NOT_RUN, "%s: %s", name, todo);
    j->args.problem = &j->mine;
    if (j->gpu < 0) {
        /* --threads as given, else this machine's cores (the parser's default) over its ranks */
        const int share_of_cores = j->o.threads / j->local_size;
        j->args.threads = j->threads_given ? j->o.threads : share_of_cores > 0 ? share_of_cores : 1;
        j->args.samples = j->samples;
        j->args.hist = j->hist;
        return HIST_OK;
    }
    HIST_CUDA_TRY(cudaSetDevice(j->gpu));
    hist_status s = hist_device_read(j->gpu, &j->dev);
    const char *no =
        s == HIST_OK && j->impl->unsupported ? j->impl->unsupported(&j->mine, &j->dev) : NULL;
    if (s != HIST_OK || no)
        return s != HIST_OK ? s : hist_fail(HIST_ERR_UNSUPPORTED, "gpu_roofline: %s", no);
    const size_t bytes = (size_t)hist_samples(&j->mine), hbytes = j->counters * sizeof(uint32_t);
    const size_t ws = j->impl->workspace_bytes ? j->impl->workspace_bytes(&j->mine, &j->dev) : 0;
    HIST_CUDA_TRY(cudaMalloc((void **)&j->d_samples, bytes ? bytes : 1));
    HIST_CUDA_TRY(cudaMalloc((void **)&j->d_hist, hbytes));
    HIST_CUDA_TRY(cudaMalloc(&j->d_workspace, ws ? ws : 1));
    HIST_CUDA_TRY(cudaMalloc((void **)&j->d_flush, 2 * j->dev.real_l2_bytes));
    HIST_CUDA_TRY(cudaStreamCreate(&j->stream)); /* blocking: it waits for the default stream */
    HIST_CUDA_TRY(cudaEventCreateWithFlags(&j->done, cudaEventDisableTiming));
    HIST_CUDA_TRY(cudaMemcpy(j->d_samples, j->samples, bytes, cudaMemcpyHostToDevice));
    j->args.samples = j->d_samples;
    j->args.hist = j->d_hist;
    j->args.workspace = ws ? j->d_workspace : NULL;
    j->args.device = &j->dev;
    j->args.threads = 1;
    return HIST_OK;
}

/** @brief The NCCL communicator of every rank: rank 0's unique id, broadcast by MPI.
 *  @param j the job @return HIST_OK or HIST_ERR_CUDA */
static hist_status setup_nccl(job *j) {
#ifdef HIST_HAVE_NCCL
    struct {
        ncclUniqueId id;
        int made;
    } boot;
    memset(&boot, 0, sizeof boot);
    if (j->rank == 0) {
        ncclResult_t r = ncclGetUniqueId(&boot.id);
        boot.made = r == ncclSuccess;
        if (!boot.made)
            hist_fail(HIST_ERR_CUDA, "ncclGetUniqueId: %s", ncclGetErrorString(r));
    }
    MPI_Bcast(&boot, (int)sizeof boot, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!boot.made)
        return j->rank == 0 ? HIST_ERR_CUDA
                            : hist_fail(HIST_ERR_CUDA, "rank 0 could not make NCCL's unique id");
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no NVLink multicast (the GPU machines' rule) */
    /* collective: a rank that fails here would leave the others waiting, so it ends the job */
    ncclResult_t r = ncclCommInitRank(&j->comm, j->size, boot.id, j->rank);
    if (r != ncclSuccess)
        die(j, hist_fail(HIST_ERR_CUDA, "ncclCommInitRank: %s", ncclGetErrorString(r)));
#else
    (void)j;
#endif
    return HIST_OK;
}

/** @brief Peer path: rank 0 makes its flag words (zeroed) and sends their IPC handle; every
 *        other rank maps them and sends its histogram's handle; rank 0 maps those. Collective.
 *  @param j the job @return HIST_OK or HIST_ERR_CUDA */
static hist_status setup_peer(job *j) {
    static cudaIpcMemHandle_t hists[PEERS_MAX];
    cudaIpcMemHandle_t flags, mine;
    memset(&flags, 0, sizeof flags);
    memset(&mine, 0, sizeof mine);
    hist_status s = HIST_OK;
    const size_t bytes = (PEERS_MAX + 1) * sizeof(uint32_t);
    if (j->rank == 0) {
        cudaError_t e = cudaMalloc((void **)&j->d_flags, bytes);
        if (e == cudaSuccess)
            e = cudaMemset(j->d_flags, 0, bytes);
        if (e == cudaSuccess)
            e = cudaIpcGetMemHandle(&flags, j->d_flags);
        if (e != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "rank 0's flags: %s", cudaGetErrorString(e));
    }
    if (agree(j, s) != HIST_OK)
        return HIST_ERR_CUDA;
    MPI_Bcast(&flags, (int)sizeof flags, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (j->rank > 0) {
        void *mapped = NULL;
        cudaError_t e = cudaIpcOpenMemHandle(&mapped, flags, cudaIpcMemLazyEnablePeerAccess);
        if (e == cudaSuccess)
            e = cudaIpcGetMemHandle(&mine, j->d_hist);
        j->d_flags = (uint32_t *)mapped;
        if (e != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "mapping rank 0's flags: %s", cudaGetErrorString(e));
    }
    if (agree(j, s) != HIST_OK)
        return HIST_ERR_CUDA;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, hists, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (j->rank == 0) {
        j->peer_hist[0] = j->d_hist;
        for (int r = 1; r < j->size && s == HIST_OK; ++r) {
            void *hist = NULL;
            cudaError_t e = cudaIpcOpenMemHandle(&hist, hists[r], cudaIpcMemLazyEnablePeerAccess);
            if (e != cudaSuccess)
                s = hist_fail(HIST_ERR_CUDA, "mapping rank %d's histogram: %s", r,
                              cudaGetErrorString(e));
            j->peer_hist[r] = (const uint32_t *)hist;
            j->peers_open = e == cudaSuccess ? r : j->peers_open;
        }
    }
    return agree(j, s) == HIST_OK ? HIST_OK : HIST_ERR_CUDA;
}

/* ---- the phases, timed ---- */

/** @brief Queue this rank's count (the GPU's default stream) or do it (the CPU).
 *  @param ctx the job @return the implementation's status */
static hist_status count_once(void *ctx) {
    job *j = (job *)ctx;
    return j->impl->run(&j->args);
}

/** @brief Sum every rank's counts on rank 0 (after this rank's count): NCCL on the GPUs, or MPI
 *        on host buffers. @param j the job @return HIST_OK, or the error (the caller dies) */
static hist_status reduce_once(job *j) {
    const int n = (int)j->counters;
    if (j->path == PATH_PEER) {
        /* queued behind the count (j->stream waits for the default stream), no host between
           the GPUs: each rank's GPU says "sum j->seq counted"; rank 0's GPU waits for all, then
           adds. Rank 0's counts become the sum; the others' are read until rank 0's kernel ends,
           and no rank counts again before the next barrier, which rank 0 reaches after it. */
        const uint32_t seq = ++j->seq;
        if (j->rank > 0)
            return day07_signal(j->d_flags + j->rank, seq, j->stream);
        if (j->size == 1)
            return HIST_OK;
        const day07_wait wait = {j->d_flags, seq, j->d_flags + PEERS_MAX};
        return day07_add_histograms(j->d_hist, j->peer_hist, j->size, j->counters, &wait,
                                    j->stream);
    }
#ifdef HIST_HAVE_NCCL
    if (j->path == PATH_NCCL || j->path == PATH_NCCL_ALL) {
        /* in place: rank 0's own counts become the sum (no copy of them first) */
        ncclResult_t r = j->path == PATH_NCCL
                             ? ncclReduce(j->d_hist, j->d_hist, j->counters, ncclUint32, ncclSum, 0,
                                          j->comm, j->stream)
                             : ncclAllReduce(j->d_hist, j->d_hist, j->counters, ncclUint32, ncclSum,
                                             j->comm, j->stream);
        if (r != ncclSuccess)
            return hist_fail(HIST_ERR_CUDA, "%s: %s",
                             j->path == PATH_NCCL ? "ncclReduce" : "ncclAllReduce",
                             ncclGetErrorString(r));
        return HIST_OK;
    }
#endif
    if (j->gpu >= 0)
        HIST_CUDA_TRY(cudaMemcpy(j->hist, j->d_hist, j->counters * 4, cudaMemcpyDeviceToHost));
    if (MPI_Reduce(j->hist, j->sum, n, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return hist_fail(HIST_ERR_IO, "MPI_Reduce failed");
    return HIST_OK;
}

/** @brief The median over ranks' slowest: every rank's times @p t of @p n repetitions, each the
 *        largest of the ranks'. @param t times (replaced) @param n repetitions @return stats */
static hist_stats slowest(double *t, int n) {
    MPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return hist_stats_of(t, n);
}

/** @brief What timed_once() times, in the order measure() times them: the job last, so that its
 *  last repetition leaves the sum on rank 0 (check()). */
enum timed_what { TIME_REDUCE, TIME_COUNT_AS_JOB, TIME_JOB };

/** @brief One repetition of @p what, all ranks started by a barrier (a GPU's L2 flushed first
 *        where a count is timed), ended by the host waiting for an event queued behind the
 *        work (one wait, the same for each), so that the job less the count alone is what the
 *        reduce adds. @param j the job @param what which @return the time on this rank, us */
static double timed_once(job *j, enum timed_what what) {
    hist_status s = HIST_OK;
    if (what != TIME_REDUCE && j->gpu >= 0) {
        cudaError_t e = cudaMemset(j->d_flush, 1, 2 * j->dev.real_l2_bytes);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            die(j, hist_fail(HIST_ERR_CUDA, "flushing the L2: %s", cudaGetErrorString(e)));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = hist_now_us();
    if (what != TIME_REDUCE)
        s = count_once(j);
    if (s == HIST_OK && what != TIME_COUNT_AS_JOB)
        s = reduce_once(j);
    /* j->stream waits for the default stream's count, so this event follows all of the work,
       even where the reduce queued nothing (one rank) */
    if (s == HIST_OK && j->gpu >= 0 &&
        (cudaEventRecord(j->done, j->stream) != cudaSuccess ||
         cudaEventSynchronize(j->done) != cudaSuccess))
        s = hist_fail(HIST_ERR_CUDA, "the count or the reduce: %s",
                      cudaGetErrorString(cudaGetLastError()));
    if (s != HIST_OK)
        die(j, s);
    return hist_now_us() - t0;
}

/** @brief Time the count (as day 06's runner does), the reduce and the whole job. (On the NCCL
 *        path the reduce alone adds into rank 0's counts again and again; the job's repetitions
 *        count afresh, so the last one leaves the sum there.) @param j the job */
static void measure(job *j) {
    static double t[RANKS_MAX_REPS];
    const int reps = j->o.reps;
    hist_status s = HIST_OK;
    if (j->gpu >= 0) {
        s = hist_gpu_time_work(&j->dev, count_once, j, j->o.warmup, reps, &j->count);
    } else {
        for (int r = 0; r < j->o.warmup && s == HIST_OK; ++r)
            s = count_once(j);
        for (int r = 0; r < reps && s == HIST_OK; ++r) {
            const double t0 = hist_now_us();
            s = count_once(j);
            t[r] = hist_now_us() - t0;
        }
        j->count = hist_stats_of(t, reps);
    }
    if (s != HIST_OK)
        die(j, s);
    double mine = j->count.median_us;
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    j->count.median_us = mine;
    hist_stats *into[] = {&j->reduce, &j->count_job, &j->whole_job};
    for (int what = TIME_REDUCE; what <= TIME_JOB; ++what) {
        for (int r = 0; r < j->o.warmup; ++r)
            timed_once(j, (enum timed_what)what);
        for (int r = 0; r < reps; ++r)
            t[r] = timed_once(j, (enum timed_what)what);
        *into[what] = slowest(t, reps);
    }
}

/* ---- the result ---- */

/** @brief Rank 0: the sum (the last job repetition's) against the sum of every rank's reference
 *        of its own rows. @param j the job @return HIST_OK or HIST_ERR_MISMATCH */
static hist_status check(job *j) {
    hist_reference_parallel(&j->mine, j->samples, j->hist);
    MPI_Reduce(j->hist, j->expected, (int)j->counters, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (j->rank != 0)
        return HIST_OK;
    if (j->path == PATH_PEER) { /* a rank whose flag never came (the sum waited 10 s) */
        uint32_t late = 0;
        HIST_CUDA_TRY(
            cudaMemcpy(&late, j->d_flags + PEERS_MAX, sizeof late, cudaMemcpyDeviceToHost));
        if (late)
            return hist_fail(HIST_ERR_CUDA, "rank %u's count was not signalled within 10 s", late);
    }
    if (j->path != PATH_MPI)
        HIST_CUDA_TRY(cudaMemcpy(j->sum, j->d_hist, j->counters * 4, cudaMemcpyDeviceToHost));
    for (uint64_t k = 0; k < j->counters; ++k)
        if (j->sum[k] != j->expected[k])
            return hist_fail(HIST_ERR_MISMATCH,
                             "counter %llu (channel %llu) is %u, the reference "
                             "says %u",
                             (unsigned long long)k,
                             (unsigned long long)(k / hist_bins(j->mine.binning)), j->sum[k],
                             j->expected[k]);
    return HIST_OK;
}

/** @brief GB/s of the whole dataset in @p us microseconds. @param j the job @param us time
 *  @return GB/s */
static double whole_gbps(const job *j, double us) {
    return (double)hist_samples(&j->whole) / (us * 1e3);
}

/** @brief NCCL's protocol where NCCL_PROTO chose one and the path is NCCL's, else NULL.
 *  @param j the job @return the protocol's name, or NULL */
static const char *nccl_proto(const job *j) {
    const char *proto = getenv("NCCL_PROTO");
    return (j->path == PATH_NCCL || j->path == PATH_NCCL_ALL) && proto && *proto ? proto : NULL;
}

/** @brief What the reduce adds to the job: the job less the count timed the same way.
 *  @param j the job @return microseconds */
static double reduce_in_job(const job *j) {
    return j->whole_job.median_us - j->count_job.median_us;
}

/** @brief Rank 0: what ran, and the phases' times. @param j the job */
static void print_report(const job *j) {
    static const char *const how[] = {"MPI_Reduce of host buffers", "ncclReduce, GPU to GPU",
                                      "ncclAllReduce, GPU to GPU",
                                      "peer: rank 0's GPU adds every rank's (CUDA IPC)"};
    char cpu[48], proto[48] = "";
    snprintf(cpu, sizeof cpu, "the CPU (%d thread%s a rank)", j->args.threads,
             j->args.threads == 1 ? "" : "s");
    if (nccl_proto(j))
        snprintf(proto, sizeof proto, ", NCCL_PROTO=%s", nccl_proto(j));
    printf("ranks: %d on %d machine%s; count: %s on %s; reduce: %s (%s%s)\n", j->size, j->machines,
           j->machines == 1 ? "" : "s", j->impl->name, j->gpu >= 0 ? j->dev.name : cpu,
           how[j->path], j->why, proto);
    const double mib = (double)hist_samples(&j->whole) / (1 << 20);
    printf("data: %s, %llu x %u (%.1f MiB), about %.1f MiB per rank; memory for it made in "
           "%.1f ms (the slowest rank)\n",
           j->input_text, (unsigned long long)j->whole.rows, j->whole.channels, mib, mib / j->size,
           j->alloc_us / 1e3);
    printf("%-8s %12s %12s %10s   (the slowest rank's; median of %d)\n", "phase", "median (us)",
           "min (us)", "GB/s", j->o.reps);
    printf("%-8s %12.1f %12s %10.2f   (once)\n", "read", j->read_us, "-",
           whole_gbps(j, j->read_us));
    printf("%-8s %12.1f %12.1f %10.1f\n", "count", j->count.median_us, j->count.min_us,
           whole_gbps(j, j->count.median_us));
    printf("%-8s %12.1f %12.1f %10s\n", "reduce", j->reduce.median_us, j->reduce.min_us, "-");
    printf("%-8s %12.1f %12.1f %10.1f\n", "job", j->whole_job.median_us, j->whole_job.min_us,
           whole_gbps(j, j->whole_job.median_us));
    printf("the reduce adds %.1f us to the job (the job less the count timed as the job is, "
           "%.1f us): %.1f%% of it; check: exact, %d rank%s summed on rank 0\n",
           reduce_in_job(j), j->count_job.median_us,
           100.0 * reduce_in_job(j) / j->whole_job.median_us, j->size, j->size == 1 ? "" : "s");
}

/** @brief Rank 0: one row appended to `--csv` (its header first in a new file).
 *  @param j the job @return HIST_OK or HIST_ERR_IO */
static hist_status append_csv(const job *j) {
    FILE *f = fopen(j->o.csv, "a");
    if (!f)
        return hist_fail(HIST_ERR_IO, "cannot write %s", j->o.csv);
    if (ftell(f) == 0)
        fprintf(f,
                "ranks,machines,path,count on,input,rows,channels,alloc (ms),read (ms),read GB/s,"
                "count (us),reduce (us),job (us),reduce in job (us),reduce share,check,commit\n");
    char path[48];
    snprintf(path, sizeof path, "%s%s%s", path_names[j->path], nccl_proto(j) ? "/" : "",
             nccl_proto(j) ? nccl_proto(j) : "");
    fprintf(f, "%d,%d,%s,%s,%s,%llu,%u,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f%%,exact,%s\n",
            j->size, j->machines, path, j->gpu >= 0 ? "GPU" : "CPU", j->input_text,
            (unsigned long long)j->whole.rows, j->whole.channels, j->alloc_us / 1e3,
            j->read_us / 1e3, whole_gbps(j, j->read_us), j->count.median_us, j->reduce.median_us,
            j->whole_job.median_us, reduce_in_job(j),
            100.0 * reduce_in_job(j) / j->whole_job.median_us, hist_course_commit);
    if (fclose(f) != 0)
        return hist_fail(HIST_ERR_IO, "cannot write %s", j->o.csv);
    return HIST_OK;
}

/** @brief Rank 0: the report, the CSV row and the output file (whole or not at all).
 *  @param j the job @return HIST_OK or HIST_ERR_IO */
static hist_status report(const job *j) {
    print_report(j);
    hist_status s = j->o.csv ? append_csv(j) : HIST_OK;
    if (s == HIST_OK && j->o.output)
        s = hist_npy_write_u32(j->o.output, j->sum, j->whole.channels, hist_bins(j->whole.binning));
    return s;
}

/** @brief Free what the job holds (on the peer path, rank 0 closes the others' histograms
 *        before any rank frees its own). @param j the job */
static void release(job *j) {
    if (j->path == PATH_PEER) { /* every mapping closed before what it maps is freed */
        for (int r = 1; r <= j->peers_open; ++r)
            cudaIpcCloseMemHandle((void *)j->peer_hist[r]);
        if (j->rank > 0 && j->d_flags)
            cudaIpcCloseMemHandle(j->d_flags);
        MPI_Barrier(MPI_COMM_WORLD);
        if (j->rank == 0)
            cudaFree(j->d_flags);
    }
#ifdef HIST_HAVE_NCCL
    if (j->comm)
        ncclCommDestroy(j->comm);
#endif
    if (j->gpu >= 0) {
        cudaFree(j->d_samples);
        cudaFree(j->d_hist);
        cudaFree(j->d_workspace);
        cudaFree(j->d_flush);
        if (j->stream)
            cudaStreamDestroy(j->stream);
        if (j->done)
            cudaEventDestroy(j->done);
    }
    if (j->shards)
        globfree(&j->files);
    if (j->samples)
        munmap(j->samples, j->samples_bytes);
    free(j->hist);
    free(j->sum);
    free(j->expected);
}

/** @brief The steps, each agreed on by every rank before the next. @param j the job
 *  @param argc count @param argv arguments @return the final status */
static hist_status run(job *j, int argc, char **argv) {
    hist_status s = agree(j, parse(j, argc, argv));
    if (s == HIST_OK && j->o.help) {
        if (j->rank == 0)
            usage(stdout);
        return HIST_OK;
    }
    if (s == HIST_OK)
        s = agree(j, same_options(argc, argv));
    if (s == HIST_OK)
        s = agree(j, plan_rows(j));
    if (s == HIST_OK && j->shards)
        s = agree(j, agree_shape(j));
    if (s == HIST_OK)
        s = agree(j, load_rows(j));
    if (s != HIST_OK)
        return s;
    MPI_Allreduce(MPI_IN_PLACE, &j->read_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &j->alloc_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    find_machines(j);
    s = agree(j, choose_path(j));
    if (s == HIST_OK)
        s = agree(j, setup_count(j));
    if (s == HIST_OK && (j->path == PATH_NCCL || j->path == PATH_NCCL_ALL))
        s = agree(j, setup_nccl(j));
    if (s == HIST_OK && j->path == PATH_PEER)
        s = setup_peer(j); /* agreed on inside */
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
 * @param argv the course's dataset and file options, and ranks' own (usage())
 * @return 0; 1 on a mismatch; 2 on a usage error; 3 on another failure (every rank the same)
 */
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    job j;
    memset(&j, 0, sizeof j);
    j.gpu = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    hist_status s = run(&j, argc, argv);
    release(&j);
    MPI_Finalize();
    return hist_exit_code(s);
}
