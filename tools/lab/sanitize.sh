#!/usr/bin/env bash
# sanitize.sh COURSE_BIN [NCCL_INIT]: compute-sanitizer's memcheck (with --leak-check full),
# racecheck, initcheck and synccheck over every GPU implementation of the course, one
# implementation per run, SANITIZE_JOBS runs at a time (default: one per core), on small shapes:
#   - a partial channel group with rows enough for a dynamic tile of day 06's final kernel
#     (--rows 4100 --channels 528): racecheck and memcheck under every distribution (each
#     implementation's data-dependent paths), initcheck and synccheck under the uniform one (a
#     distribution changes no allocation or barrier);
#   - one channel with a non-byte binning (--preset small-binned --rows 3000): all four tools;
#   - the first shape again under each emulated GPU of SANITIZE_LIMITS (default: t4 a100
#     rtx4090, the three plans day 06's final kernel can take besides the H100's): racecheck and
#     memcheck.
# Which implementations run on a shape (and plan) comes from one plain run of it first: every
# implementation it ran on the GPU, none it skipped (outside its constraints there). Fails on any
# report but NCCL's own handled ones, which NCCL_INIT (tests/sanitize/nccl_init.cu, built where
# NCCL is found) shows alone first. SANITIZE_TOOLS picks some of the four tools; SANITIZE_TIMES=FILE
# keeps every run's seconds.
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

# NAME ARGS: $dir/NAME.impls, the implementations one plain run of ARGS ran on the GPU (none it
# skipped), one per line
ran_on_gpu() {
    # shellcheck disable=SC2086
    "$bin" $2 --reps 1 --warmup 0 --csv "$dir/list.csv" >"$dir/list.log" 2>&1 ||
        { echo "sanitize: the plain run '$bin $2' failed:" >&2; tail -n 3 "$dir/list.log" >&2; exit 1; }
    awk -F, 'NR > 1 && $3 != "host" && $4 == "ran" { print $2 }' "$dir/list.csv" >"$dir/$1.impls"
}

tools=${SANITIZE_TOOLS:-racecheck memcheck initcheck synccheck}
shape0="--rows 4100 --channels 528" shape1="--preset small-binned --rows 3000"
dists="uniform constant contention:90 runs:7"
# the emulated plans: under GPU_LIMITS the whole run is one of them already
limits=${SANITIZE_LIMITS-t4 a100 rtx4090}
[ -z "${HIST_GPU_LIMITS:-}" ] || limits=""
ran_on_gpu shape0 "$shape0"
ran_on_gpu shape1 "$shape1"
for gpu in $limits; do ran_on_gpu "$gpu" "$shape0 --gpu-limits $gpu"; done
# the plan: one GROUP|TOOL|ARGS line per run, racecheck's first (its runs are the longest)
for tool in $tools; do
    case $tool in racecheck | memcheck) d0=$dists lim=$limits ;; *) d0=uniform lim="" ;; esac
    while read -r impl; do
        for dist in $d0; do echo "$tool|$tool|$shape0 --impl $impl --dist $dist"; done
    done <"$dir/shape0.impls"
    while read -r impl; do echo "$tool|$tool|$shape1 --impl $impl"; done <"$dir/shape1.impls"
    for gpu in $lim; do
        while read -r impl; do
            echo "limited to $gpu|$tool|$shape0 --gpu-limits $gpu --impl $impl"
        done <"$dir/$gpu.impls"
    done
done >"$dir/plan"
[ -s "$dir/plan" ] || { echo "sanitize: no GPU implementation ran (SANITIZE_TOOLS='$tools')" >&2; exit 1; }

# one run: ID TOOL ARGS -> $dir/ID.out, $dir/ID.rc, $dir/ID.s (seconds)
run_one() {
    local id=$1 tool=$2 args=$3 extra="" t0=$SECONDS
    [ "$tool" = memcheck ] && extra="--leak-check full"
    # shellcheck disable=SC2086
    compute-sanitizer --tool "$tool" $extra --error-exitcode 9 --print-limit 1000 \
        "$bin" $args --reps 1 --warmup 0 >"$dir/$id.out" 2>&1
    echo $? >"$dir/$id.rc"
    echo "$((SECONDS - t0)) s: $tool $args" >"$dir/$id.s"
}
jobs_max=${SANITIZE_JOBS:-$(nproc)}
id=0
while IFS='|' read -r group tool args; do
    run_one $id "$tool" "$args" &
    id=$((id + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
done <"$dir/plan"
wait

# the verdicts, one line per group (a tool, or an emulated GPU), in the plan's order
status=0 excluded=0 id=0
while IFS='|' read -r group tool args; do
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
        echo "FAILED: $tool $args (exit $rc): $(printf '%s\n' "$out" | grep SUMMARY | tail -n 1)"
        printf '%s\n' "$out" | grep -v "^day0\|^#\|^lesson" | tail -n 25
    fi
    id=$((id + 1))
done <"$dir/plan"
touch "$dir/failed" "$dir/excluded"
awk '!seen[$0]++' "$dir/groups" | while read -r group; do
    n=$(grep -cx "$group" "$dir/groups")
    x=$(awk -F'|' -v g="$group" '$1 == g { s += $2 } END { print s + 0 }' "$dir/excluded")
    case $group in limited*) what="$group (racecheck and memcheck)" ;;
                   memcheck) what="memcheck (--leak-check full)" ;; *) what=$group ;; esac
    echo "$what: $(grep -qx "$group" "$dir/failed" && echo 'reports above' || echo clean) in $n runs$([ "$x" -gt 0 ] && echo "; $x NCCL reports excluded")"
done
[ -z "${SANITIZE_TIMES:-}" ] || cat "$dir"/*.s | sort -rn >"$SANITIZE_TIMES"
echo "sanitize: the longest runs: $(cat "$dir"/*.s | sort -rn | head -n 3 | paste -sd ';' | sed 's/;/; /g')"
impls=$(cut -d'|' -f3 "$dir/plan" | grep -o -- '--impl [^ ]*' | sort -u | wc -l)
echo "sanitize: $id runs, one implementation each, of $impls GPU implementations ($jobs_max at a time) in" \
    "$(($(date +%s) - start)) s, $([ $status -eq 0 ] && echo 'all clean' || echo 'FAILURES above')$([ $excluded -gt 0 ] &&
    echo "; $excluded reports excluded: NCCL's own handled cudaErrorNoKernelImageForDevice in" \
         "ncclInitKernelsForDevice (it probes its kernels for other GPUs), nothing else")"
exit $status
