#!/bin/sh
# check-lesson.sh FOLDER ID LIBRARY: the build's check of the lesson contract (docs/LESSON_CONTRACT.md):
# the lesson's kernels define ID_impls and ID_impl_count with C linkage. One line naming the
# folder when they do not.
folder=$1 id=$2 lib=$3
symbols=$(nm -g --defined-only "$lib" 2>/dev/null | awk '{ print $NF }')
for name in "${id}_impls" "${id}_impl_count"; do
    if ! printf '%s\n' "$symbols" | grep -qx "$name"; then
        echo "$folder: its kernel files must define '$name' with C linkage (HIST_DECLARE_REGISTRY($id); see docs/LESSON_CONTRACT.md)" >&2
        rm -f "$lib"
        exit 1
    fi
done
