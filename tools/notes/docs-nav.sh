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

# The lesson's code: each source file of the folder with its documented kernels (__global__
# functions, read from the file's page) and its source listing, at the end of the lesson page;
# and on each of those code pages, a link back to the lesson.
doxy_name() { # Doxygen's page name of a file: '_' doubled, '.' as '_8'
    basename "$1" | sed 's/_/__/g; s/\./_8/g'
}
for lesson in "$@"; do
    f="$html/$(page "$lesson")"
    grep -q 'class="lesson-code"' "$f" && continue
    title=$(head -n 1 "$lesson/README.md" | sed 's/^# *//; s/&/\&amp;/g; s/</\&lt;/g')
    code='<div class="lesson-code"><p><b>The code of this lesson in these notes</b></p><ul>'
    for src in $(cd "$lesson" && find . -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' -o -name '*.py' \) | sed 's|^\./||' | sort); do
        name=$(doxy_name "$src")
        doc="$name.html"
        # a Python script is documented as its module's namespace page
        [ -f "$html/$doc" ] || doc="namespace$(basename "${src%.*}" | sed 's/_/__/g').html"
        [ -f "$html/$doc" ] || { echo "docs-nav: no page $name.html for $lesson/$src" >&2; exit 1; }
        kernels=$(grep -oE '__global__ void&#160;</td><td class="mem(Templ)?ItemRight" valign="bottom"><a class="el" href="[^"]*">[^<]*</a>' "$html/$doc" |
            sed 's/.*href="\([^"]*\)">\([^<]*\)<\/a>/<a href="\1"><code>\2<\/code><\/a>/' | tr '\n' ' ' | sed 's/ $//; s/> </>, </g')
        item="<li><a href=\"$doc\"><code>$src</code></a> (<a href=\"${name}_source.html\">source</a>)"
        [ -n "$kernels" ] && item="$item: kernels $kernels"
        code="$code$item</li>"
        back="<p class=\"lesson-link\">Lesson: <a href=\"$(page "$lesson")\">$title</a></p>"
        for p in "$html/$doc" "$html/${name}_source.html"; do
            [ -f "$p" ] || continue
            grep -q 'class="lesson-link"' "$p" && continue
            awk -v back="$back" '{ print } /<div class="contents">/ && !done { print back; done = 1 }' \
                "$p" >"$p.new" && mv "$p.new" "$p"
        done
    done
    code="$code</ul></div>"
    awk -v code="$code" '/<p class="lesson-nav">/ && !done { print code; done = 1 } { print }' \
        "$f" >"$f.new" && mv "$f.new" "$f"
done
