#!/bin/sh
# student-code.sh [ROOT]: which implementations a student writes, and in which lesson: one line
# "LESSON IMPLEMENTATION" for every implementation that a // SOLUTION region of that lesson's
# folder names (the brackets of `// SOLUTION name [impl ...]:`). Regions of common/ belong to no
# lesson. make grade gives points only to these (an implementation whose code is given, or
# written in another lesson, is timed but not graded there). The student edition has no SOLUTION
# regions: tools/student/student.sh writes this list into it as tools/student/student-code.txt.
set -eu
cd "${1:-.}"
grep -H -o '// SOLUTION [A-Za-z0-9_]* \[[A-Za-z0-9_ ]*\]' day[0-9][0-9]_*/*.c day[0-9][0-9]_*/*.cu \
    day[0-9][0-9]_*/*.cuh day[0-9][0-9]_*/*.h 2>/dev/null |
    sed 's|^\([^/]*\)/[^:]*:// SOLUTION [A-Za-z0-9_]* \[\(.*\)\]$|\1 \2|' |
    awk '{ for (i = 2; i <= NF; ++i) print $1, $i }' | sort -u
