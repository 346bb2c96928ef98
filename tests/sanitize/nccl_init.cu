/**
 * @file nccl_init.cu
 * @brief The smallest program that shows the reports `make sanitize` excludes: one NCCL
 *        communicator on GPU 0, created and destroyed, nothing else. Under
 *        `compute-sanitizer --tool memcheck` it gets one "Program hit
 *        cudaErrorNoKernelImageForDevice" report per kernel of NCCL's that has no code for this
 *        GPU, every one from `cudaFuncGetAttributes` in `ncclInitKernelsForDevice`: NCCL asks the
 *        runtime about each of its kernels at initialisation and skips those it cannot load, so
 *        the error is handled, and the program exits 0. tools/lab/sanitize.sh builds and runs it
 *        (`make sanitize`), and says how many reports it printed.
 */
#include <stdio.h>

#include <nccl.h>

/**
 * @brief One communicator on one GPU, then destroyed.
 * @return 0 when NCCL says success, else 1
 */
int main(void) {
    ncclComm_t comm;
    int device = 0;
    ncclResult_t r = ncclCommInitAll(&comm, 1, &device);
    if (r != ncclSuccess) {
        fprintf(stderr, "nccl_init: ncclCommInitAll: %s\n", ncclGetErrorString(r));
        return 1;
    }
    ncclCommDestroy(comm);
    puts("nccl_init: one communicator made and destroyed");
    return 0;
}
