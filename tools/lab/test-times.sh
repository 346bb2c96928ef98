#!/bin/sh
# test-times.sh OUT.csv [NN...]: how long a student waits for `make test DAY=NN` after an edit, on
# this machine's GPU: for each lesson (default all), its kernel files touched, then
# `make test DAY=NN REQUIRE_GPU=1` timed on the wall clock, rebuild included. One CSV row per
# lesson (its first line says the GPU, date and commit); `make tables` shows it in the README's
# testing section. MAKE_ARGS passes more (CMOCKA_ROOT=... on an offline machine).
set -u
out=${1:?usage: test-times.sh OUT.csv [NN...]}
shift
cd "$(dirname "$0")/../.." || exit 1
days=${*:-$(ls -d day[0-9][0-9]_*/ | sed 's/^day\([0-9][0-9]\)_.*/\1/')}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu" ] || { echo "test-times: no GPU here (nvidia-smi lists none)" >&2; exit 2; }
# shellcheck disable=SC2086
make -s all ${MAKE_ARGS:-} >/dev/null || exit 1
status=0
{
    # COURSE_COMMIT: the commit measured, where this copy's .git does not know it
    echo "# $gpu, $(date -u +%Y-%m-%dT%H:%M:%SZ), course ${COURSE_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo '?')}: tools/lab/test-times.sh"
    echo "lesson,seconds (after an edit: rebuild and make test DAY=NN REQUIRE_GPU=1),result"
    for nn in $days; do
        lesson=$(ls -d day${nn}_*/ | sed 's|/$||')
        touch "$lesson"/*.c "$lesson"/*.cu "$lesson"/*.cuh 2>/dev/null
        start=$(date +%s)
        # shellcheck disable=SC2086
        make -s test DAY="$nn" REQUIRE_GPU=1 ${MAKE_ARGS:-} >"/tmp/test-times-$nn.log" 2>&1 || status=1
        seconds=$(($(date +%s) - start))
        result=$(tail -n 1 "/tmp/test-times-$nn.log" | sed 's/^tests: //; s/,/;/g')
        echo "$lesson,$seconds,$result"
        echo "test-times: $lesson $seconds s: $result" >&2
    done
} >"$out.tmp" && mv "$out.tmp" "$out"
exit $status
