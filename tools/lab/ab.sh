#!/bin/sh
# ab.sh BEFORE AFTER OUT [ROUNDS]: the course's flagship kernels built from two versions of the
# course, timed alternately in one run on this GPU, so that a change that must not slow them (a
# restructuring, a new toolkit) is checked against the code before it on the same card in the
# same minutes. BEFORE and AFTER are two build folders (build/sm_90 of each tree, `make all` done
# in each); OUT is the record written (kept in docs/data as TAG-try_NAME.txt, a version tried).
#
# Each case runs ROUNDS times (default 3) for each version in turn, `course --reps 20` (50 for
# the few-megabyte pmpp presets), the L2 flushed before every repetition as always; the record
# lists every run (median us, share of the floor measured in that run, the check), then a table:
# the median of each version's medians, after / before, and the spread of each version (its
# largest median over its smallest, minus one). A difference within the spread is noise.
set -eu
[ $# -ge 3 ] || { echo "usage: tools/lab/ab.sh BEFORE_BUILD AFTER_BUILD OUT [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 out=$3 rounds=${4:-3}
for b in "$before" "$after"; do
    [ -x "$b/course" ] || { echo "ab.sh: $b/course is not built (make all there first)" >&2; exit 2; }
done
# preset:distribution:implementation
# (a pmpp preset's distribution is its own: GPU MODE's contention, "-")
cases="main:uniform:gpu_roofline pmpp:1:-:gpu_roofline pmpp:2:-:gpu_roofline
pmpp:3:-:gpu_roofline pmpp:4:-:gpu_roofline pmpp:5:-:gpu_roofline
pmpp:6:-:gpu_roofline u16:uniform:gpu_wide u16:constant:gpu_wide
u16:contention:90:gpu_wide u16x8:uniform:gpu_exchange16 u16x8:constant:gpu_exchange16
u16x8:contention:90:gpu_exchange16"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
{
    echo "# ${gpu:-unknown GPU}, $(date -u +%Y-%m-%dT%H:%M:%SZ), course ${COURSE_COMMIT:-?}:" \
        "tools/lab/ab.sh $before $after OUT $rounds (before: $before, after: $after, each case" \
        "$rounds rounds, the versions alternating: course --preset P --dist D --impl I --reps 20" \
        "(pmpp: its own distribution, --reps 50); median us, % of the floor of the same run, the check)"
    for r in $(seq "$rounds"); do
        for c in $cases; do
            impl=${c##*:} rest=${c%:*}
            case $rest in pmpp:*) preset=${rest%:*} dist=- reps=50 ;;
            *) preset=${rest%%:*} dist=${rest#*:} reps=20 ;; esac
            set -- --preset "$preset" --impl "$impl" --reps "$reps"
            [ "$dist" = - ] || set -- "$@" --dist "$dist"
            for v in before after; do
                eval "b=\$$v"
                "$b/course" "$@" --csv "$tmp/x.csv" --require-gpu > /dev/null
                line=$(awk -F, 'NR == 2 { printf "%s us %s%% %s", $5, $10, $13 }' "$tmp/x.csv")
                echo "run $r, $preset $dist $impl, $v: $line"
                echo "$preset $dist $impl $v $(echo "$line" | cut -d' ' -f1)" >> "$tmp/all"
            done
        done
    done
    echo
    echo "| case | before (us) | after (us) | after / before | spread before | spread after |"
    echo "| --- | --- | --- | --- | --- | --- |"
    awk '
    { key = $1 " " $2 " " $3; t[key, $4, ++n[key, $4]] = $5; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    function med(key, v,   m, i, j, a, x) {
        m = n[key, v]; for (i = 1; i <= m; ++i) a[i] = t[key, v, i]
        for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    function spread(key, v,   i, lo, hi) {
        lo = hi = t[key, v, 1]
        for (i = 2; i <= n[key, v]; ++i) { if (t[key, v, i] < lo) lo = t[key, v, i]; if (t[key, v, i] > hi) hi = t[key, v, i] }
        return 100 * (hi / lo - 1)
    }
    END {
        for (i = 1; i <= k; ++i) {
            b = med(order[i], "before"); a = med(order[i], "after")
            printf "| %s | %.1f | %.1f | %.3f | %.1f%% | %.1f%% |\n", order[i], b, a, a / b,
                spread(order[i], "before"), spread(order[i], "after")
        }
    }' "$tmp/all"
} > "$out.tmp"
mv "$out.tmp" "$out"
tail -n 16 "$out"
