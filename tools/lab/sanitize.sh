#!/usr/bin/env bash
# sanitize.sh COURSE_BIN [NCCL_INIT]: compute-sanitizer's memcheck (with --leak-check full),
# racecheck, initcheck and synccheck over every GPU implementation of the course, on small shapes
# (a partial channel group, with rows enough for a dynamic tile of day 06's final kernel, under
# every distribution; one channel with a non-byte binning): 14 runs (the plan below); then
# memcheck and racecheck once more under each emulated GPU of SANITIZE_LIMITS (default: t4 a100
# rtx4090, the three plans day 06's final kernel can take besides the H100's), SANITIZE_JOBS
# (default: one per core) at a time. Every implementation runs on every shape its constraints
# accept (no --impl: one named on a shape it refuses would be exit status 4). Fails on any report but NCCL's own handled ones,
# which NCCL_INIT (tests/sanitize/nccl_init.cu, built where NCCL is found) shows alone first.
# SANITIZE_TOOLS picks some of the four tools; SANITIZE_TIMES=FILE keeps every run's seconds.
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
# every implementation that runs on the GPU: device input, and host input (day 07's pipelines)
impls=$("$bin" --list | awk '$1 ~ /^day[0-9]/ && $3 != "host" { printf "%s%s", sep, $2; sep = "," }')
# the GPU as the harness reports it ("... limited to rtx4090" under GPU_LIMITS)
echo "sanitize: on $("$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | sed -n 's/.*; GPU: //p')"
# NCCL's own handled error: on initialisation it asks the runtime about each of its kernels
# (cudaFuncGetAttributes in ncclInitKernelsForDevice) and skips those built for other GPUs, which
# memcheck reports as cudaErrorNoKernelImageForDevice. Exactly those reports, whose first host frame
# is in libnccl, are excluded and counted; every other report fails the run.
nccl_handled() {
    awk '/^========= Program hit cudaErrorNoKernelImageForDevice/ { want = 1; next }
         want && /Host Frame:/ { if ($0 ~ /libnccl\.so/) n++; want = 0 }
         END { print n + 0 }'
}
errors_of() { sed -n 's/.*SUMMARY: \([0-9]*\) error.*/\1/p' | tail -n 1; }
if [ -n "$repro" ]; then
    out=$(compute-sanitizer --tool memcheck --print-limit 1000 "$repro" 2>&1)
    rc=$?
    n=$(printf '%s\n' "$out" | errors_of)
    where=$(printf '%s\n' "$out" | grep -A3 "cudaErrorNoKernelImageForDevice" | grep -o "cudaFuncGetAttributes\|ncclInitKernelsForDevice" | sort -u | tr '\n' ' ')
    echo "sanitize: NCCL alone ($repro: one communicator made and destroyed): exit $rc, ${n:-?} memcheck reports, $(printf '%s\n' "$out" | nccl_handled) of them cudaErrorNoKernelImageForDevice from libnccl (${where% })"
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# one run: TOOL "SHAPE" DIST -> $dir/ID.out, $dir/ID.rc, $dir/ID.s (seconds)
run_one() {
    local id=$1 tool=$2 shape=$3 dist=$4 extra="" t0=$SECONDS
    [ "$tool" = memcheck ] && extra="--leak-check full"
    # shellcheck disable=SC2086
    compute-sanitizer --tool "$tool" $extra --error-exitcode 9 --print-limit 1000 \
        "$bin" $shape --dist "$dist" --reps 1 --warmup 0 >"$dir/$id.out" 2>&1
    echo $? >"$dir/$id.rc"
    echo "$((SECONDS - t0)) s: $tool $shape --dist $dist" >"$dir/$id.s"
}
jobs_max=${SANITIZE_JOBS:-$(nproc)}
# racecheck first: its runs are the longest
tools=${SANITIZE_TOOLS:-racecheck memcheck initcheck synccheck}
shapes=("--rows 4100 --channels 528" "--preset small-binned --rows 3000")
dists=(uniform constant contention:90 runs:7)
# the emulated plans: under GPU_LIMITS the whole run is one of them already
limits=${SANITIZE_LIMITS-t4 a100 rtx4090}
[ -z "${HIST_GPU_LIMITS:-}" ] || limits=""
limit_tools=""
for tool in $tools; do case $tool in racecheck | memcheck) limit_tools="$limit_tools $tool" ;; esac; done
start_one() {
    run_one "$@" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
}
id=0
# the emulated plans first: their runs are the longest
for gpu in $limits; do
    for tool in $limit_tools; do
        start_one $id "$tool" "${shapes[0]} --gpu-limits $gpu" uniform
        id=$((id + 1))
    done
done
# every distribution on the first shape (every implementation's data-dependent paths) and the
# second shape (one channel, binned) under the uniform one for racecheck and memcheck; both shapes
# under the uniform one for initcheck and synccheck (a distribution changes no allocation or
# barrier): TOOL|SHAPE|DIST each
plan=()
for tool in $tools; do
    case $tool in
    racecheck | memcheck)
        for dist in "${dists[@]}"; do plan+=("$tool|${shapes[0]}|$dist"); done
        plan+=("$tool|${shapes[1]}|uniform") ;;
    *) plan+=("$tool|${shapes[0]}|uniform" "$tool|${shapes[1]}|uniform") ;;
    esac
done
for run in "${plan[@]}"; do
    IFS='|' read -r tool shape dist <<<"$run"
    start_one $id "$tool" "$shape" "$dist"
    id=$((id + 1))
done
wait

status=0 excluded=0 id=0
# ID -> checked: the run's verdict printed if it failed; NCCL's handled reports counted
check_one() {
    local out rc errors nccl
    out=$(cat "$dir/$1.out") rc=$(cat "$dir/$1.rc")
    errors=$(printf '%s\n' "$out" | errors_of)
    nccl=$(printf '%s\n' "$out" | nccl_handled)
    if [ "$rc" -eq 9 ] && [ -n "$errors" ] && [ "$errors" -eq "$nccl" ]; then
        excluded=$((excluded + nccl)) tool_nccl=$((tool_nccl + nccl))
        rc=0
    fi
    if [ "$rc" -ne 0 ]; then
        status=1 tool_status=1
        echo "FAILED: $(sed 's/^[0-9]* s: //' "$dir/$1.s") (exit $rc): $(printf '%s\n' "$out" | grep SUMMARY | tail -n 1)"
        printf '%s\n' "$out" | grep -v "^day0\|^#\|^lesson" | tail -n 25
    fi
}
verdict() { [ "$tool_status" -eq 0 ] && echo clean || echo 'reports above'; }
for gpu in $limits; do
    tool_status=0 tool_nccl=0
    for tool in $limit_tools; do check_one $id; id=$((id + 1)); done
    echo "limited to $gpu:$limit_tools: $(verdict)$([ $tool_nccl -gt 0 ] && echo "; $tool_nccl NCCL reports excluded")"
done
for tool in $tools; do
    tool_status=0 tool_nccl=0 n=0
    for run in "${plan[@]}"; do
        [ "${run%%|*}" = "$tool" ] || continue
        check_one $id
        id=$((id + 1)) n=$((n + 1))
    done
    echo "$tool$([ "$tool" = memcheck ] && echo ' (--leak-check full)'): $(verdict) in $n runs$([ $tool_nccl -gt 0 ] && echo "; $tool_nccl NCCL reports excluded")"
done
[ -z "${SANITIZE_TIMES:-}" ] || cat "$dir"/*.s | sort -rn >"$SANITIZE_TIMES"
echo "sanitize: the longest runs: $(cat "$dir"/*.s | sort -rn | head -n 3 | sed 's/ --dist [^ ]*//' | paste -sd ';' | sed 's/;/; /g')"
echo "sanitize: $id runs of $(echo "$impls" | tr ',' '\n' | wc -l) GPU implementations ($jobs_max at a time) in" \
    "$(($(date +%s) - start)) s, $([ $status -eq 0 ] && echo 'all clean' || echo 'FAILURES above')$([ $excluded -gt 0 ] &&
    echo "; $excluded reports excluded: NCCL's own handled cudaErrorNoKernelImageForDevice in" \
         "ncclInitKernelsForDevice (it probes its kernels for other GPUs), nothing else")"
exit $status
