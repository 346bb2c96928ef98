/**
 * @file rank_reduce.h
 * @brief Day 07's ranks: summing every rank's counts on rank 0, the three ways ranks.cu chooses
 *        between (the peer add over CUDA IPC, NCCL, MPI), each a collective every rank calls.
 */
#ifndef DAY07_RANK_REDUCE_H
#define DAY07_RANK_REDUCE_H

#include <cuda_runtime.h>

#include "add.h"
#include "hist.h"

/** @brief How the counts are summed on rank 0 (`--path`). */
typedef enum reduce_path {
    PATH_MPI,      /**< MPI_Reduce of host buffers */
    PATH_NCCL,     /**< ncclReduce, GPU to GPU */
    PATH_NCCL_ALL, /**< ncclAllReduce, GPU to GPU (the sum on every rank) */
    PATH_PEER,     /**< rank 0's GPU adds every rank's histogram, read through CUDA IPC */
} reduce_path;

/** @brief `--path` values, in reduce_path's order. */
extern const char *const rank_path_names[4];
/** @brief What each path is, in words, in reduce_path's order (the report's first line). */
extern const char *const rank_path_how[4];

/** @brief Ranks the peer path sums at most (day07_add_histograms()' limit). */
#define PEERS_MAX DAY07_ADD_MAX

/** @brief One rank's part of the reduce. */
typedef struct rank_reduce {
    reduce_path path;  /**< how */
    int rank;          /**< this rank */
    int size;          /**< how many ranks */
    uint64_t counters; /**< channels x bins */
    int on_gpu;        /**< 1: the counts are on this rank's GPU */
    uint32_t *d_hist;  /**< the counts on the GPU; rank 0's: the sum, after NCCL or the peer add */
    uint32_t *hist;    /**< the counts on the host (MPI path) */
    uint32_t *sum;     /**< rank 0: the sum on the host (MPI path) */
    cudaStream_t stream;    /**< the count's stream: the reduce is queued behind the count */
    const hist_device *dev; /**< this rank's GPU (the peer path launches its kernels for it) */
    void *comm;             /**< NCCL's communicator (ncclComm_t), or NULL */
    uint32_t *d_flags;      /**< peer path: rank 0's flag words (one per rank, then "late") */
    uint32_t seq;           /**< peer path: the sums so far (each sum's flags say its number) */
    const uint32_t *peer_hist[PEERS_MAX]; /**< peer path, rank 0: every rank's histogram */
    int peers_open;                       /**< peer path, rank 0: ranks 1 .. this mapped */
} rank_reduce;

/** @brief Where a rank runs, and so which paths it can take. */
typedef struct rank_place {
    int local_rank; /**< this rank among this machine's */
    int local_size; /**< how many ranks this machine runs */
    int machines;   /**< machines the ranks run on */
    int cpu;        /**< `--cpu`: count on the CPU even with a GPU */
    int gpu;        /**< the GPU this rank counts on (-1: the CPU) */
    char why[200];  /**< why the path is what it is */
} rank_place;

/**
 * @brief This machine's ranks, and how many machines (collective).
 * @param w filled in (local_rank, local_size, machines)
 * @param rank this rank
 */
void rank_find_machines(rank_place *w, int rank);

/**
 * @brief Pick this rank's GPU (or none) and the path every rank takes, the same on all: the peer
 *        add where every rank has a GPU of its own on one machine and rank 0's reads the others',
 *        else NCCL where every rank has a GPU, else MPI (collective).
 * @param red the reduce (rank, size set): its path is set
 * @param w where the rank runs (rank_find_machines(), `cpu` set): its gpu and why are set
 * @param asked `--path`: auto, or the path wanted
 * @return HIST_OK, or HIST_ERR_USAGE where the path asked cannot be had
 */
hist_status rank_choose_path(rank_reduce *red, rank_place *w, const char *asked);

/**
 * @brief Agree on a status: every rank says whether it failed; rank 0 prints the first failing
 *        rank's message in one line (ranks.cu).
 * @param rank this rank
 * @param size the ranks
 * @param s this rank's status
 * @return the worst status of all ranks, on every rank
 */
hist_status rank_agree(int rank, int size, hist_status s);

/**
 * @brief A failure inside a collective: say it in one line and end every rank (ranks.cu).
 * @param rank this rank
 * @param size the ranks
 * @param s the status
 */
void rank_die(int rank, int size, hist_status s);

/**
 * @brief What the path needs before the first sum, on every rank: NCCL's communicator (rank 0's
 *        unique id, broadcast by MPI), or the peer path's mappings (rank 0's flag words mapped by
 *        every rank, every rank's histogram by rank 0). Collective; agreed on inside.
 * @param r the reduce (path, ranks, counters, d_hist and stream set)
 * @return HIST_OK, or the failure on every rank
 */
hist_status rank_reduce_setup(rank_reduce *r);

/**
 * @brief Sum every rank's counts on rank 0, queued behind this rank's count. Collective.
 * @param r the reduce
 * @return HIST_OK, or the error (the caller ends the job: a collective cannot be left half done)
 */
hist_status rank_reduce_once(rank_reduce *r);

/**
 * @brief Rank 0: the sum, in host memory (after the last rank_reduce_once()), and on the peer
 *        path a rank whose signal never came.
 * @param r the reduce
 * @return HIST_OK, or HIST_ERR_CUDA
 */
hist_status rank_reduce_result(rank_reduce *r);

/**
 * @brief Free what the path holds (on the peer path, every mapping closed before any rank frees
 *        what it maps). Collective.
 * @param r the reduce
 */
void rank_reduce_release(rank_reduce *r);

#endif /* DAY07_RANK_REDUCE_H */
