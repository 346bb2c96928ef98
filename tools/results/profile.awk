# profile.awk: turn `ncu --csv --metrics ...` output into the published profile's table, one column per kernel.
# Every field of ncu's CSV is quoted, so fields split on `","`. The first launch of each kernel is
# kept; the harness's own kernels (floor, spin) are left out.
BEGIN {
    FS = "\",\""
    # rows in this order, the published profile's first
    split("gpu__time_duration.sum sm__throughput.avg.pct_of_peak_sustained_elapsed " \
          "sm__instruction_throughput.avg.pct_of_peak_sustained_active " \
          "l1tex__throughput.avg.pct_of_peak_sustained_active " \
          "lts__throughput.avg.pct_of_peak_sustained_elapsed " \
          "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed l1tex__t_sector_hit_rate.pct " \
          "lts__t_sector_hit_rate.pct dram__bytes_read.sum lts__t_sectors_srcunit_tex_op_read.sum " \
          "smsp__sass_inst_executed_op_shared_atom.sum " \
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum " \
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", order, " ")
    label["gpu__time_duration.sum"] = "Duration"
    label["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = "Compute (SM) throughput %"
    label["sm__instruction_throughput.avg.pct_of_peak_sustained_active"] = "SM busy %"
    label["l1tex__throughput.avg.pct_of_peak_sustained_active"] = "L1/TEX cache throughput %"
    label["lts__throughput.avg.pct_of_peak_sustained_elapsed"] = "L2 cache throughput %"
    label["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"] = "DRAM throughput %"
    label["l1tex__t_sector_hit_rate.pct"] = "L1/TEX hit rate %"
    label["lts__t_sector_hit_rate.pct"] = "L2 hit rate %"
    label["dram__bytes_read.sum"] = "DRAM read"
    label["lts__t_sectors_srcunit_tex_op_read.sum"] = "L2-to-L1 read sectors (x32 bytes)"
    label["smsp__sass_inst_executed_op_shared_atom.sum"] = "shared atomic instructions"
    label["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"] = "shared atomic wavefronts"
    label["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"] = "shared atomic bank conflicts"
}
$1 ~ /^"ID$/ { next }
NF >= 15 {
    sub(/^"/, "", $1)
    sub(/"[ \r]*$/, "", $NF)
    kernel = $5
    sub(/\(.*/, "", kernel)
    sub(/^void /, "", kernel)
    if (kernel ~ /^(floor_kernel|spin_kernel)/)
        next
    if (!(kernel in first_id)) {
        first_id[kernel] = $1
        kernels[++n_kernels] = kernel
    }
    if (first_id[kernel] != $1)
        next
    metric = $13
    if (!(metric in seen)) {
        seen[metric] = 1
        metrics[++n_metrics] = metric
    }
    value[kernel, metric] = $15 ($14 != "" && $14 !~ /%/ ? " " $14 : "")
}
END {
    if (n_kernels == 0) {
        print "profile.awk: no kernel in the profile" > "/dev/stderr"
        exit 1
    }
    printf "%-36s", "metric"
    for (k = 1; k <= n_kernels; ++k)
        printf " | %-28s", kernels[k]
    printf "\n"
    n_rows = 0
    for (i = 1; i in order; ++i)
        if (order[i] in seen)
            rows[++n_rows] = order[i]
    for (m = 1; m <= n_metrics; ++m)
        if (!(metrics[m] in label))
            rows[++n_rows] = metrics[m]
    for (m = 1; m <= n_rows; ++m) {
        metric = rows[m]
        name = metric in label ? label[metric] : metric
        printf "%-36s", name
        for (k = 1; k <= n_kernels; ++k)
            printf " | %-28s", ((kernels[k], metric) in value ? value[kernels[k], metric] : "-")
        printf "\n"
    }
}
