#!/bin/sh
# lessons-page.sh OUT "TAG..." LESSON...: the notes' "Lessons" page (make docs): day 00, every
# lesson in order (as Doxygen subpages, so the side tree holds them under "Lessons" with their full
# titles), the exercises, and one results page per GPU with kept data (TAG: h100, h200, ...).
# Made from the list of lesson folders: a new lesson needs no edit anywhere else.
set -eu
out=$1 tags=$2
shift 2
mkdir -p "$(dirname "$out")"
{
    echo "# Lessons {#lessons}"
    echo
    echo "The course in order. Each lesson's page ends with links to its code in these notes"
    echo "(each file's documented kernels and its source listing) and to the previous and next"
    echo "lesson; each code page of a lesson links back to the lesson."
    echo
    echo "- @subpage day00"
    echo "- @subpage gpus"
    for lesson in "$@"; do
        echo "- @subpage md_${lesson}_README"
    done
    echo "- @subpage exercises"
    echo
    echo "**Results, one page per GPU.**"
    echo
    echo "Every implementation on every kept run (docs/data, written by \`make measure\`):"
    echo
    for tag in $tags; do
        echo "- @subpage results_$tag"
    done
} >"$out.new"
mv -f "$out.new" "$out"
