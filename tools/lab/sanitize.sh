#!/bin/sh
# sanitize.sh COURSE_BIN: compute-sanitizer's memcheck, racecheck, initcheck and synccheck over
# every GPU implementation of the course, on small shapes (a partial channel group, with rows
# enough for a dynamic tile of day 06's final kernel; one channel with a non-byte binning) under
# every distribution. Every implementation runs on every shape its constraints accept (no --impl:
# one named on a shape it refuses would be exit status 4). Fails on any report. SANITIZE_TOOLS
# picks some of the four tools.
set -u
bin=$1
command -v compute-sanitizer >/dev/null 2>&1 ||
    { echo "sanitize: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2; exit 1; }
if "$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | grep -q "skipped: no GPU"; then
    echo "sanitize: needs a CUDA device; none here" >&2
    exit 1
fi
impls=$("$bin" --list | awk '$3 == "device" { printf "%s%s", sep, $2; sep = "," }')
# the GPU as the harness reports it ("... limited to rtx4090" under GPU_LIMITS)
echo "sanitize: on $("$bin" --impl gpu_naive --rows 1 --channels 1 --reps 1 | sed -n 's/.*; GPU: //p')"
# NCCL's own handled error: on initialisation it asks the runtime for each of its kernels
# (cudaFuncGetAttributes in ncclInitKernelsForDevice) and skips those built for other GPUs, which
# memcheck reports as cudaErrorNoKernelImageForDevice. Exactly those reports, whose first host frame
# is in libnccl, are excluded and counted; every other report fails the run.
nccl_handled() {
    awk '/^========= Program hit cudaErrorNoKernelImageForDevice/ { want = 1; next }
         want && /Host Frame:/ { if ($0 ~ /libnccl\.so/) n++; want = 0 }
         END { print n + 0 }'
}
status=0
runs=0
excluded=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
    for shape in "--rows 4100 --channels 528" "--preset small-binned --rows 3000"; do
        for dist in uniform constant contention:90 runs:7; do
            out=$(compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 1000 \
                "$bin" $shape --dist "$dist" --reps 1 --warmup 0 2>&1)
            rc=$?
            runs=$((runs + 1))
            summary=$(printf '%s\n' "$out" | grep "SUMMARY" | tail -n 1)
            errors=$(printf '%s\n' "$summary" | sed -n 's/.*SUMMARY: \([0-9]*\) error.*/\1/p')
            nccl=$(printf '%s\n' "$out" | nccl_handled)
            if [ $rc -eq 9 ] && [ -n "$errors" ] && [ "$errors" -eq "$nccl" ]; then
                excluded=$((excluded + nccl))
                rc=0
            fi
            if [ $rc -ne 0 ]; then
                status=1
                echo "FAILED: $tool $shape --dist $dist (exit $rc): $summary"
                printf '%s\n' "$out" | grep -v "^day0\|^#\|^lesson" | tail -n 25
            fi
        done
    done
    echo "$tool: $([ $status -eq 0 ] && echo clean so far || echo reports above) ($summary$([ "${nccl:-0}" -gt 0 ] && echo "; those $nccl are NCCL's own handled ones, excluded"))"
done
echo "sanitize: $runs runs of $(echo "$impls" | tr ',' '\n' | wc -l) GPU implementations," \
    "$([ $status -eq 0 ] && echo 'all clean' || echo 'FAILURES above')$([ $excluded -gt 0 ] &&
    echo "; $excluded reports excluded: NCCL's own handled cudaErrorNoKernelImageForDevice in" \
         "ncclInitKernelsForDevice (it probes its kernels for other GPUs), nothing else")"
exit $status
