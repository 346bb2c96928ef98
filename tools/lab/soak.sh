#!/usr/bin/env bash
# soak.sh BUILD_DIR [RUNS] [SEED]: the course's programs RUNS times (default 1,000) on this
# machine's GPU, SOAK_JOBS at a time (default: half the cores; each worker its own folder and
# seed), with random valid options: a lesson's program or the course runner, shapes from 0
# rows to a million samples, every binning, every distribution, implementations named or not,
# --output and --input (a file another run saved), emulated GPUs. Every run checks every result
# against the reference itself (a mismatch is exit status 1) and must exit 0; an --output must
# then be a whole .npy; nothing may be left in the run's folder but the files asked for. It watches
# each process's peak host memory and the GPU's used memory (sampled every second), and ends with
# a long process (the course runner) run for 30 and for 300 repetitions: its peak host and GPU
# memory must not grow with them.
# Prints one line per 100 runs of each worker and a summary; exit status 1 on any failure.
set -u
build=${1:?usage: soak.sh BUILD_DIR [RUNS] [SEED]}
runs=${2:-1000}
[ -x /usr/bin/time ] || { echo "soak: needs /usr/bin/time for each run's peak memory (apt-get install time)" >&2; exit 2; }
command -v nvidia-smi >/dev/null || { echo "soak: needs a GPU machine (nvidia-smi not found)" >&2; exit 2; }
seed=${3:-26}
jobs_max=${SOAK_JOBS:-$((($(nproc) + 1) / 2))}
[ "$jobs_max" -le "$runs" ] || jobs_max=$runs
[ "$jobs_max" -ge 1 ] || jobs_max=1
RANDOM=$seed
work=$(mktemp -d)
trap 'kill "$sampler" 2>/dev/null; rm -rf "$work"' EXIT
lessons=$(ls -d "$build"/day[0-9][0-9]_*/ | while read -r d; do n=$(basename "$d"); echo "$d$n"; done)
gpus=$("$build/course" --gpu-limits list | awk 'NR > 1 && $1 ~ /^[a-z][a-z0-9]*$/ { print $1 }' | sort -u)
pick() { local a=($1); [ ${#a[@]} -eq 0 ] || echo "${a[RANDOM % ${#a[@]}]}"; }
gpu_used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -n 1; }
used_before=$(gpu_used)
(while :; do gpu_used >>"$work/gpu-samples"; sleep 1; done) &
sampler=$!

# one random valid option vector for PROGRAM (the lesson's own implementations by --list)
options() {
    local program=$1 rows channels
    channels=$(pick "1 2 3 4 7 16 63 64 65 128 129 512 513 1000 4096")
    rows=$(((RANDOM * 32768 + RANDOM) % (1048576 / channels + 1)))
    [ $((RANDOM % 10)) -ne 0 ] || rows=$(pick "0 1 2 7 33")
    echo "--rows $rows --channels $channels --seed $RANDOM --reps 1 --warmup 0"
    echo "--dist $(pick "uniform constant contention:$((RANDOM % 101)) runs:$((RANDOM % 2000 + 1))")"
    case $((RANDOM % 4)) in
    0) local lo=$((RANDOM % 256)) hi
       hi=$((lo + RANDOM % (256 - lo)))
       echo "--lo $lo --hi $hi --width $((RANDOM % 64 + 1))" ;;
    1) echo "--lo 1 --hi 100 --width 20 --values 1:100" ;;
    esac
    [ $((RANDOM % 4)) -ne 0 ] || echo "--gpu-limits $(pick "$gpus")"
    # --output writes the result of the implementation named first: with --output, one is named
    [ $((RANDOM % 3)) -ne 0 ] && [ -z "$2" ] || echo "--impl $(pick "$("$program" --list | awk '$1 ~ /^day[0-9][0-9]_/ { print $2 }')")"
}

# worker W N: N runs in the folder $work/wW, seeded SEED + W; its failures and peak host memory
# (KiB) in $work/wW.result
worker() {
    local w=$1 n=$2 wd=$work/w$1 i rc program out in args rss left fail=0 peak_rss=0 saved=""
    RANDOM=$((seed + w))
    mkdir -p "$wd"
    for ((i = 1; i <= n; i++)); do
        program=$(pick "$lessons $build/course")
        out="" in=""
        if [ $((RANDOM % 5)) -eq 0 ]; then out="--output $wd/out.npy"; fi
        args=$(options "$program" "$out" | tr '\n' ' ')
        if [ -n "$saved" ] && [ $((RANDOM % 5)) -eq 0 ]; then
            in="--input $saved"; args=$(echo "$args" | sed 's/--rows [0-9]* --channels [0-9]* --seed [0-9]* //; s/--dist [^ ]* //; s/--values [^ ]* //')
        elif [ -z "$saved" ] || [ $((RANDOM % 20)) -eq 0 ]; then
            args="$args --save-input $wd/next.npy"
        fi
        # shellcheck disable=SC2086
        /usr/bin/time -f "%M" -o "$wd/rss" "$program" $args $in $out >"$wd/log" 2>&1
        rc=$?
        # exit 4: an --impl named on a problem outside its constraints (said in one line): valid
        if [ $rc -ne 0 ] && ! { [ $rc -eq 4 ] && grep -q "could not run" "$wd/log"; }; then
            fail=$((fail + 1))
            echo "soak: FAILED run $i of worker $w (exit $rc): $program $args $in $out"
            tail -n 5 "$wd/log"
        fi
        if [ -n "$out" ] && [ $rc -eq 0 ]; then
            head -c 6 "$wd/out.npy" | grep -q "NUMPY" || { fail=$((fail + 1)); echo "soak: run $i of worker $w: --output is not a .npy"; }
        fi
        rm -f "$wd/out.npy"
        # a saved input is used by later runs once its run has written it whole
        if [ -f "$wd/next.npy" ]; then
            [ $rc -eq 0 ] && mv "$wd/next.npy" "$wd/in.npy" && saved=$wd/in.npy
            rm -f "$wd/next.npy"
        fi
        left=$(find "$wd" -name '*.tmp.*' | wc -l)
        [ "$left" -eq 0 ] || { fail=$((fail + 1)); echo "soak: run $i of worker $w left $left temporary file(s)"; rm -f "$wd"/*.tmp.*; }
        rss=$(tail -n 1 "$wd/rss")
        [ "$rss" -le "$peak_rss" ] 2>/dev/null || peak_rss=$rss
        [ $((i % 100)) -ne 0 ] || echo "soak: worker $w: $i runs, $fail failed, peak host memory $((peak_rss / 1024)) MiB"
    done
    # nothing left but the files asked for
    rm -f "$wd/log" "$wd/rss" "$wd/in.npy"
    left=$(find "$wd" -mindepth 1 | wc -l)
    [ "$left" -eq 0 ] || { fail=$((fail + 1)); echo "soak: worker $w left files behind: $(find "$wd" -mindepth 1)"; }
    rm -rf "$wd"
    echo "$fail $peak_rss" >"$work/w$w.result"
}
workers=()
for ((w = 0; w < jobs_max; w++)); do
    worker $w $((runs / jobs_max + (w < runs % jobs_max ? 1 : 0))) &
    workers+=($!)
done
wait "${workers[@]}" # not the memory sampler
fail=$(cat "$work"/w*.result 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
peak_rss=$(cat "$work"/w*.result 2>/dev/null | awk '$2 > m { m = $2 } END { print m + 0 }')
[ "$(find "$work" -name 'w*.result' | wc -l)" -eq "$jobs_max" ] || { fail=$((fail + 1)); echo "soak: a worker did not finish"; }
rm -f "$work"/w*.result

# two long processes, the same but for their repetitions, 30 then 300: memory kept per repetition
# would make the second's peaks higher (host: the peak RSS; GPU: its used memory, sampled twice a
# second); each peak is a phase of the run (the GPU implementations' workspaces come and go), so the
# peaks are what is compared, not a sample early and a sample late
long_run() {
    local reps=$1 pid g h peak=0 hwm=0
    "$build/course" --rows 65536 --channels 513 --reps "$reps" --warmup 0 >"$work/long.log" 2>&1 &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        h=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status 2>/dev/null)
        [ -z "$h" ] || [ "$h" -le "$hwm" ] || hwm=$h
        g=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits | awk -F', ' -v p=$pid '$1 == p { print $2 }')
        [ -z "$g" ] || [ "$g" -le "$peak" ] || peak=$g
        sleep 0.5
    done
    wait $pid || { fail=$((fail + 1)); echo "soak: the long run ($reps repetitions) failed"; tail -n 5 "$work/long.log"; }
    echo "$((hwm / 1024)) $peak" >"$work/long.$reps"
}
long_run 30
long_run 300
read -r host30 gpu30 <"$work/long.30"
read -r host300 gpu300 <"$work/long.300"
rm -f "$work/long.30" "$work/long.300"
# growth beyond 2% + 16 MiB (allocator and driver granularity) is memory kept per repetition
grew() { [ "$2" -gt $(($1 + $1 / 50 + 16)) ]; }
if grew "$host30" "$host300" || grew "$gpu30" "$gpu300"; then
    fail=$((fail + 1))
    echo "soak: the long run's peak memory grew with its repetitions: host $host30 -> $host300 MiB, GPU $gpu30 -> $gpu300 MiB"
fi
kill "$sampler" 2>/dev/null
sleep 1
used_after=$(gpu_used)
gpu_peak=$(sort -n "$work/gpu-samples" | tail -n 1)
left=$(find "$work" -mindepth 1 ! -name long.log ! -name gpu-samples | wc -l)
[ "$left" -eq 0 ] || { fail=$((fail + 1)); echo "soak: files left behind: $(ls "$work")"; }
echo "soak: $runs runs ($jobs_max at a time) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $fail failed;" \
    "peak host memory of a run $((peak_rss / 1024)) MiB; GPU memory used peak $gpu_peak MiB, before $used_before MiB, after $used_after MiB;" \
    "long run, peaks after 30 and after 300 repetitions: host $host30 -> $host300 MiB, GPU $gpu30 -> $gpu300 MiB"
[ $fail -eq 0 ]
