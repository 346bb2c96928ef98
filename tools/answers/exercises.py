#!/usr/bin/env python3
"""Measure every exercise of the course (instructor edition only): `make answers` on a lab GPU.

Each exercise below is a list of variants of the course (the sources as they are, or with a few
exact text edits: the change the exercise asks for) and the commands that answer it. Every
variant is copied from the working tree into its own folder under build/answers/, built there
(all in parallel), then run one after the other so that the timings never overlap. Each
exercise's output goes to docs/answers/data/<exercise>.txt with the GPU, the date and the exact
commands; the lesson's ANSWERS.md quotes it.

An edit whose text is not found stops the script: an exercise never silently measures the
unchanged code.
"""
import datetime
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "docs", "answers", "data")
WORK = os.path.join(ROOT, "build", "answers")

# ---- the variants: (file, old text, new text) edits ----

D01 = "day01_cpu/cpu_hist.c"
D02 = "day02_naive/naive.cu"
D03 = "day03_privatized/privatized.cu"
D04 = "day04_shared/shared.cu"
D05 = "day05_optimized_h100/optimized.cu"
D06 = "day06_roofline/roofline.cuh"
D06_STEPS = "day06_roofline/steps.cu"
D06_FINAL = "day06_roofline/final.cu"

BYTE_LOOP = r'''
/* exercise 2: the plain byte loop, no table */
static hist_status run_byte_loop(const hist_args *a) {
    const hist_problem *p = a->problem;
    memset(a->hist, 0, (size_t)hist_counters(p) * sizeof(uint32_t));
    for (uint64_t r = 0; r < p->rows; ++r) {
        const uint8_t *row = a->samples + r * p->channels;
        for (uint32_t c = 0; c < p->channels; ++c)
            a->hist[(size_t)c * 256 + row[c]]++;
    }
    return HIST_OK;
}
static const char *byte_only(const hist_problem *p, const hist_device *dev) {
    (void)dev;
    return hist_is_byte_binning(p->binning) ? NULL : "byte histogram only";
}

/* The registry (docs/LESSON_CONTRACT.md)'''

CONTIGUOUS = '''    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    const uint64_t per_thread = (n_samples + threads - 1) / threads;
    uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * per_thread;
    const uint64_t end = i + per_thread < n_samples ? i + per_thread : n_samples;
    uint32_t channel = (uint32_t)(i % channels);
    for (; i < end; ++i) {
        const int bin = hist_bin_of(d_samples[i], map);
        if (bin >= 0)
            atomicAdd(&d_hist[(size_t)channel * bins + bin], 1u);
        if (++channel == channels)
            channel = 0;
    }'''

COARSE_BODY = '''    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* the channel advances by stride % channels each step: one division per thread, not per
       sample */
    const uint32_t channel_step = (uint32_t)(stride % channels);
    uint32_t channel = (uint32_t)(i % channels);
    for (; i < n_samples; i += stride) {
        const int bin = hist_bin_of(d_samples[i], map);
        if (bin >= 0)
            atomicAdd(&d_hist[(size_t)channel * bins + bin], 1u);
        channel += channel_step;
        if (channel >= channels)
            channel -= channels;
    }'''

VARIANTS = {
    "base": [],
    "d01_stride288": [(D01, "    if (lines % 2 == 0)\n        lines += 1;\n", "    lines += 1;\n")],
    "d01_stride256": [(D01, "    uint32_t lines = (bins + 1 + 15) / 16;\n    if (lines % 2 == 0)\n        lines += 1;\n    return lines * 16;",
                       "    return bins;")],
    "d01_byte_loop": [
        (D01, "\n/* The registry (docs/LESSON_CONTRACT.md)", BYTE_LOOP),
        (D01, '''     "any shape and binning", NULL, NULL, run_private, 0.5, 0, HIST_ROOF_BOUND, NULL},''',
         '''     "any shape and binning", NULL, NULL, run_private, 0.5, 0, HIST_ROOF_BOUND, NULL},
    {"cpu_byte_loop", "day01_cpu", HIST_HOST, "hist[c * 256 + v]++, no table",
     "byte histogram only", byte_only, NULL, run_byte_loop, 0, 0, HIST_ROOF_BOUND, NULL},'''),
    ],
    "d01_interleave1": [(D01, "#define CPU_MIN_INTERLEAVE 4", "#define CPU_MIN_INTERLEAVE 1")],
    "d02_contiguous": [(D02, COARSE_BODY, CONTIGUOUS)],
    "d02_bins_major": [(D02, "atomicAdd(&d_hist[(size_t)channel * bins + bin], 1u);",
                        "atomicAdd(&d_hist[(size_t)bin * channels + channel], 1u);")],
    "d03_ws24": [(D03, "#define PRIVATE_MAX_WORKSPACE (UINT64_C(1) << 30)",
                  "#define PRIVATE_MAX_WORKSPACE (UINT64_C(24) << 20)")],
    "d03_no_memset": [(D03, "    HIST_CUDA_TRY(cudaMemsetAsync(d_private, 0, private_workspace(p, a->device)));\n", "")],
    "d04_blocks2": [(D04, "#define SHARED_BLOCKS_PER_SM 3", "#define SHARED_BLOCKS_PER_SM 2")],
    "d04_blocks1": [(D04, "#define SHARED_BLOCKS_PER_SM 3", "#define SHARED_BLOCKS_PER_SM 1")],
    "d04_pad257": [
        # one word of padding per channel: the count, the zeroing and the flush skip it
        (D04, "uint32_t *s_channel = s_hist + ch * bins;", "uint32_t *s_channel = s_hist + ch * (bins + 1);"),
        (D04, "zero_shared(s_hist, t.group_channels * bins);", "zero_shared(s_hist, t.group_channels * (bins + 1));"),
        (D04, """    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x)
        if (s_hist[k] > 0)
            atomicAdd(&d_hist_group[k], s_hist[k]);""", """    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
        const uint32_t count = s_hist[k / bins * (bins + 1) + k % bins];
        if (count > 0)
            atomicAdd(&d_hist_group[k], count);
    }"""),
        (D04, "flush_shared(s_hist, t.group_channels * bins, d_hist + (size_t)t.c0 * bins);",
         "flush_shared(s_hist, t.group_channels * bins, d_hist + (size_t)t.c0 * bins, bins);"),
        (D04, "                                             uint32_t *d_hist_group) {",
         "                                             uint32_t *d_hist_group, uint32_t bins) {"),
        (D04, "plan.smem_bytes = (size_t)plan.group * bins * sizeof(uint32_t);",
         "plan.smem_bytes = (size_t)plan.group * (bins + 1) * sizeof(uint32_t);"),
    ],
    "d05_no_pad": [(D05, "return ch * 257 + (ch >> 2);", "return ch * 256;")],
    "d05_blocks1": [(D05, "#define D05_BLOCKS_PER_SM 2", "#define D05_BLOCKS_PER_SM 1")],
    "d06_no_memset": [(D06_STEPS, '''    if (MERGE == MERGE_ATOMIC)
        HIST_CUDA_TRY(cudaMemsetAsync(a->hist, 0, hist_counters(p) * sizeof(uint32_t)));
''', "")],
    "d06_no_pad": [
        (D06_STEPS,
         "#define R6_STEP_SMEM(CH) ((size_t)R6_BINS * (CH)*4 + (size_t)(CH) * (R6_FLUSH_BINS + 1) * 4)",
         "#define R6_STEP_SMEM(CH) ((size_t)R6_BINS * (CH)*4 + (size_t)(CH) * R6_FLUSH_BINS * 4)"),
        (D06_STEPS, "const uint32_t pad = R6_FLUSH_BINS + 1;", "const uint32_t pad = R6_FLUSH_BINS;"),
        (D06_FINAL, "const uint32_t pad = FB + 1;", "const uint32_t pad = FB;"),
    ],
}

# ---- the exercises: (variant, lesson, kind, arguments) runs; kind "run" or "profile" ----

R = "--reps 20"
EXERCISES = {
    "day01_ex1_padding": [
        (v, "01", "run", f"--impl cpu_private --threads 1 --reps 5 {d}")
        for v in ("base", "d01_stride288", "d01_stride256") for d in ("--dist constant", "")],
    "day01_ex2_byte_loop": [
        ("d01_byte_loop", "01", "run", "--impl cpu_reference,cpu_byte_loop --reps 5 " + d)
        for d in ("", "--dist constant")],
    "day01_ex3_one_channel": [
        (v, "01", "run", "--preset small-binned --rows 100000000 --dist constant --threads 1 --reps 5")
        for v in ("base", "d01_interleave1")],
    "day02_ex1_contiguous": [
        (v, "02", "run", f"--impl gpu_naive_coarse {R}") for v in ("base", "d02_contiguous")],
    "day02_ex2_bins_major": [
        (v, "02", "run", f"--impl gpu_naive,gpu_naive_coarse {R} {d}")
        for v in ("base", "d02_bins_major") for d in ("", "--dist constant", "--dist contention:90")],
    "day02_ex3_small": [
        ("base", "00", "run", "--preset small-binned --impl cpu_reference,gpu_naive --reps 50")],
    "day03_ex1_l2_copies": [
        (v, "03", "run", f"--impl gpu_private_atomics,gpu_private_reduce --reps 5")
        for v in ("base", "d03_ws24")],
    "day03_ex2_zeroing": [
        (v, "03", "run", "--impl gpu_private_atomics,gpu_private_reduce --reps 5")
        for v in ("base", "d03_no_memset")],
    "day03_ex3_contention": [
        ("base", "00", "run", f"--impl gpu_naive,gpu_naive_coarse,gpu_private_atomics,gpu_private_reduce --reps 5 {d}")
        for d in ("", "--dist constant")],
    "day04_ex1_group_size": [
        (v, "04", "run", f"--impl gpu_shared,gpu_shared_aggregate {R} {d}")
        for v in ("base", "d04_blocks2", "d04_blocks1") for d in ("", "--dist constant")],
    "day04_ex2_padding": [
        (v, "04", "run", f"--impl gpu_shared {R} {d}")
        for v in ("base", "d04_pad257") for d in ("", "--dist constant")],
    "day04_ex3_aggregation": [
        ("base", "04", "run", f"--impl gpu_shared,gpu_shared_aggregate {R} --dist runs:{n}")
        for n in (1, 2, 4, 8, 16, 64)],
    "day05_ex1_constant_conflicts": [
        ("base", "05", "profile", f"--reps 1 --warmup 0 {d}") for d in ("", "--dist constant")],
    "day05_ex2_no_padding": [
        (v, "05", "run", f"{R} {d}") for v in ("base", "d05_no_pad") for d in ("", "--dist constant")]
        + [("d05_no_pad", "05", "profile", "--reps 1 --warmup 0")],
    "day05_ex3_half_the_chunks": [
        (v, "05", k, f"{R}" if k == "run" else "--reps 1 --warmup 0")
        for v in ("base", "d05_blocks1") for k in ("run", "profile")],
    "day06_ex1_fuse_zeroing": [
        (v, "06", "run", f"--impl gpu_r6_v6_one_kernel {R}") for v in ("base", "d06_no_memset")],
    "day06_ex2_no_pad": [
        (v, "06", "run", f"--impl gpu_r6_v5_two_kernels,gpu_r6_v6_one_kernel {R} {d}")
        for v in ("base", "d06_no_pad") for d in ("", "--dist constant")],
    "day06_ex3_16_bit": [("base", "06", "probe", "")],
    "day06_ex4_scattered_flush": [
        ("base", "06", "run", f"--impl gpu_r6_v1_conflict_free,gpu_r6_v6_one_kernel {R} {d}")
        for d in ("", "--dist runs:64", "--dist contention:50", "--dist constant")],
}

LESSON = {"01": "day01_cpu", "02": "day02_naive", "03": "day03_privatized", "04": "day04_shared",
          "05": "day05_optimized_h100", "06": "day06_roofline"}


def sh(cmd, cwd, log=None):
    r = subprocess.run(cmd, cwd=cwd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if log is not None:
        log.append(r.stdout)
    return r


def prepare(variant):
    """Copy the tree into build/answers/<variant> and apply the variant's edits."""
    dest = os.path.join(WORK, variant)
    shutil.rmtree(dest, ignore_errors=True)
    files = subprocess.run("git ls-files --cached --others --exclude-standard", cwd=ROOT,
                           shell=True, stdout=subprocess.PIPE, text=True, check=True).stdout.split("\n")
    for f in filter(None, files):
        src = os.path.join(ROOT, f)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f))
    for path, old, new in VARIANTS[variant]:
        p = os.path.join(dest, path)
        text = open(p).read()
        if old not in text:
            sys.exit(f"exercises.py: variant {variant}: text not found in {path}:\n{old}")
        open(p, "w").write(text.replace(old, new))
    return dest


def build(variant, days):
    dest = prepare(variant)
    out = []
    for d in sorted(days):
        goal = "all" if d == "00" else f"all DAY={d}"
        r = sh(f"make -j4 {goal}", dest, out)
        if r.returncode != 0:
            return variant, False, "".join(out)
    return variant, True, ""


def check_edits():
    """--check (CI): every variant's edits still apply to the sources as they are."""
    missing = [(v, path) for v, edits in VARIANTS.items() for path, old, _ in edits
               if old not in open(os.path.join(ROOT, path)).read()]
    for v, path in missing:
        print(f"exercises.py: variant {v}: its text is no longer in {path}", file=sys.stderr)
    if not missing:
        print(f"exercises.py: the edits of all {len(VARIANTS)} variants apply")
    return 1 if missing else 0


def main():
    if sys.argv[1:] == ["--check"]:
        sys.exit(check_edits())
    only = sys.argv[1:]
    exercises = {k: v for k, v in EXERCISES.items() if not only or any(k.startswith(o) for o in only)}
    needed = {}
    for runs in exercises.values():
        for variant, day, _, _ in runs:
            needed.setdefault(variant, set()).add(day)
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 4) // 4)) as pool:
        for variant, ok, log in pool.map(lambda kv: build(*kv), needed.items()):
            print(f"built {variant}" if ok else f"BUILD FAILED {variant}:\n{log}", flush=True)
            if not ok:
                sys.exit(1)
    gpu = subprocess.run("nvidia-smi --query-gpu=name --format=csv,noheader", shell=True,
                         stdout=subprocess.PIPE, text=True).stdout.strip() or "no GPU"
    # a copied tree may carry a stale .git: COURSE_COMMIT names the commit that was copied
    commit = os.environ.get("COURSE_COMMIT") or subprocess.run(
        "git rev-parse --short HEAD", cwd=ROOT, shell=True, stdout=subprocess.PIPE,
        text=True).stdout.strip()
    for name, runs in exercises.items():
        lines = [f"# {name}: measured {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC on {gpu}, "
                 f"course {commit}, by tools/answers/exercises.py"]
        for variant, day, kind, args in runs:
            dest = os.path.join(WORK, variant)
            if kind == "run":
                prog = f"./build/{LESSON[day]}" if day != "00" else "./build/course"
                cmd = f"{prog} {args}"
            elif kind == "probe":
                cmd = "make -s probe DAY=06"
            else:
                cmd = f'make -s profile DAY={day} PROFILE_ARGS="{args}"'
            edits = "; ".join(f"{p}: {o.strip()[:60]!r} -> {n.strip()[:60]!r}"
                              for p, o, n in VARIANTS[variant]) or "none"
            lines.append(f"\n## variant {variant} (edits: {edits})\n$ {cmd}")
            r = sh(cmd, dest)
            lines.append(r.stdout.rstrip())
            print(f"{name} / {variant}: {cmd} (exit {r.returncode})", flush=True)
        with open(os.path.join(OUT, f"{name}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
