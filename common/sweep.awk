# sweep.awk: the size sweep's CSV (runner --csv, many row counts) as a table of median times,
# then, for each GPU implementation, the first row count from which it beats the fastest CPU
# implementation on kernel time and on end-to-end time (input copy included).
NR == 1 { next }
$4 == "ran" {
    r = $15 + 0
    if (!(r in seen_rows)) { seen_rows[r] = 1; rows[++n_rows] = r }
    if (!($2 in seen_impl)) { seen_impl[$2] = 1; impls[++n_impls] = $2; where[$2] = $3 }
    kernel[r, $2] = $5 + 0
    e2e[r, $2] = ($3 == "device") ? $7 + 0 : $5 + 0
    if ($3 == "host" && (!((r) in cpu_best) || $5 + 0 < cpu_best[r])) cpu_best[r] = $5 + 0
}
END {
    # insertion sort of the row counts
    for (i = 2; i <= n_rows; ++i)
        for (j = i; j > 1 && (rows[j - 1] > rows[j]); --j) { t = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = t }
    printf "%-10s", "rows"
    for (k = 1; k <= n_impls; ++k) printf " %20s", impls[k]
    printf "\n%-10s", ""
    for (k = 1; k <= n_impls; ++k) printf " %20s", where[impls[k]] == "device" ? "kernel / e2e us" : "us"
    printf "\n"
    for (i = 1; i <= n_rows; ++i) {
        printf "%-10d", rows[i]
        for (k = 1; k <= n_impls; ++k) {
            key = rows[i] SUBSEP impls[k]
            if (!(key in kernel)) cell = "-"
            else if (where[impls[k]] == "device") cell = sprintf("%.1f / %.1f", kernel[key], e2e[key])
            else cell = sprintf("%.1f", kernel[key])
            printf " %20s", cell
        }
        printf "\n"
    }
    printf "\ncrossover: the smallest row count from which a GPU version beats the fastest CPU one\n"
    for (k = 1; k <= n_impls; ++k) {
        if (where[impls[k]] != "device") continue
        kx = "never"; ex = "never"
        # from the largest size down: the crossover starts the last unbroken run of wins
        for (i = n_rows; i >= 1; --i) {
            key = rows[i] SUBSEP impls[k]
            if (!(key in kernel) || !(rows[i] in cpu_best)) break
            if (kernel[key] < cpu_best[rows[i]] && (kx == "never" || kx == rows[i + 1])) kx = rows[i]
        }
        for (i = n_rows; i >= 1; --i) {
            key = rows[i] SUBSEP impls[k]
            if (!(key in kernel) || !(rows[i] in cpu_best)) break
            if (e2e[key] < cpu_best[rows[i]] && (ex == "never" || ex == rows[i + 1])) ex = rows[i]
        }
        printf "  %-22s kernel: %-10s end-to-end: %s\n", impls[k], kx, ex
    }
}
