#!/bin/sh
# grade.sh FILE...: one table of points from the verdicts the lesson tests wrote (make grade).
#
# Each lesson is worth 100 points, shared by its graded implementations: those with a target
# (hist_impl::target > 0) whose code the student writes in that lesson (a // SOLUTION region of
# its folder names them: tools/student/student-code.sh, or in the student edition the list it
# left in tools/student/student-code.txt). The others (cpu_reference, the library baseline
# gpu_cub, day 07's given pipelines) are listed without points. HIST_ALL_LESSONS names every
# lesson of the course, so that a grade of some lessons only says it is partial. 60 points for correctness, shared equally (an
# implementation earns its share when it is written and exact on every case of its test), and 40
# for performance, shared equally. As in
# Stanford CS149's grading, an exact implementation earns its full performance share within 1.2x
# of the target time (measured >= target / 1.2), and a share scaled by the ratio below that; a
# wrong one earns none. The time comes from calls on fresh inputs, each output checked exactly
# (common/fresh.h): an implementation whose output on one of them is wrong (it kept an answer
# across calls, skipped work, or depended on its input's address) is graded wrong ("WRONG, timed":
# no points for correctness or performance). GPU implementations tested on a machine without a GPU
# are not graded there: the table says so and leaves their points out of the total.
set -eu
here=$(dirname "$0")
code=$(mktemp)
trap 'rm -f "$code"' EXIT
if [ -f "$here/student-code.txt" ]; then cat "$here/student-code.txt"; else "$here/student-code.sh" "$here/../.."; fi >"$code"
awk -F '\t' -v code="$code" -v all_lessons="${HIST_ALL_LESSONS:-}" '
function label_of(st) {
    return st == "exact" ? "exact" : st == "not-written" ? "not written" : st == "no-gpu" ? \
           "no GPU here" : st == "not-built" ? "not built" : st == "not-on-gpu" ? "not this GPU" : \
           st == "-" ? "not tested" : st == "timed-wrong" ? "WRONG, timed" : "WRONG"
}
BEGIN {
    while ((getline line < code) > 0) { split(line, f, " "); writes[f[1] SUBSEP f[2]] = 1 }
    printf "%-22s %-24s %-12s %-30s %8s\n", "lesson", "implementation", "correct", \
           "performance (measured/target)", "points"
}
FNR == 1 { lessons[++nl] = $1 }
{
    key = $1 SUBSEP (++count[$1]); name[key] = $2; where[key] = $3; status[key] = $4
    cases[key] = $5; measured[key] = $6 + 0; target[key] = $7 + 0
    yours[key] = ($1 SUBSEP $2) in writes
    if (target[key] > 0 && yours[key]) graded[$1]++
}
END {
    total = 0; possible = 0; ungraded = 0
    for (l = 1; l <= nl; ++l) {
        lesson = lessons[l]; n = count[lesson]; earned = 0; max = 0
        for (i = 1; i <= n; ++i) {
            key = lesson SUBSEP i
            if (target[key] <= 0 || !yours[key]) {
                printf "%-22s %-24s %-12s %-30s %8s\n", lesson, name[key], label_of(status[key]), \
                       yours[key] ? "your code, no target: not graded" : "given code: not graded", "-"
                continue
            }
            c_share = 60 / graded[lesson]; p_share = 40 / graded[lesson]
            if (status[key] == "no-gpu" || status[key] == "not-built" || status[key] == "-" ||
                status[key] == "not-on-gpu") {
                ungraded += c_share + p_share
                printf "%-22s %-24s %-12s %-30s %8s\n", lesson, name[key], label_of(status[key]), "-", "-"
                continue
            }
            max += c_share + p_share
            c = status[key] == "exact" ? c_share : 0
            perf = "-"; p = 0
            if (p_share > 0 && status[key] == "exact" && measured[key] > 0) {
                ratio = measured[key] / (target[key] / 1.2)
                p = p_share * (ratio >= 1 ? 1 : ratio)
                perf = sprintf("%.1f%% / %.1f%%%s", 100 * measured[key], 100 * target[key], \
                               where[key] == "device" ? " of floor" : \
                               where[key] == "h2d" ? " of copy" : " per thread")
            } else if (p_share > 0) {
                perf = status[key] == "exact" ? "not timed" : status[key] == "timed-wrong" ? \
                       "0 (a timed call not exact)" : "0 (not exact)"
            }
            earned += c + p
            printf "%-22s %-24s %-12s %-30s %8.1f\n", lesson, name[key], label_of(status[key]), perf, c + p
        }
        printf "%-22s %-24s %-12s %-30s %4.1f/%-3d\n\n", lesson, "lesson total", "", "", earned, max + 0.5
        total += earned; possible += max
    }
    n_all = split(all_lessons, every, " ")
    if (n_all > nl)
        printf "partial grade: %d of the course'"'"'s %d lessons (make grade without DAY for all): %.1f of %.0f points", \
               nl, n_all, total, possible
    else
        printf "course: %.1f of %.0f points", total, possible
    if (ungraded > 0) printf " (%.0f more not graded here: no GPU)", ungraded
    printf "\n"
}' "$@"
