#!/bin/sh
# sanitize.sh COURSE_BIN: compute-sanitizer's memcheck, racecheck, initcheck and synccheck over
# every GPU implementation of the course, on small shapes (a partial channel group, with rows
# enough for a dynamic tile of day 06's final kernel; one channel with a non-byte binning) under
# every distribution. Every implementation runs on every shape its constraints accept (no --impl:
# one named on a shape it refuses would be exit status 4). Fails on any report.
set -u
bin=$1
command -v compute-sanitizer >/dev/null 2>&1 ||
    { echo "sanitize: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2; exit 1; }
if "$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | grep -q "skipped: no GPU"; then
    echo "sanitize: needs a CUDA device; none here" >&2
    exit 1
fi
impls=$("$bin" --list | awk '$3 == "device" { printf "%s%s", sep, $2; sep = "," }')
status=0
runs=0
for tool in memcheck racecheck initcheck synccheck; do
    for shape in "--rows 4100 --channels 528" "--preset small-binned --rows 3000"; do
        for dist in uniform constant contention:90 runs:7; do
            out=$(compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
                "$bin" $shape --dist "$dist" --reps 1 --warmup 0 2>&1)
            rc=$?
            runs=$((runs + 1))
            summary=$(printf '%s\n' "$out" | grep "SUMMARY" | tail -n 1)
            if [ $rc -ne 0 ]; then
                status=1
                echo "FAILED: $tool $shape --dist $dist (exit $rc): $summary"
                printf '%s\n' "$out" | grep -v "^day0\|^#\|^lesson" | tail -n 25
            fi
        done
    done
    echo "$tool: $([ $status -eq 0 ] && echo clean so far || echo reports above) ($summary)"
done
echo "sanitize: $runs runs of $(echo "$impls" | tr ',' '\n' | wc -l) GPU implementations," \
    "$([ $status -eq 0 ] && echo 'all clean' || echo 'FAILURES above')"
exit $status
