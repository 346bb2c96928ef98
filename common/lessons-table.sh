#!/bin/sh
# lessons-table.sh README CSV LESSON...: rewrite the lesson table of README (between the lines
# "<!-- lessons:begin -->" and "<!-- lessons:end -->") from each lesson's README title and the kept
# results CSV (the fastest median of each lesson that ran, and its share of that run's floor).
set -eu
readme=$1 csv=$2
shift 2
tmp=$(mktemp "$readme.tmp.XXXXXX")
trap 'rm -f "$tmp"' EXIT
gpu=$(awk -F, 'NR == 2 { print $15 }' "$csv")
{
    echo
    echo "| lesson | what it teaches | best median, main preset ($gpu) | % of floor |"
    echo "| --- | --- | --- | --- |"
    for lesson in "$@"; do
        title=$(head -n 1 "$lesson/README.md" | sed 's/^# *Day [0-9]*: *//')
        awk -F, -v lesson="$lesson" -v title="$title" '
            NR > 1 && $1 == lesson && $4 == "ran" && (best == "" || $5 + 0 < best + 0) {
                best = $5; pct = $10; where = $3 }
            END {
                t = "-"
                if (best != "") {
                    if (best >= 1000000) t = sprintf("%.3f s", best / 1e6)
                    else if (best >= 1000) t = sprintf("%.2f ms", best / 1e3)
                    else t = sprintf("%.1f us", best)
                }
                p = (where == "device" && pct + 0 > 0) ? sprintf("%.0f%%", pct) : ""
                printf "| [%s](%s/README.md) | %s | %s | %s |\n", lesson, lesson, title, t, p
            }' "$csv"
    done
    echo
} > "$tmp.table"
awk -v table="$tmp.table" '
    /^<!-- lessons:end -->$/ { while ((getline line < table) > 0) print line; skip = 0 }
    !skip { print }
    /^<!-- lessons:begin -->$/ { skip = 1; found = 1 }
    END { if (!found) { print "lessons-table: no <!-- lessons:begin --> line" > "/dev/stderr"; exit 1 } }
' "$readme" > "$tmp"
rm -f "$tmp.table"
mv "$tmp" "$readme"
trap - EXIT
