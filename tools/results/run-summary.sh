#!/bin/sh
# run-summary.sh CSV...: `make run`'s last three lines, from the results tables its runs wrote
# (the runner's CSV: common/report.c): how many implementations ran and how many of those were
# exact, how many were skipped and why (the reasons grouped, the commonest first), and where the
# tables are. For example, on a machine without a GPU:
#
#     ran: 4 runs of 2 implementations on 2 datasets, all 4 exact
#     skipped: 120 runs: no GPU (120)
#     tables: results/cpu-only_main_uniform.csv, results/cpu-only_small-binned_uniform.csv
#
# The reasons are grouped by their words before any detail: "not written yet: count_rows in
# day01_cpu/cpu_hist.c:40" counts as "not written yet", "needs channels divisible by 4 (got 1)"
# as "needs channels divisible by 4".
set -eu
if [ $# -eq 0 ]; then
    echo "ran: nothing (no results table was written)"
    echo "skipped: nothing"
    echo "tables: none"
    exit 0
fi
awk -F, '
    FNR == 1 { runs++; next } # a file is one dataset run: its header, then a row per entry
    $4 == "ran" {
        ran++; names[$2] = 1
        if ($13 == "exact") exact++; else differ = differ (differ == "" ? "" : ", ") $2
        next
    }
    $4 == "skipped" {
        why = $13; sub(/^skipped: /, "", why)
        sub(/^not written yet.*/, "not written yet", why)
        sub(/ \(.*$/, "", why)
        skipped++; reasons[why]++
    }
    END {
        n = 0; for (k in names) n++
        line = sprintf("ran: %d run%s of %d implementation%s on %d dataset%s", ran,
                       ran == 1 ? "" : "s", n, n == 1 ? "" : "s", runs, runs == 1 ? "" : "s")
        if (differ == "") print line ", " (ran == exact ? "all " exact " exact" : exact " exact")
        else print line ", " exact " exact, these differ: " differ
        if (skipped == 0) { print "skipped: none" }
        else {
            text = ""
            while (1) { # the reasons, the commonest first
                best = ""; for (k in reasons) if (best == "" || reasons[k] > reasons[best]) best = k
                if (best == "") break
                text = text (text == "" ? "" : ", ") best " (" reasons[best] ")"
                delete reasons[best]
            }
            print "skipped: " skipped " runs: " text
        }
    }' "$@"
tables=""
for f in "$@"; do tables="$tables${tables:+, }$f"; done
echo "tables: $tables"
