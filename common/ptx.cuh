/**
 * @file ptx.cuh
 * @brief The PTX the CUDA toolkit does not wrap: the one header of inline assembly the lessons
 *        may use.
 *
 * Everything else a kernel needs below CUDA C++ comes from the toolkit (CCCL 3.0, CUDA 13.0):
 * `cuda::ptx::get_sreg_globaltimer()` for `%globaltimer`; `cuda::atomic_ref<T,
 * cuda::thread_scope_...>` (fetch_add, load, store with a memory order) and
 * `cuda::atomic_thread_fence()` for `atom`/`ld`/`st` with `.relaxed`/`.acquire`/`.release` and
 * `fence`; `cuda::ptx::st_async`, `cuda::ptx::mbarrier_*`, `cuda::ptx::fence_sync_restrict`,
 * `cuda::ptx::fence_mbarrier_init` and `cuda::ptx::barrier_cluster_*` (the unaligned forms) for a
 * cluster's exchange (the headers under `cuda/__ptx/instructions/generated/`). A helper here is
 * for an instruction CCCL 3.0 has no function for, or one whose function costs a measured kernel
 * instructions (hist_ptx_ld_nc_L2_128B() says how); where a later toolkit has one that does not,
 * use it then. An older CCCL lacks some of those functions: the end of this file gives each one
 * it lacks, chosen by CCCL's version, the one place where the lessons' code meets a CUDA 12
 * toolkit (README.md, "Prerequisites").
 *
 * Each helper names the section of the PTX ISA it follows by its title and its anchor in
 * https://docs.nvidia.com/cuda/parallel-thread-execution/ (section numbers move between ISA
 * versions; the anchors do not), the PTX ISA version and the architecture it needs, and the
 * toolkit that has that PTX ISA. The course builds for sm_75 and newer (`make archs`): a helper
 * that needs more is guarded by `__CUDA_ARCH__` and says what it does below it.
 */
#ifndef HIST_PTX_CUH
#define HIST_PTX_CUH

#include <cuda/ptx>
#include <cuda/version>
#include <stdint.h>

/**
 * @brief Bring the cache line that holds @p p into L2 (`prefetch.global.L2`): a hint, no result.
 *
 * PTX ISA "Data Movement and Conversion Instructions: prefetch, prefetchu"
 * (`#data-movement-and-conversion-instructions-prefetch-prefetchu`). PTX ISA 2.0, sm_20: every
 * GPU and toolkit the course supports. (CCCL 3.0 has no wrapper; later CCCL releases document
 * `cuda::ptx::prefetch_L2()`.)
 * @param p a global address
 */
__device__ __forceinline__ void hist_ptx_prefetch_global_L2(const void *p) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/**
 * @brief Load the 32-bit word at @p p through the non-coherent (read-only) path, asking L2 to
 *        fetch the whole 128-byte line that holds it from memory (`ld.global.nc.L2::128B.u32`):
 *        day 06's final kernel, whose blocks of 64 or 32 channels read 64 or 32 bytes of a row
 *        and leave the line's other sectors in L2 for the neighbouring groups' blocks.
 *
 * PTX ISA "Data Movement and Conversion Instructions: ld"
 * (`#data-movement-and-conversion-instructions-ld`), `.nc` with the `.L2::128B` prefetch size. PTX
 * ISA 7.4, sm_75 (CUDA 11.4 or newer): every GPU the course supports. Not CCCL 3.0's
 * `cuda::ptx::ld_nc_L2_128B(cuda::ptx::space_global, p)`: that one converts the address to the
 * global window first (`__cvta_generic_to_global`), and in day 06's loop the compiler then
 * computes each load's address from the row index instead of stepping a pointer, 3 more
 * instructions per batch of 8 loads (169 against 166 in the final kernel's loop, sm_90). The
 * word must not change while the kernel runs (`.nc`).
 * @param p a word of global memory, read-only for the kernel
 * @return its value
 */
__device__ __forceinline__ uint32_t hist_ptx_ld_nc_L2_128B(const uint32_t *p) {
    uint32_t v;
    asm("ld.global.nc.L2::128B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

/**
 * @brief Ask for @p bytes of global memory from @p p to be brought into L2 in the background
 *        (`cp.async.bulk.prefetch.L2.global`): a hint, no result, nothing to wait for.
 *
 * PTX ISA "Data Movement and Conversion Instructions: cp.async.bulk.prefetch"
 * (`#data-movement-and-conversion-instructions-cp-async-bulk-prefetch`). PTX ISA 8.0, sm_90 (CUDA
 * 12.0 or newer). @p p and @p bytes must be multiples of 16. Below sm_90 it does nothing (a
 * kernel that relies on it refuses those GPUs in its unsupported()). (CCCL 3.0 has no wrapper;
 * later CCCL releases document `cuda::ptx::cp_async_bulk_prefetch()`.)
 * @param p a global address, 16-byte aligned
 * @param bytes how many bytes, a multiple of 16
 */
__device__ __forceinline__ void hist_ptx_bulk_prefetch_L2(const void *p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
    (void)p, (void)bytes;
#endif
}

/**
 * @brief `atomicAdd()` on a word of shared memory named by its 32-bit shared address
 *        (`__cvta_generic_to_shared()`): `atom.shared.add.u32`, no conversion from a generic
 *        address in the loop (day 08's packed counters, whose addresses are computed as such).
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: atom"
 * (`#parallel-synchronization-and-communication-instructions-atom`), `.shared` state space with a
 * 32-bit address. PTX ISA 1.1 (`atom`; on `.shared`: sm_12 or newer): every GPU and toolkit the
 * course supports. Relaxed at CTA scope, as `atomicAdd()`.
 * @param addr the word's shared-memory address
 * @param inc what to add
 * @return the word before the add
 */
__device__ __forceinline__ uint32_t hist_ptx_shared_add(uint32_t addr, uint32_t inc) {
    uint32_t old;
    asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(inc) : "memory");
    return old;
}

/**
 * @brief Wait at named barrier @p BARRIER until @p THREADS threads of the block have arrived
 *        (`bar.sync BARRIER, THREADS`): a `__syncthreads()` for part of a block (day 06's step 9:
 *        its counting threads without the gatekeeper warp). Barrier 0 is `__syncthreads()`'s.
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: bar, barrier"
 * (`#parallel-synchronization-and-communication-instructions-bar-barrier`). PTX ISA 2.0 (a thread
 * count), sm_20: every GPU and toolkit the course supports. `bar.sync` is `barrier.sync.aligned`:
 * every thread of a warp executes the same one. (The toolkit's `__barrier_sync_count()` is the
 * unaligned `barrier.sync`.)
 * @tparam BARRIER the barrier, 1 to 15
 * @tparam THREADS the threads that meet there, a multiple of 32
 */
template <unsigned BARRIER, unsigned THREADS> __device__ __forceinline__ void hist_ptx_bar_sync() {
    static_assert(BARRIER >= 1 && BARRIER <= 15, "named barriers are 1 to 15 (0: __syncthreads)");
    static_assert(THREADS % 32 == 0, "a named barrier's thread count is whole warps");
    asm volatile("bar.sync %0, %1;" ::"n"(BARRIER), "n"(THREADS) : "memory");
}

/**
 * @brief The shared::cluster address of shared address @p addr of this block in block @p rank
 *        of the cluster (`mapa.shared::cluster.u32`): where `st.async` (`cuda::ptx::st_async`)
 *        and remote `mbarrier` operations reach another block's shared memory.
 *
 * PTX ISA "Data Movement and Conversion Instructions: mapa"
 * (`#data-movement-and-conversion-instructions-mapa`). PTX ISA 7.8, sm_90 (CUDA 11.8 or newer).
 * Below sm_90 it traps (a kernel that uses clusters refuses those GPUs in its unsupported()).
 * (CCCL 3.0 has no wrapper; `cooperative_groups::cluster_group::map_shared_rank()` maps a
 * generic pointer instead.)
 * @param addr a shared address of this block (`__cvta_generic_to_shared()`)
 * @param rank a block of the cluster
 * @return its shared::cluster address
 */
__device__ __forceinline__ uint32_t hist_ptx_mapa(uint32_t addr, uint32_t rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
#else
    (void)addr, (void)rank;
    __trap();
    return 0;
#endif
}

/**
 * @brief Store @p value at shared::cluster address @p addr (another block's shared memory, from
 *        hist_ptx_mapa()) and count its 4 bytes off the transaction count of the mbarrier at
 *        shared::cluster address @p remote_bar in that block once it has landed
 *        (`st.async.shared::cluster.mbarrier::complete_tx::bytes.u32`); the sender does not wait.
 *
 * PTX ISA "Data Movement and Conversion Instructions: st.async"
 * (\#data-movement-and-conversion-instructions-st-async). PTX ISA 8.1, sm_90 (CUDA 12.1 or
 * newer). CCCL 3.0's `cuda::ptx::st_async()` takes generic pointers and converts both to shared
 * addresses at every call; a kernel that keeps its destinations as 32-bit shared::cluster
 * addresses (day 09's exchange: one add a word sent) uses this form. Below sm_90 it traps.
 * @param addr where, a shared::cluster address
 * @param value the word
 * @param remote_bar the receiver's mbarrier, a shared::cluster address
 */
__device__ __forceinline__ void hist_ptx_st_async_u32(uint32_t addr, uint32_t value,
                                                      uint32_t remote_bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(addr),
        "r"(value), "r"(remote_bar)
        : "memory");
#else
    (void)addr, (void)value, (void)remote_bar;
    __trap();
#endif
}

/**
 * @brief Arrive at the cluster barrier without a fence of its own
 *        (`barrier.cluster.arrive.relaxed.aligned`): the caller orders what it must with a fence
 *        first (day 09's exchange: `cuda::ptx::fence_sync_restrict` on shared memory only).
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: barrier.cluster"
 * (`#parallel-synchronization-and-communication-instructions-barrier-cluster`). PTX ISA 8.0 (the
 * `.relaxed` qualifier), sm_90 (CUDA 12.0 or newer). `.aligned`: every thread of a warp executes
 * the same one. (CCCL 3.0's `cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed)` is the
 * unaligned form.) Below sm_90 it traps.
 */
__device__ __forceinline__ void hist_ptx_cluster_arrive_relaxed_aligned() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#else
    __trap();
#endif
}

/**
 * @brief Wait until every thread of the cluster has arrived at the cluster barrier
 *        (`barrier.cluster.wait.aligned`; acquire at cluster scope).
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: barrier.cluster"
 * (`#parallel-synchronization-and-communication-instructions-barrier-cluster`). PTX ISA 7.8, sm_90
 * (CUDA 11.8 or newer). `.aligned`: every thread of a warp executes the same one. (CCCL 3.0's
 * `cuda::ptx::barrier_cluster_wait()` is the unaligned form.) Below sm_90 it traps.
 */
__device__ __forceinline__ void hist_ptx_cluster_wait_aligned() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#else
    __trap();
#endif
}

/*
 * ---- The cuda::ptx functions an older CCCL lacks (CCCL_VERSION: 2003002 is CCCL 2.3.2) ----
 *
 * CCCL 2.4 (CUDA 12.5) brought `get_sreg_globaltimer()`, `mbarrier_init()` and
 * `fence_mbarrier_init()`; CCCL 2.8 (CUDA 12.9) `fence_sync_restrict()` (PTX ISA 8.6). With an
 * older CCCL (CUDA 12.4 has CCCL 2.3) each is defined here under its CCCL name and signature,
 * so that the lessons' code is the same for every toolkit; with CCCL 3.0 (CUDA 13.0) none of
 * this is compiled, and the kernels are what CCCL makes of them.
 */
#if CCCL_VERSION < 2008000
namespace cuda {
namespace ptx {
#if CCCL_VERSION < 2004000
/**
 * @brief `%globaltimer`, nanoseconds (`mov.u64 %0, %globaltimer`), as CCCL 2.4's function.
 *
 * PTX ISA "Special Registers: %globaltimer" (`#special-registers-globaltimer`). PTX ISA 3.1,
 * sm_30: every GPU and toolkit the course supports.
 * @return the timer
 */
__device__ __forceinline__ uint64_t get_sreg_globaltimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/**
 * @brief Set up the mbarrier at @p addr for @p count arrivals a phase
 *        (`mbarrier.init.shared.b64`), as CCCL 2.4's function.
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: mbarrier.init"
 * (`#parallel-synchronization-and-communication-instructions-mbarrier-init`). PTX ISA 7.0, sm_80
 * (CUDA 11.0 or newer). Below sm_80 it traps.
 * @param addr the mbarrier, in shared memory @param count the arrivals a phase expects
 */
__device__ __forceinline__ void mbarrier_init(uint64_t *addr, const uint32_t &count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mbarrier.init.shared.b64 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(addr)),
        "r"(count)
        : "memory");
#else
    (void)addr, (void)count;
    __trap();
#endif
}

/**
 * @brief Make this thread's mbarrier set-ups visible to the cluster's later operations on them
 *        (`fence.mbarrier_init.release.cluster`), as CCCL 2.4's function.
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: membar / fence"
 * (`#parallel-synchronization-and-communication-instructions-membar`). PTX ISA 8.0, sm_90 (CUDA
 * 12.0 or newer). Below sm_90 it traps.
 */
__device__ __forceinline__ void fence_mbarrier_init(sem_release_t, scope_cluster_t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
    __trap();
#endif
}
#endif /* CCCL_VERSION < 2004000 */

/**
 * @brief The release at cluster scope that `fence.release.sync_restrict::shared::cta.cluster`
 *        (PTX ISA 8.6: CUDA 12.8; CCCL's function: CCCL 2.8, CUDA 12.9) makes of this thread's
 *        accesses to its own block's shared memory, made with a fence every CUDA 12 toolkit
 *        has: `fence.acq_rel.cluster`.
 *
 * PTX ISA "Parallel Synchronization and Communication Instructions: membar / fence"
 * (`#parallel-synchronization-and-communication-instructions-membar`). PTX ISA 7.8, sm_90 (CUDA
 * 11.8 or newer). It is enough: it orders every access of the thread before it (the shared
 * memory ones among them) before its later accesses, at cluster scope, in both directions,
 * and followed by a relaxed arrive at the cluster barrier it is the release the barrier's
 * waiters acquire: the PTX ISA's own example of `barrier.cluster` ("use memory fence prior to
 * arrive for relaxed barrier") is this fence, then `barrier.cluster.arrive.relaxed.aligned`.
 * It costs more than the restricted one. In day 09's exchange kernel (sm_90, `cuobjdump -sass`)
 * ptxas 12.4 makes it `MEMBAR.ALL.CTA`, `MEMBAR.ALL.GPU`, `ERRBAR`, `CGAERRBAR`, `CCTL.IVALL`
 * before the arrive (`UCGABAR_ARV`): a wait for every memory operation of the thread in flight,
 * then the acquire half's invalidation of L1; ptxas 13.0 makes the restricted fence
 * `MEMBAR.ALL.CTA`, `FENCE.VIEW.ASYNC.S`. The other order a CUDA 12 toolkit has, the cluster
 * barrier's default arrive (`barrier.cluster.arrive.aligned`, a release), is `MEMBAR.ALL.CTA`,
 * `MEMBAR.ALL.GPU`, `ERRBAR`, `CGAERRBAR` before the arrive (ptxas 12.4): the same wait without
 * the invalidation, but it would change the lesson's code rather than one function here. Below
 * sm_90 it traps.
 */
__device__ __forceinline__ void fence_sync_restrict(sem_release_t, space_shared_t,
                                                    scope_cluster_t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
#else
    __trap();
#endif
}
} // namespace ptx
} // namespace cuda
#endif /* CCCL_VERSION < 2008000 */

#endif /* HIST_PTX_CUH */
