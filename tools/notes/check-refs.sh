#!/bin/sh
# check-refs.sh FILE.md...: references in the lesson text that cannot go stale (make docs runs it).
#  - no hand-typed source line numbers ("`name`, line 42", "(line 42)"): name the function instead;
#  - no code (backquotes) in a heading;
#  - every `snake_case` name in backquotes (a function, kernel, macro, variable or file name of
#    the course) exists in some source file of the repository.
# Exit status 1, with one line per broken reference, when one does not resolve.
set -eu
status=0
srcs=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.py' '*.sh' '*.mk' '*.gp' '*.awk' 'Makefile' \
    '*/Makefile' 2>/dev/null || find . -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh')
for md in "$@"; do
    grep -n -E '(`[^`]+`, lines? [0-9]+|\(lines? [0-9]+)' "$md" | while IFS= read -r hit; do
        echo "$md:${hit%%:*}: a hand-typed line number: name the function instead"
    done | grep . && status=1
    # no code in a heading: Doxygen shows it as raw <tt> in the notes' titles and side tree
    grep -n -E '^#+ .*`' "$md" | while IFS= read -r hit; do
        echo "$md:${hit%%:*}: code in a heading (backquotes): say it in the text below instead"
    done | grep . && status=1
    # backquoted snake_case names with at least one underscore, not paths or options; in the
    # student edition (no tools/student/instructor-only.txt) the "Your task" sections name code that
    # the student has still to write, so they are left out there
    text=$md
    if [ ! -f tools/student/instructor-only.txt ]; then
        text=$(mktemp)
        awk '/^## / { skip = ($0 ~ /^## Your task/) } !skip' "$md" >"$text"
    fi
    for name in $(grep -o '`[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*`' "$text" | tr -d '`' | sort -u); do
        # shellcheck disable=SC2086
        if ! grep -q -w -- "$name" $srcs; then
            echo "$md: \`$name\` is named in the text but found in no source file"
            status=1
        fi
    done
    [ "$text" = "$md" ] || rm -f "$text"
done
exit $status
