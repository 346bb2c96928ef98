/**
 * @file nccl_init.cu
 * @brief The smallest program that shows the reports `make sanitize` excludes or avoids: one NCCL
 *        communicator over every visible GPU (at most 8), one all-reduce of 512 KiB (the main
 *        preset's histogram), destroyed, nothing else. NCCL handles each error it meets, and the
 *        program exits 0:
 *  - memcheck: one "Program hit cudaErrorNoKernelImageForDevice" per NCCL kernel with no code for
 *    this GPU (`cudaFuncGetAttributes` in `ncclInitKernelsForDevice`: NCCL asks the runtime about
 *    each of its kernels and skips those it cannot load); with two GPUs or more, "Program hit
 *    cudaErrorPeerAccessAlreadyEnabled" (`cudaDeviceEnablePeerAccess` in `p2pMap`, for each
 *    connection NCCL sets up between GPUs that can already read each other);
 *  - initcheck: with two GPUs or more, "Uninitialized __global__ memory read" inside NCCL's
 *    all-reduce kernels under its LL protocol, which polls flag words that the peer has not
 *    written yet (a flag is read until it holds the step's value); under `NCCL_PROTO=Simple`
 *    the same all-reduce reads nothing it has not written.
 * tools/lab/sanitize.sh runs it under both tools (`make sanitize`) and says what each printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <nccl.h>

/** @brief GPUs the program uses at most. */
#define MAX_GPUS 8

/**
 * @brief One communicator over every visible GPU, one all-reduce, then destroyed.
 * @return 0 when NCCL and CUDA say success, else 1
 */
int main(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        fprintf(stderr, "nccl_init: no CUDA GPU\n");
        return 1;
    }
    n = n < MAX_GPUS ? n : MAX_GPUS;
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no NVLink multicast (the GPU machines' rule) */
    ncclComm_t comms[MAX_GPUS];
    int devices[MAX_GPUS];
    for (int i = 0; i < n; ++i)
        devices[i] = i;
    ncclResult_t r = ncclCommInitAll(comms, n, devices);
    if (r != ncclSuccess) {
        fprintf(stderr, "nccl_init: ncclCommInitAll: %s\n", ncclGetErrorString(r));
        return 1;
    }
    const size_t counters = 512 * 256;
    unsigned *buf[MAX_GPUS] = {0};
    int ok = 1;
    for (int i = 0; i < n && ok; ++i)
        ok = cudaSetDevice(i) == cudaSuccess &&
             cudaMalloc((void **)&buf[i], counters * sizeof(unsigned)) == cudaSuccess &&
             cudaMemset(buf[i], 1, counters * sizeof(unsigned)) == cudaSuccess &&
             cudaDeviceSynchronize() == cudaSuccess;
    if (ok) {
        r = ncclGroupStart();
        for (int i = 0; i < n && r == ncclSuccess; ++i)
            r = ncclAllReduce(buf[i], buf[i], counters, ncclUint32, ncclSum, comms[i], 0);
        if (r == ncclSuccess)
            r = ncclGroupEnd();
        for (int i = 0; i < n && ok; ++i)
            ok = cudaSetDevice(i) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    }
    for (int i = 0; i < n; ++i) {
        ncclCommDestroy(comms[i]);
        cudaSetDevice(i);
        cudaFree(buf[i]);
    }
    if (!ok || r != ncclSuccess) {
        fprintf(stderr, "nccl_init: the all-reduce failed\n");
        return 1;
    }
    printf("nccl_init: one communicator over %d GPU%s, one all-reduce, destroyed\n", n,
           n == 1 ? "" : "s");
    return 0;
}
