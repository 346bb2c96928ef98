#!/bin/sh
# exercises-page.sh OUT LESSON...: the notes' Exercises page (make docs), from the "## Exercises"
# section of each lesson's README, in lesson order; where a lesson has an ANSWERS.md (the
# instructor edition), a link to its worked answers follows. OUT's links are relative to OUT's
# folder, two levels below the repository root (build/docs/).
set -eu
out=$1
shift
mkdir -p "$(dirname "$out")"
{
    echo "# Exercises {#exercises}"
    echo
    echo "Every exercise of the course, lesson by lesson, as each lesson's README states it."
    echo "Predict first, then measure: the lesson's README has the numbers to predict from."
    for lesson in "$@"; do
        title=$(head -n 1 "$lesson/README.md" | sed 's/^# *//')
        echo
        echo "## $title"
        echo
        echo "From [$lesson/README.md](../../$lesson/README.md)."
        awk '/^## Exercises/ { on = 1; next } /^## / { on = 0 } on' "$lesson/README.md"
        if [ -f "$lesson/ANSWERS.md" ]; then
            echo "**Worked answers, with the measurements** (instructor edition):"
            echo "[$lesson/ANSWERS.md](../../$lesson/ANSWERS.md)."
        fi
    done
} >"$out.new"
mv -f "$out.new" "$out"
