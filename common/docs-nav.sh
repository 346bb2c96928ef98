#!/bin/sh
# docs-nav.sh HTML_DIR LESSON...: previous / next links at the end of every lesson page of the
# notes (make docs), in lesson order, with the Exercises and Day 00 pages; made from the list of
# lesson folders, so a new lesson needs no edit anywhere else.
set -eu
html=$1
shift
page() { printf 'md_%s_README.html' "$1"; }
prev=
for lesson in "$@"; do
    next=
    found=0
    for l in "$@"; do
        if [ $found -eq 1 ]; then next=$l; break; fi
        [ "$l" = "$lesson" ] && found=1
    done
    nav='<p class="lesson-nav"><b>Lessons:</b> '
    if [ -n "$prev" ]; then nav="$nav&larr; <a href=\"$(page "$prev")\">$prev</a> | "; else nav="$nav<a href=\"day00.html\">day 00</a> | "; fi
    if [ -n "$next" ]; then nav="$nav<a href=\"$(page "$next")\">$next</a> &rarr; | "; fi
    nav="$nav<a href=\"exercises.html\">all exercises</a> | <a href=\"index.html\">the course</a></p>"
    f="$html/$(page "$lesson")"
    [ -f "$f" ] || { echo "docs-nav: no page $f for $lesson" >&2; exit 1; }
    # once, before the end of the page's contents
    if ! grep -q 'class="lesson-nav"' "$f"; then
        awk -v nav="$nav" '/<\/div><\/div><!-- contents -->/ && !done { print nav; done = 1 } { print }' \
            "$f" >"$f.new" && mv "$f.new" "$f"
    fi
    prev=$lesson
done
