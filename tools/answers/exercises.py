#!/usr/bin/env python3
"""Measure every exercise of the course (instructor edition only): `make answers` on a lab GPU.

Each exercise below is a list of variants of the course (the sources as they are, or with the patch
variants/NAME.patch applied: the change the exercise asks for) and the commands that answer it. Every
variant is copied from the working tree into its own folder under build/answers/, built there
(all in parallel), then run one after the other so that the timings never overlap. Each
exercise's output goes to docs/answers/data/<exercise>.txt with the GPU, the date and the exact
commands; the lesson's ANSWERS.md quotes it.

A patch that does not apply stops the script: an exercise never silently measures the unchanged
code. `--check` (CI) applies every patch with `git apply --check`.
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

# ---- the variants: the sources as they are ("base"), or with one patch of variants/NAME.patch,
#      the change an exercise asks for (a unified diff; CI checks that each still applies) ----

PATCHES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "variants")
VARIANTS = ["base"] + sorted(f[:-len(".patch")] for f in os.listdir(PATCHES) if f.endswith(".patch"))


def patch_of(variant):
    """The variant's patch file, or None for the sources as they are."""
    return None if variant == "base" else os.path.join(PATCHES, variant + ".patch")


def files_of(variant):
    """The files a variant's patch changes."""
    if variant == "base":
        return []
    return [line[len("+++ b/"):].strip() for line in open(patch_of(variant))
            if line.startswith("+++ b/")]


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
    """Copy the tree into build/answers/<variant> and apply the variant's patch."""
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
    if patch_of(variant):
        # the copy lies inside this repository: without the ceiling, git would apply the patch
        # relative to the repository's root and skip every path outside the copy, silently
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=WORK)
        r = subprocess.run(["git", "apply", "--verbose", patch_of(variant)], cwd=dest,
                           capture_output=True, text=True, env=env)
        if r.returncode != 0 or "Skipped patch" in r.stderr:
            sys.exit(f"exercises.py: variant {variant}: its patch does not apply:\n{r.stderr}")
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
    """--check (CI): every variant's patch still applies to the sources as they are, and every
    variant an exercise names exists."""
    bad = [v for v in VARIANTS if patch_of(v) and subprocess.run(
        ["git", "apply", "--check", patch_of(v)], cwd=ROOT, capture_output=True).returncode != 0]
    bad += [v for runs in EXERCISES.values() for v, _, _, _ in runs if v not in VARIANTS]
    for v in bad:
        print(f"exercises.py: variant {v}: its patch no longer applies (or is missing)",
              file=sys.stderr)
    if not bad:
        print(f"exercises.py: the patches of all {len(VARIANTS) - 1} variants apply")
    return 1 if bad else 0


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
            edits = (f"tools/answers/variants/{variant}.patch: {', '.join(files_of(variant))}"
                     if patch_of(variant) else "none")
            lines.append(f"\n## variant {variant} (edits: {edits})\n$ {cmd}")
            r = sh(cmd, dest)
            lines.append(r.stdout.rstrip())
            print(f"{name} / {variant}: {cmd} (exit {r.returncode})", flush=True)
        with open(os.path.join(OUT, f"{name}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
