#!/bin/sh
# four-gpus.sh OUTDIR [STEPS]: the run of a machine of one, two or four GPUs (issue 56), in under
# nine minutes, every file written to OUTDIR: the build, day 07's scaling both ways and where its
# time goes, the ranks' reduce on two and four GPUs, day 07's tests, make sanitize with its time,
# then the other lessons' tests as far as the time allows. The measurements come first, on a
# quiet machine. STEPS (default "build gpus ranks sanitize test07 tests") picks some. On an
# offline machine, carry .deps/ (CMocka's packages; README: "Offline machines"); where the copy has
# no .git, set COURSE_COMMIT to the commit carried, so that every kept file names it.
#   build     make -j all test-programs REQUIRE_NCCL=1 REQUIRE_MPI=1 (OUTDIR/build.log)
#   gpus      tools/results/measure.sh's gpus step: TAG_gpus.csv (weak and strong scaling, each
#             against one GPU in the same run) and TAG_gpus-phases.txt (where one call's time goes)
#   ranks     tools/results/measure.sh's reduce step: ranks under mpirun on 2 and on 4 GPUs (those
#             the machine has), every way to sum, 50 repetitions, the reduce's share of the job
#             and its time on the GPUs after the count (TAG_reduce.csv)
#   test07    make test DAY=07 REQUIRE_GPU=1 REQUIRE_NCCL=1 REQUIRE_MPI=1 (OUTDIR/test07.log)
#   sanitize  tools/results/measure.sh's sanitize step (TAG_sanitize.txt, its time on its last line)
#             and every run's seconds and GPU (sanitize-times.txt)
#   measure-STEP  tools/results/measure.sh's STEP (scale, ranks, bigger, ...): its TAG_* files
#   tests     every other test program (the other lessons, the harness, the properties, the wrong
#             kernels) with REQUIRE_GPU=1, for the time left (OUTDIR/tests.log); what did not run
#             in time is said
# TAG names the machine: h100, h200x2, h200x4 (measure.sh's rule). FOUR_GPUS_SECONDS (default 535)
# is the budget: a step that may not finish in what is left is skipped, with the command that
# runs it alone (on the same machine, the build kept: `four-gpus.sh OUTDIR2 STEP`).
set -u
out=${1:?usage: four-gpus.sh OUTDIR [STEPS]}
steps=${2:-build gpus ranks sanitize test07 tests}
budget=${FOUR_GPUS_SECONDS:-535}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 1
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
left() { echo $((budget - $(elapsed))); }
say() { echo "four-gpus: [$(elapsed) s] $*" | tee -a "$out/summary.txt"; }
# NEED STEP: whether STEP (NEED seconds at most) fits in what is left; says so when it does not
fits() {
    [ "$(left)" -ge "$1" ] && return 0
    say "$2 skipped: $(left) s left of $budget, it needs up to $1 s (alone: tools/lab/four-gpus.sh OUTDIR2 $2)"
    return 1
}

export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ -z "${COURSE_COMMIT:-}" ] && ! git rev-parse --short HEAD >/dev/null 2>&1; then
    say "no .git and no COURSE_COMMIT: the kept files will name no commit (set COURSE_COMMIT)"
fi
# every make of the run, measure.sh's too, sees the same variables (CMOCKA_ROOT is in the build's
# flags: a make without it would rebuild everything)
export REQUIRE_NCCL=1 REQUIRE_MPI=1
if ls .deps/*.deb >/dev/null 2>&1; then
    mkdir -p /tmp/sysroot && for f in .deps/*.deb; do dpkg -x "$f" /tmp/sysroot; done
    export CMOCKA_ROOT=/tmp/sysroot/usr
fi
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
    ngpus=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else
    ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
tag=$(echo "$gpu" | grep -oE '[A-Z]{1,2}[0-9]{2,3}' | head -n 1 | tr '[:upper:]' '[:lower:]')
tag=$tag$([ "$ngpus" -le 1 ] || echo "x$ngpus")
{ echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), course ${COURSE_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo '?')}"
  nvidia-smi; nvidia-smi topo -m; } >"$out/machine.txt" 2>&1
say "$ngpus x $gpu (tag $tag); steps: $steps; budget $budget s"

build=""
for step in $steps; do
    [ -n "$build" ] || build=build/$(dirname "$(readlink build/course 2>/dev/null || echo sm_90/course)")
    case $step in
    build)
        if make -j"$(nproc)" all test-programs >"$out/build.log" 2>&1; then
            say "build: done"
        else
            say "build: FAILED (build.log)"; tail -n 20 "$out/build.log"; exit 1
        fi
        build=build/$(dirname "$(readlink build/course)") ;;
    gpus)
        fits 90 gpus || continue
        if tools/results/measure.sh "$build" "$out" gpus >"$out/gpus.log" 2>&1; then
            say "gpus: ${tag}_gpus.csv, ${tag}_gpus-phases.txt"
        else
            say "gpus: FAILED (gpus.log)"; tail -n 5 "$out/gpus.log"
            rm -f "$out"/*.part "$out"/*.tmp
        fi
        cat "$out/${tag}_gpus-phases.txt" 2>/dev/null ;;
    ranks)
        [ "$ngpus" -ge 2 ] || { say "ranks: skipped (one GPU: a rank per GPU needs two)"; continue; }
        fits $((100 * (ngpus >= 4 ? 2 : 1))) ranks || continue
        if tools/results/measure.sh "$build" "$out" reduce >"$out/ranks.log" 2>&1; then
            say "ranks: ${tag}_reduce.csv"
        else
            say "ranks: FAILED (ranks.log)"; tail -n 5 "$out/ranks.log"
        fi
        grep -v '^#' "$out/${tag}_reduce.csv" 2>/dev/null | cut -d, -f1,3,6,11-16 ;;
    test07)
        fits 120 test07 || continue
        make test DAY=07 REQUIRE_GPU=1 >"$out/test07.log" 2>&1
        rc=$?
        say "test07: $(grep '^tests:' "$out/test07.log" | tail -n 1) (exit $rc)"
        grep -E '^day07_scale:|^tests:' "$out/test07.log" ;;
    sanitize)
        fits 250 sanitize || continue
        t0=$(date +%s)
        SANITIZE_TIMES=$out/sanitize-times.txt tools/results/measure.sh "$build" "$out" sanitize \
            >"$out/sanitize.log" 2>&1
        say "sanitize: $(($(date +%s) - t0)) s in all; $(tail -n 1 "$out/${tag}_sanitize.txt" 2>/dev/null)"
        grep -v '^#' "$out/${tag}_sanitize.txt" 2>/dev/null ;;
    tests)
        fits 60 tests || continue
        bins="" # make test's order: the harness, each lesson's two programs, the properties, the wrong kernels
        for t in "$build"/tests/test_harness "$build"/tests/test_gpu_harness \
            $(for d in "$build"/day[0-9][0-9]_*/; do echo "${d}test_lesson" "$d"test_day[0-9]*; done) \
            "$build"/tests/test_properties "$build"/tests/test_wrong; do
            case $t in */day07_scale/*) continue ;; esac
            [ -x "$t" ] && bins="$bins $t"
        done
        [ -n "$bins" ] || { say "tests: no test program built (the build step builds them)"; continue; }
        # shellcheck disable=SC2086
        HIST_GRADES=$build/grades HIST_REQUIRE_GPU=1 timeout "$(($(left) - 5))" \
            tests/run-tests.sh "$build/test-logs" $bins >"$out/tests.log" 2>&1
        rc=$?
        [ "$rc" != 124 ] || echo "four-gpus: the time ran out: the lessons not on a line above were not tested" >>"$out/tests.log"
        say "tests: $(grep '^tests:' "$out/tests.log" | tail -n 1) (exit $rc)"
        grep -E '^[a-z].*: .*passed|^tests:|time ran out' "$out/tests.log" ;;
    measure-*)
        # one of measure.sh's steps (scale, ranks, bigger, ...), its files in OUTDIR
        m=${step#measure-}
        fits 150 "$step" || continue
        if tools/results/measure.sh "$build" "$out" "$m" >"$out/$step.log" 2>&1; then
            say "$step: $(grep -o 'measure: [^ ]*' "$out/$step.log" | sed 's|.*/||' | paste -sd' ')"
        else
            say "$step: FAILED ($step.log)"; tail -n 5 "$out/$step.log"
        fi ;;
    *) echo "four-gpus: unknown step '$step' (build gpus ranks test07 sanitize tests measure-STEP)" >&2; exit 2 ;;
    esac
done
say "done; the files: $(cd "$out" && printf '%s ' *)"
