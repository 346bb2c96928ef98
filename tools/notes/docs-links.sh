#!/bin/sh
# docs-links.sh HTML_DIR: make the notes' links work, then check every one (make docs runs it).
#
# The READMEs link source and data files by their path in the repository (`steps.cu`,
# `../common/hist.h`, `../docs/data/h100_main_uniform.csv`), which do not exist under docs/html:
#  - a C, CUDA or Python file becomes a link to its page in the notes (Doxygen names it by
#    escaping the file name: `cpu_hist.c` is `cpu__hist_8c.html`; a Python script has only its
#    source listing, `..._8py_source.html`);
#  - any other file of the repository (data, the scripts of tools/) is copied into HTML_DIR/files/ and linked
#    there.
# Then every local link of every page must name a file that exists and, after `#`, an anchor
# that the file defines. Exit status 1, with one line per broken link, otherwise 0.
set -eu
html=$1
root=$(pwd)
mkdir -p "$html/files"
# the local link targets that are not there, by their base name
grep -o 'href="[^"#:]*[^"#:/]"' "$html"/*.html | sed 's/^[^:]*:href="//; s/"$//' | sort -u |
    while IFS= read -r target; do
        [ -e "$html/$target" ] && continue
        base=${target##*/}
        page=
        case "$base" in
        *.c | *.h | *.cu | *.cuh | *.py)
            page=$(printf '%s' "$base" | sed 's/_/__/g; s/\./_8/g')
            if [ -e "$html/$page.html" ]; then page=$page.html; else page=${page}_source.html; fi
            [ -e "$html/$page" ] || page= ;;
        esac
        if [ -z "$page" ]; then # not in the notes (a script of tools/, data): a copy of the file
            file=$(git ls-files 2>/dev/null | grep -x -F -e "$target" || true)
            [ -n "$file" ] || file=$(git ls-files 2>/dev/null | grep "/$base\$" | head -n 1 || true)
            [ -n "$file" ] || file=$(find . -path ./build -prune -o -name "$base" -type f -print | head -n 1)
            [ -n "$file" ] && [ -f "$root/$file" ] || continue
            cp "$root/$file" "$html/files/$base"
            page=files/$base
        fi
        printf 's|href="%s"|href="%s"|g\n' "$target" "$page"
    done >"$html/.links.sed"
if [ -s "$html/.links.sed" ]; then
    sed -i -f "$html/.links.sed" "$html"/*.html
fi
rm -f "$html/.links.sed"

# the check: every local href resolves, anchors included
status=0
for page in "$html"/*.html; do
    grep -o 'href="[^"]*"' "$page" | sed 's/^href="//; s/"$//' | sort -u | while IFS= read -r h; do
        case "$h" in
        http://* | https://* | mailto:* | javascript:* | "") continue ;;
        esac
        file=${h%%#*}
        anchor=
        case "$h" in *'#'*) anchor=${h#*#} ;; esac
        [ -n "$file" ] || file=${page##*/}
        if [ ! -e "$html/$file" ]; then
            echo "docs: ${page##*/}: broken link to $h"
        elif [ -n "$anchor" ] && case "$file" in *.html) true ;; *) false ;; esac &&
            ! grep -q -e "id=\"$anchor\"" -e "name=\"$anchor\"" "$html/$file"; then
            echo "docs: ${page##*/}: no anchor #$anchor in $file"
        fi
    done
done >"$html/.broken.txt"
if [ -s "$html/.broken.txt" ]; then
    cat "$html/.broken.txt" >&2
    status=1
fi
rm -f "$html/.broken.txt"
exit $status
