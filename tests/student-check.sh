#!/usr/bin/env bash
# student-check.sh: CI's check of the student edition (instructor edition only).
#
# Generates the student edition (make student) into a temporary folder, checks its make help
# (where to begin first, no instructor goal), builds it (warnings are
# errors there too) and its notes (make docs), runs its make test and checks that it fails exactly
# on the unwritten parts:
#  - every failing test says "not written yet", and nothing else fails;
#  - the unwritten parts the tests name are exactly tests/student-expected.txt (so a region left
#    unmarked, or marked by mistake, is caught), and every lesson has something to write;
#  - no instructor-only file (answer keys, wrong kernels, the lab notebooks) is in it, no page
#    says a measurement is stale or a record, and no solution stands anywhere in it
#    (tools/student/leaks.py);
#  - its pages name only what it ships and show only commands that work there (make check-pages
#    and make check-commands in it: tools/notes/check_pages.py and check_commands.py; the
#    problems tools/notes/known-student-pages.txt lists, in pages still to be fixed, aside), and
#    those checks fail on a reference planted in a page (a page, a file, a test, a section, the
#    notebook, a make goal and a program the edition does not have);
# Then it writes the solution back over day04's TODOs and checks that day04's lesson test passes
# (on a machine without a GPU its GPU tests skip).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir="$work/student edition"
make -s student STUDENT_DIR="$dir"
fail() { echo "student-check: $*" >&2; exit 1; }

for f in day*/ANSWERS.md tests/wrong/wrong.h tests/test_wrong.c tools/student/student.sh; do
    [ ! -e "$dir/$f" ] || fail "instructor-only file $f is in the student edition"
done
# the lessons' lab notebooks stay with the instructors, and no page a student gets carries the
# instructor's notes on the data: a stale measurement's line, or a record of another GPU or version
for f in day*/NOTES.md; do
    [ ! -e "$dir/$f" ] || fail "the lab notebook $f is in the student edition"
done
if grep -rn -E '^\*(Stale: |A record: )' "$dir" --include='*.md'; then
    fail "a page of the student edition carries instructor notes on the data (above)"
fi
grep -rl '// SOLUTION ' "$dir" --include='*.c' --include='*.cu' --include='*.cuh' --include='*.h' &&
    fail "SOLUTION regions left in the student edition"
# no solution given away elsewhere in the student's files (a sibling kernel, a README, an answer)
python3 tools/student/leaks.py . "$dir" || fail "the student edition gives a solution away (above)"

# the pages name only what the edition ships, and their make commands work in it
known=$(ls "$root/tools/notes/known-student-pages.txt" 2>/dev/null || true)
(cd "$dir" && make -s check-pages KNOWN_PROBLEMS="$known" >"$work/pages.txt" 2>&1) ||
    { grep -v ' words (at most' "$work/pages.txt"
      fail "a page of the student edition names what the edition does not ship, or a command that fails there (above)"; }
# ... and the checks fail on references planted in a page: each planted line is named
planted() { # $1: the check's output; $2...: what it must say of the planted page, each
    local out=$1 what
    shift
    for what in "$@"; do
        grep -q -F -- "$what" "$out" ||
            { cat "$out"; fail "the page check missed a planted reference: no line saying: $what"; }
    done
}
page=docs/DAY00.md
cp "$dir/$page" "$work/page.md"
cat >>"$dir/$page" <<'PLANTED'

Planted by tests/student-check.sh: [the answers](../day04_shared/ANSWERS.md), the wrong kernels
of `tests/wrong/wrong.h` that `test_wrong` runs, the notebook of day 06, `make answers`, and
*Two editions* above.
PLANTED
if (cd "$dir" && make -s check-pages KNOWN_PROBLEMS="$known" >"$work/planted.txt" 2>&1); then
    cat "$work/planted.txt"
    fail "the page check passed a page with planted references to what the edition does not ship"
fi
planted "$work/planted.txt" "$page:" "link to '../day04_shared/ANSWERS.md', which does not exist" \
    "names tests/wrong/wrong.h, which this edition does not have" "names the test test_wrong," \
    "names the notebook (NOTES.md)" '`make answers`: a goal this edition refuses' \
    "*Two editions* above: no heading of this page says it"
cp "$work/page.md" "$dir/$page"

# make help starts with where to begin, and lists none of the instructor's goals (which do not
# work there, or make and keep the instructor edition's data)
(cd "$dir" && make help) >"$work/help.txt" 2>&1 || fail "make help fails in the student edition"
head -n 3 "$work/help.txt" | tr '\n' ' ' | grep -q "^Start here: read docs/DAY00.md.*make doctor.*make test DAY=01" ||
    { head -n 3 "$work/help.txt"; fail "the student edition's make help does not start with where to begin"; }
[ "$(grep -m 1 '^make ' "$work/help.txt" | cut -d' ' -f2)" = doctor ] || fail "make help does not list make doctor first"
if grep -E '^make (student|answers|measure|tables|fuzz-kept) |-kept' "$work/help.txt"; then
    fail "the student edition's make help lists goals of the instructor edition (above)"
fi
(cd "$dir" && make -s -j"$(nproc)" all >"$work/build.txt" 2>&1) ||
    { cat "$work/build.txt"; fail "the student edition does not build"; }
# every command its pages show runs there (the programs with --help), and planted program lines
# that cannot are named
(cd "$dir" && make -s check-commands KNOWN_PROBLEMS="$known" >"$work/commands.txt" 2>&1) ||
    { cat "$work/commands.txt"; fail "a command a page of the student edition shows fails there (above)"; }
printf '\n```\n%s\n%s\n```\n' "./build/day04_shared/day04_shared --impl gpu_shared" \
    "./build/course --impl gpu_nothing --no-such-option" >>"$dir/$page"
if (cd "$dir" && python3 tools/notes/check_commands.py --programs "$page" >"$work/planted.txt" 2>&1); then
    cat "$work/planted.txt"
    fail "the command check passed a page with planted program lines that cannot run"
fi
planted "$work/planted.txt" "./build/day04_shared/day04_shared: Not a directory" \
    "its --list has no implementation gpu_nothing" "its --help has no option --no-such-option"
cp "$work/page.md" "$dir/$page"
(cd "$dir" && make docs KNOWN_PROBLEMS="$known" >"$work/docs.txt" 2>&1) ||
    { tail -20 "$work/docs.txt"; fail "the student edition's notes (make docs) do not build"; }
if (cd "$dir" && make test V=1 >"$work/test.txt" 2>&1); then
    fail "the student edition's make test passed: nothing left to write?"
fi

# every failed test's block mentions "not written yet"
awk '
/^\[ RUN      \] / { name = substr($0, 15); text = "" ; next }
{ text = text "\n" $0 }
/^\[  FAILED  \] / && name != "" && substr($0, 15) == name {
    if (text !~ /not written yet/) { print "failed for another reason: " name; print text; bad = 1 }
    name = ""
}
/^\[       OK \] |^\[  SKIPPED \] / { name = "" }
END { exit bad }' "$work/test.txt" || fail "a test of the student edition fails on something other than unwritten code"

# the unwritten parts named, against the expected list
grep -o 'not written yet: .*' "$work/test.txt" | sed 's/^not written yet: //; s/ (delete .*//' |
    tr ',' '\n' | sed -n 's/^ *\([A-Za-z0-9_]*\) in \([^:]*\):[0-9]*$/\2 \1/p' | LC_ALL=C sort -u >"$work/named.txt"
if ! diff -u tests/student-expected.txt "$work/named.txt"; then
    fail "the unwritten parts differ from tests/student-expected.txt (above: - expected, + named)"
fi
for lesson in day[0-9][0-9]_*/; do
    grep -q "^${lesson}" tests/student-expected.txt || fail "${lesson%/} has nothing for a student to write"
done

# the solution written back into day04 passes day04's tests again
cp day04_shared/shared.cu "$dir/day04_shared/shared.cu"
(cd "$dir" && make test DAY=04 >"$work/day04.txt" 2>&1) ||
    { cat "$work/day04.txt"; fail "day04 with its solution written in does not pass"; }
echo "student-check: the student edition builds; make test fails on exactly the" \
    "$(wc -l <"$work/named.txt") expected unwritten parts; day04 passes once written"
