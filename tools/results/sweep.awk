# sweep.awk: the size sweep's CSV (runner --csv, many row counts) as a table of median times,
# then, for each GPU implementation, the first row count from which it beats the fastest CPU
# implementation on kernel time and on end-to-end time (input copy included).
# columns are found by their names in the header
NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
$col["status"] == "ran" {
    r = $col["rows"] + 0
    impl = $col["implementation"]; kind = $col["where"]
    t = $col["median_us"] + 0
    if (!(r in seen_rows)) { seen_rows[r] = 1; rows[++n_rows] = r }
    if (!(impl in seen_impl)) { seen_impl[impl] = 1; impls[++n_impls] = impl; where[impl] = kind }
    kernel[r, impl] = t
    e2e[r, impl] = (kind == "device") ? $col["e2e_median_us"] + 0 : t
    if (kind == "host" && (!(r in cpu_best) || t < cpu_best[r])) cpu_best[r] = t
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
