#!/usr/bin/env bash
# student.sh DIR: write the student edition of this repository into DIR (`make student`).
#
# One source, two editions. In the sources, the code a student writes sits between
#
#     // SOLUTION name [impl impl ...]: what to write, in a sentence or two
#     //   (more lines of description: comment lines right after the first)
#     // stub: a line the student edition keeps so that it compiles, e.g. (void)bin_of;
#     ...the solution...
#     // END SOLUTION
#
# (`name` is the function the region belongs to; the brackets list the registry entries that
# cannot run without it). The student edition replaces each region by its description as a
# `// TODO(student) name [impls]:` block plus the stub lines. The build lists every such block
# (tools/student/todos.sh): `make run` reports those entries as "not written yet: name in file:line",
# `make test` fails on them by name, until the student's code is in and the TODO lines are gone.
#
# Files named in tools/student/instructor-only.txt (answer keys, the deliberately wrong kernels, this
# script, CI) are left out; everything else is copied as it is. DIR must not exist or be empty,
# and must lie outside this repository. DIR becomes a git repository with one commit, so that a
# student's `git diff` shows exactly what they wrote. In a git checkout the edition is made from
# one commit (STUDENT_COMMIT, default HEAD), never from uncommitted files.
set -euo pipefail

die() { echo "make student: $*" >&2; exit 2; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: tools/student/student.sh DIR"
root=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$root"
[ -f tools/student/instructor-only.txt ] || die "this is already a student edition (tools/student/instructor-only.txt is absent)"

dest=$1
mkdir -p -- "$dest" || die "cannot create '$dest'"
dest=$(cd -- "$dest" && pwd -P)
case "$dest/" in
"$root"/*) die "'$dest' lies inside the repository; choose a folder outside it" ;;
esac
[ -z "$(ls -A -- "$dest")" ] || die "'$dest' is not empty; choose a new folder"

# the files of the instructor edition: in a git checkout, exactly those of one commit
# (STUDENT_COMMIT, default HEAD), unpacked apart, so that nothing uncommitted is mixed in; outside
# one, every file but the build outputs, as it is
from="a working tree (not a git checkout)" note=""
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    rev=$(git rev-parse --verify -q "${STUDENT_COMMIT:-HEAD}^{commit}") ||
        die "STUDENT_COMMIT=${STUDENT_COMMIT:-HEAD} names no commit of this repository"
    from="commit $(git rev-parse --short "$rev")"
    [ -z "$(git status --porcelain --untracked-files=normal 2>/dev/null)" ] ||
        note=" (the working tree's uncommitted changes are not in it: commit them first to publish them)"
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' EXIT
    git archive "$rev" | tar -x -C "$tree"
    cd "$tree"
fi
find . -type f ! -path './build/*' ! -path './results/*' ! -path './docs/html/*' \
    ! -path './.git/*' | sed 's|^\./||' | sort >"$dest/.files"

# instructor-only patterns (shell globs, one per line, # comments)
is_instructor_only() {
    local f=$1 pattern
    while IFS= read -r pattern; do
        pattern=${pattern%%#*}
        pattern=${pattern%"${pattern##*[![:space:]]}"}
        [ -n "$pattern" ] || continue
        # shellcheck disable=SC2053
        [[ $f == $pattern ]] && return 0
    done <tools/student/instructor-only.txt
    return 1
}

# one region-stripping pass over a source file: exit status 3 on a malformed region
strip_regions() {
    awk -v file="$1" '
    function fail(msg) { printf "%s:%d: %s\n", file, NR, msg > "/dev/stderr"; bad = 1; exit 3 }
    mode == 0 && /^[ \t]*\/\/ SOLUTION / {
        if ($0 !~ /\/\/ SOLUTION [A-Za-z_][A-Za-z0-9_]* \[[A-Za-z0-9_ ]+\]:( |$)/)
            fail("expected // SOLUTION name [impl ...]: description")
        match($0, /^[ \t]*/); indent = substr($0, 1, RLENGTH)
        line = $0; sub(/\/\/ SOLUTION /, "// TODO(student) ", line); print line
        mode = 1; stubs = ""; begin = NR; regions++; next
    }
    mode == 0 && /\/\/ END SOLUTION/ { fail("END SOLUTION without SOLUTION") }
    mode == 1 && /^[ \t]*\/\/ stub: / { s = $0; sub(/\/\/ stub: /, "", s); stubs = stubs s "\n"; next }
    mode == 1 && /^[ \t]*\/\// && !/SOLUTION/ { print; next }
    mode == 1 {
        print indent "//   See your lesson README.md, \"Your task\". When your code is in, delete"
        print indent "//   these TODO lines: then make run times it and make test grades it."
        printf "%s", stubs
        mode = 2
    }
    mode == 2 && /^[ \t]*\/\/ SOLUTION / { fail("SOLUTION inside the region opened at line " begin) }
    mode == 2 && /\/\/ END SOLUTION/ { mode = 0; next }
    mode == 2 { next }
    { print }
    END {
        if (bad) exit 3
        if (mode != 0) { printf "%s:%d: SOLUTION never closed by // END SOLUTION\n", file, begin > "/dev/stderr"; exit 3 }
        printf "%d\n", regions + 0 > "/dev/fd/3"
    }' "$1"
}

# A page as the student edition shows it: the lines between "<!-- instructor -->" and
# "<!-- /instructor -->" left out (answers, measurements of an exercise, the instructor's tools),
# the lines between "<!-- student" and "-->" kept without the two marker lines (text for the
# student edition only, a comment in the instructor edition), and the instructor's notes on the
# data that make tables writes under a table (a stale measurement's line, a record of another
# GPU or version) left out. Exit status 3 on a block left open.
edition_text() {
    awk -v file="$1" '
    /^\*(Stale: |A record: )/ || /^\*[^*]*: a record of the version tried at / { next }
    /^<!-- instructor -->[ \t]*$/ { if (mode) bad = 1; mode = "i"; begin = NR; next }
    /^<!-- \/instructor -->[ \t]*$/ { if (mode != "i") bad = 1; mode = ""; next }
    /^<!-- student[ \t]*$/ { if (mode) bad = 1; mode = "s"; begin = NR; next }
    mode == "s" && /^-->[ \t]*$/ { mode = ""; next }
    mode == "i" { next }
    { print }
    END {
        if (bad || mode) { printf "%s:%d: an instructor/student block is not closed\n", file, begin > "/dev/stderr"; exit 3 }
    }' "$1"
}

copied=0 left_out=0 regions=0 files_with_regions=0
while IFS= read -r f; do
    [ -f "$f" ] || continue
    if is_instructor_only "$f"; then
        left_out=$((left_out + 1))
        continue
    fi
    mkdir -p "$dest/$(dirname "$f")"
    case "$f" in
    *.c | *.h | *.cu | *.cuh)
        if grep -q '// SOLUTION ' "$f"; then
            n=$(strip_regions "$f" 3>&1 >"$dest/$f") || die "malformed SOLUTION region in $f"
            regions=$((regions + n))
            files_with_regions=$((files_with_regions + 1))
        else
            cp -p "$f" "$dest/$f"
        fi ;;
    *.md) edition_text "$f" >"$dest/$f" || die "malformed instructor/student block in $f" ;;
    *) cp -p "$f" "$dest/$f" ;;
    esac
    [ ! -x "$f" ] || chmod +x "$dest/$f"
    copied=$((copied + 1))
done <"$dest/.files"
rm -f "$dest/.files"
# the pages' code blocks (`<!-- table code ... -->`) again, from the student edition's own sources:
# where a block shows a SOLUTION region, the student sees its TODO
mapfile -t pages < <(grep -rl --include='*.md' -e '^<!-- table \(code\|diff\) ' "$dest")
if [ ${#pages[@]} -gt 0 ]; then
    python3 "$dest/tools/results/tables.py" --code-only "${pages[@]}" >/dev/null ||
        die "the student edition's code blocks could not be made (tools/results/tables.py --code-only)"
fi
# which implementations the student writes, lesson by lesson (make grade's points): read from the
# SOLUTION regions here, since the student edition has none
tools/student/student-code.sh . >"$dest/tools/student/student-code.txt"

if command -v git >/dev/null 2>&1; then
    (cd "$dest" && git init -q && git add -A &&
        git -c user.name="GPU histogram course" -c user.email="course@localhost" \
            commit -q -m "Student edition, generated from $from by make student")
fi
echo "student edition in $dest, from $from: $copied files, $regions TODO regions in" \
    "$files_with_regions files, $left_out instructor-only files left out$note"
echo "next: cd $dest && make test DAY=01"
