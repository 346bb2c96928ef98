/**
 * @file rank_reduce.cu
 * @brief Day 07's ranks: summing every rank's counts on rank 0 (rank_reduce.h).
 *
 *  - `peer` (one machine, every rank a GPU of its own, the GPUs able to read each other's memory,
 *    as over NVLink): once, through CUDA IPC, each rank maps rank 0's flag words and rank 0 maps
 *    every rank's histogram. Each sum is then queued on the GPUs alone, with no host between
 *    them: behind its count, each rank's GPU sets its flag on rank 0's GPU (day07_signal());
 *    behind its own count, rank 0's GPU waits for every flag and adds the histograms, read where
 *    they lie, in one kernel (day07_add_histograms()).
 *  - `nccl`: `ncclReduce` sums the histograms GPU to GPU (`nccl-allreduce`: `ncclAllReduce`, for
 *    the comparison). The communicator is bootstrapped the way NCCL's examples do: rank 0 makes a
 *    unique id, MPI broadcasts it, every rank calls `ncclCommInitRank`.
 *  - `mpi`: `MPI_Reduce` of host buffers (the counts copied back from a shared GPU, or the CPU's).
 *
 * rank_choose_path() picks one, the same on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "rank_reduce.h"
#ifdef HIST_HAVE_NCCL
#include <nccl.h>
#endif

const char *const rank_path_names[4] = {"mpi", "nccl", "nccl-allreduce", "peer"};
const char *const rank_path_how[4] = {"MPI_Reduce of host buffers", "ncclReduce, GPU to GPU",
                                      "ncclAllReduce, GPU to GPU",
                                      "peer: rank 0's GPU adds every rank's (CUDA IPC)"};

/* ---- which path: a GPU per rank (peer, NCCL), shared GPUs or none (MPI) ---- */

void rank_find_machines(rank_place *w, int rank) {
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &w->local_rank);
    MPI_Comm_size(local, &w->local_size);
    MPI_Comm_free(&local);
    int leader = w->local_rank == 0;
    MPI_Allreduce(&leader, &w->machines, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* Whether rank 0's GPU can read every other rank's GPU (one machine, rank r on GPU r), said on
   every rank. */
static int peers_reachable(const rank_reduce *red, const rank_place *w, int gpus) {
    int ok = w->machines == 1 && red->size <= PEERS_MAX && red->size <= gpus;
    for (int r = 1; red->rank == 0 && r < red->size && ok; ++r) {
        int can = 0;
        ok = cudaDeviceCanAccessPeer(&can, 0, r) == cudaSuccess && can;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* Why the path is what it is, in w->why. */
static void explain_path(rank_place *w, int gpus, int any_gpu, int all_own, int peer, int built) {
    const char *apart = w->machines > 1 ? "several machines" : "no peer access between the GPUs";
    if (!any_gpu)
        snprintf(w->why, sizeof w->why, "no rank has a GPU%s: day 01's cpu_private counts",
                 w->cpu ? " (--cpu)" : "");
    else if (!all_own)
        snprintf(
            w->why, sizeof w->why,
            "%d ranks share %d GPU%s on a machine: a GPU per rank is needed to sum on the GPUs",
            w->local_size, gpus, gpus == 1 ? "" : "s");
    else if (peer)
        snprintf(w->why, sizeof w->why,
                 "one machine, a GPU per rank, rank 0's GPU reads the "
                 "others'");
    else
        snprintf(w->why, sizeof w->why, "%s%s", apart,
                 built ? ": NCCL between them"
                       : ", and built without NCCL (make nccl-info DAY=07)");
}

hist_status rank_choose_path(rank_reduce *red, rank_place *w, const char *asked) {
    const int gpus = w->cpu ? 0 : hist_gpu_count();
    w->gpu = gpus > 0 ? w->local_rank % gpus : -1;
    int own = gpus >= w->local_size, all_own = 0, any_gpu = 0, have = w->gpu >= 0;
    MPI_Allreduce(&own, &all_own, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&have, &any_gpu, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#ifdef HIST_HAVE_NCCL
    const int built = 1;
#else
    const int built = 0;
#endif
    const int gpu_each = any_gpu && all_own, peer = gpu_each && peers_reachable(red, w, gpus);
    const int nccl = gpu_each && built;
    explain_path(w, gpus, any_gpu, all_own, peer, built);
    const int can[4] = {1, nccl, nccl, peer}; /* in reduce_path's order */
    red->path = peer ? PATH_PEER : nccl ? PATH_NCCL : PATH_MPI;
    if (strcmp(asked, "auto") == 0)
        return HIST_OK;
    for (int p = 0; p < 4; ++p)
        if (strcmp(asked, rank_path_names[p]) == 0 && can[p]) {
            red->path = (reduce_path)p;
            snprintf(w->why, sizeof w->why, "--path %s", asked);
            return HIST_OK;
        }
    return hist_fail(HIST_ERR_USAGE, "--path %s: %s", asked, w->why);
}

/* ---- the paths ---- */

/* NCCL's communicator of every rank: rank 0's unique id, broadcast by MPI. */
static hist_status setup_nccl(rank_reduce *r) {
#ifdef HIST_HAVE_NCCL
    struct {
        ncclUniqueId id;
        int made;
    } boot;
    memset(&boot, 0, sizeof boot);
    if (r->rank == 0) {
        ncclResult_t e = ncclGetUniqueId(&boot.id);
        boot.made = e == ncclSuccess;
        if (!boot.made)
            hist_fail(HIST_ERR_CUDA, "ncclGetUniqueId: %s", ncclGetErrorString(e));
    }
    MPI_Bcast(&boot, (int)sizeof boot, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!boot.made)
        return r->rank == 0 ? HIST_ERR_CUDA
                            : hist_fail(HIST_ERR_CUDA, "rank 0 could not make NCCL's unique id");
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no NVLink multicast (the GPU machines' rule) */
    /* collective: a rank that fails here would leave the others waiting, so it ends the job */
    ncclComm_t comm;
    ncclResult_t e = ncclCommInitRank(&comm, r->size, boot.id, r->rank);
    if (e != ncclSuccess)
        rank_die(r->rank, r->size,
                 hist_fail(HIST_ERR_CUDA, "ncclCommInitRank: %s", ncclGetErrorString(e)));
    r->comm = comm;
#else
    (void)r;
#endif
    return HIST_OK;
}

/* Rank 0 makes its flag words (zeroed) and sends their IPC handle; every other rank maps them
   and sends its histogram's handle; rank 0 maps those. */
static hist_status setup_peer(rank_reduce *r) {
    cudaIpcMemHandle_t hists[PEERS_MAX], flags, mine;
    memset(hists, 0, sizeof hists);
    memset(&flags, 0, sizeof flags);
    memset(&mine, 0, sizeof mine);
    hist_status s = HIST_OK;
    const size_t bytes = (PEERS_MAX + 1) * sizeof(uint32_t);
    cudaError_t e = cudaSuccess;
    if (r->rank == 0 && (e = cudaMalloc((void **)&r->d_flags, bytes)) == cudaSuccess &&
        (e = cudaMemset(r->d_flags, 0, bytes)) == cudaSuccess)
        e = cudaIpcGetMemHandle(&flags, r->d_flags);
    if (e != cudaSuccess)
        s = hist_fail(HIST_ERR_CUDA, "rank 0's flags: %s", cudaGetErrorString(e));
    if (rank_agree(r->rank, r->size, s) != HIST_OK)
        return HIST_ERR_CUDA;
    MPI_Bcast(&flags, (int)sizeof flags, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (r->rank > 0) {
        void *mapped = NULL;
        e = cudaIpcOpenMemHandle(&mapped, flags, cudaIpcMemLazyEnablePeerAccess);
        if (e == cudaSuccess)
            e = cudaIpcGetMemHandle(&mine, r->d_hist);
        r->d_flags = (uint32_t *)mapped;
        if (e != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "mapping rank 0's flags: %s", cudaGetErrorString(e));
    }
    if (rank_agree(r->rank, r->size, s) != HIST_OK)
        return HIST_ERR_CUDA;
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, hists, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    r->peer_hist[0] = r->d_hist;
    for (int k = 1; r->rank == 0 && k < r->size && s == HIST_OK; ++k) {
        void *hist = NULL;
        e = cudaIpcOpenMemHandle(&hist, hists[k], cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess)
            s = hist_fail(HIST_ERR_CUDA, "mapping rank %d's histogram: %s", k,
                          cudaGetErrorString(e));
        r->peer_hist[k] = (const uint32_t *)hist;
        r->peers_open = e == cudaSuccess ? k : r->peers_open;
    }
    return rank_agree(r->rank, r->size, s) == HIST_OK ? HIST_OK : HIST_ERR_CUDA;
}

hist_status rank_reduce_setup(rank_reduce *r) {
    if (r->path == PATH_NCCL || r->path == PATH_NCCL_ALL)
        return rank_agree(r->rank, r->size, setup_nccl(r));
    return r->path == PATH_PEER ? setup_peer(r) : HIST_OK;
}

hist_status rank_reduce_once(rank_reduce *r) {
    if (r->path == PATH_PEER) {
        /* queued behind the count on its stream, no host between the GPUs: each rank's GPU says
           "sum r->seq counted"; rank 0's GPU waits for all, then adds.
           Rank 0's counts become the sum; the others' are read until rank 0's kernel ends, and no
           rank counts again before the next barrier, which rank 0 reaches after it. */
        const uint32_t seq = ++r->seq;
        if (r->rank > 0)
            return day07_signal(r->dev, r->d_flags + r->rank, seq, r->stream);
        if (r->size == 1)
            return HIST_OK;
        day07_wait wait;
        memset(&wait, 0, sizeof wait);
        wait.flags = r->d_flags;
        wait.seq = seq;
        wait.late = r->d_flags + PEERS_MAX;
        return day07_add_histograms(r->dev, r->d_hist, r->peer_hist, r->size, r->counters, &wait,
                                    r->stream);
    }
#ifdef HIST_HAVE_NCCL
    if (r->path == PATH_NCCL || r->path == PATH_NCCL_ALL) {
        /* in place: rank 0's own counts become the sum (no copy of them first) */
        const ncclComm_t comm = (ncclComm_t)r->comm;
        ncclResult_t e = r->path == PATH_NCCL ? ncclReduce(r->d_hist, r->d_hist, r->counters,
                                                           ncclUint32, ncclSum, 0, comm, r->stream)
                                              : ncclAllReduce(r->d_hist, r->d_hist, r->counters,
                                                              ncclUint32, ncclSum, comm, r->stream);
        if (e != ncclSuccess)
            return hist_fail(HIST_ERR_CUDA, "%s: %s", rank_path_names[r->path],
                             ncclGetErrorString(e));
        return HIST_OK;
    }
#endif
    if (r->on_gpu)
        HIST_CUDA_TRY(
            cudaMemcpy(r->hist, r->d_hist, r->counters * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (MPI_Reduce(r->hist, r->sum, (int)r->counters, MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return hist_fail(HIST_ERR_IO, "MPI_Reduce failed");
    return HIST_OK;
}

hist_status rank_reduce_result(rank_reduce *r) {
    if (r->path == PATH_PEER) { /* a rank whose flag never came (the sum waited 10 s) */
        uint32_t late = 0;
        HIST_CUDA_TRY(
            cudaMemcpy(&late, r->d_flags + PEERS_MAX, sizeof late, cudaMemcpyDeviceToHost));
        if (late)
            return hist_fail(HIST_ERR_CUDA, "rank %u's count was not signalled within 10 s", late);
    }
    if (r->path != PATH_MPI)
        HIST_CUDA_TRY(
            cudaMemcpy(r->sum, r->d_hist, r->counters * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return HIST_OK;
}

void rank_reduce_release(rank_reduce *r) {
    if (r->path == PATH_PEER) { /* every mapping closed before what it maps is freed */
        for (int k = 1; k <= r->peers_open; ++k)
            cudaIpcCloseMemHandle((void *)r->peer_hist[k]);
        if (r->rank > 0 && r->d_flags)
            cudaIpcCloseMemHandle(r->d_flags);
        MPI_Barrier(MPI_COMM_WORLD);
        if (r->rank == 0)
            cudaFree(r->d_flags);
    }
#ifdef HIST_HAVE_NCCL
    if (r->comm)
        ncclCommDestroy((ncclComm_t)r->comm);
#endif
}
