#!/usr/bin/env bash
# sanitize.sh COURSE_BIN [NCCL_INIT]: compute-sanitizer's memcheck (with --leak-check full),
# racecheck, initcheck and synccheck over every GPU implementation of the course, SANITIZE_JOBS runs
# at a time (default: one per core). A run is one lesson's program with that lesson's
# implementations (--impl): the lessons run side by side, and no run waits for the whole course.
# The shapes:
#   - shape 0, a partial channel group with rows enough for a dynamic tile of day 06's final
#     kernel (--rows 4100 --channels 528): every implementation under the uniform distribution
#     by all four tools; under the other three, by racecheck and memcheck, the implementations that
#     choose a shared-memory plan (their data-dependent paths; a distribution changes no
#     allocation or barrier);
#   - shape 1, one channel with a non-byte binning (--preset small-binned --rows 3000): all four;
#   - shape 0 under each emulated GPU of SANITIZE_LIMITS (default: t4 a100 rtx4090, the three plans
#     day 06's final kernel can take besides the H100's): racecheck and memcheck of the
#     implementations that choose a plan from the GPU;
#   - days 08 and 09's 16-bit samples, short so that racecheck stays quick: shape u16, one channel
#     of 65,536 bins (SANITIZE_U16, default --bits 16 --rows 2000 --channels 1), and shape u16x8,
#     eight of them, a histogram of 1 MiB of packed counters that takes several passes
#     (SANITIZE_U16X8, default --bits 16 --rows 600 --channels 8): all four tools; and u16 under
#     each emulated GPU of SANITIZE_LIMITS16 (default t4, where 65,536 packed counters take two
#     passes too): racecheck and memcheck of those that choose a plan.
# The implementations of SANITIZE_OWN (default gpu_wide gpu_exchange16: day 08's final kernel and
# day 09's exchange, the longest under racecheck) run in runs of their own, each beside its
# lesson's other implementations, not after them.
# Racecheck sees day 07's host-input pipelines, whose kernel is day 06's final one (checked there
# on every distribution and plan), on the uniform distribution of each shape only.
# Which implementations run on a shape, and which chose a plan, come from one plain run of it by
# the course runner (none it skipped, outside their constraints). SANITIZE_ALONE (default
# gpus_nccl, NCCL's communicators: NCCL takes 30 s to initialise under memcheck, more over several
# GPUs) run alone, started first, beside the plain runs, by memcheck and initcheck only: their kernels are day 06's, checked with its lesson, and NCCL's;
# initcheck checks only the course's kernels there (NCCL_INITCHECK_SKIP): NCCL's protocols poll
# flag words before the peer writes them, which initcheck reports as uninitialised reads (with
# two GPUs; under NCCL_PROTO=Simple too).
# Fails on any report but NCCL's own handled errors (cudaErrorNoKernelImageForDevice and, with
# several GPUs, cudaErrorPeerAccessAlreadyEnabled, each from a libnccl frame), which NCCL_INIT
# (tests/sanitize/nccl_init.cu, built where NCCL is found) shows alone first, with NCCL's
# uninitialised reads, every one inside an NCCL kernel. SANITIZE_TOOLS picks some of the four
# tools; SANITIZE_TIMES=FILE keeps every run's seconds.
# On a machine of several GPUs the runs are spread over them, one GPU each (CUDA_VISIBLE_DEVICES,
# in turn in the plan's order, the longest first); NCCL's runs use the first SANITIZE_NCCL_GPUS
# (default 2: their code is the same on every GPU count, and NCCL's start under the tools grows
# with the GPUs, from 71 s on one to some 120 s on four). The first lines say which GPUs ran what.
set -u
bin=$1
repro=${2:-}
command -v compute-sanitizer >/dev/null 2>&1 ||
    { echo "sanitize: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2; exit 1; }
if "$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | grep -q "skipped: no GPU"; then
    echo "sanitize: needs a CUDA device; none here" >&2
    exit 1
fi
start=$(date +%s)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# the GPUs it sees (CUDA_VISIBLE_DEVICES' list, else nvidia-smi's indices), the runs spread over
# them; NCCL's on the first SANITIZE_NCCL_GPUS
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
    gpu_ids=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' ' ')
else
    gpu_ids=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ' | paste -sd' ')
fi
[ -n "$gpu_ids" ] || gpu_ids=0
ngpus=$(echo "$gpu_ids" | wc -w)
nccl_gpus=$(echo "$gpu_ids" | tr ' ' '\n' | head -n "${SANITIZE_NCCL_GPUS:-2}" | paste -sd,)
# GPU K of the list, K counted from 0 (in turn: K modulo the GPUs)
gpu_at() { echo "$gpu_ids" | tr ' ' '\n' | sed -n "$(($1 % ngpus + 1))p"; }
# the GPU as the harness reports it ("... limited to rtx4090" under GPU_LIMITS)
echo "sanitize: on $("$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | sed -n 's/.*; GPU: //p') ($ngpus GPU$([ "$ngpus" = 1 ] || echo s) visible: $gpu_ids; the runs spread over $([ "$ngpus" = 1 ] && echo it || echo them), one GPU a run; NCCL's runs on GPU$(case $nccl_gpus in *,*) echo s ;; esac) $nccl_gpus)"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader 2>/dev/null |
    while IFS=, read -r index name bus; do
        case " $gpu_ids " in *" $index "*) echo "sanitize: GPU $index:$name,$bus" ;; esac
    done

# NCCL's own handled errors: on initialisation it asks the runtime about each of its kernels
# (cudaFuncGetAttributes in ncclInitKernelsForDevice) and skips those built for other GPUs
# (cudaErrorNoKernelImageForDevice); between GPUs it enables peer access for each connection and
# takes "already enabled" as done (cudaDeviceEnablePeerAccess in p2pMap,
# cudaErrorPeerAccessAlreadyEnabled). Exactly those reports, whose first host frame is in libnccl,
# are excluded and counted; every other report fails the run. Each kind is known by its error
# number (memcheck's line names the error, or for some reports a host function in its place).
# nccl_handled [KIND]: their count (KIND: NUMBER:NAME).
NCCL_KINDS="209:cudaErrorNoKernelImageForDevice 704:cudaErrorPeerAccessAlreadyEnabled"
nccl_handled() {
    awk -v kinds="${1:-$NCCL_KINDS}" 'BEGIN { split(kinds, k, " ");
                                              for (i in k) { split(k[i], c, ":"); code[c[1]] = 1 } }
         /^========= Program hit / { want = match($0, /\(error [0-9]+\)/) &&
                                             code[substr($0, RSTART + 7, RLENGTH - 8)]; next }
         want && /Host Frame:/ { if ($0 ~ /libnccl\.so/) n++; want = 0 }
         END { print n + 0 }'
}
errors_of() { sed -n 's/.*SUMMARY: \([0-9]*\) error.*/\1/p' | tail -n 1; }
# the initcheck runs of NCCL's communicators check the course's kernels only (said in the verdicts)
NCCL_INITCHECK_SKIP="--kernel-name-exclude kns=nccl"
# NCCL alone, its two runs started now, in the background (the initcheck one prints every
# report, for the count), and said before the verdicts (repro_verdict); that the course's kernels
# are clean with NCCL's excluded is the verdict of the alone runs' initcheck
repro_start() {
    CUDA_VISIBLE_DEVICES=$nccl_gpus compute-sanitizer --tool memcheck --print-limit 1000 "$repro" \
        >"$dir/repro.memcheck" 2>&1 &
    CUDA_VISIBLE_DEVICES=$nccl_gpus compute-sanitizer --tool initcheck --print-limit 100000 "$repro" \
        >"$dir/repro.initcheck" 2>&1 &
}
repro_verdict() {
    local out n what kinds k all in_nccl kernels
    out=$(cat "$dir/repro.memcheck")
    n=$(printf '%s\n' "$out" | errors_of)
    what=$(printf '%s\n' "$out" | grep -m1 '^nccl_init:' | sed 's/^nccl_init: //')
    kinds=""
    for kind in $NCCL_KINDS; do
        k=$(printf '%s\n' "$out" | nccl_handled "$kind")
        [ "$k" -eq 0 ] || kinds="$kinds, $k ${kind#*:}"
    done
    echo "sanitize: NCCL alone ($repro: ${what:-failed}): memcheck: ${n:-?} reports${kinds:+: }${kinds#, } (each from libnccl)"
    # every uninitialised read NCCL's all-reduce makes, and how many of them are in its kernels
    out=$(cat "$dir/repro.initcheck")
    all=$(printf '%s\n' "$out" | grep -c 'Uninitialized __global__ memory read')
    in_nccl=$(printf '%s\n' "$out" | grep -A1 'Uninitialized __global__ memory read' | grep -c '^=========     at nccl')
    kernels=$(printf '%s\n' "$out" | grep -A1 'Uninitialized __global__ memory read' | grep -o 'at nccl[A-Za-z0-9_]*' | cut -c4- | sort -u | head -n 3 | paste -sd' ')
    echo "sanitize: NCCL alone: initcheck: $all uninitialised reads, $in_nccl of them in NCCL's kernels${kernels:+ ($kernels)}: the alone runs' initcheck checks the course's kernels only ($NCCL_INITCHECK_SKIP)"
    if [ "$all" -ne "$in_nccl" ]; then
        echo "FAILED: initcheck reports outside NCCL's kernels:"
        grep -A1 'Uninitialized __global__ memory read' "$dir/repro.initcheck" | grep '^=========     at' | grep -v 'at nccl' | head -n 5
        return 1
    fi
}

# NAME ARGS GPU: one plain run of ARGS by the course runner on GPU: $dir/NAME.LESSON, the
# implementations of LESSON it ran on the GPU (none it skipped, outside their constraints there),
# one per line; $dir/NAME.plans, those that chose a plan from the GPU (said on "# plan on this
# GPU" lines)
ran_on_gpu() {
    local csv="$dir/$1.list.csv" log="$dir/$1.list.log"
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$3 "$bin" $2 --reps 1 --warmup 0 --csv "$csv" >"$log" 2>&1 ||
        { echo "sanitize: the plain run '$bin $2' failed:" >&2; tail -n 3 "$log" >&2; return 1; }
    awk -F, -v out="$dir/$1" 'NR > 1 && $3 != "host" && $4 == "ran" { print $2 > (out "." $1) }
        NR > 1 && $3 == "h2d" { print $2 > (out ".h2d") }' "$csv"
    touch "$dir/$1.h2d"
    sed -n 's/^# plan on this GPU: .*(\(.*\))$/\1/p' "$log" | tr -d ' ' | tr ',' '\n' >"$dir/$1.plans"
}
# NAME [PLANS [DEVICE]]: "PROGRAM IMPL" for each implementation of run NAME that SANITIZE_OWN
# names (a run of its own, the longest: first), then per lesson "PROGRAM IMPL,IMPL,..." of the
# others, the largest first (with PLANS, only those that chose a plan; with DEVICE, no host-input
# one; those run alone left out)
groups() {
    local f lesson
    for own in 1 0; do
        for f in "$dir/$1".day*; do
            [ -e "$f" ] || continue
            lesson=${f##*.}
            grep -vxF -f "$dir/alone" "$f" |
                { if [ "$own" = 1 ]; then grep -xF -f "$dir/own"; else grep -vxF -f "$dir/own"; fi; } |
                { if [ -n "${2:-}" ]; then grep -xF -f "$dir/$1.plans"; else cat; fi; } |
                { if [ -n "${3:-}" ]; then grep -vxF -f "$dir/$1.h2d"; else cat; fi; } |
                if [ "$own" = 1 ]; then sed "s|^|$build/$lesson/$lesson |"; else
                    paste -sd, | sed "/^$/d; s|^|$build/$lesson/$lesson |"; fi
        done | awk '{ print gsub(/,/, ",") " " $0 }' | sort -rn | cut -d' ' -f2-
    done
}

build=$(dirname "$bin")
tools=${SANITIZE_TOOLS:-racecheck memcheck initcheck synccheck}
shape0="--rows 4100 --channels 528" shape1="--preset small-binned --rows 3000"
u16=${SANITIZE_U16:---bits 16 --rows 2000 --channels 1}
u16x8=${SANITIZE_U16X8:---bits 16 --rows 600 --channels 8}
dists="uniform constant contention:90 runs:7"
# the emulated plans: under GPU_LIMITS the whole run is one of them already
limits=${SANITIZE_LIMITS-t4 a100 rtx4090} limits16=${SANITIZE_LIMITS16-t4}
[ -z "${HIST_GPU_LIMITS:-}" ] || limits="" limits16=""
# one run: ID TOOL PROGRAM ARGS GPUS -> $dir/ID.out, $dir/ID.rc, $dir/ID.s (seconds, and the
# GPUs; also appended to SANITIZE_TIMES as each run ends)
run_one() {
    local id=$1 tool=$2 program=$3 args=$4 gpus=$5 extra="" t0=$SECONDS
    [ "$tool" = memcheck ] && extra="--leak-check full"
    # shellcheck disable=SC2086
    # NCCL's communicators under initcheck: the course's kernels only (NCCL_INITCHECK_SKIP, above)
    case "$tool:$args" in initcheck:*--impl\ gpus_nccl*) extra="$NCCL_INITCHECK_SKIP" ;; esac
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$gpus compute-sanitizer --tool "$tool" $extra --error-exitcode 9 \
        --print-limit 1000 "$program" $args --reps 1 --warmup 0 >"$dir/$id.out" 2>&1
    echo $? >"$dir/$id.rc"
    echo "$((SECONDS - t0)) s: $tool ${program##*/} $args (GPU $gpus)" >"$dir/$id.s"
    [ -z "${SANITIZE_TIMES:-}" ] || cat "$dir/$id.s" >>"$SANITIZE_TIMES"
}
# run alone, by memcheck and initcheck only: NCCL's communicators (NCCL initialises for 30 s under
# memcheck); their kernels are day 06's, checked with its lesson, and NCCL's own
for impl in ${SANITIZE_ALONE-gpus_nccl}; do echo "$impl"; done >"$dir/alone"
for impl in ${SANITIZE_OWN-gpu_wide gpu_exchange16}; do echo "$impl"; done >"$dir/own"
[ -z "$repro" ] || repro_start
# the runs alone are the longest (NCCL's start under the tool, over every GPU): they start now,
# beside the plain runs, each into $dir/alone-TOOL-IMPL.*; one whose implementation the plain run
# did not run on the GPU is left out of the plan below (and of its times)
[ -z "${SANITIZE_TIMES:-}" ] || : >"$SANITIZE_TIMES"
for tool in $tools; do
    case $tool in memcheck | initcheck) ;; *) continue ;; esac
    while read -r impl; do
        run_one "alone-$tool-$impl" "$tool" "$bin" "$shape0 --impl $impl" "$nccl_gpus" &
    done <"$dir/alone"
done
# the plain runs side by side (each a few seconds, most of it NCCL's and the CPU's)
plain="" k=0
for run in "shape0|$shape0" "shape1|$shape1" "u16|$u16" "u16x8|$u16x8" \
    $(for gpu in $limits; do echo "$gpu|$shape0 --gpu-limits $gpu"; done | tr ' ' '~') \
    $(for gpu in $limits16; do echo "u16-$gpu|$u16 --gpu-limits $gpu"; done | tr ' ' '~'); do
    run=$(printf '%s' "$run" | tr '~' ' ')
    ran_on_gpu "${run%%|*}" "${run#*|}" "$(gpu_at $k)" & plain="$plain $!"
    k=$((k + 1))
done
for pid in $plain; do wait "$pid" || exit 1; done
# the plan: one GROUP|TOOL|PROGRAM|ARGS line per run, the longest first (the implementations run
# alone, then racecheck's): each lesson's implementations together, on shape 0 under every
# distribution (those that chose a plan; the others under the uniform one), on shape 1, and those
# that chose a plan under each emulated GPU
{
    for tool in $tools; do
        case $tool in memcheck | initcheck) ;; *) continue ;; esac
        while read -r impl; do
            grep -qx "$impl" "$dir"/shape0.day* 2>/dev/null &&
                echo "$impl alone|$tool|$bin|$shape0 --impl $impl"
        done <"$dir/alone"
    done
    for tool in $tools; do
        case $tool in racecheck | memcheck) lim=$limits all=1 ;; *) lim="" all="" ;; esac
        # racecheck (shared memory) sees the host-input pipelines, whose kernel is day 06's, on
        # the uniform distribution of each shape only
        device=$([ "$tool" = racecheck ] && echo device)
        groups shape0 | while read -r program impls; do
            echo "$tool|$tool|$program|$shape0 --impl $impls --dist uniform"
        done
        groups shape0 plans "$device" | while read -r program impls; do
            [ -z "$all" ] || for dist in ${dists#uniform }; do
                echo "$tool|$tool|$program|$shape0 --impl $impls --dist $dist"
            done
        done
        groups shape1 | while read -r program impls; do
            echo "$tool|$tool|$program|$shape1 --impl $impls"
        done
        for shape in u16 u16x8; do
            groups $shape | while read -r program impls; do
                echo "16-bit samples|$tool|$program|$(eval echo "\$$shape") --impl $impls"
            done
        done
        for gpu in $lim; do
            groups "$gpu" plans "$device" | while read -r program impls; do
                echo "limited to $gpu|$tool|$program|$shape0 --gpu-limits $gpu --impl $impls"
            done
        done
        for gpu in $([ -z "$all" ] || echo "$limits16"); do
            groups "u16-$gpu" plans | while read -r program impls; do
                echo "16-bit samples limited to $gpu|$tool|$program|$u16 --gpu-limits $gpu --impl $impls"
            done
        done
    done
} >"$dir/plan"
[ -s "$dir/plan" ] || { echo "sanitize: no GPU implementation ran (SANITIZE_TOOLS='$tools')" >&2; exit 1; }

jobs_max=${SANITIZE_JOBS:-$(nproc)}
id=0
k=0
while IFS='|' read -r group tool program args; do
    case $group in *alone) ;; *) run_one $id "$tool" "$program" "$args" "$(gpu_at $k)" & k=$((k + 1)) ;; esac
    id=$((id + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
done <"$dir/plan"
wait
# the runs alone (started first) under the plan's numbers; those the plan left out, forgotten
id=0
while IFS='|' read -r group tool program args; do
    case $group in *alone)
        for x in out rc s; do mv "$dir/alone-$tool-${group% alone}.$x" "$dir/$id.$x"; done ;;
    esac
    id=$((id + 1))
done <"$dir/plan"
rm -f "$dir"/alone-*
repro_failed=0
[ -z "$repro" ] || repro_verdict || repro_failed=1

# the verdicts, one line per group (a tool, or an emulated GPU), in the plan's order
status=$repro_failed excluded=0 id=0
while IFS='|' read -r group tool program args; do
    out=$(cat "$dir/$id.out") rc=$(cat "$dir/$id.rc")
    errors=$(printf '%s\n' "$out" | errors_of)
    nccl=$(printf '%s\n' "$out" | nccl_handled)
    echo "$group" >>"$dir/groups"
    if [ "$rc" -eq 9 ] && [ -n "$errors" ] && [ "$errors" -eq "$nccl" ]; then
        excluded=$((excluded + nccl))
        echo "$group|$nccl" >>"$dir/excluded"
        rc=0
    fi
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "$group" >>"$dir/failed"
        echo "FAILED: $tool ${program##*/} $args (exit $rc): $(printf '%s\n' "$out" | grep SUMMARY | tail -n 1)"
        printf '%s\n' "$out" | grep -v "^day0\|^#\|^lesson" | tail -n 25
    fi
    id=$((id + 1))
done <"$dir/plan"
touch "$dir/failed" "$dir/excluded"
awk '!seen[$0]++' "$dir/groups" | while read -r group; do
    n=$(grep -cx "$group" "$dir/groups")
    x=$(awk -F'|' -v g="$group" '$1 == g { s += $2 } END { print s + 0 }' "$dir/excluded")
    case $group in limited* | *limited*) what="$group (racecheck and memcheck)" ;;
                   memcheck) what="memcheck (--leak-check full)" ;;
                   *alone) what="$group (memcheck; initcheck of the course's kernels: $NCCL_INITCHECK_SKIP)" ;;
                   *) what=$group ;; esac
    echo "$what: $(grep -qx "$group" "$dir/failed" && echo 'reports above' || echo clean) in $n runs$([ "$x" -gt 0 ] && echo "; $x NCCL reports excluded")"
done
echo "sanitize: the longest runs: $(cat "$dir"/*.s | sort -rn | head -n 3 | paste -sd ';' | sed 's/;/; /g')"
impls=$(cut -d'|' -f4 "$dir/plan" | grep -o -- '--impl [^ ]*' | cut -c8- | tr ',' '\n' | sort -u | wc -l)
echo "sanitize: $id runs (each a lesson's implementations together) of $impls GPU implementations ($jobs_max at a time) in" \
    "$(($(date +%s) - start)) s, $([ $status -eq 0 ] && echo 'all clean' || echo 'FAILURES above')$([ $excluded -gt 0 ] &&
    echo "; $excluded reports excluded: NCCL's own handled errors from libnccl" \
         "(cudaErrorNoKernelImageForDevice: it probes its kernels for other GPUs;" \
         "cudaErrorPeerAccessAlreadyEnabled: peer access it finds enabled), nothing else")"
exit $status
