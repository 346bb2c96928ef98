#!/bin/sh
# run-tests.sh LOGDIR TEST...: make test's runner. Runs each CMocka program with its whole output
# kept in LOGDIR/<program>.log and prints one line per lesson (its programs added up; one per
# harness program), the first failing test's own output, and a last line that adds them up:
#
#     day04_shared:                  2 passed, 0 failed, 4 skipped (no NVIDIA driver/GPU found) [1 s]
#     day07_scale:                   7 passed, 0 failed, 13 skipped (no NVIDIA driver/GPU found; 1 long: SLOW=1) [3 s]
#     ...
#     tests: 61 passed, 0 failed, 39 skipped
#
# V=1 prints every program's whole output too (what CMocka prints). The exit
# status is 1 when a test failed or a program crashed, else 0.
set -u
logdir=$1
shift
mkdir -p "$logdir"
passed=0 failed=0 skipped=0 status=0

# the line a program's counts go to: a lesson's programs share the lesson's line
# ("build/sm_90/day04_shared/test_lesson" -> "day04_shared")
label_of() {
    dir=$(basename "$(dirname "$1")") name=$(basename "$1")
    case $name in
    test_lesson | test_day*) echo "$dir" ;;
    test_harness) echo "harness" ;;
    test_gpu_harness) echo "harness on the GPU" ;;
    test_properties) echo "property test (random cases)" ;;
    test_wrong) echo "wrong kernels caught" ;;
    *) echo "$name" ;;
    esac
}

# the numbers CMocka prints on its summary lines WHAT ("PASSED", "FAILED", "SKIPPED"), added up
# over the program's groups of tests
count_of() {
    sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test(s).*/\1/p" "$2" | awk '{ n += $1 } END { print n + 0 }'
}

# one line per label: its counts, the commonest reason for a skip and how many long checks were
# skipped besides (SLOW=1 is the student's to add); then the first failing
# test's own output (CMocka's, from its RUN line to its FAILED line) and the others' names
current="" lp=0 lf=0 ls=0 lwhy="" llong=0 lnote="" lfail="" lstart=0
flush() {
    [ -n "$current" ] || return 0
    line="$lp passed, $lf failed, $ls skipped"
    case $lwhy in long:*) llong=0 ;; esac
    [ "$llong" = 0 ] || lwhy="${lwhy:+$lwhy; }$llong long: SLOW=1"
    [ "$ls" -gt 0 ] && [ -n "$lwhy" ] && line="$line ($lwhy)"
    printf '%-30s %s%s [%d s]\n' "$current:" "$line" "$lnote" $(($(date +%s) - lstart))
    [ -z "$lfail" ] || printf '%s' "$lfail"
}
failures() { # LOG: the first failing test's block (at most 24 lines), then the others' names
    awk '
        /^\[ RUN      \] / { name = substr($0, 14); buf = ""; n = 0; next }
        /^\[  FAILED  \] / && name != "" && substr($0, 14) == name {
            if (!shown) { printf "---- FAILED: %s\n%s", name, buf; shown = 1 }
            else others = others (others == "" ? "" : ", ") name
            name = ""; next }
        /^\[       OK \] |^\[  SKIPPED \] / { name = ""; next }
        name != "" && ++n <= 24 { buf = buf "    " $0 "\n" }
        END { if (others != "") printf "---- also FAILED: %s\n", others }' "$1"
}
for t in "$@"; do
    log=$logdir/$(echo "$t" | tr '/' '_').log
    label=$(label_of "$t")
    if [ "$label" != "$current" ]; then
        flush
        current=$label lp=0 lf=0 ls=0 lwhy="" llong=0 lnote="" lfail="" lstart=$(date +%s)
    fi
    "./$t" >"$log" 2>&1
    rc=$?
    [ "${V:-0}" != 1 ] || cat "$log"
    p=$(count_of PASSED "$log") f=$(count_of FAILED "$log") s=$(count_of SKIPPED "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        lnote="$lnote (${t##*/} stopped with exit status $rc before its summary: see $log)"
        f=1
    fi
    why=$(sed -n 's/^skipped: //p' "$log" | sort | uniq -c | sort -rn | head -n 1 |
        sed 's/^ *[0-9]* //')
    [ -n "$lwhy" ] || lwhy=$why
    llong=$((llong + $(grep -c '^skipped: long:' "$log")))
    lp=$((lp + p)) lf=$((lf + f)) ls=$((ls + s))
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    if [ "$f" -gt 0 ]; then
        status=1
        # a lesson's first failure says it all; its own tests' failures are then only named
        if [ "${V:-0}" != 1 ] && [ -z "$lfail" ]; then
            lfail=$(failures "$log")
            lfail="$lfail
"
        elif [ "${V:-0}" != 1 ]; then
            lfail="$lfail$(failures "$log" | sed -n -e 's/^---- FAILED: /---- also FAILED: /' -e '/^---- also/p')
"
        fi
    fi
done
flush
echo "(every program's whole output: $logdir/; make test V=1 prints it)"
[ "${HIST_SLOW:-}" = 1 ] ||
    echo "(the quick tests: make test SLOW=1 adds the long checks and the CPU's full-size data, as CI does)"
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
