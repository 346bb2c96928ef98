#!/bin/sh
# lab-check.sh OUTDIR [STEPS]: the GPU checks CI cannot make, on a lab GPU machine, with every
# log written under OUTDIR. STEPS (default "test run sweep profile demo triton") picks which.
# On an offline machine, put the CMocka .deb files in .deps/ (README: "Offline machines").
set -u
out=${1:?usage: lab-check.sh OUTDIR [STEPS]}
steps=${2:-"test run sweep profile demo triton"}
mkdir -p "$out"
cd "$(dirname "$0")/../.." || exit 1

make_args=""
if ls .deps/*.deb >/dev/null 2>&1; then
    echo "lab-check: unpacking .deps/*.deb into /tmp/sysroot (dpkg -x, nothing installed): the tests' CMocka, as CMOCKA_ROOT=/tmp/sysroot/usr"
    mkdir -p /tmp/sysroot && for f in .deps/*.deb; do dpkg -x "$f" /tmp/sysroot; done
    make_args="CMOCKA_ROOT=/tmp/sysroot/usr"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader \
    > "$out/gpu.txt" 2>&1
echo "== $(cat "$out/gpu.txt"), $(date -u +%Y-%m-%dT%H:%MZ)"
make -j"$(nproc)" all $make_args > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

status=0
for step in $steps; do
    case $step in
    test)
        make test REQUIRE_GPU=1 $make_args > "$out/test.log" 2>&1 || status=1
        echo "== make test: $(grep -c '^\[  PASSED  \]' "$out/test.log") groups passed," \
            "$(grep -c '^\[  FAILED  \]' "$out/test.log") failed lines," \
            "$(grep -c '^\[  SKIPPED \]' "$out/test.log") skipped lines"
        grep -E '^\[  (PASSED|FAILED|SKIPPED) \]' "$out/test.log" | sort | uniq -c ;;
    run)
        for preset in main small-binned; do
            ./build/course --preset "$preset" --reps 20 --csv "$out/run-$preset.csv" \
                > "$out/run-$preset.txt" 2>&1 || status=1
            cat "$out/run-$preset.txt"
        done ;;
    sweep)
        SWEEP_CSV="$out/sweep.csv" tools/results/sweep.sh ./build/course > "$out/sweep.txt" 2>&1 || status=1
        cat "$out/sweep.txt" ;;
    profile)
        for lesson in day*/; do
            lesson=${lesson%/}
            case $lesson in day01*) continue ;; esac
            make -s profile DAY="$(echo "$lesson" | cut -c4-5)" > "$out/profile-$lesson.txt" 2>&1 || status=1
            echo "== profile $lesson"; cat "$out/profile-$lesson.txt"
        done ;;
    demo)
        make -s demo > "$out/demo.txt" 2>&1 || status=1
        cat "$out/demo.txt" ;;
    triton)
        make -s triton > "$out/triton.txt" 2>&1 || status=1
        cat "$out/triton.txt" ;;
    esac
done
exit $status
