/**
 * @file registry.cu
 * @brief Day 06's registry (docs/LESSON_CONTRACT.md): the lesson's steps in order, each with its
 *        code (steps.cu: steps 1-6; final.cu: steps 7 and 8), its constraints and its target.
 *        README.md has each step's prediction and measurement; the last entry is the answer.
 */
#include "plan.cuh"
#include "roofline.cuh"

/** @brief Constraints of steps 1, 3-6 (32-bit loads). */
#define R6_VEC4_CONSTRAINTS "byte histogram only; channels divisible by 4"

/* C linkage, so the runner and the tests find it. */
HIST_DECLARE_REGISTRY(day06);

/** @brief The lesson's registry: one entry per implementation, in the lesson's order. */
const hist_impl day06_impls[] = {
    {"gpu_r6_v1_conflict_free", "day06_roofline", HIST_DEVICE,
     "step 1: [bin][slot] layout, no bank conflicts for any data; 32-bit loads 8 deep; "
     "scattered atomic flush",
     R6_VEC4_CONSTRAINTS, unsupported_vec4, NULL, run_step1, 0.70, 0, HIST_ROOF_BOUND,
     describe_step_plan},
    {"gpu_r6_v2_wide_loads", "day06_roofline", HIST_DEVICE,
     "step 2: as step 1 with 16-byte loads, 4 deep",
     "byte histogram only; channels divisible by 16", unsupported_vec16, NULL, run_step2, 0.70, 0,
     HIST_ROOF_BOUND, describe_step_plan},
    {"gpu_r6_v3_l2_prefetch", "day06_roofline", HIST_DEVICE,
     "step 3: as step 1, the input streamed into L2 two batches ahead by bulk prefetch",
     "byte histogram only; channels divisible by 4; Hopper (sm_90) only", unsupported_prefetch,
     NULL, run_step3, 0.70, 0, HIST_ROOF_BOUND, describe_step_plan},
    {"gpu_r6_v4_partials", "day06_roofline", HIST_DEVICE,
     "step 4: as step 1, partials stored (scattered) and summed by a second kernel",
     R6_VEC4_CONSTRAINTS, unsupported_vec4, partials_bytes, run_step4, 0.65, 0, HIST_ROOF_BOUND,
     describe_step_plan},
    {"gpu_r6_v5_two_kernels", "day06_roofline", HIST_DEVICE,
     "step 5: partials stored coalesced through a transposition buffer, then summed",
     R6_VEC4_CONSTRAINTS, unsupported_vec4, partials_bytes, run_step5, 0.85, 0, HIST_ROOF_BOUND,
     describe_step_plan},
    {"gpu_r6_v6_one_kernel", "day06_roofline", HIST_DEVICE,
     "step 6: conflict-free counting, 32-bit loads 8 deep, one kernel with a coalesced atomic "
     "flush",
     R6_VEC4_CONSTRAINTS, unsupported_vec4, NULL, run_step6, 0.85, 0, HIST_ROOF_BOUND,
     describe_step_plan},
    {"gpu_r6_v7_any_shape", "day06_roofline", HIST_DEVICE,
     "step 7: step 6 for any channel count, row alignment and binning; output zeroed by a memset",
     "any shape and binning (shared memory permitting)", unsupported_any, NULL, run_any_memset,
     0.85, 0, HIST_ROOF_BOUND, describe_any_plan},
    {"gpu_roofline", "day06_roofline", HIST_DEVICE,
     "final (step 8): step 7 zeroing the output itself, its last rows handed out as blocks ask",
     "any shape and binning (shared memory permitting)", unsupported_any, any_workspace, run_any,
     0.85, 0, HIST_ROOF_BOUND, describe_any_plan},
};

/** @brief How many entries day06_impls holds. */
const size_t day06_impl_count = sizeof day06_impls / sizeof day06_impls[0];
