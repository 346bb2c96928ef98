#!/bin/sh
# sweep.sh COURSE_BIN [runner options]: the 1-D lesson's question, at what size does each GPU lesson
# overtake the CPU? Runs the course runner on the small-binned preset at growing row counts,
# collects one CSV and prints the table and the crossovers (kernel time and end-to-end time).
set -eu
bin=$1
shift
out=${SWEEP_CSV:-results/sweep.csv}
rows_list=${SWEEP_ROWS:-"1024 4096 16384 32768 131072 524288 2097152 8388608 33554432"}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$out.part"' EXIT
: > "$out.part"
for rows in $rows_list; do
    [ -t 2 ] && printf '\r  sweep: rows=%s ' "$rows" >&2
    "$bin" --preset small-binned --rows "$rows" --reps 20 --csv "$tmp" "$@" > /dev/null
    [ -s "$out.part" ] || head -n 1 "$tmp" > "$out.part"
    tail -n +2 "$tmp" >> "$out.part"
done
[ -t 2 ] && printf '\r%40s\r' '' >&2
mv "$out.part" "$out"
awk -F, -f "$(dirname "$0")/sweep.awk" "$out"
echo "(full results: $out)"
