#!/usr/bin/env bash
# student-walk.sh: a new student's first days, scripted (instructor edition only; CI runs it, and
# the GPU machine, where the GPU tests run too). From a clone with uncommitted changes it
# publishes the student edition, then, as a student would: reads its README, builds and tests
# before writing anything, writes day 01 wrong and then right, writes day 04, runs, plots and
# grades, and checks at each step what issue 27 asks of the student path (items 1-15). One line per step;
# exit status 1 at the first step that does not hold.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "walk: $*"; }
fail() { echo "student-walk: FAILED: $*" >&2; exit 1; }
has_gpu=0
nvidia-smi -L >/dev/null 2>&1 && has_gpu=1

# 1. publishing: one commit, nothing uncommitted mixed in, and the message says so
git clone -q "$src" "$work/instructor"
echo "uncommitted" >"$work/instructor/planted-uncommitted.txt"
echo "/* uncommitted */" >>"$work/instructor/common/hist.h"
(cd "$work/instructor" && make -s student STUDENT_DIR="$work/student") >"$work/publish.txt"
grep -q "uncommitted changes are not in it" "$work/publish.txt" || fail "make student did not name the uncommitted changes"
[ ! -e "$work/student/planted-uncommitted.txt" ] || fail "an uncommitted file is in the student edition"
! grep -q "uncommitted" "$work/student/common/hist.h" || fail "an uncommitted change is in the student edition"
step "1 published from one commit, the uncommitted changes named and left out"
cd "$work/student"

# 2. the README is the student's
grep -q "Your edition: the student edition" README.md || fail "the student README has no student section"
for word in "instructor edition\*\*" test_wrong student-check "make answers" tools/answers; do
    ! grep -q -- "$word" README.md || fail "the student README still says '$word'"
done
step "2 the README speaks to the student"

# 3. no solution given away (tools/student/leaks.py, also run by student-check.sh), and the check
#    catches a planted one
python3 "$src/tools/student/leaks.py" "$src" . >/dev/null || fail "the student edition gives a solution away"
cp README.md "$work/readme.keep"
{ echo '```'; sed -n '/SOLUTION aggregate/,/END SOLUTION/p' "$src/day04_shared/shared.cu" | grep -v '//'; echo '```'; } >>README.md
! python3 "$src/tools/student/leaks.py" "$src" . >/dev/null 2>&1 || fail "leaks.py missed a solution pasted into the README"
cp "$work/readme.keep" README.md
step "3 no solution in the student edition; a planted one is caught"
# 3b. day 04's and day 06's regions can be written from what the student edition gives: every name
#     a solution uses is in the TODO or the code around it (tools/student/writable.py); a helper
#     the edition no longer gives is caught
regions04_06="day04_shared/shared.cu day06_roofline/roofline.cuh day06_roofline/steps.cu day06_roofline/plan.cu"
# shellcheck disable=SC2086
python3 "$src/tools/student/writable.py" "$src" . $regions04_06 >"$work/writable.txt" ||
    { cat "$work/writable.txt"; fail "a day 04 or day 06 region needs a name its TODO never gives"; }
cp day04_shared/shared.cu "$work/shared.keep"
sed -i 's/\bcount_bin\b/count_one/g' day04_shared/shared.cu
! python3 "$src/tools/student/writable.py" "$src" . day04_shared/shared.cu >/dev/null 2>&1 ||
    fail "writable.py missed a helper the student edition no longer names"
cp "$work/shared.keep" day04_shared/shared.cu
step "3b day 04's and day 06's $(grep -c 'every name it uses is given' "$work/writable.txt") regions name everything they need"

# 4. day 07's task names the blocks of day 06 it needs
for f in count_word slot_to_channel virtual_width; do
    sed -n '/^## Your task/,/^## /p' day07_scale/README.md | grep -q "$f" || fail "day 07's task does not name $f"
done
step "4 day 07's task names day 06's blocks"

# 5, 9, 11. before writing anything: make test DAY=01 fails by name, briefly, and leaves the
#    README's commands working
make -s test DAY=1 >"$work/t01.txt" 2>&1 && fail "make test DAY=1 passed with nothing written"
[ -x build/day01_cpu ] || fail "build/day01_cpu is missing after make test"
./build/day01_cpu --list >/dev/null || fail "./build/day01_cpu --list"
grep -q "not written yet: count_rows in day01_cpu/cpu_hist.c:[0-9]*" "$work/t01.txt" || fail "make test does not name count_rows"
grep -qE '^tests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$work/t01.txt" || fail "make test has no closing count"
./build/day01_cpu --rows 10 --channels 2 --reps 1 >"$work/r01.txt" 2>&1 || true
grep -o 'not written yet: .*' "$work/r01.txt" | tr ',' '\n' | sed 's/^not written yet: //; s/^ *//' |
    grep -vE '^[A-Za-z0-9_]+ in [A-Za-z0-9_./]+\.(c|cu|cuh|h):[0-9]+$' && fail "a 'not written yet' message is cut short"
step "5, 9, 11 unwritten code named in full, in a short test summary; build/ links made by make test"

# 12. day 01 written with a bug: the failure names the case, the counters, and the poison
sed 's/for (uint32_t c = 0; c < p->channels; ++c) {/for (uint32_t c = 0; c + 1 < p->channels; ++c) {/' \
    "$src/day01_cpu/cpu_hist.c" >day01_cpu/cpu_hist.c
grep -q 'c + 1 < p->channels' day01_cpu/cpu_hist.c || fail "could not plant day 01's bug"
make -s test DAY=01 >"$work/t01bug.txt" 2>&1 && fail "a merge that drops the last channel passed"
for want in "---- FAILED: cpu_private" "cpu_private is not exact on rows=" "channel, bin, expected, got" \
    "is the poison the harness writes"; do
    grep -q -- "$want" "$work/t01bug.txt" || { cat "$work/t01bug.txt"; fail "the failure does not say '$want'"; }
done
[ "$(wc -l <"$work/t01bug.txt")" -le 40 ] || fail "a failing make test DAY=01 printed more than 40 lines"
step "12 a wrong day 01 fails under its own test, with the case, the counters and the poison explained"

# 15. counters too small for the counts: a float sum (day 01) and, on a GPU, 16-bit per-block
# counters (day 04) pass on the presets and must fail on the checks' large counts
sed 's/uint32_t sum = 0;/float sum = 0;/' "$src/day01_cpu/cpu_hist.c" >day01_cpu/cpu_hist.c
grep -q 'float sum = 0;' day01_cpu/cpu_hist.c || fail "could not plant day 01's float sum"
make -s test DAY=01 >"$work/t01w16.txt" 2>&1 && fail "day 01 with a float sum passed"
grep -Eq "cpu_private is not exact on rows=(268435456|16777223) " "$work/t01w16.txt" ||
    { cat "$work/t01w16.txt"; fail "day 01's float sum was not caught by the large counts"; }
if [ $has_gpu = 1 ]; then
    cp "$src/day04_shared/shared.cu" day04_shared/shared.cu
    sed -i 's/atomicAdd(&d_hist_group\[k\], s_hist\[k\]);/atomicAdd(\&d_hist_group[k], s_hist[k] \& 0xFFFFu);/' \
        day04_shared/shared.cu
    grep -q 's_hist\[k\] & 0xFFFFu' day04_shared/shared.cu || fail "could not plant day 04's 16-bit counters"
    make -s test DAY=04 >"$work/t04w16.txt" 2>&1 && fail "day 04 with 16-bit counters per block passed"
    grep -q "is not exact on rows=" "$work/t04w16.txt" ||
        { cat "$work/t04w16.txt"; fail "day 04's 16-bit counters were not caught"; }
fi
step "15 a float sum (day 01) and 16-bit counters per block (day 04) caught by the large counts$([ $has_gpu = 1 ] || echo ' (day 04 on a GPU only: no GPU)')"

# day 01 and day 04 written right
cp "$src/day01_cpu/cpu_hist.c" day01_cpu/cpu_hist.c
cp "$src/day04_shared/shared.cu" day04_shared/shared.cu
make -s test DAY=01 >"$work/t01ok.txt" 2>&1 || { cat "$work/t01ok.txt"; fail "day 01 written right fails"; }
# (the build's own lines, one short line per file, aside)
[ "$(grep -cv '^  \(CC\|NVCC\|AR\|LINK\) ' "$work/t01ok.txt")" -le 6 ] || { cat "$work/t01ok.txt"; fail "a passing make test DAY=01 is not short"; }
make -s test DAY=day04 >"$work/t04.txt" 2>&1 || { cat "$work/t04.txt"; fail "day 04 written right fails"; }
step "day 01 and day 04 written: their tests pass$([ $has_gpu = 1 ] || echo ' (GPU tests skipped: no GPU)')"

# 13. fast feedback: make test DAY=04 after an edit within 60 s on a GPU; the README's measured
# per-day times all within 60 s
touch day04_shared/shared.cu
start=$(date +%s)
make -s test DAY=04 >"$work/t04again.txt" 2>&1 || { cat "$work/t04again.txt"; fail "day 04 fails after a touch"; }
took=$(($(date +%s) - start))
[ $has_gpu = 0 ] || [ $took -le 60 ] || fail "make test DAY=04 after an edit took $took s (goal: 60)"
awk -F, '!/^#/ && NR > 2 && $2 > 60 { bad = 1 } END { exit bad }' docs/data/h100_test_times.csv ||
    fail "a lesson's measured make test DAY=NN time is above 60 s (docs/data/h100_test_times.csv)"
step "13 make test DAY=04 after an edit: $took s; every lesson's measured time within 60 s"

# 6, 7. running, plotting and testing change no tracked file; a lesson's run keeps its own results
git add -A && git -c user.name=s -c user.email=s@x commit -qm "my day 01 and day 04"
make -s run DAY=01 ARGS="--rows 1000 --channels 8 --reps 1" >/dev/null
make -s -C day04_shared run RUN_PRESETS=small-binned >/dev/null
make -s plot >"$work/plot.txt" 2>&1 || fail "make plot failed"
if [ $has_gpu = 0 ]; then
    [ "$(wc -l <"$work/plot.txt")" -eq 1 ] && grep -q "no GPU results" "$work/plot.txt" ||
        { cat "$work/plot.txt"; fail "make plot without GPU results is not one line saying so"; }
fi
[ -z "$(git status --porcelain)" ] || { git status --short; fail "run, test or plot changed a tracked file"; }
ls results/day01_cpu/args/*.csv results/day04_shared/*.csv >/dev/null || fail "a lesson's results are not in results/<lesson>/"
! ls results/*.csv >/dev/null 2>&1 || fail "a lesson's run wrote into the course's results/"
step "6, 7 run, test and plot leave every tracked file alone; lesson runs keep their own results"

# 8. no GPU: said once, in words that are true
if [ $has_gpu = 0 ]; then
    ./build/day04_shared --rows 10 --channels 2 --reps 1 >"$work/nogpu.txt" 2>&1
    [ "$(grep -c 'no NVIDIA driver/GPU found' "$work/nogpu.txt")" -eq 1 ] || fail "the missing GPU is not said exactly once"
    ! grep -q "driver version is insufficient" "$work/nogpu.txt" || fail "the runtime's words leak"
    step "8 no GPU: said once"
fi

# 10. make help is aligned; DAY takes the forms a person types
# (a target too long for the column says what it does on the next line: its own line is left out)
make -s help | grep '^make [a-z]' | awk 'NF > 2' |
    awk '{ if (substr($0, 15, 1) != " " || substr($0, 16, 1) == " ") bad = 1 } END { exit bad }' ||
    fail "make help's descriptions do not line up"
make -s -n test DAY=4 >/dev/null && make -s -n test DAY=day04 >/dev/null && make -s -n test DAY=04 >/dev/null ||
    fail "DAY=4, DAY=04 or DAY=day04 refused"
# a lesson number one past the last lesson's: no folder has it
last=$(ls -d day[0-9][0-9]_*/ | tail -n 1 | cut -c4-5)
none=$((10#$last + 1))
make -n test DAY=$none >"$work/none.txt" 2>&1 && fail "DAY=$none (no such lesson) was accepted"
grep -q "names no lesson.*day01_cpu" "$work/none.txt" ||
    fail "DAY=$none (no such lesson) is not refused with the valid values"
step "10 make help aligned; DAY=4, 04, day04 accepted, a lesson past the last refused"

# 14. grades: only what the student writes; a partial grade says so
make -s grade DAY=07 >"$work/g07.txt" 2>&1 || true
grep -q "pipe_pinned .*given code: not graded" "$work/g07.txt" || { cat "$work/g07.txt"; fail "day 07's given pipelines are graded"; }
make -s grade DAY=01 >"$work/g01.txt" 2>&1 || true
grep -q "^partial grade: 1 of the course's" "$work/g01.txt" || { cat "$work/g01.txt"; fail "a one-lesson grade does not say it is partial"; }
grep -q "cpu_private .* 100.0$" "$work/g01.txt" || { cat "$work/g01.txt"; fail "day 01 written right does not earn its points"; }
step "14 grades only the student's code, and a partial grade says so"

echo "student-walk: every step held"
